"""Shared fixtures: where the source tree and the CLI are (CTest passes them in the environment;
by hand, run from the repository with PYTHONPATH=build/python and they default to build/)."""
import os
import pathlib
import subprocess

import numpy as np
import pytest

import tilelife

SOURCE_DIR = pathlib.Path(os.environ.get("TILELIFE_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))
CLI = pathlib.Path(os.environ.get("TILELIFE_CLI", SOURCE_DIR / "build" / "tilelife"))
PATTERNS = SOURCE_DIR / "patterns"


@pytest.fixture(scope="session")
def cli():
    assert CLI.is_file(), f"the tilelife CLI is not at {CLI} (set TILELIFE_CLI)"
    return CLI


def run_cli(*args, check=True):
    """Runs the CLI; returns the CompletedProcess (text)."""
    p = subprocess.run([str(CLI), *map(str, args)], capture_output=True, text=True, timeout=600)
    if check and p.returncode != 0:
        raise AssertionError(f"tilelife {' '.join(map(str, args))} exited {p.returncode}: {p.stderr}")
    return p


def engine_names(bounded=False):
    """Every registered engine's name; bounded=True: only those that run a torus or a bounded plane
    (not the engines of the unbounded plane alone, cpu:hashlife and cpu:auto)."""
    return [e["name"] for e in tilelife.engines() if e["bounded"] or not bounded]


def random_cells(rng, width, height, density=0.4):
    """Random live cells of a width x height box, as an (N, 2) array sorted by (y, x)."""
    grid = rng.random((height, width)) < density
    ys, xs = np.nonzero(grid)
    return np.stack([xs, ys], axis=1).astype(np.int64)
