#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause-Patent
# Run on a Debian 12 machine with FFmpeg installed (here: scripts/deps.sh)
# before a GPU run: puts into .ffmpeg/ (git-ignored) what builds fovea with
# FOVEA_FFMPEG=ON and runs its media tests on a machine without FFmpeg (the
# lent GPU machine: Ubuntu 24.04, CUDA 13, the driver's libnvcuvid, no
# network). scripts/ffmpeg-env.sh unpacks it there (dpkg -x into a prefix).
#
#   .ffmpeg/*.deb    FFmpeg's own libraries (libavformat, libavcodec,
#                    libavutil, libswscale, libswresample, libavdevice, and
#                    libavfilter + libpostproc that libavdevice needs), their
#                    -dev packages (headers, .pc files) and libx264 (so that
#                    `fovea convert` writes H.264 there), and libgme (every
#                    probe of a file reads the string gme_identify_header
#                    returns: a stub's NULL crashed every open). Debian 12's glibc is
#                    older than Ubuntu 24.04's, so these run there.
#   .ffmpeg/stubs/   every other library those .so files NEED (readelf -d:
#                    AV1/HEVC/VP8 encoders, codec2, rsvg/cairo, libxml2, VA-API,
#                    OpenCL, X11, ... ~100 packages, 60 MiB of .deb) as a stub
#                    with the same SONAME that defines the symbols FFmpeg
#                    imports from it (versions included); each function
#                    returns 0 (NULL): FFmpeg's codec list asks a few at start
#                    (libaom's version, x265's API: 0 reads as "none"), and
#                    decoding H.264/HEVC/VP9 with FFmpeg's own decoders, NVDEC
#                    (dlopen'd by FFmpeg), lavfi's testsrc2 and libx264 call
#                    nothing else of them. ffmpeg-env.sh uses the machine's own copy
#                    of such a library where it has one. libc, libm and the
#                    other libraries of every Linux machine are not stubbed.
#   .ffmpeg/media/   small files the machine cannot make (it has no HEVC
#                    encoder and no ffmpeg tool): H.264 8/10-bit and HEVC
#                    8/10-bit, made here with the ffmpeg tool.
#
#   usage: scripts/ffmpeg-carry.sh        (then: du -sh .ffmpeg)
set -euo pipefail
export LC_ALL=C
cd "$(dirname "$0")/.." || exit 1
DIR=.ffmpeg
ARCH=x86_64-linux-gnu

REAL=(libavformat59 libavcodec59 libavutil57 libswscale6 libswresample4 libavdevice59
    libavfilter8 libpostproc56 libx264-164 libgme0
    libavformat-dev libavcodec-dev libavutil-dev libswscale-dev libswresample-dev
    libavdevice-dev libavfilter-dev libpostproc-dev)
# sonames every Linux machine that builds C has: never stubbed
SYSTEM='ld-linux-x86-64\.so\.2|libc\.so\.6|libm\.so\.6|libdl\.so\.2|libpthread\.so\.0|librt\.so\.1|libgcc_s\.so\.1|libstdc\+\+\.so\.6|libz\.so\.1'

for t in apt-get dpkg-deb readelf gcc ffmpeg; do
    command -v "$t" >/dev/null || { echo "ffmpeg-carry: needs $t" >&2; exit 1; }
done
rm -rf "$DIR"
mkdir -p "$DIR/stubs" "$DIR/media"
# apt-get download as root warns that _apt cannot write here: harmless
(cd "$DIR" && apt-get download -q "${REAL[@]}") 2>&1 |
    { grep -v '^W: Download is performed unsandboxed' || :; }
n=$(find "$DIR" -maxdepth 1 -name '*.deb' | wc -l)
[ "$n" -eq ${#REAL[@]} ] || { echo "ffmpeg-carry: downloaded $n of ${#REAL[@]} packages" >&2; exit 1; }

# the carried libraries, unpacked in a scratch prefix to read their imports
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for d in "$DIR"/*.deb; do dpkg-deb -x "$d" "$tmp/root"; done
mapfile -t libs < <(find "$tmp/root" -name 'lib*.so.*' -type f)
declare -A carried=()
for f in "${libs[@]}"; do
    s=$(readelf -d "$f" | awk '/SONAME/ { gsub(/[][]/, "", $5); print $5 }')
    carried[$s]=1
done
# every NEEDED soname not carried and not a system one gets a stub
declare -A need=()
for f in "${libs[@]}"; do
    while read -r s; do
        [ -n "${carried[$s]:-}" ] && continue
        [[ "$s" =~ ^($SYSTEM)$ ]] && continue
        need[$s]=1
    done < <(readelf -d "$f" | awk '/NEEDED/ { gsub(/[][]/, "", $5); print $5 }')
done
# the undefined dynamic symbols of the carried libraries: name[@version]
for f in "${libs[@]}"; do
    readelf -W --dyn-syms "$f" | awk '$7 == "UND" && $8 != "" { sub(/ \([0-9]+\)$/, "", $8); print $8 }'
done | sort -u >"$tmp/undef.txt"

for s in $(printf '%s\n' "${!need[@]}" | sort); do
    real=$(ldconfig -p | awk -v s="$s" '$1 == s && /x86-64/ && !f { print $NF; f = 1 }')
    [ -n "$real" ] || { echo "ffmpeg-carry: $s is not installed here (scripts/deps.sh)" >&2; exit 1; }
    # the symbols it defines (name version type size) that a carried library imports
    readelf -W --dyn-syms "$real" | awk '$7 != "UND" && ($5 == "GLOBAL" || $5 == "WEAK") && $8 != "" {
        name = $8; ver = ""
        if (match(name, /@@?/)) { ver = substr(name, RSTART + RLENGTH); name = substr(name, 1, RSTART - 1) }
        print name, ver, $4, $3 }' | sort -u >"$tmp/def.txt"
    awk 'NR == FNR { split($0, a, "@"); want[a[1] "@" a[2]] = 1; next }
        (($1 "@" $2) in want) || (($1 "@") in want)' "$tmp/undef.txt" "$tmp/def.txt" >"$tmp/use.txt"
    base=${s%%.so*}
    {
        echo "/* stub of $s for fovea's carried FFmpeg: every function returns 0 */"
        while read -r name ver type size; do
            case "$type" in
            OBJECT | TLS) echo "char ${name}[${size:-8}] __attribute__((aligned(16)));" ;;
            *) echo "long ${name}(void) { return 0; }" ;;
            esac
        done <"$tmp/use.txt"
    } >"$tmp/$base.c"
    # one version node per version the real library defines for these symbols
    {
        awk '$2 != "" { v[$2] = v[$2] " " $1 ";" } END { for (k in v) print k " { global:" v[k] " };" }' "$tmp/use.txt"
        plain=$(awk '$2 == "" { printf "%s; ", $1 }' "$tmp/use.txt")
        echo "FOVEA_STUB_LOCAL { ${plain:+global: $plain} local: *; };"
    } >"$tmp/$base.map"
    gcc -shared -fPIC -O1 -w -o "$DIR/stubs/$s" "-Wl,-soname,$s" "-Wl,--version-script=$tmp/$base.map" \
        "$tmp/$base.c" || { echo "ffmpeg-carry: cannot build the stub of $s" >&2; exit 1; }
