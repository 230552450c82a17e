# Green-holds battery 19 (questions a new user would ask, no reference answers: read each green
# answer against its filing). Usage: python3 battery19.py a|b > BATTERY.jsonl  (a, b: the company halves)
# then lens eval --labels BATTERY.jsonl --name RUN; lens eval-answers --labels BATTERY.jsonl --pages-from RUN --explain
import json, random, sys, os
random.seed(1919)
half = sys.argv[1]
A = {'3M':'3M','ADOBE':'Adobe','AMAZON':'Amazon','AMD':'AMD','BLOCK':'Block','BOEING':'Boeing','COCACOLA':'Coca-Cola','COSTCO':'Costco','GENERALMILLS':'General Mills','JOHNSON_JOHNSON':'Johnson & Johnson','VERIZON':'Verizon','WALMART':'Walmart','MGMRESORTS':'MGM Resorts','PFIZER':'Pfizer','FOOTLOCKER':'Foot Locker','JPMORGAN':'JPMorgan'}
B = {'ACTIVISIONBLIZZARD':'Activision Blizzard','AMCOR':'Amcor','AMERICANEXPRESS':'American Express','BESTBUY':'Best Buy','CORNING':'Corning','CVSHEALTH':'CVS Health','KRAFTHEINZ':'Kraft Heinz','LOCKHEEDMARTIN':'Lockheed Martin','MICROSOFT':'Microsoft','NETFLIX':'Netflix','NIKE':'Nike','PEPSICO':'PepsiCo','AMERICANWATERWORKS':'American Water Works'}
names = A if half=='a' else B
docs = [d[:-4] for d in os.listdir(os.path.join(os.environ.get('LENS_CORPUS', os.path.join(os.path.dirname(os.path.abspath(__file__)), '../../../shared/corpus')), 'financebench/pdfs')) if d.endswith('_10K.pdf')]
T = [
 "What was {c}'s net interest expense in FY{y}, in USD millions?",
 "How many weighted average basic shares did {c} have in FY{y}, in millions?",
 "What was the change in {c}'s net income from FY{p} to FY{y}, in USD millions?",
 "What was {c}'s long-term debt excluding the current portion at the end of FY{y}, in USD millions?",
 "How much did {c} pay in dividends in FY{y}, in USD millions?",
 "What was {c}'s total equity including noncontrolling interests at the end of FY{y}, in USD millions?",
 "What was {c}'s other comprehensive income in FY{y}, in USD millions?",
 "What was {c}'s effective tax rate in FY{p}?",
 "What were {c}'s total current assets at the end of FY{y}, in USD millions?",
 "How much cash did {c} pay for interest in FY{y}, in USD millions?",
 "What was {c}'s income from discontinued operations in FY{y}, in USD millions?",
 "What was {c}'s asset turnover in FY{y}? Use revenue divided by average total assets.",
 "By what percent did {c}'s selling, general and administrative expenses change from FY{p} to FY{y}?",
 "How much did {c} raise from issuing long-term debt in FY{y}, in USD millions?",
 "What was {c}'s gross margin in FY{p}, in percent?",
 "What was {c}'s operating income in FY{p}, in USD millions?",
]
out=[]; i=0
for d in sorted(docs):
    co = d.rsplit('_',2)[0]
    if co not in names: continue
    y = int(d.rsplit('_',2)[1])
    for t in random.sample(T, 6):
        i+=1
        out.append({'id':f'np{half}{i}','query':t.format(c=names[co],y=y,p=y-1,q=y-2),'answer':'$0','query_types':['novel-generated'],'content_type':'','gold':{f'{d}#1':1}})
for o in out: print(json.dumps(o))
