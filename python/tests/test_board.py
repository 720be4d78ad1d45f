"""The Board API: creation, properties, cells and regions as NumPy arrays, Golly's verbs, describe()."""
import json
import threading

import numpy as np
import pytest

import tilelife
from conftest import PATTERNS, engine_names, random_cells, run_cli

GLIDER = np.array([[1, 0], [2, 1], [0, 2], [1, 2], [2, 2]], dtype=np.int64)


def test_version_and_engines_match_the_cli(cli):
    assert run_cli("--version").stdout.split() == ["tilelife", tilelife.__version__]
    listed = [e["name"] for e in json.loads(run_cli("engines", "--json").stdout)["engines"]]
    engines = tilelife.engines()
    assert [e["name"] for e in engines] == listed
    bitpacked = next(e for e in engines if e["name"] == "cpu:bitpacked")
    assert bitpacked["backend"] == "cpu"
    assert {p["name"] for p in bitpacked["parameters"]} == {"activity", "simd"}
    assert next(p for p in bitpacked["parameters"] if p["name"] == "activity")["choices"] == ["on", "off"]
    assert tilelife.default_engine("cpu", "torus") in listed


def test_new_board_defaults_and_properties():
    b = tilelife.Board()
    assert (b.rule, b.topology, b.size, b.generation, b.population) == ("B3/S23", "unbounded", None, 0, 0)
    assert b.engine == tilelife.default_engine("cpu", "unbounded")
    assert b.bounding_box is None and b.cells().shape == (0, 2)
    t = tilelife.Board("b36s23:T40,30")
    assert (t.rule, t.topology, t.size, t.golly_offset) == ("B36/S23", "torus", (40, 30), (-20, -15))
    p = tilelife.Board("B3/S23", topology="plane", size="7x5", engine="cpu:reference")
    assert (p.topology, p.size, p.engine, p.extent) == ("plane", (7, 5), "cpu:reference", (0, 0, 7, 5))
    assert repr(p) == "<tilelife.Board cpu:reference B3/S23 plane 7x5 generation 0 population 0>"


def test_cells_round_trip_and_glider_moves():
    b = tilelife.Board(topology="torus", size=(11, 9))
    b.set_cells(GLIDER + [4, 3])
    got = b.cells()
    assert got.dtype == np.int64 and got.shape == (5, 2)
    # Sorted by (y, x), as the engines list them.
    assert got.tolist() == sorted((GLIDER + [4, 3]).tolist(), key=lambda c: (c[1], c[0]))
    assert b.bounding_box == (4, 3, 3, 3)
    b.step(4)
    assert sorted(b.cells().tolist()) == sorted((GLIDER + [5, 4]).tolist())
    assert b.generation == 4 and b.population == 5
    # 11 * 9 * 4 generations bring the glider round the torus to where it started.
    b.step(4 * 99 - 4)
    assert sorted(b.cells().tolist()) == sorted((GLIDER + [4, 3]).tolist())
    # A rectangle of cells only; a flat Golly list is taken too.
    assert b.cells((4, 5, 3, 1)).tolist() == [[4, 5], [5, 5], [6, 5]]
    c = tilelife.Board(topology="plane", size=(5, 5))
    c.set_cells([1, 0, 2, 1, 0, 2, 1, 2, 2, 2])
    assert sorted(c.cells().tolist()) == sorted(GLIDER.tolist())


def test_cells_array_is_zero_copy_and_owns_its_memory():
    b = tilelife.Board(topology="torus", size=(64, 64))
    rng = np.random.default_rng(1)
    cells = random_cells(rng, 64, 64)
    b.set_cells(cells)
    got = b.cells()
    # The array views the engine's own cell list (kept alive by the array), not a copy.
    assert got.base is not None and type(got.base).__name__ == "PyCapsule"
    assert not got.flags.owndata
    del b
    assert np.array_equal(got, cells)


