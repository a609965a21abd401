#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause-Patent
# The CLI on empty or useless input (no frames, a panorama no camera covers),
# and its consistency: help text width and options, --start/--frames (0 = all)
# everywhere, the summary line, --out-format, inputs known by their content
# (a FIFO without extension), a full stdout.
set -u
. "$(dirname "$0")/lib.sh" || exit 1
cli_test_setup test_cli_ux python3

W=32
H=32
gen8 $((W * H * 3 / 2 * 3)) 5 >raw.yuv
run 0 convert -q -s ${W}x$H --pixfmt i420 --fps 25 raw.yuv clip.y4m
head -n 1 clip.y4m >empty.y4m   # a valid y4m header and no frame

# ---------------------------------------------------------------- no frames
run 1 convert empty.y4m out.y4m
err_match "^fovea: empty.y4m: no frames" "convert of an empty y4m"
[ -e out.y4m ] && fail "convert of an empty y4m left an output file"
run 1 convert --start 3 clip.y4m out.y4m
err_match "^fovea: clip.y4m: no frames left after --start 3" "convert --start past the end"
run 1 track empty.y4m
err_match "^fovea: empty.y4m: no frames" "track of an empty y4m"
[ -s out ] && fail "track of an empty y4m printed a table"
"$FOVEA_CLI" track - <empty.y4m >out 2>err && fail "track of an empty stdin: exit 0"
err_match "^fovea: stdin: no frames" "track of an empty stdin"

# ---------------------------------------------------------------- --frames 0 = all, --start
run 0 convert -q --frames 0 clip.y4m all.y4m
cmp -s clip.y4m all.y4m || fail "convert --frames 0 did not copy every frame"
run 0 track -q --frames 0 --json t0.json clip.y4m
json_ok t0.json 'assert d["nFrames"] == 3, d["nFrames"]'
run 0 track -q --start 1 --frames 1 --json t1.json clip.y4m
json_ok t1.json 'assert d["nFrames"] == 1, d["nFrames"]'
run 0 convert -q --start 1 --frames 1 clip.y4m f1.pgm
run 0 track -q --json t1p.json f1.pgm
python3 -c "import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
assert a['frames'] == b['frames']" t1.json t1p.json || fail "track --start 1 does not start at frame 1"
run 1 track -q --start 3 clip.y4m
err_match "^fovea: clip.y4m: no frames left after --start 3" "track --start past the end"
run 2 track --frames -1 clip.y4m
err_match "^fovea: --frames: expected" "track --frames -1"

# ---------------------------------------------------------------- summary lines
run 0 convert clip.y4m s.y4m
out_match "^convert: 3 frames ${W}x$H i420 -> s.y4m i420 in [0-9.]* s ([0-9.]* fps)$" "convert summary"
run 0 convert -q clip.y4m s.y4m
[ -s out ] && fail "convert -q printed a summary"
"$FOVEA_CLI" convert clip.y4m - >piped.y4m 2>err || fail "convert to stdout failed"
cmp -s clip.y4m piped.y4m || fail "convert to stdout: the summary went into the video"
err_match "^convert: 3 frames" "convert to stdout: summary on stderr"
run 0 track -o t.txt clip.y4m
out_match "^track: 3 frames ${W}x$H, [0-9]*/150 features in the last frame -> t.txt in " "track summary"
run 0 track clip.y4m
err_match "^track: 3 frames" "track with the table on stdout: summary on stderr"
grep -q "^track:" out && fail "track: the summary went into the table"

# ---------------------------------------------------------------- stitch
# camera YAW NAME: a 32x32 pinhole camera of the rig; rig CAMERAS... > FILE: a
# 64x32 equirectangular panorama, 100 x 50 degrees
camera() {
    printf '{"name": "%s", "width": 32, "height": 32, "model": "pinhole", "fx": 24, "fy": 24,
      "cx": 15.5, "cy": 15.5, "yaw": %s, "pitch": 0, "roll": 0}' "$2" "$1"
}
rig() {
    printf '{"panorama": {"projection": "equirectangular", "width": 64, "height": 32,\n'
    printf '  "hfov": 100, "vfov": 50},\n "blend": {"feather": 4},\n "cameras": [%s,\n%s]}\n' "$1" "$2"
}
rig "$(camera -20 left)" "$(camera 20 right)" >rig.json
rig "$(camera 180 left)" "$(camera 170 right)" >away.json
gen8 $((W * H * 3 / 2 * 3)) 9 >raw1.yuv
run 0 convert -q -s ${W}x$H --pixfmt i420 --fps 25 raw1.yuv clip1.y4m

run 0 stitch --rig rig.json clip.y4m clip1.y4m -o pano.y4m
out_match "^stitch: 3 frames from 2 cameras -> pano.y4m 64x32 i420 in " "stitch summary"
run 0 stitch -q --rig rig.json --frames 0 clip.y4m clip1.y4m -o all.y4m
cmp -s pano.y4m all.y4m || fail "stitch --frames 0 is not every frame"
[ -s out ] && fail "stitch -q printed a summary"
run 0 stitch --rig rig.json --out-format y4m clip.y4m clip1.y4m -o /dev/null
out_match "^stitch: 3 frames from 2 cameras -> /dev/null" "stitch --out-format y4m -o /dev/null"
run 2 stitch --rig rig.json clip.y4m clip1.y4m -o /dev/null
err_has "use --out-format" "stitch -o /dev/null without --out-format"
run 0 stitch -q --rig rig.json --out-format yuv clip.y4m clip1.y4m -o pano.raw.out
[ "$(wc -c <pano.raw.out | tr -d ' ')" -eq $((64 * 32 * 3 / 2 * 3)) ] || fail "--out-format yuv: size"
if mkfifo cam0 cam1 2>/dev/null; then
    cat clip.y4m >cam0 &
    cat clip1.y4m >cam1 &
    run 0 stitch -q --rig rig.json cam0 cam1 -o fifo.y4m
    wait
    cmp -s pano.y4m fifo.y4m || fail "stitch from FIFOs without extension differs"
