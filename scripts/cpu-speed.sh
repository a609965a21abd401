#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause-Patent
# fovea's C backend against libvmaf's CPU tool on the same machine, whole
# process: VMAF v0.6.1 (libvmaf -m version=vmaf_v0.6.1 vs fovea vmaf), VIF
# alone (libvmaf --feature vif --no_prediction vs fovea vif), and on the pair
# shifted to 10 bits (fovea convert) VMAF v1.0.16_3d0h (v1) and its two new
# features alone with the model's options (cambi, speed: speed_chroma), the
# extra features alone on the 8-bit pair (psnr, float_ssim, float_ms_ssim,
# ciede, psnr_hvs: libvmaf --feature NAME --no_prediction against fovea vmaf
# --feature NAME --feature-only), at
# each size and thread count, on a generated 8-bit y4m pair (ref: moving
# gradient, texture and noise, slowly varying chroma; dis: ref 3x3-blurred,
# quantized to steps of 4, plus noise, chroma with small changes) in the page
# cache. The two tools run alternately, ROUNDS times each; the table has
# the medians of wall and CPU (user + sys) seconds, fovea's speed-up on each
# (libvmaf / fovea: above 1 = fovea faster), and the load average before and
# after (the machine may be shared). The pooled VMAF means are compared.
#
#   usage: scripts/cpu-speed.sh --libvmaf PATH --fovea PATH [options]
#     --libvmaf PATH   libvmaf's vmaf tool, CPU build (e.g. ../shared/tools/libvmaf/vmaf-cpu)
#     --fovea PATH     the fovea executable (e.g. build/fovea)
#     --sizes LIST     WxH[:FRAMES],... (default 1920x1080:60,576x324:300)
#     --threads LIST   thread counts (default 1,2)
#     --metrics LIST   vmaf,vif,v1,cambi,speed,psnr,float_ssim,float_ms_ssim,ciede,
#                      psnr_hvs (default vmaf,vif)
#     --rounds N       runs of each tool per row (default 5)
#     --tmp DIR        where the pairs are written (default ${TMPDIR:-/tmp}/fovea-cpu-speed)
set -uo pipefail
export LC_ALL=C

usage() { sed -n '2,26p' "$0" | sed 's/^# \{0,1\}//'; }

libvmaf="" fovea="" sizes="1920x1080:60,576x324:300" threads="1,2" metrics="vmaf,vif"
rounds=5 tmp="${TMPDIR:-/tmp}/fovea-cpu-speed"
while [ $# -gt 0 ]; do
    case "$1" in
    --libvmaf) libvmaf=$2; shift 2 ;;
    --fovea) fovea=$2; shift 2 ;;
    --sizes) sizes=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    --metrics) metrics=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --tmp) tmp=$2; shift 2 ;;
    -h | --help) usage; exit 0 ;;
    *) echo "cpu-speed.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
    esac
done
if [ -z "$libvmaf" ] || [ -z "$fovea" ] || [ ! -x "$libvmaf" ] || [ ! -x "$fovea" ]; then
    echo "cpu-speed.sh: --libvmaf and --fovea must name executables" >&2
    exit 2
fi
mkdir -p "$tmp" || exit 1

