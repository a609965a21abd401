#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause-Patent
# `fovea rig check`, `fovea map import|info` and `fovea stitch` end to end on a
# small generated two-camera rig: validation messages, coverage report, PNG and
# JSON output, y4m/PNG stitching, color modes, missing frames, imported maps.
set -u
. "$(dirname "$0")/lib.sh" || exit 1
# the JSON checks need python3 (scripts/deps.sh installs it): without it the
# test is skipped, not passed with those checks left out
cli_test_setup test_cli_stitch python3
is_png() { # FILE [WxH]: a PNG (by its signature), of that size when given (IHDR)
    sig=$(od -A n -t x1 -N 8 "$1" | tr -d ' \n')
    [ "$sig" = "89504e470d0a1a0a" ] || fail "$1: not a PNG (signature $sig)"
    if [ $# -ge 2 ]; then
        dims=$(od -A n -t u1 -j 16 -N 8 "$1" |
            awk '{ printf "%dx%d", (($1 * 256 + $2) * 256 + $3) * 256 + $4,
                                    (($5 * 256 + $6) * 256 + $7) * 256 + $8 }')
        [ "$dims" = "$2" ] || fail "$1: PNG of $dims, expected $2"
    fi
}

# camera FX MODEL YAW NAME: one camera object of the rig
camera() {
    printf '{"name": "%s", "width": 160, "height": 120, "model": "%s", "fx": %s, "fy": 120,
      "cx": 79.5, "cy": 59.5, "yaw": %s, "pitch": 0, "roll": 0}' "$4" "$2" "$1" "$3"
}
# rig CAMERAS... > FILE: a 320x120 equirectangular panorama, 100 x 40 degrees
rig() {
    printf '{"panorama": {"projection": "equirectangular", "width": 320, "height": 120,\n'
    printf '  "hfov": 100, "vfov": 40},\n "blend": {"feather": 16},\n "cameras": ['
    sep=""
    for c in "$@"; do
        printf '%s\n  %s' "$sep" "$c"
        sep=","
    done
    printf ']}\n'
}

W=160
H=120
PW=320
PH=120
FB=$((W * H * 3 / 2))        # one i420 camera frame
PB=$((PW * PH * 3 / 2))      # one i420 panorama frame

# ---------------------------------------------------------------- rig check
rig "$(camera 120 pinhole -20 left)" "$(camera 120 pinhole 20 right)" >rig.json
run 0 rig check rig.json --png cov.png --json cov.json --save-map pano.map
out_has "rig.json: valid" "rig check"
out_has "panorama: 320x120 equirectangular" "rig check"
out_has "left" "rig check"
out_has "pinhole" "rig check"
out_has "160x120" "rig check"
grep -q '^  no camera  *[0-9][0-9.]*%$' out || fail "rig check: no 'no camera' coverage line"
grep -q '^  one camera  *[0-9][0-9.]*%$' out || fail "rig check: no 'one camera' coverage line"
grep -q '^  two or more  *[1-9][0-9.]*%$' out || fail "rig check: no overlap coverage"
grep -q 'left + right: width [1-9][0-9.]* px' out || fail "rig check: no overlap width"
is_png cov.png 320x120
[ -s pano.map ] || fail "--save-map wrote nothing"
json_ok cov.json '
assert d["valid"] is True
assert d["panorama"]["width"] == 320 and d["panorama"]["height"] == 120
assert len(d["cameras"]) == 2
for c in d["cameras"]:
    assert c["grid_step"] in (1, 2, 4, 8, 16, 32)
    assert 0 <= c["max_error"] <= 0.01
