#!/usr/bin/env bash
# Side by side: converting a pattern file with no generations run, Golly 3.3 (`bgolly -m 0 -o OUT
# FILE`) against `tilelife convert FILE OUT`, whole processes, the outputs checked cell for cell.
#
#   bench/vs-golly-convert.sh FILE...
#   env: TILELIFE (build/tilelife)  the binary
#        REPEATS (5)     runs of each program per job, alternating; the medians are compared
#        OUTPUTS ("mc rle")  the output formats
#        FLOOR_KIB (2048)    a job whose tilelife max RSS exceeds Golly's by more is marked "mem"
#
# Golly reads and writes .mc only with its HashLife algorithm (its default, QuickLife, refuses to
# read one and, asked to write one, prints "Not yet implemented" and leaves the file empty), so jobs
# with a .mc on either side run `bgolly -a HashLife`; RLE to RLE runs Golly's default. Per job: wall seconds, CPU seconds (user + system) and maximum resident set
# (KiB), medians. Exits 1 when an output differs or a run fails.
set -euo pipefail

TILELIFE=${TILELIFE:-build/tilelife}
REPEATS=${REPEATS:-5}
OUTPUTS=${OUTPUTS:-"mc rle"}
FLOOR_KIB=${FLOOR_KIB:-2048}
[ $# -gt 0 ] || { echo "usage: bench/vs-golly-convert.sh FILE... (env TILELIFE: the binary)" >&2; exit 2; }
command -v bgolly >/dev/null || { echo "vs-golly-convert: bgolly not found (apt-get install golly)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "vs-golly-convert: /usr/bin/time not found (apt-get install time)" >&2; exit 2; }
[ -x "$TILELIFE" ] || { echo "vs-golly-convert: $TILELIFE is not an executable (build it first)" >&2; exit 2; }
TILELIFE=$(realpath "$TILELIFE")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"  # median
# The text that must be the same: a macrocell after its first line (the writer's name), an RLE from
# its "x = " line (Golly's default writer leaves out "#CXRLE Pos=", which tilelife writes); both
# without comment lines, which tilelife keeps and Golly drops.
body() {
    case $1 in
    *.mc) tail -n +2 "$1" | grep -v '^#' ;;
    *) sed -n '/^x = /,$p' "$1" ;;
    esac
}
# One run: appends "WALL MAXRSS CPU" to the file named first.
timed() {
    local into=$1 t0 t1
    shift
    t0=$(date +%s.%N)
    if ! /usr/bin/time -o "$work/time" -f "%M %U %S" "$@" >"$work/err" 2>&1; then
        echo failed >>"$into"
        return
    fi
    t1=$(date +%s.%N)
    echo "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f", b - a }') $(tail -1 "$work/time" | awk '{ printf "%d %.3f", $1, $2 + $3 }')" >>"$into"
}

echo "golly:    bgolly [-a HashLife where a .mc is read or written] -m 0 -o OUT FILE   ($(bgolly 2>&1 | head -1 | sed 's/ Copyright.*//'))"
echo "tilelife: $TILELIFE convert FILE OUT   (REPEATS=$REPEATS, medians; $(nproc) CPUs, $(date -u +%Y-%m-%dT%H:%MZ))"
echo
echo "| file | out | Golly s | tilelife s | speed-up | CPU speed-up | Golly MiB | tilelife MiB | |"
echo "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |"
status=0
for f in "$@"; do
    for ext in $OUTPUTS; do
        algo=()
        [[ "$ext" = mc || "$f" == *.mc || "$f" == *.mc.gz ]] && algo=(-a HashLife)
        : >"$work/g" && : >"$work/t"
        for ((r = 0; r < REPEATS; ++r)); do
            timed "$work/g" bgolly "${algo[@]}" -m 0 -o "$work/golly.$ext" "$f"
            timed "$work/t" "$TILELIFE" convert "$f" "$work/ours.$ext"
        done
        if grep -q failed "$work/g" "$work/t"; then
            echo "| $(basename "$f") | $ext | failed: $(grep -l failed "$work/g" >/dev/null && echo Golly || echo tilelife) |"
            status=1
            continue
        fi
        note=""
        if ! cmp -s <(body "$work/golly.$ext") <(body "$work/ours.$ext"); then
            note="**differs**"
            status=1
        fi
        gw=$(awk '{ print $1 }' "$work/g" | median) tw=$(awk '{ print $1 }' "$work/t" | median)
        gm=$(awk '{ print $2 }' "$work/g" | median) tm=$(awk '{ print $2 }' "$work/t" | median)
        gc=$(awk '{ print $3 }' "$work/g" | median) tc=$(awk '{ print $3 }' "$work/t" | median)
        [ "$(awk -v a="$tm" -v b="$gm" -v f="$FLOOR_KIB" 'BEGIN { print (a > b + f) }')" = 1 ] && note="$note mem"
        awk -v f="$(basename "$f")" -v e="$ext" -v gw="$gw" -v tw="$tw" -v gc="$gc" -v tc="$tc" -v gm="$gm" -v tm="$tm" \
            -v n="$note" 'BEGIN { cpu = tc > 0 ? sprintf("%.2fx", gc / tc) : "-"
                printf "| %s | %s | %.3f | %.3f | %.2fx | %s | %.1f | %.1f | %s |\n",
                f, e, gw, tw, gw / tw, cpu, gm / 1024, tm / 1024, n }'
    done
done
exit $status
