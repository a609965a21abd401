#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause-Patent
# Run the benchmarks of two builds of fovea (an old and a new tree) alternately on
# one machine, twice each (old, new, old, new), so that a difference can be read
# against the run-to-run spread; then print one table of every row's median
# (scripts/bench-compare.py). Results under OUTDIR/{old,new}{1,2}/<bench>.json.
#   usage: scripts/bench-compare.sh OLD_BUILD NEW_BUILD OUTDIR [bench options...]
set -u
[ $# -ge 3 ] || { echo "usage: $0 OLD_BUILD NEW_BUILD OUTDIR [bench options]" >&2; exit 2; }
old=$1 new=$2 out=$3
shift 3
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out" || exit 1
for round in 1 2; do
    for side in old new; do
        eval build=\$$side
        dir="$out/$side$round"
        mkdir -p "$dir"
        for exe in "$build"/bench/bench_*; do
            [ -f "$exe" ] && [ -x "$exe" ] || continue
            name=$(basename "$exe")
            echo "== $side $round $name"
            FOVEA_TESTDATA_EXTRACTED="$build/testdata" "$exe" --json "$dir/$name.json" "$@" \
                >"$dir/$name.txt" 2>&1 || echo "== $side $round $name FAILED (see $dir/$name.txt)"
        done
    done
done
python3 "$here/bench-compare.py" "$out"