# the pair generator (plain C, seeded: the same pair on every machine)
gen="$tmp/gen-pair2"
if [ ! -x "$gen" ]; then
    cat >"$tmp/gen-pair2.c" <<'EOF'
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv)
{
    if (argc != 6)
        return 2;
    const int w = atoi(argv[1]), h = atoi(argv[2]), n = atoi(argv[3]);
    FILE *fr = fopen(argv[4], "wb"), *fd = fopen(argv[5], "wb");
    if (!fr || !fd || w < 2 || h < 2)
        return 1;
    fprintf(fr, "YUV4MPEG2 W%d H%d F25:1 Ip A1:1 C420jpeg\n", w, h);
    fprintf(fd, "YUV4MPEG2 W%d H%d F25:1 Ip A1:1 C420jpeg\n", w, h);
    const size_t cw = (size_t)(w + 1) / 2, ch = (size_t)(h + 1) / 2;
    uint8_t *r = malloc((size_t)w * h), *d = malloc((size_t)w * h), *c = malloc(2 * cw * ch);
    uint8_t *e = malloc(2 * cw * ch);
    uint64_t x = 12345;
    for (int t = 0; t < n; t++) {
        /* chroma (U then V) without the generator, so luma stays as it was */
        for (size_t i = 0; i < 2 * cw * ch; i++) {
            c[i] = (uint8_t)(128 + (int)(20 * sin((double)i * 0.001 + t * 0.1)));
            e[i] = (uint8_t)(c[i] + ((i + (size_t)t) % 5 == 0) - ((i * 7 + (size_t)t) % 9 == 0));
        }
        for (int y = 0; y < h; y++)
            for (int i = 0; i < w; i++) {
                x = x * 6364136223846793005ull + 1442695040888963407ull;
                double v = 40 + 150.0 * ((i + 7 * t) % w) / w +
                           30 * sin((y + 3.0 * t) * 0.05) * cos(i * 0.021) +
                           12 * sin(i * 0.4 + y * 0.3) + (double)((x >> 58) & 31) - 16;
                r[(size_t)y * w + i] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
            }
        for (int y = 0; y < h; y++)
            for (int i = 0; i < w; i++) {
                int s = 0;
                for (int a = -1; a <= 1; a++)
                    for (int b = -1; b <= 1; b++) {
                        const int yy = y + a < 0 ? 0 : y + a >= h ? h - 1 : y + a;
                        const int ii = i + b < 0 ? 0 : i + b >= w ? w - 1 : i + b;
                        s += r[(size_t)yy * w + ii];
                    }
                x = x * 6364136223846793005ull + 1442695040888963407ull;
                const int v = ((s + 4) / 9) / 4 * 4 + (int)((x >> 61) & 3) - 1;
                d[(size_t)y * w + i] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
            }
        fputs("FRAME\n", fr);
        fwrite(r, 1, (size_t)w * h, fr);
        fwrite(c, 1, 2 * cw * ch, fr);
        fputs("FRAME\n", fd);
        fwrite(d, 1, (size_t)w * h, fd);
        fwrite(e, 1, 2 * cw * ch, fd);
    }
    return fclose(fr) | fclose(fd);
}
EOF
    "${CC:-cc}" -O2 -o "$gen" "$tmp/gen-pair2.c" -lm || exit 1
fi

