#!/usr/bin/env python3
"""sass_loop: instruction counts of a kernel's generation loop in `cuobjdump --dump-sass` output.

    python3 bench/sass_loop.py FILE.sass [KERNEL] [ROWS]

The loop is the shortest body of a backward branch (a BRA to an address above it) that holds two
BAR instructions: for opencl:bitpacked that is the generation loop (compute, barrier, publish,
barrier), not the loop over tiles around it. Prints the body's length and its opcodes (modifiers dropped, LOP3.LUT counts
as LOP3, except IMAD's HI, WIDE, SHL, MOV and IADD), and with ROWS the counts per word and generation (the body advances ROWS
words of one work-item by one generation).
"""
import collections
import re
import sys


def kernels(text):
    """{kernel name: [(address, opcode, branch target or None)]} from cuobjdump's SASS listing."""
    out, cur = {}, None
    for line in text.splitlines():
        m = re.match(r"\s*Function : (\S+)", line)
        if m:
            cur = out.setdefault(m.group(1), [])
            continue
        m = re.match(r"\s*/\*([0-9a-f]{4,})\*/\s+(.*?);", line)
        if not m or cur is None:
            continue
        addr, ins = int(m.group(1), 16), m.group(2).strip()
        if ins.startswith("{"):
            ins = ins[1:].strip()
        if ins.startswith("@"):
            ins = ins.split(None, 1)[1]
        parts = ins.split()[0].split(".")
        op = parts[0]
        if op == "IMAD" and len(parts) > 1 and parts[1] in ("HI", "WIDE", "SHL", "MOV", "IADD"):
            op = "IMAD." + parts[1]  # which IMADs stand for shifts and moves
        target = None
        t = re.search(r"BRA\s+(?:`\()?.*?(0x[0-9a-f]+)", ins)
        if op == "BRA" and t:
            target = int(t.group(1), 16)
        cur.append((addr, op, target))
    return out


def loop_counts(code):
    best = None
    for i, (addr, op, target) in enumerate(code):
        if op != "BRA" or target is None or target >= addr:
            continue
        body = [o for a, o, _ in code if target <= a <= addr]
        key = (min(body.count("BAR"), 2), -len(body))
        if best is None or key > best[0]:
            best = (key, body)
    return collections.Counter(best[1]) if best else collections.Counter()


def main():
    text = open(sys.argv[1]).read()
    want = sys.argv[2] if len(sys.argv) > 2 else "life_bitpacked_time_tile"
    rows = int(sys.argv[3]) if len(sys.argv) > 3 else 0
    for name, code in kernels(text).items():
        if want not in name:
            continue
        c = loop_counts(code)
        total = sum(c.values())
        main_ops = ["LOP3", "SHF", "IMAD", "IMAD.HI", "IMAD.SHL", "IMAD.MOV", "LDS", "STS", "BAR", "SHFL", "IADD3", "ISETP", "LEA", "MOV", "SEL"]
        parts = ", ".join(f"{k} {c[k]}" for k in main_ops if c[k])
        rest = ", ".join(f"{k} {v}" for k, v in c.most_common() if k not in main_ops)
        print(f"{name}: {len(code)} instructions; generation loop {total}: {parts}" + (f"; other: {rest}" if rest else ""))
        if rows:
            per = ", ".join(f"{k} {c[k] / rows:.2f}" for k in main_ops if c[k])
            print(f"  per word-generation (/{rows}): {total / rows:.2f} instructions: {per}")


if __name__ == "__main__":
    main()
