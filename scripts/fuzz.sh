#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause-Patent
# Run every libFuzzer target of a FOVEA_FUZZ build for a bounded time each,
# starting from a scratch copy of its hand-made corpus (the repo stays clean).
# usage: scripts/fuzz.sh BUILD_DIR SECONDS
set -eu
build=${1:-build-fuzz}
secs=${2:-60}
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
found=0
failed=""
for bin in "$build"/tests/fuzz_*; do
    [ -x "$bin" ] || continue
    name=$(basename "$bin")
    short=${name#fuzz_}
    found=1
    mkdir -p "$work/$short" "$work/$short-artifacts"
    if [ -d "$root/tests/fuzz/corpus/$short" ]; then
        cp "$root/tests/fuzz/corpus/$short"/* "$work/$short"/ 2>/dev/null || true
    fi
    echo "== $name: ${secs}s"
    if ! "$bin" -max_total_time="$secs" -rss_limit_mb=2048 -timeout=10 \
            -artifact_prefix="$work/$short-artifacts/" "$work/$short"; then
        failed="$failed $name"
        mkdir -p "$build/fuzz-artifacts"
        cp "$work/$short-artifacts"/* "$build/fuzz-artifacts/" 2>/dev/null || true
    fi
done
[ "$found" = 1 ] || { echo "fuzz.sh: no fuzz targets in $build/tests" >&2; exit 1; }
if [ -n "$failed" ]; then
    echo "fuzz.sh: crashes in:$failed (inputs in $build/fuzz-artifacts)" >&2
    exit 1
fi
echo "fuzz.sh: all targets ran ${secs}s without a finding"
