#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause-Patent
# Media through FFmpeg's libraries, end to end: files the ffmpeg tool makes
# (H.264 mp4, FFV1 mkv, VP9 webm, ProRes mov, 10-bit HEVC, gray, 4:4:4, color
# tags) read back and compared with the ffmpeg tool's own decode, stdin, the
# lavfi device, --stream and --input-option, every output container, two inputs
# of different rates, vmaf on mp4 against the decoded y4m pair, and bad media.
# Skipped (77) in builds without FFmpeg or where the ffmpeg tool is missing.
set -u
. "$(dirname "$0")/lib.sh" || exit 1
cli_test_setup test_cli_media python3

"$FOVEA_CLI" info --json >info.json 2>/dev/null || fail "fovea info --json"
if ! python3 -c "import json; import sys; sys.exit(0 if json.load(open('info.json'))['build']['ffmpeg'] else 1)"; then
    echo "test_cli_media: fovea built without FFmpeg: skipped"
    exit 77
fi
if ! command -v ffmpeg >/dev/null 2>&1; then
    echo "test_cli_media: the ffmpeg tool is missing (scripts/deps.sh installs it): skipped"
    exit 77
fi
json_ok info.json "assert 'libavformat' in d['build']['ffmpeg_versions']"

SRC="-f lavfi -i testsrc2=size=96x64:rate=25 -frames:v 6"
mk() { # mk OUT FFMPEG-ARGS...: make a clip (fail when ffmpeg cannot)
    out=$1
    shift
    ffmpeg -nostdin -v error -y $SRC "$@" "$out" 2>ff.err || fail "ffmpeg cannot make $out: $(cat ff.err)"
}
has_encoder() { ffmpeg -hide_banner -encoders 2>/dev/null | grep -q " $1 "; }
# info FILE ASSERTIONS: fovea's JSON summary of reading FILE (i = its input)
info() {
    run 0 convert -q "$1" --json s.json /dev/null
    json_ok s.json "i = d['input']
$2"
}
# same_as_ffmpeg FILE: fovea's frames are the ffmpeg tool's decode, byte for byte
same_as_ffmpeg() {
    ffmpeg -nostdin -v error -y -i "$1" -f rawvideo ff.raw 2>ff.err || fail "ffmpeg cannot decode $1"
    run 0 convert -q "$1" --out-format yuv fv.raw
    cmp -s ff.raw fv.raw || fail "$1: frames differ from the ffmpeg tool's decode"
}

# ---- containers and codecs: count, depth, format; pixels equal ffmpeg's
mk h264.mp4 -c:v libx264 -pix_fmt yuv420p
info h264.mp4 "assert (i['container'], i['pixfmt'], i['width'], i['height'], i['fps'], i['frame_count']) == ('media', 'i420', 96, 64, '25/1', 6), i"
same_as_ffmpeg h264.mp4
# /dev/null without --out-format: raw frames of the input's format, written into the device
run 0 convert -q --frames 2 h264.mp4 --json s.json /dev/null
json_ok s.json "o = d['output']
assert (o['container'], o['pixfmt'], d['pixfmt_converted']) == ('yuv', 'i420', False), d"
[ -c /dev/null ] || fail "/dev/null is no longer a character device"
# convert's --threads sets the decoder's threads: the same frames at any count
for t in 1 3; do
    run 0 convert -q --threads $t h264.mp4 --out-format yuv fv$t.raw
    cmp -s ff.raw fv$t.raw || fail "h264.mp4 --threads $t: frames differ from the ffmpeg tool's decode"
done
mk ffv1.mkv -c:v ffv1
info ffv1.mkv "assert i['pixfmt'] == 'i420' and i['frame_count'] is None, i"
same_as_ffmpeg ffv1.mkv
if has_encoder libvpx-vp9; then
    mk vp9.webm -c:v libvpx-vp9 -deadline realtime
    info vp9.webm "assert i['pixfmt'] == 'i420', i"
    same_as_ffmpeg vp9.webm
fi
if has_encoder prores_ks; then
    mk prores.mov -c:v prores_ks
    info prores.mov "assert i['pixfmt'] == 'i422p10' and i['frame_count'] == 6, i"
    same_as_ffmpeg prores.mov
fi
if has_encoder libx265; then
    mk hevc10.mp4 -c:v libx265 -pix_fmt yuv420p10le -x265-params log-level=none
    info hevc10.mp4 "assert i['pixfmt'] == 'i420p10', i"
    same_as_ffmpeg hevc10.mp4