def test_set_cells_dead_and_out_of_board():
    b = tilelife.Board(topology="plane", size=(10, 10))
    b.set_cells(GLIDER)
    b.set_cells([[1, 0], [2, 2]], alive=False)
    assert sorted(b.cells().tolist()) == [[0, 2], [1, 2], [2, 1]]
    with pytest.raises(tilelife.InputError, match=r"cell \(10, 3\) is outside the 10x10 plane board"):
        b.set_cells([[10, 3]])
    with pytest.raises(tilelife.InputError, match=r"cell \(-1, 0\) is outside"):
        b.set_cell(-1, 0)
    with pytest.raises(TypeError):
        b.set_cells(np.array([[0.5, 1.0]]))
    with pytest.raises(tilelife.InputError, match="even number"):
        b.set_cells([1, 2, 3])
    # Unbounded boards take coordinates anywhere (the board grows to hold them).
    u = tilelife.Board()
    u.set_cells([[-(1000), 5], [1000, -7]])
    assert u.cells().tolist() == [[1000, -7], [-(1000), 5]]
    u.set_cells([[1000, -7]], alive=False)
    assert u.cells().tolist() == [[-(1000), 5]]


@pytest.mark.parametrize("engine", engine_names(bounded=True))
def test_region_round_trip(engine):
    rng = np.random.default_rng(7)
    b = tilelife.Board(topology="torus", size=(37, 23), engine=engine)
    grid = (rng.random((23, 37)) < 0.35).astype(np.uint8)
    b.set_region(0, 0, grid)
    assert np.array_equal(b.region(0, 0, 37, 23), grid)
    assert b.population == int(grid.sum())
    sub = b.region(5, 3, 10, 7)
    assert sub.dtype == np.uint8 and sub.shape == (7, 10)
    assert np.array_equal(sub, grid[3:10, 5:15])
    # A patch written into the middle; bool arrays and non-contiguous views are taken as well.
    patch = rng.random((6, 8)) < 0.5
    b.set_region(20, 10, patch)
    grid[10:16, 20:28] = patch
    assert np.array_equal(b.region(0, 0, 37, 23), grid)
    view = np.asarray(grid[::2, ::3])
    b.set_region(1, 1, view)
    grid[1:1 + view.shape[0], 1:1 + view.shape[1]] = view
    assert np.array_equal(b.region(0, 0, 37, 23), grid)


@pytest.mark.parametrize("engine", engine_names(bounded=True))
def test_region_values_and_bounds(engine):
    b = tilelife.Board(topology="plane", size=(8, 6), engine=engine)
    # Any nonzero value is alive, on every engine (the module hands engines 0/1 bytes).
    b.set_region(0, 0, np.array([[0, 2, 255], [7, 0, 1]], dtype=np.uint8))
    assert b.region(0, 0, 3, 2).tolist() == [[0, 1, 1], [1, 0, 1]]
    b.set_region(3, 3, np.array([[5, 0], [0, -3]], dtype=np.int32))
    assert b.region(3, 3, 2, 2).tolist() == [[1, 0], [0, 1]]
    assert b.population == 6
    same = tilelife.Board(topology="plane", size=(8, 6), engine=engine)
    same.set_cells([[1, 0], [2, 0], [0, 1], [2, 1], [3, 3], [4, 4]])
    b.step(1)
    same.step(1)
    assert np.array_equal(b.region(0, 0, 8, 6), same.region(0, 0, 8, 6))
    b = tilelife.Board(topology="plane", size=(8, 6), engine=engine)
    with pytest.raises(tilelife.InputError, match=r"the region \(6, 0, 3, 1\) is not inside the 8x6 plane board"):
        b.region(6, 0, 3, 1)
    with pytest.raises(tilelife.InputError, match="not inside"):
        b.set_region(-1, 0, np.ones((1, 1), dtype=np.uint8))
    with pytest.raises(tilelife.InputError, match="2-D"):
        b.set_region(0, 0, np.ones(3, dtype=np.uint8))
    with pytest.raises(TypeError):
        b.set_region(0, 0, np.ones((2, 2)))
    # Unbounded: regions anywhere; outside the live area they read as dead.
    u = tilelife.Board()
    u.set_region(-50, 1000, np.ones((2, 3), dtype=bool))
    assert u.population == 6 and u.bounding_box == (-50, 1000, 3, 2)
    assert u.region(-52, 999, 6, 4).tolist() == [[0] * 6, [0, 0, 1, 1, 1, 0], [0, 0, 1, 1, 1, 0], [0] * 6]
    assert u.region(10 ** 9, 0, 4, 4).sum() == 0


