# Green-holds battery 20 (questions a new user would ask, no reference answers: read each green
# answer against its filing). Usage: python3 battery20.py a|b > BATTERY.jsonl  (a, b: the company halves)
# then lens eval --labels BATTERY.jsonl --name RUN; lens eval-answers --labels BATTERY.jsonl --pages-from RUN --explain
import sys

from common import emit

T = [
 "What was {c}'s dividend payout ratio in FY{y}?",
 "How much debt does {c} have?",
 "What percentage of {c}'s revenue was spent on selling, general and administrative expenses in FY{y}?",
 "What was {c}'s revenue per employee in FY{y}?",
 "What was {c}'s price to earnings ratio at the end of FY{y}?",
 "How much did {c}'s net income change year over year in FY{y}, in percent?",
 "What was {c}'s average inventory in FY{y}, in USD millions?",
 "What were {c}'s cash and short-term investments at the end of FY{y}, in USD millions?",
 "What is {c}'s ROE for FY{y}?",
 "What was {c}'s fixed asset turnover ratio in FY{y}?",
 "What was {c}'s long-term debt to equity ratio at the end of FY{y}?",
 "What was {c}'s EBITDA margin in FY{y}?",
 "What was {c}'s receivables turnover in FY{y}?",
 "What was {c}'s cash conversion cycle in FY{y}, in days?",
 "How much did {c} earn per share in FY{p}?",
 "What was {c}'s operating cash flow to net income ratio in FY{y}?",
]
emit(sys.argv[1], 2020, 'nr', T)
