#!/usr/bin/env python3
"""bench/plot.py on real `tilelife bench --json` output: the figures it must draw, the ratio figure
only where both backends ran the same job (with the ratios it computes), and refusals of bad input."""
import argparse
import importlib.util
import json
import os
import struct
import subprocess
import sys
import tempfile

ap = argparse.ArgumentParser()
ap.add_argument("--cli", required=True)
ap.add_argument("--script", required=True)
a = ap.parse_args()
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAILED:", what)


def png_size(path):
    with open(path, "rb") as f:
        head = f.read(24)
    if head[:8] != b"\x89PNG\r\n\x1a\n":
        return None
    return struct.unpack(">II", head[16:24])


def plot(*args):
    return subprocess.run([sys.executable, a.script, *args], capture_output=True, text=True)


def bench(*args):
    r = subprocess.run([a.cli, "bench", "--size", "96x64", "--gens", "4", "--json", *args], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"tilelife bench {' '.join(args)} failed: {r.stderr}")
    return json.loads(r.stdout)


spec = importlib.util.spec_from_file_location("plot", a.script)
plot_module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(plot_module)

with tempfile.TemporaryDirectory() as d:
    cpu = bench("--backend", "cpu", "--kernel", "reference,bitpacked")
    life = os.path.join(d, "cpu.json")
    json.dump(cpu, open(life, "w"))
    # A second backend on the same jobs: the same output with the names changed and known rates, so
    # the ratios the script computes can be checked exactly.
    twin = json.loads(json.dumps(cpu))
    for r, factor in zip(twin["results"], (0.5, 2.0)):
        r["engine"]["name"] = r["engine"]["name"].replace("cpu:", "sycl:")
        r["engine"]["backend"] = "sycl"
        r["cell_updates_per_second"] *= factor
    for r in cpu["results"]:
        r["engine"]["name"] = r["engine"]["name"].replace("cpu:", "opencl:")
        r["engine"]["backend"] = "opencl"
    ocl, sycl = os.path.join(d, "ocl.json"), os.path.join(d, "sycl.json")
    json.dump(cpu, open(ocl, "w"))
    json.dump(twin, open(sycl, "w"))

    out = os.path.join(d, "one")
    r = plot("--out", out, "--bandwidth", "20", life)
    check(r.returncode == 0, f"one backend: exit {r.returncode}: {r.stderr}")
    check(sorted(os.listdir(out)) == ["rate.png", "roofline.png"], f"one backend draws rate and roofline: {os.listdir(out)}")
    for f in os.listdir(out):
        size = png_size(os.path.join(out, f))
        check(size is not None and size[0] > 300 and size[1] > 200, f"{f} is a PNG of a real size: {size}")

    out = os.path.join(d, "two")
    r = plot("--out", out, "--bandwidth", "20", "--int-ops", "1e12", "--ops-per-word", "18", ocl, sycl)
    check(r.returncode == 0, f"two backends: exit {r.returncode}: {r.stderr}")
    check(sorted(os.listdir(out)) == ["rate.png", "roofline.png", "sycl-opencl.png"], f"the ratio figure: {os.listdir(out)}")
    ratios = plot_module.pairs(plot_module.load(ocl) + plot_module.load(sycl))
    check(sorted((k, round(q, 9)) for k, _, _, q in ratios) == [("bitpacked", 2.0), ("reference", 0.5)],
          f"SYCL / OpenCL ratios per kernel: {ratios}")
    check(plot_module.bytes_per_update({"kernel": "bitpacked", "steps": 8}) == 0.25 / 8, "bit-packed traffic per update")
    check(plot_module.bytes_per_update({"kernel": "halo-tile", "steps": 1}) == 2.0, "byte kernels' traffic per update")

    bad = os.path.join(d, "bad.json")
    open(bad, "w").write('{"command": "run"}')
    r = plot("--out", os.path.join(d, "x"), bad)
    check(r.returncode == 2 and "bad.json" in r.stderr and r.stderr.count("\n") == 1,
          f"not bench output: exit 2 and one line naming the file: {r.returncode} {r.stderr!r}")
    open(bad, "w").write("{\n  oops")
    r = plot("--out", os.path.join(d, "x"), bad)
    check(r.returncode == 2 and "bad.json:2" in r.stderr, f"broken JSON names the file and line: {r.stderr!r}")
    check(not os.path.exists(os.path.join(d, "x")), "nothing written for bad input")

print(f"{0 if failures else 1} passed, {len(failures)} failed")
sys.exit(1 if failures else 0)