def test_load_parse_and_pattern_metadata():
    p = tilelife.read_pattern(PATTERNS / "glider.rle")
    assert (p.format, p.name, p.rule, p.generation, p.population) == ("RLE", "Glider", "B3/S23", 0, 5)
    assert p.cells.tolist() == [[1, 0], [2, 1], [0, 2], [1, 2], [2, 2]]
    assert p.frame == (0, 0, 3, 3) and p.bounding_box == (0, 0, 3, 3)
    q = tilelife.parse_pattern("#N x\nx = 2, y = 2, rule = B36/S23\n2o$2o!")
    assert (q.name, q.rule, q.population) == ("x", "B36/S23", 4)
    b = tilelife.load(PATTERNS / "glider.rle")  # a Path is fine
    assert b.cells().tolist() == p.cells.tolist() and b.topology == "unbounded"
    b2 = tilelife.load(p, topology="torus", size=(10, 10))  # a Pattern
    assert b2.bounding_box == (4, 4, 3, 3)  # centred as Golly centres it: 10/2 - 3/2 = 4
    b3 = tilelife.parse("bo$2bo$3o!", rule="B3/S23:T20,20")
    assert (b3.topology, b3.size, b3.population) == ("torus", (20, 20), 5)
    r = tilelife.load("random:16x8:0.5:3")
    assert r.population == tilelife.read_pattern("random:16x8:0.5:3").population > 0


def test_generation_continues_from_the_file():
    b = tilelife.parse("#CXRLE Pos=0,0 Gen=100\nx = 3, y = 3, rule = B3/S23\nbo$2bo$3o!")
    assert b.generation == 100
    b.step(4)
    assert b.generation == 104
    assert b.to_rle().splitlines()[0] == "#CXRLE Pos=1,1 Gen=104"


def test_golly_verbs():
    b = tilelife.load(PATTERNS / "glider.rle")
    tilelife.run(b, 8)
    assert tilelife.getgen(b) == 8 and tilelife.getpop(b) == 5
    assert tilelife.getrect(b) == [2, 2, 3, 3]
    assert sorted(tilelife.getcells(b).tolist()) == sorted((GLIDER + 2).tolist())
    assert tilelife.getcells(b, (2, 2, 3, 1)).tolist() == [[3, 2]]
    # putcells with Golly's transform: x0 + A*x + B*y, y0 + C*x + D*y (here a quarter turn).
    e = tilelife.Board()
    tilelife.putcells(e, GLIDER, 10, 20, 0, -1, 1, 0)
    assert sorted(e.cells().tolist()) == sorted(tilelife.transform(GLIDER, 10, 20, 0, -1, 1, 0).tolist())
    assert sorted(tilelife.transform(GLIDER, 10, 20, 0, -1, 1, 0).tolist()) == sorted(
        [[10 - y, 20 + x] for x, y in GLIDER.tolist()])
    assert tilelife.getrect(tilelife.Board()) == []
    # evolve: the cells after n generations on the plane.
    assert sorted(tilelife.evolve(GLIDER, 4).tolist()) == sorted((GLIDER + 1).tolist())
    assert tilelife.evolve(GLIDER, 4, rule="B36/S23").shape == (5, 2)


