#!/usr/bin/env bash
# The SYCL engines beside their OpenCL twins on one GPU, in one run (docs/sycl.md, "H100").
#   bench/h100-sycl.sh BIN_DIR OUTDIR
# BIN_DIR: tilelife, tilelife_sycl_bench and sycl_tests from ONE build that has both backends
# (OpenCL, and AdaptiveCpp with ACPP_TARGETS="omp;cuda:sm_90"), so both engines of a pair run from the
# same binary on the same random board (tilelife_sycl_bench makes `tilelife bench`'s board). The caller
# puts the AdaptiveCpp runtime and an OpenCL ICD loader on LD_LIBRARY_PATH. Optional: CL_KERNELS (the
# .cl directory) and OPENCL_PTX (bench/opencl_ptx.c built) for opencl:bitpacked's PTX and SASS;
# cuobjdump, ptxas and compute-sanitizer are used when installed.
# Sections (ONLY=a,b,... to run some): check (devices, the SYCL test suite on the GPU), bytes
# (byte-per-cell kernels at 16384^2), seed (the tutorial's 160x160 setup, whole runs), bitpacked
# (65536^2), population (the three reduction paths), ptx (register use and SASS of both), sanitize
# (compute-sanitizer racecheck).
# Every figure is the median of REPEATS (default 5) consecutive timed chunks in one process (kernel
# time from profiling events). Every command's output is kept in OUTDIR; OUTDIR/summary.txt has one
# line per measurement, OUTDIR/errors.log what failed (the script goes on). LIMIT = seconds per
# command (default 150); SMOKE=1 runs the same commands on small boards (to check the script on a CPU).
set -u

if [ $# -ne 2 ]; then
  echo "usage: $0 BIN_DIR OUTDIR" >&2
  exit 2
fi
BIN=$1
OUT=$2
mkdir -p "$OUT" || exit 1
: > "$OUT/errors.log"
LIMIT=${LIMIT:-150}
REPEATS=${REPEATS:-5}
ONLY=${ONLY:-check,bytes,seed,bitpacked,population,ptx,sanitize}
START=$(date +%s)
T="$BIN/tilelife"
B="$BIN/tilelife_sycl_bench"

log() { echo "[$(( $(date +%s) - START ))s] $*" | tee -a "$OUT/summary.txt" >&2; }
want() { case ",$ONLY," in *",$1,"*) return 0;; *) return 1;; esac; }
# AFTER_SECTION: a command run after each section (e.g. to copy results somewhere safe).
after() { [ -n "${AFTER_SECTION:-}" ] && eval "$AFTER_SECTION"; return 0; }

# A JSON field of the first match ("" when absent).
field() { sed -n "s/.*\"$1\":\(\"[^\"]*\"\|\[[^]]*\]\|[0-9.eE+-]*\).*/\1/p" "$2" | head -1 | tr -d '"'; }

# run NAME CMD...: the command's stdout in NAME.out, stderr in NAME.err.
run() {
  local name=$1; shift
  local t0=$(date +%s)
  timeout "$LIMIT" "$@" > "$OUT/$name.out" 2> "$OUT/$name.err"
  local rc=$?
  if [ $rc -ne 0 ]; then
    echo "$name: exit $rc$([ $rc -eq 124 ] && echo ' (timed out)') - $* - $(tail -n 3 "$OUT/$name.err" "$OUT/$name.out" | tr '\n' ' ' | cut -c1-600)" >> "$OUT/errors.log"
    log "$name FAILED (exit $rc, $(( $(date +%s) - t0 ))s)"
  fi
  [ -s "$OUT/$name.err" ] || rm -f "$OUT/$name.err"
  return $rc
}

