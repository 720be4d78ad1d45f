"""The `tilelife` console script of `pip install .`: runs the command built with the package (setup.py
puts it in _bin/, its modules in _bin/lib/tilelife, where it looks for them)."""
import os
import pathlib
import sys


def main():
    exe = pathlib.Path(__file__).resolve().with_name("_bin") / "tilelife"
    if not os.access(exe, os.X_OK):
        sys.exit(f"tilelife: the command is not in this installation ({exe}); "
                 "reinstall with `pip install .` from the source tree, or use the CMake build's build/tilelife")
    os.execv(exe, ["tilelife", *sys.argv[1:]])


if __name__ == "__main__":
    main()
