# Green-holds battery 18 (questions a new user would ask, no reference answers: read each green
# answer against its filing). Usage: python3 battery18.py a|b > BATTERY.jsonl  (a, b: the company halves)
# then lens eval --labels BATTERY.jsonl --name RUN; lens eval-answers --labels BATTERY.jsonl --pages-from RUN --explain
import json, sys
half=sys.argv[1]
A={'FOOTLOCKER_2022_8K_dated-2022-05-20':('Foot Locker','Q1',2022),'FOOTLOCKER_2022_8K_dated_2022-08-19':('Foot Locker','Q2',2022),'JOHNSON_JOHNSON_2022Q4_EARNINGS':('Johnson & Johnson','Q4',2022),'JOHNSON_JOHNSON_2023Q2_EARNINGS':('Johnson & Johnson','Q2',2023),'JPMORGAN_2021Q1_10Q':('JPMorgan','Q1',2021),'JPMORGAN_2022Q2_10Q':('JPMorgan','Q2',2022),'JPMORGAN_2023Q2_10Q':('JPMorgan','Q2',2023),'MGMRESORTS_2022Q4_EARNINGS':('MGM Resorts','Q4',2022),'MGMRESORTS_2023Q2_10Q':('MGM Resorts','Q2',2023),'Pfizer_2023Q2_10Q':('Pfizer','Q2',2023)}
B={'AMCOR_2023Q2_10Q':('Amcor','Q2',2023),'AMCOR_2023Q4_EARNINGS':('Amcor','Q4',2023),'BESTBUY_2024Q2_10Q':('Best Buy','Q2',2024),'PEPSICO_2023Q1_EARNINGS':('PepsiCo','Q1',2023),'AMCOR_2022_8K_dated-2022-07-01':('Amcor','Q4',2022),'PEPSICO_2023_8K_dated-2023-05-05':('PepsiCo','Q1',2023)}
T=["What was {c}'s revenue in {q} {y}, in USD millions?",
 "What was {c}'s net income for the {qn} quarter of {y}?",
 "What was {c}'s diluted EPS in {q} {y}?",
 "What were {c}'s total assets at the end of {q} {y}, in USD millions?",
 "How much did {c}'s revenue grow in {q} {y} compared with {q} {p}, in percent?",
 "What was {c}'s operating cash flow for the six months ended in {q} {y}, in USD millions?",
 "What was {c}'s cash and cash equivalents at the end of {q} {y}?",
 "What was {c}'s full-year {y} revenue?"]
qn={'Q1':'first','Q2':'second','Q3':'third','Q4':'fourth'}
i=0
for d,(c,q,y) in sorted((A if half=='a' else B).items()):
    for t in T:
        i+=1
        print(json.dumps({'id':f'no{half}{i}','query':t.format(c=c,q=q,y=y,p=y-1,qn=qn[q]),'answer':'$0','query_types':['novel-generated'],'content_type':'','gold':{f'{d}#1':1}}))
