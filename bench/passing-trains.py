#!/usr/bin/env python3
"""Two trains of gliders at irregular spacings passing each other: one moving south-east, the other
north-west on a lane SEP cells across, each of N gliders 6-14 cells apart along the diagonal (a
seeded generator: the same arguments give the same file). The class of pattern cpu:streamlife is
for (docs/streamlife.md); written as Life 1.06.

    bench/passing-trains.py N SEP SEED OUT.lif
"""
import random
import sys


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__.strip().splitlines()[-1].strip())
    n, sep, seed, out = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    rng = random.Random(seed)
    south_east = [(1, 0), (2, 1), (0, 2), (1, 2), (2, 2)]
    north_west = [(2 - x, 2 - y) for (x, y) in south_east]
    cells = set()
    d = 0
    for _ in range(n):
        d += rng.randint(6, 14)
        cells.update((d + x, d + y) for (x, y) in south_east)
    d += 50
    for _ in range(n):
        d += rng.randint(6, 14)
        cells.update((d + x, d + sep + y) for (x, y) in north_west)
    with open(out, "w") as f:
        f.write("#Life 1.06\n")
        for x, y in sorted(cells):
            f.write(f"{x} {y}\n")


if __name__ == "__main__":
    main()
