# Green-holds battery 22 (more of what a new user asks) (questions a new user would ask, no reference answers: read each green
# answer against its filing). Usage: python3 battery22.py a|b > BATTERY.jsonl  (a, b: the company halves)
# then lens eval --labels BATTERY.jsonl --name RUN; lens eval-answers --labels BATTERY.jsonl --pages-from RUN --explain
import json, random, sys, os
random.seed(2222)
half = sys.argv[1]
A = {'3M':'3M','ADOBE':'Adobe','AMAZON':'Amazon','AMD':'AMD','BLOCK':'Block','BOEING':'Boeing','COCACOLA':'Coca-Cola','COSTCO':'Costco','GENERALMILLS':'General Mills','JOHNSON_JOHNSON':'Johnson & Johnson','VERIZON':'Verizon','WALMART':'Walmart','MGMRESORTS':'MGM Resorts','PFIZER':'Pfizer','FOOTLOCKER':'Foot Locker','JPMORGAN':'JPMorgan'}
B = {'ACTIVISIONBLIZZARD':'Activision Blizzard','AMCOR':'Amcor','AMERICANEXPRESS':'American Express','BESTBUY':'Best Buy','CORNING':'Corning','CVSHEALTH':'CVS Health','KRAFTHEINZ':'Kraft Heinz','LOCKHEEDMARTIN':'Lockheed Martin','MICROSOFT':'Microsoft','NETFLIX':'Netflix','NIKE':'Nike','PEPSICO':'PepsiCo','AMERICANWATERWORKS':'American Water Works'}
names = A if half=='a' else B
docs = [d[:-4] for d in os.listdir(os.path.join(os.environ.get('LENS_CORPUS', os.path.join(os.path.dirname(os.path.abspath(__file__)), '../../../shared/corpus')), 'financebench/pdfs')) if d.endswith('_10K.pdf')]
T = [
 "What was {c}'s revenue last year?",
 "How many employees does {c} have?",
 "What is {c}'s biggest segment by revenue in {y}?",
 "Which segment of {c} grew the fastest in {y}?",
 "How much did {c} spend on R&D in {y}?",
 "What did {c} pay in dividends per share in {y}?",
 "How much goodwill does {c} have?",
 "How much did {c} spend on advertising in {y}?",
 "How much stock did {c} buy back in {y}?",
 "How much of {c}'s long-term debt matures next year?",
 "What is {c}'s credit rating?",
 "How much did {c} pay its CEO in {y}?",
 "What were {c}'s operating expenses in {y} excluding cost of sales?",
 "When does {c}'s fiscal year end?",
 "What was {c}'s net income per share in {y}?",
 "How much cash did {c} generate from operations in {y}?",
]
out=[]; i=0
for d in sorted(docs):
    co = d.rsplit('_',2)[0]
    if co not in names: continue
    y = int(d.rsplit('_',2)[1])
    for t in random.sample(T, 6):
        i+=1
        out.append({'id':f'nt{half}{i}','query':t.format(c=names[co],y=y,p=y-1,q=y-2),'answer':'$0','query_types':['novel-generated'],'content_type':'','gold':{f'{d}#1':1}})
for o in out: print(json.dumps(o))
