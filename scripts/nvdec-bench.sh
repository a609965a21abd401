#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause-Patent
# NVDEC against the CPU decoders and against the pipe users run today, on the
# GPU machine (issue 48's speed table), side by side in one run:
#   1080p H.264 ref/dis pair (N frames, made here by fovea's own writer from
#   lavfi's testsrc2 with libx264; dis at a lower quality):
#     fovea vmaf --hwdec cuda ref.mp4 dis.mp4   (NVDEC into device frames)
#     fovea vmaf --hwdec none ref.mp4 dis.mp4   (FFmpeg's CPU decoders)
#     the pipe: two decoder processes into FIFOs | vmaf-cuda (libvmaf CUDA,
#       .carry/lv/vmaf-cuda). The machine has no ffmpeg tool: the decoders
#       are `fovea convert --hwdec none X.mp4 X.y4m` (FFmpeg's CPU decoder,
#       the same one the ffmpeg tool runs, y4m out)
#     the NVDEC decode rate alone: both streams at once through
#       `fovea convert --hwdec cuda X.mp4 /dev/null` (decode + one download a
#       frame: the floor), and the CPU decode rate the same way
#   fovea stitch, two 4K H.264 cameras (M frames), NVDEC vs CPU, to /dev/null.
#   Decode only, in one process on one context (bench_nvdec: each reader on
#   a thread of its own into device frames nothing reads): one stream alone,
#   then two at once, 1080p H.264 (ref.mp4) and 1080p HEVC (the carried
#   .ffmpeg/media/hevc-1080.mp4, or $FOVEA_NVDEC_MEDIA/hevc-1080.mp4): two at
#   once near twice one's frames/s = the two decoders do not wait for each
#   other. Needs the benches built (FOVEA_BUILD_BENCH, the default).
# Each row runs 3 times: the median, and frames/s. Needs a CUDA + FFmpeg build
# (scripts/ffmpeg-env.sh on a machine without FFmpeg).
#   usage: scripts/nvdec-bench.sh [--build DIR] [--frames N] [--stitch-frames M] [--keep DIR]
set -uo pipefail
export LC_ALL=C
cd "$(dirname "$0")/.." || exit 1
ROOT=$PWD
B=$ROOT/build-gpu
N=1200
M=300
KEEP=""
while [ $# -gt 0 ]; do
    case "$1" in
    --build) B=$2; shift ;;
    --frames) N=$2; shift ;;
    --stitch-frames) M=$2; shift ;;
    --keep) KEEP=$2; shift ;;
    -h | --help) sed -n '2,27p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "nvdec-bench: unknown argument '$1'" >&2; exit 2 ;;
    esac
    shift
