#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause-Patent
# CLI basics: help, version, exit codes, error format, `info` text and JSON.
set -u
. "$(dirname "$0")/lib.sh" || exit 1
# the JSON checks need python3 (scripts/deps.sh installs it): without it the
# test is skipped, not passed with those checks left out
cli_test_setup test_cli_basic python3
# (the test runs in $tmp, where run leaves the CLI's stdout and stderr: $tmp/out, $tmp/err)

# --help / --version
run 0 --help
grep -q '^Usage: fovea' "$tmp/out" || fail "--help: no usage line"
for c in info convert help; do
    grep -q "^  $c " "$tmp/out" || fail "--help does not list command '$c'"
done
# every system is named in the overview line
for sys in stitching 'video quality' KLT tracking 'frame differencing' 'delta streaming'; do
    grep -q "$sys" "$tmp/out" || fail "--help does not name '$sys'"
done
run 0 -h
run 0 --version
grep -q '^fovea [0-9][0-9]*\.[0-9][0-9]*\.[0-9][0-9]*$' "$tmp/out" || fail "--version: no 'fovea X.Y.Z'"
grep -q '^CUDA backend: \(compiled in\|not compiled in\)$' "$tmp/out" ||
    fail "--version: no CUDA backend line"
run 0 help
grep -q '^Usage: fovea' "$tmp/out" || fail "help: no usage"

# no arguments: usage on stderr, status 2
run 2
grep -q 'Usage: fovea' "$tmp/err" || fail "no arguments: no usage on stderr"

# unknown command / option
run 2 frobnicate
grep -q "^fovea: unknown command 'frobnicate'" "$tmp/err" || fail "unknown command: message"
grep -q "^Try 'fovea --help'\.$" "$tmp/err" || fail "unknown command: no Try line"
run 2 --frobnicate
run 2 convert --frobnicate a.y4m b.y4m
grep -q "unknown option '--frobnicate'" "$tmp/err" || fail "unknown option: message"
grep -q "^Try 'fovea convert --help'\.$" "$tmp/err" || fail "unknown option: no Try line"
run 2 convert -Z a.y4m b.y4m
run 2 info --frobnicate
run 2 info extra-argument
run 2 help frobnicate

# missing arguments and bad values
run 2 convert
run 2 convert only-one.y4m
run 2 convert a.y4m b.y4m c.y4m
run 2 convert --frames
grep -q "needs a value" "$tmp/err" || fail "--frames without value: message"
run 2 convert --frames x a.y4m b.y4m
grep -q "^fovea: --frames: expected a non-negative integer, got 'x'$" "$tmp/err" ||
    fail "--frames x: message"
run 2 convert --frames=-3 a.y4m b.y4m
run 2 convert --start 1.5 a.y4m b.y4m
run 2 convert --threads 99999 a.y4m b.y4m
run 2 convert -s 0x10 a.yuv b.y4m
run 2 convert -s 16x a.yuv b.y4m
run 2 convert --colorspace bt2020 a.y4m b.y4m
grep -q "expected one of bt601, bt709" "$tmp/err" || fail "--colorspace: message"
run 2 convert --range half a.y4m b.y4m
run 2 convert --pixfmt bogus a.yuv b.y4m
run 2 convert --pixfmt-out bogus a.y4m b.y4m
run 2 convert --pixfmt-out i420 a.y4m b.png
run 2 convert --out-format mkv a.y4m b.y4m
run 2 convert --quiet=1 a.y4m b.y4m
run 2 convert a.y4m b.unknown
# an unknown extension: the content decides; content that tells nothing is a
# usage error naming --in-format
printf 'no magic here\n' >"$tmp/a.unknown"
run 2 convert "$tmp/a.unknown" b.y4m
grep -q "a.unknown: unknown file type.*use --in-format" "$tmp/err" || fail "unknown content: message"
run 2 convert a.yuv b.y4m
grep -q "raw input needs" "$tmp/err" || fail "raw input without geometry: message"
run 2 convert --json - a.y4m -

