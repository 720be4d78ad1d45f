#!/usr/bin/env bash
# cpu:streamlife against cpu:hashlife, cpu:auto (the default, which picks one of them) and Golly's
# HashLife: whole processes, wall-clock medians, the same final cells (.mc compared). The jobs are
# glider trains passing each other (bench/passing-trains.py: the class cpu:streamlife is for) and
# Golly's patterns with streams both ways (docs/streamlife.md).
#
#   bench/streamlife.sh [TILELIFE_BINARY]      (default: build/tilelife)
#   env: REPEATS (3), TIMEOUT (120 s: a run past it counts as "> TIMEOUT"), BGOLLY (bgolly; "" to skip)
#        JOBS: lines "PATTERN GENERATIONS"; "trains:N" is N gliders a train (default below)
set -euo pipefail

TILELIFE=${1:-build/tilelife}
REPEATS=${REPEATS:-3}
TIMEOUT=${TIMEOUT:-120}
BGOLLY=${BGOLLY-$(command -v bgolly || true)}
GP=/usr/share/golly/Patterns
HERE=$(dirname "$(realpath "$0")")
JOBS=${JOBS:-"trains:300 4096
trains:300 32768
trains:300 262144
trains:3000 16384
trains:3000 65536
trains:3000 262144
$GP/HashLife/loafer-gun-p8388608-linear.mc.gz 65536
$GP/HashLife/loafer-gun-p8388608-linear.mc.gz 262144
$GP/HashLife/demonoid-c512-hashlife-friendly.mc.gz 65536"}

[ -x "$TILELIFE" ] || { echo "streamlife: $TILELIFE is not an executable (build it first)" >&2; exit 2; }
TILELIFE=$(realpath "$TILELIFE")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"  # median

# Seconds of `"$@"` (wall), median of REPEATS; "" when a run fails or times out.
timed() {
    local times=() r t0 t1 rc
    for ((r = 1; r <= REPEATS; r++)); do
        t0=$(date +%s.%N)
        rc=0
        timeout "$TIMEOUT" "$@" >"$work/out" 2>&1 || rc=$?
        t1=$(date +%s.%N)
        [ "$rc" = 0 ] || return 0
        times+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')")
    done
    printf '%s\n' "${times[@]}" | median
}

echo "machine:  $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(nproc) cores; load average at start $(cut -d' ' -f1-3 /proc/loadavg)"
echo "command:  tilelife run PATTERN --gens N [--kernel K] -o out.mc; bgolly -a HashLife -m N -o out.mc PATTERN   (REPEATS=$REPEATS, wall-clock medians)"
echo
echo "| pattern | generations | cpu:hashlife s | cpu:streamlife s | default s | default ran | bgolly s | streamlife / hashlife |"
echo "| --- | ---: | ---: | ---: | ---: | --- | ---: | ---: |"
status=0
while read -r pattern gens; do
    [ -z "$pattern" ] && continue
    name=${pattern##*/}
    if [[ $pattern == trains:* ]]; then
        name="passing-trains-${pattern#trains:}"
        pattern="$work/$name.lif"
        [ -f "$pattern" ] || python3 "$HERE/passing-trains.py" "${name##*-}" 30 1 "$pattern"
    fi
    h=$(timed "$TILELIFE" run "$pattern" --gens "$gens" --kernel cpu:hashlife -q -o "$work/h.mc")
    s=$(timed "$TILELIFE" run "$pattern" --gens "$gens" --kernel cpu:streamlife -q -o "$work/s.mc")
    d=$(timed "$TILELIFE" run "$pattern" --gens "$gens" -o "$work/d.mc")
    ran=$(grep -o 'running: cpu:[a-z]*' "$work/out" | cut -d' ' -f2 || true)
    b=""
    [ -n "$BGOLLY" ] && b=$(timed "$BGOLLY" -a HashLife -m "$gens" -o "$work/b.mc" "$pattern")
    # The same cells from every program that finished (as RLE: the .mc files of bgolly and tilelife
    # may order their nodes differently).
    for k in s d b; do
        [ -n "$h" ] && [ -f "$work/$k.mc" ] || continue
        "$TILELIFE" convert "$work/h.mc" "$work/h.rle" && "$TILELIFE" convert "$work/$k.mc" "$work/$k.rle"
        if ! cmp -s <(grep -v '^#' "$work/h.rle") <(grep -v '^#' "$work/$k.rle"); then
            echo "streamlife: $name $gens: the cells of run $k differ from cpu:hashlife's" >&2
            status=1
        fi
    done
    rm -f "$work"/[hsdb].mc "$work"/[hsdb].rle
    ratio=$([ -n "$h" ] && [ -n "$s" ] && awk -v a="$s" -v b="$h" 'BEGIN { printf "%.2f", a / b }' || echo "–")
    show() { [ -n "$1" ] && echo "$1" || echo "> $TIMEOUT"; }
    echo "| $name | $gens | $(show "$h") | $(show "$s") | $(show "$d") | $ran | $([ -n "$BGOLLY" ] && show "$b" || echo "–") | $ratio |"
done <<<"$JOBS"
echo
echo "load average at end $(cut -d' ' -f1-3 /proc/loadavg)"
exit $status
