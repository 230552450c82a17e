"""What the green-holds batteries share: the company halves (no filing in both), the 10-K
filings of the corpus, and the questions made from a battery's templates, six per filing, drawn
with the battery's seed."""
import json
import os
import random

A = {'3M': '3M', 'ADOBE': 'Adobe', 'AMAZON': 'Amazon', 'AMD': 'AMD', 'BLOCK': 'Block', 'BOEING': 'Boeing', 'COCACOLA': 'Coca-Cola', 'COSTCO': 'Costco', 'GENERALMILLS': 'General Mills', 'JOHNSON_JOHNSON': 'Johnson & Johnson', 'VERIZON': 'Verizon', 'WALMART': 'Walmart', 'MGMRESORTS': 'MGM Resorts', 'PFIZER': 'Pfizer', 'FOOTLOCKER': 'Foot Locker', 'JPMORGAN': 'JPMorgan'}
B = {'ACTIVISIONBLIZZARD': 'Activision Blizzard', 'AMCOR': 'Amcor', 'AMERICANEXPRESS': 'American Express', 'BESTBUY': 'Best Buy', 'CORNING': 'Corning', 'CVSHEALTH': 'CVS Health', 'KRAFTHEINZ': 'Kraft Heinz', 'LOCKHEEDMARTIN': 'Lockheed Martin', 'MICROSOFT': 'Microsoft', 'NETFLIX': 'Netflix', 'NIKE': 'Nike', 'PEPSICO': 'PepsiCo', 'AMERICANWATERWORKS': 'American Water Works'}


def ten_ks():
    """The corpus's 10-K filings by name (LENS_CORPUS, else ../shared/corpus beside the repo)."""
    root = os.environ.get('LENS_CORPUS', os.path.join(os.path.dirname(os.path.abspath(__file__)), '../../../shared/corpus'))
    return [d[:-4] for d in os.listdir(os.path.join(root, 'financebench/pdfs')) if d.endswith('_10K.pdf')]


def emit(half, seed, prefix, templates, per_doc=6):
    """Print the battery's questions for a half ('a' or 'b'), one JSON line each: `per_doc`
    templates per 10-K of the half's companies, filled with the company's name and the filing's
    year (y), the years before it (p, q), two after (z) and its short form (s)."""
    random.seed(seed)
    names = A if half == 'a' else B
    i = 0
    for d in sorted(ten_ks()):
        co = d.rsplit('_', 2)[0]
        if co not in names:
            continue
        y = int(d.rsplit('_', 2)[1])
        for t in random.sample(templates, per_doc):
            i += 1
            q = t.format(c=names[co], y=y, p=y - 1, q=y - 2, z=y + 2, s=str(y)[2:])
            print(json.dumps({'id': f'{prefix}{half}{i}', 'query': q, 'answer': '$0', 'query_types': ['novel-generated'], 'content_type': '', 'gold': {f'{d}#1': 1}}))
