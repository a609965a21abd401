#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause-Patent
# `fovea diff` on golden frames with known answers (a single changed pixel, a
# moving square on an odd-sized i420 frame, gradients, sensor noise, rgba):
# every heat map, noise map (both modes) and mask compared byte for byte, and
# every JSON number exactly, with tests/cli/diff_ref.py (an independent
# reference of docs/diff.md) for every denoise filter, --threshold auto,
# --measure, --normalize, --tile and --frames; plus the hand-computed numbers
# of the single pixel, the summary, progress, --quiet and --plot.
set -u
. "$(dirname "$0")/lib.sh" || exit 1
cli_test_setup test_cli_diff python3
ref="$(cd "$(dirname "$0")" && pwd)/diff_ref.py"
PYTHONPATH="$(dirname "$ref")"
export PYTHONPATH
python3 "$ref" make . || fail "diff_ref.py make"

# diff_ok OPTIONS...: fovea diff -q OPTIONS, then the reference's check of
# every output named in OPTIONS
diff_ok() {
    run 0 diff -q "$@"
    python3 "$ref" check "$@" >check.txt 2>&1 || { cat check.txt >&2; fail "outputs of: fovea diff $*"; }
}

# ---- a single changed pixel: (13, 5) of a 20x12 rgb24 pair moves by
# (+30, -20, +5): SUM 55, MAX 30
run 0 diff pixel%d.ppm --heatmap h%d.png --noise n%d.ppm --mask m%d.pgm --json p.json --tile 8 \
    --normalize 0
out_has "diff: 1 map of 20x12 rgb24: 0.417% of pixels and 16.667% of 8x8 tiles changed (threshold 10), mean difference 0.229, max 55" "summary"
json_ok p.json '
m = d["maps"][0]
assert (m["map"], m["prev_frame"], m["frame"]) == (0, 0, 1)
assert m["changed_pixels"] == 1 and m["changed_pixel_fraction"] == 1 / 240
assert m["changed_tiles"] == 1 and m["changed_tile_fraction"] == 1 / 6
assert m["mean_diff"] == 55 / 240 and m["max_diff"] == 55
assert m["noise_sigma"] == 0 and m["threshold"] == 10
assert d["width"] == 20 and d["height"] == 12 and d["pixfmt"] == "rgb24"
assert (d["tiles_x"], d["tiles_y"]) == (3, 2)
assert d["totals"]["maps"] == 1 and d["totals"]["frames"] == 2
assert d["settings"] == {"measure": "sum", "threshold": 10, "auto_k": 3, "tile": 8,
                         "denoise": "none", "normalize": 0, "noise_mode": "black"}, d["settings"]
assert d["outputs"] == {"heatmap": "h%d.png", "noise": "n%d.ppm", "mask": "m%d.pgm"}
assert d["backend"] in ("cpu", "cuda") and d["fps"] > 0'
[ -f h0.png ] && [ -f n0.ppm ] && [ -f m0.pgm ] && [ ! -e h1.png ] || fail "one map per output expected"
# the heat map: blue everywhere but (13, 5), whose table index is
# (55 * 1023 + 382) / 765 = 74: d = 74/1023, sin(pi d) = 0.2253 -> G 57,
# cos(pi d) = 0.9743 -> B 248; the noise map red there only;
# the mask 3x2, tile (1, 0) changed
python3 - <<'PY' || fail "single pixel maps"
import diff_ref as r
h = r.read_png("h0.png")
n = r.read_pnm("n0.ppm")
m = r.read_pnm("m0.pgm")
assert r.HEAT[74] == [0, 57, 248], r.HEAT[74]
for y in range(12):
    for x in range(20):
        px = [h["p"][c][y][x] for c in range(3)]
        nz = [n["p"][c][y][x] for c in range(3)]
        if (x, y) == (13, 5):
            assert px == [0, 57, 248], px
            assert nz == [255, 0, 0], nz
        else:
            assert px == [0, 0, 255], (x, y, px)
            assert nz == [0, 0, 0], (x, y, nz)
assert m["fmt"] == "gray8" and (m["w"], m["h"]) == (3, 2)
assert m["p"][0] == [[0, 255, 0], [0, 0, 0]], m["p"][0]
PY
python3 "$ref" check pixel%d.ppm --heatmap h%d.png --noise n%d.ppm --mask m%d.pgm --json p.json \
    --tile 8 --normalize 0 >check.txt 2>&1 || { cat check.txt >&2; fail "single pixel against the reference"; }