fi
mk gray.mkv -c:v ffv1 -pix_fmt gray
info gray.mkv "assert i['pixfmt'] == 'gray8', i"
same_as_ffmpeg gray.mkv
mk yuv444.mp4 -c:v libx264 -pix_fmt yuv444p
info yuv444.mp4 "assert i['pixfmt'] == 'i444', i"
same_as_ffmpeg yuv444.mp4
# a layout fovea lacks is converted once, and said once
mk bgr0.mkv -c:v ffv1 -pix_fmt bgr0
run 0 convert bgr0.mkv /dev/null
err_has "fovea has no bgr0 layout: frames are converted to rgb24" "bgr0 input"
[ "$(grep -c 'no bgr0 layout' err)" -eq 1 ] || fail "the conversion notice is not said once"
info bgr0.mkv "assert i['pixfmt'] == 'rgb24' and i['converted_from'] == 'bgr0', i"

# ---- color metadata: the tags, and the matrix taken for YUV -> RGB
mk tagged.mp4 -c:v libx264 -pix_fmt yuv420p -color_range pc -colorspace bt709 -color_primaries bt709 -color_trc bt709
info tagged.mp4 "assert (i['color_range'], i['color_primaries'], i['color_transfer'], i['color_matrix']) == ('full', 1, 1, 1), i"
run 0 convert -q tagged.mp4 --json s.json --pixfmt-out rgb24 /dev/null
json_ok s.json "assert d['range'] == 'full' and d['colorspace'] == 'bt709', d"
run 0 convert -q tagged.mp4 --json s.json --colorspace bt601 --range limited --pixfmt-out rgb24 /dev/null
json_ok s.json "assert d['range'] == 'limited' and d['colorspace'] == 'bt601', d"
info h264.mp4 "assert i['color_matrix'] in (0, 1) and i['color_range'] in ('unknown', 'limited'), i"

# ---- stdin: a compressed stream is probed, y4m stays y4m
ffmpeg -nostdin -v error -y -i ffv1.mkv -f rawvideo ff.raw
"$FOVEA_CLI" convert -q - --out-format yuv fv.raw <ffv1.mkv 2>err || fail "mkv on stdin: $(cat err)"
cmp -s ff.raw fv.raw || fail "mkv on stdin differs"
ffmpeg -nostdin -v error -y -i h264.mp4 -f yuv4mpegpipe ref.y4m
"$FOVEA_CLI" convert -q - --json s.json /dev/null <ref.y4m 2>err || fail "y4m on stdin: $(cat err)"
json_ok s.json "assert d['input']['container'] == 'y4m', d"

# ---- devices: lavfi, --input-option, --stream
run 0 convert -q "lavfi:testsrc2=size=64x48:rate=10" --frames 3 --json s.json lav.y4m
json_ok s.json "assert (d['frames'], d['input']['width'], d['input']['fps']) == (3, 64, '10/1'), d"
run 0 convert -q "lavfi:testsrc2" --input-option graph=testsrc2=size=32x16 --frames 2 --json s.json /dev/null
json_ok s.json "assert d['input']['width'] == 32, d"
run 1 convert -q "lavfi:testsrc2" --input-option bogus=1 /dev/null
err_has "input option 'bogus' is not an option of the lavfi demuxer" "unknown input option"
run 2 convert -q "lavfi:testsrc2" --input-option novalue /dev/null
err_has "expected KEY=VALUE" "--input-option without ="
ffmpeg -nostdin -v error -y -f lavfi -i testsrc2=size=96x64:rate=25 -f lavfi -i sine=d=0.3 -map 1:a -map 0:v -t 0.24 -c:v libx264 -c:a aac av.mp4 2>ff.err || fail "av.mp4: $(cat ff.err)"
run 0 convert -q av.mp4 --stream 1 /dev/null
run 0 convert -q h264.mp4 --hwdec none /dev/null
run 0 convert -q h264.mp4 --hwdec auto /dev/null
# --hwdec without a GPU: cuda is refused naming the reason, auto decodes on
# the CPU and says nothing (a CPU build, or a CUDA build on a CPU context)
if python3 -c "import json; import sys; sys.exit(0 if json.load(open('info.json'))['build']['cuda'] else 1)"; then
    run 1 vmaf -q --backend cpu --hwdec cuda h264.mp4 h264.mp4
    err_has "h264.mp4: --hwdec cuda: NVDEC needs a CUDA context (this one is cpu: --backend cuda)" "--hwdec cuda on a CPU context"
    run 0 vmaf -q --backend cpu --hwdec auto h264.mp4 h264.mp4
else
    run 1 convert -q h264.mp4 --hwdec cuda /dev/null
    err_has "h264.mp4: --hwdec cuda: NVDEC needs a build with CUDA (this fovea has none)" "--hwdec cuda"
    run 1 vmaf -q --hwdec cuda h264.mp4 h264.mp4
    err_has "h264.mp4: --hwdec cuda: NVDEC needs a build with CUDA (this fovea has none)" "vmaf --hwdec cuda"
    run 0 vmaf -q --hwdec auto h264.mp4 h264.mp4
