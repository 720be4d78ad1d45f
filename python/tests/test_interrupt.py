"""Ctrl+C during a long step: a real SIGINT to a child process stepping 10**12 generations stops it
at a generation boundary with KeyboardInterrupt, and the board is then exactly what an uninterrupted
run gives at that generation."""
import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

import tilelife
from conftest import PATTERNS

CHILD = textwrap.dedent("""
    import signal, sys, time
    import tilelife
    # Python's own handler, whatever the disposition this process inherited (a background job's
    # SIGINT is ignored, and then Python installs none).
    signal.signal(signal.SIGINT, signal.default_int_handler)
    case, out = sys.argv[1], sys.argv[2]
    if case == "torus":
        board = tilelife.load("random:1024x1024:0.5:1", topology="torus", engine="cpu:bitpacked", activity="off")
    else:
        board = tilelife.load(sys.argv[3], engine="cpu:bitpacked")
    print("stepping", flush=True)
    t0 = time.monotonic()
    try:
        board.step(10 ** 12)
        print("finished", flush=True)
    except KeyboardInterrupt:
        print("interrupted", board.generation, round(time.monotonic() - t0, 3), flush=True)
        board.save(out)
""")


def start_child(tmp_path, *args):
    script = tmp_path / "child.py"
    script.write_text(CHILD)
    return subprocess.Popen([sys.executable, str(script), *map(str, args)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=os.environ.copy())


@pytest.mark.parametrize("case", ["torus", "unbounded"])
def test_sigint_stops_a_long_step(tmp_path, case):
    gun = PATTERNS / "gosper-glider-gun.rle"
    out = tmp_path / "stopped.rle"
    child = start_child(tmp_path, case, out, gun)
    try:
        assert child.stdout.readline().strip() == "stepping"
        time.sleep(1.0)  # well inside the step (it would take days)
        child.send_signal(signal.SIGINT)
        stdout, stderr = child.communicate(timeout=120)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    assert child.returncode == 0, stderr
    words = stdout.split()
    assert words[0] == "interrupted", stdout + stderr
    generation = int(words[1])
    assert 0 < generation < 10 ** 12
    # The board stopped between generations: an uninterrupted run to the same generation agrees.
    if case == "torus":
        again = tilelife.load("random:1024x1024:0.5:1", topology="torus", engine="cpu:bitpacked", activity="off")
    else:
        again = tilelife.load(gun, engine="cpu:bitpacked")
    again.step(generation)
    assert again.generation == generation
    assert out.read_text() == again.to_rle()


def test_a_handler_that_does_not_raise_lets_the_step_finish(tmp_path):
    script = tmp_path / "child.py"
    script.write_text(textwrap.dedent("""
        import signal, time
        import tilelife
        board = tilelife.load("random:512x512:0.5:2", topology="torus", engine="cpu:bitpacked", activity="off")
        # A step of about 8 s at the speed of the last of some growing steps (the machine may be
        # busy: the signal must come while it runs, so it is long next to the parent's 1 s wait).
        n, took = 500, 0.0
        while took < 0.3:
            n *= 2
            t0 = time.monotonic()
            board.step(n)
            took = time.monotonic() - t0
        start = board.generation
        target = start + int(n / took * 8)
        seen = []
        signal.signal(signal.SIGINT, lambda *_: seen.append(board.generation))
        print("stepping", flush=True)
        board.step(target - start)
        print(start, target, board.generation, *seen, flush=True)
    """))
    child = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline().strip() == "stepping"
        time.sleep(1.0)
        child.send_signal(signal.SIGINT)
        stdout, stderr = child.communicate(timeout=300)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    assert child.returncode == 0, stdout + stderr
    start, target, final, *seen = map(int, stdout.split())
    # The handler ran once, before the step was done (the board part-way, or, on a machine busy
    # enough to hold the child back for the parent's whole wait, at its start), and the step went on.
    assert final == target
    assert len(seen) == 1 and start <= seen[0] < target
