#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause-Patent
# Files the user did not ask to replace (issue 45, items 1-5): no output may
# be any file the command reads (a model, a video a manifest lists, a file of
# an image sequence), no two outputs may name one file, an output that cannot
# be written fails before the work, and an interrupted run leaves no hidden
# temporary behind (the file it would have replaced stays as it was).
set -u
. "$(dirname "$0")/lib.sh" || exit 1
. "$(dirname "$0")/stream_lib.sh" || exit 1
cli_test_setup test_cli_outputs
command -v timeout >/dev/null 2>&1 || { echo "test_cli_outputs: timeout(1) not found: skipped"; exit 77; }
same() { cmp -s "$1" "$2" || fail "$1 changed ($3)"; }
# no_temps WHAT: no hidden file (a writer's temporary) in the directory
no_temps() {
    for f in .[!.]*; do
        [ -e "$f" ] && fail "$f left behind ($1)"
    done
    return 0
}
# absent FILE WHAT
absent() { [ ! -e "$1" ] || fail "$1 was written ($2)"; }

W=64
H=48
F=$((W * H * 3 / 2))
gen8 $((F * 3)) 21 >ref.yuv
gen8 $((F * 3)) 22 >dis.yuv
run 0 convert -q -s ${W}x${H} --pixfmt i420 ref.yuv ref.y4m
run 0 convert -q -s ${W}x${H} --pixfmt i420 dis.yuv dis.y4m
cp dis.y4m dis.copy
model="${FOVEA_SOURCE_DIR:?}/models/vmaf_v0.6.1.json"
cp "$model" m.json
cp m.json m.copy

# ---- 1. every file a command reads is an input
run 2 vmaf -q --model m.json --json m.json ref.y4m dis.y4m
err_has "m.json: output is the same file as input m.json" "vmaf --json over --model"
same m.json m.copy "vmaf --json over --model"
run 2 vmaf -q --model path=m.json --csv m.json ref.y4m dis.y4m
err_has "output is the same file as input m.json" "vmaf --csv over --model path="
same m.json m.copy "vmaf --csv over --model path="
printf 'ref,dis\nref.y4m,dis.y4m\n' >pairs.csv
run 2 vmaf -q --manifest pairs.csv --json-lines dis.y4m
err_has "dis.y4m: output is the same file as input dis.y4m" "--json-lines over a listed video"
same dis.y4m dis.copy "--json-lines over a listed video"
mkdir sub
cp ref.y4m dis.y4m sub/
printf '{"ref": "ref.y4m", "dis": "dis.y4m", "model": "m.json"}\n' >sub/pairs.jsonl
cp m.json sub/m.json
run 2 vmaf -q --manifest sub/pairs.jsonl --json-lines sub/m.json
err_has "sub/m.json: output is the same file as input sub/m.json" "--json-lines over a listed model"
same sub/m.json m.copy "--json-lines over a listed model"
run 2 vmaf -q --manifest pairs.csv --model m.json --json-lines m.json
same m.json m.copy "--json-lines over --model"
run 0 vmaf -q --manifest pairs.csv --json-lines lines.jsonl

# ---- 2. a pattern read and written: every file of the sequence is an input
run 0 convert -q ref.y4m seq%02d.png
for k in 00 01 02; do
    [ -f seq$k.png ] || fail "convert to seq%02d.png wrote no seq$k.png"
    cp seq$k.png seq$k.copy
done
run 2 convert -q seq%02d.png seq%02d.png --start 1
err_has "output is the same file as a file of input seq%02d.png" "convert pattern over itself"
run 2 convert -q --pixfmt-out gray8 seq%02d.png ./seq%02d.png
err_has "output is the same file as a file of input seq%02d.png" "convert pattern over ./itself"
for k in 00 01 02; do
    same seq$k.png seq$k.copy "convert pattern over itself"
done
run 0 convert -q --start 1 seq%02d.png other%02d.png

# ---- 3. two outputs naming one file
run 2 vif -q --json x.out --csv x.out ref.y4m dis.y4m
err_has "--json and --csv name the same file: x.out" "vif --json X --csv X"
absent x.out "vif --json X --csv X"
run 2 vmaf -q --json x.out --csv x.out ref.y4m dis.y4m
err_has "--json and --csv name the same file: x.out" "vmaf --json X --csv X"
absent x.out "vmaf --json X --csv X"
echo keep >k.json
cp k.json k.copy
ln -s k.json l.json
run 2 vif -q --json k.json --csv l.json ref.y4m dis.y4m
err_has "--json and --csv name the same file: l.json" "vif --json X --csv link-to-X"
same k.json k.copy "vif --json X --csv link-to-X"
# a character device may take several outputs
run 0 vif -q --json /dev/null --csv /dev/null ref.y4m dis.y4m
if [ "${FOVEA_HAVE_CAIRO:-}" = ON ]; then
    run 2 vmaf -q --json x.png --plot x.png ref.y4m dis.y4m
    err_has "--json and --plot name the same file: x.png" "vmaf --json X --plot X"
    absent x.png "vmaf --json X --plot X"
fi
run 2 convert -q ref.y4m o.y4m --json o.y4m
err_has "OUT and --json name the same file: o.y4m" "convert IN OUT --json OUT"
absent o.y4m "convert IN OUT --json OUT"
run 2 track -q --features 20 ref.y4m -o t.out --json t.out
err_has "-o and --json name the same file: t.out" "track -o X --json X"
absent t.out "track -o X --json X"

