#!/usr/bin/env python3
"""Trains vtask's built-in DEMO models: tiny character-level Llama-architecture models that
answer two-number arithmetic ("Q: What is 17+25?\\nA: " -> "42" then </s>), and writes them
as GGUF (F16 matrices, F32 norms) with a small GGUF writer of our own (no gguf-py).

Needs PyTorch (Debian: apt-get install -y python3-torch libopenblas0-pthread; run with
/usr/bin/python3 if another Python shadows it). CPU only; about 5 to 15 minutes on 2 cores, depending on load.

    /usr/bin/python3 models/train.py                  # both variants + reference-outputs.json
    /usr/bin/python3 models/train.py --variants weak:300 --out-dir /tmp/m
    (variants can be trained by parallel runs: reference-outputs.json is merged on write)
    /usr/bin/python3 models/train.py --variants calculator:500 --batch 64   # the tool-calling model

Outputs (in --out-dir, default: this folder):
    arith-weak.gguf     300 steps: often wrong, right sometimes -> a "learnable" band
    arith-strong.gguf   1000 steps: nearly always right
    reference-outputs.json  greedy answers (and a few seeded samples) for fixed prompts,
                        computed from the F16-rounded weights, for the TypeScript engine's tests.
    calculator.gguf     (variant calculator:N) calls add/sub/mul tools, then answers \\boxed{...}
    calculator-reference.json  its reference outputs and accuracy figures
"""
import argparse
import json
import math
import os
import random
import re
import struct
import sys
import time

# One thread: on small, busy machines BLAS threads fight each other (5x slower with 2).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402
import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))

# ---------------------------------------------------------------- vocabulary
# <unk> <s> </s>, the 256 UTF-8 byte pieces (fallback for anything else, "\n" included), then
# one piece per printable ASCII character; a space is SentencePiece's U+2581.
SPACE = "\u2581"
SPECIAL = ["<unk>", "<s>", "</s>"]
UNK_ID, BOS_ID, EOS_ID = 0, 1, 2
BYTE_BASE = len(SPECIAL)
PRINTABLE = [SPACE] + [chr(c) for c in range(0x21, 0x7F)]
VOCAB = SPECIAL + ["<0x%02X>" % b for b in range(256)] + PRINTABLE
PIECE_ID = {p: i for i, p in enumerate(VOCAB)}
# GGUF token types: 1 normal, 2 unknown, 3 control, 6 byte
TOKEN_TYPES = [2, 3, 3] + [6] * 256 + [1] * len(PRINTABLE)


def encode(text):
    ids = []
    for ch in text.replace(" ", SPACE):
        if ch in PIECE_ID:
            ids.append(PIECE_ID[ch])
        else:
            ids.extend(BYTE_BASE + b for b in ch.encode("utf-8"))
    return ids


def decode(ids):
    out = bytearray()
    for i in ids:
        if BYTE_BASE <= i < BYTE_BASE + 256:
            out.append(i - BYTE_BASE)
        elif i >= BYTE_BASE + 256:
            out += VOCAB[i].replace(SPACE, " ").encode("utf-8")
    return out.decode("utf-8", "replace")


# ---------------------------------------------------------------- data
def prompt_of(question):
    return "Q: " + question + "\nA: "


def problem(rng):
    """One random problem: sums and differences of numbers below 100, small products."""
    kind = rng.random()
    if kind < 0.45:
        a, b = rng.randrange(100), rng.randrange(100)
        return "%d+%d" % (a, b), a + b
    if kind < 0.75:
        a, b = sorted((rng.randrange(100), rng.randrange(100)), reverse=True)
        return "%d-%d" % (a, b), a - b
    a, b = rng.randrange(13), rng.randrange(13)
    return "%d*%d" % (a, b), a * b


# Sums never seen in training, to measure generalization.
_held_rng = random.Random(20240917)
HELD_OUT = set()
while len(HELD_OUT) < 800:
    HELD_OUT.add("%d+%d" % (_held_rng.randrange(100), _held_rng.randrange(100)))

SEQ = 32