fi
[ ! -s err ] || fail "--hwdec auto without a GPU says something: $(cat err)"
# diff, track, send and live decode on NVDEC too: without a GPU the same
# refusal of cuda (before any output or listening socket) and silence of auto
if python3 -c "import json; import sys; sys.exit(0 if json.load(open('info.json'))['build']['cuda'] else 1)"; then
    cpu="--backend cpu"
    why="NVDEC needs a CUDA context (this one is cpu: --backend cuda)"
else
    cpu=""
    why="NVDEC needs a build with CUDA (this fovea has none)"
fi
run 1 diff -q $cpu --hwdec cuda h264.mp4 --json hw.json
err_has "h264.mp4: --hwdec cuda: $why" "diff --hwdec cuda"
[ ! -e hw.json ] || fail "diff --hwdec cuda wrote its JSON"
run 1 track -q $cpu --hwdec cuda h264.mp4 -o hw.txt
err_has "h264.mp4: --hwdec cuda: $why" "track --hwdec cuda"
run 1 send -q $cpu --hwdec cuda h264.mp4 --listen 127.0.0.1:0 --wait-timeout 1
err_has "h264.mp4: --hwdec cuda: $why" "send --hwdec cuda"
grep -q "listening on" err && fail "send --hwdec cuda listened"
if "$FOVEA_CLI" live --help >/dev/null 2>&1; then
    run 1 live -q $cpu --hwdec cuda h264.mp4 --http 127.0.0.1:0
    err_has "h264.mp4: --hwdec cuda: $why" "live --hwdec cuda"
fi
run 1 vif -q --hwdec cuda h264.mp4 h264.mp4
err_has "h264.mp4: --hwdec cuda:" "vif --hwdec cuda"
run 0 diff -q $cpu --hwdec auto h264.mp4 --json hw.json
[ ! -s err ] || fail "diff --hwdec auto without a GPU says something: $(cat err)"
json_ok hw.json "assert len(d['maps']) == 5, d"
run 0 track -q $cpu --hwdec auto h264.mp4 -o hw.txt
[ ! -s err ] || fail "track --hwdec auto without a GPU says something: $(cat err)"
[ -s hw.txt ] || fail "track --hwdec auto wrote no features"
run 2 convert -q h264.mp4 --hwdec gpu /dev/null
run 1 convert -q av.mp4 --stream 0 /dev/null
err_has "stream 0 is not video (it is audio)" "--stream on audio"
run 1 convert -q av.mp4 --stream 5 /dev/null
err_has "no stream 5" "--stream out of range"

# ---- writing each container and reading it back
for c in mp4 mov mkv webm; do
    if [ $c = webm ] && ! has_encoder libvpx-vp9; then continue; fi
    run 0 convert -q ffv1.mkv out.$c
    info out.$c "assert (i['width'], i['height'], i['pixfmt']) == (96, 64, 'i420'), i"
    ffmpeg -nostdin -v error -y -i out.$c -f rawvideo o.raw 2>ff.err || fail "ffmpeg cannot read out.$c"
    expect_size o.raw $((96 * 64 * 3 / 2 * 6))
done
# FFV1 is lossless: the frames come back byte for byte (10-bit too)
ffmpeg -nostdin -v error -y -i ffv1.mkv -f rawvideo ff.raw
run 0 convert -q out.mkv --out-format yuv fv.raw
cmp -s ff.raw fv.raw || fail "mkv (FFV1) round trip is not lossless"
if [ -f hevc10.mp4 ]; then
    run 0 convert -q hevc10.mp4 out10.mkv
    info out10.mkv "assert i['pixfmt'] == 'i420p10', i"
    run 0 convert -q hevc10.mp4 --out-format yuv a.raw
    run 0 convert -q out10.mkv --out-format yuv b.raw
    cmp -s a.raw b.raw || fail "10-bit FFV1 round trip is not lossless"
