#!/usr/bin/env bash
# The `tilelife bench --json` runs behind the figures of docs/local-memory.md and docs/bitpacked-opencl.md
# (drawn by bench/plot.py). One call on a GPU machine:
#   bench/gpu-figures.sh /path/to/tilelife OUTDIR
# OUTDIR gets one JSON file per run (what `tilelife bench --json` printed) and errors.log. Then, here:
#   python3 bench/plot.py --out docs/images/h100 --bandwidth 3000 --int-ops 1.673e13 --ops-per-word N OUTDIR/*.json
# SIZE (default 16384x16384) for the byte kernels, BIG (default 32768x32768) for the bit-packed ones.
set -u
if [ $# -ne 2 ] || [ ! -x "$1" ]; then
  echo "usage: $0 /path/to/tilelife OUTDIR" >&2
  exit 2
fi
TL=$1 OUT=$2
mkdir -p "$OUT" || exit 1
: > "$OUT/errors.log"
SIZE=${SIZE:-16384x16384} BIG=${BIG:-32768x32768}
run() {  # run NAME ARGS...: one bench, its JSON kept
  local name=$1; shift
  "$TL" bench --json "$@" > "$OUT/$name.json" 2>> "$OUT/errors.log" || echo "FAILED $name: $*" >> "$OUT/errors.log"
}
# Every OpenCL kernel on one board: the local-memory story (naive, halo tile, strided, bit-packed).
run kernels --backend opencl --kernel naive,halo-tile,halo-tile-strided,bitpacked --size "$SIZE" --gens 64 --warmup 8
# The bit-packed kernel per rule, and per generations per launch (the roofline's x axis).
for rule in B3/S23 B36/S23 B3678/S34678; do
  run "bitpacked-${rule//\//}" --backend opencl --kernel bitpacked --rule "$rule" --size "$BIG" --gens 768 --warmup 48
done
for k in 1 2 4 8 16; do
  run "bitpacked-K$k" --backend opencl --kernel bitpacked --steps-per-launch "$k" --size "$BIG" --gens 768 --warmup 48
done
ls "$OUT"
