#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause-Patent
# Whole-process speed of fovea vmaf beside libvmaf's tools on one machine:
# VMAF v1.0.16_3d0h on a 1080p 10-bit pair (8-bit generated content shifted
# up with fovea convert), and VMAF v0.6.1 alone and with psnr, float_ssim,
# float_ms_ssim and ciede on the 8-bit pair; the read floor (cat of the
# pair); libvmaf's CUDA build's answer to v1. Medians of 3 runs, seconds and
# frames/s. docs/notes/quality.md has the figures of the lent H200 machine.
#
#   usage: scripts/vmaf-model-speed.sh BUILD_DIR [FRAMES] [LIBVMAF_DIR]
#     BUILD_DIR    a fovea build (its fovea executable)
#     FRAMES       frames of the generated pair (default 240)
#     LIBVMAF_DIR  where vmaf-cpu and vmaf-cuda are (default ../shared/tools/libvmaf)
# The pair is written to ${TMPDIR:-/tmp}/fovea-vmaf-models (3 GB at 240 frames).
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
B=${1:?usage: scripts/vmaf-model-speed.sh BUILD_DIR [FRAMES] [LIBVMAF_DIR]}; N=${2:-240}
LV=${3:-$ROOT/../shared/tools/libvmaf}
case "$B" in /*) ;; *) B=$PWD/$B ;; esac
# shellcheck source=scripts/cjson-env.sh
. "$ROOT/scripts/cjson-env.sh"
setup_cjson >/dev/null || true # fovea links cJSON: unpacked from .deps where no package has it
T=$(nproc)
W=${TMPDIR:-/tmp}/fovea-vmaf-models
mkdir -p "$W" && cd "$W" || exit 1
if [ ! -f r8.y4m ]; then
  cat > gen.c <<'C'
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
int main(int c, char **v){int w=1920,h=1080,n=atoi(v[1]);FILE*fr=fopen("r8.y4m","wb"),*fd=fopen("d8.y4m","wb");
fprintf(fr,"YUV4MPEG2 W%d H%d F25:1 Ip A1:1 C420jpeg\n",w,h);fprintf(fd,"YUV4MPEG2 W%d H%d F25:1 Ip A1:1 C420jpeg\n",w,h);
size_t cw=w/2,ch=h/2;uint8_t*r=malloc(w*h),*d=malloc(w*h),*cu=malloc(cw*ch),*cv=malloc(cw*ch),*du=malloc(cw*ch),*dv=malloc(cw*ch);uint64_t x=1;
for(int t=0;t<n;t++){for(int y=0;y<h;y++)for(int i=0;i<w;i++){x=x*6364136223846793005ull+1442695040888963407ull;double q=40+150.0*((i+7*t)%w)/w+30*sin((y+3.0*t)*0.05)*cos(i*0.021)+12*sin(i*0.4+y*0.3)+(double)((x>>58)&31)-16;r[y*w+i]=q<0?0:q>255?255:q;}
for(int y=0;y<h;y++)for(int i=0;i<w;i++){int s=0,k=0;for(int a=-1;a<=1;a++)for(int b=-1;b<=1;b++){int yy=y+a,ii=i+b;if(yy>=0&&yy<h&&ii>=0&&ii<w){s+=r[yy*w+ii];k++;}}x=x*6364136223846793005ull+1442695040888963407ull;int q=(s/k)&~3;q+=(int)((x>>60)&7)-3;d[y*w+i]=q<0?0:q>255?255:q;}
for(size_t i=0;i<cw*ch;i++){cu[i]=128+(int)(20*sin(i*0.001+t*0.1));cv[i]=128+(int)(20*cos(i*0.0013));du[i]=cu[i]+((i+t)%5==0);dv[i]=cv[i]-((i*7+t)%9==0);}
fputs("FRAME\n",fr);fwrite(r,1,w*h,fr);fwrite(cu,1,cw*ch,fr);fwrite(cv,1,cw*ch,fr);fputs("FRAME\n",fd);fwrite(d,1,w*h,fd);fwrite(du,1,cw*ch,fd);fwrite(dv,1,cw*ch,fd);}
fclose(fr);fclose(fd);return 0;}
C
  cc -O2 gen.c -o gen -lm && ./gen $N
  $B/fovea convert -q --pixfmt-out i420p10 r8.y4m r10.y4m && $B/fovea convert -q --pixfmt-out i420p10 d8.y4m d10.y4m
fi
ls -la "$W"/*.y4m | awk '{print $5, $9}'
t() { local s e; s=$(date +%s.%N); "$@" >/dev/null 2>"$W"/err; local rc=$?; e=$(date +%s.%N); awk "BEGIN{printf \"%.3f\", $e-$s}"; [ $rc -eq 0 ] || { echo " (rc $rc: $(tail -c 300 "$W"/err | tr '\n' ' '))"; }; }
med() { sort -n | sed -n 2p; }
row() { local name=$1; shift; local a b c; a=$(t "$@"); b=$(t "$@"); c=$(t "$@"); printf "%-58s %8s s  (%s %s %s)  %6.1f fps\n" "$name" "$(printf '%s\n' $a $b $c | med)" $a $b $c "$(awk "BEGIN{print $N/$(printf '%s\n' $a $b $c | med)}")"; }
LV=$ROOT/.carry/lv; F=$B/fovea
echo "== cat floor"; row "cat r10 d10 > /dev/null" sh -c "cat r10.y4m d10.y4m > /dev/null"
echo "== VMAF v1.0.16_3d0h, 1080p 10-bit, $N frames"
row "libvmaf CPU --threads $T (vmaf-cpu)" $LV/vmaf-cpu -r r10.y4m -d d10.y4m -m version=vmaf_v1.0.16_3d0h --threads $T --json -o lv1.json -q
row "fovea --backend cpu --threads $T" $F vmaf -q --backend cpu --threads $T --model version=vmaf_v1.0.16_3d0h r10.y4m d10.y4m --json fv1.json
row "fovea --backend cuda" $F vmaf -q --backend cuda --model version=vmaf_v1.0.16_3d0h r10.y4m d10.y4m --json fc1.json
python3 -c "import json; a=json.load(open('fv1.json')); b=json.load(open('fc1.json')); print('v1 fovea cuda backend:', b['fovea']['backend'], '; every per-frame value and pooled value equal to fovea cpu:', a['frames'] == b['frames'] and a['pooled_metrics'] == b['pooled_metrics'])"
$LV/vmaf-cuda -r r10.y4m -d d10.y4m -m version=vmaf_v1.0.16_3d0h --json -o lc1.json -q 2>&1 | tail -2 | sed 's/^/libvmaf CUDA: /'
python3 -c "import json; a=json.load(open('lv1.json'))['pooled_metrics']['vmaf']['mean']; b=json.load(open('fv1.json'))['pooled_metrics']['vmaf']['mean']; print('v1 pooled vmaf libvmaf-cpu %.6f fovea %.17g' % (a,b))"
echo "== VMAF v0.6.1 + psnr float_ssim float_ms_ssim ciede, 1080p 8-bit, $N frames"
FE="--feature psnr --feature float_ssim --feature float_ms_ssim --feature ciede"
row "libvmaf CPU --threads $T, v0.6.1 alone" $LV/vmaf-cpu -r r8.y4m -d d8.y4m -m version=vmaf_v0.6.1 --threads $T --json -o l0.json -q
row "libvmaf CPU --threads $T, + 4 features" $LV/vmaf-cpu -r r8.y4m -d d8.y4m -m version=vmaf_v0.6.1 $FE --threads $T --json -o l4.json -q
row "libvmaf CUDA, v0.6.1 alone" $LV/vmaf-cuda -r r8.y4m -d d8.y4m -m version=vmaf_v0.6.1 --json -o lc0.json -q
row "fovea cuda, v0.6.1 alone" $F vmaf -q --backend cuda r8.y4m d8.y4m --json f0.json
row "fovea cpu --threads $T, v0.6.1 alone" $F vmaf -q --backend cpu --threads $T r8.y4m d8.y4m --json f0c.json
row "fovea auto, + 4 features" $F vmaf -q --threads $T $FE r8.y4m d8.y4m --json f4.json
python3 -c "
import json; a=json.load(open('l4.json'))['pooled_metrics']; b=json.load(open('f4.json'))['pooled_metrics']
print('pooled equal (libvmaf AVX vs fovea plain-C-exact):', {k:(a[k]['mean']==b[k]['mean']) for k in a})"
