"""Errors: tilelife.InputError for bad input (the CLI's exit 2), tilelife.RuntimeError for failures
running good input (exit 1), carrying the same one-line reason the CLI prints."""
import builtins
import re

import pytest

import tilelife
from conftest import PATTERNS, run_cli

GLIDER = str(PATTERNS / "glider.rle")


def cli_error(*args):
    """(exit code, reason) of a failing CLI run: stderr is 'tilelife: REASON', where the CLI may end
    REASON with the flag it is about, ' (--max-memory)'; the library's reason is the one without."""
    p = run_cli(*args, check=False)
    lines = p.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("tilelife: "), p.stderr
    return p.returncode, re.sub(r" \(--[a-z-]+\)$", "", lines[0][len("tilelife: "):])


def test_exception_classes():
    assert issubclass(tilelife.InputError, tilelife.Error) and issubclass(tilelife.InputError, ValueError)
    assert issubclass(tilelife.RuntimeError, tilelife.Error) and issubclass(tilelife.RuntimeError, builtins.RuntimeError)
    assert not issubclass(tilelife.InputError, builtins.RuntimeError)
    assert not issubclass(tilelife.RuntimeError, ValueError)
    assert tilelife.InputError.__module__ == "tilelife"


def bad_files(tmp_path):
    files = {
        "bad-header.rle": "x = a, y = 3, rule = B3/S23\nbo$2bo$3o!\n",
        "bad-count.rle": "x = 2, y = 1, rule = B3/S23\n99999999999999999999o!\n",
        "bad-rule.rle": "x = 3, y = 1, rule = B3/S23/G4\n3o!\n",
        "garbage.rle": "\x00\x01 not a pattern\n",
    }
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    return [str(tmp_path / name) for name in files]


@pytest.mark.parametrize("case", range(4))
def test_bad_files_give_the_cli_reason(tmp_path, case):
    path = bad_files(tmp_path)[case]
    code, reason = cli_error("run", path, "--gens", "1")
    assert code == 2
    with pytest.raises(tilelife.InputError) as e:
        tilelife.load(path)
    assert str(e.value) == reason
    assert path in reason  # names the file
    with pytest.raises(tilelife.InputError) as e:
        tilelife.read_pattern(path)
    assert str(e.value) == reason


# (CLI run arguments after the pattern, the same as Python keywords)
INPUT_CASES = [
    (["--rule", "B9/S23"], {"rule": "B9/S23"}),
    (["--rule", "B3/S23:K10,10"], {"rule": "B3/S23:K10,10"}),
    (["--topology", "torus", "--size", "2x2"], {"topology": "torus", "size": (2, 2)}),
    (["--rule", "B0/S8"], {"rule": "B0/S8"}),
    (["--topology", "torus", "--size", "4096x4096", "--max-memory", "1M"],
     {"topology": "torus", "size": (4096, 4096), "max_bytes": 1 << 20}),
]


@pytest.mark.parametrize("args,options", INPUT_CASES, ids=[" ".join(c[0]) for c in INPUT_CASES])
def test_bad_options_give_the_cli_reason(args, options):
    code, reason = cli_error("run", GLIDER, "--gens", "1", *args)
    assert code == 2
    with pytest.raises(tilelife.InputError) as e:
        tilelife.load(GLIDER, **options)
    assert str(e.value) == reason


def test_missing_file_and_bad_spec():
    for source in ("/nonexistent/glider.rle", "random:0x5", "random:10x10:1.5"):
        code, reason = cli_error("run", source)
        assert code == 2
        with pytest.raises(tilelife.InputError) as e:
            tilelife.load(source)
        assert str(e.value) == reason


def test_unbounded_growth_over_the_budget_is_a_runtime_error():
    gun = str(PATTERNS / "gosper-glider-gun.rle")
    code, reason = cli_error("run", gun, "--gens", "5000", "--max-memory", "64K", "--kernel", "reference")
    assert code == 1
    b = tilelife.load(gun, max_bytes=64 << 10, engine="cpu:reference")
    with pytest.raises(tilelife.RuntimeError) as e:
        b.step(5000)
    # The same reason; the size the board had reached depends on how the steps were cut into calls.
    assert re.sub(r"\d+", "#", str(e.value)) == re.sub(r"\d+", "#", reason)
    assert "over the memory budget" in reason
    assert 0 < b.generation < 5000  # the board stays usable where it stopped
    assert b.population > 36


def test_save_failures(tmp_path):
    out = "/nonexistent-dir/glider.rle"
    code, reason = cli_error("run", GLIDER, "--gens", "1", "-o", out)
    assert code == 1
    b = tilelife.load(GLIDER)
    with pytest.raises(tilelife.RuntimeError) as e:
        b.save(out)
    assert str(e.value) == reason
    with pytest.raises(tilelife.InputError, match=r"glider\.txt: unsupported extension '\.txt' for an output pattern"):
        b.save(tmp_path / "glider.txt")
    assert list(tmp_path.iterdir()) == []  # nothing half-written


def test_board_argument_errors():
    with pytest.raises(tilelife.InputError, match="^a torus board needs a size"):
        tilelife.Board(topology="torus")
    with pytest.raises(tilelife.InputError, match="^topology 'klein' is not unbounded, torus or plane$"):
        tilelife.Board(topology="klein")
    with pytest.raises(tilelife.InputError, match=r"^board size 0x5 is invalid"):
        tilelife.Board(topology="plane", size=(0, 5))
    # One engine choice for every door (the board layer's): the CLI's reason, word for word.
    code, reason = cli_error("run", GLIDER, "--kernel", "cpu:nonesuch")
    assert code == 2 and reason.startswith("unknown backend/kernel 'cpu:nonesuch' (available: cpu:reference")
    with pytest.raises(tilelife.InputError) as e:
        tilelife.Board(engine="cpu:nonesuch")
    assert str(e.value) == reason
    with pytest.raises(tilelife.InputError, match="has no 'quantum' backend"):
        tilelife.Board(engine="quantum")
    with pytest.raises(tilelife.InputError, match="^rule B0/S has B0 and cannot run on an unbounded board"):
        tilelife.Board("B0/S")
    with pytest.raises(tilelife.InputError, match=r"^step\(\) takes 0 or more generations, not -1$"):
        tilelife.Board().step(-1)
    with pytest.raises(tilelife.InputError, match=r"^bad rule 'Life/Generations'"):
        tilelife.canonical_rule("Life/Generations")
    with pytest.raises(TypeError):
        tilelife.Board(size=(1, 2, 3), topology="torus")
    with pytest.raises(tilelife.InputError, match="is not WxH"):
        tilelife.Board(size="12by4", topology="torus")
    with pytest.raises(tilelife.InputError, match="no device backend 'vulkan'"):
        tilelife.devices("vulkan")
