#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause-Patent
# CPU decoding speed: `fovea convert --threads T in.mp4 /dev/null` against the
# ffmpeg tool on the same file with the same threads (issue 48), side by side
# in one run, rows interleaved (a b c a b c ...), the median of R runs each:
#   ffmpeg -threads T -i in.mp4 -f null -            (decode only: -f null
#       hands the decoded frames to a muxer that drops them; no copy, no write)
#   ffmpeg -threads T -i in.mp4 -f rawvideo -y /dev/null   (the like-for-like
#       anchor: the rawvideo encoder copies each frame into a packet that is
#       written to the device, as fovea writes its frames)
#   fovea convert --threads T in.mp4 /dev/null       (/dev/null with no
#       --out-format is raw yuv, the frames' own format, written in place
#       into the device: nothing is replaced or converted)
# at T = 1, 2 and auto (ffmpeg's -threads auto, fovea's --threads 0: FFmpeg's
# decoder picks, one thread per CPU plus one for frame threads).
# Inputs (N frames of lavfi's testsrc2 at 1920x1080, 30 fps, with moving noise
# so that the bit rate is a camera's rather than a cartoon's), made with the
# ffmpeg tool: h264.mp4 (libx264, 8-bit), hevc.mp4 (libx265, 8-bit),
# hevc10.mp4 (libx265, yuv420p10le).
# Wall seconds are the rows' medians; cpu = user + system seconds (median):
# on a loaded machine the CPU time is the steadier figure.
#   usage: scripts/convert-bench.sh [--build DIR] [--frames N] [--runs R]
#            [--threads "1 2 auto"] [--files "h264.mp4 hevc.mp4 hevc10.mp4"]
#            [--inputs DIR] [--fovea-only] [--json FILE]
#   --inputs DIR: read (and, with the ffmpeg tool, make when missing) the
#     inputs there (kept); default a temporary folder.
#   --fovea-only: the fovea rows alone (a machine without the ffmpeg tool,
#     such as the GPU machine: give --inputs with the three files).
set -uo pipefail
export LC_ALL=C
cd "$(dirname "$0")/.." || exit 1
ROOT=$PWD
B=$ROOT/build-rel
N=300
R=5
THREADS="1 2 auto"
INPUTS=""
FILES="h264.mp4 hevc.mp4 hevc10.mp4"
FOVEA_ONLY=0
JSON=""
while [ $# -gt 0 ]; do
    case "$1" in
    --build) B=$2; shift ;;
    --frames) N=$2; shift ;;
    --runs) R=$2; shift ;;
    --threads) THREADS=$2; shift ;;
    --inputs) INPUTS=$2; shift ;;
    --files) FILES=$2; shift ;;
    --fovea-only) FOVEA_ONLY=1 ;;
    --json) JSON=$2; shift ;;
    -h | --help) awk 'NR > 2 && !/^#/ { exit } NR > 2 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
    *) echo "convert-bench: unknown argument '$1'" >&2; exit 2 ;;
    esac
    shift
done
case "$B" in /*) ;; *) B="$ROOT/$B" ;; esac
F=$B/fovea
[ -x "$F" ] || { echo "convert-bench: $F not found (build first: a Release build with -DFOVEA_FFMPEG=ON)" >&2; exit 1; }
"$F" info 2>/dev/null | grep -q 'media (FFmpeg) libav' ||
    { echo "convert-bench: $F has no media (FFmpeg) support" >&2; exit 1; }
HAVE_FFMPEG=0
command -v ffmpeg >/dev/null 2>&1 && HAVE_FFMPEG=1
if [ $FOVEA_ONLY -eq 0 ] && [ $HAVE_FFMPEG -eq 0 ]; then
    echo "convert-bench: no ffmpeg tool here: the fovea rows only (--fovea-only)" >&2
    FOVEA_ONLY=1
fi
if [ -n "$INPUTS" ]; then
    mkdir -p "$INPUTS" || exit 1
    W=$(cd "$INPUTS" && pwd)
else
    W=$(mktemp -d "${TMPDIR:-/tmp}/fovea_convert_bench.XXXXXX")
    trap 'rm -rf "$W"' EXIT INT TERM
fi
cd "$W" || exit 1

SRC="testsrc2=size=1920x1080:rate=30,noise=alls=6:allf=t"
make_input() { # make_input FILE ENCODER-ARGS...
    local out=$1
    shift
    [ -s "$out" ] && return 0
    if [ $HAVE_FFMPEG -eq 0 ]; then
        echo "convert-bench: $W/$out missing and no ffmpeg tool to make it" >&2
        return 1
    fi
    echo "making $out ($N frames) ..." >&2
    ffmpeg -nostdin -hide_banner -loglevel error -f lavfi -i "$SRC" -frames:v "$N" "$@" \
        -movflags +faststart -y "part.$out" && mv "part.$out" "$out"
}
make_input h264.mp4 -c:v libx264 -preset veryfast -crf 20 -pix_fmt yuv420p || exit 1
make_input hevc.mp4 -c:v libx265 -preset veryfast -crf 22 -pix_fmt yuv420p \
    -x265-params log-level=none || exit 1
make_input hevc10.mp4 -c:v libx265 -preset veryfast -crf 22 -pix_fmt yuv420p10le \
    -x265-params log-level=none || exit 1
cat ./*.mp4 >/dev/null # into the page cache

tm() { # "wall user+sys" of "$@" (stdout dropped; stderr in err, "rc N" appended on failure)
    local TIMEFORMAT='%R %U %S' out
    out=$({ time { "$@" >/dev/null 2>err || echo "rc $?" >>err; }; } 2>&1)
    awk -v t="$out" 'BEGIN { split(t, a, " "); printf "%.3f %.3f\n", a[1], a[2] + a[3] }'
}
rel() { # rel VALUE ANCHOR: "+x.y%", or "-" without an anchor
    if [ -n "$2" ]; then awk -v a="$1" -v b="$2" 'BEGIN { printf "%+.1f%%", (a / b - 1) * 100 }'; else printf -- "-"; fi
}
median() { sort -n | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.3f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# the rows: NAME|COMMAND (T and IN substituted)
ROWS=()
if [ $FOVEA_ONLY -eq 0 ]; then
    ROWS+=("ffmpeg -f null|ffmpeg -nostdin -hide_banner -loglevel error -threads @T -i @IN -f null -")
    ROWS+=("ffmpeg -f rawvideo /dev/null|ffmpeg -nostdin -hide_banner -loglevel error -threads @T -i @IN -f rawvideo -y /dev/null")
fi
ROWS+=("fovea convert /dev/null|$F convert -q --threads @FT @IN /dev/null")

frames_of() { "$F" convert -q --json - "$1" /dev/null 2>/dev/null | sed -n 's/^[[:space:]]*"frames":[[:space:]]*\([0-9]*\).*/\1/p' | head -1; }

