# SPDX-License-Identifier: BSD-2-Clause-Patent
# shellcheck shell=sh
# Helpers of the delta stream's CLI tests (test_cli_stream*.sh), sourced after
# lib.sh. Every process runs under timeout(1): a test never hangs.

# stream_setup NAME: skip where the streamer is not built, else cli_test_setup
# with python3 (the y4m checks) and $py, the y4m helper.
stream_setup() {
    here=$(cd "$(dirname "$0")" && pwd)
    if [ "${FOVEA_HAVE_STREAM:-ON}" != ON ]; then
        echo "$1: fovea built without the delta streamer: skipped"
        exit 77
    fi
    command -v timeout >/dev/null 2>&1 || { echo "$1: timeout(1) not found: skipped"; exit 77; }
    cli_test_setup "$1" python3
    py="python3 $here/stream_y4m.py"
}

# start_sender NAME ARGS...: `fovea send ARGS` in the background (stdout and
# stderr to NAME.out and NAME.err), its pid in $sender_pid; waits for its
# "listening on 127.0.0.1:PORT" line and sets $port.
start_sender() {
    sname=$1
    shift
    # a previous run's line must not be read before this one truncates the file
    rm -f "$sname.err"
    timeout 60 "$FOVEA_CLI" send "$@" >"$sname.out" 2>"$sname.err" &
    sender_pid=$!
    i=0
    while [ $i -lt 400 ]; do
        port=$(sed -n 's/^listening on 127\.0\.0\.1:\([0-9][0-9]*\)$/\1/p' "$sname.err" 2>/dev/null)
        [ -n "$port" ] && return 0
        kill -0 "$sender_pid" 2>/dev/null || break
        sleep 0.05
        i=$((i + 1))
    done
    fail "fovea send $*: no 'listening on' line: $(cat "$sname.err")"
}

# wait_sender STATUS: the background sender ended with STATUS
wait_sender() {
    wait "$sender_pid"
    sst=$?
    [ "$sst" -eq "$1" ] || fail "fovea send ($sname): exit status $sst, expected $1: $(cat "$sname.err")"
}

# receive STATUS NAME ARGS...: `fovea receive 127.0.0.1:$port ARGS` (stdout and
# stderr to NAME.out and NAME.err) ended with STATUS
receive() {
    want=$1
    rname=$2
    shift 2
    timeout 60 "$FOVEA_CLI" receive "127.0.0.1:$port" "$@" >"$rname.out" 2>"$rname.err"
    got=$?
    [ "$got" -eq "$want" ] || fail "fovea receive $* ($rname): exit status $got, expected $want: $(cat "$rname.err")"
}