# every command has --help, and `help <command>` prints the same
for c in info convert; do
    run 0 "$c" --help
    grep -q "^Usage: fovea $c" "$tmp/out" || fail "$c --help: no usage line"
    grep -q -- '--help' "$tmp/out" || fail "$c --help: --help not listed"
    cp "$tmp/out" "$tmp/help1"
    run 0 help "$c"
    cmp -s "$tmp/out" "$tmp/help1" || fail "help $c differs from $c --help"
done

# convert --help lists every option, each with a default
run 0 convert --help
for o in --in-format --size -s --width --height --pixfmt --fps --out-format --pixfmt-out \
         --colorspace --range --start --frames --threads --json --quiet -q --help; do
    grep -q -- "$o[ ,]" "$tmp/out" || grep -q -- "$o\$" "$tmp/out" ||
        fail "convert --help does not list $o"
done
n_opts=$(grep -c '^  \(-., \|    \)--' "$tmp/out")
n_defaults=$(grep -c '(default:' "$tmp/out")
# --help is the only option without a default; wrapped lines may split "(default:"
[ "$n_opts" -ge 15 ] || fail "convert --help lists only $n_opts options"
[ "$n_defaults" -ge $((n_opts - 3)) ] || fail "convert --help: $n_defaults defaults for $n_opts options"

# info
run 0 info
grep -q '^fovea [0-9]' "$tmp/out" || fail "info: no version"
grep -q 'CUDA backend' "$tmp/out" || fail "info: no build line"
if [ "${FOVEA_HAVE_CAIRO:-}" = ON ]; then
    grep -q 'charts (--plot) with cairo' "$tmp/out" || fail "info: no charts line"
elif [ "${FOVEA_HAVE_CAIRO:-}" = OFF ]; then
    grep -q 'charts (--plot) not available' "$tmp/out" || fail "info: no charts line"
fi
# whether streaming and the GStreamer plugin were built, as the build says
case "${FOVEA_HAVE_STREAM:-}" in
ON) grep -q 'delta streaming (send, receive) built' "$tmp/out" || fail "info: no streaming line" ;;
OFF) grep -q 'delta streaming (send, receive) not built' "$tmp/out" || fail "info: no streaming line" ;;
esac
case "${FOVEA_HAVE_GST:-}" in
ON) grep -q 'GStreamer plugin built' "$tmp/out" || fail "info: no GStreamer line" ;;
OFF) grep -q 'GStreamer plugin not built' "$tmp/out" || fail "info: no GStreamer line" ;;
esac
grep -q '^CPUs: *[1-9]' "$tmp/out" || fail "info: no CPU count"
grep -q '^devices:' "$tmp/out" || fail "info: no devices line"
grep -q 'i420p10' "$tmp/out" || fail "info: pixel formats missing"
run 0 info --json
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
for k in ("version", "build", "cpus", "devices", "containers", "pixel_formats"):
    assert k in d, "missing key " + k
assert isinstance(d["build"]["cuda"], bool)
assert isinstance(d["build"]["charts"], bool)
assert isinstance(d["build"]["stream"], bool)
assert isinstance(d["build"]["gstreamer_plugin"], bool)
assert d["cpus"] >= 1
assert {c["name"] for c in d["containers"]} == {"y4m", "yuv", "pnm", "png", "media"}
assert isinstance(d["build"]["ffmpeg"], bool)
for dev in d["devices"]:
    for k in ("index", "name", "sm_count", "memory_gib", "compute_capability"):
        assert k in dev, "device without " + k
' "$tmp/out" || fail "info --json: bad JSON"

# runtime errors: status 1, "fovea: <path>: <what>"
missing="$tmp/does-not-exist.y4m"
run 1 convert "$missing" "$tmp/out.y4m"
head -n 1 "$tmp/err" | grep -q "^fovea: $missing: " || fail "missing input: message format"
[ -e "$tmp/out.y4m" ] && fail "missing input: output file created"
run 1 convert --in-format yuv -s 16x16 --pixfmt i420 "$missing" "$tmp/out.y4m"
head -n 1 "$tmp/err" | grep -q "^fovea: $missing: " || fail "missing raw input: message format"

echo "test_cli_basic: all passed"
exit 0
