#!/usr/bin/env bash
# The distributed engine on a machine with several GPUs (docs/distributed.md, "Measured"): build,
# exactness, strong scaling, the exchange's cost, the largest board. One call of the lent machine:
#   bash bench/mpi-gpu.sh CARRY OUT
# CARRY holds debs/ (Debian's Open MPI, bench/mpi-env.sh), ocl/ (the OpenCL kit: setup-opencl.sh
# and its debs) and src/ (these sources). OUT receives summary.txt (one line per run),
# results.jsonl (tilelife-mpi-bench's JSON, one object per run), log.txt and build.log.
# GPUS=n (default: nvidia-smi's count); LIMIT=seconds per run (default 150);
# ONLY="name ..." runs only those sections (smoke cli strong weak sweep four cpu parts largest overlap diag); SMOKE=1 runs
# the same on small boards (to try the script on a machine without GPUs). BASE=dir (another source
# tree, e.g. git archive of the commit before a change): the overlap section also runs its bench;
# MID=dir (a third tree, e.g. the change's first half): its bench too, on all GPUs only; GHOSTS="48 192"
# (ghost rows): the overlapped strong runs on all GPUs again at those depths. BASE and MID are built
# beside this tree's build.
set -u
CARRY=$(cd "$1" && pwd)
OUT=$2
mkdir -p "$OUT"
exec > >(tee -a "$OUT/log.txt") 2>&1
START=$(date +%s)
LIMIT=${LIMIT:-150}
# The two boards of the scaling runs (S1, S2: sizes; G1, G2: generations per timed run) and the
# width of the largest board; each can be given in the environment (e.g. S2=262144x262144 G2=192).
if [ "${SMOKE:-0}" = 1 ]; then d=(1024x1024 2048x2048 192 96 4096); else d=(65536x65536 131072x131072 1536 768 1048576); fi
S1=${S1:-${d[0]}} S2=${S2:-${d[1]}} G1=${G1:-${d[2]}} G2=${G2:-${d[3]}} WIDE=${WIDE:-${d[4]}}
want() { [ -z "${ONLY:-}" ] || [[ " $ONLY " == *" $1 "* ]]; }
stamp() { echo "== $* ($(( $(date +%s) - START ))s)"; }

stamp environment
nvidia-smi --query-gpu=index,name,memory.total,driver_version --format=csv
nvidia-smi topo -m 2>/dev/null | head -8
echo "cores $(nproc), $(grep MemTotal /proc/meminfo)"
GPUS=${GPUS:-$(nvidia-smi -L | wc -l)}
# The ranks of the scaling runs: one per GPU; on a single GPU two ranks share it (the exchange's
# costs are then real, the speed-up is not).
RANKS=${RANKS:-$([ "$GPUS" -ge 2 ] && echo "$GPUS" || echo 2)}

bash "$CARRY/ocl/setup-opencl.sh" > /dev/null || { echo "OpenCL setup failed"; exit 1; }
export LD_LIBRARY_PATH=/opt/ocl/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
. "$CARRY/src/bench/mpi-env.sh" "$CARRY/debs" /opt/mpi

stamp build
# bench_tree DIR BUILD: another tree's bench (BASE, MID), built in the background beside this one.
bench_tree() {
  cmake -S "$1" -B "$2" -G Ninja -DCMAKE_BUILD_TYPE=Release -DTILELIFE_TESTS=OFF -DTILELIFE_BENCH=OFF \
    -DOpenCL_INCLUDE_DIR=/opt/ocl/usr/include -DOpenCL_LIBRARY=/opt/ocl/usr/lib/x86_64-linux-gnu/libOpenCL.so \
    -DMPI_C_COMPILER="$TILELIFE_MPICC" -DMPIEXEC_EXECUTABLE="$TILELIFE_MPIRUN" > "$OUT/build-$(basename "$2").log" 2>&1 &&
    ninja -C "$2" tilelife_mpi_bench >> "$OUT/build-$(basename "$2").log" 2>&1
}
trees=()
if want overlap || want diag; then
  [ -n "${BASE:-}" ] && { bench_tree "$BASE" /tmp/base & trees+=($!); }
  [ -n "${MID:-}" ] && { bench_tree "$MID" /tmp/mid & trees+=($!); }
