# SPDX-License-Identifier: BSD-2-Clause-Patent
# gst-fovea through gst-launch-1.0 against the fovea CLI on the same frames:
# the plugin is listed; foveastitch on two videotestsrc cameras gives the bytes
# of `fovea stitch` on those cameras written to y4m (color off, automatic
# deterministic, fixed from a file, from a map file), and the missing-camera
# policies match `fovea stitch` (repeat:N, black as black frames, wait as
# --frames); foveavmaf features=vif gives `fovea vif --json`'s scores and
# passes the distorted stream on unchanged; bad properties end gst-launch with
# an error carrying the library's message, never a crash.
. "$(dirname "$0")/../cli/lib.sh" || exit 1

for t in gst-launch-1.0 gst-inspect-1.0; do
    command -v $t >/dev/null 2>&1 || { echo "test_gst_cli: $t not found: skipped"; exit 77; }
done
cli_test_setup test_gst_cli python3

# gst-launch-1.0 / gst-inspect-1.0 with the ASan runtime first when the plugin
# is built under the sanitizers (GStreamer's own leaks are not ours)
gst() {
    tool=$1
    shift
    LD_PRELOAD="${FOVEA_GST_PRELOAD:-}" ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" \
        "$tool" "$@" >out 2>err
}
# launch 0|F PIPELINE...: gst-launch-1.0, stdout to ./out, stderr to ./err;
# 0: must succeed; F: must fail cleanly (gst-launch-1.0 exits 1 for an error
# while running, 255 for a failed start; a signal would be 128 + N)
launch() {
    want=$1
    shift
    gst gst-launch-1.0 -q "$@"
    got=$?
    if [ "$want" = F ]; then
        [ "$got" -ne 0 ] && { [ "$got" -lt 128 ] || [ "$got" -eq 255 ]; } ||
            fail "gst-launch-1.0 $*: exit status $got, expected a clean failure"
    else
        [ "$got" -eq "$want" ] || fail "gst-launch-1.0 $*: exit status $got, expected $want"
    fi
}

# ---------------------------------------------------------------- the plugin
gst gst-inspect-1.0 fovea || fail "gst-inspect-1.0 fovea"
for e in foveastitch foveavmaf foveadiff foveatrack; do
    out_has "$e" "gst-inspect-1.0 fovea"
done
# the origin is the project's URL, not a bare name
grep -q "Origin URL *https://github.com/fovea/fovea$" out ||
    fail "gst-inspect-1.0 fovea: origin is not the project URL: $(grep Origin out)"
gst gst-inspect-1.0 foveastitch || fail "gst-inspect-1.0 foveastitch"
for p in rig map color backend missing max-repeat sink_%u; do
    out_has "$p" "gst-inspect-1.0 foveastitch"
done

# ---------------------------------------------------------------- stitch
cat >rig.json <<'EOF'
{"panorama": {"projection": "equirectangular", "width": 320, "height": 120, "hfov": 100, "vfov": 40},
 "blend": {"feather": 16},
 "cameras": [
  {"name": "left", "width": 160, "height": 120, "model": "pinhole", "fx": 120, "fy": 120,
   "cx": 79.5, "cy": 59.5, "yaw": -20, "pitch": 0, "roll": 0},
  {"name": "right", "width": 160, "height": 120, "model": "pinhole", "fx": 120, "fy": 120,
   "cx": 79.5, "cy": 59.5, "yaw": 20, "pitch": 0, "roll": 0}]}
EOF
CAPS="video/x-raw,format=I420,width=160,height=120,framerate=30/1"
PB=$((320 * 120 * 3 / 2))

# cams N0 N1 STITCH-PROPS: the two cameras (N0 and N1 frames) to cam0.y4m and
# cam1.y4m and, through foveastitch STITCH-PROPS, raw I420 to gst.yuv
cams() {
    launch 0 foveastitch name=s $3 ! filesink location=gst.yuv \
        videotestsrc num-buffers="$1" pattern=ball ! $CAPS ! tee name=t0 ! queue ! s.sink_0 \
        t0. ! queue ! y4menc ! filesink location=cam0.y4m \
        videotestsrc num-buffers="$2" pattern=gradient ! $CAPS ! tee name=t1 ! queue ! s.sink_1 \
        t1. ! queue ! y4menc ! filesink location=cam1.y4m
}
same() { cmp -s "$1" "$2" || fail "$3: $1 and $2 differ"; }

cams 10 10 "rig=rig.json color=off"
expect_size gst.yuv $((10 * PB))
run 0 stitch --rig rig.json --color off -q cam0.y4m cam1.y4m --out-format yuv -o cli.yuv
same gst.yuv cli.yuv "color off"

cams 10 10 "rig=rig.json color=auto deterministic=true color-interval=3"
run 0 stitch --rig rig.json --deterministic --color-interval 3 -q cam0.y4m cam1.y4m \
    --out-format yuv -o cli.yuv
same gst.yuv cli.yuv "color auto, deterministic"

printf '{"cameras": [{"gain": [1.2, 1.0, 0.9], "gamma": 1.1}, {"gain": [0.8, 1, 1.1], "gamma": 0.95}]}\n' >colors.json
cams 6 6 "rig=rig.json color=fixed:colors.json"
run 0 stitch --rig rig.json --color fixed:colors.json -q cam0.y4m cam1.y4m --out-format yuv -o cli.yuv
same gst.yuv cli.yuv "fixed colors"

