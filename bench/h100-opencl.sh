#!/usr/bin/env bash
# The OpenCL measurement matrix for docs/local-memory.md ("H100 (NVIDIA OpenCL)" section).
#   bench/h100-opencl.sh /path/to/tilelife OUTDIR
# Every configuration writes OUTDIR/<name>.txt (table) and OUTDIR/<name>.json; a failing or
# timed-out configuration is logged to OUTDIR/errors.log and the script goes on. OUTDIR/summary.txt
# collects all tables. About 4-5 minutes on an H100.
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
LIMIT=${LIMIT:-150}   # seconds per command; one stuck configuration must not eat the budget
START=$(date +%s)

log() { echo "[$(( $(date +%s) - START ))s] $*" | tee -a "$OUT/summary.txt" >&2; }

# run NAME [ENV=VALUE ...] -- ARGS...: text and JSON of one configuration.
run() {
  local name=$1; shift
  local envs=()
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do envs+=("$1"); shift; done
  shift
  log "$name: ${envs[*]:-} tilelife $*"
  for fmt in txt json; do
    local extra=()
    [ "$fmt" = json ] && extra=(--json)
    env ${envs[@]+"${envs[@]}"} timeout "$LIMIT" "$TL" "$@" "${extra[@]}" > "$OUT/$name.$fmt" 2> "$OUT/$name.$fmt.err"
    local rc=$?
    if [ $rc -ne 0 ]; then
      echo "$name ($fmt): exit $rc$([ $rc -eq 124 ] && echo ' (timed out)') - ${envs[*]:-} $* - $(tail -n 3 "$OUT/$name.$fmt.err" | tr '\n' ' ')" >> "$OUT/errors.log"
      log "  FAILED ($fmt), see errors.log"
    fi
    [ -s "$OUT/$name.$fmt.err" ] || rm -f "$OUT/$name.$fmt.err"
  done
  cat "$OUT/$name.txt" >> "$OUT/summary.txt" 2>/dev/null
  echo >> "$OUT/summary.txt"
}

{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "host: $(uname -n) $(uname -r)"
  timeout "$LIMIT" "$TL" --version 2>&1
  command -v nvidia-smi > /dev/null && nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv
} > "$OUT/environment.txt" 2>&1
cat "$OUT/environment.txt" >> "$OUT/summary.txt"

timeout "$LIMIT" "$TL" devices > "$OUT/devices.txt" 2>&1 || echo "devices: exit $?" >> "$OUT/errors.log"
timeout "$LIMIT" "$TL" devices --json > "$OUT/devices.json" 2>&1 || echo "devices --json: exit $?" >> "$OUT/errors.log"
cat "$OUT/devices.txt" >> "$OUT/summary.txt"

K=naive,halo-tile,halo-tile-strided
B=(bench --backend opencl)
# SMOKE=1 runs the same matrix on tiny boards (to check the script on a slow device).
if [ "${SMOKE:-0}" = 1 ]; then
  S1=64x64 S2=96x96 S3=128x128 S4=160x160 G1=20 G2=10 G3=5 G4=3 W=1
else
  S1=1024x1024 S2=4096x4096 S3=16384x16384 S4=32768x32768 G1=1000 G2=400 G3=200 G4=60 W=5
fi

# 1. The three kernels with their default work-groups at every size (gens scaled to size).
run size1024  -- "${B[@]}" --kernel $K --size $S1 --gens $G1 --warmup $((4 * W))
run size4096  -- "${B[@]}" --kernel $K --size $S2 --gens $G2 --warmup $((2 * W))
run size16384 -- "${B[@]}" --kernel $K --size $S3 --gens $G3 --warmup $W
run size32768 -- "${B[@]}" --kernel $K --size $S4 --gens $G4 --warmup $W
run plane16384 -- "${B[@]}" --kernel $K --size $S3 --gens $G3 --topology plane

# 2. Work-group shapes at 16384^2.
for wg in 16x16 32x8 64x4 128x2; do
  run naive-wg$wg -- "${B[@]}" --kernel naive --size $S3 --gens $G3 --wg $wg
done
for wg in 18x18 34x10 34x18 32x32; do
  run local-wg$wg -- "${B[@]}" --kernel halo-tile --size $S3 --gens $G3 --wg $wg
done
for wg in 16x8 32x4 32x8 32x16 64x4; do
  run strided-wg$wg -- "${B[@]}" --kernel halo-tile-strided --size $S3 --gens $G3 --wg $wg
done

# 3. Rows per work-item of halo-tile-strided, and where the rule table lives (naive keeps no local
#    memory, so it has no local copy of the table).
for rows in 4 8 16 32; do
  run strided-rows$rows -- "${B[@]}" --kernel halo-tile-strided --param rows=$rows --size $S3 --gens $G3
done
for rule in bits constant local; do
  kernels=$K
  [ "$rule" = local ] && kernels=halo-tile,halo-tile-strided
  run rule-$rule -- "${B[@]}" --kernel $kernels --param rule-storage=$rule --size $S3 --gens $G3
done

# 4. The seed's own setup, and a sweep of shapes.
run seed-setup -- "${B[@]}" --seed-setup
run autotune16384 -- "${B[@]}" --kernel $K --size $S3 --gens $((G3 / 4)) --autotune

log "done; $(grep -c . "$OUT/errors.log") error line(s) in $OUT/errors.log"
