#!/usr/bin/env bash
# opencl:bitpacked, kernel against kernel on one GPU in one go (docs/bitpacked-opencl.md, "Toward the
# LOP3 ceiling"): exactness of each candidate against cpu:reference, the generation loop's SASS of
# each (NVIDIA's OpenCL PTX through bench/opencl_ptx.c, ptxas -arch=sm_90, cuobjdump, bench/sass_loop.py)
# and paired timings (all variants interleaved, medians of REPS).
#   bench/h100-lop3.sh OUTDIR LABEL:TILELIFE:KERNEL_DIR[:PTXAS_FLAGS] [LABEL:TILELIFE:KERNEL_DIR[:PTXAS_FLAGS] ...]
# The first variant is the baseline (not checked for exactness); KERNEL_DIR is the src/opencl/kernels
# folder its binary was built from, PTXAS_FLAGS what its engine has the driver pass to ptxas
# (-maxrregcount=128 for -cl-nv-maxrregcount=128), for the SASS. REPS (default 5), SIZE (default 65536x65536), GENS (default 1024),
# EXTRA=0 skips the single runs of the first and last variant (K sweep, plane, other rules),
# CHECKS=0 the exactness runs. Needs the OpenCL headers and loader (.device/setup-opencl.sh).
set -u
if [ $# -lt 2 ]; then
  echo "usage: $0 OUTDIR LABEL:TILELIFE:KERNEL_DIR [LABEL:TILELIFE:KERNEL_DIR ...]" >&2
  exit 2
fi
OUT=$1
shift
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd) || exit 1
here=$(cd "$(dirname "$0")" && pwd)
SUM=$OUT/summary.txt ERR=$OUT/errors.log
TMP=$(mktemp -d) || exit 1  # scratch; OUTDIR keeps summary.txt, runs.txt, errors.log and sass.tgz
REPS=${REPS:-5} SIZE=${SIZE:-65536x65536} GENS=${GENS:-1024}
labels=() bins=() kdirs=() pflags=()
for v in "$@"; do
  IFS=: read -r l b k f <<< "$v"
  [ -x "$b" ] && [ -d "$k" ] || { echo "$0: $v: no binary or kernel folder" >&2; exit 2; }
  labels+=("$l") bins+=("$b") kdirs+=("$k") pflags+=("${f:-}")
