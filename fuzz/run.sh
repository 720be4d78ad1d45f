#!/usr/bin/env bash
# Runs every fuzz target for a bounded time. Crashes, leaks and timeouts are kept as regression
# inputs under tests/fuzz_regressions/<target>/ (replayed by the hardening tests in `make test`).
set -uo pipefail
build=${1:?build dir}
seconds=${2:-60}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
status=0
summary=""
for fuzzer in "$build"/fuzz/fuzz_*; do
  [ -x "$fuzzer" ] || continue
  name=$(basename "$fuzzer")
  work="$build/fuzz-corpus/$name"
  found="$root/tests/fuzz_regressions/$name"
  mkdir -p "$work" "$found"
  echo "== $name for ${seconds}s"
  log="$build/fuzz-$name.log"
  "$fuzzer" "$work" "$here/corpus/$name" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
      -max_len=65536 -artifact_prefix="$found/" -print_final_stats=1 >"$log" 2>&1
  rc=$?
  execs=$(grep -m1 'stat::number_of_executed_units' "$log" | awk '{print $2}')
  cov=$(grep -E '^#[0-9]+.*(DONE|pulse|NEW|REDUCE)' "$log" | tail -n 1 | grep -o 'cov: [0-9]*' || true)
  line="$name: rc=$rc execs=${execs:-?} ${cov:-cov: ?}"
  echo "$line"
  summary+="$line"$'\n'
  if [ $rc -ne 0 ]; then status=1; echo "   crash input(s) kept in $found; log: $log"; tail -n 30 "$log"; fi
  rmdir "$found" 2>/dev/null || true
done
echo
echo "== fuzz summary"
printf '%s' "$summary"
exit $status