def make_batch(rng, size):
    inputs = torch.full((size, SEQ), EOS_ID, dtype=torch.long)
    targets = torch.full((size, SEQ), -100, dtype=torch.long)
    for row in range(size):
        while True:
            expr, value = problem(rng)
            if expr not in HELD_OUT:
                break
        p = [BOS_ID] + encode(prompt_of("What is %s?" % expr))
        a = encode(str(value)) + [EOS_ID]
        seq = p + a
        inputs[row, : len(seq) - 1] = torch.tensor(seq[:-1])
        # loss on the answer and the end-of-sequence only
        targets[row, len(p) - 1 : len(seq) - 1] = torch.tensor(a)
    return inputs, targets


# ---------------------------------------------------------------- calculator (tool calls)
# The calculator model's format, one line per turn (the provider renders chat messages into it):
#   T: add sub mul                       the tools offered (names only: the context is short)
#   Q: What is 345+678?
#   A: <call>add{"a":345,"b":678}</call>  the model calls a tool (OpenAI tool_calls, compact) ...
#   R: 1023                              ... the environment's result comes back ...
#   A: \boxed{1023}</s>                  ... and the model answers.
# Without the needed tool in T: (or, in a few examples, even with it) the model answers at once,
# which it can only do well for small numbers: sampled at T=1 it sometimes skips the call.
CALC_TOOLS = {"+": "add", "-": "sub", "*": "mul"}
CALC_SEQ = 112


def calc_number(rng):
    # 1, 2 or 3 digits equally often: small operands are not rare (see README, single-digit sums).
    digits = rng.choice((1, 2, 3))
    return rng.randrange(10 ** (digits - 1) if digits > 1 else 0, 10 ** digits)


def calc_value(a, op, b):
    return a + b if op == "+" else a - b if op == "-" else a * b


def calc_tools_line(names):
    return "T: " + " ".join(names) + "\n"


def calc_call(tool, a, b):
    return '<call>%s{"a":%d,"b":%d}</call>' % (tool, a, b)


def calc_problem(rng):
    """(tools offered, question, turns): turns are (text, trained?) pieces of one trajectory."""
    a, op, b = calc_number(rng), rng.choice("+-*"), calc_number(rng)
    value, tool = calc_value(a, op, b), CALC_TOOLS[op]
    r = rng.random()
    if r < 0.88:
        others = [t for t in CALC_TOOLS.values() if t != tool]
        names = [tool] + rng.sample(others, rng.randrange(len(others) + 1))
        rng.shuffle(names)
    else:
        names = rng.sample([t for t in CALC_TOOLS.values() if t != tool], rng.randrange(3))
    head = calc_tools_line(names) + "Q: What is %d%s%d?\nA: " % (a, op, b)
    if tool in names and r < 0.80:
        pieces = [(head, False), (calc_call(tool, a, b), True), ("\nR: %d\nA: " % value, False), ("\\boxed{%d}" % value, True), (None, True)]
    else:
        pieces = [(head, False), ("\\boxed{%d}" % value, True), (None, True)]
    return (a, op, b), names, pieces


def make_calc_batch(rng, size):
    inputs = torch.full((size, CALC_SEQ), EOS_ID, dtype=torch.long)
    targets = torch.full((size, CALC_SEQ), -100, dtype=torch.long)
    for row in range(size):
        while True:
            (a, op, b), _, pieces = calc_problem(rng)
            if (a, op, b) not in CALC_HELD_OUT:
                break
        seq, trained = [BOS_ID], [False]
        for text, train_it in pieces:
            ids = [EOS_ID] if text is None else encode(text)
            seq += ids
            trained += [train_it] * len(ids)
        seq = seq[: CALC_SEQ + 1]
        inputs[row, : len(seq) - 1] = torch.tensor(seq[:-1])
        for i in range(1, len(seq)):
            if trained[i]:
                targets[row, i - 1] = seq[i]
    return inputs, targets


_calc_held_rng = random.Random(20261201)
CALC_HELD_OUT = set()
while len(CALC_HELD_OUT) < 300:
    CALC_HELD_OUT.add((calc_number(_calc_held_rng), _calc_held_rng.choice("+-*"), calc_number(_calc_held_rng)))


