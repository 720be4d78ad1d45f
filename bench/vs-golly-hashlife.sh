#!/usr/bin/env bash
# Side by side: Golly 3.3's HashLife (bgolly -a HashLife) against tilelife's cpu:hashlife, whole
# processes, over Golly's Patterns/HashLife/ folder and the guns, puffers, breeders and methuselahs
# of Patterns/Life/, each run to the same generation counts by both, the final cells checked equal.
#
#   bench/vs-golly-hashlife.sh [TILELIFE_BINARY]      (default: build/tilelife)
#   env: REPEATS (3)       runs of each program per job; the medians are compared
#        GENS ("1048576 1000003")  generation counts run from each pattern
#        ENGINE (cpu:hashlife)     tilelife's engine (cpu:auto gives the default's numbers)
#        TIMEOUT (300)     seconds a run may take before it counts as not finished
#        PATTERNS          the pattern files (default: the folders above, under $GOLLY_PATTERNS)
#        GOLLY_PATTERNS (/usr/share/golly/Patterns)
#        LONG ("...")      patterns too slow for both at GENS: run at LONG_GENS instead
#        LONG_GENS ("65536 65537")
#
# Per job: wall-clock seconds from start to exit (reading, running, writing the .mc: what a user
# waits for), CPU seconds (user + system: less sensitive to a busy machine) and maximum resident
# set size (/usr/bin/time's %M, KiB), medians of REPEATS runs,
# Golly and tilelife alternating. Both write .mc; the files (first line, the writer's name, aside)
# must be equal, else both are canonicalised by `tilelife convert` and compared again. Prints one
# Markdown table and the geometric means of the time and memory ratios; exits 1 when any result
# differs.
set -euo pipefail

TILELIFE=${1:-build/tilelife}
REPEATS=${REPEATS:-3}
GENS=${GENS:-"1048576 1000003"}
ENGINE=${ENGINE:-cpu:hashlife}
TIMEOUT=${TIMEOUT:-300}
GP=${GOLLY_PATTERNS:-/usr/share/golly/Patterns}
# Both programs need minutes per run for these at 2^20 (found by a first pass with TIMEOUT=120).
LONG=${LONG:-"triple-Snark-wick-extruder.rle.gz line-puffer-superstable.rle line-puffer-unstable.rle unlimited-novelty.mc"}
LONG_GENS=${LONG_GENS:-"65536 65537"}

