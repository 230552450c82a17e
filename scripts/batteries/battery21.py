# Green-holds battery 21 (casual wording, as a new user types) (questions a new user would ask, no reference answers: read each green
# answer against its filing). Usage: python3 battery21.py a|b > BATTERY.jsonl  (a, b: the company halves)
# then lens eval --labels BATTERY.jsonl --name RUN; lens eval-answers --labels BATTERY.jsonl --pages-from RUN --explain
import json, random, sys, os
random.seed(2121)
half = sys.argv[1]
A = {'3M':'3M','ADOBE':'Adobe','AMAZON':'Amazon','AMD':'AMD','BLOCK':'Block','BOEING':'Boeing','COCACOLA':'Coca-Cola','COSTCO':'Costco','GENERALMILLS':'General Mills','JOHNSON_JOHNSON':'Johnson & Johnson','VERIZON':'Verizon','WALMART':'Walmart','MGMRESORTS':'MGM Resorts','PFIZER':'Pfizer','FOOTLOCKER':'Foot Locker','JPMORGAN':'JPMorgan'}
B = {'ACTIVISIONBLIZZARD':'Activision Blizzard','AMCOR':'Amcor','AMERICANEXPRESS':'American Express','BESTBUY':'Best Buy','CORNING':'Corning','CVSHEALTH':'CVS Health','KRAFTHEINZ':'Kraft Heinz','LOCKHEEDMARTIN':'Lockheed Martin','MICROSOFT':'Microsoft','NETFLIX':'Netflix','NIKE':'Nike','PEPSICO':'PepsiCo','AMERICANWATERWORKS':'American Water Works'}
names = A if half=='a' else B
docs = [d[:-4] for d in os.listdir(os.path.join(os.environ.get('LENS_CORPUS', os.path.join(os.path.dirname(os.path.abspath(__file__)), '../../../shared/corpus')), 'financebench/pdfs')) if d.endswith('_10K.pdf')]
T = [
 "how much money did {c} make in {y}",
 "{c} profit {y}",
 "Did {c} make a profit in {y}?",
 "How big was {c}'s cash pile at the end of {y}?",
 "What were {c}'s sales in {y} vs {p}?",
 "How much did {c} pay its shareholders in {y}?",
 "How much tax did {c} pay in {y}?",
 "What was {c}'s profit margin in {y}?",
 "What was {c}'s operating profit in {y}?",
 "How much cash did {c} burn in {y}?",
 "What's the gross profit of {c} for {y}?",
 "Was {c} profitable in {y}?",
 "What did {c} spend on buybacks in {y}?",
 "how much does {c} owe",
 "{c} total debt {y} vs {p}",
 "What was {c}'s biggest expense in {y}?",
]
out=[]; i=0
for d in sorted(docs):
    co = d.rsplit('_',2)[0]
    if co not in names: continue
    y = int(d.rsplit('_',2)[1])
    for t in random.sample(T, 6):
        i+=1
        out.append({'id':f'ns{half}{i}','query':t.format(c=names[co],y=y,p=y-1,q=y-2),'answer':'$0','query_types':['novel-generated'],'content_type':'','gold':{f'{d}#1':1}})
for o in out: print(json.dumps(o))
