#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause-Patent
# `fovea send` with several receivers on loopback (--realtime, so that the
# stream lasts while receivers come and go): one from the start, one joining
# later (a keyframe for it; from there on both show identical frames, both
# within T of the input), one killed mid-stream (the sender goes on); then a
# receiver whose output stops being read is dropped back and resynchronized
# with a keyframe while the sender keeps its pace.
set -u
. "$(dirname "$0")/lib.sh" || exit 1
. "$(dirname "$0")/stream_lib.sh" || exit 1
stream_setup test_cli_stream_net

# ---- two receivers joining at different times, a third killed mid-stream
$py gen 420 8 48 32 80 5 in.y4m 40:1   # 2 s at 40 fps
start_sender s in.y4m --listen 127.0.0.1:0 --clients 2 --threshold 2 --realtime --stats s.json -q
timeout 60 "$FOVEA_CLI" receive "127.0.0.1:$port" -o a.y4m --stats a.json -q >a.out 2>a.err &
a_pid=$!
# (not under timeout(1): the kill must reach fovea itself; it ends with the sender anyway)
"$FOVEA_CLI" receive "127.0.0.1:$port" -o c.y4m -q >c.out 2>c.err &
c_pid=$!
sleep 0.5
receive 0 b -o b.y4m --stats b.json -q &
b_pid=$!
sleep 0.3
kill -9 "$c_pid" 2>/dev/null
wait "$a_pid" || fail "receiver a failed: $(cat a.err)"
wait "$b_pid" || fail "receiver b failed"
wait "$c_pid" 2>/dev/null
wait_sender 0
$py bound in.y4m a.y4m 2 >/dev/null || fail "receiver a: a sample off by more than 2"
$py frames in.y4m b.y4m b.json 2 || fail "receiver b: a frame off by more than 2"
common=$($py same a.y4m a.json b.y4m b.json) || fail "receivers a and b show different frames"
json_ok b.json "f = d['frames']
assert f[0]['keyframe'] and f[0]['frame'] > 0, f[0]     # joined late, started on a keyframe
assert [x['frame'] for x in f] == list(range(f[0]['frame'], 80))
assert d['totals']['frames'] == $common"
json_ok s.json "t = d['totals']
assert t['frames'] == 80 and t['receivers_accepted'] == 3, t
assert t['disconnects'] == 1, t                          # the killed one
assert t['keyframes'] >= 2, t                            # the start, and b joining
assert t['seconds'] > 1.7, t                             # --realtime kept 40 fps"

# ---- a receiver whose output is not read for a while is resynchronized
$py gen 420 8 160 120 100 9 big.y4m 50:1 noise   # 2 s at 50 fps, 28 KiB a frame
start_sender s big.y4m --listen 127.0.0.1:0 --clients 2 --realtime --max-queue 64K \
    --sndbuf 16K --stats s.json -q
timeout 60 "$FOVEA_CLI" receive "127.0.0.1:$port" -o fast.y4m --stats fast.json -q \
    >fast.out 2>fast.err &
f_pid=$!
# the slow one writes to a pipe nobody reads for 0.8 s: it stops reading the socket
timeout 60 "$FOVEA_CLI" receive "127.0.0.1:$port" -o - --rcvbuf 16K --stats slow.json -q 2>slow.err |
    python3 -c "import sys, time
time.sleep(0.8)
sys.stdout.buffer.write(sys.stdin.buffer.read())" >slow.y4m &
p_pid=$!
wait "$f_pid" || fail "the fast receiver failed: $(cat fast.err)"
wait "$p_pid" || fail "the slow receiver's pipe failed: $(cat slow.err)"
wait_sender 0
cmp -s big.y4m fast.y4m || fail "the fast receiver missed or changed frames"
$py frames big.y4m slow.y4m slow.json || fail "the slow receiver shows a wrong frame"
json_ok slow.json "t = d['totals']
assert t['frames_skipped'] > 0 and t['frames'] + t['frames_skipped'] == 100, t
assert d['frames'][-1]['frame'] == 99
k = [f for f in d['frames'] if f['skipped']]
assert k and all(f['keyframe'] for f in k), k           # it came back on keyframes"
json_ok s.json "t = d['totals']
assert t['resyncs'] >= 1 and t['disconnects'] == 0, t
assert t['seconds'] > 1.6, t                             # nobody slowed down the sender"

# ---- a receiver over --max-clients is told so (not a crash): exit 3, its
# output not created
$py gen 420 8 48 32 40 3 short.y4m 40:1   # 1 s at 40 fps
start_sender s short.y4m --listen 127.0.0.1:0 --clients 1 --max-clients 1 --realtime \
    --stats s.json -q
# (to stdout: frames show in first.y4m as they arrive, so it is connected)
timeout 60 "$FOVEA_CLI" receive "127.0.0.1:$port" -o - -q >first.y4m 2>first.err &
first_pid=$!
i=0
while [ ! -s first.y4m ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
receive 3 full -o full.y4m -q
grep -F -q "sender at 127.0.0.1:$port is full (--max-clients 1)" full.err ||
    fail "turned-away receiver: $(cat full.err)"
grep -q "closed\|broke" full.err && fail "turned-away receiver reads as a crash: $(cat full.err)"
[ -e full.y4m ] && fail "turned-away receiver created its output"
wait "$first_pid" || fail "the first receiver failed: $(cat first.err)"
wait_sender 0
json_ok s.json "t = d['totals']
assert t['receivers_accepted'] == 1 and t['receivers_refused'] == 1, t"

echo "test_cli_stream_net: ok"