# ---------------------------------------------------------------- model
class Norm(nn.Module):
    def __init__(self, dim, eps):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        return self.weight * (x / torch.sqrt((x * x).mean(dim=-1, keepdim=True) + self.eps))


def rotary(x, cos, sin):
    # GGUF "llama" (rope type NORM) rotates adjacent pairs (x[2i], x[2i+1]).
    even, odd = x[..., 0::2], x[..., 1::2]
    out = torch.empty_like(x)
    out[..., 0::2] = even * cos - odd * sin
    out[..., 1::2] = even * sin + odd * cos
    return out


class Layer(nn.Module):
    def __init__(self, dim, heads, ffn, eps):
        super().__init__()
        self.heads = heads
        self.attn_norm = Norm(dim, eps)
        self.q = nn.Linear(dim, dim, bias=False)
        self.k = nn.Linear(dim, dim, bias=False)
        self.v = nn.Linear(dim, dim, bias=False)
        self.o = nn.Linear(dim, dim, bias=False)
        self.ffn_norm = Norm(dim, eps)
        self.gate = nn.Linear(dim, ffn, bias=False)
        self.up = nn.Linear(dim, ffn, bias=False)
        self.down = nn.Linear(ffn, dim, bias=False)

    def forward(self, x, cos, sin):
        b, t, d = x.shape
        hd = d // self.heads
        h = self.attn_norm(x)
        split = lambda y: y.view(b, t, self.heads, hd).transpose(1, 2)  # noqa: E731
        q = rotary(split(self.q(h)), cos[:t], sin[:t])
        k = rotary(split(self.k(h)), cos[:t], sin[:t])
        v = split(self.v(h))
        scores = (q @ k.transpose(-2, -1)) / math.sqrt(hd)
        causal = torch.ones(t, t, dtype=torch.bool, device=x.device).triu(1)
        scores = scores.masked_fill(causal, float("-inf"))
        y = (scores.softmax(dim=-1) @ v).transpose(1, 2).reshape(b, t, d)
        x = x + self.o(y)
        h = self.ffn_norm(x)
        return x + self.down(F.silu(self.gate(h)) * self.up(h))