fi
cmake -S "$CARRY/src" -B /tmp/b -G Ninja -DCMAKE_BUILD_TYPE=Release -DTILELIFE_TESTS=OFF -DTILELIFE_BENCH=OFF \
  -DOpenCL_INCLUDE_DIR=/opt/ocl/usr/include -DOpenCL_LIBRARY=/opt/ocl/usr/lib/x86_64-linux-gnu/libOpenCL.so \
  -DMPI_C_COMPILER="$TILELIFE_MPICC" -DMPIEXEC_EXECUTABLE="$TILELIFE_MPIRUN" > "$OUT/build.log" 2>&1 &&
  ninja -C /tmp/b tilelife_cli tilelife_mpi_bench >> "$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
grep "tilelife:" "$OUT/build.log"
TL=/tmp/b/tilelife
MB=/tmp/b/tilelife-mpi-bench
$TL devices | grep -E "platform|device"

# The ranks of a run share the cores.
threads() { echo $(( $(nproc) / $1 )); }
mpi() {  # mpi NP PROGRAM ARGS...
  local np=$1
  shift
  OMP_NUM_THREADS=$(threads "$np") timeout "$LIMIT" "$TILELIFE_MPIRUN" -np "$np" --oversubscribe --bind-to none "$@"
}
field() { python3 -c "import json,sys; d=json.loads(sys.stdin.read()); print($1)"; }
# bench NAME NP ARGS...: one tilelife-mpi-bench run on opencl:bitpacked, its JSON kept and summarised.
bench() {
  local name=$1 np=$2
  shift 2
  local t0=$(date +%s)
  local json
  json=$(mpi "$np" "${BENCH_BIN:-$MB}" --engine opencl:bitpacked "$@" 2> "/tmp/$name.err")
  local rc=$?
  if [ $rc -ne 0 ] || [ -z "$json" ]; then
    echo "$name: FAILED rc=$rc: $(tail -c 600 "/tmp/$name.err" | tr '\n' ' ')" | tee -a "$OUT/summary.txt"
    return
  fi
  echo "{\"name\":\"$name\",\"result\":$json}" >> "$OUT/results.jsonl"
  echo "$json" | field "'%-16s np %d %dx%d ghost %d %s: %7.3f T/s %8.4f ms/gen  check %d/%d wrong  pop %d fp %s  x %.1f us  t %.1f us  run %.2f ms (step returned %.2f; after: device %.2f pop %.2f idle pop %.2f, its local part %.2f)  %s  (%ds)' % ('$name', d['ranks'], d['width'], d['height'], d['ghost'], d['exchange'] + (' overlapped' if d.get('overlap') else ''), d['cell_updates_per_second']/1e12, d['ms_per_gen'], d['check']['mismatches'], d['check']['cells'], d['population'], d['fingerprint'], d['exchange_seconds']*1e6, d.get('transfer_seconds', 0)*1e6, d['seconds_median']*1e3, d.get('step_returned_median', 0)*1e3, d.get('after_step', {}).get('device', 0)*1e3, d.get('after_step', {}).get('population', 0)*1e3, d.get('after_step', {}).get('population_idle', 0)*1e3, d.get('after_step', {}).get('local_population_idle', 0)*1e3, ' '.join('[%s %d rows: step %.3f read %.3f mpi %.3f write %.3f agree %.3f x%d a%d]' % (r['device'].split(' ')[0], r['rows'], r['step'], r['read'], r['mpi'], r['write'], r['agree'], r['exchanges'], r.get('agreements', -1)) for r in d['per_rank']), $(( $(date +%s) - t0 )))" | tee -a "$OUT/summary.txt"
}

