#!/usr/bin/env python3
"""Figures from `tilelife bench --json` output (docs/local-memory.md, docs/sycl.md).

    python3 bench/plot.py --out DIR [--bandwidth GB/s] [--int-ops OPS/s --ops-per-word N] FILE.json...

Each FILE is what one `tilelife bench ... --json` printed. Writes into DIR:
  rate.png         cell updates per second of every result, one bar each, coloured by backend
  sycl-opencl.png  SYCL / OpenCL per kernel, rule and board, where both backends ran the same job
  roofline.png     cell updates per second against cell updates per byte of board traffic, with the
                   memory-bandwidth ceiling (--bandwidth) and, given --int-ops and --ops-per-word, the
                   integer-logic ceiling of the bit-packed kernels (32 cells a word)
Board traffic per cell update: the byte kernels read and write a byte per cell each generation (2
bytes); the bit-packed kernels a bit each way per launch of K generations (1/4 byte / K).
Exit status 2 (one line naming the file) for a file that is not such output.
"""
import argparse
import json
import math
import os
import sys

import matplotlib

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt  # noqa: E402

BACKEND_COLOURS = {"opencl": "#1f77b4", "sycl": "#d62728", "cpu": "#7f7f7f"}


class BadInput(Exception):
    pass


def load(path):
    """The successful results of one bench JSON file, flattened."""
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except OSError as e:
        raise BadInput(f"{path}: {e.strerror}")
    except json.JSONDecodeError as e:
        raise BadInput(f"{path}:{e.lineno}: not JSON ({e.msg})")
    if not isinstance(doc, dict) or doc.get("command") != "bench" or not isinstance(doc.get("results"), list):
        raise BadInput(f"{path}: not the output of `tilelife bench --json`")
    board = doc.get("board", {})
    out = []
    for r in doc["results"]:
        if r.get("error") or not r.get("cell_updates_per_second"):
            continue
        engine = r["engine"]
        name = engine["name"]
        out.append({
            "engine": name,
            "backend": engine.get("backend") or name.split(":")[0],
            "kernel": name.split(":", 1)[1] if ":" in name else name,
            "device": engine.get("device") or "",
            "steps": engine.get("steps_per_launch") or 1,
            "rate": float(r["cell_updates_per_second"]),
            "rule": board.get("rule", "?"),
            "board": f"{board.get('width')}x{board.get('height')} {board.get('topology', '')}".strip(),
        })
    return out


def bytes_per_update(r):
    if "bitpacked" in r["kernel"]:
        return 0.25 / max(1, int(r["steps"]))
    return 2.0


def label(r, boards, rules):
    parts = [r["engine"] + (f" K={r['steps']}" if "bitpacked" in r["kernel"] else "")]
    if len(boards) > 1:
        parts.append(r["board"])
    if len(rules) > 1:
        parts.append(r["rule"])
    return "  ".join(parts)


