# Green-holds battery 20 (questions a new user would ask, no reference answers: read each green
# answer against its filing). Usage: python3 battery20.py a|b > BATTERY.jsonl  (a, b: the company halves)
# then lens eval --labels BATTERY.jsonl --name RUN; lens eval-answers --labels BATTERY.jsonl --pages-from RUN --explain
import json, random, sys, os
random.seed(2020)
half = sys.argv[1]
A = {'3M':'3M','ADOBE':'Adobe','AMAZON':'Amazon','AMD':'AMD','BLOCK':'Block','BOEING':'Boeing','COCACOLA':'Coca-Cola','COSTCO':'Costco','GENERALMILLS':'General Mills','JOHNSON_JOHNSON':'Johnson & Johnson','VERIZON':'Verizon','WALMART':'Walmart','MGMRESORTS':'MGM Resorts','PFIZER':'Pfizer','FOOTLOCKER':'Foot Locker','JPMORGAN':'JPMorgan'}
B = {'ACTIVISIONBLIZZARD':'Activision Blizzard','AMCOR':'Amcor','AMERICANEXPRESS':'American Express','BESTBUY':'Best Buy','CORNING':'Corning','CVSHEALTH':'CVS Health','KRAFTHEINZ':'Kraft Heinz','LOCKHEEDMARTIN':'Lockheed Martin','MICROSOFT':'Microsoft','NETFLIX':'Netflix','NIKE':'Nike','PEPSICO':'PepsiCo','AMERICANWATERWORKS':'American Water Works'}
names = A if half=='a' else B
docs = [d[:-4] for d in os.listdir(os.path.join(os.environ.get('LENS_CORPUS', os.path.join(os.path.dirname(os.path.abspath(__file__)), '../../../shared/corpus')), 'financebench/pdfs')) if d.endswith('_10K.pdf')]
T = [
 "What was {c}'s dividend payout ratio in FY{y}?",
 "How much debt does {c} have?",
 "What percentage of {c}'s revenue was spent on selling, general and administrative expenses in FY{y}?",
 "What was {c}'s revenue per employee in FY{y}?",
 "What was {c}'s price to earnings ratio at the end of FY{y}?",
 "How much did {c}'s net income change year over year in FY{y}, in percent?",
 "What was {c}'s average inventory in FY{y}, in USD millions?",
 "What were {c}'s cash and short-term investments at the end of FY{y}, in USD millions?",
 "What is {c}'s ROE for FY{y}?",
 "What was {c}'s fixed asset turnover ratio in FY{y}?",
 "What was {c}'s long-term debt to equity ratio at the end of FY{y}?",
 "What was {c}'s EBITDA margin in FY{y}?",
 "What was {c}'s receivables turnover in FY{y}?",
 "What was {c}'s cash conversion cycle in FY{y}, in days?",
 "How much did {c} earn per share in FY{p}?",
 "What was {c}'s operating cash flow to net income ratio in FY{y}?",
]
out=[]; i=0
for d in sorted(docs):
    co = d.rsplit('_',2)[0]
    if co not in names: continue
    y = int(d.rsplit('_',2)[1])
    for t in random.sample(T, 6):
        i+=1
        out.append({'id':f'nr{half}{i}','query':t.format(c=names[co],y=y,p=y-1,q=y-2),'answer':'$0','query_types':['novel-generated'],'content_type':'','gold':{f'{d}#1':1}})
for o in out: print(json.dumps(o))
