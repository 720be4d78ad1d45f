#!/usr/bin/env bash
# The SYCL engines beside their OpenCL twins on one GPU, in one run (docs/sycl.md, "H100").
#   bench/h100-sycl.sh SYCL_DIR OPENCL_TILELIFE OUTDIR
# SYCL_DIR: bin/tilelife, bin/tilelife_sycl_bench and bin/sycl_tests built with AdaptiveCpp for the
# GPU (ACPP_TARGETS="omp;cuda:sm_90"), lib/ with the AdaptiveCpp runtime they load (put first on
# LD_LIBRARY_PATH). OPENCL_TILELIFE: a tilelife built with OpenCL (the opencl:* twins).
# Sections, in this order (ONLY=a,b,... to run some): check (devices, the SYCL test suite on the GPU),
# bytes (byte-per-cell kernels at 16384^2), seed (the
# tutorial's 160x160 setup), bitpacked (65536^2 and variants), population (the three reduction paths),
# ptx (opencl:bitpacked's kernel as NVIDIA's OpenCL compiles it, for SASS beside sycl:bitpacked's;
# needs CL_KERNELS=the .cl directory, and OpenCL headers/library under CL_PREFIX, default /opt/ocl/usr),
# sanitize (compute-sanitizer racecheck of every kernel, when installed).
# Every command's output is kept in OUTDIR; OUTDIR/summary.txt has one line per measurement and
# OUTDIR/errors.log what failed (the script goes on). LIMIT=seconds per command (default 150);
# SMOKE=1 runs the same commands on small boards (to check the script on a CPU).
set -u

if [ $# -ne 3 ]; then
  echo "usage: $0 SYCL_DIR OPENCL_TILELIFE OUTDIR" >&2
  exit 2
fi
SY=$1
CL=$2
OUT=$3
mkdir -p "$OUT" || exit 1
: > "$OUT/errors.log"
LIMIT=${LIMIT:-150}
ONLY=${ONLY:-check,sanitize,bytes,seed,bitpacked,population,ptx}
START=$(date +%s)
export LD_LIBRARY_PATH="$SY/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
TS="$SY/bin/tilelife"
TB="$SY/bin/tilelife_sycl_bench"

log() { echo "[$(( $(date +%s) - START ))s] $*" | tee -a "$OUT/summary.txt" >&2; }
want() { case ",$ONLY," in *",$1,"*) return 0;; *) return 1;; esac; }
# AFTER_SECTION: a command run after each section (e.g. to copy results somewhere safe).
after() { [ -n "${AFTER_SECTION:-}" ] && eval "$AFTER_SECTION"; return 0; }

# A JSON field of the first match ("" when absent).
field() { sed -n "s/.*\"$1\":\(\"[^\"]*\"\|[0-9.eE+-]*\).*/\1/p" "$2" | head -1 | tr -d '"'; }

# run NAME CMD...: the command's stdout in NAME.out, stderr in NAME.err.
run() {
  local name=$1; shift
  local t0=$(date +%s)
  timeout "$LIMIT" "$@" > "$OUT/$name.out" 2> "$OUT/$name.err"
  local rc=$?
  if [ $rc -ne 0 ]; then
    echo "$name: exit $rc$([ $rc -eq 124 ] && echo ' (timed out)') - $* - $(tail -n 3 "$OUT/$name.err" "$OUT/$name.out" | tr '\n' ' ' | cut -c1-600)" >> "$OUT/errors.log"
    log "$name FAILED (exit $rc, $(( $(date +%s) - t0 ))s)"
  else
    log "$name ok ($(( $(date +%s) - t0 ))s)"
  fi
  [ -s "$OUT/$name.err" ] || rm -f "$OUT/$name.err"
  return $rc
}

