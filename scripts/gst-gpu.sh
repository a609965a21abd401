#!/usr/bin/env bash
# gst-fovea on a machine with a CUDA GPU: configure and build with the CUDA
# backend for the local GPU (cJSON from .deps as gpu-check.sh does), run every
# element test (ctest -L gst; test_gst_cuda, CUDA memory with backend=cuda,
# must run, not skip), then scripts/gst-bench.sh on the CPU and on CUDA.
# GStreamer's development packages must be installed (pkg-config gstreamer-1.0,
# gstreamer-cuda-1.0 for CUDA memory, gst-launch-1.0, the base and good
# plugins); the transcript and the bench JSON go to $OUT when set.
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
    -h | --help) sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
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
for pc in gstreamer-1.0 gstreamer-video-1.0 gstreamer-check-1.0 gstreamer-app-1.0; do
    pkg-config --exists "$pc" || { echo "gst-gpu: pkg-config finds no $pc (install GStreamer's development packages)"; exit 1; }
done
pkg-config --exists gstreamer-cuda-1.0 ||
    echo "gst-gpu: no gstreamer-cuda-1.0: the plugin builds without CUDA memory and test_gst_cuda cannot run"
ARCH=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n 1 | tr -d .)
[ -n "$ARCH" ] || ARCH=90
nvidia-smi --query-gpu=name,compute_cap,driver_version --format=csv,noheader 2>&1 | head -n 1

step "configure + build ($BUILD, sm_$ARCH)"
GEN=()
[ ! -f "$BUILD/CMakeCache.txt" ] && command -v ninja >/dev/null 2>&1 && GEN=(-G Ninja)
cmake -S "$ROOT" -B "$BUILD" "${GEN[@]}" -DCMAKE_BUILD_TYPE=Release -DFOVEA_CUDA=ON \
    "-DFOVEA_CUDA_ARCHS=$ARCH" -DFOVEA_GST=ON -DFOVEA_BUILD_BENCH=OFF || exit 1
cmake --build "$BUILD" -j "$(nproc)" || exit 1

step "element tests (ctest -L gst)"
ctest --test-dir "$BUILD" -L gst --output-on-failure -j 4 | tee "$BUILD/gst-ctest.log"
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1
if grep -q "test_gst_cuda .*Skipped" "$BUILD/gst-ctest.log"; then
    echo "gst-gpu: test_gst_cuda was skipped on a GPU machine"
    status=1
fi

if [ $BENCH -eq 1 ]; then
    for b in cpu cuda; do
        step "bench: foveastitch vs fovea stitch, backend $b"
        sh "$ROOT/scripts/gst-bench.sh" --build "$BUILD" --backend "$b" --frames "$FRAMES" \
            --runs 5 --json "${OUT:-$BUILD}/gst-bench-$b.json" || status=1
    done
fi
echo
[ $status -eq 0 ] && echo "gst-gpu: ok" || echo "gst-gpu: FAILED"
exit $status
