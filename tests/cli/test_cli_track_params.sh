#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause-Patent
# `fovea track` with pyramid options that cannot work on the input's size
# (levels smaller than the window, borders beyond an int): a usage error that
# names the options, exit 2, before any frame is read.
set -u
. "$(dirname "$0")/lib.sh" || exit 1
cli_test_setup test_cli_track_params

# A 640x480 video header without frames: a conflict must be found before any
# frame is read (with no frame to read, the old code exited 0).
printf 'YUV4MPEG2 W640 H480 F25:1 Ip A1:1 C420jpeg\n' >noframes.y4m
for ss in 32 16; do
    run 2 track -q --pyramid-levels 8 --subsampling $ss noframes.y4m
    err_has "fovea: noframes.y4m: --pyramid-levels 8 and --subsampling $ss conflict with --window 7 (default) for the 640x480 input" \
        "8 levels x $ss"
    err_has "level 2 of the 640x480 image is" "8 levels x $ss"
    err_has "(at most 2 levels fit)" "8 levels x $ss"
    err_has "Try 'fovea track --help'." "8 levels x $ss"
    [ -s out ] && fail "8 levels x $ss: unexpected stdout"
done
for levels in 6 7; do
    run 2 track -q --pyramid-levels $levels --subsampling 32 -o feats.txt noframes.y4m
    err_has "--pyramid-levels $levels and --subsampling 32 conflict" "$levels levels x 32"
    [ -e feats.txt ] && fail "$levels levels x 32: an output file was written"
done
run 2 track -q --subsampling 32 --window 21 noframes.y4m
err_has "--pyramid-levels 2 (default) and --subsampling 32 conflict with --window 21 for the 640x480 input: nPyramidLevels 2 with subsampling 32: level 1 of the 640x480 image is 20x15, smaller than the 21x21 window (at most 1 level fits)" \
    "window 21 x 32"
# what fits passes the check and goes on to read frames (none here: the
# empty-input error, exit 1, not the conflict)
run 1 track -q --pyramid-levels 2 --subsampling 32 noframes.y4m
err_has "fovea: noframes.y4m: no frames in the input" "levels 2 x 32 fits"
run 1 track -q --pyramid-levels 3 --subsampling 8 --window 7 noframes.y4m   # level 2: 10x7
err_has "fovea: noframes.y4m: no frames in the input" "levels 3 x 8 fits"

# 64x48 PGM frames
for i in 0 1; do
    { printf 'P5\n64 48\n255\n'; gen8 3072 $((i + 7)); } >f$i.pgm
done
run 2 track -q --window 51 f0.pgm f1.pgm
err_has "fovea: f0.pgm: --window 51 does not fit the 64x48 input: the 64x48 image is smaller than the 51x51 window" \
    "window 51"
run 2 track -q --pyramid-levels 3 f0.pgm f1.pgm
err_has "--pyramid-levels 3 and --subsampling 4 (default) conflict with --window 7 (default) for the 64x48 input" \
    "3 levels on 64x48"
run 0 track -q --pyramid-levels 2 --subsampling 4 f0.pgm f1.pgm
exit 0