# bench NAME ENGINE ARGS...: one tilelife_sycl_bench configuration, one summary line.
bench() {
  local name=$1; shift
  run "$name" "$B" "$@" --repeats "$REPEATS"
  local f="$OUT/$name.out"
  if grep -q '"error"' "$f"; then
    printf '  %-30s %s\n' "$name" "$(field error "$f")" | tee -a "$OUT/summary.txt"
    return
  fi
  printf '  %-30s %-22s wg %-6s %11s ms/gen %9s G/s  pop %-11s %s%s\n' "$name" "$(field engine "$f")" "$(field wg "$f")" \
    "$(field ms_per_generation "$f")" "$(awk -v u="$(field cell_updates_per_second "$f")" 'BEGIN { printf "%.1f", u / 1e9 }')" \
    "$(field population "$f")" "$(grep -o '"params":{[^}]*}' "$f" | sed 's/"params"://; s/^{}$//')" \
    "$(grep -q whole_run_us "$f" && echo " whole run $(field whole_run_us "$f") us (write $(field whole_write_us "$f"), read $(field whole_read_us "$f"))")" \
    | tee -a "$OUT/summary.txt"
}

{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "host: $(uname -n) $(uname -r), $(nproc) cores"
  command -v nvidia-smi > /dev/null && nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv
  echo "repeats per figure: $REPEATS (median)"
} > "$OUT/environment.txt" 2>&1
cat "$OUT/environment.txt" >> "$OUT/summary.txt"

if want check; then
  run devices "$T" devices && cat "$OUT/devices.out" >> "$OUT/summary.txt"  # every backend's devices
  run engines "$T" engines
  # --device N picks a SYCL device by its index under `backend sycl:` in `devices` (1: the GPU, 0: the host).
  for d in 0 1; do
    run device-$d "$T" bench --backend sycl --device $d --kernel bitpacked --size 1000x1000 --gens 20 --warmup 0 --json &&
      echo "  --device $d: $(field device "$OUT/device-$d.out") population $(field population "$OUT/device-$d.out")" | tee -a "$OUT/summary.txt"
  done
  # The whole SYCL suite on the GPU (the runtime's default device); the CLI case needs the build tree.
  LIMIT=300 run sycl-tests "$BIN/sycl_tests" --gtest_filter=-*Cli*
  grep -E "^\[  (PASSED|FAILED) |tests? from .* ran|^\[  FAILED" "$OUT/sycl-tests.out" | tee -a "$OUT/summary.txt"
  log "check done"
fi
after

S16=16384x16384
[ "${SMOKE:-0}" = 1 ] && S16=256x256
if want bytes; then
  for topo in torus plane; do
    log "byte-per-cell kernels, $S16 $topo B3/S23, $REPEATS x 100 generations after 5"
    a=(--size $S16 --topology $topo --gens 100 --warmup 5)
    bench bytes-$topo-ocl-naive opencl:naive "${a[@]}"
    bench bytes-$topo-ocl-halo opencl:halo-tile "${a[@]}"
    bench bytes-$topo-sycl-halo sycl:halo-tile "${a[@]}"
    bench bytes-$topo-sycl-halo-16 sycl:halo-tile "${a[@]}" --wg 16x16
    bench bytes-$topo-sycl-halo-18 sycl:halo-tile "${a[@]}" --wg 18x18
    bench bytes-$topo-sycl-hier sycl:hierarchical "${a[@]}"
    bench bytes-$topo-sycl-hier-32 sycl:hierarchical "${a[@]}" --wg 32x32
    bench bytes-$topo-ocl-strided opencl:halo-tile-strided "${a[@]}"
    bench bytes-$topo-sycl-strided sycl:halo-tile-strided "${a[@]}"
    for r in 8 32; do
      bench bytes-$topo-ocl-strided-r$r opencl:halo-tile-strided "${a[@]}" --param rows=$r
      bench bytes-$topo-sycl-strided-r$r sycl:halo-tile-strided "${a[@]}" --param rows=$r
    done
  done
fi
after