fi
run 0 convert -q ffv1.mkv --codec libx264 --crf 30 --encoder-option preset=ultrafast small.mp4
[ "$(size_of small.mp4)" -lt "$(size_of out.mp4)" ] || fail "--crf 30 is not smaller than the default crf"
# H.264 in mp4 is 4:2:0 (players decode it) unless pixel_format says otherwise
run 0 convert -q yuv444.mp4 to420.mp4
[ "$(ffprobe -v error -show_entries stream=pix_fmt -of csv=p=0 to420.mp4)" = yuv420p ] || fail "4:4:4 into mp4 is not yuv420p"
run 0 convert -q yuv444.mp4 --encoder-option pixel_format=yuv444p keep444.mp4
info keep444.mp4 "assert i['pixfmt'] == 'i444', i"
run 0 convert -q tagged.mp4 tag2.mkv
info tag2.mkv "assert (i['color_range'], i['color_matrix']) == ('full', 1), i"
run 1 convert -q ffv1.mkv --codec nosuchcodec x.mp4
err_has "no encoder named nosuchcodec" "unknown codec"
[ ! -e x.mp4 ] || fail "a failed encode left x.mp4"
run 1 convert -q ffv1.mkv --encoder-option nosuch=1 x.mp4
err_has "encoder option 'nosuch' is not an option of the libx264 encoder" "unknown encoder option"
run 1 convert -q ffv1.mkv --codec ffv1 --crf 10 x.mkv
err_has "encoder ffv1 takes no crf" "crf on ffv1"
cp out.mp4 keep.mp4
run 1 convert -q ffv1.mkv --codec nosuchcodec keep.mp4
cmp -s out.mp4 keep.mp4 || fail "a failed encode replaced keep.mp4"
run 2 convert -q out.mp4 out.mp4
err_has "same file" "output is the input"
# other commands write media too
run 0 diff -q h264.mp4 --heatmap heat.mp4
info heat.mp4 "assert i['frame_count'] == 5, i"  # a map between each two frames
run 0 track -q h264.mp4 -o t.json --overlay overlay.mp4
info overlay.mp4 "assert i['frame_count'] == 6, i"

# ---- two inputs: rates and start times must agree unless --match-frames
mk r30.mp4 -c:v libx264 -r 30
run 1 vif -q h264.mp4 r30.mp4
err_has "h264.mp4 runs at 25/1 fps but r30.mp4 at 30/1" "different rates"
run 0 vif -q --match-frames h264.mp4 r30.mp4
ffmpeg -nostdin -v error -y -i h264.mp4 -c copy -output_ts_offset 1 late.mkv 2>ff.err || fail "late.mkv"
run 1 vif -q h264.mp4 late.mkv
err_has "starts at" "different start times"

# ---- vmaf on mp4 files equals vmaf on the ffmpeg-decoded y4m pair
mk dis.mp4 -c:v libx264 -crf 40
ffmpeg -nostdin -v error -y -i h264.mp4 -f yuv4mpegpipe ref.y4m
ffmpeg -nostdin -v error -y -i dis.mp4 -f yuv4mpegpipe dis.y4m
run 0 vmaf -q --json m.json h264.mp4 dis.mp4
run 0 vmaf -q --json y.json ref.y4m dis.y4m
python3 -c "import json, sys
a = json.load(open('m.json')); b = json.load(open('y.json'))
assert a['frames'] == b['frames'] and a['pooled_metrics'] == b['pooled_metrics'], (a['pooled_metrics'], b['pooled_metrics'])" ||
    fail "vmaf on mp4 differs from vmaf on the decoded y4m"

# ---- bad media: exit 1 and a message naming the file and FFmpeg's reason
ffmpeg -nostdin -v error -y -f lavfi -i testsrc2=size=96x64:rate=25 -frames:v 40 -c:v libx264 -movflags +faststart fast.mp4
n=$(size_of fast.mp4)
head -c $((n * 2 / 3)) fast.mp4 >trunc.mp4
run 1 convert -q trunc.mp4 /dev/null
err_match "trunc.mp4: frame [0-9]*: .*last good frame" "truncated file"
head -c $(($(size_of h264.mp4) / 2)) h264.mp4 >nomoov.mp4 # the moov atom is at the end
run 1 convert -q nomoov.mp4 /dev/null
err_has "nomoov.mp4: cannot open" "missing moov"
err_has "moov atom not found" "missing moov"
python3 -c "d = open('h264.mp4', 'rb').read(); i = d.find(b'moov'); open('zeromoov.mp4', 'wb').write(d[:i] + bytes(4) + d[i + 4:])"
run 1 convert -q zeromoov.mp4 /dev/null
err_has "zeromoov.mp4: cannot open" "zeroed moov"
ffmpeg -nostdin -v error -y -f lavfi -i sine=d=0.2 tone.wav
run 1 convert -q tone.wav /dev/null
err_has "tone.wav: no video stream" "audio only"
gen8 3000 5 >garbage.mp4
run 1 convert -q garbage.mp4 /dev/null
err_has "garbage.mp4: cannot open" "garbage"
run 1 convert -q missing.mkv /dev/null
err_has "missing.mkv: cannot open: No such file or directory" "missing file"
echo "test_cli_media: OK"
