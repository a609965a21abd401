#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause-Patent
# Regenerate tests/data/vmaf_carried/ (README.md there): small reference/distorted
# pairs made from FFmpeg's lavfi test sources, encoded with libx264 and decoded
# back, and libvmaf 3.2.0's numbers for them (plain-C build, %.17g output), which
# test_quality_carried compares with fovea bit for bit. Needs ffmpeg (libx264,
# 8- and 10-bit), xz, GNU tar, python3 and the libvmaf tool; not needed to run
# the tests. Deterministic for given tool versions (one encoder thread, seeded
# noise, fixed tar metadata); other ffmpeg/x264 versions may give other bytes:
# then commit the videos and the numbers together.
#   usage: scripts/make-carried-golden.sh [OUTDIR]
#   env:   FFMPEG (default ffmpeg), VMAF (default ../shared/tools/libvmaf/vmaf-c-17g)
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$root/tests/data/vmaf_carried}
FFMPEG=${FFMPEG:-ffmpeg}
VMAF=${VMAF:-$root/../shared/tools/libvmaf/vmaf-c-17g}
for tool in "$FFMPEG" "$VMAF" xz tar python3; do
    command -v "$tool" >/dev/null 2>&1 || { echo "make-carried-golden: $tool not found" >&2; exit 1; }
done
FF="$FFMPEG -nostdin -hide_banner -loglevel error -y"
work=$(mktemp -d "${TMPDIR:-/tmp}/carried.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
mkdir -p "$out"

# make_case CASE SOURCE W H PIX_FMT CRF FRAMES [CROP_W CROP_H]
#   SOURCE: a lavfi filter graph making W x H frames; the first FRAMES frames in
#   PIX_FMT are the reference; the distorted is the reference encoded with
#   libx264 (preset medium, CRF, one thread) and decoded back in PIX_FMT. With
#   CROP_W x CROP_H both are then cropped at the top left (odd sizes: x264
#   encodes 4:2:0 at even sizes only).
make_case() {
    name=$1 src=$2 w=$3 h=$4 fmt=$5 crf=$6 n=$7 cw=${8:-$3} ch=${9:-$4}
    d=$work/$name
    mkdir -p "$d"
    $FF -f lavfi -i "$src" -frames:v "$n" -pix_fmt "$fmt" -f rawvideo "$d/ref_full.yuv"
    $FF -f rawvideo -pix_fmt "$fmt" -s "${w}x$h" -r 25 -i "$d/ref_full.yuv" -pix_fmt "$fmt" \
        -c:v libx264 -preset medium -crf "$crf" -threads 1 -f h264 "$d/dis.264"
    $FF -i "$d/dis.264" -fps_mode passthrough -pix_fmt "$fmt" -f rawvideo "$d/dis_full.yuv"
    for x in ref dis; do
        $FF -f rawvideo -pix_fmt "$fmt" -s "${w}x$h" -r 25 -i "$d/${x}_full.yuv" \
            -vf "crop=$cw:$ch:0:0:exact=1" -pix_fmt "$fmt" -f yuv4mpegpipe -strict -1 "$d/$x.y4m"
    done
    # libvmaf's y4m reader frames odd-size 4:2:0 with floor(w/2) chroma (the
    # files have ceil): it reads those cases as raw 4:4:4, whose luma is the
    # y4m's (checked below; VIF, ADM and motion read luma only)
    vmaf_in="-r ref.y4m -d dis.y4m"
    case "$fmt" in
    yuv420p*)
        if [ $((cw % 2)) -eq 1 ] || [ $((ch % 2)) -eq 1 ]; then
            depth=8
            rawfmt=yuv444p
            case "$fmt" in *10le) depth=10 rawfmt=yuv444p10le ;; esac
            for x in ref dis; do
                $FF -i "$d/$x.y4m" -pix_fmt "$rawfmt" -f rawvideo "$d/$x.444.yuv"
                $FF -i "$d/$x.y4m" -vf extractplanes=y -f rawvideo "$d/$x.luma"
                $FF -f rawvideo -pix_fmt "$rawfmt" -s "${cw}x$ch" -i "$d/$x.444.yuv" \
                    -vf extractplanes=y -f rawvideo "$d/$x.luma444"
                cmp -s "$d/$x.luma" "$d/$x.luma444" || { echo "$name: 4:4:4 luma differs" >&2; exit 1; }
            done
            vmaf_in="-r ref.444.yuv -d dis.444.yuv -w $cw -h $ch -p 444 -b $depth"
        fi
        ;;
    esac
    # shellcheck disable=SC2086
    (cd "$d" &&
        "$VMAF" $vmaf_in -m version=vmaf_v0.6.1 --threads 1 --json -o vmaf.json -q >/dev/null &&
        "$VMAF" $vmaf_in --feature vif=debug=true --no_prediction --threads 1 --json \
            -o vif_debug.json -q >/dev/null)
    python3 - "$d" "$name" "$cw" "$ch" "$fmt" "$src" "$crf" "$vmaf_in" >"$out/$name.json" <<'PY'
