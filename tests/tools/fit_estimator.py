#!/usr/bin/env python3
"""Fits the token estimator's weights: tokens ~ sum(weight * feature count).

Reads the CSV that `cargo run --release -p patchbay --features exact-tokens
--example token_features` prints (one row per file and per ~1 KB chunk: the
pieces the estimator counts, and the exact count of every vocabulary), and
solves, per model family, the least-squares problem on *relative* error
(each row is divided by its exact count, so short chunks weigh as much as
long files), with non-negative weights (active set: a weight that comes out
negative is fixed at zero and the rest solved again).

It prints, per family and language, the mean absolute error per file and the
90th percentile of the error on chunks, both from 2-fold cross-validation by
file (fit on one half of the files, measure on the other) and from the final
fit on everything, which `--write-rust` writes as the weights module.

Extra families without an exact tokenizer in Rust can be added from a CSV of
`id,count` (same sample ids): `--extra gemma=gemma_counts.csv`.

Python 3 standard library only.

Usage: fit_estimator.py DATA.csv [--extra NAME=FILE] [--write-rust PATH]
"""
import argparse
import csv
import math
import sys
import zlib

FEATURES = [
    "words", "humps", "long4", "long8", "caps", "caps_long", "digit_groups", "digits", "puncts",
    "punct_long", "punct_rep", "newlines", "spaces", "space_long", "chars2", "chars3", "cjk", "chars4", "prefixed",
    "tabs", "lines",
]
FAMILIES = ["o200k_base", "cl100k_base", "llama3", "qwen2", "deepseek_v3"]
RUST_NAMES = {
    "o200k_base": "O200K", "cl100k_base": "CL100K", "llama3": "LLAMA3", "qwen2": "QWEN2",
    "deepseek_v3": "DEEPSEEK_V3", "gemma": "GEMMA",
}
RIDGE = 1e-6


def solve(a, b):
    """Solves the square system a x = b by Gaussian elimination with partial
    pivoting; a singular column gets x = 0."""
    n = len(b)
    m = [row[:] + [b[i]] for i, row in enumerate(a)]
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(m[r][c]))
        if abs(m[p][c]) < 1e-12:
            continue
        m[c], m[p] = m[p], m[c]
        for r in range(n):
            if r != c and m[r][c] != 0.0:
                k = m[r][c] / m[c][c]
                for j in range(c, n + 1):
                    m[r][j] -= k * m[c][j]
    return [m[i][n] / m[i][i] if abs(m[i][i]) >= 1e-12 else 0.0 for i in range(n)]


def fit(rows, target):
    """Non-negative least squares on relative error."""
    active = list(range(len(FEATURES)))
    while True:
        k = len(active)
        ata = [[0.0] * k for _ in range(k)]
        atb = [0.0] * k
        for r in rows:
            y = r[target]
            if y <= 0:
                continue
            x = [r["x"][i] / y for i in active]
            for i in range(k):
                xi = x[i]
                if xi == 0.0:
                    continue
                atb[i] += xi  # (y / y) * x
                row = ata[i]
                for j in range(k):
                    row[j] += xi * x[j]
        for i in range(k):
            ata[i][i] += RIDGE
        w = solve(ata, atb)
        neg = [active[i] for i in range(k) if w[i] < 0]
        if not neg:
            full = [0.0] * len(FEATURES)
            for i, wi in zip(active, w):
                full[i] = wi
            return full
        worst = min(range(k), key=lambda i: w[i])
        active.pop(worst)


def predict(w, r):
    return max(round(sum(wi * xi for wi, xi in zip(w, r["x"]))), 1)


def err(w, r, target):
    return abs(predict(w, r) - r[target]) / r[target]


def pct(values, q):
    if not values:
        return float("nan")
    v = sorted(values)
    return v[min(len(v) - 1, int(math.ceil(q * len(v))) - 1)]


def file_of(r):
    return r["id"].split("#")[0]


