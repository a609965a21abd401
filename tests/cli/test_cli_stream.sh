#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause-Patent
# `fovea send` / `fovea receive` on loopback: T = 0 gives the input back byte
# for byte (8-bit and 10-bit 4:2:0, 4:4:4, gray, odd sizes, tiles 8 and 16,
# stdin, stdout), T > 0 keeps every sample of every frame within T, the --stats
# JSON of both sides, and the errors (usage, addresses, a broken input).
set -u
. "$(dirname "$0")/lib.sh" || exit 1
. "$(dirname "$0")/stream_lib.sh" || exit 1
stream_setup test_cli_stream

# ---- lossless: four formats at odd sizes, keyframes every 5 frames
for spec in "420 8 37 23 16" "420 10 33 19 8" "444 8 29 17 16" "mono 8 31 21 8"; do
    # shellcheck disable=SC2086
    set -- $spec
    $py gen "$1" "$2" "$3" "$4" 12 7 in.y4m || fail "gen $spec"
    start_sender s in.y4m --listen 127.0.0.1:0 --clients 1 --keyframe 5 --tile "$5" \
        --stats s.json -q
    receive 0 r -o out.y4m --stats r.json -q
    wait_sender 0
    cmp -s in.y4m out.y4m || fail "$spec: the received y4m differs from the input"
    json_ok s.json "t = d['totals']
assert t['frames'] == 12 and t['keyframes'] == 3, t
assert [f['frame'] for f in d['frames'] if f['keyframe']] == [0, 5, 10]
assert all(f['tiles_sent'] <= f['tiles_changed'] or f['keyframe'] for f in d['frames'])
assert 0 < t['bytes'] and abs(t['ratio'] - t['bytes'] / t['raw_bytes']) < 1e-9
assert t['receivers_accepted'] == 1 and t['disconnects'] == 0 and d['tile'] == $5"
    json_ok r.json "t = d['totals']
assert t['frames'] == 12 and t['sender_frames'] == 12 and t['frames_skipped'] == 0
assert t['max_checked_error'] == 0, t   # keyframes 5 and 10 checked against the deltas
assert all('latency_ms' in f and 'decode_ms' in f for f in d['frames'])
assert t['latency_ms_p99'] >= t['latency_ms_median'] >= 0"
done
# the summaries (without -q)
start_sender s in.y4m --listen 127.0.0.1:0 --clients 1
receive 0 r -o out.y4m
wait_sender 0
grep -q "^send: 12 frames 31x21 gray8, [0-9]* bytes (.*% of raw, 1 keyframes) to 1 receiver in " s.out ||
    fail "send summary: $(cat s.out)"
grep -q "^receive: 12 frames 31x21 gray8 from 127.0.0.1:$port, " r.out || fail "receive summary: $(cat r.out)"

# ---- stdin in, stdout out
$py gen 420 8 48 32 10 3 in.y4m
rm -f s.err
timeout 60 "$FOVEA_CLI" send - --listen 127.0.0.1:0 --clients 1 <in.y4m >s.out 2>s.err &
sender_pid=$!
sname=s
i=0
while [ $i -lt 400 ] && ! grep -q "^listening on" s.err 2>/dev/null; do sleep 0.05; i=$((i + 1)); done
port=$(sed -n 's/^listening on 127\.0\.0\.1:\([0-9]*\)$/\1/p' s.err)
receive 0 r -o - --stats r.json
wait_sender 0
cmp -s in.y4m r.out || fail "stdin -> stdout differs"
grep -q "^receive: 10 frames" r.err || fail "receive -o -: the summary is not on stderr"

# ---- raw nv12 and rgb24 in, raw out: byte-identical; y4m out: converted
for fmt in nv12 rgb24; do
    [ $fmt = nv12 ] && fsize=$((34 * 22 * 3 / 2)) || fsize=$((34 * 22 * 3))
    gen8 $((fsize * 4)) 5 >in.yuv
    start_sender s in.yuv -s 34x22 --pixfmt $fmt --fps 30 --listen 127.0.0.1:0 --clients 1 -q
    receive 0 r -o out.yuv -q
    wait_sender 0
    cmp -s in.yuv out.yuv || fail "raw $fmt through the stream differs"
done
start_sender s in.yuv -s 34x22 --pixfmt rgb24 --listen 127.0.0.1:0 --clients 1 -q
receive 0 r -o conv.y4m
wait_sender 0
grep -q "the stream is rgb24: writing i420" r.err || fail "rgb24 to y4m: $(cat r.err)"
head -n 1 conv.y4m | grep -q "^YUV4MPEG2 W34 H22 .*C420jpeg" || fail "conv.y4m: $(head -n 1 conv.y4m)"

