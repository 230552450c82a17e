#!/usr/bin/env python3
"""The numpy MaxSim reference for `lens bench maxsim --python PY`: the index cast to f32 at
load, one matmul per query and np.maximum.reduceat over page offsets. Prints one JSON line:
ms_p50, ms_p95 and the page scores (to check the Rust kernel against)."""
import json
import sys
import time

import numpy as np

d = sys.argv[1]
runs = int(sys.argv[2]) if len(sys.argv) > 2 else 20
vecs = np.load(f"{d}/vectors.npy").astype(np.float32)
offsets = np.load(f"{d}/offsets.npy")
q = np.load(f"{d}/query.npy")


def maxsim():
    sims = q @ vecs.T  # (query tokens, vectors)
    return np.maximum.reduceat(sims, offsets, axis=1).sum(axis=0)


scores = maxsim()
ms = []
for _ in range(runs):
    t = time.perf_counter()
    scores = maxsim()
    ms.append((time.perf_counter() - t) * 1000)
ms.sort()
print(json.dumps({"ms_p50": ms[len(ms) // 2], "ms_p95": ms[min(len(ms) - 1, round(0.95 * (len(ms) - 1)))], "scores": scores.tolist()}))