def load(path, extras):
    rows = []
    with open(path, newline="") as fh:
        for d in csv.DictReader(fh):
            r = {"id": d["id"], "kind": d["kind"], "lang": d["lang"], "bytes": int(d["bytes"])}
            r["x"] = [float(d[f]) for f in FEATURES]
            for fam in FAMILIES:
                r[fam] = int(d[fam])
            rows.append(r)
    for name, counts in extras.items():
        for r in rows:
            r[name] = counts.get(r["id"], 0)
    return rows


def report(title, w_for, rows, target):
    """Per language: files, mean abs error per file, p90 on chunks, bytes/4's."""
    print(f"  {title}")
    langs = sorted({r["lang"] for r in rows}) + ["ALL"]
    print(f"    {'lang':10} {'files':>5} {'MAE file':>9} {'p90 chunk':>10} {'MAE chunk':>10} {'bytes/4 MAE':>12}")
    out = {}
    for lang in langs:
        sel = [r for r in rows if (lang == "ALL" or r["lang"] == lang) and r[target] > 0]
        files = [r for r in sel if r["kind"] == "file"]
        chunks = [r for r in sel if r["kind"] == "chunk"]
        fe = [err(w_for(r), r, target) for r in files]
        ce = [err(w_for(r), r, target) for r in chunks]
        b4 = [abs(max(round(r["bytes"] / 4), 1) - r[target]) / r[target] for r in files]
        mae = sum(fe) / len(fe) if fe else float("nan")
        out[lang] = (len(files), mae, pct(ce, 0.9))
        print(f"    {lang:10} {len(files):5d} {100*mae:8.2f}% {100*pct(ce, 0.9):9.2f}% "
              f"{100*sum(ce)/max(len(ce),1):9.2f}% {100*sum(b4)/max(len(b4),1):11.2f}%")
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("data")
    ap.add_argument("--extra", action="append", default=[])
    ap.add_argument("--write-rust")
    a = ap.parse_args()
    extras = {}
    for e in a.extra:
        name, path = e.split("=", 1)
        with open(path, newline="") as fh:
            extras[name] = {d["id"]: int(d["count"]) for d in csv.DictReader(fh)}
    rows = load(a.data, extras)
    families = FAMILIES + sorted(extras)
    files = sorted({file_of(r) for r in rows})
    fold = {f: zlib.crc32(f.encode()) % 2 for f in files}
    weights = {}
    for fam in families:
        print(f"== {fam}")
        halves = [[r for r in rows if fold[file_of(r)] == k] for k in (0, 1)]
        cv = [fit(halves[1 - k], fam) for k in (0, 1)]
        report("2-fold cross-validation (fit on the other half of the files)",
               lambda r: cv[fold[file_of(r)]], rows, fam)
        w = fit(rows, fam)
        weights[fam] = w
        report("final fit (all files)", lambda r: w, rows, fam)
        print("    weights: " + ", ".join(f"{n}={v:.4f}" for n, v in zip(FEATURES, w)))
        o = [r for r in rows if r["kind"] == "file" and r["o200k_base"] > 0 and r[fam] > 0]
        ratio = sum(r[fam] for r in o) / sum(r["o200k_base"] for r in o)
        print(f"    tokens relative to o200k_base on these files: {ratio:.3f}")
    if a.write_rust:
        write_rust(a.write_rust, weights)


def write_rust(path, weights):
    with open(path) as fh:
        src = fh.read()
    head = src.split("// BEGIN FITTED")[0]
    tail = src.split("// END FITTED")[1] if "// END FITTED" in src else "\n"
    body = ["// BEGIN FITTED (tests/tools/fit_estimator.py --write-rust)"]
    for fam, w in weights.items():
        vals = ", ".join(f"{v:.5f}" for v in w)
        body.append(f"const {RUST_NAMES[fam]}: [f64; N_FEATURES] = [{vals}];")
    body.append("// END FITTED")
    with open(path, "w") as fh:
        fh.write(head + "\n".join(body) + tail)
    print(f"wrote {path}", file=sys.stderr)


if __name__ == "__main__":
    main()
