#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause-Patent
# `fovea convert` end to end on small generated clips: container round trips,
# frame selection, pipes, PNG/PNM output and input, pixel format conversion,
# truncated input, progress and the JSON summary.
set -u
. "$(dirname "$0")/lib.sh" || exit 1
# the JSON checks need python3 (scripts/deps.sh installs it): without it the
# test is skipped, not passed with those checks left out
cli_test_setup test_cli_convert python3

W=16
H=8
F8=$((W * H * 3 / 2))   # bytes of one i420 frame
gen8 $((F8 * 5)) 7 >raw.yuv
expect_size raw.yuv $((F8 * 5))

# ---- yuv -> y4m -> yuv is byte-identical
run 0 convert -q -s ${W}x${H} --pixfmt i420 --fps 30/1 raw.yuv a.y4m
head -n 1 a.y4m | grep -q "^YUV4MPEG2 W$W H$H F30:1 " || fail "a.y4m: unexpected header: $(head -n 1 a.y4m)"
expect_size a.y4m $(($(head -n 1 a.y4m | wc -c) + 5 * (6 + F8)))
run 0 convert -q a.y4m b.yuv
cmp -s raw.yuv b.yuv || fail "yuv -> y4m -> yuv differs"
run 0 convert -q --width $W --height $H --pixfmt yuv420p --fps 30 raw.yuv a2.y4m
cmp -s a.y4m a2.y4m || fail "--width/--height differ from -s"
run 0 convert -q --in-format yuv --out-format yuv -s ${W}x${H} --pixfmt i420 raw.yuv b.dat
cmp -s raw.yuv b.dat || fail "--in-format/--out-format yuv copy differs"

# ---- pipes: y4m through stdin/stdout
cat a.y4m | "$FOVEA_CLI" convert - - >c.y4m 2>err || fail "convert - - failed"
cmp -s a.y4m c.y4m || fail "y4m through stdin/stdout differs"
"$FOVEA_CLI" convert -q --out-format yuv a.y4m - >c.yuv 2>err || fail "convert to stdout as yuv failed"
cmp -s raw.yuv c.yuv || fail "yuv on stdout differs"

# ---- frame selection: --start / --frames
run 0 convert -q --start 1 --frames 2 a.y4m s.yuv
dd if=raw.yuv of=exp.yuv bs=$F8 skip=1 count=2 2>/dev/null
cmp -s exp.yuv s.yuv || fail "--start 1 --frames 2 selected the wrong frames"
run 0 convert -q --start 3 a.y4m s3.yuv
dd if=raw.yuv of=exp3.yuv bs=$F8 skip=3 2>/dev/null
cmp -s exp3.yuv s3.yuv || fail "--start 3 selected the wrong frames"
run 0 convert -q --frames 9 -s ${W}x${H} --pixfmt i420 raw.yuv all.yuv
cmp -s raw.yuv all.yuv || fail "--frames beyond the end should copy everything"
run 1 convert -q --start 10 a.y4m never.yuv
grep -q '^fovea: a.y4m: ' err || fail "--start past the end: message"

# ---- PNG / PNM output
run 0 convert -q --frames 1 a.y4m one.png
[ "$(od -An -tx1 -N4 one.png | tr -d ' \n')" = "89504e47" ] || fail "one.png is not a PNG"
run 1 convert -q a.y4m several.png   # five frames into one image
grep -qi 'pattern' err || fail "several frames into one PNG: message should suggest a pattern"
run 0 convert -q --frames 3 a.y4m 'p%04d.png'
for i in 0 1 2; do
    [ -s p000$i.png ] || fail "pattern output p000$i.png missing"
done
[ -e p0003.png ] && fail "pattern output wrote more than --frames 3"
run 0 convert -q --start 2 --frames 1 a.y4m one.ppm
run 0 convert -q --start 2 --frames 1 a.y4m two.png
head -c 2 one.ppm | grep -q P6 || fail "one.ppm is not P6"

# ---- PNG / PNM input: the same frame through PNG and PPM gives the same RGB
run 0 convert -q two.png rgb_png.yuv
run 0 convert -q one.ppm rgb_ppm.yuv
expect_size rgb_png.yuv $((W * H * 3))
cmp -s rgb_png.yuv rgb_ppm.yuv || fail "PNG and PPM of the same frame decode differently"
run 0 convert -q p0000.png q.y4m
head -n 1 q.y4m | grep -q "^YUV4MPEG2 W$W H$H .*C420" || fail "png -> y4m: header $(head -n 1 q.y4m)"
expect_size q.y4m $(($(head -n 1 q.y4m | wc -c) + 6 + F8))

# ---- YUV range: ffmpeg's y4m XCOLORRANGE tag chooses it unless --range does
run 0 convert -q --range full p0000.png qf.y4m
head -n 1 qf.y4m | grep -q ' XCOLORRANGE=FULL$' || fail "png -> y4m --range full: $(head -n 1 qf.y4m)"
head -n 1 q.y4m | grep -q ' XCOLORRANGE=LIMITED$' || fail "png -> y4m: $(head -n 1 q.y4m)"
cmp -s q.y4m qf.y4m && fail "--range full: the same y4m as limited"
{ head -n 1 a.y4m | tr -d '\n'; printf ' XCOLORRANGE=FULL\n'; tail -n +2 a.y4m; } >af.y4m
run 0 convert -q --frames 1 --range full a.y4m full_opt.png
run 0 convert -q --frames 1 af.y4m full_tag.png --json tag.json
cmp -s full_opt.png full_tag.png || fail "XCOLORRANGE=FULL input: not converted as full range"
cmp -s one.png full_tag.png && fail "XCOLORRANGE=FULL input: converted as limited range"
grep -q '"range":[[:space:]]*"full"' tag.json || fail "--json: no \"range\": \"full\""
run 0 convert -q --frames 1 --range limited af.y4m lim.png
cmp -s one.png lim.png || fail "--range limited does not override the tag"
run 0 convert -q --pixfmt-out i444 af.y4m af444.y4m # YUV -> YUV keeps the tag
head -n 1 af444.y4m | grep -q ' XCOLORRANGE=FULL$' || fail "y4m -> y4m: tag lost"
run 2 convert -q --range wide a.y4m x.png