cv = d["coverage"]
assert abs(cv["none_pct"] + cv["one_pct"] + cv["multi_pct"] - 100) < 1e-6
assert cv["multi_pct"] > 5
ov = d["overlaps"]
assert len(ov) == 1 and ov[0]["a"] == 0 and ov[0]["b"] == 1 and ov[0]["width"] > 10'
run 0 rig check --json - -q rig.json
[ -s err ] && fail "rig check -q --json -: unexpected stderr"
json_ok out 'assert d["valid"] is True'
# angles beyond a turn: the rotation takes them modulo 360 (exactly, in
# degrees), so -20 - 2 * 360 builds the same map as -20; a warning names each
# angle beyond a turn, and the table shows huge ones by their remainder, marked
# '~' (the double nearest 1e300 happens to be a multiple of 360)
rig "$(camera 120 pinhole -740 left)" "$(camera 120 pinhole 1e300 right)" >turns.json
run 0 rig check turns.json --save-map turns.map
err_has "warning: cameras[0].yaw (left) is -740 degrees: it turns the camera like -20.00" "yaw -740"
err_has "warning: cameras[1].yaw (right) is 1e+300 degrees" "yaw 1e300"
grep -q '^   0  left  *pinhole  *160x120  *-740\.00 ' out || fail "rig check: yaw -740 not shown"
grep -q '^   1  right  *pinhole  *160x120  *~  *0\.0 ' out || fail "rig check: yaw 1e300 not shown as ~0.0"
awk 'length($0) > 100 { exit 1 }' out || fail "rig check: a table line over 100 characters"
rig "$(camera 120 pinhole -740 left)" "$(camera 120 pinhole 20 right)" >turn1.json
run 0 rig check turn1.json --save-map turn1.map
cmp -s turn1.map pano.map || fail "yaw -740 built another map than yaw -20"
run 0 rig check --max-step 4 rig.json
run 2 rig check --max-step 3 rig.json
run 2 rig check
run 2 rig frobnicate rig.json
run 0 rig --help
run 0 rig check --help
out_has "--save-map" "rig check --help"

# malformed rigs: exit 1, "fovea: FILE: <field>: ..."
rig "$(camera 120 pinhole -20 left)" \
    '{"name": "right", "width": 160, "height": 120, "model": "pinhole", "fy": 120,
      "cx": 79.5, "cy": 59.5, "yaw": 20, "pitch": 0, "roll": 0}' >no_fx.json
run 1 rig check no_fx.json
err_has "fovea: no_fx.json: cameras[1].fx:" "missing fx"
rig "$(camera 120 pinhole -20 left)" "$(camera 120 orthographic 20 right)" >bad_model.json
run 1 rig check --json bad.json bad_model.json
err_has "fovea: bad_model.json: cameras[1].model:" "unknown model"
json_ok bad.json 'assert d["valid"] is False and "cameras[1].model" in d["error"]'
rig "$(camera 120 pinhole -20 left)" "$(camera 1e999 pinhole 20 right)" >inf_fx.json
run 1 rig check inf_fx.json
err_has "fovea: inf_fx.json: cameras[1].fx:" "fx = 1e999"
set --
i=0
while [ $i -lt 17 ]; do
    set -- "$@" "$(camera 120 pinhole $((i * 20 - 160)) c$i)"
    i=$((i + 1))
done
rig "$@" >many.json
set --
run 1 rig check many.json
err_has "fovea: many.json: cameras:" "17 cameras"
printf '{"panorama": ' >broken.json
run 1 rig check broken.json
err_has "fovea: broken.json:" "broken JSON"
run 1 rig check missing.json
err_has "fovea: missing.json:" "missing rig file"

# ---------------------------------------------------------------- camera inputs
gen8 $((FB * 3)) 7 >raw0.yuv
gen8 $((FB * 3)) 11 >raw1.yuv
run 0 convert -q --size ${W}x$H --pixfmt i420 --fps 30 raw0.yuv cam0.y4m
run 0 convert -q --size ${W}x$H --pixfmt i420 --fps 30 raw1.yuv cam1.y4m
run 0 convert -q --size ${W}x$H --pixfmt i420 --fps 30 --frames 2 raw1.yuv short1.y4m
gen8 $((W * 100 * 3 / 2 * 3)) 5 >raw_small.yuv
run 0 convert -q --size ${W}x100 --pixfmt i420 raw_small.yuv small.y4m

