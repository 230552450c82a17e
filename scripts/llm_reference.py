#!/usr/bin/env python3
"""Reference runs of the Hugging Face transformers implementation, for lens-llm.

  fixtures OUT_DIR       tiny random-initialised Qwen2 and Qwen3 models (safetensors, f32) and a
                         Q8_0 GGUF of the Qwen2 one with a byte-level tokenizer in its metadata;
                         with each, the reference logits of a prompt and 10 greedy tokens
                         decoded with the KV cache. CI uses the committed files; it never runs this.
  speed MODEL IDS N T    prefill the token ids in the JSON file IDS, decode N greedy tokens, on T
                         threads, in f32 on the CPU; prints one JSON line (tokens/s, peak RSS).
                         MODEL is a GGUF file or a model folder; with LENS_REF_DEVICE=cuda the
                         model runs in bf16 on the GPU instead (after one untimed warm-up pass, as
                         lens's GPU run has), timed with the device synchronised.
  random-folder OUT TOK  a model folder at Qwen2.5-0.5B's real shape (24 layers, 896 wide, 151,936
                         tokens) with random bf16 weights, and the tokenizer files of folder TOK:
                         for GPU speed runs where the real weights cannot be carried.

Setup (outside the repo, ~5 GB): python3 -m venv ~/pyref && ~/pyref/bin/pip install \
    torch==2.15.0 transformers safetensors gguf numpy
"""
import json
import os
import resource
import sys
import time

import numpy as np
import torch


def greedy(model, ids, steps):
    """Logits of the whole prompt, then `steps` greedy tokens fed one at a time with the cache."""
    with torch.no_grad():
        out = model(torch.tensor([ids]), use_cache=True)
        logits = out.logits[0].float().numpy()
        past = out.past_key_values
        nxt = int(out.logits[0, -1].argmax())
        toks = []
        for _ in range(steps):
            toks.append(nxt)
            out = model(torch.tensor([[nxt]]), past_key_values=past, use_cache=True)
            past = out.past_key_values
            nxt = int(out.logits[0, -1].argmax())
    return logits, toks


def tiny(arch, seed):
    from transformers import Qwen2Config, Qwen2ForCausalLM, Qwen3Config, Qwen3ForCausalLM

    torch.manual_seed(seed)
    common = dict(
        vocab_size=300,
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=2048,
        rms_norm_eps=1e-6,
        tie_word_embeddings=False,
        initializer_range=0.3,
    )
    if arch == "qwen2":
        cfg = Qwen2Config(**common)
        model = Qwen2ForCausalLM(cfg)
    elif arch == "qwen3_5":
        from transformers import Qwen3_5ForCausalLM, Qwen3_5TextConfig

        cfg = Qwen3_5TextConfig(
            head_dim=32,
            layer_types=["linear_attention", "full_attention", "linear_attention", "full_attention"],
            linear_conv_kernel_dim=4,
            linear_key_head_dim=16,
            linear_value_head_dim=16,
            linear_num_key_heads=2,
            linear_num_value_heads=4,
            rope_parameters={"rope_type": "default", "rope_theta": 10000.0, "partial_rotary_factor": 0.5},
            **{**common, "num_hidden_layers": 4},
        )
        model = Qwen3_5ForCausalLM(cfg)
    else:
        cfg = Qwen3Config(head_dim=32, **common)
        model = Qwen3ForCausalLM(cfg)
    # norms and biases start at 1 and 0: perturb them so the test sees them used
    with torch.no_grad():
        for name, p in model.named_parameters():
            if name.endswith("norm.weight"):
                # Qwen3.5's norms scale by (1 + w) and start at 0, its gated norm by w from 1
                zero_centred = arch == "qwen3_5" and not name.endswith("linear_attn.norm.weight")
                p.copy_((0.0 if zero_centred else 1.0) + 0.2 * torch.randn_like(p))
            elif name.endswith("bias"):
                p.copy_(0.3 * torch.randn_like(p))
    model.eval()
    return cfg, model


PROMPT = [5, 77, 140, 33, 201, 9, 288, 12, 64, 150, 3, 99]


def byte_symbols():
    """GPT-2's printable stand-ins for the 256 byte values."""
    keep = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    out, extra = [], 0
    for b in range(256):
        if b in keep:
            out.append(chr(b))
        else:
            out.append(chr(256 + extra))
            extra += 1
    return out


