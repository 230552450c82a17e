#!/usr/bin/env python3
"""PyTorch reference for `lens bench dense --python PY`: Hugging Face transformers' BertModel
embedding the very windows lens embedded, the way sentence-transformers does it (batches of
windows sorted by length, padded, mean over the attention mask, L2-normalised).

  speed MODEL_DIR WINDOWS_JSON OUT_PREFIX THREADS
        WINDOWS_JSON: a list of token-id lists (each already with [CLS] ... [SEP]). Runs f32,
        then bf16 (the weights cast to bfloat16: oneDNN's AMX / AVX-512 BF16 kernels where the
        CPU has them), each once to warm up and once timed, on THREADS threads. Writes the
        vectors to OUT_PREFIX.f32.bin and OUT_PREFIX.bf16.bin (little-endian f32, one row per
        window) and prints one JSON line: seconds per run and precision.

Setup (outside the repo): python3 -m venv ~/pyref && ~/pyref/bin/pip install \
    torch==2.15.0 transformers safetensors numpy tokenizers
"""
import json
import sys
import time

import numpy as np
import torch

BATCH = 32


def embed(model, windows, dtype):
    order = sorted(range(len(windows)), key=lambda i: len(windows[i]))
    out = np.zeros((len(windows), model.config.hidden_size), dtype=np.float32)
    with torch.inference_mode():
        for s in range(0, len(order), BATCH):
            chunk = order[s : s + BATCH]
            n = max(len(windows[i]) for i in chunk)
            ids = torch.zeros((len(chunk), n), dtype=torch.long)
            mask = torch.zeros((len(chunk), n), dtype=torch.long)
            for r, i in enumerate(chunk):
                ids[r, : len(windows[i])] = torch.tensor(windows[i])
                mask[r, : len(windows[i])] = 1
            h = model(input_ids=ids, attention_mask=mask).last_hidden_state.to(torch.float32)
            m = mask.unsqueeze(-1).to(torch.float32)
            v = (h * m).sum(1) / m.sum(1).clamp(min=1e-9)
            v = torch.nn.functional.normalize(v, p=2, dim=1)
            out[chunk] = v.numpy()
    return out


def speed(model_dir, windows_json, prefix, threads):
    from transformers import BertModel

    torch.set_num_threads(int(threads))
    windows = json.load(open(windows_json))
    res = {"torch": torch.__version__, "windows": len(windows), "threads": int(threads)}
    for name, dtype in [("f32", torch.float32), ("bf16", torch.bfloat16)]:
        model = BertModel.from_pretrained(model_dir, torch_dtype=dtype, attn_implementation="sdpa", add_pooling_layer=False).eval()
        embed(model, windows[: BATCH * 2], dtype)  # warm-up
        t = time.perf_counter()
        v = embed(model, windows, dtype)
        res[f"{name}_s"] = time.perf_counter() - t
        v.astype("<f4").tofile(f"{prefix}.{name}.bin")
    print(json.dumps(res))


if __name__ == "__main__":
    if len(sys.argv) == 6 and sys.argv[1] == "speed":
        speed(*sys.argv[2:])
    else:
        sys.exit(__doc__)
