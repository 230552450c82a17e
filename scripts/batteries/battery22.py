# Green-holds battery 22 (more of what a new user asks) (questions a new user would ask, no reference answers: read each green
# answer against its filing). Usage: python3 battery22.py a|b > BATTERY.jsonl  (a, b: the company halves)
# then lens eval --labels BATTERY.jsonl --name RUN; lens eval-answers --labels BATTERY.jsonl --pages-from RUN --explain
import sys

from common import emit

T = [
 "What was {c}'s revenue last year?",
 "How many employees does {c} have?",
 "What is {c}'s biggest segment by revenue in {y}?",
 "Which segment of {c} grew the fastest in {y}?",
 "How much did {c} spend on R&D in {y}?",
 "What did {c} pay in dividends per share in {y}?",
 "How much goodwill does {c} have?",
 "How much did {c} spend on advertising in {y}?",
 "How much stock did {c} buy back in {y}?",
 "How much of {c}'s long-term debt matures next year?",
 "What is {c}'s credit rating?",
 "How much did {c} pay its CEO in {y}?",
 "What were {c}'s operating expenses in {y} excluding cost of sales?",
 "When does {c}'s fiscal year end?",
 "What was {c}'s net income per share in {y}?",
 "How much cash did {c} generate from operations in {y}?",
]
emit(sys.argv[1], 2222, 'nt', T)