import hashlib, json, sys
d, name, w, h, fmt, src, crf, vmaf_in = sys.argv[1:]
def run(file, args):
    j = json.load(open(f"{d}/{file}"))
    return {"libvmaf_args": f"{vmaf_in} {args} --threads 1 --json -o {file} -q",
            "frames": j["frames"], "pooled_metrics": j["pooled_metrics"]}
def md5(x):
    return hashlib.md5(open(f"{d}/{x}", "rb").read()).hexdigest()
doc = {
    "case": name,
    "width": int(w), "height": int(h), "pix_fmt": fmt,
    "source": f"ffmpeg -f lavfi -i '{src}'; distorted: libx264 -preset medium -crf {crf} -threads 1",
    "md5": {"ref.y4m": md5("ref.y4m"), "dis.y4m": md5("dis.y4m")},
    "libvmaf": "3.2.0 (Netflix/vmaf f85a8536), plain C (-Denable_asm=false), %.17g output",
    "vmaf_v0.6.1": run("vmaf.json", "-m version=vmaf_v0.6.1"),
    "vif_debug": run("vif_debug.json", "--feature vif=debug=true --no_prediction"),
}
# one frame per line: small diffs when a number changes
frames = {}
for key in ("vmaf_v0.6.1", "vif_debug"):
    frames[key] = doc[key]["frames"]
    doc[key]["frames"] = f"@{key}@"
text = json.dumps(doc, indent=1)
for key, fr in frames.items():
    rows = ",\n".join("   " + json.dumps(f) for f in fr)
    text = text.replace(f'"@{key}@"', "[\n" + rows + "\n  ]")
print(text)
PY
    mkdir -p "$work/tar/$name"
    cp "$d/ref.y4m" "$d/dis.y4m" "$work/tar/$name/"
    (cd "$work/tar" && tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner \
        --format=ustar -cf - "$name") | xz -9e -T1 >"$out/$name.tar.xz"
    echo "$name: $(wc -c <"$out/$name.tar.xz" | tr -d ' ') bytes"
}

# 8-bit 4:2:0: the moving test pattern (text, gradients, a rotating disc)
make_case testsrc2_176x144_420_crf35 "testsrc2=size=176x144:rate=25" 176 144 yuv420p 35 16
# 8-bit 4:2:0 at an odd size: a moving Sierpinski carpet, encoded at 322x180, cropped
make_case sierpinski_321x179_420_crf32 "sierpinski=size=322x180:rate=25:seed=5" \
    322 180 yuv420p 32 12 321 179
# 10-bit 4:2:0: the test pattern drawn at 10 bits, x264's 10-bit encoder
make_case testsrc2_160x120_420p10_crf30 "testsrc2=size=160x120:rate=25,format=yuv420p10le" \
    160 120 yuv420p10le 30 12
# 10-bit 4:2:2
make_case testsrc2_128x96_422p10_crf35 "testsrc2=size=128x96:rate=25,format=yuv422p10le" \
    128 96 yuv422p10le 35 10
# 8-bit 4:4:4 at an odd size: a Mandelbrot zoom (fine texture)
make_case mandelbrot_145x97_444_crf35 \
    "mandelbrot=size=145x97:rate=25:start_scale=1.5:end_scale=0.05:end_pts=20" \
    145 97 yuv444p 35 8
# a larger frame (the C backend splits one pair over its threads), heavy loss
make_case testsrc2_480x270_420_crf38 "testsrc2=size=480x270:rate=25" 480 270 yuv420p 38 6
