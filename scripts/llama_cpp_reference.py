#!/usr/bin/env python3
"""llama.cpp (through llama-cpp-python) on the same GGUF and token ids as `lens bench llm`.

  speed GGUF IDS N T   prefill the token ids in the JSON file IDS, decode N greedy tokens, on T
                       threads (llama.cpp's own kernels for the GGUF's block types, batches of
                       512 as its tools default to); prints one JSON line (tokens/s, peak RSS).

Setup (outside the repo; builds llama.cpp from source, ~5-17 min on 2 cores):
    python3 -m venv ~/llamacpp && ~/llamacpp/bin/pip install llama-cpp-python
"""
import json
import resource
import sys
import time

import numpy as np
import llama_cpp
from llama_cpp import Llama


def speed(gguf, ids_file, n, threads):
    ids = json.load(open(ids_file))
    llm = Llama(model_path=gguf, n_ctx=len(ids) + n + 8, n_threads=threads, n_threads_batch=threads,
                n_batch=512, n_ubatch=512, logits_all=False, verbose=False)
    vocab = llm.n_vocab()

    def last():
        # the logits of the last token evaluated
        return int(np.argmax(np.ctypeslib.as_array(llama_cpp.llama_get_logits_ith(llm.ctx, -1), shape=(vocab,))))

    t0 = time.perf_counter()
    llm.eval(ids)
    prefill_s = time.perf_counter() - t0
    nxt = last()
    t1 = time.perf_counter()
    toks = []
    for _ in range(n):
        toks.append(nxt)
        llm.eval([nxt])
        nxt = last()
    decode_s = time.perf_counter() - t1
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    print(json.dumps({"prefill_tps": len(ids) / prefill_s, "decode_tps": n / decode_s, "prefill_s": prefill_s,
                      "peak_rss_mib": rss, "tokens": toks}))


if __name__ == "__main__":
    if len(sys.argv) == 6 and sys.argv[1] == "speed":
        speed(sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]))
    else:
        sys.exit(__doc__)
