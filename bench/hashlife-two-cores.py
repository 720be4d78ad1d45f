#!/usr/bin/env python3
"""cpu:hashlife on two cores, against what the two cores can give.

On a VM the two CPUs need not be equal, nor stay so: on dev-epyc one of them ran a plain loop at 70%
of the other's speed for hours (docs/hashlife.md, "Threads"). So a 2-thread speed-up over one thread
means little alone. This script measures, in one call, interleaved in random order, all within CPUs
0 and 1 (taskset):
  * each CPU's speed: a fixed Python loop pinned to it;
  * one thread pinned to CPU 0, to CPU 1, and left to the scheduler;
  * two threads (NEW, and BEFORE if given);
  * the capacity: two one-thread processes side by side, whose throughput over one process alone
    bounds what any 2-thread run can reach on this machine at this hour;
and prints medians of wall and CPU seconds (user + system), the speed-ups and the share of the
capacity that two threads reach. Every output file must equal the first one-thread run's.

    bench/hashlife-two-cores.py [--reps N] [--pattern FILE] [--gens G] [--cpus A,B] NEW [BEFORE]

--cpus picks the two CPUs (default 0,1): on a larger machine, two that are not one core's SMT
siblings (lscpu -e lists the cores).
"""
import argparse
import filecmp
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time

SPIN = "x = 0\nfor i in range(12_000_000): x += i * 7\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("new")
    ap.add_argument("before", nargs="?")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--pattern", default="/usr/share/golly/Patterns/HashLife/demonoid-c512-hashlife-friendly.mc.gz")
    ap.add_argument("--gens", default="1048576")
    ap.add_argument("--cpus", default="0,1", help="the two CPUs, A,B")
    a = ap.parse_args()
    if not re.fullmatch(r"\d+,\d+", a.cpus) or len(set(a.cpus.split(","))) != 2:
        ap.error(f"--cpus {a.cpus}: two different CPU numbers, A,B")
    c0, c1 = a.cpus.split(",")
    both = f"{c0},{c1}"
    if len(os.sched_getaffinity(0) & {int(c0), int(c1)}) < 2:
        sys.exit(f"needs CPUs {c0} and {c1}")
    work = tempfile.mkdtemp()

    def run(binary, threads, cpus, out):
        return ["taskset", "-c", cpus, binary, "run", a.pattern, "--gens", a.gens, "-q", "--kernel", "cpu:hashlife",
                "--threads", str(threads), "-o", os.path.join(work, out)]

    jobs = {
        f"loop, CPU {c0}": [["taskset", "-c", c0, sys.executable, "-c", SPIN]],
        f"loop, CPU {c1}": [["taskset", "-c", c1, sys.executable, "-c", SPIN]],
        f"1 thread, CPU {c0}": [run(a.new, 1, c0, "ref.mc")],
        f"1 thread, CPU {c1}": [run(a.new, 1, c1, "a.mc")],
        "1 thread": [run(a.new, 1, both, "b.mc")],
        "2 threads": [run(a.new, 2, both, "c.mc")],
        "two 1-thread processes": [run(a.new, 1, both, "d.mc"), run(a.new, 1, both, "e.mc")],
    }
    if a.before:
        jobs["2 threads, before"] = [run(a.before, 2, both, "f.mc")]
    times = {k: [] for k in jobs}
    cpu = {k: [] for k in jobs}
    print(f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, load average "
          f"{' '.join(open('/proc/loadavg').read().split()[:3])}; {a.pattern} to {a.gens}", flush=True)
    for _ in range(a.reps):
        order = list(jobs)
        random.shuffle(order)
        for k in order:
            t = time.perf_counter()
            procs = [subprocess.Popen(c, stdout=subprocess.DEVNULL) for c in jobs[k]]
            used = 0.0
            for p in procs:
                _, status, ru = os.wait4(p.pid, 0)
                if status != 0:
                    sys.exit(f"{k}: a run failed")
                used += ru.ru_utime + ru.ru_stime
            times[k].append(time.perf_counter() - t)
            cpu[k].append(used)
        for f in os.listdir(work):
            if f != "ref.mc" and not filecmp.cmp(os.path.join(work, "ref.mc"), os.path.join(work, f), shallow=False):
                sys.exit(f"{f}: cells differ from one thread's")
    med = {k: statistics.median(v) for k, v in times.items()}
    for k, v in times.items():
        print(f"{k:24} median {med[k]:7.3f} s (CPU {statistics.median(cpu[k]):.3f} s)   runs {' '.join(f'{x:.2f}' for x in v)}")
    fast = min(med[f"1 thread, CPU {c0}"], med[f"1 thread, CPU {c1}"])
    slow = max(med[f"1 thread, CPU {c0}"], med[f"1 thread, CPU {c1}"])
    capacity = 2 * med["1 thread"] / med["two 1-thread processes"]
    print(f"loop speed, CPU {c1} / CPU {c0}: {med[f'loop, CPU {c0}'] / med[f'loop, CPU {c1}']:.2f}")
    print(f"capacity: two 1-thread processes do {capacity:.2f}x the work of one in the same time")
    for k in ["2 threads", "2 threads, before"]:
        if k in med:
            s = med["1 thread"] / med[k]
            print(f"{k}: {s:.2f}x one thread ({fast / med[k]:.2f}x its faster CPU, {slow / med[k]:.2f}x its slower), "
                  f"{s / capacity:.0%} of the capacity")
            # The VM's speed drifts between minutes: each round's own ratio (one thread over two
            # threads, run in the same round) is steadier than a ratio of medians.
            own = [a / b for a, b in zip(times["1 thread"], times[k])]
            print(f"{k}, each round's own ratio: median {statistics.median(own):.2f}x "
                  f"({' '.join(f'{x:.2f}' for x in own)})")


if __name__ == "__main__":
    main()