# ---------------------------------------------------------------- stitch to y4m
run 0 stitch -q --rig rig.json cam0.y4m cam1.y4m -o pano.y4m
hdr=$(head -n 1 pano.y4m)
case "$hdr" in
"YUV4MPEG2 W320 H120 F30:1 "*) ;;
*) fail "pano.y4m: header '$hdr'" ;;
esac
expect_size pano.y4m $(($(printf '%s\n' "$hdr" | wc -c) + 3 * (6 + PB)))
# the saved map gives the same panorama as the rig (deterministic color
# balance: on a GPU the background analysis otherwise lands on a frame that
# depends on timing)
run 0 stitch -q --deterministic --rig rig.json cam0.y4m cam1.y4m -o pano_det.y4m
run 0 stitch -q --deterministic --map pano.map cam0.y4m cam1.y4m -o pano_map.y4m
cmp -s pano_det.y4m pano_map.y4m || fail "--map pano.map differs from --rig rig.json"
# --frames, --backend cpu, --threads, stdout, stdin
run 0 stitch -q --map pano.map --frames 2 --backend cpu --threads 2 cam0.y4m cam1.y4m -o two.y4m
expect_size two.y4m $(($(head -n 1 two.y4m | wc -c) + 2 * (6 + PB)))
"$FOVEA_CLI" stitch -q --deterministic --map pano.map cam0.y4m - -o - <cam1.y4m >piped.y4m 2>err ||
    fail "stitch with stdin/stdout failed"
cmp -s pano_map.y4m piped.y4m || fail "stitch through stdin/stdout differs"
# two named pipes fed at once (as two decoders would): read together, the same panorama
if mkfifo fifo0.y4m fifo1.y4m 2>/dev/null; then
    cat cam0.y4m >fifo0.y4m &
    cat cam1.y4m >fifo1.y4m &
    run 0 stitch -q --deterministic --map pano.map fifo0.y4m fifo1.y4m -o fifo.y4m
    wait
    cmp -s pano_map.y4m fifo.y4m || fail "stitch from two named pipes differs"
fi
# the reader and writer threads keep frames in order: a 7-frame run (more than
# twice their slots) equals its frames stitched one at a time
gen8 $((FB * 7)) 13 >rawl0.yuv
gen8 $((FB * 7)) 17 >rawl1.yuv
run 0 convert -q --size ${W}x$H --pixfmt i420 --fps 30 rawl0.yuv long0.y4m
run 0 convert -q --size ${W}x$H --pixfmt i420 --fps 30 rawl1.yuv long1.y4m
run 0 stitch -q --color off --map pano.map long0.y4m long1.y4m -o long.yuv
expect_size long.yuv $((7 * PB))
: >single.yuv
k=0
while [ $k -lt 7 ]; do
    for c in 0 1; do
        dd if=rawl$c.yuv of=one$c.yuv bs=$FB skip=$k count=1 2>/dev/null
        run 0 convert -q --size ${W}x$H --pixfmt i420 --fps 30 one$c.yuv one$c.y4m
    done
    run 0 stitch -q --color off --map pano.map one0.y4m one1.y4m -o one.yuv
    cat one.yuv >>single.yuv
    k=$((k + 1))
done
cmp -s long.yuv single.yuv || fail "a 7-frame run differs from its frames stitched one by one"
# a write error (on the writer thread) ends the run with its reason
if [ -w /dev/full ]; then
    "$FOVEA_CLI" stitch -q --map pano.map long0.y4m long1.y4m -o - >/dev/full 2>err
    [ $? -eq 1 ] || fail "stitch to a full device: exit status $?, expected 1"
    err_has "write error: No space left on device" "stitch to a full device"
