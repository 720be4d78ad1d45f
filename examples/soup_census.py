#!/usr/bin/env python3
"""Soup census: run random soups until they settle and count the objects they leave behind.

    PYTHONPATH=build/python python3 examples/soup_census.py --soups 1000
    PYTHONPATH=build/python python3 examples/soup_census.py --soups 200 --rule B36/S23 --json

Each soup is tilelife's reproducible random:WxH:density:seed pattern on the unbounded plane. Every
`--check` generations the live cells are split into objects: groups of cells linked through cells at
most 2 apart (further apart, two groups cannot affect each other in the next generation). An object is
classified by running it alone: it must come back to its own shape, perhaps moved, within
`--max-period` generations (a still life, an oscillator or a spaceship). Its name is its canonical
RLE: the smallest RLE text over all its phases and the 8 rotations and reflections, so a glider is
one object however it is turned and in whichever phase it is met.

A soup counts as settled, and its objects are counted, only when that is exact:
  * every object is periodic on its own;
  * the objects that stay put evolve together exactly as they do apart, checked generation by
    generation over the least common multiple of their periods;
  * objects of different velocities are, and stay forever, at least 3 cells apart: along one axis
    they are that far and not getting closer (from their speeds and the boxes their phases cover);
  * objects of one velocity that come closer than that (gliders flying side by side) evolve together
    exactly as apart over their common period, after which their placement repeats.
Soups that do not settle within `--max-gens` are reported as unsettled (with their seeds), not
guessed at. Groups of still lifes closer than 3 cells count as one object (a "pseudo still life"),
unlike apgsearch, which splits them further.
"""
import argparse
import collections
import json
import math
import sys
import time

import numpy as np

import tilelife

# Display names of common objects (B3/S23), looked up by canonical RLE; any other object is shown by
# its canonical RLE.
KNOWN = {
    "block": "2o$2o!", "blinker": "3o!", "beehive": "b2o$o2bo$b2o!", "loaf": "b2o$o2bo$bobo$2bo!",
    "boat": "2o$obo$bo!", "ship": "2o$obo$b2o!", "tub": "bo$obo$bo!", "pond": "b2o$o2bo$o2bo$b2o!",
    "glider": "bo$2bo$3o!", "toad": "b3o$3o!", "beacon": "2o$2o$2b2o$2b2o!", "barge": "bo$obo$bobo$2bo!",
    "long boat": "2o$obo$bobo$2bo!", "snake": "2obo$ob2o!", "mango": "b2o$o2bo$bo2bo$2b2o!",
    "eater 1": "2o$obo$2bo$2b2o!", "aircraft carrier": "2o$o$2bo$b2o!",
    "long barge": "bo$obo$bobo$2bobo$3bo!", "lightweight spaceship": "bo2bo$o$o3bo$4o!",
    "traffic light": "2b3o2$o5bo$o5bo$o5bo2$2b3o!", "bi-block": "2ob2o$2ob2o!",
    "pulsar": "2b3o3b3o2$o4bobo4bo$o4bobo4bo$o4bobo4bo$2b3o3b3o2$2b3o3b3o$o4bobo4bo$o4bobo4bo$"
              "o4bobo4bo2$2b3o3b3o!",
}

SYMMETRIES = [(1, 0, 0, 1), (0, -1, 1, 0), (-1, 0, 0, -1), (0, 1, -1, 0),
              (-1, 0, 0, 1), (1, 0, 0, -1), (0, 1, 1, 0), (0, -1, -1, 0)]


def normalize(cells):
    """Cells moved so their bounding box starts at (0, 0), sorted by (y, x); and that box's corner."""
    x0, y0 = cells[:, 0].min(), cells[:, 1].min()
    c = cells - [x0, y0]
    return c[np.lexsort((c[:, 0], c[:, 1]))], (int(x0), int(y0))


