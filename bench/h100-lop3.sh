#!/usr/bin/env bash
# opencl:bitpacked, old kernel against new, on one GPU in one go (docs/bitpacked-opencl.md, "Toward the
# LOP3 ceiling"): exactness of the new binary against cpu:reference, the generation loop's SASS of both
# kernels (NVIDIA's OpenCL PTX through bench/opencl_ptx.c, ptxas -arch=sm_90, cuobjdump), and paired
# timings (old, new with shifts, new with multiplies, interleaved, medians of REPS).
#   bench/h100-lop3.sh OLD_TILELIFE OLD_KERNEL_DIR NEW_TILELIFE NEW_KERNEL_DIR OUTDIR
# OLD_KERNEL_DIR / NEW_KERNEL_DIR: the src/opencl/kernels folders the two binaries were built from.
# REPS (default 5), SIZE (default 65536x65536), GENS (default 1024), EXTRA=0 skips the single runs
# (K sweep, plane, other rules), CHECKS=0 the exactness runs. Needs OpenCL headers and loader (.device/setup-opencl.sh).
set -u
if [ $# -ne 5 ]; then
  echo "usage: $0 OLD_TILELIFE OLD_KERNEL_DIR NEW_TILELIFE NEW_KERNEL_DIR OUTDIR" >&2
  exit 2
fi
OLD=$1 OLDK=$2 NEW=$3 NEWK=$4 OUT=$5
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd) || exit 1
SUM=$OUT/summary.txt ERR=$OUT/errors.log
TMP=$(mktemp -d) || exit 1  # scratch; OUTDIR keeps summary.txt, runs.txt, errors.log and sass.tgz
REPS=${REPS:-5} SIZE=${SIZE:-65536x65536} GENS=${GENS:-1024}
log() { echo "== $*" | tee -a "$SUM"; }
{
  date -u +%Y-%m-%dT%H:%M:%SZ
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.sm,temperature.gpu,power.draw --format=csv 2>&1
  "$NEW" devices 2>&1 | head -5
} | tee -a "$SUM"

# 1. Exactness: the new binary on the GPU against cpu:reference (RLE of the final board, byte for byte).
if [ "${CHECKS:-1}" != 0 ]; then
log "exactness (new binary, GPU, against cpu:reference)"
ok=0 bad=0
check() {  # check NAME PATTERN TOPOLOGY SIZE RULE GENS [ARGS...]
  local name=$1 pat=$2 topo=$3 size=$4 rule=$5 gens=$6; shift 6
  local sz=(); [ "$size" != - ] && sz=(-s "$size")
  local ref=$TMP/ref-$name.rle  # the same for both shift modes: computed once
  [ -s "$ref" ] || "$NEW" run "$pat" -t "$topo" "${sz[@]}" -r "$rule" -g "$gens" --backend cpu --kernel reference -o "$ref" -q 2>> "$ERR"
  "$NEW" run "$pat" -t "$topo" "${sz[@]}" -r "$rule" -g "$gens" --backend opencl --kernel bitpacked "$@" -o "$TMP/gpu.rle" -q 2>> "$ERR" &&
    cmp -s "$TMP/gpu.rle" "$ref"
  if [ $? -eq 0 ]; then ok=$((ok + 1)); else bad=$((bad + 1)); echo "MISMATCH $name: $pat $topo $size $rule $gens $*" | tee -a "$SUM"; fi
}
for sh in multiply shift mixed; do
  check torus-odd random:1037x771:0.35:1 torus 1037x771 B3/S23 700 --param shifts=$sh
  check torus-words random:2048x1030:0.3:2 torus 2048x1030 B3/S23 500 --param shifts=$sh --steps-per-launch 7
  check torus-seam random:1000x999:0.3:3 torus 1000x999 B3/S23 333 --param shifts=$sh
  check torus-tiny random:5x3:0.5:4 torus 5x3 B3/S23 50 --param shifts=$sh
  check plane-odd random:1531x1029:0.3:5 plane 1531x1029 B3/S23 400 --param shifts=$sh
  check plane-b36 random:999x1001:0.35:6 plane 999x1001 B36/S23 300 --param shifts=$sh
  check torus-b3678 random:777x555:0.5:7 torus 777x555 B3678/S34678 300 --param shifts=$sh
  check torus-b2 random:513x257:0.1:8 torus 513x257 B2/S 60 --param shifts=$sh --steps-per-launch 16
  check torus-k1 random:600x600:0.3:9 torus 600x600 B3/S23 101 --param shifts=$sh --steps-per-launch 1 --param rows=16
  check unbounded-gun "$here/../patterns/gosper-glider-gun.rle" unbounded - B3/S23 3000 --param shifts=$sh
done
log "exactness: $ok equal, $bad different"
fi