# camera FX YAW NAME, rig CAMERAS... > FILE: as test_cli_files.sh
camera() {
    printf '{"name": "%s", "width": 160, "height": 120, "model": "pinhole", "fx": %s,
      "fy": 120, "cx": 79.5, "cy": 59.5, "yaw": %s, "pitch": 0, "roll": 0}' "$3" "$1" "$2"
}
printf '{"panorama": {"projection": "equirectangular", "width": 320, "height": 120,
  "hfov": 100, "vfov": 40}, "blend": {"feather": 16}, "cameras": [%s, %s]}\n' \
    "$(camera 120 -20 left)" "$(camera 120 20 right)" >rig.json
CF=$((160 * 120 * 3 / 2))
gen8 $((CF * 2)) 3 >c0.yuv
gen8 $((CF * 2)) 4 >c1.yuv
run 0 convert -q -s 160x120 --pixfmt i420 c0.yuv cam0.y4m
run 0 convert -q -s 160x120 --pixfmt i420 c1.yuv cam1.y4m
run 2 stitch -q --rig rig.json cam0.y4m cam1.y4m --color off -o s.y4m --json s.y4m
err_has "-o and --json name the same file: s.y4m" "stitch -o X --json X"
absent s.y4m "stitch -o X --json X"
run 2 rig check -q rig.json --json r.png --png r.png
err_has "--json and --png name the same file: r.png" "rig check --json X --png X"
absent r.png "rig check --json X --png X"
run 2 rig check -q rig.json --save-map r.png --png r.png
err_has "--png and --save-map name the same file: r.png" "rig check --save-map X --png X"
absent r.png "rig check --save-map X --png X"
if [ "${FOVEA_HAVE_STREAM:-ON}" = ON ]; then
    run 2 receive 127.0.0.1:9 -o x.y4m --stats x.y4m
    err_has "-o and --stats name the same file: x.y4m" "receive -o X --stats X"
fi
no_temps "refused runs"

# ---- 5. an output that cannot be written fails before the work: REF is a
# FIFO nobody writes, so a run that opened it first would never end
mkfifo never.fifo
for cmd in vif vmaf; do
    for opt in --json --csv; do
        timeout 30 "$FOVEA_CLI" $cmd -q --in-format y4m $opt nodir/x.out never.fifo dis.y4m \
            >out 2>err
        st=$?
        [ $st -eq 1 ] || fail "$cmd $opt nodir/x.out: exit status $st, expected 1 at once"
        err_has "nodir/x.out: No such file or directory" "$cmd $opt into a missing directory"
    done
done

# ---- 4. SIGINT / SIGTERM remove fovea's temporaries; the old output stays.
# The input is a FIFO fed 3 frames and then held open: the command waits for
# a 4th frame with its output's temporary open.
echo "old output" >keep.y4m
cp keep.y4m keep.copy
echo "old json" >keep.json
cp keep.json keep.copy2
rm -f feed.fifo
mkfifo feed.fifo
gen8 $((F * 6)) 23 >dis6.yuv
run 0 convert -q -s ${W}x${H} --pixfmt i420 dis6.yuv dis6.y4m
# interrupt SIG WHAT CMD ARGS...: run fovea CMD ARGS (reading feed.fifo) in the
# background, send SIG once a temporary exists, check it died of SIG and left
# no temporary
interrupt() {
    sig=$1
    what=$2
    shift 2
    sh -c 'cat ref.y4m; exec sleep 60' >feed.fifo &
    feeder=$!
    sender_pid=
    if [ "$1" = receive ]; then
        # the sender reads the FIFO; the receiver is interrupted
        start_sender snd --in-format y4m feed.fifo --listen 127.0.0.1:0 --clients 1 -q
        shift
        set -- receive "127.0.0.1:$port" "$@"
    fi
    # a background job of a shell without job control starts with SIGINT
    # ignored: give it the default action, as a terminal's job has
    timeout 60 env --default-signal=INT "$FOVEA_CLI" "$@" >run.out 2>run.err &
    pid=$!
    i=0
    while [ $i -lt 200 ]; do
        ls -A | grep -q '^\.' && break
        sleep 0.05
        i=$((i + 1))
    done
    [ $i -lt 200 ] || fail "$what: no temporary appeared: $(cat run.err)"
    sleep 0.2
    kill -s "$sig" $pid
    wait $pid
    st=$?
    kill $feeder $sender_pid 2>/dev/null
    wait $feeder $sender_pid 2>/dev/null
    [ $st -ne 0 ] || fail "$what: exit status 0 after SIG$sig"
    [ $st -ne 124 ] || fail "$what: SIG$sig did not end the run"
    no_temps "$what, SIG$sig"
    same keep.y4m keep.copy "$what, SIG$sig"
    same keep.json keep.copy2 "$what, SIG$sig"
}
if env --default-signal=INT true 2>/dev/null; then
    sigs="INT TERM"
else
    sigs=TERM
fi
for sig in $sigs; do
    interrupt $sig "convert" convert -q --in-format y4m feed.fifo keep.y4m
    interrupt $sig "diff" diff -q --in-format y4m feed.fifo --heatmap keep.y4m
    interrupt $sig "vif --json" vif -q --in-format y4m --json keep.json feed.fifo dis6.y4m
    if [ "${FOVEA_HAVE_STREAM:-ON}" = ON ]; then
        interrupt $sig "receive" receive -q -o keep.y4m
    fi
done
exit 0
