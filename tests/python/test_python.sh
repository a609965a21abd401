#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause-Patent
# test_python: the Python package's pytest suite (python/tests) against this
# build tree. The extension is compiled here with the C compiler straight
# against the build tree's libfovea (no second CMake build, a few seconds) into
# $FOVEA_BUILD_DIR/python/fovea beside links to the package's Python files.
# Exit 77 (skipped) without python3's headers, numpy or pytest.
set -eu
src=${FOVEA_SOURCE_DIR:?}
build=${FOVEA_BUILD_DIR:?}
py=/usr/bin/python3
[ -x "$py" ] || py=$(command -v python3 || true)
if [ -z "$py" ] || ! "$py" -c 'import numpy, pytest' 2>/dev/null; then
    echo "test_python: python3 with numpy and pytest not found (python3-numpy python3-pytest): skipped"
    exit 77
fi
inc=$("$py" -c 'import sysconfig; print(sysconfig.get_paths()["include"])')
if [ ! -f "$inc/Python.h" ]; then
    echo "test_python: Python.h not found (python3-dev): skipped"
    exit 77
fi
lib=$(ls "$build"/libfovea.so.[0-9] 2>/dev/null | head -n 1)
if [ -z "$lib" ]; then
    echo "test_python: no libfovea.so in $build"
    exit 1
fi
out=${FOVEA_PYTHON_OUT:-$build/python}
pkg="$out/fovea"
rm -rf "$pkg"
mkdir -p "$pkg"
for f in "$src"/python/fovea/*.py "$src"/python/fovea/*.pyi "$src"/python/fovea/py.typed; do
    [ -e "$f" ] && ln -s "$f" "$pkg/"
done
cc=${CC:-cc}
# the stream types when the library has the streamer (FOVEA_STREAM)
stream=
if grep -qa fovea_stream_server_open "$lib"; then
    stream=-DFOVEA_HAVE_STREAM=1
fi
# the stable ABI of 3.11, the warnings of the library's own C
$cc -shared -fPIC -O1 -std=c11 -Wall -Wextra -Wshadow -Werror -DPy_LIMITED_API=0x030B0000 $stream \
    -I"$inc" -I"$src/include" "$src"/python/fovea/_*.c -L"$build" -l:"$(basename "$lib")" \
    -Wl,-rpath,"$build" -o "$pkg/_fovea.abi3.so"
# a sanitizer build's library needs the ASan runtime first in the process
if ldd "$lib" | grep -q libasan; then
    LD_PRELOAD=$($cc -print-file-name=libasan.so)
    ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0"
    export LD_PRELOAD ASAN_OPTIONS
fi
cd "$build"
PYTHONPATH="$out" PYTHONDONTWRITEBYTECODE=1 exec "$py" -m pytest -q -p no:cacheprovider \
    "$src/python/tests"
