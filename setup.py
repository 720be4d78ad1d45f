"""Builds tilelife's Python module and the `tilelife` command with the project's CMake build (only
their targets) for `pip install .` (see pyproject.toml): the command goes into the package (_bin/,
with its modules in _bin/lib/tilelife as in a build tree) and onto PATH as a console script
(tilelife._cli). Environment:
  TILELIFE_CMAKE_BUILD_DIR  an already configured CMake build directory to build the module in
                            (instead of configuring a fresh one under build-pip/)
  TILELIFE_CMAKE_ARGS       extra configure arguments, e.g. "-DTILELIFE_OPENCL=OFF"
"""
import os
import pathlib
import shlex
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = pathlib.Path(__file__).resolve().parent


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        given = os.environ.get("TILELIFE_CMAKE_BUILD_DIR")
        build_dir = pathlib.Path(given or self.build_temp).resolve()
        if not given:
            configure = ["cmake", "-S", str(ROOT), "-B", str(build_dir), "-DCMAKE_BUILD_TYPE=Release",
                         f"-DPython3_EXECUTABLE={sys.executable}", "-DTILELIFE_TESTS=OFF", "-DTILELIFE_BENCH=OFF"]
            if shutil.which("ninja"):
                configure += ["-G", "Ninja"]
            configure += shlex.split(os.environ.get("TILELIFE_CMAKE_ARGS", ""))
            subprocess.run(configure, check=True)
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL", str(os.cpu_count() or 2))
        subprocess.run(["cmake", "--build", str(build_dir), "--target", "tilelife_python", "tilelife_cli", "-j", jobs],
                       check=True)
        built = sorted((build_dir / "python" / "tilelife").glob("_tilelife*.so"))
        if not built:
            sys.exit(f"setup.py: the CMake build in {build_dir} made no Python module for {sys.executable}: it needs "
                     "this Python's headers (Debian: python3-dev), pybind11 (pybind11-dev) and NumPy (python3-numpy); "
                     "the configure step above says which was missing")
        target = pathlib.Path(self.get_ext_fullpath(ext.name))
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(built[0], target)
        # The command and its modules, laid out as in a build tree so that it finds them beside itself.
        bin_dir = target.parent / "_bin"
        (bin_dir / "lib" / "tilelife").mkdir(parents=True, exist_ok=True)
        shutil.copy2(build_dir / "tilelife", bin_dir / "tilelife")
        for module in (build_dir / "lib" / "tilelife").glob("*.so"):
            shutil.copy2(module, bin_dir / "lib" / "tilelife" / module.name)


setup(
    packages=["tilelife"],
    package_dir={"": "python"},
    ext_modules=[Extension("tilelife._tilelife", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
    # Not build/: that is the CMake build directory of `make build`.
    options={"build": {"build_base": "build-pip"}, "egg_info": {"egg_base": "build-pip"}},
)