fi
# --deterministic runs repeat exactly
run 0 stitch -q --map pano.map --deterministic --color-interval 1 cam0.y4m cam1.y4m -o d1.y4m
run 0 stitch -q --map pano.map --deterministic --color-interval 1 cam0.y4m cam1.y4m -o d2.y4m
cmp -s d1.y4m d2.y4m || fail "--deterministic runs differ"
# progress
FOVEA_PROGRESS=1 "$FOVEA_CLI" stitch --map pano.map cam0.y4m cam1.y4m -o prog.y4m >out 2>err ||
    fail "stitch with progress failed"
err_has "frame 3/3" "progress"

# ---------------------------------------------------------------- stitch to PNG
run 0 stitch -q --map pano.map cam0.y4m cam1.y4m -o 'pano%02d.png'
for f in pano00.png pano01.png pano02.png; do is_png "$f" 320x120; done
[ -e pano03.png ] && fail "PNG pattern: too many frames"
run 0 stitch -q --map pano.map --frames 1 cam0.y4m cam1.y4m -o one.png
is_png one.png 320x120
run 1 stitch -q --map pano.map cam0.y4m cam1.y4m -o many.png
err_has "pattern" "several frames to one PNG"

# ---------------------------------------------------------------- stills
run 0 convert -q --frames 1 cam0.y4m still0.png
run 0 convert -q --frames 1 cam1.y4m still1.png
run 0 convert -q --frames 1 --pixfmt-out gray8 cam1.y4m gray1.png
run 0 stitch --map pano.map still0.png still1.png -o still.png --print-color
is_png still.png 320x120
grep -c '^camera [01] (still[01].png): gain [0-9.]* [0-9.]* [0-9.]*  gamma [0-9.]*$' out |
    grep -q '^2$' || fail "--print-color: expected two camera lines"
run 0 stitch -q --map pano.map still0.png gray1.png -o still_gray.y4m
expect_size still_gray.y4m $(($(head -n 1 still_gray.y4m | wc -c) + 6 + PB))
run 2 stitch --map pano.map still0.png cam1.y4m -o mixed.y4m

# ---------------------------------------------------------------- color modes
run 0 stitch -q --map pano.map --color off cam0.y4m cam1.y4m -o off.y4m --json off.json
json_ok off.json '
for c in d["cameras"]:
    assert c["gain"] == [1, 1, 1] and c["gamma"] == 1
assert d["frames"] == 3 and d["backend"] in ("cpu", "cuda")'
run 0 stitch -q --map pano.map --color auto --color-interval 1 --color-smoothing 0.5 \
    cam0.y4m cam1.y4m -o auto.y4m --json auto.json
json_ok auto.json '
assert d["frames"] == 3 and d["color"]["mode"] == "auto" and d["fps"] > 0
assert len(d["cameras"]) == 2 and all(len(c["gain"]) == 3 for c in d["cameras"])'
cat >colors.json <<'EOF'
{"cameras": [{"gain": [1.2, 1.0, 0.8], "gamma": 1.1}, {"gain": [1, 1, 1], "gamma": 1}]}
EOF
run 0 stitch -q --map pano.map --color fixed:colors.json cam0.y4m cam1.y4m -o fixed.y4m \
    --print-color
out_has "camera 0 (cam0.y4m): gain 1.2000 1.0000 0.8000  gamma 1.1000" "fixed colors"
cmp -s fixed.y4m off.y4m && fail "--color fixed: output equals --color off"
# YUV conventions: --colorspace and --range reach the color correction
# (a fixed correction: the chroma tables and the luma curve depend on them),
# the y4m output carries the range, and --range auto follows the inputs' tags
run 0 stitch -q --map pano.map --color fixed:colors.json cam0.y4m cam1.y4m -o f601.y4m \
    --json f601.json