run 0 rig check -q rig.json --save-map pano.map
cams 4 4 "map=pano.map color=off"
run 0 stitch --map pano.map --color off -q cam0.y4m cam1.y4m --out-format yuv -o cli.yuv
same gst.yuv cli.yuv "map file"

# camera 1 stops after 6 of 10 frames
cams 10 6 "rig=rig.json color=off missing=repeat max-repeat=4"
expect_size gst.yuv $((10 * PB))
run 0 stitch --rig rig.json --color off --missing repeat:4 -q cam0.y4m cam1.y4m \
    --out-format yuv -o cli.yuv
same gst.yuv cli.yuv "missing=repeat max-repeat=4"

cams 10 6 "rig=rig.json color=off missing=wait"
expect_size gst.yuv $((6 * PB))
run 0 stitch --rig rig.json --color off --frames 6 -q cam0.y4m cam1.y4m --out-format yuv -o cli.yuv
same gst.yuv cli.yuv "missing=wait"

cams 10 6 "rig=rig.json color=off missing=black"
expect_size gst.yuv $((10 * PB))
# camera 1 with four black frames (Y 16, U and V 128) after its six
python3 - <<'EOF' || fail "cannot pad cam1.y4m"
import sys
d = open("cam1.y4m", "rb").read()
w, h = 160, 120
black = b"FRAME\n" + bytes([16]) * (w * h) + bytes([128]) * (w * h // 2)
open("cam1b.y4m", "wb").write(d + black * 4)
EOF
run 0 stitch --rig rig.json --color off -q cam0.y4m cam1b.y4m --out-format yuv -o cli.yuv
same gst.yuv cli.yuv "missing=black"

launch F foveastitch name=s rig=rig.json color=off missing=repeat max-repeat=2 ! fakesink async=false \
    videotestsrc num-buffers=10 ! $CAPS ! s.sink_0 videotestsrc num-buffers=6 ! $CAPS ! s.sink_1
grep -q "camera 1: no frame for output frame 8 (it ended), and its last frame was already repeated 2 times (max-repeat=2)" out err ||
    fail "missing=repeat max-repeat=2: no message naming the camera and the limit"

# ---------------------------------------------------------------- bad properties
# (fakesink async=false: gst-launch-1.0 1.22 can hang when an error comes while a
# sink waits for preroll on an EOS, with any failing element, e.g. jpegdec fed
# garbage)
launch F foveastitch name=s rig=absent.json ! fakesink async=false \
    videotestsrc num-buffers=2 ! $CAPS ! s.sink_0 videotestsrc num-buffers=2 ! $CAPS ! s.sink_1
grep -q "rig: absent.json: cannot open: No such file or directory" out err ||
    fail "rig=absent.json: no library message"
printf '{"panorama": {"width": 320,' >bad.json
launch F foveastitch name=s rig=bad.json ! fakesink async=false \
    videotestsrc num-buffers=2 ! $CAPS ! s.sink_0 videotestsrc num-buffers=2 ! $CAPS ! s.sink_1
grep -q "rig: bad.json: invalid JSON" out err || fail "rig=bad.json: no library message"
launch F videotestsrc num-buffers=2 ! video/x-raw,width=64,height=48 ! foveadiff tile=12 ! \
    fakesink async=false
grep -q "tile 12 is not 8, 16, 32 or 64" out err || fail "foveadiff tile=12: no library message"
launch F videotestsrc num-buffers=2 ! video/x-raw,width=64,height=48 ! \
    foveatrack pyramid-levels=6 subsampling=8 ! fakesink async=false
grep -q "nPyramidLevels 6 with subsampling 8" out err || fail "foveatrack: no library message"
! grep -q -i "assert\|segmentation\|AddressSanitizer" err || fail "a crash"

# ---------------------------------------------------------------- quality
launch 0 videotestsrc num-buffers=12 pattern=ball ! \
    video/x-raw,format=I420,width=176,height=144,framerate=25/1 ! tee name=t \
    t. ! queue ! y4menc ! filesink location=ref.y4m \
    t. ! queue ! q.ref \
    t. ! queue ! jpegenc quality=40 ! jpegdec ! video/x-raw,format=I420 ! tee name=d \
    d. ! queue ! q.dis \
    d. ! queue ! y4menc ! filesink location=dis.y4m \
    foveavmaf name=q features=vif location=gst.json ! y4menc ! filesink location=passed.y4m
same passed.y4m dis.y4m "foveavmaf passes the distorted frames on"
run 0 vif -q --json cli.json ref.y4m dis.y4m
json_ok gst.json "c = json.load(open('cli.json'))
assert len(d['frames']) == 12, len(d['frames'])
assert d['frames'] == c['frames'], 'per-frame scores differ'
assert d['pooled_metrics'] == c['pooled_metrics'], 'pooled scores differ'
assert d['frames'][0]['metrics']['integer_vif_scale0'] < 0.99
assert set(d) >= {'version', 'fps', 'frames', 'pooled_metrics', 'aggregate_metrics', 'fovea'}"

echo "test_gst_cli: ok"