# the default scale is a quarter of the full one (192 for the SUM of rgb24),
# so the same pixel shows beyond blue: index (55 * 1023 + 96) / 192 = 293,
# d = 293/1023: sin(pi d) = 0.7832 -> G 200, cos(pi d) = 0.6218 -> B 159
diff_ok pixel%d.ppm --heatmap hq.png --json q.json
json_ok q.json 'assert d["settings"]["normalize"] == "quarter", d["settings"]'
diff_ok pixel%d.ppm --heatmap hq2.png --normalize quarter
cmp -s hq.png hq2.png || fail "--normalize quarter is not the default"
python3 - <<'PY' || fail "default heat-map scale"
import diff_ref as r
h = r.read_png("hq.png")
assert r.HEAT[293] == [0, 200, 159], r.HEAT[293]
assert [h["p"][c][5][13] for c in range(3)] == [0, 200, 159]
PY
# the threshold is strict: MAX 30 changes nothing at 30, the pixel at 29
run 0 diff -q pixel%d.ppm --json p30.json --threshold 30
json_ok p30.json 'assert d["maps"][0]["changed_pixels"] == 0 and d["maps"][0]["changed_tiles"] == 0'
run 0 diff -q pixel%d.ppm --json p29.json --threshold 29 --measure max
json_ok p29.json 'assert d["maps"][0]["changed_pixels"] == 1 and d["settings"]["measure"] == "max"'
# --normalize 55: the pixel at the top of the table (red), a single map to one PNG
diff_ok pixel%d.ppm --heatmap top.png --normalize 55
python3 -c "
import diff_ref as r
h = r.read_png('top.png'); assert [h['p'][c][5][13] for c in range(3)] == [255, 0, 0]" ||
    fail "--normalize 55: the pixel is not red"

# ---- the moving square (i420 21x13, 5 frames -> 4 maps), y4m outputs
diff_ok square.y4m --heatmap h.y4m --noise n.y4m --mask m.y4m --json s.json --tile 8
head -n 1 h.y4m | grep -q "^YUV4MPEG2 W21 H13 F25:1 Ip A1:1 C420jpeg XCOLORRANGE=LIMITED$" ||
    fail "heat map y4m header: $(head -n 1 h.y4m)"
head -n 1 m.y4m | grep -q "^YUV4MPEG2 W3 H2 F25:1 Ip .* Cmono" || fail "mask y4m header: $(head -n 1 m.y4m)"
expect_size h.y4m $(( $(head -n 1 h.y4m | wc -c) + 4 * (6 + 21 * 13 + 2 * 11 * 7) ))
for mode in black overlay; do
    for dn in none median3 gauss5 temporal temporal:0 temporal:255 temporal:77; do
        diff_ok square.y4m --heatmap h.y4m --noise n.y4m --noise-mode "$mode" --mask m.y4m \
            --json s.json --tile 8 --denoise "$dn"
    done
done
json_ok s.json 'assert d["settings"]["denoise"] == "temporal" and d["settings"]["temporal_strength"] == 77'
# the same maps as images
diff_ok square.y4m --heatmap h%03d.png --noise n%03d.png --mask m%03d.png --tile 16 \
    --measure max --normalize 100
[ -f h003.png ] && [ ! -e h004.png ] || fail "4 maps as h000..h003.png expected"
diff_ok square.y4m --heatmap h.y4m --frames 2 --json f.json
json_ok f.json 'assert len(d["maps"]) == 2 and d["totals"]["frames"] == 3'

# ---- gradients (PNG sequence): every difference 0..192 per channel
for t in 64 32; do
    diff_ok grad%03d.png --heatmap g%d.png --noise g.y4m --mask gm.y4m --json g.json --tile $t
done
diff_ok grad%03d.png --heatmap g.y4m --measure max --normalize 200 --threshold 0 --json g.json
diff_ok grad%03d.png --heatmap g%d.ppm --normalize 1 --denoise gauss5 --json g.json