if want seed; then
  log "the tutorial's setup: 160x160 torus, 500 generations, GROUPSIZE 16; kernels alone and whole runs (write, 500 generations, read back)"
  a=(--size 160x160 --gens 500 --warmup 0 --whole-run)
  bench seed-ocl-naive opencl:naive "${a[@]}" --wg 16x16
  bench seed-ocl-halo opencl:halo-tile "${a[@]}" --wg 16x16
  bench seed-sycl-hier sycl:hierarchical "${a[@]}" --wg 16x16
  bench seed-sycl-halo-18 sycl:halo-tile "${a[@]}" --wg 18x18
  bench seed-sycl-halo-16 sycl:halo-tile "${a[@]}" --wg 16x16
  bench seed-ocl-strided opencl:halo-tile-strided "${a[@]}"
  bench seed-sycl-strided sycl:halo-tile-strided "${a[@]}"
  bench seed-ocl-bitpacked opencl:bitpacked "${a[@]}"
  bench seed-sycl-bitpacked sycl:bitpacked "${a[@]}"
  # The CLI's own form of the comparison (one run each, beside the tutorial's published figures).
  run seed-cli-sycl "$T" bench --backend sycl --seed-setup --json && grep -o '"seed_setup":{[^}]*}' "$OUT/seed-cli-sycl.out" >> "$OUT/summary.txt"
  run seed-cli-opencl "$T" bench --backend opencl --seed-setup --json && grep -o '"seed_setup":{[^}]*}' "$OUT/seed-cli-opencl.out" >> "$OUT/summary.txt"
fi
after

S64=65536x65536
[ "${SMOKE:-0}" = 1 ] && S64=1024x1024
if want bitpacked; then
  log "bit-packed, $S64 B3/S23, $REPEATS x 128 generations after 16"
  a=(--size $S64 --gens 128 --warmup 16)
  bench bp-ocl opencl:bitpacked "${a[@]}"
  bench bp-ocl-noact opencl:bitpacked "${a[@]}" --param activity=off
  bench bp-sycl sycl:bitpacked "${a[@]}"
  bench bp-sycl-local sycl:bitpacked "${a[@]}" --param neighbours=local-memory
  bench bp-sycl-k16 sycl:bitpacked "${a[@]}" --steps-per-launch 16
  bench bp-sycl-r16 sycl:bitpacked "${a[@]}" --param rows=16
  log "bit-packed, other rules (SYCL: run-time word masks and a multiplexer tree; OpenCL: -D constants) and the plane"
  for rule in B36/S23 B3678/S34678; do
    n=$(echo $rule | tr -d '/')
    bench bp-ocl-$n opencl:bitpacked "${a[@]}" --rule $rule --param activity=off
    bench bp-sycl-$n sycl:bitpacked "${a[@]}" --rule $rule
  done
  bench bp-ocl-plane opencl:bitpacked "${a[@]}" --topology plane --param activity=off
  bench bp-sycl-plane sycl:bitpacked "${a[@]}" --topology plane
fi
after

if want population; then
  log "population(): the three paths (wall clock of the call, median of 20, the 8-byte result read back included)"
  for p in sycl-reduction reduce-over-group tree; do
    run pop-bytes-$p "$B" sycl:halo-tile-strided --size $S16 --gens 1 --warmup 0 --param reduction=$p --population-repeats 20
    run pop-bits-$p "$B" sycl:bitpacked --size $S64 --gens 1 --warmup 0 --param reduction=$p --population-repeats 20
    for f in pop-bytes-$p pop-bits-$p; do
      printf '  %-30s median %9s ms  min %9s ms  population %s\n' "$f" "$(field population_median_ms "$OUT/$f.out")" \
        "$(field population_min_ms "$OUT/$f.out")" "$(field population "$OUT/$f.out")" | tee -a "$OUT/summary.txt"
    done
  done
fi
after

