#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause-Patent
# Run every benchmark program of a build (BUILD_DIR/bench/bench_*, in name order),
# passing the remaining arguments through; each writes its JSON results to
# BUILD_DIR/bench-results/<name>.json. Exits non-zero when any benchmark fails.
#   usage: scripts/bench.sh BUILD_DIR [--quick] [--runs N] [...]
set -u

if [ $# -lt 1 ] || [ "$1" = "-h" ] || [ "$1" = "--help" ]; then
    echo "usage: $0 BUILD_DIR [benchmark options, e.g. --quick]" >&2
    exit 2
fi
build=$1
shift
dir="$build/bench"
if [ ! -d "$dir" ]; then
    echo "bench.sh: $dir not found (configure with -DFOVEA_BUILD_BENCH=ON and build first)" >&2
    exit 2
fi
results="$build/bench-results"
# golden data the tests extracted into the build tree (bench_klt's cases a and L)
if [ -z "${FOVEA_TESTDATA_EXTRACTED:-}" ] && [ -d "$build/testdata" ]; then
    FOVEA_TESTDATA_EXTRACTED=$(cd "$build/testdata" && pwd)
    export FOVEA_TESTDATA_EXTRACTED
fi
mkdir -p "$results" || exit 1

count=0
failed=""
# the glob expands in sorted order
for exe in "$dir"/bench_*; do
    if [ ! -f "$exe" ] || [ ! -x "$exe" ]; then continue; fi
    name=$(basename "$exe")
    count=$((count + 1))
    echo "== $name"
    start=$(date +%s)
    "$exe" --json "$results/$name.json" "$@"
    rc=$?
    secs=$(($(date +%s) - start))
    if [ $rc -ne 0 ]; then
        echo "== $name FAILED (exit $rc, ${secs}s)"
        failed="$failed $name"
    else
        echo "== $name ok (${secs}s, results in $results/$name.json)"
    fi
    echo
done

if [ $count -eq 0 ]; then
    echo "bench.sh: no bench_* programs in $dir" >&2
    exit 1
fi
if [ -n "$failed" ]; then
    echo "bench.sh: failed:$failed" >&2
    exit 1
fi
echo "bench.sh: $count benchmark(s) ok"
exit 0
