# Green-holds battery 23 (ratios of several operands) (questions a new user would ask, no reference answers: read each green
# answer against its filing). Usage: python3 battery23.py a|b > BATTERY.jsonl  (a, b: the company halves)
# then lens eval --labels BATTERY.jsonl --name RUN; lens eval-answers --labels BATTERY.jsonl --pages-from RUN --explain
import sys

from common import emit

T = [
 "What was {c}'s interest coverage ratio in FY{y}?",
 "What was {c}'s debt to EBITDA ratio in FY{y}?",
 "What was {c}'s capex to depreciation ratio in FY{y}?",
 "What was {c}'s net debt to EBITDA ratio at the end of FY{y}?",
 "What was {c}'s return on invested capital in FY{y}?",
 "What was {c}'s SG&A as a percent of revenue in FY{y}?",
 "What was {c}'s cash ratio at the end of FY{y}?",
 "What was {c}'s inventory to revenue ratio in FY{y}?",
 "What was {c}'s equity multiplier at the end of FY{y}?",
 "What was {c}'s R&D to revenue ratio in FY{y}?",
 "What was {c}'s cash taxes paid as a percent of pretax income in FY{y}?",
 "What was {c}'s two-year revenue CAGR from FY{q} to FY{y}?",
 "What was {c}'s total asset turnover in FY{y}?",
 "What was {c}'s operating income growth from FY{p} to FY{y}, in percent?",
 "What was {c}'s free cash flow margin in FY{y}?",
 "What was {c}'s liabilities to assets ratio at the end of FY{y}?",
]
emit(sys.argv[1], 2323, 'nw', T)