# ---- gray: yuv gray8 -> png -> yuv is lossless
gen8 $((W * H)) 11 >gray.yuv
run 0 convert -q -s ${W}x${H} --pixfmt gray8 gray.yuv gray.png
run 0 convert -q gray.png gray2.yuv
cmp -s gray.yuv gray2.yuv || fail "gray8 -> png -> yuv differs"

# ---- pixel format conversion round trips that are exact
run 0 convert -q --pixfmt-out i444 a.y4m x444.y4m
head -n 1 x444.y4m | grep -q 'C444' || fail "--pixfmt-out i444: header $(head -n 1 x444.y4m)"
run 0 convert -q --pixfmt-out i420 x444.y4m x420.yuv
cmp -s raw.yuv x420.yuv || fail "i420 -> i444 -> i420 differs"
run 0 convert -q --pixfmt-out i420p10 --threads 2 a.y4m x10.y4m
run 0 convert -q --pixfmt-out i420 x10.y4m x8.yuv
cmp -s raw.yuv x8.yuv || fail "i420 -> i420p10 -> i420 differs"

# ---- 10-bit y4m round trip through yuv
F10=$((W * H * 3))      # bytes of one i420p10 frame
gen10 $((W * H * 3 / 2 * 3)) 5 >raw10.yuv
expect_size raw10.yuv $((F10 * 3))
run 0 convert -q -s ${W}x${H} --pixfmt i420p10 raw10.yuv a10.y4m
head -n 1 a10.y4m | grep -q 'C420p10' || fail "10-bit y4m header: $(head -n 1 a10.y4m)"
run 0 convert -q a10.y4m b10.yuv
cmp -s raw10.yuv b10.yuv || fail "i420p10 yuv -> y4m -> yuv differs"

# ---- errors
head -c $(($(size_of a.y4m) - 10)) a.y4m >trunc.y4m
run 1 convert -q trunc.y4m trunc.yuv
grep -q '^fovea: trunc.y4m: ' err || fail "truncated input: message should start with the path"
grep -q 'truncated' err || fail "truncated input: message should say truncated"
run 2 convert -q -s ${W}x${H} --pixfmt bogus raw.yuv bad.y4m
run 2 convert -q -s ${W}x${H} raw.yuv bad.y4m
run 2 convert -q -s ${W}x${H} --pixfmt i420 a.y4m bad.yuv   # geometry is for raw input only
run 1 convert -q a.y4m "$tmp/no-such-dir/out.y4m"
grep -q "^fovea: $tmp/no-such-dir/out.y4m: " err || fail "unwritable output: message"

# ---- progress (forced, since stderr is not a terminal here) and --quiet
FOVEA_PROGRESS=1 "$FOVEA_CLI" convert a.y4m prog.yuv 2>err || fail "convert with progress failed"
grep -q 'frame 5/5' err || fail "progress: no 'frame 5/5' line"
grep -q 'fps' err || fail "progress: no fps"
FOVEA_PROGRESS=1 "$FOVEA_CLI" convert --quiet a.y4m prog.yuv 2>err || fail "convert --quiet failed"
[ -s err ] && fail "--quiet still printed to stderr"
"$FOVEA_CLI" convert a.y4m prog.yuv 2>err || fail "convert without a terminal failed"
[ -s err ] && fail "progress printed although stderr is not a terminal"

# ---- the y4m header's X tags (ffmpeg always writes XYSCSS=...) are kept:
# a y4m copy is byte-identical; a conversion drops the XYSCSS of the old format
{ printf 'YUV4MPEG2 W%d H%d F25:1 Ip A1:1 C420jpeg XYSCSS=420JPEG XFOO=bar XCOLORRANGE=LIMITED\n' $W $H
  for i in 1 2; do printf 'FRAME\n'; dd if=raw.yuv bs=$F8 skip=$i count=1 2>/dev/null; done; } >ff.y4m
run 0 convert -q ff.y4m ff_copy.y4m
cmp -s ff.y4m ff_copy.y4m || fail "ff.y4m copy differs: $(head -n 1 ff_copy.y4m)"
run 0 convert -q --pixfmt-out i444 ff.y4m ff444.y4m
[ "$(head -n 1 ff444.y4m)" = "YUV4MPEG2 W$W H$H F25:1 Ip A1:1 C444 XFOO=bar XCOLORRANGE=LIMITED" ] ||
    fail "ff.y4m to i444: header $(head -n 1 ff444.y4m)"

# ---- JSON summary
run 0 convert -q --start 1 --json sum.json a.y4m sum.yuv
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["frames"] == 4, d["frames"]
assert d["start"] == 1
assert d["input"]["container"] == "y4m" and d["input"]["pixfmt"] == "i420"
assert d["input"]["width"] == 16 and d["input"]["height"] == 8
assert d["input"]["fps"] == "30/1"
assert d["output"]["container"] == "yuv"
assert d["seconds"] >= 0
' sum.json || fail "--json: unexpected summary"

echo "test_cli_convert: all passed"
exit 0