# One line per result of a `tilelife bench --json` or tilelife_sycl_bench output.
summarise() {
  local name=$1
  sed 's/{"engine"/\n{"engine"/g' "$OUT/$name.out" | grep '^{"engine"' | while read -r r; do
    local f; f=$(mktemp); echo "$r" > "$f"
    printf '  %-24s %-8s %12s ms/gen %10s G/s  K %-3s pop %-12s %s\n' "$(field engine "$f")" "$(field wg "$f")" \
      "$(field ms_per_generation "$f")" "$(awk -v u="$(field cell_updates_per_second "$f")" 'BEGIN { printf "%.1f", u / 1e9 }')" \
      "$(field steps_per_launch "$f")" "$(field population "$f")" "$(grep -o '"params":{[^}]*}' "$f")$(grep -o '"error":"[^"]*"' "$f")" \
      | tee -a "$OUT/summary.txt"
    rm -f "$f"
  done
}

{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "host: $(uname -n) $(uname -r)"
  command -v nvidia-smi > /dev/null && nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv
} > "$OUT/environment.txt" 2>&1
cat "$OUT/environment.txt" >> "$OUT/summary.txt"

if want check; then
  run devices-sycl "$TS" devices --backend sycl
  cat "$OUT/devices-sycl.out" >> "$OUT/summary.txt"
  run devices-opencl "$CL" devices
  # The whole SYCL suite on the GPU (the default device); the CLI test needs the build tree's paths.
  LIMIT=300 run sycl-tests "$SY/bin/sycl_tests" --gtest_filter=-*Cli*
  grep -E "^\[  (PASSED|FAILED) |tests? from .* ran" "$OUT/sycl-tests.out" | tee -a "$OUT/summary.txt"
fi
after


B16=16384x16384
[ "${SMOKE:-0}" = 1 ] && B16=256x256
if want bytes; then
  log "byte-per-cell kernels, $B16 torus B3/S23, 200 generations (profiling events, kernels only)"
  run bytes-opencl "$CL" bench --backend opencl --kernel naive,local,local-strided --size $B16 --gens 200 --warmup 5 --json
  summarise bytes-opencl
  run bytes-sycl "$TS" bench --backend sycl --kernel hierarchical,halo-tile,halo-tile-strided --size $B16 --gens 200 --warmup 5 --json
  summarise bytes-sycl
  for r in 8 32; do
    run strided-sycl-r$r "$TB" sycl:halo-tile-strided --size $B16 --gens 200 --warmup 5 --param rows=$r
    summarise strided-sycl-r$r
  done
  log "the same 16x16 tile three ways: hierarchical (16x16 group), nd_range halo tile (18x18 group), OpenCL halo tile"
  run tile16-sycl-hier "$TS" bench --backend sycl --kernel hierarchical --wg 16x16 --size $B16 --gens 200 --warmup 5 --json
  summarise tile16-sycl-hier
  run tile16-sycl-nd "$TS" bench --backend sycl --kernel halo-tile --wg 18x18 --size $B16 --gens 200 --warmup 5 --json
  summarise tile16-sycl-nd
  run tile16-opencl "$CL" bench --backend opencl --kernel local --wg 18x18 --size $B16 --gens 200 --warmup 5 --json ||
    run tile14-opencl "$CL" bench --backend opencl --kernel local --wg 16x16 --size $B16 --gens 200 --warmup 5 --json
  summarise tile16-opencl 2>/dev/null; summarise tile14-opencl 2>/dev/null
  run tile32-sycl "$TS" bench --backend sycl --kernel hierarchical,halo-tile --wg 32x32 --size $B16 --gens 200 --warmup 5 --json
  summarise tile32-sycl
  log "plane"
  run plane-opencl "$CL" bench --backend opencl --kernel local,local-strided --topology plane --size $B16 --gens 200 --warmup 5 --json
  summarise plane-opencl
  run plane-sycl "$TS" bench --backend sycl --kernel hierarchical,halo-tile,halo-tile-strided --topology plane --size $B16 --gens 200 --warmup 5 --json
  summarise plane-sycl
fi
after

if want seed; then
  log "the tutorial's setup: 160x160, 500 generations, GROUPSIZE 16 (kernels = profiling events; wall = the 500 steps)"
  run seed-opencl "$CL" bench --backend opencl --seed-setup --json
  grep -o '"seed_setup":{[^}]*}' "$OUT/seed-opencl.out" | tee -a "$OUT/summary.txt"
  run seed-sycl "$TS" bench --backend sycl --seed-setup --json
  grep -o '"seed_setup":{[^}]*}' "$OUT/seed-sycl.out" | tee -a "$OUT/summary.txt"
  run seed-sycl-bitpacked "$TB" sycl:bitpacked --size 160x160 --gens 500 --warmup 0
  summarise seed-sycl-bitpacked
  run seed-opencl-bitpacked "$CL" bench --backend opencl --kernel bitpacked --size 160x160 --gens 500 --warmup 0 --json
  summarise seed-opencl-bitpacked
fi
after

B64=65536x65536
B32=32768x32768
[ "${SMOKE:-0}" = 1 ] && B64=1024x1024 && B32=512x512
if want bitpacked; then
  log "bit-packed, $B64 torus B3/S23, 256 generations after 16"
  run bp-opencl "$CL" bench --backend opencl --kernel bitpacked --size $B64 --gens 256 --warmup 16 --json
  summarise bp-opencl
  TILELIFE_OPENCL_ACTIVITY=0 run bp-opencl-noact "$CL" bench --backend opencl --kernel bitpacked --size $B64 --gens 256 --warmup 16 --json
  summarise bp-opencl-noact
  run bp-sycl "$TB" sycl:bitpacked --size $B64 --gens 256 --warmup 16
  summarise bp-sycl
  run bp-sycl-local "$TB" sycl:bitpacked --size $B64 --gens 256 --warmup 16 --param neighbours=local-memory
  summarise bp-sycl-local
  for k in 8 16 24; do
    run bp-sycl-k$k "$TB" sycl:bitpacked --size $B64 --gens 256 --warmup 16 --steps-per-launch $k
    summarise bp-sycl-k$k
  done
  run bp-sycl-local-k16 "$TB" sycl:bitpacked --size $B64 --gens 256 --warmup 16 --steps-per-launch 16 --param neighbours=local-memory
  summarise bp-sycl-local-k16
  run bp-sycl-r16 "$TB" sycl:bitpacked --size $B64 --gens 256 --warmup 16 --wg 32x16 --param rows=16
  summarise bp-sycl-r16
  log "generic rule (run-time masks in SYCL, compile-time constants in OpenCL) and the plane, $B32"
  run b36-opencl "$CL" bench --backend opencl --kernel bitpacked --rule B36/S23 --size $B32 --gens 256 --warmup 16 --json
  summarise b36-opencl
  run b36-sycl "$TB" sycl:bitpacked --rule B36/S23 --size $B32 --gens 256 --warmup 16
  summarise b36-sycl
  run plane-bp-opencl "$CL" bench --backend opencl --kernel bitpacked --topology plane --size $B32 --gens 256 --warmup 16 --json
  summarise plane-bp-opencl
  run plane-bp-sycl "$TB" sycl:bitpacked --topology plane --size $B32 --gens 256 --warmup 16
  summarise plane-bp-sycl
fi
after

if want population; then
  log "population(): the three paths (wall clock of the call, median of 20, 8-byte result read back included)"
  for p in sycl-reduction reduce-over-group tree; do
    run pop-bytes-$p "$TB" sycl:halo-tile-strided --size $B16 --gens 1 --warmup 0 --param reduction=$p --population-repeats 20
    run pop-bits-$p "$TB" sycl:bitpacked --size $B64 --gens 1 --warmup 0 --param reduction=$p --population-repeats 20
    for f in pop-bytes-$p pop-bits-$p; do
      printf '  %-22s median %8s ms  min %8s ms  population %s\n' "$f" "$(field population_median_ms "$OUT/$f.out")" \
        "$(field population_min_ms "$OUT/$f.out")" "$(field population "$OUT/$f.out")" | tee -a "$OUT/summary.txt"
    done
  done
fi
after

if want ptx; then
  # Register use and SASS of the SYCL kernels as built (cuobjdump reads the fatbins in the binary).
  if command -v cuobjdump > /dev/null; then
    run sass-usage-sycl cuobjdump --dump-resource-usage "$TS"
    run sass-sycl cuobjdump --dump-sass "$TS"
    gzip -f "$OUT/sass-sycl.out"
  fi
fi
after
if want ptx && [ -n "${CL_KERNELS:-}" ]; then
  P=${CL_PREFIX:-/opt/ocl/usr}
  if cc -O2 "$(dirname "$0")/opencl_ptx.c" -I"$P/include" -L"$P/lib/x86_64-linux-gnu" -lOpenCL -o "$OUT/opencl_ptx" 2> "$OUT/opencl_ptx.build.err"; then
    run ptx-opencl-bitpacked "$OUT/opencl_ptx" "-DTORUS=1 -DLW=32 -DROWS=32 -DBIRTH=0x8u -DSURVIVAL=0xcu -DLIFE=1" \
      "$CL_KERNELS/bitpacked_time_tile.cl" "$CL_KERNELS/active_tile_list.cl"
    rm -f "$OUT/opencl_ptx"
    if command -v ptxas > /dev/null && command -v cuobjdump > /dev/null; then
      run ptxas-opencl-bitpacked ptxas -arch=sm_90 -v "$OUT/ptx-opencl-bitpacked.out" -o "$OUT/opencl-bitpacked.cubin"
      run sass-opencl-bitpacked cuobjdump --dump-sass "$OUT/opencl-bitpacked.cubin"
      cat "$OUT/ptxas-opencl-bitpacked.err" >> "$OUT/ptxas-opencl-bitpacked.out" 2>/dev/null
    fi
  else
    log "ptx: cannot build opencl_ptx (see opencl_ptx.build.err)"
  fi
fi
after

if want sanitize; then
  CS=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
  if [ -n "$CS" ]; then
    for k in hierarchical halo-tile halo-tile-strided bitpacked; do
      run race-$k "$CS" --tool racecheck --error-exitcode 3 "$TS" bench --backend sycl --kernel $k --size 300x200 --gens 4 --warmup 1
    done
    run race-bitpacked-local "$CS" --tool racecheck --error-exitcode 3 "$TB" sycl:bitpacked --size 3000x300 --gens 7 --warmup 1 --param neighbours=local-memory
    run race-population-tree "$CS" --tool racecheck --error-exitcode 3 "$TB" sycl:halo-tile --size 2000x300 --gens 1 --warmup 0 --param reduction=tree --population-repeats 1
    run race-population-group "$CS" --tool racecheck --error-exitcode 3 "$TB" sycl:halo-tile --size 2000x300 --gens 1 --warmup 0 --param reduction=reduce-over-group --population-repeats 1
    grep -h "RACECHECK SUMMARY\|ERROR SUMMARY" "$OUT"/race-*.out | sort | uniq -c | tee -a "$OUT/summary.txt"
  else
    log "sanitize: no compute-sanitizer on this machine"
  fi
fi
after

log "done; $(grep -c . "$OUT/errors.log") error line(s) in errors.log"