def rle(norm):
    """RLE body of normalized cells ("bo$2bo$3o!")."""
    rows = collections.defaultdict(list)
    for x, y in norm.tolist():
        rows[y].append(x)
    height = int(norm[:, 1].max()) + 1
    out, pending_rows = [], 0
    for y in range(height):
        if y not in rows:
            pending_rows += 1
            continue
        if out:
            out.append(f"{pending_rows + 1 if pending_rows else ''}$")
        pending_rows = 0
        xs, line, at, i = rows[y], [], 0, 0
        while i < len(xs):
            j = i
            while j + 1 < len(xs) and xs[j + 1] == xs[j] + 1:
                j += 1
            gap, run = xs[i] - at, j - i + 1
            if gap:
                line.append(f"{gap if gap > 1 else ''}b")
            line.append(f"{run if run > 1 else ''}o")
            at, i = xs[j] + 1, j + 1
        out.append("".join(line))
    return "".join(out) + "!"


def canonical(phases):
    """The smallest (height, width, RLE) over every phase and the 8 symmetries."""
    best = None
    for cells in phases:
        for a, b, c, d in SYMMETRIES:
            t = np.stack([a * cells[:, 0] + b * cells[:, 1], c * cells[:, 0] + d * cells[:, 1]], axis=1)
            norm, _ = normalize(t)
            key = (int(norm[:, 1].max()), int(norm[:, 0].max()), rle(norm))
            if best is None or key < best:
                best = key
    return best[2]


def components(cells):
    """Groups of cells linked through cells at most 2 apart (Chebyshev distance), largest first."""
    where = {(int(x), int(y)): i for i, (x, y) in enumerate(cells.tolist())}
    seen, groups = set(), []
    reach = [(dx, dy) for dx in range(-2, 3) for dy in range(-2, 3) if dx or dy]
    for start in where:
        if start in seen:
            continue
        seen.add(start)
        stack, group = [start], []
        while stack:
            x, y = stack.pop()
            group.append(where[(x, y)])
            for dx, dy in reach:
                n = (x + dx, y + dy)
                if n in where and n not in seen:
                    seen.add(n)
                    stack.append(n)
        groups.append(cells[sorted(group)])
    return sorted(groups, key=len, reverse=True)


Object = collections.namedtuple("Object", "name period dx dy box phases")
# box: (x0, y0, x1, y1), inclusive, covering every phase, relative to phase 0's bounding-box corner;
# phases: normalized cells of each phase, relative to the same corner.


class Classifier:
    """Classifies objects by running them alone; remembers shapes already seen."""

    def __init__(self, rule, engine, max_period):
        self.rule, self.engine, self.max_period = rule, engine, max_period
        self.cache = {}

    def classify(self, cells):
        norm, corner = normalize(cells)
        key = norm.tobytes()
        if key not in self.cache:
            self.cache[key] = self._run(norm)
        return self.cache[key], corner

    def _run(self, norm):
        board = tilelife.Board(self.rule, engine=self.engine)
        board.set_cells(norm)
        phases = [norm]
        for k in range(1, self.max_period + 1):
            board.step(1)
            now = board.cells()
            if len(now) != len(norm):
                if len(now) == 0:
                    return None
                phases.append(now)
                continue
            moved, (dx, dy) = normalize(now)
            if np.array_equal(moved, norm):
                allc = np.concatenate(phases)
                box = (int(allc[:, 0].min()), int(allc[:, 1].min()), int(allc[:, 0].max()), int(allc[:, 1].max()))
                return Object(canonical(phases), k, dx, dy, box, phases)
            phases.append(now)
        return None


def same_velocity(a, b):
    (oa, _), (ob, _) = a, b
    return oa.dx * ob.period == ob.dx * oa.period and oa.dy * ob.period == ob.dy * oa.period