def plot_rates(results, path, title):
    boards = {r["board"] for r in results}
    rules = {r["rule"] for r in results}
    rows = sorted(results, key=lambda r: (r["board"], r["rule"], r["kernel"], int(r["steps"]), r["backend"]))
    fig, ax = plt.subplots(figsize=(8, 0.35 * len(rows) + 1.4))
    y = range(len(rows))
    ax.barh(list(y), [r["rate"] for r in rows], color=[BACKEND_COLOURS.get(r["backend"], "#2ca02c") for r in rows])
    ax.set_yticks(list(y))
    ax.set_yticklabels([label(r, boards, rules) for r in rows], fontsize=8)
    ax.invert_yaxis()
    ax.set_xscale("log")
    ax.set_xlim(right=max(r["rate"] for r in rows) * 3)  # room for the numbers
    ax.set_xlabel("cell updates per second")
    for i, r in enumerate(rows):
        ax.text(r["rate"], i, f" {r['rate'] / 1e12:.3g} T" if r["rate"] >= 1e11 else f" {r['rate'] / 1e9:.3g} G",
                va="center", fontsize=7)
    ax.set_title(title, fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def pairs(results):
    """(kernel, rule, board, sycl rate / opencl rate) for every job both backends ran."""
    by = {}
    for r in results:
        by.setdefault((r["kernel"], r["rule"], r["board"]), {})[r["backend"]] = r["rate"]
    return [(k, rule, board, v["sycl"] / v["opencl"]) for (k, rule, board), v in sorted(by.items())
            if "sycl" in v and "opencl" in v]


def plot_ratios(ratios, path, title):
    fig, ax = plt.subplots(figsize=(8, 0.35 * len(ratios) + 1.4))
    y = list(range(len(ratios)))
    ax.barh(y, [q for *_, q in ratios], color=["#2ca02c" if q >= 0.95 else "#ff7f0e" for *_, q in ratios])
    ax.set_yticks(y)
    ax.set_yticklabels([f"{k}  {rule}  {board}" for k, rule, board, _ in ratios], fontsize=8)
    ax.invert_yaxis()
    ax.axvline(1.0, color="black", linewidth=0.8)
    ax.axvline(0.95, color="grey", linewidth=0.8, linestyle="--")
    for i, (*_, q) in enumerate(ratios):
        ax.text(q, i, f" {q:.2f}x", va="center", fontsize=7)
    ax.set_xlabel("SYCL / OpenCL (cell updates per second; dashed: 0.95)")
    ax.set_title(title, fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def plot_roofline(results, path, title, bandwidth, int_ops, ops_per_word):
    fig, ax = plt.subplots(figsize=(8, 5.4))
    rules = {r["rule"] for r in results}
    xs = [1.0 / bytes_per_update(r) for r in results]
    lo, hi = min(xs) / 4, max(xs) * 4
    grid = [lo * (hi / lo) ** (i / 100) for i in range(101)]
    if bandwidth:
        ax.plot(grid, [bandwidth * 1e9 * x for x in grid], color="black", linewidth=1,
                label=f"memory bandwidth {bandwidth:g} GB/s")
    if int_ops and ops_per_word:
        ceiling = int_ops * 32 / ops_per_word
        ax.axhline(ceiling, color="purple", linewidth=1, linestyle="--",
                   label=f"integer logic: {int_ops:.3g} ops/s x 32 cells / {ops_per_word:g} ops = {ceiling / 1e12:.3g} T/s")
    for backend in sorted({r["backend"] for r in results}):
        pts = [(1.0 / bytes_per_update(r), r["rate"], r) for r in results if r["backend"] == backend]
        ax.scatter([p[0] for p in pts], [p[1] for p in pts], color=BACKEND_COLOURS.get(backend, "#2ca02c"),
                   label=backend, zorder=3)
        for x, y, r in pts:
            text = f"{r['kernel']} K={r['steps']}" if "bitpacked" in r["kernel"] else r["kernel"]
            if len(rules) > 1 and r["rule"] != "B3/S23":
                text += f" {r['rule']}"
            ax.annotate(text, (x, y), fontsize=6, xytext=(3, 3), textcoords="offset points")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("cell updates per byte of board traffic")
    ax.set_ylabel("cell updates per second")
    ax.legend(fontsize=7, loc="lower right")
    ax.set_title(title, fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("files", nargs="+", metavar="FILE.json")
    ap.add_argument("--out", required=True, help="folder for the PNG files")
    ap.add_argument("--bandwidth", type=float, default=0, help="memory bandwidth ceiling, GB/s")
    ap.add_argument("--int-ops", type=float, default=0, help="the device's integer logic operations per second")
    ap.add_argument("--ops-per-word", type=float, default=0, help="instructions per 32-cell word-generation")
    ap.add_argument("--title", default="", help="title (default: the devices)")
    a = ap.parse_args(argv)
    try:
        results = [r for f in a.files for r in load(f)]
    except BadInput as e:
        print(f"plot.py: {e}", file=sys.stderr)
        return 2
    if not results:
        print(f"plot.py: {', '.join(a.files)}: no successful results to draw", file=sys.stderr)
        return 2
    for v in (a.bandwidth, a.int_ops, a.ops_per_word):
        if v < 0 or math.isnan(v):
            print("plot.py: --bandwidth, --int-ops and --ops-per-word must be positive", file=sys.stderr)
            return 2
    os.makedirs(a.out, exist_ok=True)
    title = a.title or "; ".join(sorted({r["device"] for r in results if r["device"]}))[:120]
    written = [os.path.join(a.out, "rate.png")]
    plot_rates(results, written[-1], title)
    ratios = pairs(results)
    if ratios:
        written.append(os.path.join(a.out, "sycl-opencl.png"))
        plot_ratios(ratios, written[-1], title)
    written.append(os.path.join(a.out, "roofline.png"))
    plot_roofline(results, written[-1], title, a.bandwidth, a.int_ops, a.ops_per_word)
    for w in written:
        print(w)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
