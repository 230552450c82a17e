# Green-holds battery 21 (casual wording, as a new user types) (questions a new user would ask, no reference answers: read each green
# answer against its filing). Usage: python3 battery21.py a|b > BATTERY.jsonl  (a, b: the company halves)
# then lens eval --labels BATTERY.jsonl --name RUN; lens eval-answers --labels BATTERY.jsonl --pages-from RUN --explain
import sys

from common import emit

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
emit(sys.argv[1], 2121, 'ns', T)
