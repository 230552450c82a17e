# Green-holds battery 14 (questions a new user would ask, no reference answers: read each green
# answer against its filing). Usage: python3 battery14.py a|b > BATTERY.jsonl  (a, b: the company halves)
# then lens eval --labels BATTERY.jsonl --name RUN; lens eval-answers --labels BATTERY.jsonl --pages-from RUN --explain
import sys

from common import emit

T = [
 "{c} revenue {y}",
 "How much revenue did {c} make in {y}?",
 "What's {c}'s net income for fiscal year {y}?",
 "Tell me {c}'s operating margin in {y}",
 "{c} FY{s} capex",
 "What was the revenue of {c} in the year {y}?",
 "What did {c} earn in {y}?",
 "What were {c}'s sales last year?",
 "How much cash does {c} have?",
 "{c} total assets end of {y} vs {p}",
 "How profitable was {c} in {y}?",
 "What was {c}'s EPS in {y}?",
]
emit(sys.argv[1], 1414, 'nj', T)
