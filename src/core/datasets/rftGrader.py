# vtask's verifiers for OpenAI reinforcement fine-tuning: the `python` grader that
# `vtask export --format openai-rft` writes. Each row carries its verifier as JSON in
# `item["vtask_verifier"]`; grade() checks the model's output the way vtask does, for the
# verifier kinds the export accepts (match, numeric math, format, json without a schema,
# all/any/weighted of those). Standard library only.
import json
import re
import unicodedata
from fractions import Fraction


def _normalize(s):
    s = unicodedata.normalize("NFKC", s).lower()
    s = "".join(" " if unicodedata.category(c)[0] in "PS" else c for c in s)
    s = re.sub(r"\b(a|an|the)\b", " ", s)
    return re.sub(r"\s+", " ", s).strip()


def _last_tagged(text, tag):
    end = text.rfind("</" + tag + ">")
    if end == -1:
        return None
    start = text.rfind("<" + tag + ">", 0, end)
    if start == -1:
        return None
    return text[start + len(tag) + 2:end]


def _f1(pred, gold):
    p = [t for t in _normalize(pred).split(" ") if t]
    g = [t for t in _normalize(gold).split(" ") if t]
    if not p or not g:
        return 1.0 if len(p) == len(g) else 0.0
    counts = {}
    for t in g:
        counts[t] = counts.get(t, 0) + 1
    common = 0
    for t in p:
        if counts.get(t, 0) > 0:
            common += 1
            counts[t] -= 1
    if common == 0:
        return 0.0
    precision, recall = common / len(p), common / len(g)
    return 2 * precision * recall / (precision + recall)


def _match(text, p):
    mode = p.get("mode", "normalized")
    golds = [str(a) for a in (p["answers"] if "answers" in p else [p.get("answer", "")])]
    if p.get("tag"):
        inner = _last_tagged(text, p["tag"])
        if inner is None:
            return 0.0, False
        text = inner
    if mode == "f1":
        best = max(_f1(text, g) for g in golds)
        return best, best >= p.get("threshold", 1) - 1e-9
    for g in golds:
        if mode == "regex":
            ok = re.search(g, text) is not None
        elif mode == "contains":
            ok = _normalize(g) in _normalize(text)
        elif mode == "exact":
            ok = text.strip() == g.strip()
        else:
            ok = _normalize(text) == _normalize(g)
        if ok:
            return 1.0, True
    return 0.0, False


_NUMBER = r"[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:/\d+)?"


def _number(s):
    s = s.strip().replace("\\$", "").replace("$", "").replace("\\!", "").replace("{,}", "")
    s = re.sub(r"\\text\{[^{}]*\}|\\mathrm\{[^{}]*\}", "", s).strip().rstrip(".")
    m = re.fullmatch(r"\\[dt]?frac\{(-?\d+)\}\{(\d+)\}", s)
    if m:
        return Fraction(int(m.group(1)), int(m.group(2))), False
    if re.fullmatch(_NUMBER, s) is None:
        return None
    decimal = "." in s
    s = s.replace(",", "")
    try:
        return Fraction(s), decimal
    except (ValueError, ZeroDivisionError):
        return None


def _boxes(text):
    out, i = [], 0
    while True:
        i = text.find("\\boxed{", i)
        if i == -1:
            return out
        depth, j = 1, i + 7
        while j < len(text) and depth:
            depth += {"{": 1, "}": -1}.get(text[j], 0)
            j += 1
        if depth:
            return out
        out.append(text[i + 7:j - 1])
        i = j


def _math(text, p):
    golds = [_number(str(a)) for a in (p["answers"] if "answers" in p else [p.get("answer")])]
    boxes = _boxes(text)
    if boxes:
        values = {b.strip() for b in boxes}
        if len(values) > 1:
            return 0.0, False  # several different boxed answers: a hedge
        candidate = boxes[-1]
    else:
        m = re.findall(r"(?:final answer is|answer is|answer:)\s*\$?\s*(" + _NUMBER + ")", text, re.I)
        if m:
            candidate = m[-1]
        else:
            nums = re.findall(_NUMBER, text)
            if not nums:
                return 0.0, False
            candidate = nums[-1]
    pred = _number(candidate)
    if pred is None:
        return 0.0, False
    tol = p.get("tolerance", 1e-6)
    for gold in golds:
        if gold is None:
            continue
        if pred[0] == gold[0]:
            return 1.0, True
        if (pred[1] or gold[1]) and abs(pred[0] - gold[0]) <= tol * max(abs(gold[0]), abs(pred[0])):
            return 1.0, True
    return 0.0, False


def _format(text, p):
    opens, closes = text.count("<think>"), text.count("</think>")
    if p.get("think") == "required":
        m = re.fullmatch(r"\s*<think>([\s\S]*?)</think>([\s\S]*)", text)
        if not m or opens != 1 or closes != 1 or not m.group(2).strip():
            return 0.0, False
    elif p.get("think") == "forbidden" and (opens or closes):
        return 0.0, False
    if "regex" in p and re.search(p["regex"], text) is None:
        return 0.0, False
    return 1.0, True


def _json(text, p):
    m = re.findall(r"```(?:json)?\s*\n([\s\S]*?)```", text)
    try:
        json.loads(m[-1] if m else text)
        return 1.0, True
    except ValueError:
        return 0.0, False


_LISTS = {"all": "of", "any": "of", "weighted": "of", "constraints": "instructions"}


def _check(verifier, response):
    kind, params = next(iter(verifier.items()))
    if isinstance(params, list):
        params = {_LISTS[kind]: params}
    params = params or {}
    text = response
    final_only = params.get("final_only", kind != "format")
    if final_only and kind not in ("all", "any", "weighted"):
        close = response.rfind("</think>")
        if close != -1:
            text = response[close + 8:]
        elif "<think>" in response:
            return 0.0, False
    if kind == "match":
        return _match(text, params)
    if kind == "math":
        return _math(text, params)
    if kind == "format":
        return _format(text, params)
    if kind == "json":
        return _json(text, params)
    if kind in ("all", "any"):
        results = [_check(v, response) for v in params["of"]]
        if kind == "all":
            return sum(s for s, _ in results) / len(results), all(ok for _, ok in results)
        return max(s for s, _ in results), any(ok for _, ok in results)
    if kind == "weighted":
        total = sum(c["weight"] for c in params["of"])
        score = sum(c["weight"] * _check(c["verify"], response)[0] for c in params["of"]) / total if total else 0.0
        return score, score >= params.get("threshold", 1) - 1e-9
    raise ValueError("vtask grader: unsupported verifier kind " + kind)


def grade(sample, item):
    """The score of the sample's output text: vtask's verdict score, 0 to 1."""
    verifier = json.loads(item["vtask_verifier"])
    return float(_check(verifier, sample.get("output_text") or "")[0])
