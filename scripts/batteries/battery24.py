# Green-holds battery 24 (periods and comparisons) (questions a new user would ask, no reference answers: read each green
# answer against its filing). Usage: python3 battery24.py a|b > BATTERY.jsonl  (a, b: the company halves)
# then lens eval --labels BATTERY.jsonl --name RUN; lens eval-answers --labels BATTERY.jsonl --pages-from RUN --explain
import sys

from common import emit

T = [
 "Did {c}'s revenue grow from FY{p} to FY{y}?",
 "Was {c}'s operating margin higher in FY{y} than in FY{p}?",
 "How did {c}'s net income in FY{y} compare with FY{p}?",
 "What was {c}'s average revenue over FY{q} to FY{y}?",
 "Which year had higher revenue for {c}, FY{p} or FY{y}?",
 "What was {c}'s total revenue over the last three fiscal years ending FY{y}?",
 "By what amount did {c}'s total assets change from FY{p} to FY{y}?",
 "What was {c}'s cumulative free cash flow from FY{q} to FY{y}?",
 "Did {c}'s debt go up in FY{y}?",
 "Is {c}'s cash balance higher at the end of FY{y} than at the end of FY{p}?",
 "What was {c}'s revenue in the fourth quarter of FY{y}?",
 "How much did {c}'s gross margin change between FY{p} and FY{y}?",
 "What was {c}'s lowest quarterly revenue in FY{y}?",
 "What was {c}'s net income in FY{p} and FY{y}?",
 "Was {c}'s effective tax rate lower in FY{y} than in FY{p}?",
 "How much higher were {c}'s operating expenses in FY{y} than in FY{p}, in percent?",
]
emit(sys.argv[1], 2424, 'nz', T)