json_ok f601.json '
assert d["yuv"] == {"colorspace": "bt601", "range": "limited", "range_from": "default"}'
head -n 1 f601.y4m | grep -q ' XCOLORRANGE=LIMITED$' || fail "limited output: no XCOLORRANGE tag"
run 0 stitch -q --map pano.map --color fixed:colors.json --colorspace bt709 cam0.y4m cam1.y4m \
    -o f709.y4m --json f709.json
json_ok f709.json 'assert d["yuv"]["colorspace"] == "bt709"'
cmp -s f601.y4m f709.y4m && fail "--colorspace bt709: output equals bt601"
run 0 stitch -q --map pano.map --color fixed:colors.json --range full cam0.y4m cam1.y4m \
    -o ffull.y4m --json ffull.json
json_ok ffull.json 'assert d["yuv"]["range"] == "full" and d["yuv"]["range_from"] == "option"'
head -n 1 ffull.y4m | grep -q ' XCOLORRANGE=FULL$' || fail "full output: no XCOLORRANGE=FULL"
cmp -s f601.y4m ffull.y4m && fail "--range full: output equals limited"
for c in 0 1; do # the same cameras, tagged full range as ffmpeg writes it
    { head -n 1 cam$c.y4m | tr -d '\n'; printf ' XCOLORRANGE=FULL\n'; tail -n +2 cam$c.y4m; } \
        >tagged$c.y4m
done
run 0 stitch -q --map pano.map --color fixed:colors.json tagged0.y4m tagged1.y4m -o ftag.y4m \
    --json ftag.json
json_ok ftag.json 'assert d["yuv"]["range"] == "full" and d["yuv"]["range_from"] == "XCOLORRANGE"'
cmp -s ffull.y4m ftag.y4m || fail "XCOLORRANGE=FULL inputs differ from --range full"
# an untagged input does not conflict with a tagged one
run 0 stitch -q --map pano.map cam0.y4m tagged1.y4m -o x.y4m --json x.json
json_ok x.json 'assert d["yuv"]["range"] == "full"'
{ head -n 1 cam1.y4m | tr -d '\n'; printf ' XCOLORRANGE=LIMITED\n'; tail -n +2 cam1.y4m; } \
    >limited1.y4m
run 1 stitch -q --map pano.map tagged0.y4m limited1.y4m -o x.y4m
err_has "limited1.y4m: its y4m header says XCOLORRANGE=LIMITED but camera 0's says FULL: give --range" \
    "conflicting range tags"
run 0 stitch -q --map pano.map --range full tagged0.y4m limited1.y4m -o x.y4m
run 2 stitch -q --map pano.map --range wide cam0.y4m cam1.y4m -o x.y4m
err_has "--range" "bad --range"
run 2 stitch -q --map pano.map --colorspace bt2020 cam0.y4m cam1.y4m -o x.y4m
err_has "--colorspace" "bad --colorspace"
# a --json summary is a valid color file
run 0 stitch -q --map pano.map --color fixed:auto.json cam0.y4m cam1.y4m -o fixed2.y4m
cat >bad_gain.json <<'EOF'
{"cameras": [{"gain": [1, 1, 1], "gamma": 1}, {"gain": [1, -2, 1], "gamma": 1}]}
EOF
run 1 stitch -q --map pano.map --color fixed:bad_gain.json cam0.y4m cam1.y4m -o x.y4m
err_has "fovea: bad_gain.json: cameras[1].gain[1]:" "negative gain"
printf '{"cameras": [{"gain": [1, 1, 1], "gamma": 1e999}, {"gain": [1, 1, 1], "gamma": 1}]}' \
    >bad_gamma.json
