# Green-holds battery 12 (questions a new user would ask, no reference answers: read each green
# answer against its filing). Usage: python3 battery12.py a|b > BATTERY.jsonl  (a, b: the company halves)
# then lens eval --labels BATTERY.jsonl --name RUN; lens eval-answers --labels BATTERY.jsonl --pages-from RUN --explain
import sys

from common import emit

T = [
 "What was {c}'s gross profit in FY{y}, in USD millions?",
 "What were {c}'s total operating expenses in FY{y}, in USD millions?",
 "How much did {c}'s revenue grow between FY{q} and FY{y}, in percent?",
 "What was {c}'s total debt at the end of FY{y}, in USD millions?",
 "How much of {c}'s long-term debt was due within one year at the end of FY{y}, in USD millions?",
 "What was {c}'s net cash used in investing activities in FY{y}, in USD millions?",
 "What was {c}'s free cash flow in FY{y}, in USD millions?",
 "What was {c}'s EBITDA in FY{y}, in USD millions?",
 "What was {c}'s operating income in the fourth quarter of FY{y}, in USD millions?",
 "What was {c}'s accumulated depreciation at the end of FY{y}, in USD millions?",
 "What was {c}'s return on assets in FY{y}, in percent?",
 "What were {c}'s total liabilities and equity at the end of FY{y}, in USD millions?",
]
emit(sys.argv[1], 1212, 'nh', T)