def test_describe_is_a_dict():
    d = tilelife.Board(topology="torus", size=(256, 128), engine="cpu:bitpacked", activity="off", threads=1).describe()
    assert d["name"] == "cpu:bitpacked" and d["backend"] == "cpu"
    assert d["threads"] == 1 and d["host_bytes"] > 256 * 128 // 8
    assert d["properties"]["activity"] is False
    assert d["tiles"] is None or set(d["tiles"]) == {"width", "height", "halo_x", "halo_y", "origin", "text"}
    u = tilelife.load(PATTERNS / "glider.rle", engine="cpu:reference").describe()
    assert u["name"] == "cpu:reference" and "board" in u["properties"]


@pytest.mark.parametrize("engine", engine_names())
def test_every_engine_describes_itself(engine):
    if engine in engine_names(bounded=True):
        b = tilelife.Board(topology="torus", size=(96, 64), engine=engine)
    else:  # an engine of the unbounded plane alone
        b = tilelife.Board(engine=engine)
    d = b.describe()
    assert d["name"] == engine and d["backend"] == engine.split(":")[0]
    assert set(d) == {"name", "backend", "device", "work_group", "cells_per_item", "steps_per_launch", "threads", "tiles",
                      "host_bytes", "device_bytes", "properties", "autotune"}
    if d["backend"] == "opencl":
        # A device engine names its device and work-group and says where its tiles lie.
        assert d["device"] and d["device_bytes"] > 0 and d["work_group"]["width"] > 0
        assert d["tiles"]["width"] > 0 and d["tiles"]["text"]
        ids = [dev["id"] for dev in tilelife.devices("opencl")]
        assert d["device"].split()[0] in ids
        for options in d["autotune"]:
            assert set(options) == {"device", "work_group", "threads", "steps_per_launch", "params"}


def test_hyphenated_parameters_as_keywords():
    named = [(e["name"], p) for e in tilelife.engines() for p in e["parameters"] if "-" in p["name"] and p["choices"]]
    if not named:
        pytest.skip("no engine of this build declares a hyphenated parameter")
    engine, p = named[0]
    keyword = p["name"].replace("-", "_")
    b = tilelife.Board(topology="torus", size=(64, 64), engine=engine, **{keyword: p["choices"][-1]})
    assert b.describe()["properties"].get(p["name"].replace("-", "_"), p["choices"][-1]) == p["choices"][-1]
    with pytest.raises(tilelife.InputError, match=f"parameter {p['name']}='nonesuch' is not one of"):
        tilelife.Board(topology="torus", size=(64, 64), engine=engine, **{keyword: "nonesuch"})


def test_engine_parameters_as_keywords():
    on = tilelife.Board(topology="torus", size=(64, 64), activity="on")
    off = tilelife.Board(topology="torus", size=(64, 64), params={"activity": "off"})
    assert on.describe()["properties"]["activity"] is True
    assert off.describe()["properties"]["activity"] is False
    with pytest.raises(tilelife.InputError, match=r"^cpu:bitpacked has no parameter 'actvity' \(it takes: activity, simd\)$"):
        tilelife.Board(topology="torus", size=(8, 8), actvity="on")
    with pytest.raises(tilelife.InputError, match="^cpu:reference has no parameter 'activity' \\(it takes none\\)$"):
        tilelife.Board(engine="cpu:reference", activity="on")
    with pytest.raises(TypeError):
        tilelife.Board(activity=True)


def test_threads_step_boards_side_by_side():
    # The GIL is released while stepping: boards in several threads run together, each exact.
    rng = np.random.default_rng(5)
    cells = [random_cells(rng, 96, 96) for _ in range(4)]
    boards = [tilelife.Board(topology="torus", size=(96, 96)) for _ in cells]
    for b, c in zip(boards, cells):
        b.set_cells(c)
    threads = [threading.Thread(target=b.step, args=(300,)) for b in boards]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for b, c in zip(boards, cells):
        ref = tilelife.Board(topology="torus", size=(96, 96), engine="cpu:reference")
        ref.set_cells(c)
        ref.step(300)
        assert b.generation == 300 and np.array_equal(b.cells(), ref.cells())


