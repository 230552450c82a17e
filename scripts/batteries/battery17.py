# Green-holds battery 17 (questions a new user would ask, no reference answers: read each green
# answer against its filing). Usage: python3 battery17.py a|b > BATTERY.jsonl  (a, b: the company halves)
# then lens eval --labels BATTERY.jsonl --name RUN; lens eval-answers --labels BATTERY.jsonl --pages-from RUN --explain
import sys

from common import emit

T = [
 "What was {c}'s EBIT in FY{y}, in USD millions?",
 "What were {c}'s total costs and expenses in FY{y}, in USD millions?",
 "What was {c}'s interest income in FY{y}, in USD millions?",
 "How much goodwill impairment did {c} record in FY{y}, in USD millions?",
 "What was {c}'s net debt at the end of FY{y}, in USD millions?",
 "What was {c}'s current ratio at the end of FY{y}?",
 "How much did {c} spend on acquisitions of businesses in FY{y}, in USD millions?",
 "What was {c}'s capital expenditure as a percentage of operating cash flow in FY{y}?",
 "What was {c}'s operating cash flow margin in FY{y}, in percent?",
 "How much inventory did {c} hold at the end of FY{y}, in USD millions?",
 "What was {c}'s revenue growth in FY{y} compared to FY{p}, in percent?",
 "What was {c}'s total shareholders' equity as a percentage of total assets at the end of FY{y}?",
 "What was {c}'s depreciation and amortization in FY{y}, in USD millions?",
 "What was {c}'s tax rate in FY{y}?",
]
emit(sys.argv[1], 1717, 'nm', T)
