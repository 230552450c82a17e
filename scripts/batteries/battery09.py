# Green-holds battery 09 (questions a new user would ask, no reference answers: read each green
# answer against its filing). Usage: python3 battery09.py a|b > BATTERY.jsonl  (a, b: the company halves)
# then lens eval --labels BATTERY.jsonl --name RUN; lens eval-answers --labels BATTERY.jsonl --pages-from RUN --explain
# (The half-b run reported was made before the two questions about companies not held were added:
# 140 questions, this script writes 142.)
import json, random, sys, os
random.seed(91)
half = sys.argv[1]
A = {'3M':'3M','ADOBE':'Adobe','AMAZON':'Amazon','AMD':'AMD','BLOCK':'Block','BOEING':'Boeing','COCACOLA':'Coca-Cola','COSTCO':'Costco','GENERALMILLS':'General Mills','JOHNSON_JOHNSON':'Johnson & Johnson','VERIZON':'Verizon','WALMART':'Walmart','MGMRESORTS':'MGM Resorts','PFIZER':'Pfizer','FOOTLOCKER':'Foot Locker','JPMORGAN':'JPMorgan'}
B = {'ACTIVISIONBLIZZARD':'Activision Blizzard','AMCOR':'Amcor','AMERICANEXPRESS':'American Express','BESTBUY':'Best Buy','CORNING':'Corning','CVSHEALTH':'CVS Health','KRAFTHEINZ':'Kraft Heinz','LOCKHEEDMARTIN':'Lockheed Martin','MICROSOFT':'Microsoft','NETFLIX':'Netflix','NIKE':'Nike','PEPSICO':'PepsiCo','AMERICANWATERWORKS':'American Water Works'}
names = A if half=='a' else B
docs = [d[:-4] for d in os.listdir(os.path.join(os.environ.get('LENS_CORPUS', os.path.join(os.path.dirname(os.path.abspath(__file__)), '../../../shared/corpus')), 'financebench/pdfs')) if d.endswith('_10K.pdf')]
T = [
 "What was {c}'s diluted earnings per share in FY{y}?",
 "How many employees did {c} have at the end of FY{y}?",
 "How much did {c} spend on share repurchases in FY{y}, in USD millions?",
 "What were {c}'s dividends declared per share in FY{y}?",
 "By how much did {c}'s inventory change from FY{p} to FY{y}, in USD millions?",
 "What was {c}'s revenue in FY{z}?",
 "What share of {c}'s FY{y} revenue came from outside the United States, in percent?",
 "What was {c}'s goodwill at the end of FY{y} in USD millions?",
 "What was {c}'s research and development expense as a percent of revenue in FY{y}?",
 "What was {c}'s interest coverage ratio in FY{y}? Interest coverage is operating income divided by interest expense.",
 "What was {c}'s debt-to-equity ratio at the end of FY{y}? Use total debt divided by total shareholders' equity.",
 "What was {c}'s cash and cash equivalents at the end of FY{p}, in USD millions?",
 "What was {c}'s income tax expense in FY{y} in USD millions?",
 "What was {c}'s total stockholders' equity at the end of FY{y} in USD billions?",
 "What was {c}'s net income growth from FY{p} to FY{y}, in percent?",
 "What was {c}'s quick ratio at the end of FY{y}? Quick ratio is (current assets minus inventory) divided by current liabilities.",
 "What was {c}'s stock-based compensation expense in FY{y} in USD millions?",
 "What was {c}'s weighted average diluted shares outstanding in FY{y}, in millions?",
]
out=[]; i=0
for d in sorted(docs):
    co = d.rsplit('_',2)[0]
    if co not in names: continue
    y = int(d.rsplit('_',2)[1])
    for t in random.sample(T, 5):
        i+=1
        out.append({'id':f'n9{half}{i}','query':t.format(c=names[co],y=y,p=y-1,z=y+2),'answer':'$0','query_types':['novel-generated'],'content_type':'','gold':{f'{d}#1':1}})
# outside the library
out.append({'id':f'n9{half}x1','query':"What was Tesla's revenue in 2022?",'answer':'$0','query_types':['novel-generated'],'content_type':'','gold':{'3M_2022_10K#1':1}})
out.append({'id':f'n9{half}x2','query':"What was Intel's net income in FY2021?",'answer':'$0','query_types':['novel-generated'],'content_type':'','gold':{'3M_2022_10K#1':1}})
for o in out: print(json.dumps(o))
