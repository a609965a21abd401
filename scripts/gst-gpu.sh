#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause-Patent
# gst-fovea on a machine with a CUDA GPU: configure and build with the CUDA
# backend for the local GPU and FOVEA_GST=ON, run every element test (ctest
# -L gst; test_gst_cuda, CUDA memory with backend=cuda, must run and pass, not
# skip), then scripts/gst-bench.sh (foveastitch against fovea stitch) on the
# CPU and on CUDA. cJSON comes from .deps (scripts/cjson-env.sh) and GStreamer
# from .gst (scripts/gst-env.sh: Debian 12 packages fetched here by
# scripts/gst-carry.sh, unpacked into .gst-root) where the machine lacks them.
# The transcript, the ctest log and the bench tables and JSON go to $OUT when
# set; the last lines are a summary.
#
#   usage: scripts/gst-gpu.sh [--build-dir DIR] [--no-bench] [--frames N]
set -uo pipefail
export LC_ALL=C
BUILD=build-gst-gpu
BENCH=1
FRAMES=240
while [ $# -gt 0 ]; do
    case "$1" in
    --build-dir) BUILD=$2; shift ;;
    --no-bench) BENCH=0 ;;
    --frames) FRAMES=$2; shift ;;
    -h | --help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "gst-gpu: unknown argument '$1'" >&2; exit 2 ;;
    esac
    shift
done
cd "$(dirname "$0")/.." || exit 1
ROOT=$PWD
case "$BUILD" in /*) ;; *) BUILD="$ROOT/$BUILD" ;; esac
export PATH="/usr/local/cuda/bin:$PATH"
if [ -n "${OUT:-}" ]; then
    mkdir -p "$OUT"
    exec > >(tee "$OUT/gst-gpu.log") 2>&1
fi
status=0
step() { echo; echo "=== $*"; }

# shellcheck source=cjson-env.sh
. "$ROOT/scripts/cjson-env.sh"
setup_cjson || exit 1
# shellcheck source=gst-env.sh
. "$ROOT/scripts/gst-env.sh"
setup_gst || exit 1
for pc in gstreamer-1.0 gstreamer-video-1.0 gstreamer-check-1.0 gstreamer-app-1.0 gstreamer-cuda-1.0; do
    pkg-config --exists "$pc" || { echo "gst-gpu: pkg-config finds no $pc"; exit 1; }
done
for t in gst-launch-1.0 gst-inspect-1.0; do
    command -v $t >/dev/null 2>&1 || { echo "gst-gpu: no $t on PATH"; exit 1; }
done
echo "gst-gpu: $(command -v gst-launch-1.0), GStreamer $(pkg-config --modversion gstreamer-1.0)"
ARCH=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n 1 | tr -d .)
[ -n "$ARCH" ] || ARCH=90
GPU=$(nvidia-smi --query-gpu=name,compute_cap,driver_version --format=csv,noheader 2>/dev/null | head -n 1)
[ -n "$GPU" ] || GPU="none found (nvidia-smi)"
echo "gst-gpu: GPU $GPU"

step "configure + build ($BUILD, sm_$ARCH)"
GEN=()
[ ! -f "$BUILD/CMakeCache.txt" ] && command -v ninja >/dev/null 2>&1 && GEN=(-G Ninja)
cmake -S "$ROOT" -B "$BUILD" "${GEN[@]}" -DCMAKE_BUILD_TYPE=Release -DFOVEA_CUDA=ON \
    "-DFOVEA_CUDA_ARCHS=$ARCH" -DFOVEA_GST=ON -DFOVEA_BUILD_BENCH=OFF || exit 1
cmake --build "$BUILD" -j "$(nproc)" || exit 1
grep -q '^FOVEA_GST_CUDA_INCLUDE:.*-NOTFOUND' "$BUILD/CMakeCache.txt" && {
    echo "gst-gpu: cudaGL.h not found: the plugin was built without CUDA memory"
    status=1
}

step "element tests (ctest -L gst)"
# the tests in system memory run their pipelines with backend=cpu (their
# bytes are compared with the CPU library); test_gst_cuda runs every element
# with backend=cuda on system memory and on CUDA memory
CTLOG="${OUT:-$BUILD}/gst-ctest.log"
ctest --test-dir "$BUILD" -L gst --output-on-failure -j 4 2>&1 | tee "$CTLOG"
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1
[ -n "${OUT:-}" ] && cp "$BUILD/Testing/Temporary/LastTest.log" "$OUT/gst-LastTest.log" 2>/dev/null
echo "--- test_gst_cuda's output:"
awk '/Test: test_gst_cuda$/,/<end of output>/' "$BUILD/Testing/Temporary/LastTest.log"
if ! grep -Eq "test_gst_cuda \.+ +Passed" "$CTLOG"; then
    echo "gst-gpu: test_gst_cuda did not pass (it must run on a GPU machine, not skip)"
    status=1
fi

BENCHLOG="${OUT:-$BUILD}/gst-bench.md"
: >"$BENCHLOG"
if [ $BENCH -eq 1 ]; then
    for b in cpu cuda; do
        step "bench: foveastitch vs fovea stitch, backend $b"
        sh "$ROOT/scripts/gst-bench.sh" --build "$BUILD" --backend "$b" --frames "$FRAMES" \
            --runs 5 --json "${OUT:-$BUILD}/gst-bench-$b.json" | tee -a "$BENCHLOG"
        [ "${PIPESTATUS[0]}" -eq 0 ] || { echo "(bench $b failed)" >>"$BENCHLOG"; status=1; }
        echo >>"$BENCHLOG"
    done
fi

echo
echo "=== summary"
echo "GPU: $GPU (sm_$ARCH); GStreamer $(pkg-config --modversion gstreamer-1.0) from $(command -v gst-launch-1.0)"
grep -E "^ *[0-9]+/[0-9]+ Test +#[0-9]+: " "$CTLOG" | sed 's/^ *[0-9]*\/[0-9]* Test *#[0-9]*: /  /'
grep -E "tests passed|tests failed" "$CTLOG"
[ $BENCH -eq 1 ] && cat "$BENCHLOG"
[ $status -eq 0 ] && echo "gst-gpu: ok" || echo "gst-gpu: FAILED"
exit $status
