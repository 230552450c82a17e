# Green-holds battery 11 (questions a new user would ask, no reference answers: read each green
# answer against its filing). Usage: python3 battery11.py a|b > BATTERY.jsonl  (a, b: the company halves)
# then lens eval --labels BATTERY.jsonl --name RUN; lens eval-answers --labels BATTERY.jsonl --pages-from RUN --explain
import json, sys, os
half = sys.argv[1]
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import A, B
names = A if half=='a' else B
docs = [d[:-4] for d in os.listdir(os.path.join(os.environ.get('LENS_CORPUS', os.path.join(os.path.dirname(os.path.abspath(__file__)), '../../../shared/corpus')), 'financebench/pdfs')) if d.endswith('_10K.pdf')]
T = ["What was {c}'s operating lease expense in FY{y}, in USD millions?",
     "What was {c}'s amortization expense of intangible assets in FY{y}, in USD millions?",
     "What were {c}'s restructuring charges in FY{y}, in USD millions?",
     "What was {c}'s pension expense in FY{y}, in USD millions?",
     "How much did {c} spend on share repurchases in FY{y}, in USD millions?"]
i=0
for d in sorted(docs):
    co = d.rsplit('_',2)[0]
    if co not in names: continue
    y = int(d.rsplit('_',2)[1])
    for t in T:
        i+=1
        print(json.dumps({'id':f'nf{half}{i}','query':t.format(c=names[co],y=y),'answer':'$0','query_types':['novel-generated'],'content_type':'','gold':{f'{d}#1':1}}))