# ---- sensor noise (gray8 PGM): the automatic threshold follows sigma
for dn in none median3 gauss5 temporal:128; do
    diff_ok noisy%02d.pgm --heatmap h.y4m --noise n%d.png --mask m.y4m --json a.json --tile 8 \
        --threshold auto --auto-k 2.5 --denoise "$dn"
done
json_ok a.json '
assert d["settings"]["threshold"] == "auto" and d["settings"]["auto_k"] == 2.5
assert all(m["noise_sigma"] > 0 and m["threshold"] > 0 for m in d["maps"])
assert d["totals"]["threshold_min"] < d["totals"]["threshold_max"]'
diff_ok noisy%02d.pgm --json a.json --threshold auto

# ---- rgba numbered from 1: the overlay keeps alpha and the format
diff_ok rgba%d.png --noise-mode overlay --noise o%d.png --heatmap h.y4m --json r.json --tile 64
python3 -c "
import diff_ref as r
o = r.read_png('o1.png'); assert o['fmt'] == 'rgba' and o['p'][3][2][1] == 103" ||
    fail "overlay: not rgba, or alpha lost"

# ---- the same bytes at any thread count, and on the CUDA backend where a
# device is present
for t in 1 2 3; do
    diff_ok square.y4m --heatmap h.y4m --noise n%d.png --mask m.y4m --json s.json --tile 8 \
        --denoise median3 --threads $t
done
run 0 info --json
if python3 -c "import json, sys; d = json.load(open('out')); sys.exit(0 if d['build']['cuda'] and d['devices'] else 1)"; then
    for dn in none median3 gauss5 temporal:100; do
        for mode in black overlay; do
            diff_ok square.y4m --backend cuda --heatmap h.y4m --noise n.y4m --noise-mode $mode \
                --mask m.y4m --json s.json --tile 8 --denoise $dn --threshold auto
        done
        diff_ok grad%03d.png --backend cuda --heatmap g%d.png --noise gn%d.png --mask gm.y4m \
            --json g.json --tile 32 --denoise $dn --normalize 300
        diff_ok noisy%02d.pgm --backend cuda --heatmap h.y4m --mask m%d.png --json a.json \
            --threshold auto --denoise $dn
    done
    diff_ok rgba%d.png --backend cuda --noise-mode overlay --noise o%d.png --heatmap h.y4m \
        --json r.json
    json_ok r.json 'print("test_cli_diff: CUDA context, differencing backend:", d["backend"])'
else
    echo "test_cli_diff: no CUDA device: --backend cuda not run"
fi

# ---- summary, --quiet, progress
run 0 diff square.y4m --json s.json
out_match "^diff: 4 maps of 21x13 i420: .* (\(cpu\|cuda\), [0-9]* threads\?, .* fps)$" "summary"
[ ! -s err ] || fail "stderr not empty: $(cat err)"
run 0 diff -q square.y4m --json s.json
[ ! -s out ] && [ ! -s err ] || fail "--quiet printed"
run 0 diff square.y4m --json -
json_ok out 'assert len(d["maps"]) == 4'
err_has "diff: 4 maps" "summary on stderr when --json - takes stdout"
FOVEA_PROGRESS=1 "$FOVEA_CLI" diff square.y4m --heatmap h.y4m >out 2>err || fail "progress run"
err_has "frame 4/4" "progress"
run 0 diff --help
out_has "--denoise" "help"
out_has "temporal:S" "help"
out_has "fovea diff - --heatmap - | ffplay -" "help example"

# ---- --plot
if [ "${FOVEA_HAVE_CAIRO:-}" = ON ]; then
    run 0 diff -q noisy%02d.pgm --plot plot.png --threshold auto
    [ "$(od -An -tu1 -j16 -N8 plot.png | tr -s ' ' | sed 's/^ //')" = "0 0 4 176 0 0 1 244" ] ||
        fail "plot.png is not a 1200x500 PNG"
    run 0 diff -q noisy%02d.pgm --plot plot2.png --threshold auto
    cmp -s plot.png plot2.png || fail "two plots of the same numbers differ"
    run 2 diff -q noisy%02d.pgm --plot plot.jpg
    err_has "--plot writes PNG" "--plot name"
else
    run 2 diff -q square.y4m --plot p.png
    err_has "--plot needs a build with cairo" "no cairo"
fi
echo "test_cli_diff: ok"
