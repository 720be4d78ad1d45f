#!/usr/bin/env bash
# When do several threads pay off for cpu:bitpacked? Torus soups (density 0.5) of several sizes run
# for several generation counts with --threads 1, --threads N (N = all cores) and --threads 0 (the
# engine's choice by the work), interleaved; the stepping time each run reports (--json "seconds")
# is compared by medians. The rule the engine uses for --threads 0 (docs/benchmarks.md, "Threads by
# the work") comes from this table.
#
#   bench/threads.sh [TILELIFE_BINARY]     env: REPEATS (5), SIZES, GENS, ACTIVITY (on|off)
set -euo pipefail
TILELIFE=$(realpath "${1:-build/tilelife}")
REPEATS=${REPEATS:-5}
SIZES=${SIZES:-"512x512 1024x1024 1536x1792 2048x2048 4096x4096"}
GENS=${GENS:-"100 600 2000"}
ACTIVITY=${ACTIVITY:-on}
N=$(nproc)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"  # median
seconds() { sed -E 's/.*"seconds":([0-9.eE+-]+).*/\1/'; }

echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $N cores; load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "activity $ACTIVITY, $REPEATS runs each; stepping seconds (medians): 1 thread, $N, the engine's choice"
printf '%-10s %6s %12s %10s %10s %8s %10s %7s\n' size gens word-gens t1 t$N t1/t$N auto threads
for size in $SIZES; do
    w=${size%x*} h=${size#*x}
    # Without "#CXRLE Pos" the soup is centred on the torus and fills it.
    "$TILELIFE" convert "random:${w}x${h}:0.5:1" "$work/p.rle" >/dev/null
    grep -v '^#CXRLE' "$work/p.rle" | sed -E "s/^(x = [0-9]+, y = [0-9]+), rule = .*/\1, rule = B3\/S23:T${w},${h}/" > "$work/s.rle"
    for gens in $GENS; do
        one=() many=() auto=()
        for ((r = 0; r < REPEATS; r++)); do
            one+=("$("$TILELIFE" run "$work/s.rle" --gens "$gens" --kernel cpu:bitpacked --threads 1 --param activity="$ACTIVITY" --json | seconds)")
            many+=("$("$TILELIFE" run "$work/s.rle" --gens "$gens" --kernel cpu:bitpacked --threads "$N" --param activity="$ACTIVITY" --json | seconds)")
            json=$("$TILELIFE" run "$work/s.rle" --gens "$gens" --kernel cpu:bitpacked --threads 0 --param activity="$ACTIVITY" --json)
            auto+=("$(echo "$json" | seconds)")
            used=$(echo "$json" | sed -E 's/.*"threads":([0-9]+).*/\1/')
        done
        m1=$(printf '%s\n' "${one[@]}" | median)
        mn=$(printf '%s\n' "${many[@]}" | median)
        ma=$(printf '%s\n' "${auto[@]}" | median)
        words=$(( (w + 63) / 64 * h * gens ))
        awk -v s="$size" -v g="$gens" -v wg="$words" -v a="$m1" -v b="$mn" -v c="$ma" -v u="$used" \
            'BEGIN { printf "%-10s %6d %12.3g %10.4f %10.4f %8.2f %10.4f %7d\n", s, g, wg, a, b, a / b, c, u }'
    done
done
