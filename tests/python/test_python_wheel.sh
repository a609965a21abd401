#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause-Patent
# test_python_wheel: the package as a user installs it. `pip wheel
# --no-build-isolation` from the source tree (setup.py takes this build's
# libfovea through FOVEA_BUILD_DIR instead of a CMake build of its own), the
# wheel installed with --no-index into a fresh `python3 -m venv
# --system-site-packages` (numpy and pytest from Debian's packages), and the
# pytest suite run from outside the source tree against the installed
# package. Checks that the wheel carries libfovea.so.0, the type stubs and
# py.typed, that the extension finds the library through its $ORIGIN rpath,
# and that `import fovea` resolves to the venv. Exit 77 (skipped) without
# Debian's python3 with venv, pip, setuptools, wheel, numpy and pytest.
set -eu
src=${FOVEA_SOURCE_DIR:?}
build=${FOVEA_BUILD_DIR:?}
py=/usr/bin/python3
[ -x "$py" ] || py=$(command -v python3 || true)
if [ -z "$py" ] || ! "$py" -c 'import setuptools, wheel, numpy, pytest, pip, venv' 2>/dev/null; then
    echo "test_python_wheel: python3 with numpy, pytest, pip, setuptools, wheel and venv not found: skipped"
    exit 77
fi
inc=$("$py" -c 'import sysconfig; print(sysconfig.get_paths()["include"])')
if [ ! -f "$inc/Python.h" ]; then
    echo "test_python_wheel: Python.h not found (python3-dev): skipped"
    exit 77
fi
build=$(cd "$build" && pwd)
if ! ls "$build"/libfovea.so.[0-9] >/dev/null 2>&1; then
    echo "test_python_wheel: no libfovea.so in $build"
    exit 1
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/fovea-wheel.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
fail() {
    echo "test_python_wheel: $*"
    exit 1
}

# 1. the wheel, from a copy of the tracked sources (pip builds in the tree it
# is given; the copy keeps setuptools' build folders out of the checkout)
mkdir "$tmp/src"
(cd "$src" && tar cf - pyproject.toml setup.py LICENSE include python docs/python.md) |
    (cd "$tmp/src" && tar xf -)
rm -f "$tmp"/src/python/fovea/*.so*
FOVEA_BUILD_DIR="$build" "$py" -m pip wheel --no-build-isolation --no-deps --no-index \
    -q -w "$tmp/dist" "$tmp/src" >"$tmp/wheel.log" 2>&1 || {
    cat "$tmp/wheel.log"
    fail "pip wheel failed"
}
whl=$(ls "$tmp"/dist/fovea-*.whl 2>/dev/null | head -n 1)
[ -n "$whl" ] || fail "pip wheel wrote no fovea-*.whl"
case "$(basename "$whl")" in
*-cp311-abi3-*.whl) ;;
*) fail "$(basename "$whl"): not tagged cp311-abi3 (the stable ABI of 3.11)" ;;
esac
"$py" - "$whl" <<'EOF' || fail "the wheel lacks a file a user needs"
import sys, zipfile
names = zipfile.ZipFile(sys.argv[1]).namelist()
need = ["fovea/libfovea.so.0", "fovea/py.typed", "fovea/__init__.pyi", "fovea/_fovea.abi3.so",
        "fovea/__init__.py"]
missing = [n for n in need if n not in names]
if missing:
    print("missing from the wheel:", missing, "\nit holds:", names)
    sys.exit(1)
EOF

# 2. a fresh venv, the wheel installed without an index
"$py" -m venv --system-site-packages "$tmp/venv"
"$tmp/venv/bin/python" -m pip install --no-index --no-deps -q "$whl" >"$tmp/install.log" 2>&1 || {
    cat "$tmp/install.log"
    fail "pip install of the wheel failed"
}
site=$("$tmp/venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
ext="$site/fovea/_fovea.abi3.so"
[ -f "$ext" ] || fail "the installed package has no _fovea.abi3.so"
# the library the extension loads is the wheel's copy, not the build tree's
ldd "$ext" | grep 'libfovea.so' | grep -q "$site/fovea/libfovea.so.0" || {
    ldd "$ext"
    fail "_fovea.abi3.so does not load the package's libfovea.so.0"
}

# a sanitizer build's library needs the ASan runtime first in the process
if ldd "$build"/libfovea.so.[0-9] | grep -q libasan; then
    LD_PRELOAD=$(${CC:-cc} -print-file-name=libasan.so)
    ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0"
    export LD_PRELOAD ASAN_OPTIONS
fi

# 3. the suite against the installed package, run from outside the sources
mkdir "$tmp/run"
cp -r "$src/python/tests" "$tmp/run/tests"
cd "$tmp/run"
unset PYTHONPATH
"$tmp/venv/bin/python" - "$site" <<'EOF' || fail "import fovea does not resolve to the venv"
import os, sys
import fovea
where = os.path.realpath(fovea.__file__)
if not where.startswith(os.path.realpath(sys.argv[1])):
    print("fovea imported from", where)
    sys.exit(1)
doc = fovea.vmaf.__doc__ or ""
if "ref" not in doc or len(doc) < 200:
    print("help(fovea.vmaf) is too thin:", doc[:200])
    sys.exit(1)
print("test_python_wheel: fovea", fovea.__version__ if hasattr(fovea, "__version__") else "",
      "from", where)
EOF
PYTHONDONTWRITEBYTECODE=1 "$tmp/venv/bin/python" -m pytest -q -p no:cacheprovider tests
