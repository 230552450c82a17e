#!/usr/bin/env python3
"""Reference runs of Hugging Face transformers' ColModernVBert, for lens-vision.

  fixtures OUT_DIR      a tiny random-initialised ColModernVBertForRetrieval (safetensors, f32,
                        transformers' weight names), its config, a small byte-level BPE tokenizer
                        with the processor's special tokens, two page images (one split into 2x2
                        tiles + the global image, one a single tile), and what the reference
                        produces from them: the processor's input ids and pixel values, document
                        and query multivectors, MaxSim scores; and PIL LANCZOS resizes of a noise
                        image (sha256 of the bytes). CI uses the committed files; it never runs this.
  speed EDGE N T        random weights at the real size (SigLIP base/16 at 512 px, ModernBERT base,
                        pixel shuffle 4, 128-d), one synthetic page at longest edge EDGE, N runs on
                        T threads in f32, and again under torch.autocast("cpu", torch.bfloat16)
                        where the CPU has a bf16 matrix unit (AMX, else AVX-512 BF16: oneDNN then
                        runs the products there); prints one JSON line (seconds per page and query
                        ms at each precision, which bf16 unit, seconds per stage).

The image processor is Idefics3's PIL backend (LANCZOS), what transformers uses without torchvision.

Setup (outside the repo): python3 -m venv ~/pyref && ~/pyref/bin/pip install \
    torch==2.15.0 transformers safetensors numpy pillow tokenizers
"""
import hashlib
import json
import os
import sys
import time

import numpy as np
import torch
from PIL import Image

SPECIAL = ["[UNK]", "[CLS]", "[SEP]", "[PAD]", "[MASK]"]
ADDED = ["<|begin_of_text|>", "<fake_token_around_image>", "<image>", "<end_of_utterance>", "<global-img>"] + [
    f"<row_{i}_col_{j}>" for i in range(1, 7) for j in range(1, 7)
]