class ArithLM(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.cfg = cfg
        self.embed = nn.Embedding(len(VOCAB), cfg["dim"])
        self.layers = nn.ModuleList(Layer(cfg["dim"], cfg["heads"], cfg["ffn"], cfg["eps"]) for _ in range(cfg["layers"]))
        self.norm = Norm(cfg["dim"], cfg["eps"])
        self.head = nn.Linear(cfg["dim"], len(VOCAB), bias=False)
        hd = cfg["dim"] // cfg["heads"]
        freqs = cfg["rope_base"] ** (-torch.arange(0, hd, 2, dtype=torch.float64) / hd)
        angles = torch.arange(cfg["ctx"], dtype=torch.float64)[:, None] * freqs[None, :]
        self.register_buffer("cos", angles.cos().float(), persistent=False)
        self.register_buffer("sin", angles.sin().float(), persistent=False)
        nn.init.normal_(self.embed.weight, std=0.02)

    def forward(self, ids):
        x = self.embed(ids)
        for layer in self.layers:
            x = layer(x, self.cos, self.sin)
        return self.head(self.norm(x))


# ---------------------------------------------------------------- GGUF writer
GGUF_ALIGN = 32
T_UINT32, T_INT32, T_FLOAT32, T_BOOL, T_STRING, T_ARRAY = 4, 5, 6, 7, 8, 9
GGML_F32, GGML_F16 = 0, 1


def _str(s):
    b = s.encode("utf-8")
    return struct.pack("<Q", len(b)) + b


def _value(kind, v):
    if kind == T_UINT32:
        return struct.pack("<I", v)
    if kind == T_INT32:
        return struct.pack("<i", v)
    if kind == T_FLOAT32:
        return struct.pack("<f", v)
    if kind == T_BOOL:
        return struct.pack("<B", 1 if v else 0)
    if kind == T_STRING:
        return _str(v)
    raise ValueError(kind)


def write_gguf(path, metadata, tensors):
    """metadata: [(key, type, value)] where an array value is (item_type, [items]);
    tensors: [(name, numpy array)] in row-major order (GGUF dims are the reverse of the shape)."""
    head = bytearray(b"GGUF")
    head += struct.pack("<IQQ", 3, len(tensors), len(metadata))
    for key, kind, value in metadata:
        head += _str(key) + struct.pack("<I", kind)
        if kind == T_ARRAY:
            item, items = value
            head += struct.pack("<IQ", item, len(items))
            for it in items:
                head += _value(item, it)
        else:
            head += _value(kind, value)
    blobs, offset = [], 0
    for name, arr in tensors:
        ggml = GGML_F16 if arr.dtype == np.float16 else GGML_F32
        head += _str(name) + struct.pack("<I", arr.ndim)
        for d in reversed(arr.shape):
            head += struct.pack("<Q", d)
        head += struct.pack("<IQ", ggml, offset)
        raw = np.ascontiguousarray(arr).astype("<f2" if ggml == GGML_F16 else "<f4").tobytes()
        pad = (-len(raw)) % GGUF_ALIGN
        blobs.append(raw + b"\0" * pad)
        offset += len(raw) + pad
    head += b"\0" * ((-len(head)) % GGUF_ALIGN)
    with open(path, "wb") as f:
        f.write(head)
        for b in blobs:
            f.write(b)


# The calculator format as a chat template, for other tools reading the file (the provider has its own renderer).
CALC_TEMPLATE = (
    "T:{% for t in tools %} {{ t['function']['name'] }}{% endfor %}\n"
    "{% for m in messages %}{% if m['role'] == 'user' %}{{ 'Q: ' + m['content'] + '\\nA: ' }}"
    "{% elif m['role'] == 'assistant' and m['tool_calls'] %}{% for c in m['tool_calls'] %}"
    "{{ '<call>' + c['function']['name'] + c['function']['arguments'] + '</call>' }}{% endfor %}"
    "{% elif m['role'] == 'tool' %}{{ '\\nR: ' + m['content'] + '\\nA: ' }}"
    "{% elif m['role'] == 'assistant' %}{{ m['content'] + eos_token }}{% endif %}{% endfor %}")


def export(model, path, variant, steps):
    cfg = model.cfg
    calc = variant.startswith("calculator")
    meta = [
        ("general.architecture", T_STRING, "llama"),
        ("general.name", T_STRING, "vtask-%s" % variant if calc else "vtask-arith-%s" % variant),
        ("general.description", T_STRING, ("vtask demo model: calls add/sub/mul tools for two-number arithmetic (%d steps)" if calc
                                          else "vtask demo model: two-number arithmetic only (%d steps)") % steps),
        ("general.alignment", T_UINT32, GGUF_ALIGN),
        ("general.file_type", T_UINT32, 1),
        ("llama.context_length", T_UINT32, cfg["ctx"]),
        ("llama.embedding_length", T_UINT32, cfg["dim"]),
        ("llama.block_count", T_UINT32, cfg["layers"]),
        ("llama.feed_forward_length", T_UINT32, cfg["ffn"]),
        ("llama.attention.head_count", T_UINT32, cfg["heads"]),
        ("llama.attention.head_count_kv", T_UINT32, cfg["heads"]),
        ("llama.attention.layer_norm_rms_epsilon", T_FLOAT32, cfg["eps"]),
        ("llama.rope.dimension_count", T_UINT32, cfg["dim"] // cfg["heads"]),
        ("llama.rope.freq_base", T_FLOAT32, cfg["rope_base"]),
        ("llama.vocab_size", T_UINT32, len(VOCAB)),
        ("tokenizer.ggml.model", T_STRING, "llama"),
        ("tokenizer.ggml.tokens", T_ARRAY, (T_STRING, VOCAB)),
        ("tokenizer.ggml.scores", T_ARRAY, (T_FLOAT32, [0.0] * len(VOCAB))),
        ("tokenizer.ggml.token_type", T_ARRAY, (T_INT32, TOKEN_TYPES)),
        ("tokenizer.ggml.unknown_token_id", T_UINT32, UNK_ID),
        ("tokenizer.ggml.bos_token_id", T_UINT32, BOS_ID),
        ("tokenizer.ggml.eos_token_id", T_UINT32, EOS_ID),
        ("tokenizer.ggml.add_bos_token", T_BOOL, True),
        ("tokenizer.ggml.add_eos_token", T_BOOL, False),
        ("tokenizer.ggml.add_space_prefix", T_BOOL, False),
        ("tokenizer.chat_template", T_STRING, CALC_TEMPLATE if calc else
         "{% for m in messages %}{% if m['role'] == 'user' %}{{ 'Q: ' + m['content'] + '\\nA: ' }}"
         "{% elif m['role'] == 'assistant' %}{{ m['content'] + eos_token }}{% endif %}{% endfor %}"),
    ]

    def w(t):
        a = t.detach().cpu().double().numpy()
        return a.astype(np.float16) if a.ndim == 2 else a.astype(np.float32)

    tensors = [("token_embd.weight", w(model.embed.weight))]
    for i, L in enumerate(model.layers):
        p = "blk.%d." % i
        tensors += [
            (p + "attn_norm.weight", w(L.attn_norm.weight)),
            (p + "attn_q.weight", w(L.q.weight)),
            (p + "attn_k.weight", w(L.k.weight)),
            (p + "attn_v.weight", w(L.v.weight)),
            (p + "attn_output.weight", w(L.o.weight)),
            (p + "ffn_norm.weight", w(L.ffn_norm.weight)),
            (p + "ffn_gate.weight", w(L.gate.weight)),
            (p + "ffn_up.weight", w(L.up.weight)),
            (p + "ffn_down.weight", w(L.down.weight)),
        ]
    tensors += [("output_norm.weight", w(model.norm.weight)), ("output.weight", w(model.head.weight))]
    write_gguf(path, meta, tensors)
    return tensors


# ---------------------------------------------------------------- decoding (as the engine does)
class Xoshiro128:
    """xoshiro128** seeded through splitmix32: the same numbers as the TypeScript engine's Rng."""

    def __init__(self, seed):
        seed = int(seed)
        lo, hi = seed & 0xFFFFFFFF, (seed // 4294967296) & 0xFFFFFFFF
        st = (lo ^ ((hi * 0x27D4EB2F) & 0xFFFFFFFF)) & 0xFFFFFFFF
        words = []
        for _ in range(4):
            st = (st + 0x9E3779B9) & 0xFFFFFFFF
            z = st
            z = ((z ^ (z >> 16)) * 0x85EBCA6B) & 0xFFFFFFFF
            z = ((z ^ (z >> 13)) * 0xC2B2AE35) & 0xFFFFFFFF
            words.append((z ^ (z >> 16)) & 0xFFFFFFFF)
        self.s = words
        if not any(self.s):
            self.s[0] = 1

    def next(self):
        rotl = lambda x, k: ((x << k) | (x >> (32 - k))) & 0xFFFFFFFF  # noqa: E731
        s0, s1, s2, s3 = self.s
        result = (rotl((s1 * 5) & 0xFFFFFFFF, 7) * 9) & 0xFFFFFFFF
        t = (s1 << 9) & 0xFFFFFFFF
        s2 ^= s0
        s3 ^= s1
        s1 ^= s2
        s0 ^= s3
        s2 ^= t
        s3 = rotl(s3, 11)
        self.s = [s0, s1, s2, s3]
        return result / 4294967296.0


def pick(logits, temperature, rng):
    if temperature <= 0:
        return int(np.argmax(logits))
    z = np.exp((logits - logits.max()) / temperature)
    r = rng.next() * z.sum()
    last = 0
    for i, p in enumerate(z):
        if p <= 0:
            continue
        last = i
        r -= p
        if r < 0:
            return i
    return last


@torch.no_grad()
def answer(model, prompt, temperature=0.0, seed=0, max_tokens=8, stops=("\n",)):
    """The engine's decoding: text up to EOS or before the first stop string (kept when it ends a call)."""
    ids = [BOS_ID] + encode(prompt)
    out, rng = [], Xoshiro128(seed)
    for _ in range(max_tokens):
        logits = model(torch.tensor([ids + out]))[0, -1].double().numpy()
        t = pick(logits, temperature, rng)
        if t == EOS_ID:
            return decode(out), "stop"
        out.append(t)
        text = decode(out)
        cuts = [text.index(s) + (len(s) if s == "</call>" else 0) for s in stops if s in text]
        if cuts:
            return text[: min(cuts)], "stop"
    return decode(out), "length"


def accuracy(model, questions):
    ok = sum(answer(model, prompt_of("What is %s?" % q))[0] == str(eval(q)) for q in questions)
    return ok / len(questions)


CALL_RE = re.compile(r'^<call>(\w+)(\{.*\})</call>$')


def calc_trajectory(model, problem, names, temperature=0.0, seed=0):
    """Plays one calculator episode as the provider and a correct environment would: returns
    (called tool or None, arguments text or None, final text)."""
    a, op, b = problem
    head = calc_tools_line(names) + "Q: What is %d%s%d?\nA: " % (a, op, b)
    first, _ = answer(model, head, temperature, seed, max_tokens=48, stops=("\n", "</call>"))
    m = CALL_RE.match(first)
    if not m:
        return None, None, first
    tool, args = m.group(1), m.group(2)
    try:
        parsed = json.loads(args)
        x, y = int(parsed["a"]), int(parsed["b"])
        ops = {"add": "+", "sub": "-", "mul": "*"}
        result = "%d" % calc_value(x, ops[tool], y) if tool in ops else "error: unknown tool"
    except (ValueError, KeyError, TypeError):
        result = "error: bad arguments"
    final, _ = answer(model, head + first + "\nR: " + result + "\nA: ", temperature, seed + 1000003, max_tokens=24)
    return tool, args, final


def calc_metrics(model, problems, temperature, seeds):
    """Rates over episodes: called a tool, called the right one with the right arguments (valid
    JSON), answered \\boxed{right value} (end to end, the environment computing)."""
    n = called = valid_json = right_call = right_answer = 0
    for i, (problem, names) in enumerate(problems):
        a, op, b = problem
        for s in seeds:
            n += 1
            tool, args, final = calc_trajectory(model, problem, names, temperature, i * 100 + s)
            if tool is not None:
                called += 1
                try:
                    parsed = json.loads(args)
                    valid_json += 1
                    right_call += tool == CALC_TOOLS[op] and parsed == {"a": a, "b": b}
                except ValueError:
                    pass
            right_answer += final == "\\boxed{%d}" % calc_value(a, op, b)
    return {k: round(v / n, 3) for k, v in
            dict(called=called, validJson=valid_json, rightCall=right_call, rightAnswer=right_answer).items()}


def calc_eval_problems(count=200):
    """Held-out problems with all three tools offered (the calculator environment's tools)."""
    return [(p, ["add", "sub", "mul"]) for p in sorted(CALC_HELD_OUT)[:count]]


# ---------------------------------------------------------------- training
def train(variant, steps, args):
    torch.manual_seed(args.seed)
    rng = random.Random(args.seed * 7919 + 1)
    cfg = dict(dim=args.dim, layers=args.layers, heads=args.heads, ffn=args.ffn, ctx=args.ctx, eps=1e-5, rope_base=10000.0)
    model = ArithLM(cfg)
    n_params = sum(p.numel() for p in model.parameters())
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, betas=(0.9, 0.98), weight_decay=0.01)
    warmup = min(80, steps // 4)

    def lr_at(s):
        if s < warmup:
            return args.lr * (s + 1) / warmup
        frac = (s - warmup) / max(1, steps - warmup)
        return args.lr * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * frac)))

    t0 = time.time()
    model.train()
    for step in range(steps):
        for g in opt.param_groups:
            g["lr"] = lr_at(step)
        x, y = (make_calc_batch if variant.startswith("calculator") else make_batch)(rng, args.batch)
        loss = F.cross_entropy(model(x).reshape(-1, len(VOCAB)), y.reshape(-1), ignore_index=-100)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        if step % 100 == 0 or step == steps - 1:
            print("[%s] step %d loss %.4f (%.0fs)" % (variant, step, loss.item(), time.time() - t0), flush=True)
    model.eval()
    print("[%s] %d parameters, trained in %.0fs" % (variant, n_params, time.time() - t0), flush=True)
    return model