CPU=$(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -1)
echo
LOAD0=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)
echo "fovea convert IN /dev/null vs ffmpeg, 1080p, medians of $R runs ($(nproc) CPUs: ${CPU:-?}; load average at the start: ${LOAD0:-?})"
echo "wall: elapsed seconds; cpu: user + system seconds; vs: (row / anchor - 1), wall and cpu"
echo "| input | T | what | wall s | frames/s | cpu s | wall vs -f null | cpu vs -f null | wall vs rawvideo | cpu vs rawvideo |"
echo "|---|---|---|---:|---:|---:|---:|---:|---:|---:|"
JROWS=()
fail=0
for in in $FILES; do
    nf=$(frames_of "$in")
    [ -n "$nf" ] || { echo "convert-bench: fovea cannot read $in" >&2; fail=1; continue; }
    for t in $THREADS; do
        ft=$t
        [ "$t" = auto ] && ft=0
        declare -A WALL=() CPUS=()
        for ((k = 0; k < R; k++)); do
            for row in "${ROWS[@]}"; do
                name=${row%%|*}
                cmd=${row#*|}
                cmd=${cmd//@T/$t}
                cmd=${cmd//@FT/$ft}
                cmd=${cmd//@IN/$in}
                # shellcheck disable=SC2086
                read -r w c < <(tm $cmd)
                if [ -s err ]; then
                    echo "convert-bench: $name on $in: $(head -c 300 err)" >&2
                    fail=1
                fi
                WALL[$name]+="$w "
                CPUS[$name]+="$c "
            done
        done
        bn_w="" bn_c="" br_w="" br_c=""
        for row in "${ROWS[@]}"; do
            name=${row%%|*}
            mw=$(printf '%s\n' ${WALL[$name]} | median)
            mc=$(printf '%s\n' ${CPUS[$name]} | median)
            case "$name" in
            "ffmpeg -f null") bn_w=$mw bn_c=$mc ;;
            "ffmpeg -f rawvideo"*) br_w=$mw br_c=$mc ;;
            esac
            printf '| %s | %s | %s | %.3f | %.1f | %.3f | %s | %s | %s | %s |\n' "$in" "$t" "$name" "$mw" \
                "$(awk -v n="$nf" -v m="$mw" 'BEGIN { print n / m }')" "$mc" "$(rel "$mw" "$bn_w")" \
                "$(rel "$mc" "$bn_c")" "$(rel "$mw" "$br_w")" "$(rel "$mc" "$br_c")"
            JROWS+=("{\"input\": \"$in\", \"threads\": \"$t\", \"what\": \"$name\", \"frames\": $nf, \"wall_s\": $mw, \"cpu_s\": $mc, \"runs_wall_s\": [$(echo ${WALL[$name]} | tr ' ' ',')], \"runs_cpu_s\": [$(echo ${CPUS[$name]} | tr ' ' ',')]}")
        done
        unset WALL CPUS
    done
done
LOAD1=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)
echo "load average at the end: ${LOAD1:-?}"
if [ -n "$JSON" ]; then
    case "$JSON" in /*) ;; *) JSON="$ROOT/$JSON" ;; esac
    { printf '{"cpu": "%s", "cpus": %s, "runs": %s, "load_start": "%s", "load_end": "%s", "rows": [\n' \
        "${CPU:-?}" "$(nproc)" "$R" "${LOAD0:-?}" "${LOAD1:-?}"
      (IFS=$'\n'; echo "${JROWS[*]}" | sed '$!s/$/,/')
      printf ']}\n'; } >"$JSON"
fi
exit $fail
