#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause-Patent
# A damaged delta stream: a relay (stream_relay.py) between `fovea send` and
# `fovea receive` flips, drops, reorders or truncates bytes, or stalls; the
# receiver exits 1 with a clear message, what it wrote before is exact (whole
# frames of the input, never a damaged one), a regular output file is not
# created, and the sender, which loses a receiver, ends normally. A receiver
# that sends junk is cut off without disturbing the sender. Nothing hangs: the
# receivers run with --timeout and every process under timeout(1).
set -u
. "$(dirname "$0")/lib.sh" || exit 1
. "$(dirname "$0")/stream_lib.sh" || exit 1
stream_setup test_cli_stream_relay

$py gen 420 8 64 48 20 13 in.y4m

# relay_start MODE N K: a sender for one receiver and the relay in front of
# it; $port is the relay's
relay_start() {
    start_sender s in.y4m --listen 127.0.0.1:0 --clients 1 --linger 3 -q
    rm -f relay.out
    timeout 40 python3 "$here/stream_relay.py" "$1" "$2" "$3" "$port" >relay.out 2>relay.err &
    relay_pid=$!
    i=0
    while [ $i -lt 200 ] && [ ! -s relay.out ]; do sleep 0.05; i=$((i + 1)); done
    port=$(head -n 1 relay.out)
    [ -n "$port" ] || fail "the relay did not start: $(cat relay.err)"
}

# the relay itself changes nothing
relay_start pass 0 0
receive 0 r -o - --timeout 2
cmp -s in.y4m r.out || fail "the stream through an undamaging relay differs"
wait "$relay_pid"
wait_sender 0

# relay_case MODE N K TEXT: the stream through the relay damaged so; the
# receiver's message contains TEXT
relay_case() {
    relay_start "$1" "$2" "$3"
    receive 1 r -o - --timeout 1
    grep -q "^fovea: 127.0.0.1:$port: stream: .*$4" r.err || fail "$1 $2: receiver said: $(cat r.err)"
    good=$($py prefix in.y4m r.out) || fail "$1 $2: the receiver wrote a wrong frame"
    wait "$relay_pid"
    wait_sender 0
}
relay_case flip 10 0 "in the middle of a message"   # the hello's length field
relay_case flip 50 0 "checksum mismatch"            # the hello's payload
[ "$good" -eq 0 ] || fail "frames written without a stream header"
relay_case flip 3000 0 "checksum mismatch"          # the first keyframe
relay_case flip 7000 0 "checksum mismatch"          # a later delta
[ "$good" -gt 0 ] || fail "flip at 7000: not one frame before the damage"
relay_case drop 6000 100 ""
relay_case reorder 6500 40 ""
relay_case truncate 6000 0 "closed the connection in the middle of a message"
relay_case stall 6000 0 "timed out"

# a regular output file is not created when the stream breaks
relay_start flip 7000 0
receive 1 r -o broken.y4m --timeout 2
[ -e broken.y4m ] && fail "a broken stream left broken.y4m"
wait "$relay_pid"
wait_sender 0

# a stream with a header and no frame (every frame left out, the END kept):
# the receiver exits 1 and writes nothing, not a header-only y4m
relay_start dropmsg 1 20
receive 1 r -o none.y4m --timeout 2
grep -q "ended without a frame (the sender sent 20): none.y4m not written" r.err ||
    fail "a stream without frames: $(cat r.err)"
[ -e none.y4m ] && fail "a stream without frames left none.y4m"
wait "$relay_pid"
wait_sender 0
relay_start dropmsg 1 20
receive 1 r -o - --timeout 2
[ -s r.out ] && fail "a stream without frames wrote to stdout: $(head -c 60 r.out)"
wait "$relay_pid"
wait_sender 0

# a receiver that sends junk is cut; the real one gets everything
start_sender s in.y4m --listen 127.0.0.1:0 --clients 2 --stats s.json -q
timeout 20 python3 -c "import socket, sys, time
s = socket.create_connection(('127.0.0.1', int(sys.argv[1])))
# junk only once the stream has started (the sender waits for 2 receivers
# connected at once: junk cut before the real receiver joins would leave it
# waiting): the hello comes at once, the keyframe after the start
s.settimeout(15)
s.recv(65536)
s.recv(65536)
s.sendall(b'GET / HTTP/1.1\r\n\r\n' * 4)
time.sleep(1)" "$port" &
junk_pid=$!
receive 0 r -o out.y4m -q
wait "$junk_pid"
wait_sender 0
cmp -s in.y4m out.y4m || fail "the receiver beside a junk peer got other frames"
json_ok s.json "t = d['totals']
assert t['receivers_accepted'] == 2 and t['disconnects'] == 1, t"

echo "test_cli_stream_relay: ok"