run 1 stitch -q --map pano.map --color fixed:bad_gamma.json cam0.y4m cam1.y4m -o x.y4m
err_has "fovea: bad_gamma.json: cameras[0].gamma:" "infinite gamma"
printf '{"cameras": [{"gain": [1, 1, 1], "gamma": 1}]}' >one_cam.json
run 1 stitch -q --map pano.map --color fixed:one_cam.json cam0.y4m cam1.y4m -o x.y4m
err_has "fovea: one_cam.json: cameras:" "too few cameras"
run 1 stitch -q --map pano.map --color fixed:nothere.json cam0.y4m cam1.y4m -o x.y4m
err_has "fovea: nothere.json:" "missing color file"
run 2 stitch --map pano.map --color sepia cam0.y4m cam1.y4m -o x.y4m
run 2 stitch --map pano.map --color-smoothing 0 cam0.y4m cam1.y4m -o x.y4m

# ---------------------------------------------------------------- missing frames
run 1 stitch -q --map pano.map cam0.y4m short1.y4m -o miss.y4m
err_has "fovea: short1.y4m: frame 2" "camera 1 ends early"
run 0 stitch -q --map pano.map --missing repeat:1 cam0.y4m short1.y4m -o miss.y4m --json miss.json
err_has "short1.y4m: frame 2 missing, repeating frame 1 (1/1)" "--missing repeat:1"
expect_size miss.y4m $(($(head -n 1 miss.y4m | wc -c) + 3 * (6 + PB)))
json_ok miss.json 'assert d["cameras"][1]["frames_repeated"] == 1'
# the repeated frame is the last good one: frame 2 of the run is camera 0's
# frame 2 stitched with camera 1's frame 1
run 0 stitch -q --color off --map pano.map --missing repeat:1 cam0.y4m short1.y4m -o missoff.yuv
dd if=raw0.yuv of=r0f2.yuv bs=$FB skip=2 count=1 2>/dev/null
dd if=raw1.yuv of=r1f1.yuv bs=$FB skip=1 count=1 2>/dev/null
run 0 convert -q --size ${W}x$H --pixfmt i420 --fps 30 r0f2.yuv r0f2.y4m
run 0 convert -q --size ${W}x$H --pixfmt i420 --fps 30 r1f1.yuv r1f1.y4m
run 0 stitch -q --color off --map pano.map r0f2.y4m r1f1.y4m -o expect2.yuv
dd if=missoff.yuv of=got2.yuv bs=$PB skip=2 count=1 2>/dev/null
cmp -s expect2.yuv got2.yuv || fail "--missing repeat: frame 2 is not camera 1's frame 1 repeated"
# camera 0 ending early is named too
run 0 convert -q --size ${W}x$H --pixfmt i420 --fps 30 --frames 2 raw0.yuv short0.y4m
run 1 stitch -q --map pano.map short0.y4m cam1.y4m -o miss0.y4m
err_has "fovea: short0.y4m: frame 2" "camera 0 ends early"
# a truncated last frame is missing too
head -c $(($(head -n 1 cam1.y4m | wc -c) + 2 * (6 + FB) + 100)) cam1.y4m >trunc1.y4m
run 1 stitch -q --map pano.map cam0.y4m trunc1.y4m -o trunc.y4m
err_has "fovea: trunc1.y4m: frame 2: truncated" "truncated frame"
run 0 stitch -q --map pano.map --missing repeat:2 cam0.y4m trunc1.y4m -o trunc.y4m
err_has "trunc1.y4m: frame 2 missing, repeating frame 1 (1/2)" "truncated frame repeated"
# repeats beyond N fail
run 0 convert -q --size ${W}x$H --pixfmt i420 --fps 30 --frames 1 raw1.yuv shorter1.y4m
run 1 stitch -q --map pano.map --missing repeat:1 cam0.y4m shorter1.y4m -o miss2.y4m
err_has "fovea: shorter1.y4m: frame 2" "repeat budget exhausted"
run 2 stitch --map pano.map --missing sometimes cam0.y4m cam1.y4m -o x.y4m