# median of the numbers on stdin
median() { sort -g | awk '{v[NR] = $1} END {if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

# run CMD...: append "wall cpu" seconds to $times_file
TIMEFORMAT='%R %U %S'
timed() {
    local t
    t=$({ time "$@" >/dev/null 2>&1; } 2>&1 | tail -n 1)
    echo "$t" | awk '{printf "%.3f %.3f\n", $1, $2 + $3}' >>"$times_file"
}

pooled() { # pooled mean of metric $2 (default vmaf) of a libvmaf-layout JSON, 6 decimals
    tr -d ' \t\r\n' <"$1" | sed 's/.*"pooled_metrics"://' | grep -o "\"${2:-vmaf}\":{[^}]*}" |
        head -n 1 | sed 's/.*"mean":\([-0-9.eE+]*\).*/\1/' | awk '{printf "%.6f", $1}'
}

# VMAF v1.0.16_3d0h's options of its two new features (libvmaf's names)
cambi_v1="cambi=cambi_high_res_speedup=1080:cambi_vis_lum_threshold=0.06:cambi_max_val=17"
speed_v1="speed_chroma=speed_kernelscale=1.0:speed_nn_floor=0.1:speed_sigma_nn=0.19"
speed_v1="$speed_v1:speed_weight_var_mode=5:speed_max_val=45.0"

echo "cpu-speed: $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | sed 's/.*: //'), $(nproc) CPUs"
echo "libvmaf: $libvmaf"
echo "fovea:   $fovea ($("$fovea" --version 2>&1 | head -n 1))"
: >"$tmp/st"
for ((r = 0; r < rounds; r++)); do times_file="$tmp/st" timed "$fovea" --version; done
echo "fovea --version (process start, shared libraries): $(cut -d' ' -f1 "$tmp/st" | median) s wall"
printf '%-10s %-13s %3s %7s | %9s %9s %7s | %9s %9s %7s | %s\n' size metric thr frames \
    "lv wall" "fv wall" "x wall" "lv cpu" "fv cpu" "x cpu" "load before/after, check"
for sz in ${sizes//,/ }; do
    dims=${sz%%:*}
    frames=${sz#*:}
    [ "$frames" = "$sz" ] && frames=60
    w=${dims%x*} h=${dims#*x}
    ref="$tmp/ref_${w}x${h}_${frames}.y4m" dis="$tmp/dis_${w}x${h}_${frames}.y4m"
    if [ ! -s "$ref" ] || [ ! -s "$dis" ]; then
        "$gen" "$w" "$h" "$frames" "$ref" "$dis" || exit 1
    fi
    ref10="$tmp/ref_${w}x${h}_${frames}_10b.y4m" dis10="$tmp/dis_${w}x${h}_${frames}_10b.y4m"
    case ",$metrics," in
    *,v1,* | *,cambi,* | *,speed,*)
        if [ ! -s "$ref10" ] || [ ! -s "$dis10" ]; then
            "$fovea" convert -q --pixfmt-out i420p10 "$ref" "$ref10" &&
                "$fovea" convert -q --pixfmt-out i420p10 "$dis" "$dis10" || exit 1
        fi
        cat "$ref10" "$dis10" >/dev/null
        ;;
    esac
    cat "$ref" "$dis" >/dev/null # into the page cache
    for thr in ${threads//,/ }; do
        for m in ${metrics//,/ }; do
            key=vmaf
            case "$m" in
            vmaf)
                lcmd=("$libvmaf" -r "$ref" -d "$dis" -m version=vmaf_v0.6.1 --threads "$thr"
                    --json -o "$tmp/l.json" -q)
                fcmd=("$fovea" vmaf --backend cpu --threads "$thr" "$ref" "$dis" --json
                    "$tmp/f.json" -q)
                ;;
            vif)
                key=""
                lcmd=("$libvmaf" -r "$ref" -d "$dis" --feature vif --no_prediction --threads
                    "$thr" --json -o "$tmp/l.json" -q)
                fcmd=("$fovea" vif --backend cpu --threads "$thr" "$ref" "$dis" --json
                    "$tmp/f.json" -q)
                ;;
            v1)
                lcmd=("$libvmaf" -r "$ref10" -d "$dis10" -m version=vmaf_v1.0.16_3d0h --threads
                    "$thr" --json -o "$tmp/l.json" -q)
                fcmd=("$fovea" vmaf --backend cpu --threads "$thr" --model
                    version=vmaf_v1.0.16_3d0h "$ref10" "$dis10" --json "$tmp/f.json" -q)
                ;;
            cambi | speed)
                feat=$cambi_v1 key=cambi_hrs_1080_cmxv_17_vlt_0.06
                [ "$m" = speed ] && feat=$speed_v1 key=speed_chroma_uv_mxv_45_nnf_0.1_snn_0.19_wvm_5
                lcmd=("$libvmaf" -r "$ref10" -d "$dis10" --feature "$feat" --no_prediction
                    --threads "$thr" --json -o "$tmp/l.json" -q)
                fcmd=("$fovea" vmaf --backend cpu --threads "$thr" --feature "$feat"
                    --feature-only "$ref10" "$dis10" --json "$tmp/f.json" -q)
                ;;
            psnr | float_ssim | float_ms_ssim | ciede | psnr_hvs)
                key=$m
                [ "$m" = psnr ] && key=psnr_y
                [ "$m" = ciede ] && key=ciede2000
                lcmd=("$libvmaf" -r "$ref" -d "$dis" --feature "$m" --no_prediction --threads
                    "$thr" --json -o "$tmp/l.json" -q)
                fcmd=("$fovea" vmaf --backend cpu --threads "$thr" --feature "$m" --feature-only
                    "$ref" "$dis" --json "$tmp/f.json" -q)
                ;;
            *) echo "cpu-speed.sh: unknown metric $m" >&2; exit 2 ;;
            esac
            load0=$(cut -d' ' -f1 /proc/loadavg)
            lt="$tmp/lt" ft="$tmp/ft"
            : >"$lt"
            : >"$ft"
            for ((r = 0; r < rounds; r++)); do
                times_file=$lt timed "${lcmd[@]}"
                times_file=$ft timed "${fcmd[@]}"
            done
            load1=$(cut -d' ' -f1 /proc/loadavg)
            lw=$(cut -d' ' -f1 "$lt" | median) lc=$(cut -d' ' -f2 "$lt" | median)
            fw=$(cut -d' ' -f1 "$ft" | median) fc=$(cut -d' ' -f2 "$ft" | median)
            check=""
            if [ -n "$key" ]; then
                lv=$(pooled "$tmp/l.json" "$key") fv=$(pooled "$tmp/f.json" "$key")
                check="${key%%_*} $lv / $fv"
                [ "$lv" = "$fv" ] || check="$check MISMATCH"
            fi
            printf '%-10s %-13s %3s %7s | %9s %9s %7s | %9s %9s %7s | %s / %s %s\n' "$dims" "$m" \
                "$thr" "$frames" "$lw" "$fw" "$(awk -v a="$lw" -v b="$fw" 'BEGIN{printf "%.2f", a / b}')" \
                "$lc" "$fc" "$(awk -v a="$lc" -v b="$fc" 'BEGIN{printf "%.2f", a / b}')" \
                "$load0" "$load1" "$check"
        done
    done
done
