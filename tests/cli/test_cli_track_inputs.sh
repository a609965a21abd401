#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause-Patent
# `fovea track` takes an image sequence as a frame-number pattern
# (seq%04d.ppm) as diff and convert do, and refuses outputs over its files;
# its overlay is drawn over the input's colors; a y4m written from images
# (convert, diff, track) says the frame rate it assumes unless --fps or -q.
set -u
. "$(dirname "$0")/lib.sh" || exit 1
cli_test_setup test_cli_track_inputs python3

# 5 textured color frames, 160x120, moving 1 px right a frame: seq0000..0004.ppm
# and, numbered from 1, one1..one3.ppm
python3 - <<'PY' || fail "making the frames"
def frame(k):
    rows = []
    x = 7
    for y in range(120):
        for i in range(160):
            u = i - k
            x = (x * 1103515245 + 12345) & 0x7FFFFFFF
            t = 60 if ((u // 8) + (y // 8)) % 2 else 0
            rows.append(bytes(((40 + t + 3 * (u % 8) * 7) % 256, (90 + y) % 256,
                               (200 - t + (x >> 16) % 9) % 256)))
    return b"P6\n160 120\n255\n" + b"".join(rows)
for k in range(5):
    open("seq%04d.ppm" % k, "wb").write(frame(k))
for k in range(1, 4):
    open("one%d.ppm" % k, "wb").write(frame(k))
PY
for k in 0 1 2 3 4; do cp "seq000$k.ppm" "keep$k.ppm"; done

# ---- 11: the pattern is the whole sequence, as the quoted glob
run 0 track -q -n 20 -o pat.txt 'seq%04d.ppm'
grep -q "nFrames = 5, nFeatures = 20" pat.txt || fail "pattern: not 5 frames"
run 0 track -q -n 20 -o glob.txt 'seq*.ppm'
cmp -s pat.txt glob.txt || fail "pattern and glob track differently"
run 0 track -q -n 20 -o one.txt 'one%d.ppm'
grep -q "nFrames = 3, nFeatures = 20" one.txt || fail "pattern from 1: not 3 frames"
run 0 track -q -n 20 --start 2 --json start.json 'seq%04d.ppm'
json_ok start.json 'assert d["nFrames"] == 3, d["nFrames"]'
# no output over a file of the sequence (before anything is written)
run 2 track -q -n 20 -o x.txt --overlay 'seq%04d.ppm' 'seq%04d.ppm'
err_has "output is the same file as a file of input seq%04d.ppm" "overlay over the sequence"
run 2 track -q -n 20 -o seq0003.ppm 'seq%04d.ppm'
err_has "seq0003.ppm: output is the same file" "table over a file of the sequence"
[ -e x.txt ] && fail "refused run wrote its table"
for k in 0 1 2 3 4; do
    cmp -s "seq000$k.ppm" "keep$k.ppm" || fail "seq000$k.ppm changed"
done

# ---- 12: the overlay keeps the input's colors away from the features
run 0 track -q -n 20 --json f.json --overlay 'ov%d.ppm' 'seq%04d.ppm'
python3 - <<'PY' || fail "overlay colors"
import json
def ppm(path):
    b = open(path, "rb").read()
    parts = b.split(b"\n", 3)
    return parts[3]
d = json.load(open("f.json"))
src, ov = ppm("seq0000.ppm"), ppm("ov0.ppm")
feats = [(round(x), round(y)) for x, y, v in d["frames"][0]["features"] if v >= 0]
assert feats, "no features"
away = same = 0
for y in range(120):
    for x in range(160):
        if any(abs(x - fx) <= 1 and abs(y - fy) <= 1 for fx, fy in feats):
            continue
        away += 1
        same += src[3 * (160 * y + x):3 * (160 * y + x) + 3] == ov[3 * (160 * y + x):3 * (160 * y + x) + 3]
assert same == away, (same, away)
# and the picture is not gray
assert any(ov[i] != ov[i + 1] for i in range(0, len(ov), 3))
PY
# a y4m (i420) input: the overlay's chroma is the input's, not gray's 128
run 0 convert -q --fps 25 'seq%04d.ppm' c.y4m
run 0 track -q -n 20 -o t.txt --overlay o.ppm --frames 1 c.y4m
python3 - <<'PY' || fail "overlay of a y4m input is gray"
b = open("o.ppm", "rb").read().split(b"\n", 3)[3]
assert sum(abs(b[i] - b[i + 2]) for i in range(0, len(b), 3)) > 160 * 120 * 20
PY

# ---- 13: the assumed rate, once, unless --fps or -q
run 0 convert 'seq%04d.ppm' s.y4m
err_has "fovea: seq%04d.ppm: the input has no frame rate: the y4m output says 25 fps (set it with --fps)" "convert"
head -c 40 s.y4m | grep -q " F25:1 " || fail "convert: not 25 fps"
run 0 convert -q 'seq%04d.ppm' sq.y4m
[ -s err ] && fail "convert -q: stderr not empty"
run 0 convert --fps 30000/1001 'seq%04d.ppm' s30.y4m
grep -q "no frame rate" err && fail "convert --fps: the rate note"
head -c 40 s30.y4m | grep -q " F30000:1001 " || fail "convert --fps: not 30000/1001"
run 0 diff 'seq%04d.ppm' --heatmap h.y4m --mask m.y4m
[ "$(grep -c "the input has no frame rate" err)" -eq 1 ] || fail "diff: the note not once"
run 0 diff --fps 50 'seq%04d.ppm' --heatmap h50.y4m
head -c 40 h50.y4m | grep -q " F50:1 " || fail "diff --fps: not 50 fps"
run 0 track -n 20 -o t.txt --overlay o.y4m 'seq%04d.ppm'
[ "$(grep -c "the input has no frame rate" err)" -eq 1 ] || fail "track: the note not once"
run 0 track -q -n 20 -o t.txt --fps 12 --overlay o12.y4m 'seq%04d.ppm'
head -c 40 o12.y4m | grep -q " F12:1 " || fail "track --fps: not 12 fps"
# a PNG output holds no rate: no note; a single image takes no --fps
run 0 convert 'seq%04d.ppm' 'p%d.png'
grep -q "no frame rate" err && fail "convert to png: the rate note"
run 2 convert --fps 25 seq0000.ppm one.y4m
exit 0
