#!/usr/bin/env bash
# Side-by-side: Golly 3.3's QuickLife (bgolly) against tilelife's cpu:bitpacked on the same job,
# checking both give the same cells. JOB picks it:
#   torus (default): a 1536x1792 torus soup (density 0.5) for 600 generations
#   soup:            a 640x480 random soup (density 0.45) on the unbounded plane, 3000 generations
#   gun:             the Gosper glider gun on the unbounded plane, 100000 generations
#
#   bench/vs-golly.sh [TILELIFE_BINARY]      (default: build/tilelife)
#   env: JOB, REPEATS (3), GENS (600 / 3000 / 100000), SIZE (1536x1792 / 640x480), SEED (1),
#        THREADS (0 = the engine's choice), BEFORE (another tilelife binary, e.g. a build of an
#        older commit, timed in the same loop: before/after side by side), KERNEL (bitpacked; auto
#        is the unbounded plane's default), PARAMS (e.g. "--param activity=off")
#
# Times are wall-clock per process (start to exit, file I/O included, as a user sees them); the
# medians of REPEATS runs are compared. tilelife's own stepping time (--json "seconds") is shown too.
set -euo pipefail

TILELIFE=${1:-build/tilelife}
JOB=${JOB:-torus}
REPEATS=${REPEATS:-3}
case "$JOB" in
    torus) GENS=${GENS:-600}; SIZE=${SIZE:-1536x1792} ;;
    soup) GENS=${GENS:-3000}; SIZE=${SIZE:-640x480} ;;
    gun) GENS=${GENS:-100000}; SIZE=${SIZE:-36x9} ;;
    *) echo "vs-golly: JOB is torus, soup or gun" >&2; exit 2 ;;
esac
SEED=${SEED:-1}
THREADS=${THREADS:-0}
BEFORE=${BEFORE:-}
KERNEL=${KERNEL:-bitpacked}
PARAMS=${PARAMS:-}
W=${SIZE%x*}
H=${SIZE#*x}

command -v bgolly >/dev/null || { echo "vs-golly: bgolly not found (apt-get install golly)" >&2; exit 2; }
[ -x "$TILELIFE" ] || { echo "vs-golly: $TILELIFE is not an executable (build it first)" >&2; exit 2; }
command -v python3 >/dev/null || { echo "vs-golly: python3 is needed to compare the results" >&2; exit 2; }
TILELIFE=$(realpath "$TILELIFE")
if [ -n "$BEFORE" ]; then
    [ -x "$BEFORE" ] || { echo "vs-golly: BEFORE=$BEFORE is not an executable" >&2; exit 2; }
    BEFORE=$(realpath "$BEFORE")
fi
PATTERNS=$(realpath "$(dirname "$0")/../patterns")
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"  # median

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"

# The job: a random soup, as RLE with the torus in its rule suffix so both programs read the same
# board from the same file. The "#CXRLE Pos=0,0" line goes: Golly would put the soup's top-left at
# its (0,0), the torus's centre, instead of centring it, and clip three quarters of it away.
# Unbounded jobs keep "#CXRLE Pos=0,0" so that both programs put the pattern at the same place.
case "$JOB" in
    torus)
        "$TILELIFE" convert "random:${W}x${H}:0.5:${SEED}" soup.rle >/dev/null
        grep -v '^#CXRLE' soup.rle | sed -E "s/^(x = [0-9]+, y = [0-9]+), rule = .*/\1, rule = B3\/S23:T${W},${H}/" > job.rle
        grep -q "rule = B3/S23:T${W},${H}" job.rle || { echo "vs-golly: could not set the torus rule" >&2; exit 1; } ;;
    soup)
        "$TILELIFE" convert "random:${W}x${H}:0.45:${SEED}" soup.rle >/dev/null
        { echo '#CXRLE Pos=0,0'; grep -v '^#CXRLE' soup.rle; } > job.rle ;;
    gun)
        { echo '#CXRLE Pos=0,0'; grep -v '^#CXRLE' "$PATTERNS/gosper-glider-gun.rle"; } > job.rle ;;
esac

