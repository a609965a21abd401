#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause-Patent
# Install the Debian packages fovea needs to build and test. Idempotent: does
# nothing when everything is present; installs with apt-get only when running as
# root, otherwise prints the exact command to run.
set -eu

# python3: the CLI tests check the JSON outputs with it; cairo + DejaVu draw the
# CLI's charts (vif --plot; optional in the build: FOVEA_CAIRO); zstd + xxHash
# make the delta streamer (optional in the build: FOVEA_STREAM)
# clang-format (14 on Debian 12): the format check of make check
PKGS="clang-format cmake make gcc pkg-config libpng-dev zlib1g-dev libcjson-dev python3 libcairo2-dev fonts-dejavu-core libzstd-dev libxxhash-dev"
# GStreamer: the plugin gst-fovea (gst/, optional in the build: FOVEA_GST) and
# its tests (GstCheck comes with libgstreamer1.0-dev; gst-launch-1.0 and
# gst-inspect-1.0 with the tools; videotestsrc, appsrc/appsink from base;
# y4menc, jpegenc/jpegdec from good); GStreamer's CUDA library (CUDA memory,
# memory:CUDAMemory) from the plugins-bad development package
PKGS="$PKGS libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev gstreamer1.0-tools"
PKGS="$PKGS gstreamer1.0-plugins-base gstreamer1.0-plugins-good libgstreamer-plugins-bad1.0-dev"
# the elements README's and docs/gst.md's pipelines use beside fovea's: y4mdec
# (reading y4m files) is in plugins-bad
PKGS="$PKGS gstreamer1.0-plugins-bad"
# FFmpeg's libraries: media in and out (optional in the build: FOVEA_FFMPEG);
# the ffmpeg tool makes the media the tests read (docs/media.md)
PKGS="$PKGS libavformat-dev libavcodec-dev libavutil-dev libswscale-dev libavdevice-dev ffmpeg"
# the Python package (python/, docs/python.md): the extension's headers, numpy,
# pytest for its tests (test_python), venv/setuptools/pip for `pip install .`
PKGS="$PKGS python3-dev python3-numpy python3-pytest python3-venv python3-setuptools python3-pip"
# libdlpack-dev: DLPack's header (dlpack/dlpack.h), GPU arrays in and out of the package
PKGS="$PKGS libdlpack-dev"
# hugin-tools: Hugin's renderer nona, the reference the .pto import is tested
# against (tests/test_stitch_pto_nona.c skips without it)
PKGS="$PKGS hugin-tools"
# `fovea live` (optional in the build: FOVEA_LIVE): libwebsockets serves the
# page and the stream; emscripten compiles the page's decoder to WebAssembly
# (FOVEA_LIVE_WASM; the build fetches zstd's sources from Debian's source
# package); npm installs the page's chart library from web/package-lock.json;
# chromium (headless) and python3-websockets drive the page in the tests
PKGS="$PKGS libwebsockets-dev emscripten chromium python3-websockets"
if ! command -v npm >/dev/null 2>&1; then
    PKGS="$PKGS npm"
fi
# clang + its runtime are for `make fuzz` only
if [ "${FOVEA_DEPS_FUZZ:-0}" = 1 ]; then
    PKGS="$PKGS clang libclang-rt-dev"
fi

missing=""
for p in $PKGS; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing="$missing $p"
    fi
done

if [ -z "$missing" ]; then
    exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
    echo "deps.sh: missing packages:$missing (not a Debian system: install them by hand)" >&2
    exit 1
fi

if [ "$(id -u)" -ne 0 ]; then
    echo "deps.sh: missing Debian packages:$missing" >&2
    echo "deps.sh: run: sudo apt-get update && sudo apt-get install -y$missing" >&2
    exit 1
fi

echo "deps.sh: installing:$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing
