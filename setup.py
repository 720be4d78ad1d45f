"""Builds tilelife's Python module with the project's CMake build (only the module's targets) for
`pip install .` (see pyproject.toml). Environment:
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
        subprocess.run(["cmake", "--build", str(build_dir), "--target", "tilelife_python", "-j", jobs], check=True)
        built = sorted((build_dir / "python" / "tilelife").glob("_tilelife*.so"))
        if not built:
            sys.exit(f"setup.py: the CMake build in {build_dir} made no Python module "
                     "(its configure step says why: Python headers or pybind11 missing?)")
        target = pathlib.Path(self.get_ext_fullpath(ext.name))
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(built[0], target)


setup(
    packages=["tilelife"],
    package_dir={"": "python"},
    ext_modules=[Extension("tilelife._tilelife", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
    # Not build/: that is the CMake build directory of `make build`.
    options={"build": {"build_base": "build-pip"}, "egg_info": {"egg_base": "build-pip"}},
)
