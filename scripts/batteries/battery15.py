# Green-holds battery 15 (questions a new user would ask, no reference answers: read each green
# answer against its filing). Usage: python3 battery15.py a|b > BATTERY.jsonl  (a, b: the company halves)
# then lens eval --labels BATTERY.jsonl --name RUN; lens eval-answers --labels BATTERY.jsonl --pages-from RUN --explain
import sys

from common import emit

T = [
 "What were {c}'s accounts payable at the end of FY{y}, in USD millions?",
 "What was {c}'s deferred revenue at the end of FY{y}, in USD millions?",
 "What were {c}'s accrued liabilities at the end of FY{y}, in USD millions?",
 "What was {c}'s provision for income taxes in FY{y}, in USD millions?",
 "How much did {c}'s operating expenses increase in FY{y} compared with FY{p}, in USD millions?",
 "What was {c}'s interest expense in FY{y}, in USD millions?",
 "What was {c}'s depreciation expense in FY{y}, in USD millions?",
 "What were {c}'s retained earnings at the end of FY{y}, in USD millions?",
 "What was {c}'s net property and equipment at the end of FY{y}, in USD millions?",
 "What was {c}'s cost of revenue in FY{y}, in USD millions?",
 "{c} net income {y}",
 "{c} long-term debt {y}",
 "What was {c}'s total cash at the parent company level at the end of FY{y}?",
 "How much did {c}'s accounts receivable change during FY{y}, in USD millions?",
]
emit(sys.argv[1], 1515, 'nk', T)
