#!/usr/bin/env bash
# cpu:hashlife's threads on Golly's large macrocells: whole processes with --threads 1, 2, 4, ...
# for one or more tilelife binaries (e.g. main and a change), each run's wall and CPU seconds, every
# output compared with the job's first run, then medians and speed-ups over the
# first binary's one thread, and each job's task graph (--param tasks=always: work / span, the bound
# on any number of cores' speed-up over one thread).
#
#   bench/hashlife-threads.sh BINARY [BINARY...]
#   env: THREADS ("1 2 4 8 16"; counts above the cores are skipped; speed-ups need 1), REPS (3),
#        GOLLY_PATTERNS (/usr/share/golly/Patterns)
#        JOBS ("FILE GENS;..." under $GOLLY_PATTERNS/HashLife; default: the eight of docs/benchmarks.md)
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: $0 BINARY [BINARY...]" >&2; exit 2; }
bins=()
for b in "$@"; do bins+=("$(realpath "$b")"); done
REPS=${REPS:-3}
N=$(nproc)
THREADS=${THREADS:-"1 2 4 8 16"}
dir=${GOLLY_PATTERNS:-/usr/share/golly/Patterns}/HashLife
JOBS=${JOBS:-"demonoid-c512-hashlife-friendly.mc.gz 1048576;metapixel-p216-gun.mc.gz 1048576;hexadecimal.mc.gz 262144;metapixel-parity64.mc.gz 1048576;loafer-gun-p8388608-linear.mc.gz 1048576;linear-propagator-p237228340.mc.gz 4194304;metapixel-galaxy.mc.gz 1048576;catacryst.mc 1048576"}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
TIMEFORMAT="%R %U %S"
echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $N cores; load average $(cut -d' ' -f1-3 /proc/loadavg)"
log=$work/log
IFS=';' read -ra jobs <<<"$JOBS"
for job in "${jobs[@]}"; do
    read -r file gens <<<"$job"
    for t in $THREADS; do
        [ "$t" -le "$N" ] || continue
        for i in "${!bins[@]}"; do
            for r in $(seq "$REPS"); do
                s=$( { time "${bins[$i]}" run "$dir/$file" --gens "$gens" --kernel cpu:hashlife --threads "$t" -q \
                         -o "$work/$i.$t.mc" >/dev/null; } 2>&1 | tail -1)
                echo "$file $i $t $s" | tee -a "$log"
            done
            [ -f "$work/ref.mc" ] || cp "$work/$i.$t.mc" "$work/ref.mc"
            cmp -s "$work/ref.mc" "$work/$i.$t.mc" || { echo "$file: binary $i, $t threads: cells differ" >&2; exit 1; }
        done
    done
    g=$("${bins[0]}" run "$dir/$file" --gens "$gens" --kernel cpu:hashlife --threads 1 --param tasks=always --json \
          -o "$work/g.mc" | grep -oE '"task_(work|span)_seconds":[0-9.eE+-]+' | cut -d: -f2 | tr '\n' ' ')
    echo "$file graph $g" | tee -a "$log"
    rm -f "$work/ref.mc"
done
echo
echo "medians: wall s (CPU s) and speed-up over binary 0's one thread; task graph of binary 0"
awk -v nb=${#bins[@]} -v threads="$THREADS" '
    $2 == "graph" { work[$1] = $3; span[$1] = $4; next }
    { key = $1 SUBSEP $2 SUBSEP $3; n[key]++; w[key, n[key]] = $4; c[key, n[key]] = $5 + $6
      if (!($1 in seen)) { seen[$1] = 1; order[++jobs] = $1 } }
    function med(arr, key, k,   i, j, t, v) {
        for (i = 1; i <= k; i++) v[i] = arr[key, i]
        for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
        return (k % 2) ? v[(k + 1) / 2] : (v[k / 2] + v[k / 2 + 1]) / 2 }
    END {
        split(threads, ts, " ")
        for (o = 1; o <= jobs; o++) {
            f = order[o]; base = med(w, f SUBSEP 0 SUBSEP 1, n[f SUBSEP 0 SUBSEP 1])
            for (b = 0; b < nb; b++) {
                line = sprintf("%-40s %d", f, b)
                for (x = 1; x in ts; x++) {
                    key = f SUBSEP b SUBSEP ts[x]
                    if (!(key in n)) continue
                    m = med(w, key, n[key])
                    line = line sprintf("  %st: %.3f (%.2f) %.2fx", ts[x], m, med(c, key, n[key]), base / m)
                }
                print line
            }
            if (f in work) printf "%-40s graph: work %.3f s, span %.3f s, work / span %.2f\n", f, work[f], span[f], work[f] / span[f]
        }
    }' "$log"
