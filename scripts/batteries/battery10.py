# Green-holds battery 10 (questions a new user would ask, no reference answers: read each green
# answer against its filing). Usage: python3 battery10.py a|b > BATTERY.jsonl  (a, b: the company halves)
# then lens eval --labels BATTERY.jsonl --name RUN; lens eval-answers --labels BATTERY.jsonl --pages-from RUN --explain
import json, sys, os
half = sys.argv[1]
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import A, B
names = A if half=='a' else B
docs = [d[:-4] for d in os.listdir(os.path.join(os.environ.get('LENS_CORPUS', os.path.join(os.path.dirname(os.path.abspath(__file__)), '../../../shared/corpus')), 'financebench/pdfs')) if d.endswith('_10K.pdf')]
T = ["What was {c}'s stock-based compensation expense in FY{y}, in USD millions?",
     "What was {c}'s income tax expense in FY{y}, in USD millions?",
     "What was {c}'s research and development expense in FY{y}, in USD millions?",
     "What was {c}'s advertising expense in FY{y}, in USD millions?",
     "How much cash did {c} pay for income taxes in FY{y}, in USD millions?"]
i=0
for d in sorted(docs):
    co = d.rsplit('_',2)[0]
    if co not in names: continue
    y = int(d.rsplit('_',2)[1])
    for t in T:
        i+=1
        print(json.dumps({'id':f'ne{half}{i}','query':t.format(c=names[co],y=y),'answer':'$0','query_types':['novel-generated'],'content_type':'','gold':{f'{d}#1':1}}))
