#!/usr/bin/env python3
"""Reference run for `lens bench dense`: the same pages, windows and model through
Hugging Face transformers on torch (CPU), so the two throughputs can be read side by side.

Usage: python3 scripts/bench/minilm_torch.py LIBRARY_DIR MODEL_DIR DOC_ID [DOC_ID ...] [--pages N]
Needs: pip install torch transformers tokenizers. Prints pages/s, windows/s, tokens/s.
"""
import argparse, os, sqlite3, time

import torch
from tokenizers import Tokenizer
from transformers import BertModel

ap = argparse.ArgumentParser()
ap.add_argument("library"); ap.add_argument("model"); ap.add_argument("docs", nargs="+")
ap.add_argument("--pages", type=int, default=200)
ap.add_argument("--threads", type=int, default=os.cpu_count())
a = ap.parse_args()
torch.set_num_threads(a.threads)

db = sqlite3.connect(os.path.join(a.library, "lens.sqlite"))
texts = []
for d in a.docs:
    key = db.execute("SELECT key FROM documents WHERE id=? AND status='complete'", (d,)).fetchone()[0]
    texts += [t for (t,) in db.execute("SELECT text FROM pages WHERE doc_key=? ORDER BY page", (key,))]
texts = texts[: a.pages]

tok = Tokenizer.from_file(os.path.join(a.model, "tokenizer.json"))
tok.no_padding(); tok.no_truncation()
cls, sep = tok.token_to_id("[CLS]"), tok.token_to_id("[SEP]")
model = BertModel.from_pretrained(a.model).eval()
MAX, STRIDE, BATCH = 256, 192, 16

t0 = time.time()
wins = []
for t in texts:
    ids = tok.encode(t, add_special_tokens=False).ids
    s = 0
    while s < len(ids):
        e = min(s + MAX - 2, len(ids))
        wins.append([cls] + ids[s:e] + [sep])
        if e == len(ids):
            break
        s += STRIDE
t1 = time.time()
order = sorted(range(len(wins)), key=lambda i: len(wins[i]))
with torch.no_grad():
    for b in range(0, len(order), BATCH):
        chunk = [wins[i] for i in order[b : b + BATCH]]
        n = max(len(w) for w in chunk)
        ids = torch.tensor([w + [0] * (n - len(w)) for w in chunk])
        mask = torch.tensor([[1] * len(w) + [0] * (n - len(w)) for w in chunk])
        h = model(input_ids=ids, attention_mask=mask).last_hidden_state
        m = mask.unsqueeze(2).float()
        v = (h * m).sum(1) / m.sum(1)
        v = v / v.norm(dim=1, keepdim=True)
t2 = time.time()
tokens = sum(len(w) for w in wins)
total = t2 - t0
print(f"torch reference: {len(texts)} pages, {len(wins)} windows, {tokens} tokens, {a.threads} threads")
print(f"  tokenise + window: {t1 - t0:.2f}s; embed: {t2 - t1:.2f}s")
print(f"  {len(texts) / total:.2f} pages/s, {len(wins) / total:.1f} windows/s, {tokens / total:.0f} tokens/s")