command -v bgolly >/dev/null || { echo "vs-golly-hashlife: bgolly not found (apt-get install golly)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "vs-golly-hashlife: /usr/bin/time not found (apt-get install time)" >&2; exit 2; }
[ -x "$TILELIFE" ] || { echo "vs-golly-hashlife: $TILELIFE is not an executable (build it first)" >&2; exit 2; }
TILELIFE=$(realpath "$TILELIFE")
if [ -z "${PATTERNS:-}" ]; then
    PATTERNS=$(ls "$GP"/HashLife/* "$GP"/Life/Guns/* "$GP"/Life/Puffers/* "$GP"/Life/Breeders/* "$GP"/Life/Methuselahs/*)
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

median() { sort -g | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

# One timed run: prints "SECONDS MAXRSS_KB" or "timeout"/"failed".
# The wall clock is read around the process (/usr/bin/time's %e has 10 ms steps; both programs
# pay the same few milliseconds for the wrappers).
timed() {
    local rc=0 t0 t1
    t0=$(date +%s.%N)
    /usr/bin/time -o "$work/time" -f "%M %U %S" timeout "$TIMEOUT" "$@" >"$work/out" 2>&1 || rc=$?
    t1=$(date +%s.%N)
    if [ "$rc" = 124 ]; then echo timeout; elif [ "$rc" != 0 ]; then echo failed; else
        # "WALL MAXRSS CPU" (CPU: user + system seconds)
        echo "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }') $(tail -1 "$work/time" | awk '{ printf "%d %.2f", $1, $2 + $3 }')"; fi
}

same_result() {  # golly.mc ours.mc
    cmp -s <(tail -n +2 "$1") <(tail -n +2 "$2") && return 0
    "$TILELIFE" convert "$1" "$work/g2.mc" >/dev/null 2>&1 && "$TILELIFE" convert "$2" "$work/o2.mc" >/dev/null 2>&1 &&
        cmp -s <(tail -n +2 "$work/g2.mc") <(tail -n +2 "$work/o2.mc")
}

echo "machine:  $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(nproc) cores; load average at start $(cut -d' ' -f1-3 /proc/loadavg)"
echo "golly:    bgolly -a HashLife -m GENS -o golly.mc PATTERN   ($(bgolly 2>&1 | head -1 | sed 's/ Copyright.*//'))"
echo "tilelife: tilelife run PATTERN --gens GENS --kernel $ENGINE -o ours.mc -q   (REPEATS=$REPEATS, medians, TIMEOUT=${TIMEOUT}s)"
echo
echo "| pattern | generations | Golly s | tilelife s | speed-up | Golly CPU s | tilelife CPU s | CPU ratio | Golly MiB | tilelife MiB | memory ratio | cells |"
echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"
status=0
time_ratios=() mem_ratios=() cpu_ratios=()
for f in $PATTERNS; do
    name=$(basename "$f")
    gens=$GENS
    for l in $LONG; do [ "$l" = "$name" ] && gens=$LONG_GENS; done
    # Patterns tilelife cannot run (a rule that is not Life-like) are listed, not timed.
    if ! "$TILELIFE" info "$f" >/dev/null 2>"$work/err"; then
        echo "| $name | - | | | | | | | | | | not run: $(head -c 120 "$work/err" | tr '|\n' '/ ') |"
        continue
    fi
    for g in $gens; do
        gt=() gm=() gc=() ot=() om=() oc=() verdict=same
        for ((r = 1; r <= REPEATS; r++)); do
            rm -f "$work/golly.mc" "$work/ours.mc"
            a=$(timed bgolly -a HashLife -m "$g" -o "$work/golly.mc" "$f")
            b=$(timed "$TILELIFE" run "$f" --gens "$g" --kernel "$ENGINE" -o "$work/ours.mc" -q)
            if [ "$a" = timeout ] || [ "$a" = failed ] || [ "$b" = timeout ] || [ "$b" = failed ]; then
                verdict="golly: ${a%% *}, tilelife: ${b%% *}"
                [ "$a" != timeout ] && [ "$a" != failed ] && { read -r x y z <<<"$a"; gt+=("$x"); gm+=("$y"); gc+=("$z"); }
                [ "$b" != timeout ] && [ "$b" != failed ] && { read -r x y z <<<"$b"; ot+=("$x"); om+=("$y"); oc+=("$z"); }
                [ "$b" = failed ] && status=1
                break  # one unfinished run is enough to know
            fi
            read -r x y z <<<"$a"; gt+=("$x") gm+=("$y") gc+=("$z")
            read -r x y z <<<"$b"; ot+=("$x") om+=("$y") oc+=("$z")
            if [ "$r" = 1 ] && ! same_result "$work/golly.mc" "$work/ours.mc"; then verdict=DIFFERENT; status=1; fi
        done
        gs=$( ((${#gt[@]})) && printf '%s\n' "${gt[@]}" | median || echo "")
        os=$( ((${#ot[@]})) && printf '%s\n' "${ot[@]}" | median || echo "")
        gk=$( ((${#gm[@]})) && printf '%s\n' "${gm[@]}" | median || echo "")
        ok=$( ((${#om[@]})) && printf '%s\n' "${om[@]}" | median || echo "")
        gcpu=$( ((${#gc[@]})) && printf '%s\n' "${gc[@]}" | median || echo "")
        ocpu=$( ((${#oc[@]})) && printf '%s\n' "${oc[@]}" | median || echo "")
        if [ "$verdict" = same ]; then
            sp=$(awk -v a="$gs" -v b="$os" 'BEGIN { printf "%.2f", a / b }')
            mr=$(awk -v a="$gk" -v b="$ok" 'BEGIN { printf "%.2f", b / a }')
            cr=$(awk -v a="$gcpu" -v b="$ocpu" 'BEGIN { printf "%.2f", a / (b > 0.01 ? b : 0.01) }')
            time_ratios+=("$sp") mem_ratios+=("$mr")
            # CPU seconds come in 10 ms steps: jobs under 0.1 s on either side say nothing.
            awk -v a="$gcpu" -v b="$ocpu" 'BEGIN { exit !(a >= 0.1 && b >= 0.1) }' && cpu_ratios+=("$cr")
            echo "| $name | $g | $gs | $os | ${sp}x | $gcpu | $ocpu | ${cr}x | $(awk -v k="$gk" 'BEGIN { printf "%.1f", k / 1024 }') | $(awk -v k="$ok" 'BEGIN { printf "%.1f", k / 1024 }') | $mr | same |"
        else
            echo "| $name | $g | ${gs:-–} | ${os:-–} | | ${gcpu:-} | ${ocpu:-} | | ${gk:+$(awk -v k="$gk" 'BEGIN { printf "%.1f", k / 1024 }')} | ${ok:+$(awk -v k="$ok" 'BEGIN { printf "%.1f", k / 1024 }')} | | $verdict |"
        fi
    done
done
echo
geo() { awk 'NF { s += log($1); n++ } END { if (n) printf "%.2f (%d jobs)", exp(s / n), n; else printf "none" }'; }
echo "geometric mean speed-up (Golly s / tilelife s): $(printf '%s\n' "${time_ratios[@]}" | geo)"
echo "geometric mean CPU-time ratio (Golly user+sys / tilelife user+sys; jobs of >= 0.1 s CPU on both sides): $(printf '%s\n' "${cpu_ratios[@]}" | geo)"
echo "geometric mean memory ratio (tilelife / Golly max RSS): $(printf '%s\n' "${mem_ratios[@]}" | geo)"
echo "worst memory ratio: $(printf '%s\n' "${mem_ratios[@]}" | sort -g | tail -1); jobs with tilelife over Golly's memory: $(printf '%s\n' "${mem_ratios[@]}" | awk '$1 > 1' | wc -l)"
echo "load average at end $(cut -d' ' -f1-3 /proc/loadavg)"
exit $status