# ---------------------------------------------------------------- mismatches and usage
run 1 stitch -q --map pano.map cam0.y4m small.y4m -o x.y4m
err_has "fovea: small.y4m: camera 1 is 160x100, the map expects 160x120" "camera size mismatch"
run 1 stitch -q --map pano.map cam0.y4m -o x.y4m
err_has "2 cameras, got 1 input" "camera count mismatch"
run 1 stitch -q --map rig.json cam0.y4m cam1.y4m -o x.y4m
err_has "fovea: rig.json: not a fovea map file" "--map given a rig"
run 1 stitch -q --rig no_fx.json cam0.y4m cam1.y4m -o x.y4m
err_has "cameras[1].fx" "stitch --rig with a bad rig"
run 2 stitch cam0.y4m cam1.y4m -o x.y4m
run 2 stitch --rig rig.json --map pano.map cam0.y4m cam1.y4m -o x.y4m
run 2 stitch --map pano.map cam0.y4m cam1.y4m
run 2 stitch --map pano.map - - -o x.y4m
run 2 stitch --map pano.map --backend metal cam0.y4m cam1.y4m -o x.y4m
run 2 stitch --map pano.map --json - cam0.y4m cam1.y4m -o -
run 0 stitch --help
for o in --rig --map --output --backend --threads --frames --color --color-interval \
         --color-smoothing --deterministic --print-color --missing --json --quiet; do
    grep -q -- "$o[ ,]" out || grep -q -- "$o\$" out || fail "stitch --help does not list $o"
done

# ---------------------------------------------------------------- imported maps
{
    mkdir luts
    # left camera sees panorama columns 0..159, right one 120..279 (40 columns of
    # overlap with a linear cross-fade), columns 280..319 nobody.
    python3 - luts $PW $PH $W 120 <<'EOF' || fail "cannot write the lookup tables"
import array, os, sys
d, pw, ph, cw, off = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
names = ("lut_left_x", "lut_left_y", "lut_right_x", "lut_right_y", "weight_left", "weight_right")
t = {k: array.array("f") for k in names}
for j in range(ph):
    for i in range(pw):
        t["lut_left_x"].append(float(i) if i < cw else float("nan"))
        t["lut_left_y"].append(float(j))
        t["lut_right_x"].append(float(i - off) if i >= off else -1.0)
        t["lut_right_y"].append(float(j))
        wl = 1.0 if i < off else (0.0 if i >= cw else (cw - i) / float(cw - off))
        t["weight_left"].append(wl)
        t["weight_right"].append(1.0 - wl)
for k in names:
    if sys.byteorder != "little":
        t[k].byteswap()
    with open(os.path.join(d, k + ".bin"), "wb") as f:
        t[k].tofile(f)
EOF
    run 0 map import --tables luts --pano ${PW}x$PH --camera ${W}x$H -o imported.map
    [ -s imported.map ] || fail "map import wrote nothing"
    run 0 map info imported.map
    out_has "panorama: 320x120" "map info"
    out_has "explicit weights: yes" "map info"
    grep -q '^ *0  160x120  *step  *1 ' out || fail "map info: camera 0 line"
    run 0 map info --json info.json imported.map
    json_ok info.json '
assert d["width"] == 320 and d["explicit_weights"] is True
assert [c["grid_step"] for c in d["cameras"]] == [1, 1]
assert abs(d["cameras"][0]["coverage_pct"] - 50) < 1e-9'
    run 0 stitch -q --map imported.map --color off cam0.y4m cam1.y4m -o imported.y4m
    # a known answer: the tables put whole camera pixels on whole panorama
    # pixels with weight 1 outside the cross-fade, so without color correction
    # the panorama's luma there is the cameras' byte for byte; nobody sees
    # columns 280..319 (Y 16, U V 128)
    python3 - cam0.y4m cam1.y4m imported.y4m $W $H $PW $PH <<'EOF' || fail "imported map: panorama content"
import sys
def frames(path, w, h):
    data = open(path, "rb").read()
    pos = data.index(b"\n") + 1
    n = w * h * 3 // 2
    out = []
    while pos < len(data):
        assert data[pos:pos + 6] == b"FRAME\n", path
        out.append(data[pos + 6:pos + 6 + n])
        pos += 6 + n
    return out
w, h, pw, ph = map(int, sys.argv[4:8])
c0, c1 = frames(sys.argv[1], w, h), frames(sys.argv[2], w, h)
pano = frames(sys.argv[3], pw, ph)
assert len(pano) == len(c0) == len(c1) == 3, (len(pano), len(c0), len(c1))
cw, ch = pw // 2, ph // 2
for k in range(3):
    for j in range(ph):
        row = pano[k][j * pw:(j + 1) * pw]
        assert row[0:120] == c0[k][j * w:j * w + 120], ("left", k, j)
        assert row[160:280] == c1[k][j * w + 40:j * w + 160], ("right", k, j)
        assert row[280:320] == bytes([16]) * 40, ("uncovered Y", k, j)
    for p in (0, 1):
        plane = pano[k][pw * ph + p * cw * ch:pw * ph + (p + 1) * cw * ch]
        for j in range(ch):
            assert plane[j * cw + 140:(j + 1) * cw] == bytes([128]) * 20, ("uncovered UV", k, j)
EOF
    expect_size imported.y4m $(($(head -n 1 imported.y4m | wc -c) + 3 * (6 + PB)))
    run 1 map import --tables luts --pano 320x100 --camera ${W}x$H -o bad.map
    err_has "lut_left_x.bin" "map import with the wrong size"
    run 1 map import --tables nowhere --pano ${PW}x$PH --camera ${W}x$H -o bad.map
    err_has "nowhere/lut_left_x.bin: cannot open" "map import from a missing directory"
    run 2 map import --tables luts --pano ${PW}x$PH -o bad.map
}
run 0 map info pano.map
out_has "explicit weights: no" "map info of a built map"
run 1 map info rig.json
run 1 map info missing.map
run 2 map info
run 2 map frobnicate
run 0 map --help

