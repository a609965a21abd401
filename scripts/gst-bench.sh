#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause-Patent
# foveastitch against `fovea stitch` on the same inputs: two raw I420 camera
# files made once with videotestsrc, stitched into a panorama written to
# /dev/null, each run timed end to end (process start to exit: reading,
# stitching, writing; the map is built at the start of both) and the runs
# alternated; prints the median frames/s of each and the element's overhead.
#
#   usage: scripts/gst-bench.sh [--build DIR] [--backend cpu|cuda|auto] [--size WxH]
#                               [--frames N] [--runs R] [--color off|auto] [--json FILE]
#                               [--drop-allocation]
#   defaults: --build build, --backend cpu, --size 1920x1080, --frames 120, --runs 5,
#             --color off
# --drop-allocation puts `identity drop-allocation=true` before each camera
# pad, so upstream never sees the pool foveastitch proposes (pinned memory on
# the CUDA backend): its effect on the inputs, measured apart.
# The plugin is taken from DIR/gst (GST_PLUGIN_PATH), the CLI from DIR/fovea.
# Needs gst-launch-1.0 and the base plugins (videotestsrc, rawvideoparse).
set -eu
export LC_ALL=C

BUILD=build
BACKEND=cpu
SIZE=1920x1080
FRAMES=120
RUNS=5
COLOR=off
JSON=""
DROP=""
while [ $# -gt 0 ]; do
    case "$1" in
    --build) BUILD=$2; shift ;;
    --backend) BACKEND=$2; shift ;;
    --size) SIZE=$2; shift ;;
    --frames) FRAMES=$2; shift ;;
    --runs) RUNS=$2; shift ;;
    --color) COLOR=$2; shift ;;
    --json) JSON=$2; shift ;;
    --drop-allocation) DROP="identity drop-allocation=true !" ;;
    -h | --help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "gst-bench: unknown argument '$1'" >&2; exit 2 ;;
    esac
    shift
