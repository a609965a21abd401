#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause-Patent
# `fovea demo`: progress on stderr (one updating line where progress is shown,
# nothing with --quiet), its rig written as rig.json beside the images, and
# README's stitching lines run verbatim on it; docs/examples/rig.json is a
# rig `fovea rig check` accepts.
set -u
. "$(dirname "$0")/lib.sh" || exit 1
src=$(cd "$(dirname "$0")/../.." && pwd)
cli_test_setup test_cli_demo

# progress shown (FOVEA_PROGRESS=1 stands for a terminal): each step, redrawn
FOVEA_PROGRESS=1 run 0 demo --scale 16 -o demo-out
err_has "fovea demo: step 1/7 building the stitching map" "progress"
err_has "step 3/7 rendering camera 1 of 2" "progress"
err_has "fovea demo: 7 steps done in" "progress end"
[ "$(tr -cd '\r' <err | wc -c | tr -d ' ')" -ge 7 ] || fail "progress: not one redrawn line"
out_has "demo-out/rig.json" "the summary names rig.json"
# --quiet: nothing on stderr; not a terminal: one line
FOVEA_PROGRESS=1 run 0 demo --scale 16 -o q -q
[ -s err ] && fail "demo -q wrote to stderr: $(cat err)"
FOVEA_PROGRESS=0 run 0 demo --scale 16 -o q
[ "$(wc -l <err | tr -d ' ')" -eq 1 ] || fail "demo without progress: $(cat err)"

# README's stitching lines, as written, on the demo's rig and images
[ -f demo-out/rig.json ] || fail "no demo-out/rig.json"
grep -E '^fovea (rig check demo-out|stitch --map pano.map demo-out)' "$src/README.md" |
    sed 's/ *#.*//' >readme.sh
[ "$(wc -l <readme.sh | tr -d ' ')" -eq 2 ] || fail "README's rig lines: $(cat readme.sh)"
while read -r cmd args; do
    # shellcheck disable=SC2086
    "$FOVEA_CLI" $args >out 2>err || fail "README: $cmd $args: $(cat err)"
done <readme.sh
[ -s pano.map ] && [ -s coverage.png ] && [ -s pano.png ] || fail "README's lines wrote nothing"

# the sample rig of docs/examples
run 0 rig check "$src/docs/examples/rig.json"
out_has "valid" "docs/examples/rig.json"
out_has "5700x1900" "docs/examples/rig.json"
echo "test_cli_demo: ok"