# 2. SASS of the generation loop, both kernels, B3/S23 torus and B36/S23 (the engine's default options).
log "SASS (opencl_ptx -> ptxas -arch=sm_90 -> cuobjdump), generation loop per 32-row strip"
OPTX=$TMP/opencl_ptx
cc -O2 -I/opt/ocl/usr/include "$here/opencl_ptx.c" -L/opt/ocl/usr/lib/x86_64-linux-gnu -lOpenCL -o "$OPTX" 2>> "$ERR"
files="board.cl bitpacked_time_tile.cl wg_reduce.cl wg_scan.cl active_tile_list.cl"
sass() {  # sass NAME KERNEL_DIR OPTIONS
  local name=$1 dir=$2 opts=$3 f=()
  for k in $files; do f+=("$dir/$k"); done
  "$OPTX" "$opts" "${f[@]}" > "$TMP/$name.ptx" 2>> "$ERR" || { echo "$name: no PTX" | tee -a "$SUM"; return; }
  ptxas -arch=sm_90 -v "$TMP/$name.ptx" -o "$TMP/$name.cubin" 2> "$TMP/$name.ptxas" || { echo "$name: ptxas failed" | tee -a "$SUM"; return; }
  echo "$name: $opts; $(grep -A2 "entry function 'life_bitpacked_time_tile'" "$TMP/$name.ptxas" | grep -o 'Used [0-9]* registers.*' | head -1)" | tee -a "$SUM"
  cuobjdump --dump-sass "$TMP/$name.cubin" > "$TMP/$name.sass" 2>> "$ERR"
  python3 "$here/sass_loop.py" "$TMP/$name.sass" life_bitpacked_time_tile 32 | tee -a "$SUM"
}
base="-DTORUS=1 -DLW=32 -DROWS=32 -DBIRTH=0x8u -DSURVIVAL=0xcu"
sass old-B3S23 "$OLDK" "$base -DLIFE=1"
sass new-B3S23-shift "$NEWK" "$base -DLIFE=1 -DSHIFT_MUL=0"
sass new-B3S23-multiply "$NEWK" "$base -DLIFE=1 -DSHIFT_MUL=1"
sass new-B3S23-mixed "$NEWK" "$base -DLIFE=1 -DSHIFT_MUL=2"
sass old-B36S23 "$OLDK" "${base/0x8u/0x48u} -DLIFE=0"
sass new-B36S23-multiply "$NEWK" "${base/0x8u/0x48u} -DLIFE=0 -DSHIFT_MUL=1"
(cd "$TMP" && tar czf "$OUT/sass.tgz" ./*.sass ./*.ptx ./*.ptxas 2>/dev/null)

# 3. Timings: kernel time from profiling events (tilelife bench), T cell-updates/s.
tps() { sed -n 's/.*"cell_updates_per_second":\([0-9.eE+-]*\).*/\1/p' "$1" | head -1 | awk '{ printf "%.3f", $1 / 1e12 }'; }
run() {  # run LABEL BINARY ARGS... -> prints T/s
  local label=$1 bin=$2; shift 2
  timeout 120 "$bin" bench --backend opencl --kernel bitpacked --json "$@" > "$TMP/b.json" 2>> "$ERR"
  local t; t=$(tps "$TMP/b.json"); echo "$label $t $*" >> "$OUT/runs.txt"; echo "$t"
}
median() { tr ' ' '\n' | grep . | sort -g | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
log "B3/S23 torus $SIZE, $GENS generations, default shape; old / new shift / new multiply / new mixed interleaved, $REPS each"
a="" b="" c="" d=""
for i in $(seq "$REPS"); do
  a="$a $(run old "$OLD" --size "$SIZE" --gens "$GENS" --warmup 16)"
  b="$b $(run new-shift "$NEW" --size "$SIZE" --gens "$GENS" --warmup 16 --param shifts=shift)"
  c="$c $(run new-multiply "$NEW" --size "$SIZE" --gens "$GENS" --warmup 16 --param shifts=multiply)"
  d="$d $(run new-mixed "$NEW" --size "$SIZE" --gens "$GENS" --warmup 16 --param shifts=mixed)"
done
echo "old:          $a  median $(echo "$a" | median)" | tee -a "$SUM"
echo "new shift:    $b  median $(echo "$b" | median)" | tee -a "$SUM"
echo "new multiply: $c  median $(echo "$c" | median)" | tee -a "$SUM"
echo "new mixed:    $d  median $(echo "$d" | median)" | tee -a "$SUM"

if [ "${EXTRA:-1}" != 0 ]; then
  log "single runs (T/s): old | new (default shifts)"
  one() {  # one LABEL ARGS...
    local label=$1; shift
    echo "$label: $(run "old-$label" "$OLD" "$@") | $(run "new-$label" "$NEW" "$@")" | tee -a "$SUM"
  }
  for k in 8 16; do one "K=$k $SIZE" --size "$SIZE" --gens "$GENS" --warmup 16 --steps-per-launch $k; done
  one "plane $SIZE" --size "$SIZE" --gens "$GENS" --warmup 16 --topology plane
  one "B36/S23 32768^2" --size 32768x32768 --gens "$GENS" --warmup 16 --rule B36/S23
  one "B3678/S34678 32768^2" --size 32768x32768 --gens "$GENS" --warmup 16 --rule B3678/S34678
fi
date -u +%Y-%m-%dT%H:%M:%SZ | tee -a "$SUM"
nvidia-smi --query-gpu=clocks.sm,temperature.gpu,power.draw --format=csv,noheader 2>&1 | tee -a "$SUM"
rm -rf "$TMP"
