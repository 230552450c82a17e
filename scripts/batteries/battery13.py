# Green-holds battery 13 (questions a new user would ask, no reference answers: read each green
# answer against its filing). Usage: python3 battery13.py a|b > BATTERY.jsonl  (a, b: the company halves)
# then lens eval --labels BATTERY.jsonl --name RUN; lens eval-answers --labels BATTERY.jsonl --pages-from RUN --explain
import sys

from common import emit

T = [
 "What were {c}'s total assets as of the end of fiscal {y}, in USD millions?",
 "What percentage of {c}'s total assets were current assets at the end of FY{y}?",
 "What was {c}'s operating cash flow in FY{y}, in USD millions?",
 "What was the net change in {c}'s cash and cash equivalents during FY{y}, in USD millions?",
 "What were {c}'s total current liabilities at the end of FY{p}, in USD millions?",
 "What was {c}'s capital expenditure in FY{q}, in USD millions?",
 "What was {c}'s net income margin in FY{y}, in percent?",
 "How much did {c}'s total assets grow from FY{p} to FY{y}, in percent?",
 "What was {c}'s days inventory outstanding in FY{y}?",
 "What was {c}'s book value per share at the end of FY{y}?",
 "What was {c}'s total debt to total assets ratio at the end of FY{y}?",
 "What was {c}'s selling, general and administrative expense in FY{y}, in USD millions?",
]
emit(sys.argv[1], 1313, 'ni', T)