if want smoke; then
  stamp smoke
  # Single-copy messages need the kernel's cross-process copies; fall back to copies through shared memory.
  if ! mpi 2 "$MB" --engine opencl:bitpacked --size 4096x4096 --repeats 1 --gens 96 > /tmp/smoke.json 2> /tmp/smoke.err; then
    tail -5 /tmp/smoke.err
    export OMPI_MCA_btl_vader_single_copy_mechanism=none
    echo "smoke: retrying with btl_vader_single_copy_mechanism=none" | tee -a "$OUT/summary.txt"
  fi
  bench smoke 2 --size 4096x4096 --repeats 1 --gens 96
fi

if want cli; then
  stamp cli
  # mpirun -np N tilelife run on the GPUs against one CPU process: identical files.
  for job in "random:4000x3000:0.4:7 --topology torus --gens 1000" "random:3001x2003:0.35:8 --topology plane --rule B36/S23 --gens 777"; do
    $TL run $job --backend cpu -q -o /tmp/cpu.rle
    for np in 1 2 4; do
      rm -f /tmp/gpu.rle
      mpi "$np" $TL run $job --backend opencl --kernel bitpacked -q -o /tmp/gpu.rle
      if cmp -s /tmp/cpu.rle /tmp/gpu.rle; then r=identical; else r=DIFFERENT; fi
      echo "cli np $np: tilelife run $job: $r to the CPU's file" | tee -a "$OUT/summary.txt"
    done
  done
  mpi "$RANKS" $TL run random:4000x3000:0.4:7 --topology torus --gens 1000 --backend opencl | tee -a "$OUT/summary.txt"
fi

if want strong; then
  stamp strong scaling
  for n in 1 $RANKS; do bench strong-${S1%%x*} "$n" --size $S1 --gens $G1 --warmup 96 --repeats 5 --exchanges 20; done
  for n in 1 $RANKS; do bench strong-${S2%%x*} "$n" --size $S2 --gens $G2 --warmup 96 --repeats 5 --exchanges 20; done
fi