def cells_at(obj, corner, t):
    """An object's cells t generations on (it is periodic)."""
    return obj.phases[t % obj.period] + corner + (t // obj.period) * np.array([obj.dx, obj.dy])


def sorted_cells(cells):
    return cells[np.lexsort((cells[:, 0], cells[:, 1]))] if len(cells) else cells


def near(a, b):
    """Whether two objects of one velocity ever come closer than 3 cells: their relative placement
    repeats every lcm of their periods, so every generation of that is looked at."""
    (oa, ca), (ob, cb) = a, b
    for t in range(math.lcm(oa.period, ob.period)):
        pa, pb = cells_at(oa, ca, t), cells_at(ob, cb, t)
        if np.abs(pa[:, None, :] - pb[None, :, :]).max(axis=2).min() < 3:
            return True
    return False


def apart_forever(a, b):
    """Whether two objects of different velocities, each (Object, corner), stay at least 3 cells
    apart forever: along one axis they are that far apart now and not getting closer. Positions at
    time t lie in the phase box moved by floor(t / period) periods; the bounds allow for the floor."""
    (oa, ca), (ob, cb) = a, b
    for axis in (0, 1):
        da, db = (oa.dx, oa.dy)[axis], (ob.dx, ob.dy)[axis]
        lo_a, hi_a = ca[axis] + oa.box[axis], ca[axis] + oa.box[axis + 2]
        lo_b, hi_b = cb[axis] + ob.box[axis], cb[axis] + ob.box[axis + 2]
        for (lo_far, d_far, p_far), (hi_near, d_near, p_near) in (
                ((lo_b, db, ob.period), (hi_a, da, oa.period)), ((lo_a, da, oa.period), (hi_b, db, ob.period))):
            # The far object's low edge must stay >= 3 beyond the near object's high edge.
            if d_far * p_near - d_near * p_far < 0:  # closing in
                continue
            slack = max(d_far, 0) + max(-d_near, 0)
            if lo_far - hi_near - slack >= 3:
                return True
    return False


def together_as_apart(board, group, only_inside=False):
    """Steps `board` over the group's common period and checks, generation by generation, that it
    holds exactly the group's objects evolved apart (with only_inside, only the cells inside the
    group's phase boxes are compared: other objects elsewhere on the board are left out)."""
    period = math.lcm(*[o.period for o, _ in group])
    for t in range(1, period + 1):
        board.step(1)
        got = board.cells()
        if only_inside:
            keep = np.zeros(len(got), dtype=bool)
            for o, c in group:
                x0, y0, x1, y1 = c[0] + o.box[0], c[1] + o.box[1], c[0] + o.box[2], c[1] + o.box[3]
                keep |= (got[:, 0] >= x0) & (got[:, 0] <= x1) & (got[:, 1] >= y0) & (got[:, 1] <= y1)
            got = got[keep]
        want = sorted_cells(np.concatenate([cells_at(o, c, t) for o, c in group]))
        if not np.array_equal(got, want):
            return False
    return True


def settle(board, classifier):
    """The census of a settled board (a list of object names), or None while it is not settled.
    May advance the board (the check for stationary objects steps it)."""
    found = []
    for group in components(board.cells()):
        obj, corner = classifier.classify(group)
        if obj is None:
            return None
        found.append((obj, corner))
    # Objects of different velocities never come within 3 cells of each other.
    for i, a in enumerate(found):
        if not all(same_velocity(a, b) or apart_forever(a, b) for b in found[i + 1:]):
            return None
    # Objects of one velocity are run together over their common period. Moving ones that come
    # closer than 3 cells (gliders flying side by side) on a board of their own; their placement
    # then repeats, so together as apart once is together as apart forever.
    moving = [f for f in found if f[0].dx or f[0].dy]
    clusters = []
    for f in moving:
        joined = [c for c in clusters if same_velocity(c[0], f) and any(near(f, g) for g in c)]
        for c in joined:
            clusters.remove(c)
        clusters.append(sum(joined, []) + [f])
    for cluster in clusters:
        if len(cluster) > 1:
            if math.lcm(*[o.period for o, _ in cluster]) > 10 * classifier.max_period:
                return None
            alone = tilelife.Board(board.rule, engine=classifier.engine)
            alone.set_cells(np.concatenate([cells_at(o, c, 0) for o, c in cluster]))
            if not together_as_apart(alone, cluster):
                return None
    # The stationary ones on the board itself (the moving ones stay out of their boxes).
    still = [f for f in found if not (f[0].dx or f[0].dy)]
    if still:
        if math.lcm(*[o.period for o, _ in still]) > 10 * classifier.max_period:
            return None
        if not together_as_apart(board, still, only_inside=bool(moving)):
            return None
    return [o.name for o, _ in found]


def census(soups=1000, size=16, density=0.5, first_seed=1, rule="B3/S23", engine=None, check=200,
           max_gens=30000, max_period=60, progress=None):
    """Runs the soups; returns {"objects": Counter(canonical RLE -> count), "kinds": {rle: (kind,
    period, (dx, dy))}, "settled": n, "unsettled": [seeds], "generations": [per soup]}."""
    classifier = Classifier(rule, engine, max_period)
    counts, kinds, unsettled, generations = collections.Counter(), {}, [], []
    for seed in range(first_seed, first_seed + soups):
        board = tilelife.load(f"random:{size}x{size}:{density}:{seed}", rule=rule, engine=engine)
        result = None
        while result is None and board.generation < max_gens:
            board.step(check)
            result = settle(board, classifier) if board.population else []
        if result is None:
            unsettled.append(seed)
        else:
            counts.update(result)
            generations.append(board.generation)
        if progress:
            progress(seed - first_seed + 1, soups)
    for obj in classifier.cache.values():
        if obj is not None and obj.name in counts:
            kind = "spaceship" if obj.dx or obj.dy else "still life" if obj.period == 1 else "oscillator"
            kinds[obj.name] = (kind, obj.period, (abs(obj.dx), abs(obj.dy)))
    return {"objects": counts, "kinds": kinds, "settled": soups - len(unsettled), "unsettled": unsettled,
            "generations": generations}


def known_names(rule, engine=None, max_period=60):
    """{canonical RLE: name} of the KNOWN objects (Life's names: empty for other rules)."""
    if rule != "B3/S23":
        return {}
    classifier = Classifier(rule, engine, max_period)
    return {classifier.classify(tilelife.parse_pattern(text).cells)[0].name: name for name, text in KNOWN.items()}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--soups", type=int, default=1000)
    ap.add_argument("--size", type=int, default=16, help="soups are SIZExSIZE (default 16)")
    ap.add_argument("--density", type=float, default=0.5)
    ap.add_argument("--seed", type=int, default=1, help="first seed (soup i has seed SEED+i)")
    ap.add_argument("--rule", default="B3/S23")
    ap.add_argument("--engine", default=None, help="engine name (default: the CPU's default for the plane)")
    ap.add_argument("--check", type=int, default=200, help="generations between settle checks")
    ap.add_argument("--max-gens", type=int, default=30000)
    ap.add_argument("--max-period", type=int, default=60)
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    a = ap.parse_args(argv)
    t0 = time.monotonic()
    show = None if a.json or not sys.stderr.isatty() else (
        lambda done, total: print(f"\r{done}/{total} soups", end="", file=sys.stderr, flush=True))
    r = census(a.soups, a.size, a.density, a.seed, tilelife.canonical_rule(a.rule), a.engine, a.check,
               a.max_gens, a.max_period, show)
    if show:
        print(file=sys.stderr)
    names = known_names(tilelife.canonical_rule(a.rule), a.engine, a.max_period)
    if a.json:
        print(json.dumps({"rule": tilelife.canonical_rule(a.rule), "soups": a.soups, "size": a.size,
                          "density": a.density, "first_seed": a.seed, "settled": r["settled"],
                          "unsettled": r["unsettled"], "seconds": round(time.monotonic() - t0, 3),
                          "objects": [{"rle": k, "name": names.get(k), "count": n, "kind": r["kinds"][k][0],
                                       "period": r["kinds"][k][1]} for k, n in r["objects"].most_common()]}))
        return 0
    gens = r["generations"]
    print(f"{a.soups} soups {a.size}x{a.size} at density {a.density}, seeds {a.seed}..{a.seed + a.soups - 1}, "
          f"rule {tilelife.canonical_rule(a.rule)}: {r['settled']} settled"
          + (f" (median generation {int(np.median(gens))})" if gens else "")
          + (f", unsettled: seeds {r['unsettled']}" if r["unsettled"] else "")
          + f" [{time.monotonic() - t0:.1f} s]")
    print(f"{'count':>7}  {'kind':<11} {'period':>6}  object")
    for k, n in r["objects"].most_common():
        kind, period, _ = r["kinds"][k]
        print(f"{n:>7}  {kind:<11} {period:>6}  {names.get(k, '')}{'  ' if k in names else ''}{k if len(k) < 60 else k[:57] + '...'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