now() { date +%s.%N; }

golly_times=() ours_times=() ours_engine=() before_times=()
for ((r = 1; r <= REPEATS; r++)); do
    t0=$(now)
    bgolly -a QuickLife -m "$GENS" -o golly.rle job.rle >/dev/null 2>&1
    t1=$(now)
    json=$("$TILELIFE" run job.rle --gens "$GENS" --backend cpu --kernel "$KERNEL" --threads "$THREADS" $PARAMS -o ours.rle --json)
    t2=$(now)
    golly_times+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')")
    ours_times+=("$(awk -v a="$t1" -v b="$t2" 'BEGIN { printf "%.3f", b - a }')")
    ours_engine+=("$(echo "$json" | sed -E 's/.*"seconds":([0-9.eE+-]+).*/\1/')")
    if [ -n "$BEFORE" ]; then
        t3=$(now)
        "$BEFORE" run job.rle --gens "$GENS" --backend cpu --kernel "$KERNEL" --threads "$THREADS" $PARAMS -o before.rle --json >/dev/null
        t4=$(now)
        before_times+=("$(awk -v a="$t3" -v b="$t4" 'BEGIN { printf "%.3f", b - a }')")
        cmp -s ours.rle before.rle || { echo "vs-golly: $BEFORE wrote another result" >&2; exit 1; }
    fi
done

# Same result? Decode both RLE files (ours has an extra #CXRLE line and its own position), move each
# cell set to its bounding box's top-left and compare.
python3 - golly.rle ours.rle <<'EOF'
import re, sys

def cells(path):
    out, x, y, n = set(), 0, 0, ''
    body = ''.join(l.strip() for l in open(path) if l.strip() and not l.startswith('#') and not l.startswith('x'))
    for ch in body:
        if ch.isdigit(): n += ch; continue
        k = int(n or 1); n = ''
        if ch == 'b': x += k
        elif ch == 'o': out.update((x + i, y) for i in range(k)); x += k
        elif ch == '$': y += k; x = 0
        elif ch == '!': break
    if not out: return out
    mx, my = min(c[0] for c in out), min(c[1] for c in out)
    return {(a - mx, b - my) for a, b in out}

g, o = cells(sys.argv[1]), cells(sys.argv[2])
if g != o:
    print(f"vs-golly: RESULTS DIFFER: golly {len(g)} cells, tilelife {len(o)} cells, {len(g ^ o)} differ")
    sys.exit(1)
print(f"results agree: {len(g)} live cells after the run")
EOF

gm=$(printf '%s\n' "${golly_times[@]}" | median)
om=$(printf '%s\n' "${ours_times[@]}" | median)
em=$(printf '%s\n' "${ours_engine[@]}" | median)
echo "job:      ${JOB} (${SIZE}, seed ${SEED}), B3/S23, ${GENS} generations, ${REPEATS} runs each"
echo "machine:  $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(nproc) cores; load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "golly:    bgolly -a QuickLife -m ${GENS} -o golly.rle job.rle"
echo "tilelife: tilelife run job.rle --gens ${GENS} --backend cpu --kernel ${KERNEL} --threads ${THREADS} ${PARAMS} -o ours.rle"
echo "golly    runs (s): ${golly_times[*]}"
echo "tilelife runs (s): ${ours_times[*]}   (stepping only: ${ours_engine[*]})"
printf 'median:   golly %.3f s, tilelife %.3f s (stepping %.4f s)\n' "$gm" "$om" "$em"
awk -v g="$gm" -v o="$om" -v e="$em" 'BEGIN { printf "speed-up: %.1fx per process, %.1fx on stepping alone\n", g / o, g / e }'
if [ -n "$BEFORE" ]; then
    bm=$(printf '%s\n' "${before_times[@]}" | median)
    echo "before:   $BEFORE runs (s): ${before_times[*]}"
    awk -v g="$gm" -v b="$bm" -v o="$om" 'BEGIN { printf "before:   median %.3f s, %.1fx golly per process; after %.1fx (%.2fx faster)\n", b, g / b, g / o, b / o }'
fi
