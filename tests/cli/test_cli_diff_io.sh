#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause-Patent
# `fovea diff` in pipes and on files it must not harm: y4m from stdin to
# stdout (also through real pipes), each map written before the next input
# frame arrives, FIFO inputs and outputs (written in place, no extension ->
# y4m), outputs that are an input refused (names, links, sequence files),
# and the errors: empty, one-frame, truncated and unreadable inputs, images
# of different sizes, formats the overlay cannot paint, bad options.
set -u
. "$(dirname "$0")/lib.sh" || exit 1
cli_test_setup test_cli_diff_io python3
ref="$(cd "$(dirname "$0")" && pwd)/diff_ref.py"
PYTHONPATH="$(dirname "$ref")"
export PYTHONPATH
python3 "$ref" make . || fail "diff_ref.py make"

check() {
    python3 "$ref" check "$@" >check.txt 2>&1 || { cat check.txt >&2; fail "outputs of: fovea diff $*"; }
}

# ---- stdin -> stdout, and the other outputs beside it
"$FOVEA_CLI" diff -q - --heatmap - --mask m.y4m <square.y4m >h.y4m 2>err || fail "stdin -> stdout"
[ ! -s err ] || fail "stdin -> stdout: stderr: $(cat err)"
check square.y4m --heatmap h.y4m --mask m.y4m
# through pipes on both sides, summary on stderr (stdout carries the video)
cat square.y4m | "$FOVEA_CLI" diff - --noise - --noise-mode overlay 2>/dev/null | cat >n.y4m ||
    fail "pipe | fovea diff | pipe"
check square.y4m --noise n.y4m --noise-mode overlay
"$FOVEA_CLI" diff - --heatmap - <square.y4m >/dev/null 2>err || fail "summary run"
grep -q "^diff: 4 maps of 21x13 i420" err || fail "summary not on stderr: $(cat err)"

# raw yuv in: the geometry and rate from the options, carried to the y4m
python3 -c "
data = open('square.y4m', 'rb').read()
pos, n = data.index(b'\n') + 1, 21 * 13 + 2 * 11 * 7
open('square.yuv', 'wb').write(b''.join(data[pos + k * (6 + n) + 6:pos + (k + 1) * (6 + n)]
                                        for k in range(5)))"
run 0 diff -q -s 21x13 --pixfmt i420 --fps 30 square.yuv --heatmap raw.y4m --mask rawm.y4m
check square.y4m --heatmap raw.y4m --mask rawm.y4m
head -n 1 raw.y4m | grep -q " F30:1 " || fail "raw input: rate not carried: $(head -n 1 raw.y4m)"
run 2 diff -q square.yuv --heatmap raw.y4m
err_has "raw input needs --width and --height" "raw input without geometry"

# ---- streaming: the first map comes out before the third frame goes in
python3 - "$FOVEA_CLI" <<'PY' || fail "maps are not written as soon as they are made"
import select, subprocess, sys
data = open("square.y4m", "rb").read()
head = data.index(b"\n") + 1
frame = 6 + 21 * 13 + 2 * 11 * 7
p = subprocess.Popen([sys.argv[1], "diff", "-q", "-", "--heatmap", "-"], stdin=subprocess.PIPE,
                     stdout=subprocess.PIPE)
p.stdin.write(data[:head + 2 * frame])
p.stdin.flush()
want = len(b"YUV4MPEG2 W21 H13 F25:1 Ip A1:1 C420jpeg XCOLORRANGE=LIMITED\n") + frame
got = b""
while len(got) < want:
    r, _, _ = select.select([p.stdout], [], [], 30)
    assert r, "no map within 30 s of the second frame (got %d bytes)" % len(got)
    chunk = p.stdout.read1(want - len(got))
    assert chunk, "output ended early"
    got += chunk
p.stdin.write(data[head + 2 * frame:])
p.stdin.close()
rest = p.stdout.read()
assert p.wait() == 0
open("stream.y4m", "wb").write(got + rest)
PY
check square.y4m --heatmap stream.y4m

# ---- FIFOs: read from one, written into one in place (no extension: y4m)
if mkfifo in.fifo out.fifo 2>/dev/null; then
    cat square.y4m >in.fifo &
    cat out.fifo >fifo.y4m &
    reader=$!
    run 0 diff -q in.fifo --heatmap out.fifo --json f.json
    wait $reader
    [ -p out.fifo ] || fail "the FIFO output was replaced"
    check square.y4m --heatmap fifo.y4m --json f.json
else
    echo "test_cli_diff_io: mkfifo failed: FIFO checks skipped"
fi
# /dev/null takes y4m too
run 0 diff -q square.y4m --heatmap /dev/null --noise /dev/null --mask /dev/null

# ---- outputs that are an input: refused before anything is written
cp square.y4m keep.y4m
cp grad000.png keep.png
same_cases="--heatmap square.y4m
--noise ./square.y4m
--mask square.y4m
--json square.y4m"
# without cairo --plot is refused before the outputs are checked
if "$FOVEA_CLI" info | grep -q 'charts (--plot) with cairo'; then
    same_cases="$same_cases
--plot square.y4m.png --heatmap square.y4m"
fi
old_ifs=$IFS
IFS='
'
for args in $same_cases; do
    IFS=$old_ifs
    # shellcheck disable=SC2086
    run 2 diff -q square.y4m $args
    err_has "output is the same file as input" "$args"
