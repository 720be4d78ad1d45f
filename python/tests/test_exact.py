"""Exactness through the Python module: every engine against cpu:reference, and loading, stepping and
saving against the CLI's output files (byte for byte)."""
import json
import zlib

import numpy as np
import pytest

import tilelife
from conftest import PATTERNS, engine_names, random_cells, run_cli

SIZES = [(1, 1), (1, 9), (13, 1), (3, 3), (65, 3), (67, 41), (130, 33)]
RULES = ["B3/S23", "B36/S23", "B2/S", "B/S2345", "B0123478/S01234678"]


def reference_after(cells, spec, checkpoints):
    ref = tilelife.Board(spec["rule"], topology=spec["topology"], size=spec.get("size"), engine="cpu:reference")
    ref.set_cells(cells)
    out, done = [], 0
    for g in checkpoints:
        ref.step(g - done)
        done = g
        out.append(ref.cells())
    return out


@pytest.mark.parametrize("engine", [e for e in engine_names(bounded=True) if e != "cpu:reference"])
@pytest.mark.parametrize("topology", ["torus", "plane"])
def test_engines_match_reference_on_bounded_boards(engine, topology):
    rng = np.random.default_rng(zlib.crc32(f"{engine} {topology}".encode()))
    checkpoints = [1, 2, 9, 40]
    for (w, h) in SIZES:
        for rule in RULES:
            spec = {"rule": rule, "topology": topology, "size": (w, h)}
            cells = random_cells(rng, w, h, 0.4)
            b = tilelife.Board(rule, topology=topology, size=(w, h), engine=engine)
            b.set_cells(cells)
            done = 0
            for g, want in zip(checkpoints, reference_after(cells, spec, checkpoints)):
                b.step(g - done)
                done = g
                got = b.cells()
                assert np.array_equal(got, want), f"{engine} {rule} {topology} {w}x{h} generation {g}"
                assert b.population == len(want) and b.generation == g


@pytest.mark.parametrize("engine", [e for e in engine_names() if e != "cpu:reference"])
def test_engines_match_reference_on_the_unbounded_plane(engine):
    rng = np.random.default_rng(11)
    checkpoints = [1, 30, 200]
    for rule in ["B3/S23", "B36/S23", "B2/S", "B/S2345"]:
        for (w, h) in [(1, 1), (9, 1), (20, 13), (40, 40)]:
            cells = random_cells(rng, w, h, 0.45) - [w // 2, h // 3]
            b = tilelife.Board(rule, engine=engine)
            b.set_cells(cells)
            done = 0
            for g, want in zip(checkpoints, reference_after(cells, {"rule": rule, "topology": "unbounded"}, checkpoints)):
                b.step(g - done)
                done = g
                assert np.array_equal(b.cells(), want), f"{engine} {rule} {w}x{h} generation {g}"


# (pattern, extra CLI arguments as Python keywords, generations)
CLI_CASES = [
    ("gosper-glider-gun.rle", {}, 601),
    ("gosper-glider-gun.rle", {"topology": "torus", "size": "64x48"}, 300),
    ("gosper-glider-gun.rle", {"topology": "plane", "size": "50x30"}, 300),
    ("glider.rle", {"topology": "torus", "size": "37x23"}, 500),
    ("r-pentomino.rle", {}, 1200),
    ("r-pentomino.rle", {"topology": "plane", "size": "100x61"}, 1000),
    ("acorn.rle", {"rule": "B36/S23"}, 400),
    ("lwss.rle", {"topology": "torus", "size": "33x8"}, 260),
    ("pulsar.rle", {"topology": "torus", "size": "15x15"}, 30),
    ("highlife-replicator.rle", {}, 300),
    ("switch-engine.rle", {}, 1000),
    ("random:61x47:0.4:9", {"topology": "torus"}, 333),
    ("random:30x30:0.5:2", {"rule": "B0123478/S01234678", "topology": "plane", "size": "41x35"}, 25),
    ("random:20x20:0.5:4", {}, 500),
]


def cli_args(options):
    args = []
    for key in ("rule", "topology", "size"):
        if key in options:
            args += [f"--{key}", options[key]]
    return args


@pytest.mark.parametrize("engine", ["cpu:reference", "cpu:bitpacked"])
@pytest.mark.parametrize("pattern,options,gens", CLI_CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CLI_CASES)])
def test_saved_files_match_the_cli(tmp_path, cli, engine, pattern, options, gens):
    source = pattern if pattern.startswith("random:") else str(PATTERNS / pattern)
    backend, kernel = engine.split(":")
    for ext in ("rle", "cells"):
        run_cli("run", source, "--gens", gens, "--backend", backend, "--kernel", kernel, "-q",
                "-o", tmp_path / f"cli.{ext}", *cli_args(options))
    b = tilelife.load(source, engine=engine, **options)
    b.step(gens)
    b.save(tmp_path / "py.rle")
    b.save(tmp_path / "py.cells")
    assert (tmp_path / "py.rle").read_text() == (tmp_path / "cli.rle").read_text()
    assert (tmp_path / "py.cells").read_text() == (tmp_path / "cli.cells").read_text()
    assert b.to_rle() == (tmp_path / "cli.rle").read_text()
    report = json.loads(run_cli("run", source, "--gens", gens, "--json", *cli_args(options)).stdout)
    assert (b.population, b.generation, b.rule, b.topology) == (
        report["population"], report["generation"], report["board"]["rule"], report["board"]["topology"])


def test_loaded_board_matches_reference_cell_by_cell():
    # The Board places a file as the CLI does; its cells then evolve exactly as cpu:reference's.
    for name in ("gosper-glider-gun.rle", "pentadecathlon.rle", "diehard.rle"):
        fast = tilelife.load(PATTERNS / name, engine="cpu:bitpacked", topology="torus", size=(80, 60))
        slow = tilelife.load(PATTERNS / name, engine="cpu:reference", topology="torus", size=(80, 60))
        for step in (1, 14, 130, 500):
            fast.step(step)
            slow.step(step)
            assert np.array_equal(fast.region(0, 0, 80, 60), slow.region(0, 0, 80, 60)), (name, fast.generation)
