#!/usr/bin/env bash
# opencl:bitpacked measurement matrix for docs/bitpacked-opencl.md ("H100" section).
#   bench/h100-bitpacked.sh /path/to/tilelife OUTDIR
# Each configuration runs `tilelife bench --backend opencl ... --json` once and keeps
# OUTDIR/<name>.json; OUTDIR/summary.txt has one line per configuration (T cell-updates/s, the work-group,
# rows per work-item, steps per launch) and OUTDIR/errors.log the configurations that failed or timed
# out (the script goes on). About 5 minutes on an H100; most of it is preparing 65536^2 boards on the host.
# LIMIT=seconds per configuration (default 90); SMOKE=1 runs the same matrix on small boards;
# ONLY=activity runs only section 6 (activity tracking: dense and settled boards, tracking on/off).
set -u

if [ $# -ne 2 ]; then
  echo "usage: $0 /path/to/tilelife OUTDIR" >&2
  exit 2
fi
TL=$1
OUT=$2
if [ ! -x "$TL" ]; then
  echo "$0: $TL is not an executable tilelife binary" >&2
  exit 2
fi
mkdir -p "$OUT" || exit 1
: > "$OUT/errors.log"
: > "$OUT/summary.txt"
LIMIT=${LIMIT:-90}
START=$(date +%s)

if [ "${SMOKE:-0}" = 1 ]; then
  S16=512x512 S32=1024x1024 S64=2048x2048 SEAM=2049x2048 G=16 W=2 SETTLE=2000 GLIDER_GENS=600
else
  S16=16384x16384 S32=32768x32768 S64=65536x65536 SEAM=65537x65536 G=256 W=16 SETTLE=20000 GLIDER_GENS=12000
fi

# The activity parameter's word for ACT=0|on|auto.
activity_word() { if [ "$1" = 0 ]; then echo off; else echo "$1"; fi; }

# A JSON field of the first result ("" when absent).
field() { sed -n "s/.*\"$1\":\(\"[^\"]*\"\|[0-9.eE+-]*\).*/\1/p" "$2" | head -1 | tr -d '"'; }
# The work-group the first result's engine chose, WxH (docs/json.md: engine.work_group).
work_group() { sed -n 's/.*"work_group":{"width":\([0-9]*\),"height":\([0-9]*\)}.*/\1x\2/p' "$1" | head -1; }

# bench NAME SIZE ROWS K [ARGS...]: ROWS = --param rows (0: the engine's default),
# K = --steps-per-launch (0: the engine's default). ACT=0|on|auto sets --param activity (0: off);
# GENS / WARM override the generations timed / run before timing.
bench() {
  local name=$1 size=$2 rows=$3 k=$4
  shift 4
  local args=(bench --backend opencl --size "$size" --gens "${GENS:-$G}" --warmup "${WARM:-$W}" --json "$@")
  [ "$k" != 0 ] && args+=(--steps-per-launch "$k")
  [ "$rows" != 0 ] && args+=(--param "rows=$rows")
  [ -n "${ACT:-}" ] && args+=(--param "activity=$(activity_word "$ACT")")
  local t0=$(date +%s)
  timeout "$LIMIT" "$TL" "${args[@]}" > "$OUT/$name.json" 2> "$OUT/$name.err"
  local rc=$?
  local secs=$(( $(date +%s) - t0 ))
  if [ $rc -ne 0 ] || grep -q '"error":"' "$OUT/$name.json"; then
    echo "$name: exit $rc$([ $rc -eq 124 ] && echo ' (timed out)') - tilelife ${args[*]} - $(tail -n 2 "$OUT/$name.err" "$OUT/$name.json" | tr '\n' ' ' | cut -c1-400)" >> "$OUT/errors.log"
    printf '%-26s FAILED (see errors.log)\n' "$name" | tee -a "$OUT/summary.txt"
  else
    local ups=$(field cell_updates_per_second "$OUT/$name.json")
    printf '%-26s %-22s %8s T/s %10s ms/gen  wg %-6s rows %-3s K %-3s %s  (%ss)\n' "$name" "$(field name "$OUT/$name.json")" \
      "$(awk -v u="$ups" 'BEGIN { printf "%.3f", u / 1e12 }')" "$(field ms_per_generation "$OUT/$name.json")" "$(work_group "$OUT/$name.json")" \
      "${rows/#0/def}" "${k/#0/def}" "$*" "$secs" | tee -a "$OUT/summary.txt"
  fi
  [ -s "$OUT/$name.err" ] || rm -f "$OUT/$name.err"
}

{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "host: $(uname -n) $(uname -r)"
  command -v nvidia-smi > /dev/null && nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv
  timeout "$LIMIT" "$TL" devices 2>&1
} > "$OUT/environment.txt" 2>&1
cat "$OUT/environment.txt" >> "$OUT/summary.txt"
echo "ceilings: single-step memory roofline 12 T/s (3.0 TB/s / 0.25 byte per cell update); integer logic ~20-35 T/s" >> "$OUT/summary.txt"
echo "columns: name, engine, T cell-updates/s (profiling events, kernels only), work-group, rows/item, steps/launch, extra args" >> "$OUT/summary.txt"

# runrate NAME ACT ARGS...: `tilelife run --json` (wall clock of the steps, population read at the end).
runrate() {
  local name=$1 act=$2
  shift 2
  local t0=$(date +%s)
  timeout "$LIMIT" "$TL" run "$@" --backend opencl --kernel bitpacked --param "activity=$(activity_word "$act")" --json \
    > "$OUT/$name.json" 2> "$OUT/$name.err"
  local rc=$? secs=$(( $(date +%s) - t0 ))
  if [ $rc -ne 0 ]; then
    echo "$name: exit $rc - tilelife run $* - $(tail -n 2 "$OUT/$name.err" | tr '\n' ' ' | cut -c1-400)" >> "$OUT/errors.log"
    printf '%-26s FAILED (see errors.log)\n' "$name" | tee -a "$OUT/summary.txt"
  else
    local s=$(field seconds "$OUT/$name.json") g=$(field generations_run "$OUT/$name.json")
    printf '%-26s activity %-4s %10s s  %s  (%ss)\n' "$name" "$act" "$s" "$*" "$secs" | tee -a "$OUT/summary.txt"
  fi
  [ -s "$OUT/$name.err" ] || rm -f "$OUT/$name.err"
}

# 6. Activity tracking (--param activity): the dense case must not lose more than 5%, a settled
#    board must cost close to nothing. Dense: a random 65536^2 torus (always on, automatic, off).
#    Settled: a 16384^2 soup after SETTLE generations (plane: escaping gliders leave; torus: they
#    circle), and one glider on an empty 65536^2 plane.
activity() {
  for act in 0 on auto; do ACT=$act GENS=$((4 * G)) bench act$act-dense-65536 "$S64" 0 0 --kernel bitpacked; done
  for topo in plane torus; do
    for act in 0 auto; do
      ACT=$act WARM=$SETTLE GENS=$((4 * G)) bench act$act-settled-$topo-16384 "$S16" 0 0 --kernel bitpacked --topology $topo
    done
  done
  for act in 0 auto; do
    runrate act$act-glider-plane-65536 $act patterns/glider.rle --size "$S64" --topology plane --gens "$GLIDER_GENS"
  done
}
if [ "${ONLY:-}" = activity ]; then
  activity
  echo "total $(( $(date +%s) - START ))s" | tee -a "$OUT/summary.txt"
  exit 0
fi

# 1. Default shape at the three sizes, B3/S23 torus (the target: 65536^2 >= 20 T/s).
bench default-16384 "$S16" 0 0 --kernel bitpacked
bench default-32768 "$S32" 0 0 --kernel bitpacked
bench default-65536 "$S64" 0 0 --kernel bitpacked

# 2. Generations per launch at 65536^2 (K=1 is the single-step bit-packed kernel).
for k in 1 2 4 8 12 16 24 32; do bench k$k-65536 "$S64" 0 "$k" --kernel bitpacked; done

# 3. Tile shapes at 32768^2: --wg LWxS (LW words per local row incl. 2 halo words, S strips), rows per item.
for cfg in 32x8:32:12 32x8:32:16 32x8:16:8 32x8:16:12 32x4:32:12 16x16:32:12 16x16:16:8 64x4:32:12 64x4:16:8 \
           32x2:32:8 8x32:16:8; do
  IFS=: read -r wg rows k <<< "$cfg"
  bench "wg$wg-r$rows-k$k" "$S32" "$rows" "$k" --kernel bitpacked --wg "$wg"
done

# 4. Comparisons at 32768^2: the byte-per-cell single-step kernel, plane topology, a generic rule.
bench strided-32768 "$S32" 0 0 --kernel halo-tile-strided
bench plane-32768 "$S32" 0 0 --kernel bitpacked --topology plane
bench b36s23-32768 "$S32" 0 0 --kernel bitpacked --rule B36/S23
bench b3678-32768 "$S32" 0 0 --kernel bitpacked --rule B3678/S34678
# 5. A width that is not a multiple of 32 (torus seam inside a word) and a large plane.
bench seam-65537 "$SEAM" 0 0 --kernel bitpacked
bench plane-65536 "$S64" 0 0 --kernel bitpacked --topology plane
activity

echo "total $(( $(date +%s) - START ))s" | tee -a "$OUT/summary.txt"