done
n=${#labels[@]}
log() { echo "== $*" | tee -a "$SUM"; }
{
  date -u +%Y-%m-%dT%H:%M:%SZ
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.sm,temperature.gpu,power.draw --format=csv 2>&1
  "${bins[0]}" devices 2>&1 | head -5
} | tee -a "$SUM"

# 1. Exactness: each candidate on the GPU against cpu:reference (RLE of the final board, byte for byte).
if [ "${CHECKS:-1}" != 0 ]; then
  log "exactness (GPU against cpu:reference)"
  ok=0 bad=0
  check() {  # check BINARY NAME PATTERN TOPOLOGY SIZE RULE GENS [ARGS...]
    local bin=$1 name=$2 pat=$3 topo=$4 size=$5 rule=$6 gens=$7; shift 7
    local sz=(); [ "$size" != - ] && sz=(-s "$size")
    local ref=$TMP/ref-$name.rle  # the same for every variant: computed once
    [ -s "$ref" ] || "$bin" run "$pat" -t "$topo" "${sz[@]}" -r "$rule" -g "$gens" --backend cpu --kernel reference -o "$ref" -q 2>> "$ERR"
    if "$bin" run "$pat" -t "$topo" "${sz[@]}" -r "$rule" -g "$gens" --backend opencl --kernel bitpacked "$@" -o "$TMP/gpu.rle" -q 2>> "$ERR" &&
      cmp -s "$TMP/gpu.rle" "$ref"; then
      ok=$((ok + 1))
    else
      bad=$((bad + 1)); echo "MISMATCH $bin $name: $pat $topo $size $rule $gens $*" | tee -a "$SUM"
    fi
  }
  for ((i = 1; i < n; i++)); do
    b=${bins[i]}
    check "$b" torus-odd random:1037x771:0.35:1 torus 1037x771 B3/S23 700
    check "$b" torus-words random:2048x1030:0.3:2 torus 2048x1030 B3/S23 500 --steps-per-launch 7
    check "$b" torus-seam random:1000x999:0.3:3 torus 1000x999 B3/S23 333
    check "$b" torus-tiny random:5x3:0.5:4 torus 5x3 B3/S23 50
    check "$b" plane-odd random:1531x1029:0.3:5 plane 1531x1029 B3/S23 400
    check "$b" plane-b36 random:999x1001:0.35:6 plane 999x1001 B36/S23 300
    check "$b" torus-b3678 random:777x555:0.5:7 torus 777x555 B3678/S34678 300
    check "$b" torus-b2 random:513x257:0.1:8 torus 513x257 B2/S 60 --steps-per-launch 16
    check "$b" torus-rows3 random:600x600:0.3:9 torus 600x600 B3/S23 101 --steps-per-launch 5 --param rows=3 --wg 32x8
    check "$b" plane-rows16 random:700x650:0.3:10 plane 700x650 B3/S23 101 --param rows=16
    check "$b" unbounded-gun "$here/../patterns/gosper-glider-gun.rle" unbounded - B3/S23 3000
  done
  log "exactness: $ok equal, $bad different"
fi

# 2. SASS of the generation loop, B3/S23 torus and B36/S23 (the engine's default options on the H100).
log "SASS (opencl_ptx -> ptxas -arch=sm_90 -> cuobjdump), generation loop of a 32-row strip"
OPTX=$TMP/opencl_ptx
cc -O2 -I/opt/ocl/usr/include "$here/opencl_ptx.c" -L/opt/ocl/usr/lib/x86_64-linux-gnu -lOpenCL -o "$OPTX" 2>> "$ERR"
files="board.cl bitpacked_time_tile.cl wg_reduce.cl wg_scan.cl active_tile_list.cl"
sass() {  # sass NAME KERNEL_DIR OPTIONS [PTXAS_FLAGS]
  local name=$1 dir=$2 opts=$3 pf=${4:-} f=()
  for k in $files; do f+=("$dir/$k"); done
  "$OPTX" "$opts" "${f[@]}" > "$TMP/$name.ptx" 2>> "$ERR" || { echo "$name: no PTX" | tee -a "$SUM"; return; }
  ptxas -arch=sm_90 -v $pf "$TMP/$name.ptx" -o "$TMP/$name.cubin" 2> "$TMP/$name.ptxas" || { echo "$name: ptxas failed" | tee -a "$SUM"; return; }
  echo "$name: $opts $pf; $(grep -A3 "entry function 'life_bitpacked_time_tile'" "$TMP/$name.ptxas" | grep -o '[0-9]* bytes spill stores\|Used [0-9]* registers' | tr '\n' ' ')" | tee -a "$SUM"
  cuobjdump --dump-sass "$TMP/$name.cubin" > "$TMP/$name.sass" 2>> "$ERR"
  python3 "$here/sass_loop.py" "$TMP/$name.sass" life_bitpacked_time_tile 32 | tee -a "$SUM"
}
base="-DTORUS=1 -DLW=32 -DROWS=32 -DBIRTH=0x8u -DSURVIVAL=0xcu"
for ((i = 0; i < n; i++)); do
  sass "${labels[i]}-B3S23" "${kdirs[i]}" "$base -DLIFE=1" "${pflags[i]}"
  [ "$i" = 0 ] || [ "$i" = $((n - 1)) ] && sass "${labels[i]}-B36S23" "${kdirs[i]}" "${base/0x8u/0x48u} -DLIFE=0" "${pflags[i]}"
done
(cd "$TMP" && tar czf "$OUT/sass.tgz" ./*.sass ./*.ptx ./*.ptxas 2>/dev/null)

# 3. Timings: kernel time from profiling events (tilelife bench), T cell-updates/s.
tps() { sed -n 's/.*"cell_updates_per_second":\([0-9.eE+-]*\).*/\1/p' "$1" | head -1 | awk '{ printf "%.3f", $1 / 1e12 }'; }
bench() {  # bench LABEL BINARY ARGS... -> prints T/s
  local label=$1 bin=$2; shift 2
  timeout 120 "$bin" bench --backend opencl --kernel bitpacked --json "$@" > "$TMP/b.json" 2>> "$ERR"
  local t; t=$(tps "$TMP/b.json"); echo "$label $t $*" >> "$OUT/runs.txt"; echo "$t"
}
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"  # median (of one number a line)
median_of_words() { tr ' ' '\n' | grep . | median; }
log "B3/S23 torus $SIZE, $GENS generations, default shape; variants interleaved, $REPS runs each (T/s)"
res=()
for ((r = 0; r < REPS; r++)); do
  for ((i = 0; i < n; i++)); do res[i]="${res[i]:-} $(bench "${labels[i]}" "${bins[i]}" --size "$SIZE" --gens "$GENS" --warmup 16)"; done
done
for ((i = 0; i < n; i++)); do printf '%-10s %s  median %s\n' "${labels[i]}" "${res[i]}" "$(echo "${res[i]}" | median_of_words)" | tee -a "$SUM"; done

if [ "${EXTRA:-1}" != 0 ]; then
  last=$((n - 1))
  log "single runs (T/s): ${labels[0]} | ${labels[last]}"
  one() {  # one LABEL ARGS...
    local label=$1; shift
    echo "$label: $(bench "${labels[0]}-$label" "${bins[0]}" "$@") | $(bench "${labels[last]}-$label" "${bins[last]}" "$@")" | tee -a "$SUM"
  }
  for k in 8 16; do one "K=$k $SIZE" --size "$SIZE" --gens "$GENS" --warmup 16 --steps-per-launch $k; done
  one "plane $SIZE" --size "$SIZE" --gens "$GENS" --warmup 16 --topology plane
  one "B36/S23 32768^2" --size 32768x32768 --gens "$GENS" --warmup 16 --rule B36/S23
  one "B3678/S34678 32768^2" --size 32768x32768 --gens "$GENS" --warmup 16 --rule B3678/S34678
fi
date -u +%Y-%m-%dT%H:%M:%SZ | tee -a "$SUM"
nvidia-smi --query-gpu=clocks.sm,temperature.gpu,power.draw --format=csv,noheader 2>&1 | tee -a "$SUM"
rm -rf "$TMP"
