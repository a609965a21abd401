#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause-Patent
# The Python package on a machine with a CUDA GPU (the lent one: Python 3.12 +
# numpy, maybe no pytest, maybe no Python headers). The extension is abi3
# (3.11's stable ABI): it is compiled HERE (Debian 12, Python 3.11) by
# --prepare into .carry/python (git-ignored; carry ".carry"), and loaded there
# against the libfovea.so.0 of a CUDA build tree (made with --build-dir when
# missing: Release, CUDA for the local GPU, cJSON from .deps: carry ".deps").
# Steps: the GPU tests (python/tests/test_gpu.py), the whole Python suite on the
# GPU machine's default (CUDA) context, the GPU tests under compute-sanitizer
# memcheck, and bench/python_vmaf.py on CUDA and on the CPU. The runner is
# pytest when python3 imports it, else python/tests/plain_runner.py (the log
# says which). Transcript and bench JSON go to $OUT when set; a summary ends it.
#
#   here:    scripts/python-gpu.sh --prepare [--build-dir build-asan]
#   device:  scripts/python-gpu.sh [--build-dir build-gpu] [--no-bench] [--no-sanitizer]
#                                  [--frames N]
set -uo pipefail
export LC_ALL=C
BUILD=""
PREPARE=0
BENCH=1
SANITIZE=1
FRAMES=240  # the CLI row's start is then a few percent of it (bench/python_vmaf.py)
while [ $# -gt 0 ]; do
    case "$1" in
    --prepare) PREPARE=1 ;;
    --build-dir) BUILD=$2; shift ;;
    --no-bench) BENCH=0 ;;
    --no-sanitizer) SANITIZE=0 ;;
    --frames) FRAMES=$2; shift ;;
    -h | --help) sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "python-gpu: unknown argument '$1'" >&2; exit 2 ;;
    esac
    shift
done
cd "$(dirname "$0")/.." || exit 1
ROOT=$PWD
CARRY="$ROOT/.carry/python"
# the Python to use: $PYTHON, else the first of /usr/bin/python3 and python3
# that has numpy
PY=${PYTHON:-}
if [ -z "$PY" ]; then
    for PY in /usr/bin/python3 python3; do
        "$PY" -c 'import numpy' 2>/dev/null && break
    done
fi

# compile_ext OUT_DIR LIB [-DFOVEA_HAVE_STREAM=1]: the extension, linked to
# LIB's soname with the rpath $ORIGIN (libfovea.so.0 is copied beside it)
compile_ext() {
    local out=$1 lib=$2 inc
    shift 2
    inc=$("$PY" -c 'import sysconfig; print(sysconfig.get_paths()["include"])')
    [ -f "$inc/Python.h" ] || { echo "python-gpu: no Python.h in $inc (python3-dev)"; return 1; }
    mkdir -p "$out"
    # shellcheck disable=SC2016  # $ORIGIN is for the dynamic linker
    ${CC:-cc} -shared -fPIC -O2 -std=c11 -Wall -Wextra -Wshadow -Werror \
        -DPy_LIMITED_API=0x030B0000 "$@" -I"$inc" -I"$ROOT/include" "$ROOT"/python/fovea/_*.c \
        -L"$(dirname "$lib")" -l:libfovea.so.0 '-Wl,-rpath,$ORIGIN' -o "$out/_fovea.abi3.so"
}

