#!/usr/bin/env bash
# The SYCL engines on the CPU (AdaptiveCpp's omp target) beside their OpenCL twins on PoCL, in one
# run (docs/sycl.md, "CPU"). Both from one build that has OpenCL and SYCL:
#   bench/cpu-sycl.sh BUILD_DIR OUTDIR
# BUILD_DIR holds tilelife and tilelife_sycl_bench (a build tree: bench/tilelife_sycl_bench). Each configuration runs PROCS times as a process
# of its own (default 3), alternating SYCL and OpenCL, each process timing REPEATS chunks (default 3)
# and reporting its median chunk; OUTDIR/summary.txt gets the median of the processes' figures (device
# time from profiling events: PoCL's and AdaptiveCpp's own clocks) and all of them. Pinned with
# taskset to CPUS (default: every core). SIZE / BITSIZE / GENS scale the boards.
set -u
if [ $# -ne 2 ]; then
  echo "usage: $0 BUILD_DIR OUTDIR" >&2
  exit 2
fi
BD=$1
OUT=$2
mkdir -p "$OUT" || exit 1
: > "$OUT/summary.txt"
PROCS=${PROCS:-3}
REPEATS=${REPEATS:-3}
SIZE=${SIZE:-2048x2048}
BITSIZE=${BITSIZE:-8192x8192}
GENS=${GENS:-20}
CPUS=${CPUS:-0-$(( $(nproc) - 1 ))}
S="$BD/tilelife_sycl_bench"
[ -x "$S" ] || S="$BD/bench/tilelife_sycl_bench"  # a build tree
[ -x "$S" ] || { echo "$0: no tilelife_sycl_bench in $BD or $BD/bench" >&2; exit 2; }

field() { sed -n "s/.*\"$1\":\(\"[^\"]*\"\|[0-9.eE+-]*\).*/\1/p" | head -1 | tr -d '"'; }

# pair LABEL "SYCL ARGS" "OPENCL ARGS": both configurations PROCS times, alternating; one line each.
pair() {
  local label=$1 sy=$2 cl=$3 i
  local sv=() cv=() sp="" cp="" o
  for i in $(seq "$PROCS"); do
    o=$(taskset -c "$CPUS" $S $sy --repeats "$REPEATS" 2> /dev/null)
    sv+=("$(echo "$o" | field ms_per_generation)"); sp=$(echo "$o" | field population)
    o=$(taskset -c "$CPUS" $S $cl --repeats "$REPEATS" 2> /dev/null)
    cv+=("$(echo "$o" | field ms_per_generation)"); cp=$(echo "$o" | field population)
  done
  local sm cm
  sm=$(printf '%s\n' "${sv[@]}" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
  cm=$(printf '%s\n' "${cv[@]}" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
  printf '%-44s SYCL %10s ms/gen  OpenCL %10s ms/gen  SYCL/OpenCL time %s  (SYCL %s; OpenCL %s) pop %s/%s\n' "$label" \
    "$sm" "$cm" "$(awk -v a="$sm" -v b="$cm" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }')" \
    "${sv[*]}" "${cv[*]}" "$sp" "$cp" | tee -a "$OUT/summary.txt"
}

{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ), host $(uname -n), $(nproc) cores, cpus $CPUS, load $(cut -d' ' -f1-3 /proc/loadavg)"
  grep -m1 "model name" /proc/cpuinfo
  echo "each figure: median of $PROCS processes, each the median of $REPEATS chunks of the generations named"
} | tee -a "$OUT/summary.txt"
"$BD/tilelife" devices > "$OUT/devices.txt" 2>&1  # every backend's devices

for topo in torus plane; do
  a="--size $SIZE --topology $topo --gens $GENS --warmup 2"
  echo "byte-per-cell, $SIZE $topo B3/S23, $GENS generations per chunk" | tee -a "$OUT/summary.txt"
  pair "sycl:halo-tile | opencl:halo-tile (16x16)" "sycl:halo-tile $a --wg 16x16" "opencl:halo-tile $a --wg 16x16"
  pair "sycl:halo-tile-strided | opencl:halo-tile-strided" "sycl:halo-tile-strided $a" "opencl:halo-tile-strided $a"
  pair "sycl:hierarchical 16x16 | opencl:naive 16x16" "sycl:hierarchical $a --wg 16x16" "opencl:naive $a --wg 16x16"
done
echo "hierarchical vs nd_range, the tutorial's 16x16 tile, $SIZE torus" | tee -a "$OUT/summary.txt"
a="--size $SIZE --gens $GENS --warmup 2"
pair "sycl:hierarchical 16x16 | sycl:halo-tile 18x18" "sycl:hierarchical $a --wg 16x16" "sycl:halo-tile $a --wg 18x18"
echo "bit-packed, $BITSIZE torus, $((4 * GENS)) generations per chunk" | tee -a "$OUT/summary.txt"
a="--size $BITSIZE --gens $((4 * GENS)) --warmup 8"
pair "sycl:bitpacked | opencl:bitpacked (activity off)" "sycl:bitpacked $a" "opencl:bitpacked $a --param activity=off"
pair "sycl:bitpacked | opencl:bitpacked (default)" "sycl:bitpacked $a" "opencl:bitpacked $a"
pair "B36/S23: sycl:bitpacked | opencl:bitpacked" "sycl:bitpacked $a --rule B36/S23" "opencl:bitpacked $a --rule B36/S23 --param activity=off"
echo "the tutorial's setup: 160x160 torus, 500 generations (kernels alone; whole runs in the JSON)" | tee -a "$OUT/summary.txt"
a="--size 160x160 --gens 500 --warmup 0"
pair "sycl:hierarchical 16x16 | opencl:naive 16x16" "sycl:hierarchical $a --wg 16x16" "opencl:naive $a --wg 16x16"
pair "sycl:halo-tile 18x18 | opencl:halo-tile 18x18" "sycl:halo-tile $a --wg 18x18" "opencl:halo-tile $a --wg 18x18"
for e in "sycl:hierarchical --wg 16x16" "sycl:halo-tile --wg 18x18" "opencl:naive --wg 16x16" "opencl:halo-tile --wg 18x18"; do
  o=$(taskset -c "$CPUS" $S $e $a --repeats "$REPEATS" --whole-run 2> /dev/null)
  printf '%-44s whole run (write, 500 generations, read) median %s us\n' "$e" "$(echo "$o" | field whole_run_us)" | tee -a "$OUT/summary.txt"
done
echo "population(), median of 20 calls, $SIZE bytes / $BITSIZE bits" | tee -a "$OUT/summary.txt"
for p in sycl-reduction reduce-over-group tree; do
  for e in "sycl:halo-tile-strided $SIZE" "sycl:bitpacked $BITSIZE"; do
    set -- $e
    o=$(taskset -c "$CPUS" "$S" "$1" --size "$2" --gens 1 --warmup 0 --param reduction=$p --population-repeats 20 2> /dev/null)
    printf '%-44s %10s ms (min %s)\n' "$1 $p" "$(echo "$o" | field population_median_ms)" "$(echo "$o" | field population_min_ms)" \
      | tee -a "$OUT/summary.txt"
  done
done
