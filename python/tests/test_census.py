"""examples/soup_census.py: exact object classification, and a small census that agrees between
engines and whose settled soups stay settled."""
import collections
import json
import subprocess
import sys

import numpy as np
import pytest

import tilelife
from conftest import SOURCE_DIR

sys.path.insert(0, str(SOURCE_DIR / "examples"))
import soup_census as sc  # noqa: E402

GLIDER = tilelife.parse_pattern("bo$2bo$3o!").cells


def all_orientations(cells):
    return [np.stack([a * cells[:, 0] + b * cells[:, 1], c * cells[:, 0] + d * cells[:, 1]], axis=1)
            for a, b, c, d in sc.SYMMETRIES]


def test_canonical_names_do_not_depend_on_phase_orientation_or_place():
    classifier = sc.Classifier("B3/S23", None, 60)
    names = set()
    for phase in range(4):
        cells = tilelife.evolve(GLIDER, phase)
        for oriented in all_orientations(cells):
            obj, _ = classifier.classify(oriented + [1000, -77])
            names.add(obj.name)
            assert (obj.period, abs(obj.dx), abs(obj.dy)) == (4, 1, 1)
    assert len(names) == 1
    toad = tilelife.parse_pattern("b3o$3o!").cells
    assert classifier.classify(tilelife.evolve(toad, 1))[0].name == classifier.classify(toad)[0].name
    # Different objects, different names: block, tub, beehive, blinker, LWSS, glider.
    shapes = ["2o$2o!", "bo$obo$bo!", "b2o$o2bo$b2o!", "3o!", "bo2bo$o$o3bo$4o!", "bo$2bo$3o!"]
    objs = [classifier.classify(tilelife.parse_pattern(s).cells)[0] for s in shapes]
    assert len({o.name for o in objs}) == len(shapes)
    assert [o.period for o in objs] == [1, 1, 1, 2, 4, 4]
    # Not periodic within the limit: the R-pentomino (it settles after 1103 generations).
    assert classifier.classify(tilelife.parse_pattern("b2o$2o$bo!").cells)[0] is None
    assert sc.rle(sc.normalize(GLIDER)[0]) == "bo$2bo$3o!"


def test_objects_apart_or_together():
    classifier = sc.Classifier("B3/S23", None, 60)
    block = tilelife.parse_pattern("2o$2o!").cells
    # Two blocks 2 cells apart are one object (they could interact); 3 apart, two.
    assert len(sc.components(np.concatenate([block, block + [3, 0]]))) == 1
    assert len(sc.components(np.concatenate([block, block + [4, 0]]))) == 2
    # A blinker 3 cells below a block is a separate object, but its vertical phase reaches within 2
    # cells of the block and they react: not settled. One cell further down they leave each other be.
    blinker = tilelife.parse_pattern("3o!").cells
    for dy, settled in ((4, False), (5, True)):
        board = tilelife.Board()
        board.set_cells(np.concatenate([block, blinker + [0, dy]]))
        assert len(sc.components(board.cells())) == 2
        assert (sc.settle(board, classifier) is not None) == settled
    # A glider flying away from a block never meets it; one flying at it does.
    g = classifier.classify(GLIDER + [10, 10])  # moves +x, +y
    b = classifier.classify(block)
    assert sc.apart_forever(g, b) and sc.apart_forever(b, g)
    toward = classifier.classify(all_orientations(GLIDER)[2] + [10, 10])  # moves -x, -y
    assert not sc.apart_forever(toward, b)
    # Gliders flying side by side, closer than 3 cells in some phase: together as apart for one
    # period (a phase-3 glider 4 cells to the right), or not (a phase-1 glider 4 cells below).
    for phase, offset, independent in ((3, [4, 0], True), (1, [0, 4], False)):
        other = tilelife.evolve(GLIDER, phase) + offset
        assert len(sc.components(np.concatenate([GLIDER, other]))) == 2
        pair = [classifier.classify(GLIDER), classifier.classify(other)]
        assert sc.same_velocity(*pair) and sc.near(*pair)
        alone = tilelife.Board()
        alone.set_cells(np.concatenate([GLIDER, other]))
        assert sc.together_as_apart(alone, pair) == independent
        board = tilelife.Board()
        board.set_cells(np.concatenate([GLIDER, other]))
        assert (sc.settle(board, classifier) is not None) == independent
    # Seed 334 sends two gliders off side by side: counted once the pair is checked.
    board = tilelife.load("random:16x16:0.5:334")
    board.step(30000)
    glider = classifier.classify(GLIDER)[0].name
    assert collections.Counter(sc.settle(board, classifier))[glider] >= 2


def per_soup(seed, engine, extra=0):
    classifier = sc.Classifier("B3/S23", engine, 60)
    board = tilelife.load(f"random:16x16:0.5:{seed}", engine=engine)
    result = None
    while result is None and board.generation < 30000:
        board.step(200)
        result = sc.settle(board, classifier)
    assert result is not None, seed
    settled_at = board.generation
    if extra:
        board.step(extra)
        again = sc.settle(board, classifier)
        assert again is not None and collections.Counter(again) == collections.Counter(result), seed
    return settled_at, collections.Counter(result)


@pytest.mark.parametrize("seed", [1, 2, 3, 5, 8, 13])
def test_settled_soups_stay_settled(seed):
    # 3000 generations later the same objects are there (the gliders further off).
    per_soup(seed, "cpu:bitpacked", extra=3000)


def test_small_census_is_the_same_on_two_engines():
    fast = sc.census(soups=40, engine="cpu:bitpacked")
    slow = sc.census(soups=40, engine="cpu:reference")
    assert fast == slow
    assert fast["settled"] == 40 and fast["unsettled"] == []
    names = sc.known_names("B3/S23")
    found = {names.get(k) for k in fast["objects"]}
    assert {"block", "beehive", "blinker", "glider", "boat"} <= found
    assert fast["kinds"][next(k for k, n in names.items() if n == "glider")] == ("spaceship", 4, (1, 1))
    # The census adds up: per-soup results summed are the totals.
    total = collections.Counter()
    for seed in range(1, 41):
        total += per_soup(seed, "cpu:bitpacked")[1]
    assert total == fast["objects"]


def test_script_runs(tmp_path):
    p = subprocess.run([sys.executable, str(SOURCE_DIR / "examples" / "soup_census.py"), "--soups", "12", "--json"],
                       capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr
    r = json.loads(p.stdout)
    assert r["soups"] == 12 and r["settled"] + len(r["unsettled"]) == 12
    assert sum(o["count"] for o in r["objects"]) > 12
    assert r["objects"][0]["name"] == "block"
