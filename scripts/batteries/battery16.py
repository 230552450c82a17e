# Green-holds battery 16 (questions a new user would ask, no reference answers: read each green
# answer against its filing). Usage: python3 battery16.py a|b > BATTERY.jsonl  (a, b: the company halves)
# then lens eval --labels BATTERY.jsonl --name RUN; lens eval-answers --labels BATTERY.jsonl --pages-from RUN --explain
import json, random, sys, os
random.seed(1616)
half = sys.argv[1]
A = {'3M':'3M','ADOBE':'Adobe','AMAZON':'Amazon','AMD':'AMD','BLOCK':'Block','BOEING':'Boeing','COCACOLA':'Coca-Cola','COSTCO':'Costco','GENERALMILLS':'General Mills','JOHNSON_JOHNSON':'Johnson & Johnson','VERIZON':'Verizon','WALMART':'Walmart','MGMRESORTS':'MGM Resorts','PFIZER':'Pfizer','FOOTLOCKER':'Foot Locker','JPMORGAN':'JPMorgan'}
B = {'ACTIVISIONBLIZZARD':'Activision Blizzard','AMCOR':'Amcor','AMERICANEXPRESS':'American Express','BESTBUY':'Best Buy','CORNING':'Corning','CVSHEALTH':'CVS Health','KRAFTHEINZ':'Kraft Heinz','LOCKHEEDMARTIN':'Lockheed Martin','MICROSOFT':'Microsoft','NETFLIX':'Netflix','NIKE':'Nike','PEPSICO':'PepsiCo','AMERICANWATERWORKS':'American Water Works'}
names = A if half=='a' else B
docs = [d[:-4] for d in os.listdir(os.path.join(os.environ.get('LENS_CORPUS', os.path.join(os.path.dirname(os.path.abspath(__file__)), '../../../shared/corpus')), 'financebench/pdfs')) if d.endswith('_10K.pdf')]
T = [
 "What was {c}'s income before income taxes in FY{y}, in USD millions?",
 "What were {c}'s total liabilities at the end of FY{y}, in USD millions?",
 "What was {c}'s long-term debt at the end of FY{y}, in USD millions?",
 "What were {c}'s intangible assets, net at the end of FY{y}, in USD millions?",
 "What was {c}'s comprehensive income in FY{y}, in USD millions?",
 "How many shares of common stock did {c} have outstanding at the end of FY{y}?",
 "What was {c}'s basic EPS in FY{y}?",
 "What was {c}'s operating income as a percent of revenue in FY{p}?",
 "What were {c}'s short-term investments at the end of FY{y}, in USD millions?",
 "What was {c}'s net income attributable to noncontrolling interests in FY{y}, in USD millions?",
 "What was {c}'s cash from operations minus dividends paid in FY{y}, in USD millions?",
 "By how much did {c}'s gross margin change from FY{p} to FY{y}, in percentage points?",
 "What was {c}'s total revenue in the first half of FY{y}?",
 "What was {c}'s revenue in FY{y} in USD billions?",
]
out=[]; i=0
for d in sorted(docs):
    co = d.rsplit('_',2)[0]
    if co not in names: continue
    y = int(d.rsplit('_',2)[1])
    for t in random.sample(T, 6):
        i+=1
        out.append({'id':f'nl{half}{i}','query':t.format(c=names[co],y=y,p=y-1,q=y-2),'answer':'$0','query_types':['novel-generated'],'content_type':'','gold':{f'{d}#1':1}})
for o in out: print(json.dumps(o))