fi
run 1 stitch --rig rig.json empty.y4m clip1.y4m -o e.y4m
err_match "^fovea: empty.y4m: no frames" "stitch of an empty input"
"$FOVEA_CLI" stitch --rig rig.json - clip1.y4m -o e.y4m <empty.y4m >out 2>err &&
    fail "stitch of an empty stdin: exit 0"

# a panorama no camera covers is an error, whether from a rig or a map
run 1 stitch --rig away.json clip.y4m clip1.y4m -o away.y4m
err_match "^fovea: away.json: no camera sees any pixel of the panorama" "zero coverage rig"

# imported tables: all-zero weights, or cameras too small for every lookup
mkdir luts
python3 - <<'PY' || fail "cannot write the tables"
import struct
W, H = 64, 32
def table(name, f):
    with open("luts/" + name, "wb") as fp:
        fp.write(b"".join(struct.pack("<f", f(i, j)) for j in range(H) for i in range(W)))
table("lut_left_x.bin", lambda i, j: 1 + i * 0.45)
table("lut_left_y.bin", lambda i, j: 1 + j * 0.9)
table("lut_right_x.bin", lambda i, j: 1 + i * 0.45)
table("lut_right_y.bin", lambda i, j: 1 + j * 0.9)
table("weight_left.bin", lambda i, j: 1.0)
table("weight_right.bin", lambda i, j: 1.0)
PY
run 0 map import --tables luts --pano 64x32 --camera ${W}x$H -o imp.map
run 0 map info imp.map
grep -q "^feather" out && fail "map info of an imported map shows a feather"
out_match "^explicit weights: yes" "map info of an imported map"
run 0 rig check -q --save-map rig.map rig.json
run 0 map info rig.map
out_match "^feather: 4 px" "map info of a rig map"
run 1 map import --tables luts --pano 64x32 --camera 1x1 -o one.map
err_match "^fovea: luts: the tables cover no pixel of the panorama" "map import --camera 1x1"
[ -e one.map ] && fail "map import wrote a map that covers nothing"
python3 -c "open('luts/weight_left.bin', 'wb').write(bytes(64 * 32 * 4))
open('luts/weight_right.bin', 'wb').write(bytes(64 * 32 * 4))"
run 1 map import --tables luts --pano 64x32 --camera ${W}x$H -o zero.map
err_match "^fovea: luts: the tables cover no pixel" "map import of all-zero weights"
run 0 stitch -q --map imp.map clip.y4m clip1.y4m -o x.y4m

# ---------------------------------------------------------------- stdout errors
if [ -w /dev/full ]; then
    "$FOVEA_CLI" info >/dev/full 2>err && fail "info >/dev/full: exit 0"
    err_match "^fovea: stdout: No space left on device" "info >/dev/full"
    "$FOVEA_CLI" convert --help >/dev/full 2>err && fail "convert --help >/dev/full: exit 0"
fi

# ---------------------------------------------------------------- help
# send and receive exist where the delta streamer is built (libzstd, libxxhash)
stream_cmds=
[ "${FOVEA_HAVE_STREAM:-ON}" = ON ] && stream_cmds="send receive"
# live where libwebsockets is built in (fovea info says)
"$FOVEA_CLI" info --json | grep -q '"live":[[:space:]]*true' && stream_cmds="$stream_cmds live"
for c in "" info convert "rig check" "map import" "map info" stitch demo vif track rig map $stream_cmds; do
    # shellcheck disable=SC2086
    run 0 $c --help
    awk 'length($0) > 80 { exit 1 }' out || fail "fovea $c --help: a line over 80 columns"
done
run 0 demo --help
grep -q -i "issue" out && fail "demo --help speaks of an issue"
grep -q "5700x1900" out || fail "demo --help does not give the panorama size"
grep -q "3840x2160" out || fail "demo --help does not give the camera size"
for c in info convert "rig check" "map import" "map info" stitch demo vif track $stream_cmds; do
    # shellcheck disable=SC2086
    run 0 $c --help
    grep -q "^Exit status: 0 " out || fail "fovea $c --help: no exit status"
    # every listed option is accepted: a flag with --help after it exits 0; an
    # option with a value either takes a dummy one or rejects it by name
    sed -n 's/^  \(-[a-zA-Z], \)\{0,1\}--\([a-z0-9-]*\)\( [^ ]*\)\{0,1\}.*/\2 \3/p' out >opts
    [ -s opts ] || fail "fovea $c --help: no options found"
    while read -r name arg; do
        [ "$name" = help ] && continue
        if [ -n "$arg" ]; then
            # shellcheck disable=SC2086
            "$FOVEA_CLI" $c "--$name=@x@" --help >o2 2>err
            st=$?
            [ $st -eq 0 ] || [ $st -eq 2 ] || fail "fovea $c --$name=@x@: exit $st"
            [ $st -eq 0 ] || grep -q -- "--$name" err ||
                fail "fovea $c --$name=@x@: rejected without naming the option"
        else
            # shellcheck disable=SC2086
            "$FOVEA_CLI" $c "--$name" --help >o2 2>err || fail "fovea $c --$name --help failed"
        fi
        grep -q "unknown option" err && fail "fovea $c --help lists --$name, not accepted"
    done <opts
done

echo "test_cli_ux: ok"
