#!/usr/bin/env bash
# Side by side: Golly 3.3's HashLife (bgolly -a HashLife) against tilelife, whole processes, over
# every pattern of Golly's Patterns/HashLife/ and Patterns/Life/*/ folders, each run to the same
# generation counts by both, the final cells checked equal.
#
#   bench/vs-golly-hashlife.sh [TILELIFE_BINARY]      (default: build/tilelife)
#   env: REPEATS (3)       runs of each program per job; the medians are compared
#        GENS ("1048576 1000003")  generation counts run from each pattern (a power of two, an odd count)
#        ENGINES ("cpu:hashlife")  tilelife's engines, each timed against the same Golly runs
#                          ("default cpu:hashlife": the default engine's numbers (no --kernel) and
#                          HashLife's); ENGINE (one engine) is the older name of this setting
#        BOUNDED_GENS ("1024 1001")  generation counts for bounded grids (a rule with a :T or :P
#                          suffix), which Golly's HashLife steps one generation at a time
#        TIMEOUT (300)     CPU seconds a run may take before it counts as not finished (ulimit -t:
#                          the same bound on a busy machine as on a quiet one)
#        WALL_TIMEOUT (10 x TIMEOUT)  wall-clock seconds a run may take, for runs that wait
#        PATTERNS          the pattern files (default: the folders above, under $GOLLY_PATTERNS)
#        GOLLY_PATTERNS (/usr/share/golly/Patterns)
#        LONG ("...")      patterns too slow for both at GENS: run at LONG_GENS instead
#        LONG_GENS ("65536 65537")
#        MEMORY            MiB given to both programs: bgolly -M MEMORY and tilelife --max-memory
#                          MEMORYM, where each HashLife collects (default: none, each one's own)
#        FLOOR_KIB (2048)  the process floor: a job whose tilelife max RSS exceeds Golly's by more
#                          is marked "mem" (issue 23: never more than Golly's plus the floor)
#
# Per job: wall-clock seconds from start to exit (reading, running, writing the .mc: what a user
# waits for), CPU seconds (user + system: less sensitive to a busy machine) and maximum resident
# set size (/usr/bin/time's %M, KiB), medians of REPEATS runs, Golly and each engine alternating.
# Both write .mc; the files (the first line, the writer's name, and #C/#N/#O lines aside) must be equal, else both are
# canonicalised by `tilelife convert` and compared again. Jobs slower than Golly (wall) are marked
# "**slower**", jobs over Golly's memory plus the floor "mem". Patterns tilelife refuses (rules that
# are not Life-like) are listed with tilelife's reason, not timed. Prints one Markdown table per
# engine and the geometric means of the time and memory ratios; exits 1 when any result differs.
set -euo pipefail

TILELIFE=${1:-build/tilelife}
REPEATS=${REPEATS:-3}
GENS=${GENS:-"1048576 1000003"}
ENGINES=${ENGINES:-${ENGINE:-cpu:hashlife}}
FLOOR_KIB=${FLOOR_KIB:-2048}
TIMEOUT=${TIMEOUT:-300}
WALL_TIMEOUT=${WALL_TIMEOUT:-$((TIMEOUT * 10))}
GP=${GOLLY_PATTERNS:-/usr/share/golly/Patterns}
# Both programs need minutes per run for these at 2^20 (found by a first pass with TIMEOUT=120).
LONG=${LONG:-"triple-Snark-wick-extruder.rle.gz line-puffer-superstable.rle line-puffer-unstable.rle unlimited-novelty.mc"}
LONG_GENS=${LONG_GENS:-"65536 65537"}
BOUNDED_GENS=${BOUNDED_GENS:-"1024 1001"}

