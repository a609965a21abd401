#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause-Patent
# NVDEC in diff, track, send and live (a GPU test: skipped, exit 77, without a
# CUDA device, without FFmpeg or without the carried media of
# scripts/ffmpeg-carry.sh, .ffmpeg/media or $FOVEA_NVDEC_MEDIA). On the H.264
# and HEVC 8/10-bit files, each command with --hwdec cuda (NVDEC into device
# frames; it fails rather than fall back) gives what --hwdec none (FFmpeg's
# CPU decoder) gives: diff's maps and JSON (but its timing), track's feature
# table and JSON, the frames a receiver gets from send; live sends every
# frame. --hwdec auto takes NVDEC there and says nothing.
set -u
. "$(dirname "$0")/lib.sh" || exit 1
. "$(dirname "$0")/stream_lib.sh" || exit 1
stream_setup test_cli_nvdec

run 0 info --json
python3 - out <<'EOF' || { echo "test_cli_nvdec: no CUDA device or no FFmpeg: skipped"; exit 77; }
import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(0 if d['build']['cuda'] and d['build']['ffmpeg'] and d['devices'] else 1)
EOF
media=${FOVEA_NVDEC_MEDIA:-${FOVEA_SOURCE_DIR:-.}/.ffmpeg/media}
if [ ! -s "$media/hevc-10.mp4" ]; then
    echo "test_cli_nvdec: no $media/hevc-10.mp4 (scripts/ffmpeg-carry.sh makes it): skipped"
    exit 77
fi

# same_json A B: the two JSON files equal but their timing ("seconds", "fps")
# and the names of the files written ("outputs": each run writes its own)
same_json() {
    python3 - "$1" "$2" <<'EOF' || fail "$1 and $2 differ"
import json, sys
def strip(v):
    if isinstance(v, dict):
        return {k: strip(x) for k, x in v.items() if k not in ("seconds", "fps", "outputs")}
    if isinstance(v, list):
        return [strip(x) for x in v]
    return v
a, b = (strip(json.load(open(p))) for p in sys.argv[1:3])
if a != b:
    sys.exit(1)
EOF
}

for f in h264-8.mp4 hevc-8.mp4 hevc-10.mp4; do
    in=$media/$f
    # ---- diff: every map and the numbers
    for m in none cuda auto; do
        run 0 diff -q --hwdec $m "$in" --json d-$m.json --heatmap h-$m.y4m --mask k-$m.y4m \
            --noise n-$m.y4m
        [ ! -s err ] || fail "diff --hwdec $m $f says something: $(cat err)"
    done
    for m in cuda auto; do
        same_json d-none.json d-$m.json
        for o in h k n; do
            cmp -s $o-none.y4m $o-$m.y4m || fail "diff --hwdec $m $f: $o-$m.y4m differs from the CPU's"
        done
    done
    # ---- track: the feature table and the JSON
    for m in none cuda; do
        run 0 track -q --hwdec $m "$in" -n 100 --replace -o t-$m.txt --json t-$m.json
    done
    cmp -s t-none.txt t-cuda.txt || fail "track --hwdec cuda $f: the feature table differs"
    same_json t-none.json t-cuda.json
    # ---- send: the frames a receiver gets
    for m in none cuda; do
        start_sender s-$m --hwdec $m "$in" --listen 127.0.0.1:0 --clients 1 -q
        receive 0 r-$m -o r-$m.y4m -q
        wait_sender 0
    done
    cmp -s r-none.y4m r-cuda.y4m || fail "send --hwdec cuda $f: the received frames differ"
    # ---- live: every frame read and sent (to no viewer), then interrupted
    if "$FOVEA_CLI" live --help >/dev/null 2>&1; then
        for m in none cuda; do
            timeout -s INT 6 "$FOVEA_CLI" live --hwdec $m "$in" --http 127.0.0.1:0 >out 2>err
            grep -q "^live: 50 frames sent" out || fail "live --hwdec $m $f: $(cat out err)"
        done
    fi
done
echo "test_cli_nvdec: diff, track, send and live equal with NVDEC and the CPU decoder"