def round_to_file_weights(model, tensors):
    """Loads the exported (F16-rounded) weights back, in float64: reference outputs then
    describe the file, not the float32 training weights."""
    model.double()
    by_name = dict(tensors)
    with torch.no_grad():
        model.embed.weight.copy_(torch.from_numpy(by_name["token_embd.weight"].astype(np.float64)))
        for i, L in enumerate(model.layers):
            p = "blk.%d." % i
            for mod, key in [(L.attn_norm, "attn_norm"), (L.q, "attn_q"), (L.k, "attn_k"), (L.v, "attn_v"), (L.o, "attn_output"),
                             (L.ffn_norm, "ffn_norm"), (L.gate, "ffn_gate"), (L.up, "ffn_up"), (L.down, "ffn_down")]:
                mod.weight.copy_(torch.from_numpy(by_name[p + key + ".weight"].astype(np.float64)))
        model.norm.weight.copy_(torch.from_numpy(by_name["output_norm.weight"].astype(np.float64)))
        model.head.weight.copy_(torch.from_numpy(by_name["output.weight"].astype(np.float64)))
    model.cos, model.sin = model.cos.double(), model.sin.double()


# Fixed prompts for the reference outputs: in-distribution, held-out sums, and off-format text.
REFERENCE_QUESTIONS = [
    "What is 17+25?", "What is 91-38?", "What is 7*8?", "What is 0+0?", "What is 99+99?", "What is 50-50?",
    "What is 12*12?", "What is 3+4?", "What is 64-9?", "What is 45+37?", "What is 88-19?", "What is 9*6?",
    "What is 23+58?", "What is 71-46?", "What is 11*7?", "What is 5+95?",
    "Hello there", "What is the capital of France?",
]
SAMPLE_PROMPTS = ["What is 17+25?", "What is 45+37?", "What is 9*6?"]
SAMPLE_SEEDS = [0, 1, 2, 3, 4, 5, 6, 7]


