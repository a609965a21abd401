# SPDX-License-Identifier: BSD-2-Clause-Patent
"""Build fovea's Python extension (pyproject.toml holds the metadata).

build_ext builds libfovea with CMake (Release, no tests, benches or GStreamer
plugin; CUDA when nvcc is found) in build-python/, or takes the one of an
existing build tree named by the environment variable FOVEA_BUILD_DIR, copies
libfovea.so.0 into the package and links the extension against it with the
rpath $ORIGIN: the wheel carries the library."""
import glob
import os
import shutil
import subprocess

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = os.path.dirname(os.path.abspath(__file__))
SOURCES = sorted(glob.glob(os.path.join("python", "fovea", "_*.c")))


def cmake_build():
    build = os.environ.get("FOVEA_BUILD_DIR")
    if build:
        build = os.path.abspath(build)
        if not glob.glob(os.path.join(build, "libfovea.so.*")):
            raise RuntimeError(f"FOVEA_BUILD_DIR={build} holds no libfovea.so.*")
        return build
    build = os.path.join(ROOT, "build-python")
    jobs = os.environ.get("FOVEA_JOBS", str(os.cpu_count() or 2))
    subprocess.check_call(["cmake", "-S", ROOT, "-B", build, "-DCMAKE_BUILD_TYPE=Release",
                           "-DFOVEA_CUDA=" + os.environ.get("FOVEA_CUDA", "AUTO"),
                           "-DFOVEA_BUILD_TESTS=OFF", "-DFOVEA_BUILD_BENCH=OFF",
                           "-DFOVEA_GST=OFF"])
    subprocess.check_call(["cmake", "--build", build, "-j", jobs, "--target", "fovea_shared"])
    return build


class BuildExt(build_ext):
    def build_extensions(self):
        build = cmake_build()
        pkg = os.path.join(self.build_lib, "fovea")
        os.makedirs(pkg, exist_ok=True)
        soname = sorted(glob.glob(os.path.join(build, "libfovea.so.[0-9]")))[0]
        shutil.copy2(soname, os.path.join(pkg, os.path.basename(soname)))
        if self.inplace:
            shutil.copy2(soname, os.path.join(ROOT, "python", "fovea", os.path.basename(soname)))
        with open(soname, "rb") as f:  # the stream types when it has the streamer
            stream = b"fovea_stream_server_open" in f.read()
        for ext in self.extensions:
            ext.library_dirs.append(build)
            if stream:
                ext.define_macros.append(("FOVEA_HAVE_STREAM", "1"))
        super().build_extensions()


setup(
    ext_modules=[Extension(
        "fovea._fovea", SOURCES, include_dirs=[os.path.join(ROOT, "include")],
        libraries=["fovea"], define_macros=[("Py_LIMITED_API", "0x030B0000")],
        extra_compile_args=["-std=c11", "-Wall", "-Wextra", "-Wshadow"],
        extra_link_args=["-Wl,-rpath,$ORIGIN"], py_limited_api=True)],
    cmdclass={"build_ext": BuildExt},
    # setuptools' own build folder away from build/ (make's CMake build)
    options={"bdist_wheel": {"py_limited_api": "cp311"},
             "build": {"build_base": os.path.join("build-python", "setuptools")}},
)
