# Green-holds battery 23 (ratios of several operands) (questions a new user would ask, no reference answers: read each green
# answer against its filing). Usage: python3 battery23.py a|b > BATTERY.jsonl  (a, b: the company halves)
# then lens eval --labels BATTERY.jsonl --name RUN; lens eval-answers --labels BATTERY.jsonl --pages-from RUN --explain
import json, random, sys, os
random.seed(2323)
half = sys.argv[1]
A = {'3M':'3M','ADOBE':'Adobe','AMAZON':'Amazon','AMD':'AMD','BLOCK':'Block','BOEING':'Boeing','COCACOLA':'Coca-Cola','COSTCO':'Costco','GENERALMILLS':'General Mills','JOHNSON_JOHNSON':'Johnson & Johnson','VERIZON':'Verizon','WALMART':'Walmart','MGMRESORTS':'MGM Resorts','PFIZER':'Pfizer','FOOTLOCKER':'Foot Locker','JPMORGAN':'JPMorgan'}
B = {'ACTIVISIONBLIZZARD':'Activision Blizzard','AMCOR':'Amcor','AMERICANEXPRESS':'American Express','BESTBUY':'Best Buy','CORNING':'Corning','CVSHEALTH':'CVS Health','KRAFTHEINZ':'Kraft Heinz','LOCKHEEDMARTIN':'Lockheed Martin','MICROSOFT':'Microsoft','NETFLIX':'Netflix','NIKE':'Nike','PEPSICO':'PepsiCo','AMERICANWATERWORKS':'American Water Works'}
names = A if half=='a' else B
docs = [d[:-4] for d in os.listdir(os.path.join(os.environ.get('LENS_CORPUS', os.path.join(os.path.dirname(os.path.abspath(__file__)), '../../../shared/corpus')), 'financebench/pdfs')) if d.endswith('_10K.pdf')]
T = [
 "What was {c}'s interest coverage ratio in FY{y}?",
 "What was {c}'s debt to EBITDA ratio in FY{y}?",
 "What was {c}'s capex to depreciation ratio in FY{y}?",
 "What was {c}'s net debt to EBITDA ratio at the end of FY{y}?",
 "What was {c}'s return on invested capital in FY{y}?",
 "What was {c}'s SG&A as a percent of revenue in FY{y}?",
 "What was {c}'s cash ratio at the end of FY{y}?",
 "What was {c}'s inventory to revenue ratio in FY{y}?",
 "What was {c}'s equity multiplier at the end of FY{y}?",
 "What was {c}'s R&D to revenue ratio in FY{y}?",
 "What was {c}'s cash taxes paid as a percent of pretax income in FY{y}?",
 "What was {c}'s two-year revenue CAGR from FY{q} to FY{y}?",
 "What was {c}'s total asset turnover in FY{y}?",
 "What was {c}'s operating income growth from FY{p} to FY{y}, in percent?",
 "What was {c}'s free cash flow margin in FY{y}?",
 "What was {c}'s liabilities to assets ratio at the end of FY{y}?",
]
out=[]; i=0
for d in sorted(docs):
    co = d.rsplit('_',2)[0]
    if co not in names: continue
    y = int(d.rsplit('_',2)[1])
    for t in random.sample(T, 6):
        i+=1
        out.append({'id':f'nw{half}{i}','query':t.format(c=names[co],y=y,p=y-1,q=y-2),'answer':'$0','query_types':['novel-generated'],'content_type':'','gold':{f'{d}#1':1}})
for o in out: print(json.dumps(o))
