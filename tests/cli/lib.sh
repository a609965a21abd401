# SPDX-License-Identifier: BSD-2-Clause-Patent
# shellcheck shell=sh
# Helpers for the CLI tests (tests/cli/test_cli_*.sh), sourced by each as
#     . "$(dirname "$0")/lib.sh" || exit 1
# (ctest runs them as `sh /abs/path/test_cli_x.sh`, so $0 names the script).
# Not named test_*.sh: tests/CMakeLists.txt does not take it for a test.

# cli_test_setup NAME [python3]: NAME is the script's name (test_cli_x).
# With python3, the test is skipped (exit 77, with a message) where python3 is
# missing: skipped, not passed with its python checks left out. Then checks
# FOVEA_CLI, makes a temporary directory $tmp removed on exit, and enters it.
cli_test_setup() {
    if [ "${2:-}" = python3 ] && ! command -v python3 >/dev/null 2>&1; then
        echo "$1: python3 not found: skipped"
        exit 77
    fi
    : "${FOVEA_CLI:?FOVEA_CLI must name the fovea executable}"
    tmp=$(mktemp -d "${TMPDIR:-/tmp}/fovea_${1#test_}.XXXXXX") || exit 1
    trap 'rm -rf "$tmp"' EXIT INT TERM
    cd "$tmp" || exit 1
}

# fail MESSAGE: report, show the start of ./out and ./err (the last run's), exit 1
fail() {
    echo "FAIL: $*" >&2
    for f in out err; do
        [ -s "$f" ] && { echo "--- $f:" >&2; head -n 20 "$f" >&2; }
    done
    exit 1
}

# run EXPECTED_STATUS ARGS...: run the CLI, stdout to ./out, stderr to ./err
run() {
    want=$1
    shift
    "$FOVEA_CLI" "$@" >out 2>err
    got=$?
    [ "$got" -eq "$want" ] || fail "fovea $*: exit status $got, expected $want"
}

# err_has TEXT WHAT / out_has TEXT WHAT: ./err / ./out contains TEXT (a fixed string)
err_has() { grep -F -q -- "$1" err || fail "$2: stderr lacks '$1'"; }
out_has() { grep -F -q -- "$1" out || fail "$2: stdout lacks '$1'"; }
# err_match RE WHAT / out_match RE WHAT: a line of ./err / ./out matches the
# basic regular expression RE
err_match() { grep -q -- "$1" err || fail "$2: stderr lacks '$1'"; }
out_match() { grep -q -- "$1" out || fail "$2: stdout lacks '$1'"; }

# json_ok FILE PYTHON-ASSERTIONS (d = the parsed document)
json_ok() {
    python3 -c "import json, sys
d = json.load(open(sys.argv[1]))
$2" "$1" || fail "$1: unexpected JSON"
}

# size_of FILE: its size in bytes; expect_size FILE BYTES
size_of() { wc -c <"$1" | tr -d ' '; }
expect_size() {
    s=$(size_of "$1")
    [ "$s" -eq "$2" ] || fail "$1: $s bytes, expected $2"
}

# gen8 COUNT SEED > FILE: COUNT pseudo-random bytes (an LCG, so the same every run).
gen8() {
    printf "$(awk -v n="$1" -v x="$2" 'BEGIN {
        for (i = 0; i < n; i++) { x = (x * 75 + 74) % 65537; printf "\\%03o", x % 256 } }')"
}
# gen10 COUNT SEED > FILE: COUNT 10-bit samples, 16-bit little-endian (the same LCG).
gen10() {
    printf "$(awk -v n="$1" -v x="$2" 'BEGIN {
        for (i = 0; i < n; i++) {
            x = (x * 75 + 74) % 65537; v = x % 1024
            printf "\\%03o\\%03o", v % 256, int(v / 256) } }')"
}