done
case "$B" in /*) ;; *) B="$ROOT/$B" ;; esac
F=$B/fovea
LV=$ROOT/.carry/lv/vmaf-cuda
[ -x "$F" ] || { echo "nvdec-bench: $F not found (build first)" >&2; exit 1; }
if [ -n "$KEEP" ]; then
    W=$KEEP
    mkdir -p "$W"
else
    W=$(mktemp -d "${TMPDIR:-/tmp}/fovea_nvdec_bench.XXXXXX")
    trap 'rm -rf "$W"' EXIT INT TERM
fi
cd "$W" || exit 1
X264=(--encoder-option preset=veryfast --encoder-option g=120)
if [ ! -s ref.mp4 ]; then
    echo "making the ${N}-frame 1080p pair and the 4K cameras ..."
    "$F" convert -q --frames "$N" "lavfi:testsrc2=size=1920x1080:rate=30" "${X264[@]}" --crf 16 ref.mp4 || exit 1
    "$F" convert -q ref.mp4 "${X264[@]}" --crf 32 dis.mp4 || exit 1
    "$F" convert -q --frames "$M" "lavfi:testsrc2=size=3840x2160:rate=30" "${X264[@]}" --crf 20 cam0.mp4 || exit 1
    "$F" convert -q --frames "$M" "lavfi:testsrc=size=3840x2160:rate=30" "${X264[@]}" --crf 20 cam1.mp4 || exit 1
fi
ls -la ./*.mp4 | awk '{ print "  " $5, $9 }'
cat ./*.mp4 >/dev/null

t() { # seconds of "$@" (stdout dropped, stderr kept in err)
    local s e rc
    s=$(date +%s.%N)
    "$@" >/dev/null 2>err
    rc=$?
    e=$(date +%s.%N)
    awk -v a="$s" -v b="$e" 'BEGIN { printf "%.3f", b - a }'
    [ $rc -eq 0 ] || printf ' (rc %d: %s)' "$rc" "$(tail -c 300 err | tr '\n' ' ')"
}
med() { sort -n | sed -n 2p; }
declare -A SECS=()
row() { # row KEY NAME FRAMES CMD...: 3 runs, the median
    local key=$1 name=$2 n=$3
    shift 3
    local a b c m
    a=$(t "$@"); b=$(t "$@"); c=$(t "$@")
    m=$(printf '%s\n' "${a%% *}" "${b%% *}" "${c%% *}" | med)
    SECS[$key]=$m
    printf '| %-62s | %8s | %8.1f | %s %s %s\n' "$name" "$m" "$(awk -v n="$n" -v m="$m" 'BEGIN { print n / m }')" "$a" "$b" "$c"
}
both() { # both CMD-PREFIX...: the command on ref.mp4 and dis.mp4 at once
    "$@" ref.mp4 /dev/null & local p=$!
    "$@" dis.mp4 /dev/null
    local rc=$?
    wait $p || rc=1
    return $rc
}
pipe() { # two decoder processes into FIFOs | vmaf-cuda
    rm -f r.fifo d.fifo && mkfifo r.fifo d.fifo || return 1
    "$F" convert -q --hwdec none ref.mp4 --out-format y4m r.fifo & local p1=$!
    "$F" convert -q --hwdec none dis.mp4 --out-format y4m d.fifo & local p2=$!
    "$LV" -r r.fifo -d d.fifo -m version=vmaf_v0.6.1 --json -o lv.json -q
    local rc=$?
    wait $p1 || rc=1
    wait $p2 || rc=1
    return $rc
}
export -f both pipe
echo
echo "1080p H.264 pair, $N frames ($(nproc) CPUs, $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1))"
echo "| what | median s | frames/s | runs"
echo "|---|---|---|---"
row nvdec "fovea vmaf --hwdec cuda (NVDEC, device frames)" "$N" "$F" vmaf -q --hwdec cuda ref.mp4 dis.mp4 --json fc.json
row cpu "fovea vmaf --hwdec none (CPU decoders)" "$N" "$F" vmaf -q --hwdec none ref.mp4 dis.mp4 --json fn.json
if [ -x "$LV" ]; then
    row pipe "pipe: 2 x fovea convert (CPU decode, y4m) | vmaf-cuda" "$N" bash -c 'F='"$F"' LV='"$LV"'; pipe'
else
    echo "| pipe: $LV not carried (.carry/lv/vmaf-cuda) | - | - |"
fi
row floor "NVDEC decode alone, both streams (convert --hwdec cuda)" "$N" bash -c 'both '"$F"' convert -q --hwdec cuda'
row cpudec "CPU decode alone, both streams (convert --hwdec none)" "$N" bash -c 'both '"$F"' convert -q --hwdec none'
python3 - <<'PY' 2>/dev/null || true
import json
a = json.load(open("fc.json"))["pooled_metrics"]["vmaf"]["mean"]
b = json.load(open("fn.json"))["pooled_metrics"]["vmaf"]["mean"]
print("pooled vmaf: NVDEC %.17g, CPU %.17g: %s" % (a, b, "equal" if a == b else "DIFFERENT"))
try:
    c = json.load(open("lv.json"))["pooled_metrics"]["vmaf"]["mean"]
    print("pooled vmaf of the pipe (libvmaf CUDA): %.6f" % c)
except Exception:
    pass
PY
awk -v n="${SECS[nvdec]}" -v c="${SECS[cpu]}" -v p="${SECS[pipe]:-0}" -v f="${SECS[floor]}" 'BEGIN {
    if (p > 0) printf "NVDEC vmaf vs the pipe: %.2fx faster (issue: >= 3x)\n", p / n
    printf "NVDEC vmaf vs the CPU decoders: %.2fx faster\n", c / n
    printf "NVDEC vmaf vs the decode floor: %.2fx the floor'"'"'s time (issue: <= 1.3x)\n", n / f }'

# decode only: one stream alone, two at once, on one context (bench_nvdec)
HEVC=${FOVEA_NVDEC_MEDIA:-$ROOT/.ffmpeg/media}/hevc-1080.mp4
[ -s "$HEVC" ] || { echo "(no $HEVC: scripts/ffmpeg-carry.sh makes it; H.264 only)"; HEVC=""; }
echo
if [ -x "$B/bench/bench_nvdec" ]; then
    echo "decode only, one context: 1 stream alone vs 2 at once (x1, x2)"
    "$B/bench/bench_nvdec" --hwdec cuda ref.mp4 ${HEVC:+"$HEVC"}
    "$B/bench/bench_nvdec" --hwdec none ref.mp4 ${HEVC:+"$HEVC"}
else
    echo "(no $B/bench/bench_nvdec: build with FOVEA_BUILD_BENCH=ON for the decode-only rows)"
fi

# two 4K cameras yawed +-25 degrees, 90-degree lenses
cat >rig.json <<EOF2
{"panorama": {"projection": "equirectangular", "width": 6144, "height": 2160, "hfov": 140, "vfov": 80},
 "blend": {"feather": 64},
 "cameras": [
  {"width": 3840, "height": 2160, "model": "pinhole", "fx": 1920, "fy": 1920, "cx": 1919.5, "cy": 1079.5,
   "yaw": -25, "pitch": 0, "roll": 0},
  {"width": 3840, "height": 2160, "model": "pinhole", "fx": 1920, "fy": 1920, "cx": 1919.5, "cy": 1079.5,
   "yaw": 25, "pitch": 0, "roll": 0}]}
EOF2
echo
echo "fovea stitch, 2 x 4K H.264 -> 6144x2160, $M frames, to /dev/null (issue: >= 120 panoramas/s)"
echo "| what | median s | panoramas/s | runs"
echo "|---|---|---|---"
row stn "fovea stitch --hwdec cuda (NVDEC, device frames)" "$M" "$F" stitch -q --backend cuda --hwdec cuda --rig rig.json cam0.mp4 cam1.mp4 -o /dev/null --out-format yuv
row stc "fovea stitch --hwdec none (CPU decoders)" "$M" "$F" stitch -q --backend cuda --hwdec none --rig rig.json cam0.mp4 cam1.mp4 -o /dev/null --out-format yuv
row stf "NVDEC decode alone, both cameras" "$M" bash -c 'cd . && { '"$F"' convert -q --hwdec cuda cam0.mp4 /dev/null & '"$F"' convert -q --hwdec cuda cam1.mp4 /dev/null; wait; }'
