#!/usr/bin/env bash
# `make demo`: real jobs on the CPU, printing what they did.
set -euo pipefail
build=${1:-build}
bin="$build/tilelife"
out="$build/demo"
mkdir -p "$out"

echo "== Gosper glider gun, 1000 generations on the infinite plane (CPU)"
"$bin" run patterns/gosper-glider-gun.rle --gens 1000 -o "$out/gosper-gun-1000.rle"
echo "== first lines of $out/gosper-gun-1000.rle"
head -n 3 "$out/gosper-gun-1000.rle"
echo
echo "== a 2048x2048 random soup on a torus, 300 generations (CPU, default kernel)"
"$bin" run random:2048x2048:0.5:1 --topology torus --gens 300
if "$bin" engines | grep -q '^opencl:'; then
  echo
  device=$("$bin" devices 2>/dev/null | grep -m1 '\[default\]' | sed 's/.*\[default\]: //')
  echo "== the same gun on the OpenCL backend (default device: ${device:-none found})"
  "$bin" run patterns/gosper-glider-gun.rle --gens 1000 --backend opencl -o "$out/gosper-gun-1000-opencl.rle" || \
    echo "(OpenCL run failed: see the message above; the CPU results stand)"
  if cmp -s <(tail -n +2 "$out/gosper-gun-1000.rle") <(tail -n +2 "$out/gosper-gun-1000-opencl.rle"); then
    echo "== OpenCL result is identical to the CPU result"
  fi
fi
