# Green-holds battery 27: a figure of each member asked ("net sales by segment"), answered by
# the members' table of the filing's segment note, or amber when the answer is one figure.
# No reference answers: read each green answer against its filing.
# Usage: python3 battery27.py a|b > BATTERY.jsonl
import sys
from common import emit

T = [
    "What were {c}'s net sales by segment in FY{y}?",
    "What was {c}'s operating income for each of its business segments in FY{y}?",
    "What was {c}'s operating margin by segment in FY{y}?",
    "How much revenue did each of {c}'s segments generate in FY{y}?",
]

emit(sys.argv[1], 27, 'b27', T, per_doc=4)
