# Green-holds battery 25: line items the catalogue does not list but the filing prints, and
# ratios the question states by naming their two measures ("A to B"). No reference answers:
# read each green answer against its filing. Usage: python3 battery25.py a|b > BATTERY.jsonl
import sys
from common import emit

T = [
    "What were {c}'s total liabilities at the end of FY{y}, in USD millions?",
    "What was {c}'s long-term debt at the end of FY{y}?",
    "What was {c}'s goodwill at the end of FY{y} in USD millions?",
    "What were {c}'s retained earnings at the end of FY{y}?",
    "What was {c}'s ratio of current liabilities to total liabilities at the end of FY{y}? Round to three decimal places.",
    "What is {c}'s gross profit to total assets ratio for FY{y}?",
    "What is {c}'s total liabilities to total assets ratio in FY{y}? Round your answer to two decimal places.",
    "What was {c}'s operating income to revenue ratio in FY{y}?",
    "What was {c}'s additional paid-in capital at the end of FY{y}, in USD millions?",
    "What was {c}'s selling, general and administrative expense in FY{y}?",
    "What is {c}'s long-term debt to total assets ratio at the end of FY{y}?",
    "What was {c}'s accumulated depreciation at the end of FY{y}?",
    "What is {c}'s operating cash flow to current liabilities ratio for FY{y}?",
    "What were {c}'s other current liabilities at the end of FY{y}?",
    "What is {c}'s net income to total equity ratio for FY{y}? Round to three decimal places.",
    "What were {c}'s total operating expenses in FY{y}, in USD millions?",
]

emit(sys.argv[1], 25, 'b25', T)