def tokenizer(out):
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE(unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    corpus = [
        "What is the total revenue of the company in fiscal 2022?",
        "Describe the image. User: Assistant: net sales operating income cash flow statement",
        "capital expenditure balance sheet 10-K annual report 3M Boeing American Express",
    ] * 20
    trainer = trainers.BpeTrainer(vocab_size=300, special_tokens=SPECIAL, initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.train_from_iterator(corpus, trainer)
    tok.add_special_tokens(ADDED)
    cls, sep = tok.token_to_id("[CLS]"), tok.token_to_id("[SEP]")
    tok.post_processor = processors.TemplateProcessing(single="[CLS] $A [SEP]", special_tokens=[("[CLS]", cls), ("[SEP]", sep)])
    path = os.path.join(out, "tokenizer.json")
    tok.save(path)
    return PreTrainedTokenizerFast(tokenizer_file=path, unk_token="[UNK]", cls_token="[CLS]", sep_token="[SEP]", pad_token="[PAD]", mask_token="[MASK]")


def page_image(w, h, seed):
    """A page-like RGB image: light background, dark 'text' bars, a coloured block, noise."""
    rng = np.random.default_rng(seed)
    a = np.full((h, w, 3), 245, np.uint8)
    for y in range(3, h - 3, 5):
        x1 = int(rng.integers(w // 3, w - 2))
        a[y : y + 2, 2:x1] = rng.integers(0, 80)
    a[h // 2 : h // 2 + h // 5, w // 2 : w // 2 + w // 4] = [200, 40, 40]
    a = np.clip(a.astype(np.int16) + rng.integers(-12, 12, a.shape), 0, 255).astype(np.uint8)
    return Image.fromarray(a, "RGB")


def build(vision, text, pixel_shuffle, dim, vocab, image_token_id, init=0.02):
    from transformers import ColModernVBertConfig, ColModernVBertForRetrieval

    cfg = ColModernVBertConfig(
        vlm_config={
            "model_type": "modernvbert",
            "text_config": {"model_type": "modernbert", "vocab_size": vocab, **text},
            "vision_config": {"model_type": "siglip_vision_model", **vision},
            "image_token_id": image_token_id,
            "pixel_shuffle_factor": pixel_shuffle,
            "initializer_range": init,
        },
        embedding_dim=dim,
        initializer_range=init,
    )
    model = ColModernVBertForRetrieval(cfg).eval()
    return cfg, model


def fixtures(out):
    from safetensors.torch import save_file
    from transformers import ColModernVBertProcessor
    from transformers.models.idefics3.image_processing_pil_idefics3 import Idefics3ImageProcessorPil

    os.makedirs(out, exist_ok=True)
    torch.manual_seed(7)
    tok = tokenizer(out)
    tile, edge = 32, 64
    proc = ColModernVBertProcessor(
        image_processor=Idefics3ImageProcessorPil(size={"longest_edge": edge}, max_image_size={"longest_edge": tile}),
        tokenizer=tok,
        image_seq_len=(tile // 8) ** 2 // 4,
    )
    vision = dict(hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=2, image_size=tile, patch_size=8, layer_norm_eps=1e-6, vision_use_head=False)
    text = dict(
        hidden_size=32, intermediate_size=48, num_hidden_layers=4, num_attention_heads=2, local_attention=8, global_attn_every_n_layers=3,
        global_rope_theta=160000.0, local_rope_theta=10000.0, norm_eps=1e-5, pad_token_id=tok.pad_token_id, max_position_embeddings=512,
    )
    cfg, model = build(vision, text, 2, 16, len(tok), tok.convert_tokens_to_ids("<image>"), init=0.3)
    # random biases too, so a dropped bias shows
    with torch.no_grad():
        for n, p in model.named_parameters():
            if n.endswith(".bias"):
                p.normal_(0, 0.3)
    save_file({k: v.contiguous() for k, v in model.state_dict().items()}, os.path.join(out, "model.safetensors"))
    cfg.save_pretrained(out)
    json.dump({"edge": edge, "tile": tile}, open(os.path.join(out, "lens_vision.json"), "w"))

    ref = {}
    meta = {"docs": [], "queries": []}
    for name, (w, h), e in [("page-tiles", (70, 50), edge), ("page-single", (30, 20), tile)]:
        img = page_image(w, h, len(meta["docs"]) + 1)
        img.save(os.path.join(out, name + ".png"))
        proc.image_processor.size = {"longest_edge": e}
        batch = proc.process_images([img])
        with torch.no_grad():
            emb = model(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"], pixel_values=batch["pixel_values"]).embeddings[0]
        ref[name + ".pixel_values"] = batch["pixel_values"][0].float().contiguous()
        ref[name + ".embeddings"] = emb.contiguous()
        meta["docs"].append({"name": name, "edge": e, "input_ids": batch["input_ids"][0].tolist()})
    queries = ["What is the total revenue in fiscal 2022?", "cash flow"]
    for i, q in enumerate(queries):
        batch = proc.process_queries([q])
        with torch.no_grad():
            emb = model(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"]).embeddings[0]
        ref[f"query{i}.embeddings"] = emb.contiguous()
        meta["queries"].append({"text": q, "input_ids": batch["input_ids"][0].tolist()})
    docs = [ref[d["name"] + ".embeddings"] for d in meta["docs"]]
    qs = [ref[f"query{i}.embeddings"] for i in range(len(queries))]
    meta["scores"] = proc.score_retrieval(qs, docs).tolist()
    # PIL LANCZOS on a noise image, both directions, as sha256 of the RGB bytes
    noise = Image.fromarray(np.random.default_rng(3).integers(0, 256, (61, 97, 3), dtype=np.uint8), "RGB")
    noise.save(os.path.join(out, "noise.png"))
    meta["lanczos"] = [
        {"w": w, "h": h, "sha256": hashlib.sha256(noise.resize((w, h), Image.LANCZOS).tobytes()).hexdigest()} for w, h in [(40, 25), (200, 130), (97, 30), (13, 61)]
    ]
    save_file(ref, os.path.join(out, "reference.safetensors"))
    json.dump(meta, open(os.path.join(out, "reference.json"), "w"), indent=1)
    print("wrote", out, sorted(os.listdir(out)))


def bf16_unit():
    """The CPU's bf16 matrix unit, as /proc/cpuinfo names it: "amx", "avx512_bf16", or None."""
    try:
        flags = set(open("/proc/cpuinfo").read().split())
    except OSError:
        return None
    if "amx_bf16" in flags:
        return "amx"
    if "avx512_bf16" in flags:
        return "avx512_bf16"
    return None


# the stages lens-vision reports, by the modules that run them (transformers' names)
STAGES = [
    ("siglip patch embedding", ["vlm.vision_model.embeddings"]),
    ("siglip layers", ["vlm.vision_model.encoder", "vlm.vision_model.post_layernorm"]),
    ("connector (pixel shuffle + projection)", ["vlm.connector"]),
    ("modernbert embeddings", ["vlm.text_model.embeddings"]),
    ("projection", ["vlm.text_model.final_norm", "embedding_proj_layer"]),
]


def stage_timer(model, global_every):
    """Forward hooks that add each stage's wall time (s) to a dict; ModernBERT's layers are
    split into the global-attention ones (every `global_every`-th, from the first) and the
    local ones."""
    spent = {}
    modules = dict(model.named_modules())

    def timed(mod, stage):
        spent.setdefault(stage, 0.0)
        started = [0.0]

        def pre(_m, _i):
            started[0] = time.perf_counter()

        def post(_m, _i, _o):
            spent[stage] += time.perf_counter() - started[0]

        mod.register_forward_pre_hook(pre)
        mod.register_forward_hook(post)

    for stage, names in STAGES:
        for n in names:
            timed(modules[n], stage)
    for i, layer in enumerate(modules["vlm.text_model.layers"]):
        timed(layer, "modernbert global-attention layers" if i % global_every == 0 else "modernbert local-attention layers")
    return spent


def speed(edge, runs, threads):
    torch.set_num_threads(threads)
    vision = dict(hidden_size=768, intermediate_size=3072, num_hidden_layers=12, num_attention_heads=12, image_size=512, patch_size=16, layer_norm_eps=1e-6, vision_use_head=False)
    text = dict(hidden_size=768, intermediate_size=1152, num_hidden_layers=22, num_attention_heads=12, local_attention=128, global_attn_every_n_layers=3, norm_eps=1e-5, max_position_embeddings=8192)
    _, model = build(vision, text, 4, 128, 50432, 50407)
    n_tiles = 1 if edge <= 512 else (edge // 512) ** 2 + 1
    tokens = n_tiles * 66 + 20
    ids = torch.randint(0, 50000, (1, tokens))
    pos = torch.arange(tokens)
    # image tokens where the processor puts them: 64 per tile
    img_pos = torch.cat([torch.arange(t * 66 + 2, t * 66 + 66) for t in range(n_tiles)])
    ids[0, img_pos] = 50407
    pix = torch.randn(1, n_tiles, 3, 512, 512)
    mask = torch.ones_like(ids)
    # LENS_REF_DEVICE=cuda: on the GPU, f32 and bf16 under autocast, timed with the device
    # synchronised and no per-stage hooks (they would synchronise inside the pass)
    on_gpu = os.environ.get("LENS_REF_DEVICE") == "cuda"
    dev = "cuda" if on_gpu else "cpu"
    if on_gpu:
        model.to(dev)
        ids, mask, pix = ids.to(dev), mask.to(dev), pix.to(dev)
        spent = {}
    else:
        spent = stage_timer(model, text["global_attn_every_n_layers"])

    def sync():
        if on_gpu:
            torch.cuda.synchronize()

    unit = "cuda" if on_gpu else bf16_unit()
    out = {"edge": edge, "tiles": n_tiles, "tokens": tokens, "threads": threads, "bf16_unit": unit}
    if on_gpu:
        out["device"] = torch.cuda.get_device_name(0)
    for precision in ["f32", "bf16"] if unit else ["f32"]:
        ctx = torch.autocast(dev, dtype=torch.bfloat16) if precision == "bf16" else torch.autocast(dev, enabled=False)
        times = []
        with torch.no_grad(), ctx:
            model(input_ids=ids, attention_mask=mask, pixel_values=pix)
            sync()
            for k in spent:
                spent[k] = 0.0
            for _ in range(runs):
                t = time.perf_counter()
                model(input_ids=ids, attention_mask=mask, pixel_values=pix)
                sync()
                times.append(time.perf_counter() - t)
            stages = {k: v / runs for k, v in spent.items()}
            q = torch.randint(0, 50000, (1, 20), device=dev)
            model(input_ids=q, attention_mask=torch.ones_like(q))
            sync()
            t = time.perf_counter()
            model(input_ids=q, attention_mask=torch.ones_like(q))
            sync()
            qms = (time.perf_counter() - t) * 1000
        times.sort()
        out[precision] = {"s_per_page": times[len(times) // 2], "query_ms": qms, "stages": stages}
    print(json.dumps(out))
    del pos


if __name__ == "__main__":
    if sys.argv[1] == "fixtures":
        fixtures(sys.argv[2])
    elif sys.argv[1] == "speed":
        speed(int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]))
    else:
        sys.exit(__doc__)
