# Green-holds battery 24 (periods and comparisons) (questions a new user would ask, no reference answers: read each green
# answer against its filing). Usage: python3 battery24.py a|b > BATTERY.jsonl  (a, b: the company halves)
# then lens eval --labels BATTERY.jsonl --name RUN; lens eval-answers --labels BATTERY.jsonl --pages-from RUN --explain
import json, random, sys, os
random.seed(2424)
half = sys.argv[1]
A = {'3M':'3M','ADOBE':'Adobe','AMAZON':'Amazon','AMD':'AMD','BLOCK':'Block','BOEING':'Boeing','COCACOLA':'Coca-Cola','COSTCO':'Costco','GENERALMILLS':'General Mills','JOHNSON_JOHNSON':'Johnson & Johnson','VERIZON':'Verizon','WALMART':'Walmart','MGMRESORTS':'MGM Resorts','PFIZER':'Pfizer','FOOTLOCKER':'Foot Locker','JPMORGAN':'JPMorgan'}
B = {'ACTIVISIONBLIZZARD':'Activision Blizzard','AMCOR':'Amcor','AMERICANEXPRESS':'American Express','BESTBUY':'Best Buy','CORNING':'Corning','CVSHEALTH':'CVS Health','KRAFTHEINZ':'Kraft Heinz','LOCKHEEDMARTIN':'Lockheed Martin','MICROSOFT':'Microsoft','NETFLIX':'Netflix','NIKE':'Nike','PEPSICO':'PepsiCo','AMERICANWATERWORKS':'American Water Works'}
names = A if half=='a' else B
docs = [d[:-4] for d in os.listdir(os.path.join(os.environ.get('LENS_CORPUS', os.path.join(os.path.dirname(os.path.abspath(__file__)), '../../../shared/corpus')), 'financebench/pdfs')) if d.endswith('_10K.pdf')]
T = [
 "Did {c}'s revenue grow from FY{p} to FY{y}?",
 "Was {c}'s operating margin higher in FY{y} than in FY{p}?",
 "How did {c}'s net income in FY{y} compare with FY{p}?",
 "What was {c}'s average revenue over FY{q} to FY{y}?",
 "Which year had higher revenue for {c}, FY{p} or FY{y}?",
 "What was {c}'s total revenue over the last three fiscal years ending FY{y}?",
 "By what amount did {c}'s total assets change from FY{p} to FY{y}?",
 "What was {c}'s cumulative free cash flow from FY{q} to FY{y}?",
 "Did {c}'s debt go up in FY{y}?",
 "Is {c}'s cash balance higher at the end of FY{y} than at the end of FY{p}?",
 "What was {c}'s revenue in the fourth quarter of FY{y}?",
 "How much did {c}'s gross margin change between FY{p} and FY{y}?",
 "What was {c}'s lowest quarterly revenue in FY{y}?",
 "What was {c}'s net income in FY{p} and FY{y}?",
 "Was {c}'s effective tax rate lower in FY{y} than in FY{p}?",
 "How much higher were {c}'s operating expenses in FY{y} than in FY{p}, in percent?",
]
out=[]; i=0
for d in sorted(docs):
    co = d.rsplit('_',2)[0]
    if co not in names: continue
    y = int(d.rsplit('_',2)[1])
    for t in random.sample(T, 6):
        i+=1
        out.append({'id':f'nz{half}{i}','query':t.format(c=names[co],y=y,p=y-1,q=y-2),'answer':'$0','query_types':['novel-generated'],'content_type':'','gold':{f'{d}#1':1}})
for o in out: print(json.dumps(o))
