#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause-Patent
# `fovea convert` keeps the bit depth: 16-bit PPM <-> PNG round trips exactly,
# high-bit-depth YUV becomes 16-bit RGB, --pixfmt-out rgb48/rgba64 work, and a
# reduction the user forces is reported once on stderr.
set -u
. "$(dirname "$0")/lib.sh" || exit 1
cli_test_setup test_cli_depth python3

# quiet: the last run printed nothing on stderr
quiet() { [ -s err ] && fail "$1: unexpected stderr"; return 0; }

# png_ihdr FILE: "bitdepth colortype" from the IHDR chunk
png_ihdr() { od -An -tu1 -j24 -N2 "$1" | awk '{ print $1, $2 }'; }

# distinct16 FILE: number of distinct 16-bit samples in a P6 file with maxval 65535
distinct16() {
    python3 -c '
import sys
d = open(sys.argv[1], "rb").read()
head = d.split(b"\n", 3)
assert head[0] == b"P6" and head[2] == b"65535", head[:3]
raster = head[3]
print(len({raster[i] << 8 | raster[i + 1] for i in range(0, len(raster), 2)}))
' "$1"
}

W=64
H=48
# a 16-bit P6 with pseudo-random samples (an LCG, so the same every run)
python3 -c '
import sys
w, h = int(sys.argv[1]), int(sys.argv[2])
x = 12345
out = bytearray(b"P6\n%d %d\n65535\n" % (w, h))
for i in range(w * h * 3):
    x = (x * 1103515245 + 12345) % 2147483648
    v = x >> 15 & 0xffff
    out += bytes((v >> 8, v & 0xff))
open("x16.ppm", "wb").write(out)
' $W $H || fail "cannot generate x16.ppm"
n=$(distinct16 x16.ppm)
[ "$n" -gt 5000 ] || fail "x16.ppm: only $n distinct values"

# ---- 16-bit PPM -> PNG -> PPM is byte-identical, the PNG is 16-bit RGB
run 0 convert -q x16.ppm x.png
quiet "ppm -> png"
[ "$(png_ihdr x.png)" = "16 2" ] || fail "x.png: IHDR depth/color $(png_ihdr x.png), expected 16 2"
run 0 convert -q x.png back.ppm
quiet "png -> ppm"
cmp -s x16.ppm back.ppm || fail "16-bit ppm -> png -> ppm differs"
[ "$(distinct16 back.ppm)" -eq "$n" ] || fail "back.ppm lost distinct values"
run 0 convert -q --json sum.json x.png back2.ppm
grep -q '"pixfmt":[[:space:]]*"rgb48"' sum.json || fail "--json: input is not rgb48"
grep -q '"pixfmt_converted":[[:space:]]*false' sum.json || fail "--json: png -> ppm converted"

