#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause-Patent
# `fovea vif --plot`: the name is checked before any work (only .png, any case),
# the chart is a valid PNG of 1200x500 (header, chunk CRCs, image data size),
# an unwritable name fails cleanly; without cairo --plot is refused with a
# message and the chart checks are skipped.
set -u
. "$(dirname "$0")/lib.sh" || exit 1
# the PNG check parses the file with python3 (scripts/deps.sh installs it)
cli_test_setup test_cli_vif_plot python3

# png_check FILE W H: a PNG whose chunks' CRCs hold and whose image data
# inflates to H rows of W pixels (RGB or RGBA, 8 bits)
png_check() {
    python3 - "$1" "$2" "$3" <<'PY' || fail "$1 is not a valid ${2}x${3} PNG"
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
w, h = int(sys.argv[2]), int(sys.argv[3])
assert data[:8] == b"\x89PNG\r\n\x1a\n", "magic"
pos, idat, ihdr = 8, b"", None
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    assert struct.unpack(">I", data[pos + 8 + n:pos + 12 + n])[0] == zlib.crc32(kind + body), kind
    if kind == b"IHDR":
        ihdr = struct.unpack(">IIBBBBB", body)
    elif kind == b"IDAT":
        idat += body
    pos += 12 + n
    if kind == b"IEND":
        break
assert pos == len(data), "bytes after IEND"
assert ihdr and ihdr[0] == w and ihdr[1] == h, f"size {ihdr}"
assert ihdr[2] == 8 and ihdr[3] in (2, 6), f"depth/color {ihdr}"
ch = 3 if ihdr[3] == 2 else 4
assert len(zlib.decompress(idat)) == h * (1 + w * ch), "image data size"
PY
}

W=48
H=32
F=$((W * H * 3 / 2))
gen8 $((F * 4)) 21 >ref.yuv
gen8 $((F * 4)) 22 >dis.yuv
run 0 convert -q -s ${W}x${H} --pixfmt i420 ref.yuv ref.y4m
run 0 convert -q -s ${W}x${H} --pixfmt i420 dis.yuv dis.y4m

if [ "${FOVEA_HAVE_CAIRO:-}" != ON ]; then
    # a build without cairo refuses --plot before any work, whatever the name
    run 2 vif -q --json o.json --plot p.png ref.y4m dis.y4m
    [ "$(head -n 1 err)" = "fovea: --plot needs a build with cairo (libcairo2-dev)" ] ||
        fail "no-cairo message: $(cat err)"
    [ ! -e p.png ] && [ ! -e o.json ] || fail "a refused --plot wrote files"
    run 0 vif -q --json o.json ref.y4m dis.y4m
    echo "test_cli_vif_plot: built without cairo: refusal checked, chart checks skipped"
    exit 77
fi

# ---- names: only .png, refused as a usage error before anything is read
run 2 vif -q --json o.json --csv o.csv --plot p.jpg ref.y4m dis.y4m
[ "$(head -n 1 err)" = "fovea: p.jpg: --plot writes PNG: use a .png name" ] ||
    fail "--plot p.jpg message: $(cat err)"
[ ! -e p.jpg ] && [ ! -e o.json ] && [ ! -e o.csv ] || fail "a refused --plot wrote files"
[ ! -s out ] || fail "a refused --plot printed: $(cat out)"
run 2 vif -q --plot p.jpg missing-ref.y4m missing-dis.y4m
grep -q -- "p.jpg: --plot writes PNG" err || fail "--plot checked after opening the inputs: $(cat err)"
for bad in png p.png.jpg p.pn p.png/ .pngx p_png; do
    run 2 vif -q --plot "$bad" ref.y4m dis.y4m
    grep -q -- "--plot writes PNG: use a .png name" err || fail "--plot $bad: $(cat err)"
    [ ! -e "$bad" ] || fail "--plot $bad wrote a file"
done

# ---- the chart: 1200x500, any case of .png, next to the other outputs
run 0 vif --csv o.csv --plot p.PNG ref.y4m dis.y4m
grep -q "^vif: 4 frames ${W}x${H} 8-bit" out || fail "summary: $(cat out)"
png_check p.PNG 1200 500
[ "$(od -An -tu1 -j16 -N8 p.PNG | tr -s ' ' | sed 's/^ //')" = "0 0 4 176 0 0 1 244" ] ||
    fail "p.PNG: IHDR is not 1200x500"
run 0 vif -q --plot=q.Png --frames 1 ref.y4m dis.y4m
png_check q.Png 1200 500
run 0 vif -q --plot .png ref.y4m dis.y4m
png_check .png 1200 500
# the same scores draw the same chart
run 0 vif -q --plot p2.png ref.y4m dis.y4m
cmp -s p.PNG p2.png || fail "two charts of the same scores differ"

# ---- an unwritable name: exit 1 with the name, no partial file
run 1 vif -q --plot no-such-dir/p.png ref.y4m dis.y4m
grep -q "^fovea: no-such-dir/p.png: .*No such file or directory" err || fail "unwritable: $(cat err)"
[ ! -e no-such-dir ] || fail "unwritable: a directory was made"

echo "test_cli_vif_plot: ok"
