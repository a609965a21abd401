#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause-Patent
# `make check`: every stage with its output in a log, one line per stage on the
# console and one summary at the end (stage, result, tests passed/skipped, time).
# A failing stage prints the end of its log and the path of the whole log; the
# stages after it still run, so one run shows every failure. Exit 1 when any
# stage failed.
#   usage: scripts/check.sh [MAKE]   (MAKE: the make program, default make)
set -u
MAKE=${1:-make}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 1
logs="$root/build-check-logs"
mkdir -p "$logs" || exit 1
summary="$logs/summary.txt"
: >"$summary"
failed=0
start_all=$(date +%s)

# ctest's "N% tests passed, F tests failed out of T" and its skip count
ctest_counts() {
    tot=$(sed -n 's/.*tests failed out of \([0-9][0-9]*\).*/\1/p' "$1" | tail -n 1)
    bad=$(sed -n 's/.* \([0-9][0-9]*\) tests failed out of.*/\1/p' "$1" | tail -n 1)
    skip=$(grep -c '\*\*\*Skipped\|Not Run (Disabled)' "$1")
    if [ -n "$tot" ]; then
        echo "$((tot - ${bad:-0} - skip)) passed, $skip skipped, ${bad:-0} failed of $tot"
    fi
}

# stage NAME DESCRIPTION COMMAND...: run COMMAND with its output in $logs/NAME.log
stage() {
    name=$1
    what=$2
    shift 2
    log="$logs/$name.log"
    printf '== %-8s %s ... ' "$name" "$what"
    t0=$(date +%s)
    "$@" >"$log" 2>&1
    rc=$?
    secs=$(($(date +%s) - t0))
    detail=$(ctest_counts "$log")
    case "$name" in
    fuzz) detail=$(grep -c '^== fuzz_' "$log") && detail="$detail targets" ;;
    esac
    if [ $rc -eq 0 ]; then
        result=ok
        echo "ok (${secs} s${detail:+, $detail})"
    else
        result=FAILED
        failed=1
        echo "FAILED (exit $rc, ${secs} s${detail:+, $detail})"
        echo "---- last lines of $log"
        tail -n 60 "$log"
        echo "---- (whole log: $log)"
    fi
    printf '%-8s %-7s %6s s  %s\n' "$name" "$result" "$secs" "$detail" >>"$summary"
}

stage deps "Debian packages (scripts/deps.sh)" env FOVEA_DEPS_FUZZ=1 sh scripts/deps.sh
stage format "clang-format and SPDX lines (scripts/check-format.sh)" sh scripts/check-format.sh
stage asan "CPU-only ASan + UBSan build, every C test" "$MAKE" --no-print-directory check-asan
stage default "the build of plain make, its tests, make demo at 1/8 scale" \
    "$MAKE" --no-print-directory check-default
stage fuzz "fuzz targets built with clang, 3 s each" "$MAKE" --no-print-directory check-fuzz

total=$(($(date +%s) - start_all))
echo
echo "make check summary ($(nproc 2>/dev/null || echo '?') cores, $total s; logs in $logs):"
cat "$summary"
if [ $failed -ne 0 ]; then
    echo "make check: FAILED"
    exit 1
fi
echo "make check: all stages passed"
