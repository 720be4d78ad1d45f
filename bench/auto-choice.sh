#!/usr/bin/env bash
# cpu:auto against the two engines it chooses between, cpu:hashlife and cpu:bitpacked, on chaotic
# soups and long engineered runs of the unbounded plane: whole processes, the same final cells.
# The promise checked: cpu:auto is never more than 1.25x slower than the better of the two.
#
#   bench/auto-choice.sh [TILELIFE_BINARY]      (default: build/tilelife)
#   env: REPEATS (3), TIMEOUT (120 s: a run past it counts as "> TIMEOUT"), THREADS (0 = all cores)
#        JOBS: lines "PATTERN GENERATIONS" (default below)
set -euo pipefail

TILELIFE=${1:-build/tilelife}
REPEATS=${REPEATS:-3}
TIMEOUT=${TIMEOUT:-120}
THREADS=${THREADS:-0}
GP=/usr/share/golly/Patterns
JOBS=${JOBS:-"random:256x256:0.4:1 1000
random:256x256:0.4:1 30000
random:640x480:0.45:1 3000
random:640x480:0.45:1 20000
random:1024x1024:0.4:2 1000
random:1024x1024:0.4:2 5000
random:2048x2048:0.4:3 500
$GP/Life/Methuselahs/acorn.lif 5206
$GP/Life/Guns/golly-ticker.rle 100000
$GP/Life/Puffers/puffer-train.rle 1000003
$GP/Life/Breeders/breeder.lif 65537
$GP/HashLife/metacatacryst.mc 100003"}

[ -x "$TILELIFE" ] || { echo "auto-choice: $TILELIFE is not an executable (build it first)" >&2; exit 2; }
TILELIFE=$(realpath "$TILELIFE")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"  # median

echo "machine:  $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(nproc) cores; load average at start $(cut -d' ' -f1-3 /proc/loadavg)"
echo "command:  tilelife run PATTERN --gens N --kernel K --threads $THREADS -o out.mc --json   (REPEATS=$REPEATS, wall-clock medians, TIMEOUT=${TIMEOUT}s)"
echo
echo "| pattern | generations | cpu:hashlife s | cpu:bitpacked s | cpu:auto s | auto ran | auto / best |"
echo "| --- | ---: | ---: | ---: | ---: | --- | ---: |"
status=0
while read -r pattern gens; do
    [ -z "$pattern" ] && continue
    declare -A med=()
    for k in hashlife bitpacked auto; do
        times=()
        for ((r = 1; r <= REPEATS; r++)); do
            t0=$(date +%s.%N)
            rc=0
            timeout "$TIMEOUT" "$TILELIFE" run "$pattern" --gens "$gens" --kernel "$k" --threads "$THREADS" \
                -o "$work/$k.mc" --json >"$work/$k.json" 2>"$work/err" || rc=$?
            t1=$(date +%s.%N)
            if [ "$rc" != 0 ]; then times=(); break; fi
            times+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')")
        done
        if ((${#times[@]})); then med[$k]=$(printf '%s\n' "${times[@]}" | median); else med[$k]=""; fi
    done
    ran=$(grep -o '"running":"[^"]*"' "$work/auto.json" 2>/dev/null | cut -d'"' -f4)
    switched=$(grep -o '"switched_at_generation":[0-9]*' "$work/auto.json" 2>/dev/null | cut -d: -f2)
    [ -n "$switched" ] && ran="$ran (from $switched)"
    # The same cells from every engine that finished.
    for k in hashlife bitpacked; do
        if [ -n "${med[$k]}" ] && [ -n "${med[auto]}" ] && ! cmp -s <(tail -n +2 "$work/$k.mc") <(tail -n +2 "$work/auto.mc"); then
            echo "auto-choice: $pattern $gens: cpu:$k and cpu:auto disagree" >&2
            status=1
        fi
    done
    best=""
    for k in hashlife bitpacked; do
        [ -n "${med[$k]}" ] && { [ -z "$best" ] || awk -v a="${med[$k]}" -v b="$best" 'BEGIN { exit !(a < b) }'; } && best=${med[$k]}
    done
    ratio=$([ -n "$best" ] && [ -n "${med[auto]}" ] && awk -v a="${med[auto]}" -v b="$best" 'BEGIN { printf "%.2f", a / b }' || echo "–")
    show() { [ -n "$1" ] && echo "$1" || echo "> $TIMEOUT"; }
    echo "| ${pattern##*/} | $gens | $(show "${med[hashlife]}") | $(show "${med[bitpacked]}") | $(show "${med[auto]}") | $ran | $ratio |"
    unset med
done <<<"$JOBS"
echo
echo "load average at end $(cut -d' ' -f1-3 /proc/loadavg)"
exit $status
