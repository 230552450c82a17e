# Green-holds battery 16 (questions a new user would ask, no reference answers: read each green
# answer against its filing). Usage: python3 battery16.py a|b > BATTERY.jsonl  (a, b: the company halves)
# then lens eval --labels BATTERY.jsonl --name RUN; lens eval-answers --labels BATTERY.jsonl --pages-from RUN --explain
import sys

from common import emit

T = [
 "What was {c}'s income before income taxes in FY{y}, in USD millions?",
 "What were {c}'s total liabilities at the end of FY{y}, in USD millions?",
 "What was {c}'s long-term debt at the end of FY{y}, in USD millions?",
 "What were {c}'s intangible assets, net at the end of FY{y}, in USD millions?",
 "What was {c}'s comprehensive income in FY{y}, in USD millions?",
 "How many shares of common stock did {c} have outstanding at the end of FY{y}?",
 "What was {c}'s basic EPS in FY{y}?",
 "What was {c}'s operating income as a percent of revenue in FY{p}?",
 "What were {c}'s short-term investments at the end of FY{y}, in USD millions?",
 "What was {c}'s net income attributable to noncontrolling interests in FY{y}, in USD millions?",
 "What was {c}'s cash from operations minus dividends paid in FY{y}, in USD millions?",
 "By how much did {c}'s gross margin change from FY{p} to FY{y}, in percentage points?",
 "What was {c}'s total revenue in the first half of FY{y}?",
 "What was {c}'s revenue in FY{y} in USD billions?",
]
emit(sys.argv[1], 1616, 'nl', T)