# ---------------------------------------------------------------- fovea demo
run 0 demo --scale 8 --backend cpu -o demo --json demo.json
for f in camera0 camera1 ground_truth; do is_png demo/$f.png; done
is_png demo/panorama.png 712x237
is_png demo/coverage.png 712x237
is_png demo/heatmap.png 160x90
out_has "heat map (fovea diff, cpu) of a 160x90 view panned by 0.25 degrees" "demo heat map"
out_has "PSNR vs ground truth over covered pixels" "demo"
json_ok demo.json '
assert (d["pano_width"], d["pano_height"], d["backend"]) == (712, 237, "cpu"), d
assert d["pct_covered"] > 95 and d["psnr_covered_db"] >= 36, d
assert d["mismatch_before"] > 3 and d["mismatch_after"] <= 0.2 * d["mismatch_before"], d
assert len(d["cameras"]) == 2 and any(abs(c["gamma"] - 1) > 0.01 for c in d["cameras"])
h = d["heatmap"]
assert (h["width"], h["height"], h["pan_deg"], h["normalize"]) == (160, 90, 0.25, 192), h
assert 0.5 < h["changed_pct"] < 50, h'
run 0 demo --scale 8 --backend cpu --no-balance -o demo_nb --json demo_nb.json
json_ok demo_nb.json '
assert all(c["gain"] == [1, 1, 1] and c["gamma"] == 1 for c in d["cameras"]), d
assert d["mismatch_after"] == d["mismatch_before"] > 3, d'
run 0 demo --scale 8 --backend cpu --yuv --same-colors -o demo_yuv --json demo_yuv.json
out_has "I420" "demo --yuv"
out_has "overlap Y/U/V mismatch" "demo --yuv"
json_ok demo_yuv.json '
assert (d["format"], d["mismatch_of"]) == ("i420", "yuv"), d
assert d["psnr_covered_db"] >= 36, d'
run 2 demo --scale 0
err_has "scale" "demo --scale 0"
run 2 demo --frobnicate

echo "test_cli_stitch: all passed"
exit 0
