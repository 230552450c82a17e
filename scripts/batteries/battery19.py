# Green-holds battery 19 (questions a new user would ask, no reference answers: read each green
# answer against its filing). Usage: python3 battery19.py a|b > BATTERY.jsonl  (a, b: the company halves)
# then lens eval --labels BATTERY.jsonl --name RUN; lens eval-answers --labels BATTERY.jsonl --pages-from RUN --explain
import sys

from common import emit

T = [
 "What was {c}'s net interest expense in FY{y}, in USD millions?",
 "How many weighted average basic shares did {c} have in FY{y}, in millions?",
 "What was the change in {c}'s net income from FY{p} to FY{y}, in USD millions?",
 "What was {c}'s long-term debt excluding the current portion at the end of FY{y}, in USD millions?",
 "How much did {c} pay in dividends in FY{y}, in USD millions?",
 "What was {c}'s total equity including noncontrolling interests at the end of FY{y}, in USD millions?",
 "What was {c}'s other comprehensive income in FY{y}, in USD millions?",
 "What was {c}'s effective tax rate in FY{p}?",
 "What were {c}'s total current assets at the end of FY{y}, in USD millions?",
 "How much cash did {c} pay for interest in FY{y}, in USD millions?",
 "What was {c}'s income from discontinued operations in FY{y}, in USD millions?",
 "What was {c}'s asset turnover in FY{y}? Use revenue divided by average total assets.",
 "By what percent did {c}'s selling, general and administrative expenses change from FY{p} to FY{y}?",
 "How much did {c} raise from issuing long-term debt in FY{y}, in USD millions?",
 "What was {c}'s gross margin in FY{p}, in percent?",
 "What was {c}'s operating income in FY{p}, in USD millions?",
]
emit(sys.argv[1], 1919, 'np', T)