command -v bgolly >/dev/null || { echo "vs-golly-hashlife: bgolly not found (apt-get install golly)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "vs-golly-hashlife: /usr/bin/time not found (apt-get install time)" >&2; exit 2; }
[ -x "$TILELIFE" ] || { echo "vs-golly-hashlife: $TILELIFE is not an executable (build it first)" >&2; exit 2; }
TILELIFE=$(realpath "$TILELIFE")
if [ -z "${PATTERNS:-}" ]; then
    PATTERNS=$(ls "$GP"/HashLife/* "$GP"/Life/*/*)
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"  # median

# One timed run: prints "SECONDS MAXRSS_KB CPU" or "timeout"/"failed" (its output in $work/out).
# The wall clock is read around the process (/usr/bin/time's %e has 10 ms steps; both programs
# pay the same few milliseconds for the wrappers).
timed() {
    local rc=0 t0 t1
    t0=$(date +%s.%N)
    (ulimit -t "$TIMEOUT" && exec /usr/bin/time -o "$work/time" -f "%M %U %S" timeout "$WALL_TIMEOUT" "$@") \
        >"$work/out" 2>&1 || rc=$?
    t1=$(date +%s.%N)
    # 124: over the wall-clock bound; SIGXCPU (24) or SIGKILL (9): over the CPU bound.
    if [ "$rc" = 124 ] || grep -qE "signal (24|9)$" "$work/time"; then echo timeout; elif [ "$rc" != 0 ]; then echo failed; else
        # "WALL MAXRSS CPU" (CPU: user + system seconds)
        echo "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }') $(tail -1 "$work/time" | awk '{ printf "%d %.2f", $1, $2 + $3 }')"; fi
}

# The cells and the generation, without the writer's name (line 1) and the #C, #N and #O lines
# (comments, name, author) that tilelife keeps from the pattern file and Golly drops.
cells_of() { tail -n +2 "$1" | grep -v '^#[CNO]'; }
same_result() {  # golly.mc ours.mc
    cmp -s <(cells_of "$1") <(cells_of "$2") && return 0
    "$TILELIFE" convert "$1" "$work/g2.mc" >/dev/null 2>&1 && "$TILELIFE" convert "$2" "$work/o2.mc" >/dev/null 2>&1 &&
        cmp -s <(cells_of "$work/g2.mc") <(cells_of "$work/o2.mc")
}

echo "machine:  $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(nproc) cores; load average at start $(cut -d' ' -f1-3 /proc/loadavg); $(date -u '+%Y-%m-%d %H:%M UTC')"
gmem=() tmem=()
[ -n "${MEMORY:-}" ] && gmem=(-M "$MEMORY") tmem=(--max-memory "${MEMORY}M")
echo "golly:    bgolly -a HashLife ${gmem[*]} -m START+GENS -o golly.mc PATTERN   ($(bgolly 2>&1 | head -1 | sed 's/ Copyright.*//'))"
echo "tilelife: tilelife run PATTERN --gens GENS --kernel ENGINE ${tmem[*]} -o ours.mc -q   (ENGINES: $ENGINES; REPEATS=$REPEATS, medians, TIMEOUT=${TIMEOUT} CPU s, ${WALL_TIMEOUT} s wall)"
echo

engines=($ENGINES)
ne=${#engines[@]}
status=0
rows=()  # "engine_index|row"
declare -a time_ratios mem_ratios cpu_ratios slower over_memory
for ((e = 0; e < ne; e++)); do time_ratios[e]="" mem_ratios[e]="" cpu_ratios[e]="" slower[e]=0 over_memory[e]=0; done

mib() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }
# A table row of engine $1, kept for its table and shown on stderr at once (long runs).
row() { rows+=("$1|$2"); echo "${engines[$1]} $2" >&2; }
median_of() { (($#)) && printf '%s\n' "$@" | median || echo ""; }

for f in $PATTERNS; do
    name=$(basename "$f")
    gens=$GENS
    for l in $LONG; do [ "$l" = "$name" ] && gens=$LONG_GENS; done
    "$TILELIFE" info "$f" 2>/dev/null | grep -qE '^rule .*:[TP]' && gens=$BOUNDED_GENS
    # Patterns tilelife cannot run (a rule that is not Life-like) are listed, not timed.
    if ! "$TILELIFE" info "$f" >/dev/null 2>"$work/err"; then
        for ((e = 0; e < ne; e++)); do
            row "$e" "| $name | - | | | | | | | | | | not run by tilelife: $(head -c 120 "$work/err" | tr '|\n' '/ ') |"
        done
        continue
    fi
    # bgolly's -m is the generation to stop at, counted from the file's own (an extended RLE's Gen=,
    # a macrocell's #G); tilelife's --gens is how many to run.
    start=$("$TILELIFE" info "$f" 2>/dev/null | awk '$1 == "generation" { print $2 }')
    for g in $gens; do
        gt=() gm=() gc=() golly_state=ok
        declare -A ot=() om=() oc=() verdict=() dead=()
        for ((e = 0; e < ne; e++)); do verdict[$e]=same dead[$e]=""; done
        for ((r = 1; r <= REPEATS; r++)); do
            rm -f "$work/golly.mc"
            a=$(timed bgolly -a HashLife "${gmem[@]}" -m "$((${start:-0} + g))" -o "$work/golly.mc" "$f")
            if [ "$a" = timeout ] || [ "$a" = failed ]; then golly_state=$a; else
                read -r x y z <<<"$a"; gt+=("$x") gm+=("$y") gc+=("$z"); fi
            live=0
            for ((e = 0; e < ne; e++)); do
                [ -n "${dead[$e]}" ] && continue
                rm -f "$work/ours.mc"
                kernel=(--kernel "${engines[e]}")
                [ "${engines[e]}" = default ] && kernel=()
                b=$(timed "$TILELIFE" run "$f" --gens "$g" "${kernel[@]}" "${tmem[@]}" -o "$work/ours.mc" -q)
                if [ "$b" = timeout ] || [ "$b" = failed ]; then
                    # A refusal (exit 2: an engine that does not run this topology) is shown, not an error.
                    dead[$e]=$b
                    [ "$b" = failed ] && dead[$e]="failed ($(head -c 100 "$work/out" | tr '|\n' '/ '))" &&
                        ! grep -q "runs only\|does not run" "$work/out" && status=1
                    continue
                fi
                live=1
                read -r x y z <<<"$b"; ot[$e]+=" $x" om[$e]+=" $y" oc[$e]+=" $z"
                if [ "$r" = 1 ] && [ "$golly_state" = ok ] && ! same_result "$work/golly.mc" "$work/ours.mc"; then
                    verdict[$e]=DIFFERENT; status=1; fi
            done
            # One unfinished run is enough to know.
            [ "$golly_state" != ok ] || [ "$live" = 0 ] && break
        done
        gs=$(median_of "${gt[@]}") gk=$(median_of "${gm[@]}") gcpu=$(median_of "${gc[@]}")
        for ((e = 0; e < ne; e++)); do
            os=$(median_of ${ot[$e]:-}) ok=$(median_of ${om[$e]:-}) ocpu=$(median_of ${oc[$e]:-})
            if [ "$golly_state" = ok ] && [ -z "${dead[$e]}" ] && [ "${verdict[$e]}" = same ]; then
                sp=$(awk -v a="$gs" -v b="$os" 'BEGIN { printf "%.2f", a / b }')
                mr=$(awk -v a="$gk" -v b="$ok" 'BEGIN { printf "%.2f", b / a }')
                cr=$(awk -v a="$gcpu" -v b="$ocpu" 'BEGIN { printf "%.2f", a / (b > 0.01 ? b : 0.01) }')
                time_ratios[e]+=" $sp" mem_ratios[e]+=" $mr"
                # CPU seconds come in 10 ms steps: jobs under 0.1 s on either side say nothing.
                awk -v a="$gcpu" -v b="$ocpu" 'BEGIN { exit !(a >= 0.1 && b >= 0.1) }' && cpu_ratios[e]+=" $cr"
                marks=""
                awk -v s="$sp" 'BEGIN { exit !(s < 1) }' && { marks="**slower**"; slower[e]=$((slower[e] + 1)); }
                if [ "$ok" -gt $((gk + FLOOR_KIB)) ]; then marks="${marks:+$marks, }mem"; over_memory[e]=$((over_memory[e] + 1)); fi
                row "$e" "| $name | $g | $gs | $os | ${sp}x | $gcpu | $ocpu | ${cr}x | $(mib "$gk") | $(mib "$ok") | $mr | same | $marks |"
            else
                v=${verdict[$e]}
                [ "$golly_state" != ok ] || [ -n "${dead[$e]}" ] && v="golly: ${golly_state}, tilelife: ${dead[$e]:-ok}"
                row "$e" "| $name | $g | ${gs:-–} | ${os:-–} | | ${gcpu:-} | ${ocpu:-} | | ${gk:+$(mib "$gk")} | ${ok:+$(mib "$ok")} | | $v | |"
            fi
        done
        unset ot om oc verdict dead
    done
done

geo() { awk 'NF { s += log($1); n++ } END { if (n) printf "%.2f (%d jobs)", exp(s / n), n; else printf "none" }'; }
for ((e = 0; e < ne; e++)); do
    echo "### ${engines[e]}"
    echo
    echo "| pattern | generations | Golly s | tilelife s | speed-up | Golly CPU s | tilelife CPU s | CPU ratio | Golly MiB | tilelife MiB | memory ratio | cells | marks |"
    echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |"
    for r in "${rows[@]}"; do [ "${r%%|*}" = "$e" ] && echo "${r#*|}"; done
    echo
    echo "geometric mean speed-up (Golly s / tilelife s): $(printf '%s\n' ${time_ratios[e]} | geo); jobs slower than Golly: ${slower[e]}"
    echo "geometric mean CPU-time ratio (Golly user+sys / tilelife user+sys; jobs of >= 0.1 s CPU on both sides): $(printf '%s\n' ${cpu_ratios[e]} | geo)"
    echo "geometric mean memory ratio (tilelife / Golly max RSS): $(printf '%s\n' ${mem_ratios[e]} | geo)"
    echo "worst memory ratio: $(printf '%s\n' ${mem_ratios[e]} | sort -g | tail -1); jobs over Golly's memory: $(printf '%s\n' ${mem_ratios[e]} | awk '$1 > 1' | wc -l), over it by more than ${FLOOR_KIB} KiB: ${over_memory[e]}"
    echo
done
echo "load average at end $(cut -d' ' -f1-3 /proc/loadavg); $(date -u '+%Y-%m-%d %H:%M UTC')"
exit $status
