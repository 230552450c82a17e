# Green-holds battery 26: a filing's members (segments, regions) ranked by a measure its
# segment note prints, or by one computed per member from two it prints (operating margin).
# No reference answers: read each green answer against its filing.
# Usage: python3 battery26.py a|b > BATTERY.jsonl
import sys
from common import emit

T = [
    "Which {c} segment had the highest operating income in FY{y}?",
    "Which {c} segment had the lowest operating income in FY{y}?",
    "Which of {c}'s segments had the highest operating margin in FY{y}?",
    "Which {c} business segment had the lowest operating margin in FY{y}?",
    "Which {c} segment had the highest revenue in FY{y}?",
    "Which {c} segment had the smallest net sales in FY{y}?",
    "Which region generated the most revenue for {c} in FY{y}?",
    "Which {c} segment grew its revenue the fastest in FY{y}?",
]

emit(sys.argv[1], 26, 'b26', T)