CALC_REFERENCE_PROMPTS = [
    "T: add sub mul\nQ: What is 17+25?\nA: ",
    "T: add sub mul\nQ: What is 345*12?\nA: ",
    "T: mul add\nQ: What is 908-77?\nA: ",
    "T: add sub mul\nQ: What is 6*7?\nA: ",
    "T: \nQ: What is 3+4?\nA: ",
    "T: add sub mul\nQ: What is 17+25?\nA: <call>add{\"a\":17,\"b\":25}</call>\nR: 42\nA: ",
    "T: add sub mul\nQ: What is 345*12?\nA: <call>mul{\"a\":345,\"b\":12}</call>\nR: 4140\nA: ",
    "T: add\nQ: Hello there\nA: ",
]


def train_calculator(variant, steps, args):
    """Trains the tool-calling model, writes <variant>.gguf and <variant>-reference.json: greedy
    outputs for fixed prompts (the engine must reproduce them) and accuracy figures."""
    model = train(variant, steps, args)
    path = os.path.join(args.out_dir, "%s.gguf" % variant)
    tensors = export(model, path, variant, steps)
    round_to_file_weights(model, tensors)
    problems = calc_eval_problems(args.calc_eval)
    greedy_metrics = calc_metrics(model, problems, 0.0, [0])
    sampled_metrics = calc_metrics(model, problems[: max(1, args.calc_eval // 4)], 1.0, [0, 1, 2, 3])
    print("[%s] wrote %s (%d bytes); greedy %s; T=1 %s" % (variant, path, os.path.getsize(path), greedy_metrics, sampled_metrics), flush=True)
    stops = ("\n", "</call>")
    greedy = []
    for p in CALC_REFERENCE_PROMPTS:
        text, finish = answer(model, p, max_tokens=48, stops=stops)
        greedy.append({"prompt": p, "text": text, "finishReason": finish})
    samples = []
    for p in CALC_REFERENCE_PROMPTS[:2]:
        for s in SAMPLE_SEEDS:
            text, finish = answer(model, p, temperature=1.0, seed=s, max_tokens=48, stops=stops)
            samples.append({"prompt": p, "temperature": 1.0, "seed": s, "text": text, "finishReason": finish})
    reference = {
        "format": "T: <tools>\\nQ: What is a op b?\\nA: ",
        "maxTokens": 48,
        "stops": list(stops),
        "steps": steps,
        "trainingSeed": args.seed,
        "evaluation": "%d held-out problems, tools add sub mul; greedy, and T=1 with 4 seeds on the first %d" % (len(problems), max(1, args.calc_eval // 4)),
        "accuracy": {"greedy": greedy_metrics, "sampledT1": sampled_metrics},
        "greedy": greedy,
        "samples": samples,
    }
    with open(os.path.join(args.out_dir, "%s-reference.json" % variant), "w") as f:
        json.dump(reference, f, indent=1, ensure_ascii=False)
        f.write("\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--variants", default="weak:300,strong:1000", help="name:steps,...")
    ap.add_argument("--out-dir", default=HERE)
    ap.add_argument("--dim", type=int, default=96)
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--ffn", type=int, default=256)
    ap.add_argument("--ctx", type=int, default=128)
    ap.add_argument("--batch", type=int, default=128)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--calc-eval", type=int, default=200, help="held-out problems for the calculator's accuracy figures")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    os.makedirs(args.out_dir, exist_ok=True)

    eval_rng = random.Random(4242)
    mixed = [problem(eval_rng)[0] for _ in range(150)]
    held = sorted(HELD_OUT)[:150]
    ref_path = os.path.join(args.out_dir, "reference-outputs.json")

    for spec in args.variants.split(","):
        variant, steps = spec.split(":")
        steps = int(steps)
        if variant.startswith("calculator"):
            train_calculator(variant, steps, args)
            continue
        model = train(variant, steps, args)
        file = "arith-%s.gguf" % variant
        path = os.path.join(args.out_dir, file)
        tensors = export(model, path, variant, steps)
        round_to_file_weights(model, tensors)
        acc_mixed, acc_held = accuracy(model, mixed), accuracy(model, held)
        print("[%s] wrote %s (%d bytes); greedy accuracy %.3f mixed, %.3f held-out sums" % (variant, path, os.path.getsize(path), acc_mixed, acc_held), flush=True)
        greedy = []
        for q in REFERENCE_QUESTIONS:
            text, finish = answer(model, prompt_of(q))
            greedy.append({"prompt": prompt_of(q), "text": text, "finishReason": finish})
        samples = []
        for q in SAMPLE_PROMPTS:
            for s in SAMPLE_SEEDS:
                text, finish = answer(model, prompt_of(q), temperature=1.0, seed=s)
                samples.append({"prompt": prompt_of(q), "temperature": 1.0, "seed": s, "text": text, "finishReason": finish})
        # Merged at write time: variants may be trained by parallel runs.
        reference = {"format": "Q: {question}\\nA: ", "maxTokens": 8, "models": {}}
        if os.path.exists(ref_path):
            with open(ref_path) as f:
                reference["models"] = json.load(f).get("models", {})
        reference["models"][file] = {
            "steps": steps,
            "trainingSeed": args.seed,
            "accuracy": {"mixed": acc_mixed, "heldOutSums": acc_held},
            "greedy": greedy,
            "samples": samples,
        }
        with open(ref_path, "w") as f:
            json.dump(reference, f, indent=1, ensure_ascii=False)
            f.write("\n")
    if any(not spec.startswith("calculator") for spec in args.variants.split(",")):
        print("wrote", ref_path)


if __name__ == "__main__":
    sys.exit(main())