# ---- T > 0: every sample of every frame within T; fewer bytes than T = 0
for spec in "420 8 64 48 3" "420 10 40 30 5" "444 8 35 27 2"; do
    # shellcheck disable=SC2086
    set -- $spec
    $py gen "$1" "$2" "$3" "$4" 20 11 in.y4m
    start_sender s in.y4m --listen 127.0.0.1:0 --clients 1 --keyframe 8 --stats s0.json -q
    receive 0 r -o lossless.y4m -q
    wait_sender 0
    start_sender s in.y4m --listen 127.0.0.1:0 --clients 1 --keyframe 8 --threshold "$5" \
        --stats s.json -q
    receive 0 r -o out.y4m --stats r.json -q
    wait_sender 0
    worst=$($py bound in.y4m out.y4m "$5") || fail "$spec: a sample off by more than $5"
    [ "$worst" -gt 0 ] || fail "$spec: T=$5 sent everything exactly (the bound did nothing)"
    python3 -c "import json, sys
a = json.load(open('s0.json'))['totals']['bytes']; b = json.load(open('s.json'))['totals']['bytes']
sys.exit(0 if b < a else 1)" || fail "$spec: T=$5 sent no fewer bytes than T=0"
    json_ok r.json "t = d['totals']
assert d['threshold'] == $5 and t['max_checked_error'] is not None
assert 0 <= t['max_checked_error'] <= $5, t"
done

# ---- a file waits for a receiver (README's `fovea send clip.y4m --listen ...`,
# no --clients): it must not stream to nobody and exit before one can connect
$py gen 420 8 32 16 6 5 wait.y4m
start_sender s wait.y4m --listen 127.0.0.1:0 -q
sleep 1
kill -0 "$sender_pid" 2>/dev/null || fail "send of a file without --clients did not wait: $(cat s.err)"
receive 0 r -o wait_out.y4m -q
wait_sender 0
cmp -s wait.y4m wait_out.y4m || fail "the receiver of a waiting sender got other bytes"
run 1 send wait.y4m --listen 127.0.0.1:0 --clients 2 --wait-timeout 1
err_has "0 of 2 receivers connected within --wait-timeout 1 s: nothing sent" "send --wait-timeout"
run 2 send wait.y4m --listen 127.0.0.1:0 --wait-timeout soon
err_has "--wait-timeout" "send --wait-timeout soon"

# ---- errors
run 2 send in.y4m
err_has "--listen ADDR:PORT is required" "send without --listen"
run 2 send in.y4m --listen nowhere
err_has "'nowhere' is not an address" "send --listen nowhere"
run 2 send in.y4m --listen 127.0.0.1:0 --tile 12
err_has "--tile: expected one of 8, 16, 32, 64" "send --tile 12"
run 2 receive 127.0.0.1:1
err_has "-o OUT is required" "receive without -o"
run 2 receive 127.0.0.1 -o x.y4m
err_has "is not an address" "receive without a port"
# a port nobody listens on: take a free one from a sender that is gone
start_sender s in.y4m --listen 127.0.0.1:0 --clients 1
dead=$port
receive 0 r -o out.y4m -q
wait_sender 0
port=$dead
receive 1 r -o x.y4m
grep -q "^fovea: stream: cannot connect to 127.0.0.1:$dead: Connection refused" r.err ||
    fail "receive from a closed port: $(cat r.err)"
[ -e x.y4m ] && fail "receive from a closed port created its output"
# the port is taken
start_sender s in.y4m --listen 127.0.0.1:0 --clients 1
run 1 send in.y4m --listen "127.0.0.1:$port"
err_has "cannot listen on 127.0.0.1:$port: Address already in use" "send on a taken port"
receive 0 r -o out.y4m -q
wait_sender 0
# an input with a header and no frames is an error (a file before listening,
# a pipe once it ends: the receivers see the stream break off)
printf 'YUV4MPEG2 W16 H8 F25:1 Ip A1:1 C420jpeg\n' >empty.y4m
run 1 send empty.y4m --listen 127.0.0.1:0
err_has "fovea: empty.y4m: no frames in the input: nothing to send" "send of a header-only y4m"
grep -q "^listening on" err && fail "send of a header-only y4m listened"
rm -f s.err
timeout 60 "$FOVEA_CLI" send - --listen 127.0.0.1:0 --clients 1 <empty.y4m >s.out 2>s.err &
sender_pid=$!
sname=s
i=0
while [ $i -lt 400 ] && ! grep -q "^listening on" s.err 2>/dev/null; do sleep 0.05; i=$((i + 1)); done
port=$(sed -n 's/^listening on 127\.0\.0\.1:\([0-9]*\)$/\1/p' s.err)
receive 1 r -o empty_out.y4m
wait_sender 1
grep -q "stdin: no frames in the input: nothing to send" s.err || fail "send - of a header-only y4m: $(cat s.err)"
[ -e empty_out.y4m ] && fail "a stream of no frames left its output"

# a broken input: the receiver sees the stream break off, never an end
head -c $(($(size_of in.y4m) - 100)) in.y4m >cut.y4m
start_sender s cut.y4m --listen 127.0.0.1:0 --clients 1 -q
receive 1 r -o cut_out.y4m
wait_sender 1
grep -q "cut.y4m" s.err || fail "send of a truncated input: $(cat s.err)"
grep -q "closed the connection before the end of the stream" r.err ||
    fail "receive of a broken-off stream: $(cat r.err)"
[ -e cut_out.y4m ] && fail "a broken-off stream left its output file"

echo "test_cli_stream: ok"