done
W=${SIZE%x*}
H=${SIZE#*x}
case "$BUILD" in /*) ;; *) BUILD="$PWD/$BUILD" ;; esac
CLI="$BUILD/fovea"
[ -x "$CLI" ] || { echo "gst-bench: $CLI not found (build first)" >&2; exit 1; }
[ -f "$BUILD/gst/libgstfovea.so" ] || { echo "gst-bench: $BUILD/gst/libgstfovea.so not found" >&2; exit 1; }
command -v gst-launch-1.0 >/dev/null 2>&1 || { echo "gst-bench: gst-launch-1.0 not found" >&2; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/fovea_gst_bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
export GST_PLUGIN_PATH="$BUILD/gst" GST_REGISTRY="$tmp/registry.bin"

# two cameras yawed +-25 degrees with 90-degree lenses; the panorama covers both
FX=$(awk -v w="$W" 'BEGIN { printf "%.3f", w / 2 }')
PW=$(awk -v w="$W" 'BEGIN { printf "%d", int(w * 1.6 / 8) * 8 }')
cat >"$tmp/rig.json" <<EOF
{"panorama": {"projection": "equirectangular", "width": $PW, "height": $H, "hfov": 140, "vfov": 80},
 "blend": {"feather": 64},
 "cameras": [
  {"width": $W, "height": $H, "model": "pinhole", "fx": $FX, "fy": $FX,
   "cx": $(awk -v w="$W" 'BEGIN { print (w - 1) / 2 }'), "cy": $(awk -v h="$H" 'BEGIN { print (h - 1) / 2 }'),
   "yaw": -25, "pitch": 0, "roll": 0},
  {"width": $W, "height": $H, "model": "pinhole", "fx": $FX, "fy": $FX,
   "cx": $(awk -v w="$W" 'BEGIN { print (w - 1) / 2 }'), "cy": $(awk -v h="$H" 'BEGIN { print (h - 1) / 2 }'),
   "yaw": 25, "pitch": 0, "roll": 0}]}
EOF
CAPS="video/x-raw,format=I420,width=$W,height=$H,framerate=30/1"
gst-launch-1.0 -q videotestsrc num-buffers="$FRAMES" pattern=ball ! "$CAPS" ! \
    filesink location="$tmp/cam0.yuv"
gst-launch-1.0 -q videotestsrc num-buffers="$FRAMES" pattern=pinwheel ! "$CAPS" ! \
    filesink location="$tmp/cam1.yuv"
# read each camera once, so that both start from the page cache
cat "$tmp/cam0.yuv" "$tmp/cam1.yuv" >/dev/null

now() { date +%s.%N; }
run_cli() {
    "$CLI" stitch --rig "$tmp/rig.json" --color "$COLOR" --backend "$BACKEND" -q \
        -s "${W}x$H" --pixfmt i420 --fps 30 --out-format yuv -o /dev/null \
        --json "$tmp/cli.json" "$tmp/cam0.yuv" "$tmp/cam1.yuv"
}
run_gst() {
    gst-launch-1.0 -q foveastitch name=s rig="$tmp/rig.json" color="$COLOR" backend="$BACKEND" ! \
        filesink location=/dev/null \
        filesrc location="$tmp/cam0.yuv" ! rawvideoparse width="$W" height="$H" format=i420 \
        framerate=30/1 ! queue ! $DROP s.sink_0 \
        filesrc location="$tmp/cam1.yuv" ! rawvideoparse width="$W" height="$H" format=i420 \
        framerate=30/1 ! queue ! $DROP s.sink_1 >"$tmp/gst.log" 2>&1 ||
        { cat "$tmp/gst.log" >&2; exit 1; }
}
run_gst # the registry, and a warm start for both
: >"$tmp/cli.times"
: >"$tmp/gst.times"
: >"$tmp/cli.loop"
i=0
while [ $i -lt "$RUNS" ]; do
    t0=$(now); run_cli; t1=$(now)
    echo "$t0 $t1" | awk '{ print $2 - $1 }' >>"$tmp/cli.times"
    sed -n 's/.*"fps":[[:space:]]*\([0-9.e+-]*\).*/\1/p' "$tmp/cli.json" | head -n 1 >>"$tmp/cli.loop"
    t0=$(now); run_gst; t1=$(now)
    echo "$t0 $t1" | awk '{ print $2 - $1 }' >>"$tmp/gst.times"
    i=$((i + 1))
done
median() { sort -g "$1" | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
tc=$(median "$tmp/cli.times")
tg=$(median "$tmp/gst.times")
loop=$(median "$tmp/cli.loop")
fc=$(awk -v n="$FRAMES" -v t="$tc" 'BEGIN { printf "%.1f", n / t }')
fg=$(awk -v n="$FRAMES" -v t="$tg" 'BEGIN { printf "%.1f", n / t }')
over=$(awk -v a="$tc" -v b="$tg" 'BEGIN { printf "%+.1f", (b / a - 1) * 100 }')
backend=$(sed -n 's/.*"backend":[[:space:]]*"\([a-z]*\)".*/\1/p' "$tmp/cli.json" | head -n 1)
host=$(uname -n)
cpus=$(nproc 2>/dev/null || echo "?")
echo "foveastitch vs fovea stitch: 2 x ${W}x$H I420 -> ${PW}x$H I420, $FRAMES frames, color $COLOR,"
echo "backend $backend, $cpus CPUs ($host); end to end (process start to exit), median of $RUNS alternated runs"
echo
echo "| pipeline | seconds | frames/s |"
echo "| --- | ---: | ---: |"
echo "| fovea stitch (raw files -> /dev/null) | $tc | $fc |"
echo "| gst-launch-1.0 filesrc ! rawvideoparse x2 ! foveastitch ! filesink /dev/null | $tg | $fg |"
echo
echo "element overhead: $over % of the CLI's time (fovea stitch's own frames/s, setup excluded: $loop)"
if [ -n "$JSON" ]; then
    printf '{"size": "%s", "panorama": "%dx%d", "frames": %d, "runs": %d, "color": "%s", "backend": "%s", "cpus": "%s", "cli_seconds": %s, "gst_seconds": %s, "cli_fps": %s, "gst_fps": %s, "overhead_pct": %s, "cli_loop_fps": %s}\n' \
        "$SIZE" "$PW" "$H" "$FRAMES" "$RUNS" "$COLOR" "$backend" "$cpus" "$tc" "$tg" "$fc" "$fg" \
        "$over" "${loop:-0}" >"$JSON"
fi