# ---- 10-bit y4m -> PNG / PPM keeps the depth (16-bit RGB), gray10 stays gray
python3 -c '
import sys
w, h, n = 16, 8, 3
x = 7
out = bytearray(b"YUV4MPEG2 W16 H8 F25:1 Ip A1:1 C420p10\n")
for f in range(n):
    out += b"FRAME\n"
    for i in range(w * h * 3 // 2):
        x = (x * 75 + 74) % 65537
        v = 64 + x % 877
        out += bytes((v & 0xff, v >> 8))
open("a10.y4m", "wb").write(out)
' || fail "cannot generate a10.y4m"
run 0 convert -q --frames 1 a10.y4m y10.png
quiet "10-bit y4m -> png"
[ "$(png_ihdr y10.png)" = "16 2" ] || fail "y10.png: IHDR $(png_ihdr y10.png), expected 16 2"
run 0 convert -q --frames 1 a10.y4m y10.ppm
quiet "10-bit y4m -> ppm"
[ "$(sed -n 3p y10.ppm | head -c 5)" = "65535" ] || fail "y10.ppm: maxval is not 65535"
# the 16-bit RGB holds more than 256 levels per channel
[ "$(distinct16 y10.ppm)" -gt 256 ] || fail "y10.ppm: 8-bit values in a 16-bit file"
run 0 convert -q --frames 1 --pixfmt-out gray10 a10.y4m g10.png
[ "$(png_ihdr g10.png)" = "16 0" ] || fail "g10.png: IHDR $(png_ihdr g10.png), expected 16 0"

# ---- --pixfmt-out rgb48 / rgb48le / rgba64 from 8-bit input: exact * 257
run 0 convert -q --pixfmt-out rgb24 --frames 1 a10.y4m rgb8.ppm
run 0 convert -q --pixfmt-out rgb48 rgb8.ppm up.png
quiet "--pixfmt-out rgb48"
[ "$(png_ihdr up.png)" = "16 2" ] || fail "up.png: IHDR $(png_ihdr up.png), expected 16 2"
run 0 convert -q --pixfmt-out rgb48le rgb8.ppm up.ppm
run 0 convert -q up.png up2.ppm
cmp -s up.ppm up2.ppm || fail "--pixfmt-out rgb48le differs from rgb48"
python3 -c '
import sys
a = open(sys.argv[1], "rb").read().split(b"\n", 3)[3]
b = open(sys.argv[2], "rb").read().split(b"\n", 3)[3]
assert len(b) == 2 * len(a)
assert all((b[2 * i] << 8 | b[2 * i + 1]) == a[i] * 257 for i in range(len(a)))
' rgb8.ppm up.ppm || fail "rgb24 -> rgb48 is not v * 257"
run 0 convert -q --pixfmt-out rgba64 x16.ppm xa.png
[ "$(png_ihdr xa.png)" = "16 6" ] || fail "xa.png: IHDR $(png_ihdr xa.png), expected 16 6"
run 0 convert -q xa.png xa.ppm
quiet "rgba64 png -> ppm"
cmp -s x16.ppm xa.ppm || fail "rgb48 -> rgba64 png -> ppm differs"
run 2 convert -q --pixfmt-out rgba64 x16.ppm bad.ppm  # PNM would drop alpha
run 2 convert -q --pixfmt-out rgb48be x16.ppm bad.png

# ---- 16-bit RGB into y4m: 16-bit 4:4:4, no warning
run 0 convert -q x.png x.y4m
quiet "rgb48 -> y4m"
head -n 1 x.y4m | grep -q 'C444p16' || fail "rgb48 -> y4m: header $(head -n 1 x.y4m)"

# ---- a forced reduction says so exactly once, and still succeeds
run 0 convert -q --pixfmt-out rgb24 x16.ppm r8.png
[ "$(png_ihdr r8.png)" = "8 2" ] || fail "r8.png: IHDR $(png_ihdr r8.png), expected 8 2"
[ "$(cat err)" = "fovea: r8.png: 16-bit samples reduced to 8 bits (rgb48 -> rgb24)" ] ||
    fail "rgb48 -> rgb24: expected one warning line"
run 0 convert -q --pixfmt-out rgb24 a10.y4m 'r%02d.png'  # three frames, one warning
[ -s r02.png ] || fail "pattern output r02.png missing"
[ "$(wc -l <err | tr -d ' ')" -eq 1 ] || fail "three frames: expected one warning line"
grep -qx 'fovea: r%02d.png: 10-bit samples reduced to 8 bits (i420p10 -> rgb24)' err ||
    fail "i420p10 -> rgb24: warning text"
run 0 convert -q --pixfmt-out i420 a10.y4m r8.y4m
[ "$(wc -l <err | tr -d ' ')" -eq 1 ] || fail "i420p10 -> i420: expected one warning line"

# ---- track reads 16-bit RGB as it reads the same 8-bit image (the high bytes)
python3 -c '
import math
w, h = 128, 96
out = bytearray(b"P6\n%d %d\n255\n" % (w, h))
for y in range(h):
    for x in range(w):
        v = int(127 + 120 * math.sin(x * 0.37) * math.cos(y * 0.29 + x * 0.05))
        out += bytes((v, v * 3 % 256, 255 - v))
open("t8.ppm", "wb").write(out)
' || fail "cannot generate t8.ppm"
run 0 convert -q --pixfmt-out rgb48 t8.ppm t16.png
run 0 track -q --backend cpu --json t8.json t8.ppm
run 0 track -q --backend cpu --json t16.json t16.png
python3 -c '
import json, sys
a = json.load(open(sys.argv[1]))["frames"][0]["features"]
b = json.load(open(sys.argv[2]))["frames"][0]["features"]
assert sum(1 for f in a if f[0] != -1) >= 10, "too few features to compare"
assert a == b, "rgb48 features differ from rgb24"
' t8.json t16.json || fail "track: rgb48 input tracked differently from rgb24"

echo "test_cli_depth: all passed"
exit 0