done
ln square.y4m hard.y4m && { run 2 diff -q square.y4m --heatmap hard.y4m; err_has "same file" "hard link"; }
ln -s square.y4m soft.y4m && { run 2 diff -q square.y4m --noise soft.y4m; err_has "same file" "symlink"; }
# an image sequence: any of its files
run 2 diff -q grad%03d.png --heatmap grad%03d.png
err_has "grad000.png: output is the same file as a file of input grad%03d.png" "pattern over itself"
run 2 diff -q grad%03d.png --noise ./grad%03d.png
run 2 diff -q grad%03d.png --mask grad002.png --frames 1
err_has "grad002.png: output is the same file" "a file of the sequence"
run 2 diff -q grad%03d.png --json grad003.png
mkdir links && ln -s ../grad001.png links/x1.png
run 2 diff -q grad%03d.png --heatmap g%03d.y4m --noise links/x%d.png
err_has "links/x1.png: output is the same file as a file of input" "a link to a file of the sequence"
cmp -s square.y4m keep.y4m && cmp -s grad000.png keep.png || fail "an input was changed"
[ ! -e g%03d.y4m ] || fail "a refused run wrote an output"
# two outputs in one file, two on stdout
run 2 diff -q square.y4m --heatmap x.y4m --noise x.y4m
err_has "--heatmap and --noise name the same file" "same output twice"
run 2 diff -q square.y4m --heatmap - --mask -
err_has "only one output can go to stdout" "two on stdout"
[ ! -e x.y4m ] || fail "a refused run wrote x.y4m"

# ---- input errors: exit 1 with the reason
python3 - <<'PY' || fail "making the bad inputs"
import diff_ref as r
frames, _ = r.read_y4m("square.y4m")
r.write_y4m("one.y4m", frames[:1])
open("empty.y4m", "wb").write(open("square.y4m", "rb").read().split(b"\n")[0] + b"\n")
data = open("square.y4m", "rb").read()
open("trunc.y4m", "wb").write(data[:-50])
for k in range(3):
    f = r.new_frame("rgb24", 8 if k < 2 else 9, 6)
    for c in range(3):
        for y in range(6):
            for x in range(f["w"]):
                f["p"][c][y][x] = 10 + 20 * k + x + y + c
    r.write_png("mix%d.png" % k, f)
r.write_png("single0.png", f)
PY
run 1 diff -q one.y4m --heatmap o.y4m
err_has "one.y4m: one frame: diff needs at least 2 frames" "one frame"
[ ! -e o.y4m ] || fail "one frame: an output was written"
run 1 diff -q - --heatmap o.y4m <one.y4m
err_has "stdin: one frame: diff needs at least 2 frames" "one frame on stdin"
[ ! -e o.y4m ] || fail "one frame on stdin: an output was left"
run 1 diff -q single%d.png --heatmap o%d.png
err_has "one frame" "one-image sequence"
run 1 diff -q empty.y4m --json e.json
err_has "no frames in the input" "empty input"
run 1 diff -q - --json e.json <empty.y4m
err_has "no frames in the input" "empty stdin"
[ ! -e e.json ] || fail "empty input: JSON written"
run 1 diff -q trunc.y4m --heatmap t.y4m --json t.json
err_has "trunc.y4m: frame 4: truncated" "truncated input"
[ ! -e t.y4m ] && [ ! -e t.json ] || fail "truncated input: outputs left"
echo old >t.y4m
run 1 diff -q trunc.y4m --heatmap t.y4m
[ "$(cat t.y4m)" = old ] || fail "a failed run replaced an existing output"
run 1 diff -q - --heatmap - <trunc.y4m
err_has "stdin: frame 4: truncated" "truncated stdin"
run 1 diff -q mix%d.png --heatmap x%d.png
err_has "mix2.png: frame 2 is 9x6 rgb24 but the sequence mix%d.png is 8x6 rgb24" "mixed sizes"
run 1 diff -q missing.y4m
err_has "missing.y4m: No such file or directory" "missing input"
run 1 diff -q nothing%03d.png
err_has "no image of the sequence" "missing sequence"
mkdir adir.y4m
run 1 diff -q adir.y4m
err_has "adir.y4m: is a directory" "directory input"
run 1 diff -q noisy%02d.pgm --noise n.y4m --noise-mode overlay
err_has "gray8: --noise-mode overlay paints over the input frames" "overlay of gray"
run 0 diff -q noisy%02d.pgm --noise n.y4m

# ---- usage errors: exit 2 with the option named
usage() {
    # shellcheck disable=SC2068
    run 2 diff -q $@
    grep -q "Try 'fovea diff --help'" err || grep -q "^fovea: " err || fail "no message for: $*"
}
usage square.y4m --tile 12
err_has "--tile: expected 8, 16, 32 or 64" "--tile 12"
usage square.y4m --tile 128
usage square.y4m --denoise blur
err_has "--denoise: expected none, median3, gauss5 or temporal:S" "--denoise blur"
usage square.y4m --denoise temporal:256
usage square.y4m --denoise temporal:x
usage square.y4m --threshold -1
usage square.y4m --threshold high
usage square.y4m --auto-k 0
usage square.y4m --auto-k 1001
usage square.y4m --normalize -1
usage square.y4m --measure mean
usage square.y4m --noise-mode red
usage square.y4m --frames -3
usage square.y4m --backend fpga
usage square.y4m --bogus
usage
err_has "expected one input" "no input"
usage square.y4m square.y4m
usage square.y4m --heatmap one.png
err_has "png holds one image" "several maps into one PNG"
usage square.y4m --plot -
usage square.y4m --json - --heatmap -
echo "test_cli_diff_io: ok"