if [ "$PREPARE" = 1 ]; then
    BUILD=${BUILD:-build-asan}
    case "$BUILD" in /*) ;; *) BUILD="$ROOT/$BUILD" ;; esac
    lib="$BUILD/libfovea.so.0"
    [ -e "$lib" ] || { echo "python-gpu: no $lib (build fovea_shared first)"; exit 1; }
    rm -rf "$CARRY"
    # with and without the streamer's types: the GPU build may lack libzstd
    compile_ext "$CARRY/stream" "$lib" -DFOVEA_HAVE_STREAM=1 || exit 1
    compile_ext "$CARRY/nostream" "$lib" || exit 1
    git rev-parse HEAD >"$CARRY/commit"
    "$PY" -c 'import sys; print(sys.version.split()[0])' >"$CARRY/python"
    echo "python-gpu: $CARRY/{stream,nostream}/_fovea.abi3.so for commit $(cat "$CARRY/commit")"
    echo "python-gpu: carry \".carry\" (and \".deps\") and run scripts/python-gpu.sh there"
    exit 0
fi

BUILD=${BUILD:-build-gpu}
case "$BUILD" in /*) ;; *) BUILD="$ROOT/$BUILD" ;; esac
export PATH="/usr/local/cuda/bin:$PATH:/usr/local/cuda/compute-sanitizer"
if [ -n "${OUT:-}" ]; then
    mkdir -p "$OUT"
    exec > >(tee "$OUT/python-gpu.log") 2>&1
fi
declare -a SUMMARY=()
status=0
step() { echo; echo "=== $*"; }
record() {
    SUMMARY+=("$(printf '%-28s %s' "$1" "$2")")
    case "$2" in ok | skipped*) ;; *) status=1 ;; esac
}

# shellcheck source=scripts/cjson-env.sh
. "$ROOT/scripts/cjson-env.sh"
setup_cjson || exit 1
GPU=$(nvidia-smi --query-gpu=name,compute_cap,driver_version --format=csv,noheader 2>/dev/null |
    head -n 1)
echo "python-gpu: GPU ${GPU:-none found (nvidia-smi)}; $("$PY" --version 2>&1)," \
    "numpy $("$PY" -c 'import numpy; print(numpy.__version__)' 2>&1)"

lib="$BUILD/libfovea.so.0"
if [ ! -e "$lib" ]; then
    step "configure + build libfovea and the CLI ($BUILD)"
    ARCH=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n 1 |
        tr -d .)
    GEN=()
    command -v ninja >/dev/null 2>&1 && GEN=(-G Ninja)
    if ! cmake -S "$ROOT" -B "$BUILD" "${GEN[@]}" -DCMAKE_BUILD_TYPE=Release -DFOVEA_CUDA=ON \
        "-DFOVEA_CUDA_ARCHS=${ARCH:-90}" -DFOVEA_BUILD_TESTS=OFF -DFOVEA_BUILD_BENCH=OFF \
        -DFOVEA_GST=OFF || ! cmake --build "$BUILD" -j "$(nproc)" --target fovea_shared fovea; then
        echo "python-gpu: the build failed"
        exit 1
    fi
fi
grep -qa cudaStreamCreate "$lib" || echo "python-gpu: WARNING: $lib has no CUDA backend"

step "package (extension from .carry/python, library from $BUILD)"
variant=nostream
grep -qa fovea_stream_server_open "$lib" && variant=stream
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
pkg="$WORK/fovea"
mkdir -p "$pkg"
for f in "$ROOT"/python/fovea/*.py "$ROOT"/python/fovea/*.pyi "$ROOT"/python/fovea/py.typed; do
    ln -s "$f" "$pkg/"
done
cp -L "$lib" "$pkg/libfovea.so.0"
if [ -f "$CARRY/$variant/_fovea.abi3.so" ]; then
    cp "$CARRY/$variant/_fovea.abi3.so" "$pkg/"
    echo "python-gpu: extension prepared for commit $(cat "$CARRY/commit" 2>/dev/null)" \
        "(Python $(cat "$CARRY/python" 2>/dev/null)), $variant; this tree is at" \
        "$(git rev-parse HEAD 2>/dev/null)"
else
    echo "python-gpu: no $CARRY/$variant (scripts/python-gpu.sh --prepare): compiling here"
    flags=()
    [ "$variant" = stream ] && flags=(-DFOVEA_HAVE_STREAM=1)
    compile_ext "$pkg" "$lib" "${flags[@]}" || exit 1
fi
export PYTHONPATH="$WORK" PYTHONDONTWRITEBYTECODE=1 FOVEA_SOURCE_DIR="$ROOT"
[ -x "$BUILD/fovea" ] && export FOVEA_CLI="$BUILD/fovea"
if [ -d "$ROOT/.carry/testdata" ] && [ -z "${FOVEA_TESTDATA_EXTRACTED:-}" ]; then
    mkdir -p "$WORK/testdata"
    for t in "$ROOT"/.carry/testdata/*.tar.xz; do tar -xJf "$t" -C "$WORK/testdata"; done
    export FOVEA_TESTDATA_EXTRACTED="$WORK/testdata"
fi
if ! "$PY" -c 'import fovea; print("fovea", fovea.version(), "cuda_compiled", fovea.cuda_compiled(), "devices", fovea.device_count(), "default backend", fovea.default_context().backend)'; then
    echo "python-gpu: import fovea failed"
    exit 1
fi

if "$PY" -c 'import pytest' 2>/dev/null; then
    RUNNER=pytest
    echo "python-gpu: runner: pytest $("$PY" -c 'import pytest; print(pytest.__version__)')"
    run_tests() { (cd "$WORK" && "$PY" -m pytest -q -p no:cacheprovider -rs "$@"); }
else
    RUNNER=plain
    echo "python-gpu: runner: python/tests/plain_runner.py (python3 has no pytest)"
    run_tests() { (cd "$WORK" && "$PY" "$ROOT/python/tests/plain_runner.py" "$@"); }
fi

step "GPU tests (python/tests/test_gpu.py, $RUNNER)"
if run_tests "$ROOT/python/tests/test_gpu.py"; then record "test_gpu ($RUNNER)" ok; else
    record "test_gpu ($RUNNER)" FAILED; fi

step "the whole Python suite on the default context (CUDA here; $RUNNER)"
mapfile -t ALL < <(ls "$ROOT"/python/tests/test_*.py)
if run_tests "${ALL[@]}"; then record "python suite ($RUNNER)" ok; else
    record "python suite ($RUNNER)" FAILED; fi

if [ "$SANITIZE" = 1 ]; then
    step "compute-sanitizer memcheck over the GPU tests (plain runner)"
    if command -v compute-sanitizer >/dev/null 2>&1; then
        if (cd "$WORK" && compute-sanitizer --tool memcheck --error-exitcode 99 \
            "$PY" "$ROOT/python/tests/plain_runner.py" "$ROOT/python/tests/test_gpu.py"); then
            record "test_gpu memcheck" ok
        else
            record "test_gpu memcheck" FAILED
        fi
    else
        record "test_gpu memcheck" "skipped (no compute-sanitizer)"
    fi
fi

if [ "$BENCH" = 1 ]; then
    for backend in cuda cpu; do
        step "bench/python_vmaf.py --backend $backend --frames $FRAMES"
        json=()
        [ -n "${OUT:-}" ] && json=(--json-out "$OUT/python_vmaf_$backend.json")
        if (cd "$WORK" && "$PY" "$ROOT/bench/python_vmaf.py" --backend "$backend" \
            --frames "$FRAMES" --repeat 3 --cli "${FOVEA_CLI:-none}" "${json[@]}"); then
            record "bench $backend" ok
        else
            record "bench $backend" FAILED
        fi
    done
fi

echo
echo "=== summary (python-gpu, GPU ${GPU:-none})"
printf '%s\n' "${SUMMARY[@]}"
exit $status