def write_gguf(path, model, cfg):
    """The Qwen2 tiny model as llama.cpp names it, 2-D weights in Q8_0, with a tokenizer."""
    import gguf

    w = gguf.GGUFWriter(path, "qwen2")
    w.add_block_count(cfg.num_hidden_layers)
    w.add_context_length(cfg.max_position_embeddings)
    w.add_embedding_length(cfg.hidden_size)
    w.add_feed_forward_length(cfg.intermediate_size)
    w.add_head_count(cfg.num_attention_heads)
    w.add_head_count_kv(cfg.num_key_value_heads)
    w.add_layer_norm_rms_eps(cfg.rms_norm_eps)
    theta = getattr(cfg, "rope_theta", None) or cfg.rope_parameters["rope_theta"]
    w.add_rope_freq_base(float(theta))
    # a byte-level vocabulary: the 256 byte symbols, 3 merges, then control tokens
    syms = sorted(byte_symbols())
    tokens = syms + ["he", "ll", "hell"]
    specials = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
    tokens += specials
    tokens += [f"<|extra_{i}|>" for i in range(cfg.vocab_size - len(tokens))]
    types = [1] * (256 + 3) + [3] * (len(tokens) - 259)
    w.add_tokenizer_model("gpt2")
    w.add_tokenizer_pre("qwen2")
    w.add_token_list(tokens)
    w.add_token_types(types)
    w.add_token_merges(["h e", "l l", "he ll"])
    w.add_eos_token_id(tokens.index("<|im_end|>"))
    w.add_chat_template("{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}")
    names = {
        "model.embed_tokens.weight": "token_embd.weight",
        "model.norm.weight": "output_norm.weight",
        "lm_head.weight": "output.weight",
    }
    per_layer = {
        "input_layernorm.weight": "attn_norm.weight",
        "post_attention_layernorm.weight": "ffn_norm.weight",
        "self_attn.q_proj.weight": "attn_q.weight",
        "self_attn.q_proj.bias": "attn_q.bias",
        "self_attn.k_proj.weight": "attn_k.weight",
        "self_attn.k_proj.bias": "attn_k.bias",
        "self_attn.v_proj.weight": "attn_v.weight",
        "self_attn.v_proj.bias": "attn_v.bias",
        "self_attn.o_proj.weight": "attn_output.weight",
        "mlp.gate_proj.weight": "ffn_gate.weight",
        "mlp.up_proj.weight": "ffn_up.weight",
        "mlp.down_proj.weight": "ffn_down.weight",
    }
    deq = {}
    for name, p in model.state_dict().items():
        if name in names:
            g = names[name]
        else:
            _, _, i, rest = name.split(".", 3)
            g = f"blk.{i}.{per_layer[rest]}"
        a = p.float().numpy()
        if a.ndim == 2:
            q = gguf.quants.quantize(a, gguf.GGMLQuantizationType.Q8_0)
            w.add_tensor(g, q, raw_shape=q.shape, raw_dtype=gguf.GGMLQuantizationType.Q8_0)
            deq[name] = torch.tensor(gguf.quants.dequantize(q, gguf.GGMLQuantizationType.Q8_0)).reshape(a.shape)
        else:
            w.add_tensor(g, a)
            deq[name] = p.float()
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return deq


def fixtures(out):
    from safetensors.torch import save_file

    os.makedirs(out, exist_ok=True)
    for arch, seed in (("qwen2", 7), ("qwen3", 11), ("qwen3_5", 13)):
        cfg, model = tiny(arch, seed)
        d = os.path.join(out, f"tiny-{arch}")
        os.makedirs(d, exist_ok=True)
        cfg.save_pretrained(d)
        save_file({k: v.contiguous() for k, v in model.state_dict().items()}, os.path.join(d, "model.safetensors"))
        logits, toks = greedy(model, PROMPT, 10)
        ref = {"prompt": PROMPT, "logits": np.round(logits, 6).tolist(), "greedy": toks, "transformers": __import__("transformers").__version__, "torch": torch.__version__}
        with open(os.path.join(out, f"tiny-{arch}.reference.json"), "w") as f:
            json.dump(ref, f)
        if arch == "qwen2":
            deq = write_gguf(os.path.join(out, "tiny-qwen2-q8_0.gguf"), model, cfg)
            model.load_state_dict(deq)
            logits, toks = greedy(model, PROMPT, 10)
            with open(os.path.join(out, "tiny-qwen2-q8_0.reference.json"), "w") as f:
                json.dump({"prompt": PROMPT, "logits": np.round(logits, 6).tolist(), "greedy": toks}, f)
        print(arch, "greedy", toks)