if want weak; then
  stamp weak scaling
  # A band of the same size per GPU: S1's width, S1's height times the ranks (1, 2, 4, ... GPUs).
  w=${S1%%x*} h=${S1##*x}
  for n in 1 2 4 8; do
    [ "$n" -le "$GPUS" ] || break
    bench weak-$n "$n" --size ${w}x$((h * n)) --gens $G1 --warmup 96 --repeats 5 --exchanges 20
  done
fi

if want sweep; then
  stamp ghost rows and the byte exchange
  for g in 12 48 192 384; do bench ghost$g-${S1%%x*} "$RANKS" --size $S1 --ghost $g --gens $G1 --warmup 96 --repeats 3 --exchanges 20 --no-fingerprint; done
  bench bytes-${S1%%x*} "$RANKS" --size $S1 --bytes --gens $G1 --warmup 96 --repeats 3 --exchanges 20 --no-fingerprint
fi

if want four; then
  stamp twice as many ranks as GPUs
  bench ranks$((2 * RANKS))-${S1%%x*} $((2 * RANKS)) --size $S1 --gens $G1 --warmup 96 --repeats 3 --exchanges 20
fi

if want cpu; then
  stamp cpu:bitpacked ranks on the host cores
  # The same board on 1, 2 and 4 ranks sharing the host's cores (threads = cores / ranks), dense.
  for n in 1 2 4; do bench cpu-$n "$n" --engine cpu:bitpacked --param activity=off --size ${S1%%x*}x$(( ${S1%%x*} / 4 )) --gens 384 --warmup 32 --repeats 3 --exchanges 20; done
fi

if want parts; then
  stamp the exchange in parts
  ompi_info --param btl vader --level 9 2>/dev/null | grep -i "single_copy_mechanism\"" | head -2
  # The device transfers alone (one rank: its own PCIe link, nothing shared), then two ranks on
  # CPU engines (the messages, with CPU-side reads and writes), then the whole exchange.
  quick="--gens 96 --repeats 1 --check-gens 0 --no-fingerprint --ghost 96"
  for s in $S1 $S2; do bench parts-gpu1-${s%%x*} 1 --size $s $quick --transfers 50; done
  for w in ${S1%%x*} ${S2%%x*}; do
    bench parts-mpi-$w 2 --engine cpu:bitpacked --param activity=off --size ${w}x4096 $quick --transfers 50 --exchanges 50
    OMPI_MCA_btl_vader_single_copy_mechanism=none bench parts-mpicopy-$w 2 --engine cpu:bitpacked --param activity=off --size ${w}x4096 $quick --exchanges 50
  done
  bench parts-gpu2-${S1%%x*} 2 --size $S1 $quick --transfers 50 --exchanges 50
fi

if want overlap; then
  stamp the exchange overlapped with the step against the exchange after it
  # Strong scaling at both sizes and weak scaling on 1, 2 and 4 GPUs (as many as there are): the
  # overlapped exchange (the default), --no-overlap on 4, and BASE's bench (the code before).
  for p in ${trees[@]+"${trees[@]}"}; do wait "$p"; done
  [ -x /tmp/base/tilelife-mpi-bench ] || { [ -n "${BASE:-}" ] && tail -30 "$OUT/build-base.log"; BASE=; }
  [ -x /tmp/mid/tilelife-mpi-bench ] || { [ -n "${MID:-}" ] && tail -30 "$OUT/build-mid.log"; MID=; }
  w=${S1%%x*} h=${S1##*x}
  for n in 1 2 4; do
    [ "$n" -le "$GPUS" ] || break
    for mode in overlap no-overlap base mid; do
      [ "$mode" = no-overlap ] && [ "$n" != 4 ] && continue
      [ "$mode" = base ] && [ -z "${BASE:-}" ] && continue
      [ "$mode" = mid ] && { [ -z "${MID:-}" ] || [ "$n" != "$GPUS" ]; } && continue
      flag=$([ "$mode" = no-overlap ] && echo --no-overlap)
      bin=$(case $mode in (base) echo /tmp/base/tilelife-mpi-bench ;; (mid) echo /tmp/mid/tilelife-mpi-bench ;; (*) echo "$MB" ;; esac)
      BENCH_BIN=$bin bench $mode-strong-${S2%%x*}-$n "$n" --size $S2 --gens $G2 --warmup 96 --repeats ${REPEATS:-5} --exchanges 20 $flag
      BENCH_BIN=$bin bench $mode-weak-$n "$n" --size ${w}x$((h * n)) --gens $G1 --warmup 96 --repeats ${REPEATS:-5} --exchanges 20 $flag
      [ "$n" = 2 ] || BENCH_BIN=$bin bench $mode-strong-${S1%%x*}-$n "$n" --size $S1 --gens $G1 --warmup 96 --repeats ${REPEATS:-5} --exchanges 20 $flag
    done
  done
  n=$RANKS
  for g in ${GHOSTS:-}; do
    bench overlap-strong-${S2%%x*}-$n-ghost$g "$n" --size $S2 --gens $G2 --warmup 96 --repeats ${REPEATS:-5} --ghost $g
    bench overlap-strong-${S1%%x*}-$n-ghost$g "$n" --size $S1 --gens $G1 --warmup 96 --repeats ${REPEATS:-5} --ghost $g
  done
fi

if want diag; then
  stamp where the strong runs lose time
  # Lock-step runs go at the slowest GPU: each GPU's own rate. E: a board whose bands on these GPUs
  # have the shape of S2's bands on 4 GPUs (131072 x 32768: the 4-GPU run's per-rank work and
  # messages on 2 GPUs). The rate of one band with its ghost rows alone; activity tracking off (the
  # ghost writes restart its comparisons); longer timed runs (fixed costs per step() call).
  q="--warmup 96 --repeats ${REPEATS:-3}"
  E=${S2%%x*}x$(( ${S2##*x} * RANKS / 4 ))
  if [ -z "${BASE:-}" ] && [ -z "${DIAG_END:-}" ]; then
  for d in $(seq 0 $((GPUS - 1))); do bench diag-gpu$d-${S2%%x*} 1 --size $S2 --gens $G2 --device $d $q; done
  band=${S2%%x*}x$(( ${S2##*x} / 4 + 192 ))
  bench diag-band-$band 1 --size $band --gens $G2 $q
  bench diag-band-off-$band 1 --size $band --gens $G2 --param activity=off $q
  for a in auto off; do
    for n in 1 $RANKS; do bench diag-$a-$E-$n "$n" --size $E --gens $G2 --param activity=$a $q; done
  done
  bench diag-long-$E-$RANKS "$RANKS" --size $E --gens $((4 * G2)) $q
  bench diag-steps8-$E-$RANKS "$RANKS" --size $E --gens $G2 --steps-per-launch 8 $q
  bench diag-steps8-$E-1 1 --size $E --gens $G2 --steps-per-launch 8 $q
  fi
  # The end of a timed run in parts (after_step in the JSON), on E, S1 and one GPU.
  if [ -z "${VARIANTS:-}" ]; then
    for n in $RANKS 1; do bench diag-end-$E-$n "$n" --size $E --gens $G2 $q; done
    bench diag-end-${S1%%x*}-$RANKS "$RANKS" --size $S1 --gens $G1 $q
  fi
  # BASE and MID (two variants of a change) against this tree, interleaved, on all GPUs (VARIANTS).
  if [ -n "${VARIANTS:-}" ]; then
    for p in ${trees[@]+"${trees[@]}"}; do wait "$p"; done
    for r in 1 2 3; do
      for bin in "$MB" /tmp/base/tilelife-mpi-bench /tmp/mid/tilelife-mpi-bench; do
        [ -x "$bin" ] || continue
        tag=$(case $bin in ("$MB") echo new ;; (/tmp/base/*) echo base ;; (*) echo mid ;; esac)
        BENCH_BIN=$bin bench var-$tag$r-${S1%%x*}-$GPUS "$GPUS" --size $S1 --gens $G1 $q
        BENCH_BIN=$bin bench var-$tag$r-${S2%%x*}-$GPUS "$GPUS" --size $S2 --gens $G2 $q
      done
    done
  fi
  # BASE (the code before a change) against this tree, interleaved, on E and on S1.
  for p in ${trees[@]+"${trees[@]}"}; do wait "$p"; done
  if [ -n "${BASE:-}" ] && [ -z "${VARIANTS:-}" ] && [ -x /tmp/base/tilelife-mpi-bench ]; then
    for r in 1 2; do
      for bin in /tmp/base/tilelife-mpi-bench "$MB"; do
        tag=$([ "$bin" = "$MB" ] && echo new || echo base)
        BENCH_BIN=$bin bench diag-$tag$r-$E-$RANKS "$RANKS" --size $E --gens $G2 $q
        BENCH_BIN=$bin bench diag-$tag$r-${S1%%x*}-$RANKS "$RANKS" --size $S1 --gens $G1 $q
        BENCH_BIN=$bin bench diag-$tag$r-$E-1 1 --size $E --gens $G2 $q
      done
    done
    bench diag-newlong-$E-$RANKS "$RANKS" --size $E --gens $((4 * G2)) $q
  fi
fi

if want largest; then
  stamp largest boards
  for n in 1 $([ "$GPUS" -ge 2 ] && echo "$GPUS"); do bench largest "$n" --size ${WIDE}x1 --largest --gens 192 --repeats 2 --largest-step 2048; done
fi
stamp done