def test_save_round_trip(tmp_path):
    b = tilelife.load(PATTERNS / "gosper-glider-gun.rle", topology="torus", size=(64, 48))
    b.step(120)
    b.save(tmp_path / "gun.rle")
    b.save(tmp_path / "gun.cells")
    again = tilelife.load(tmp_path / "gun.rle")
    assert (again.topology, again.size, again.generation) == ("torus", (64, 48), 120)
    assert np.array_equal(again.cells(), b.cells())
    plain = tilelife.read_pattern(tmp_path / "gun.cells")
    assert plain.population == b.population and plain.name == "Gosper glider gun"


def test_bounding_box_after_a_huge_run_is_instant():
    # Issue 19: bounding_box walked every cell (2.5 s / 1 GB after step(2**28), never back after
    # 2**40). It now asks the engine (HashLife's tree root): instant at any generation.
    import time
    b = tilelife.load(PATTERNS / "gosper-glider-gun.rle")
    b.step(2**40)
    t0 = time.monotonic()
    box = b.bounding_box
    assert time.monotonic() - t0 < 5.0  # listing 10^11 cells never returned
    x, y, w, h = box
    assert w > 2**37 and h > 2**37 and box == b.extent
    # The same box as the cells' own, on a board small enough to list.
    small = tilelife.load(PATTERNS / "gosper-glider-gun.rle")
    small.step(1000)
    cells = small.cells()
    lo, hi = cells.min(axis=0), cells.max(axis=0)
    assert small.bounding_box == (lo[0], lo[1], hi[0] - lo[0] + 1, hi[1] - lo[1] + 1)


def test_save_every_pattern_format(tmp_path):
    # save() goes through the board layer: every pattern format the CLI writes, .mc and .gz included,
    # with the same bytes as `tilelife run -o`.
    b = tilelife.load(PATTERNS / "gosper-glider-gun.rle")
    b.step(1000)
    for name in ("gun.rle", "gun.cells", "gun.mc", "gun.rle.gz", "gun.mc.gz", "gun.cells.gz"):
        b.save(tmp_path / name)
        back = tilelife.load(tmp_path / name)
        assert np.array_equal(back.cells() - back.cells().min(axis=0), b.cells() - b.cells().min(axis=0)), name
    run_cli("run", PATTERNS / "gosper-glider-gun.rle", "-g", "1000", "-o", tmp_path / "cli.mc", "-q")
    assert (tmp_path / "cli.mc").read_bytes() == (tmp_path / "gun.mc").read_bytes()
    with pytest.raises(tilelife.InputError):
        b.save(tmp_path / "gun.txt")


def test_a_size_for_an_unbounded_board_is_refused_as_the_cli_refuses_it():
    with pytest.raises(tilelife.InputError, match="unbounded"):
        tilelife.Board(topology="unbounded", size=(10, 10))
    with pytest.raises(tilelife.InputError, match="unbounded"):
        tilelife.load(PATTERNS / "glider.rle", size=(10, 10))


def test_a_named_budget_is_where_the_hashlife_store_may_grow():
    # As the CLI's --max-memory and bgolly -M: without max_bytes the store stops doubling at 240 MiB.
    named = tilelife.load(PATTERNS / "glider.rle", engine="cpu:hashlife", max_bytes=300 << 20).describe()
    assert named["properties"]["soft_limit_bytes"] == 300 << 20
    default = tilelife.load(PATTERNS / "glider.rle", engine="cpu:hashlife").describe()
    assert default["properties"]["soft_limit_bytes"] == 240 << 20
