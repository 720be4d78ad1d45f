"""`pip install .` offline (Debian's pip and setuptools, --no-build-isolation --no-index): a fresh
CMake build of the module inside pip, installed into a target directory and imported from there.
The source is copied (mtimes kept) to a work directory under the build tree, so later runs rebuild
only what changed and the source tree is not written to."""
import os
import pathlib
import shutil
import subprocess
import sys

import tilelife
from conftest import PATTERNS, SOURCE_DIR


def sync_tree(src, dst):
    """Copies src to dst: files whose bytes differ, leaving out builds, .git and caches. A copied file
    gets a new mtime, so the build in dst sees it changed even when the source's mtime is older than
    dst's objects (a checkout or merge keeps old mtimes)."""
    for root, dirs, files in os.walk(src):
        rel = pathlib.Path(root).relative_to(src)
        dirs[:] = [d for d in dirs if d not in (".git", "__pycache__", ".device")
                   and not (rel == pathlib.Path(".") and d.startswith("build"))]
        (dst / rel).mkdir(parents=True, exist_ok=True)
        for name in files:
            a, b = pathlib.Path(root) / name, dst / rel / name
            if not b.exists() or b.stat().st_size != a.stat().st_size or b.read_bytes() != a.read_bytes():
                shutil.copyfile(a, b)
                shutil.copymode(a, b)


def test_pip_install_offline(tmp_path):
    work = pathlib.Path(os.environ.get("TILELIFE_PIP_WORK", tmp_path / "work"))
    src = work / "src"
    sync_tree(SOURCE_DIR, src)
    target = tmp_path / "target"
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    env.setdefault("CMAKE_BUILD_PARALLEL_LEVEL", "2")
    p = subprocess.run([sys.executable, "-m", "pip", "install", "--no-build-isolation", "--no-deps", "--no-index",
                        "--target", str(target), str(src)], env=env, capture_output=True, text=True, timeout=1800)
    assert p.returncode == 0, p.stdout[-4000:] + p.stderr[-4000:]
    env["PYTHONPATH"] = str(target)
    check = subprocess.run([sys.executable, "-c", """
import sys, tilelife
b = tilelife.load(sys.argv[1])
b.step(4)
print(tilelife.__file__)
print(tilelife.__version__, b.cells().tolist())
""", str(PATTERNS / "glider.rle")], env=env, cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert check.returncode == 0, check.stderr
    assert check.stdout.splitlines() == [
        str(target / "tilelife" / "__init__.py"),
        f"{tilelife.__version__} [[2, 1], [3, 2], [1, 3], [2, 3], [3, 3]]"]
    installed = sorted(p.name for p in (target / "tilelife").iterdir() if p.name != "__pycache__")
    assert [n for n in installed if not n.startswith("_tilelife.")] == ["__init__.py", "_bin", "_cli.py", "pattern.py"]
    assert any(n.startswith("_tilelife.") for n in installed)
    # The `tilelife` command comes with it, as a console script on the environment's PATH.
    script = target / "bin" / "tilelife"
    assert script.is_file(), sorted(p.name for p in target.iterdir())
    run = subprocess.run([str(script), "run", str(PATTERNS / "glider.rle"), "-g", "4", "-o", "-", "--format", "rle",
                          "-q"], env=env, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines()[-2:] == ["x = 3, y = 3, rule = B3/S23", "bo$2bo$3o!"]
    version = subprocess.run([str(script), "--version"], env=env, capture_output=True, text=True, timeout=60)
    assert version.stdout.split() == ["tilelife", tilelife.__version__]