def bf16_unit():
    """The CPU's bf16 matrix unit, as /proc/cpuinfo names it: "amx", "avx512_bf16", or None."""
    try:
        flags = set(open("/proc/cpuinfo").read().split())
    except OSError:
        return None
    return "amx" if "amx_bf16" in flags else "avx512_bf16" if "avx512_bf16" in flags else None


def speed(model_path, ids_path, n, threads):
    """Prefill and decode speed in f32 and, where the CPU has a bf16 matrix unit, again under
    torch.autocast("cpu", torch.bfloat16); on the GPU (LENS_REF_DEVICE=cuda) in bf16. One JSON line."""
    from transformers import AutoModelForCausalLM

    torch.set_num_threads(int(threads))
    ids = json.load(open(ids_path))
    on_gpu = os.environ.get("LENS_REF_DEVICE") == "cuda"
    dtype = torch.bfloat16 if on_gpu else torch.float32
    if os.path.isdir(model_path):
        model = AutoModelForCausalLM.from_pretrained(model_path, torch_dtype=dtype)
    else:
        d, f = os.path.split(os.path.abspath(model_path))
        model = AutoModelForCausalLM.from_pretrained(d, gguf_file=f, torch_dtype=dtype)
    model.eval()
    dev = "cuda" if on_gpu else "cpu"
    model.to(dev)

    def sync():
        if on_gpu:
            torch.cuda.synchronize()

    def run(prompt, steps):
        with torch.no_grad():
            sync()
            t0 = time.time()
            out = model(torch.tensor([prompt], device=dev), use_cache=True)
            past = out.past_key_values
            nxt = int(out.logits[0, -1].argmax())
            prefill = time.time() - t0
            t1 = time.time()
            for _ in range(int(steps) - 1):
                out = model(torch.tensor([[nxt]], device=dev), past_key_values=past, use_cache=True)
                past = out.past_key_values
                nxt = int(out.logits[0, -1].argmax())
            sync()
            decode = time.time() - t1
        return {"prefill_tps": len(prompt) / prefill, "decode_tps": (int(steps) - 1) / max(decode, 1e-9), "prefill_s": prefill}

    if on_gpu:
        run(ids[:16], 2)
        result = run(ids, n)
        result["device"] = torch.cuda.get_device_name(0)
        result["precision"] = "bf16"
        result["peak_gpu_mib"] = torch.cuda.max_memory_allocated() / 2**20
    else:
        result = run(ids, n)
        unit = bf16_unit()
        result["bf16_unit"] = unit
        if unit:
            with torch.autocast("cpu", dtype=torch.bfloat16):
                result["bf16"] = run(ids, n)
    result["peak_rss_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    print(json.dumps(result))


def random_folder(out, tok_dir):
    """Qwen2.5-0.5B's shape with random bf16 weights, and TOK's tokenizer files."""
    import shutil

    from transformers import Qwen2Config, Qwen2ForCausalLM

    torch.manual_seed(7)
    cfg = Qwen2Config(
        vocab_size=151936,
        hidden_size=896,
        intermediate_size=4864,
        num_hidden_layers=24,
        num_attention_heads=14,
        num_key_value_heads=2,
        max_position_embeddings=32768,
        rms_norm_eps=1e-6,
        tie_word_embeddings=True,
        rope_parameters={"rope_type": "default", "rope_theta": 1000000.0},
    )
    model = Qwen2ForCausalLM(cfg).to(torch.bfloat16)
    model.save_pretrained(out, safe_serialization=True)
    for name in os.listdir(tok_dir):
        shutil.copy(os.path.join(tok_dir, name), os.path.join(out, name))
    print(json.dumps({"folder": out, "parameters": sum(p.numel() for p in model.parameters())}))


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "fixtures":
        fixtures(sys.argv[2])
    elif len(sys.argv) == 6 and sys.argv[1] == "speed":
        speed(*sys.argv[2:])
    elif len(sys.argv) == 4 and sys.argv[1] == "random-folder":
        random_folder(*sys.argv[2:])
    else:
        sys.exit(__doc__)