done
echo "ffmpeg-carry: $(find "$DIR/stubs" -name '*.so*' | wc -l) stub libraries in $DIR/stubs"

# the carried libraries load with the stubs alone (no library of this
# machine but the system ones): checked here with ld.so's own resolution
lib="$tmp/root/usr/lib/$ARCH"
mkdir -p "$tmp/only"
cp -a "$DIR/stubs/." "$tmp/only/"
cp -a "$lib/." "$tmp/only/"
cat >"$tmp/probe.c" <<'EOF'
#include <stdio.h>
#include <libavcodec/avcodec.h>
#include <libavdevice/avdevice.h>
#include <libavformat/avformat.h>
#include <libswscale/swscale.h>
int main(int argc, char **argv)
{
    avdevice_register_all();
    const AVCodec *h = avcodec_find_decoder(AV_CODEC_ID_HEVC);
    const AVCodec *x = avcodec_find_encoder_by_name("libx264");
    printf("%s %s %u\n", h ? h->name : "-", x ? x->name : "-", avformat_version());
    /* and each file given opens and shows its streams: every demuxer's probe runs */
    for (int i = 1; i < argc; i++) {
        AVFormatContext *fc = NULL;
        if (avformat_open_input(&fc, argv[i], NULL, NULL) < 0 ||
            avformat_find_stream_info(fc, NULL) < 0)
            return 1;
        avformat_close_input(&fc);
    }
    return !(h && x);
}
EOF
gcc -o "$tmp/probe" "$tmp/probe.c" -I"$tmp/root/usr/include/$ARCH" -I"$tmp/root/usr/include" \
    -L"$tmp/only" -lavdevice -lavformat -lavcodec -lswscale -lavutil -Wl,--allow-shlib-undefined
LD_LIBRARY_PATH="$tmp/only" "$tmp/probe" >/dev/null ||
    { echo "ffmpeg-carry: the carried libraries do not load with the stubs" >&2; exit 1; }
echo "ffmpeg-carry: the carried libraries load with the stubs"

# media the GPU machine cannot make (ffmpeg tool, x265 here)
ff() { ffmpeg -nostdin -hide_banner -loglevel error -y "$@"; }
src=(-f lavfi -i "testsrc2=size=352x288:rate=25:duration=2")
ff "${src[@]}" -c:v libx264 -pix_fmt yuv420p -crf 23 "$DIR/media/h264-8.mp4"
ff "${src[@]}" -c:v libx264 -pix_fmt yuv420p10le -crf 23 "$DIR/media/h264-10.mp4"
ff "${src[@]}" -c:v libx265 -pix_fmt yuv420p -crf 26 -x265-params log-level=none "$DIR/media/hevc-8.mp4"
ff "${src[@]}" -c:v libx265 -pix_fmt yuv420p10le -crf 26 -x265-params log-level=none "$DIR/media/hevc-10.mp4"
# a size off the 16-pixel blocks (NVDEC crops its surfaces: the frames must not show it)
ff -f lavfi -i "testsrc2=size=318x178:rate=25:duration=1" -c:v libx265 -pix_fmt yuv420p10le \
    -crf 26 -x265-params log-level=none "$DIR/media/hevc-10-odd.mkv"
# 1080p HEVC for scripts/nvdec-bench.sh's decode rows (the GPU machine makes
# its H.264 with libx264 but has no HEVC encoder): 240 frames, about 3.5 MB
ff -f lavfi -i "testsrc2=size=1920x1080:rate=30:duration=8" -c:v libx265 -preset ultrafast \
    -pix_fmt yuv420p -crf 28 -x265-params log-level=none "$DIR/media/hevc-1080.mp4"
LD_LIBRARY_PATH="$tmp/only" "$tmp/probe" "$DIR"/media/* >/dev/null ||
    { echo "ffmpeg-carry: the media files do not open with the stubs" >&2; exit 1; }
echo "ffmpeg-carry: the media files open with the stubs"
echo "ffmpeg-carry: $(find "$DIR" -maxdepth 1 -name '*.deb' | wc -l) .deb files, $(ls "$DIR/media" | wc -l) media files; $(du -sh "$DIR" | cut -f1) (carry \"$DIR\" to the GPU machine)"
