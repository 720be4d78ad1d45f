#!/usr/bin/env bash
# The SYCL engines on the CPU (AdaptiveCpp's omp target) beside their OpenCL twins on PoCL, in one
# run (docs/sycl.md, "CPU"). Both from one build that has OpenCL and SYCL:
#   bench/cpu-sycl.sh BUILD_DIR OUTDIR
# BUILD_DIR holds tilelife and tilelife_sycl_bench. Each configuration runs REPEATS times (default
# 3), alternating SYCL and OpenCL, and OUTDIR/summary.txt gets the median of each (device time from
# profiling events: PoCL's and AdaptiveCpp's own clocks). SIZE / BITSIZE / GENS scale the boards.
set -u
if [ $# -ne 2 ]; then
  echo "usage: $0 BUILD_DIR OUTDIR" >&2
  exit 2
fi
B=$1
OUT=$2
mkdir -p "$OUT" || exit 1
: > "$OUT/summary.txt"
REPEATS=${REPEATS:-3}
SIZE=${SIZE:-2048x2048}
BITSIZE=${BITSIZE:-8192x8192}
GENS=${GENS:-50}
CPUS=${CPUS:-0-$(( $(nproc) - 1 ))}

field() { sed -n "s/.*\"$1\":\(\"[^\"]*\"\|[0-9.eE+-]*\).*/\1/p" | head -1 | tr -d '"'; }

# median NAME CMD...: runs the command REPEATS times; prints the median of ms_per_generation.
median() {
  local name=$1; shift
  local vals=() pop="" i
  for i in $(seq "$REPEATS"); do
    local out; out=$(taskset -c "$CPUS" "$@" 2> /dev/null | tr '{' '\n' | grep '"ms_per_generation"' | head -1)
    [ -n "$out" ] || { echo "$name: failed: $*" | tee -a "$OUT/summary.txt"; return; }
    vals+=("$(echo "$out" | field ms_per_generation)")
    pop=$(echo "$out" | field population)
  done
  local med; med=$(printf '%s\n' "${vals[@]}" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
  printf '%-34s %10s ms/gen (median of %s: %s)  population %s\n' "$name" "$med" "$REPEATS" "${vals[*]}" "$pop" \
    | tee -a "$OUT/summary.txt"
}

{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ), host $(uname -n), $(nproc) cores, cpus $CPUS, load $(cut -d' ' -f1-3 /proc/loadavg)"
  grep -m1 "model name" /proc/cpuinfo
} | tee -a "$OUT/summary.txt"
"$B/tilelife" devices > "$OUT/devices.txt" 2>&1

T="$B/tilelife"
S="$B/tilelife_sycl_bench"
for topo in torus plane; do
  echo "byte-per-cell, $SIZE $topo B3/S23, $GENS generations" | tee -a "$OUT/summary.txt"
  for pair in "hierarchical:local" "halo-tile:local" "halo-tile-strided:local-strided"; do
    sy=${pair%%:*} cl=${pair#*:}
    median "sycl:$sy" "$T" bench --backend sycl --kernel "$sy" --topology $topo --size "$SIZE" --gens "$GENS" --warmup 2 --json
    median "opencl:$cl" "$T" bench --backend opencl --kernel "$cl" --topology $topo --size "$SIZE" --gens "$GENS" --warmup 2 --json
  done
  median "opencl:naive" "$T" bench --backend opencl --kernel naive --topology $topo --size "$SIZE" --gens "$GENS" --warmup 2 --json
done
echo "the tutorial's tile: 16x16 cells (sycl:hierarchical 16x16, sycl:halo-tile and opencl:local 18x18), $SIZE torus" | tee -a "$OUT/summary.txt"
median "sycl:hierarchical 16x16" "$T" bench --backend sycl --kernel hierarchical --wg 16x16 --size "$SIZE" --gens "$GENS" --warmup 2 --json
median "sycl:halo-tile 18x18" "$T" bench --backend sycl --kernel halo-tile --wg 18x18 --size "$SIZE" --gens "$GENS" --warmup 2 --json
median "opencl:local 18x18" "$T" bench --backend opencl --kernel local --wg 18x18 --size "$SIZE" --gens "$GENS" --warmup 2 --json
echo "bit-packed, $BITSIZE torus B3/S23, $((4 * GENS)) generations" | tee -a "$OUT/summary.txt"
median "sycl:bitpacked" "$S" sycl:bitpacked --size "$BITSIZE" --gens $((4 * GENS)) --warmup 8
median "opencl:bitpacked" "$T" bench --backend opencl --kernel bitpacked --size "$BITSIZE" --gens $((4 * GENS)) --warmup 8 --json
echo "the tutorial's setup: 160x160 torus, 500 generations" | tee -a "$OUT/summary.txt"
median "sycl:hierarchical 16x16" "$T" bench --backend sycl --kernel hierarchical --wg 16x16 --size 160x160 --gens 500 --warmup 0 --json
median "sycl:halo-tile 18x18" "$T" bench --backend sycl --kernel halo-tile --wg 18x18 --size 160x160 --gens 500 --warmup 0 --json
median "opencl:local 18x18" "$T" bench --backend opencl --kernel local --wg 18x18 --size 160x160 --gens 500 --warmup 0 --json
echo "population(), median of 20 calls, $SIZE bytes / $BITSIZE bits" | tee -a "$OUT/summary.txt"
for p in sycl-reduction reduce-over-group tree; do
  for e in "sycl:halo-tile-strided $SIZE" "sycl:bitpacked $BITSIZE"; do
    set -- $e
    out=$(taskset -c "$CPUS" "$S" "$1" --size "$2" --gens 1 --warmup 0 --param reduction=$p --population-repeats 20 2> /dev/null)
    printf '%-34s %10s ms (min %s)\n' "$1 $p" "$(echo "$out" | field population_median_ms)" "$(echo "$out" | field population_min_ms)" \
      | tee -a "$OUT/summary.txt"
  done
done