if want ptx; then
  log "code: SYCL kernels as built (cuobjdump), opencl:bitpacked as NVIDIA's OpenCL compiles it"
  if command -v cuobjdump > /dev/null; then
    run sass-usage-sycl cuobjdump --dump-resource-usage "$T"
    run sass-sycl cuobjdump --dump-sass "$T" && gzip -f "$OUT/sass-sycl.out"
  fi
  if [ -n "${CL_KERNELS:-}" ] && [ -x "${OPENCL_PTX:-}" ]; then
    # ocl_code NAME OPTIONS FILE...: the engine's program (these files in this order, the build
    # options the engine reports) as PTX, then ptxas's register use and cuobjdump's SASS.
    ocl_code() {
      local name=$1 opts=$2; shift 2
      local files=() k
      for k in "$@"; do files+=("$CL_KERNELS/$k"); done
      echo "$name: $opts" >> "$OUT/summary.txt"
      run ptx-$name "$OPENCL_PTX" "$opts" "${files[@]}" || return
      command -v ptxas > /dev/null || return
      run ptxas-$name ptxas -arch=sm_90 -v "$OUT/ptx-$name.out" -o "$OUT/$name.cubin"
      grep -h -A2 "Compiling entry function 'life_" "$OUT/ptxas-$name.err" 2>/dev/null | grep "registers\|stack" | tee -a "$OUT/summary.txt"
      command -v cuobjdump > /dev/null && run sass-$name cuobjdump --dump-sass "$OUT/$name.cubin"
      rm -f "$OUT/$name.cubin"
    }
    opts() { sed -n 's/.*"build-options":"\([^"]*\)".*/\1/p' "$OUT/$1.out" 2>/dev/null | head -1; }
    bp=(board.cl bitpacked_time_tile.cl wg_reduce.cl wg_scan.cl active_tile_list.cl)
    o=$(opts bp-ocl-noact); [ -n "$o" ] || o="-DTORUS=1 -DLW=32 -DROWS=32 -DBIRTH=0x8u -DSURVIVAL=0xcu -DLIFE=1"
    ocl_code ocl-bitpacked-B3S23 "$o" "${bp[@]}"
    ocl_code ocl-bitpacked-B36S23 "$(echo "$o" | sed 's/-DBIRTH=0x[0-9a-f]*u/-DBIRTH=0x48u/; s/-DLIFE=1/-DLIFE=0/')" "${bp[@]}"
    for topo in torus plane; do
      o=$(opts bytes-$topo-ocl-strided)
      [ -n "$o" ] && ocl_code ocl-strided-$topo "$o" board.cl common.cl tile_load.cl halo_tile_strided.cl
      o=$(opts bytes-$topo-ocl-halo)
      [ -n "$o" ] && ocl_code ocl-halo-$topo "$o" board.cl common.cl halo_tile.cl
    done
  fi
fi
after

if want sanitize; then
  CS=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
  if [ -n "$CS" ]; then
    log "compute-sanitizer racecheck"
    for k in hierarchical halo-tile halo-tile-strided bitpacked; do
      run race-$k "$CS" --tool racecheck --error-exitcode 3 "$B" sycl:$k --size 300x200 --gens 4 --warmup 1
    done
    run race-bitpacked-local "$CS" --tool racecheck --error-exitcode 3 "$B" sycl:bitpacked --size 3000x300 --gens 7 --warmup 1 --param neighbours=local-memory
    run race-bitpacked-b36 "$CS" --tool racecheck --error-exitcode 3 "$B" sycl:bitpacked --rule B36/S23 --size 3000x300 --gens 7 --warmup 1
    run race-population-tree "$CS" --tool racecheck --error-exitcode 3 "$B" sycl:halo-tile --size 2000x300 --gens 1 --warmup 0 --param reduction=tree --population-repeats 1
    run race-population-group "$CS" --tool racecheck --error-exitcode 3 "$B" sycl:halo-tile --size 2000x300 --gens 1 --warmup 0 --param reduction=reduce-over-group --population-repeats 1
    grep -h "RACECHECK SUMMARY\|ERROR SUMMARY" "$OUT"/race-*.out | sort | uniq -c | tee -a "$OUT/summary.txt"
  else
    log "sanitize: no compute-sanitizer on this machine"
  fi
fi
after

log "done; $(grep -c . "$OUT/errors.log") error line(s) in errors.log"
