"""Patterns as values (lifelib's model): p[n], the set algebra, shift/transform, equality and hashing,
oscillator and spaceship detection, pickling; and the Golly verbs' refusals (issue 22)."""
import copy
import pickle

import numpy as np
import pytest

import tilelife
from conftest import PATTERNS, run_cli
from tilelife import Pattern

GLIDER = "bo$2bo$3o!"


def test_sources_agree():
    from_file = Pattern(PATTERNS / "glider.rle")
    from_text = Pattern(GLIDER)
    from_cells = Pattern([1, 0, 2, 1, 0, 2, 1, 2, 2, 2])
    assert from_file == from_text == from_cells
    assert from_file.population == 5 and from_file.bounding_box == (0, 0, 3, 3)
    assert Pattern(str(PATTERNS / "glider.rle")) == from_file
    assert Pattern().population == 0 and Pattern().bounding_box is None
    assert Pattern(GLIDER, rule="B36/S23").rule == "B36/S23"


def test_advancing_matches_the_cli_and_leaves_the_pattern_alone():
    gun = Pattern(PATTERNS / "gosper-glider-gun.rle")
    later = gun[1000]
    assert gun.population == 36  # immutable
    cli = Pattern(run_cli("run", PATTERNS / "gosper-glider-gun.rle", "-g", "1000", "-o", "-", "--format", "rle",
                          "-q").stdout)
    assert later == cli
    assert later.population == 213
    # HashLife for huge counts: instant population and bounding box, no listing.
    far = gun[2**40]
    assert far.population > 10**10 and far.bounding_box[2] > 2**37


def test_algebra():
    g = Pattern(GLIDER)
    block = Pattern("2o$2o!")
    both = g + block.shift(10, 0)
    assert both.population == 9
    assert (both | g) == both and (g | both) == both
    assert (both & g) == g
    assert (both - g) == block.shift(10, 0)
    assert (both ^ g) == block.shift(10, 0)
    assert (g ^ g).population == 0 and not (g ^ g)
    with pytest.raises(tilelife.InputError, match="different rules"):
        g | Pattern(GLIDER, rule="B36/S23")


def test_geometry():
    g = Pattern(GLIDER)
    assert g.shift(5, -3).bounding_box == (5, -3, 3, 3)
    # Four quarter turns are the identity; two are rot180; flips are involutions.
    assert g.transform("rot90").transform("rot90").transform("rot90").transform("rot90") == g
    assert g.transform("rot90").transform("rot90") == g.transform("rot180")
    assert g.transform("flip_x").transform("flip_x") == g
    assert set(map(tuple, g.transform("flip_x").coords())) == {(-x, y) for x, y in g.coords()}
    assert set(map(tuple, g.transform("rot90").coords())) == {(-y, x) for x, y in g.coords()}
    assert set(map(tuple, g.transform("swap_xy").coords())) == {(y, x) for x, y in g.coords()}
    assert g(1, 2) == g.shift(1, 2)
    with pytest.raises(tilelife.InputError, match="transform 'spin'"):
        g.transform("spin")


def test_equality_and_hash():
    a, b = Pattern(GLIDER), Pattern(PATTERNS / "glider.rle")
    assert a == b and hash(a) == hash(b)
    assert a != a.shift(1, 0) and a != a[1]
    assert a[4] == a.shift(1, 1)  # a glider moves (1, 1) every 4 generations
    assert len({a, b, a.shift(1, 0)}) == 2


def test_oscar():
    assert Pattern(GLIDER).oscar() == {"period": 4, "displacement": (1, 1)}
    assert Pattern(PATTERNS / "lwss.rle").oscar()["period"] == 4
    assert Pattern(PATTERNS / "pulsar.rle").period() == 3
    assert Pattern(PATTERNS / "pentadecathlon.rle").oscar() == {"period": 15, "displacement": (0, 0)}
    assert Pattern("2o$2o!").period() == 1
    assert Pattern(PATTERNS / "r-pentomino.rle").oscar(max_period=50) is None


def test_slicing_and_pickling(tmp_path):
    both = Pattern(GLIDER) + Pattern("2o$2o!").shift(10, 0)
    assert both[0:5, 0:5] == Pattern(GLIDER)
    assert both[8:, :] == Pattern("2o$2o!").shift(10, 0)
    gun = Pattern(PATTERNS / "gosper-glider-gun.rle")[2**30]
    again = pickle.loads(pickle.dumps(gun))
    assert again.population == gun.population and again.bounding_box == gun.bounding_box
    assert copy.copy(gun) is gun and copy.deepcopy(gun) is gun
    gun.save(tmp_path / "far.mc")
    assert Pattern(tmp_path / "far.mc").population == gun.population


def test_generation_counts_are_checked():
    p = Pattern(GLIDER)
    with pytest.raises(TypeError, match="whole number"):
        p[1.5]
    with pytest.raises(tilelife.InputError, match="2\\^63 - 1"):
        p[2**64]
    with pytest.raises(tilelife.InputError, match="0 or more"):
        p[-1]
    board = tilelife.load(PATTERNS / "glider.rle")
    for bad, error in ((1.5, TypeError), ("10", TypeError), (True, TypeError), (2**64, ValueError), (-1, ValueError)):
        with pytest.raises(error) as e:
            board.step(bad)
        assert "\n" not in str(e.value)


def test_board_copy_and_pickle():
    b = tilelife.load(PATTERNS / "gosper-glider-gun.rle", topology="torus", size=(64, 48))
    b.step(77)
    c = b.copy()
    c.step(10)
    assert b.generation == 77 and c.generation == 87
    assert (c.size, c.topology, c.engine) == (b.size, b.topology, b.engine)
    d = pickle.loads(pickle.dumps(b))
    assert np.array_equal(d.cells(), b.cells()) and d.generation == 77 and d.size == (64, 48)
    u = tilelife.load(PATTERNS / "gosper-glider-gun.rle")
    u.step(2**35)
    v = pickle.loads(pickle.dumps(u))
    assert (v.population, v.bounding_box, v.generation) == (u.population, u.bounding_box, u.generation)


def test_golly_verbs_refuse_clearly():
    with pytest.raises(TypeError, match="takes a tilelife.Board"):
        tilelife.getcells("x")
    board = tilelife.load(PATTERNS / "glider.rle")
    with pytest.raises(TypeError, match="rect"):
        tilelife.getcells(board, "x")
    with pytest.raises(tilelife.InputError, match="putcells mode"):
        tilelife.putcells(board, [0, 0], mode="paint")


def test_putcells_modes_as_golly():
    def fresh():
        b = tilelife.Board()
        b.set_cells([[0, 0], [1, 0]])
        return b

    cells = [1, 0, 2, 0]
    b = fresh()
    tilelife.putcells(b, cells)
    assert b.cells().tolist() == [[0, 0], [1, 0], [2, 0]]
    b = fresh()
    tilelife.putcells(b, cells, mode="copy")
    assert b.cells().tolist() == [[0, 0], [1, 0], [2, 0]]
    b = fresh()
    tilelife.putcells(b, cells, mode="xor")
    assert b.cells().tolist() == [[0, 0], [2, 0]]
    b = fresh()
    tilelife.putcells(b, cells, mode="not")
    assert b.cells().tolist() == [[0, 0]]
    b = fresh()
    tilelife.putcells(b, cells, mode="and")  # Golly: nothing changes for a list of live cells
    assert b.cells().tolist() == [[0, 0], [1, 0]]
    b = fresh()
    tilelife.putcells(b, [0, 0], 5, 7, mode="XOR")
    assert b.cells().tolist() == [[0, 0], [1, 0], [5, 7]]
