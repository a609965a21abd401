#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause-Patent
# Make the libvmaf golden numbers of tests/golden/libvmaf/<set>/ with libvmaf
# 3.2.0's plain-C build at full precision (vmaf-c-17g), from the public cases
# of ../shared/testdata/vif.tar.xz.
#
#   scripts/make-libvmaf-golden.sh [--libvmaf DIR] [--dir DIR] [SET ...]   (default: every set)
#
# --dir: the folder of the sets (default tests/golden/libvmaf; the pending
# sets of tests/golden/libvmaf-pending are made with --dir
# tests/golden/libvmaf-pending).
#
# Each set's set.txt names what libvmaf runs ("libvmaf:" arguments), the depth
# the inputs are shifted up to ("bits:", 8 = as they are; 8-bit inputs are
# shifted left, as libvmaf's v1 models are meant to be run at 10 bits) and the
# cases ("cases:", or "all"). For every case the script runs
#   vmaf-c-17g -r REF -d DIS <libvmaf arguments> --threads 1 --json -o OUT -q
# and writes OUT, compacted (the doubles as they were printed, %.17g), to
# <set>/<case>.json. tests/test_quality_libvmaf.c reads the same set.txt.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
libvmaf="$root/../shared/tools/libvmaf"
golden="$root/tests/golden/libvmaf"
while [ $# -ge 2 ]; do
    case "$1" in
    --libvmaf) libvmaf=$2; shift 2 ;;
    --dir) golden=$(cd "$2" && pwd); shift 2 ;;
    *) break ;;
    esac
done
vmaf="$libvmaf/vmaf-c-17g"
[ -x "$vmaf" ] || { echo "make-libvmaf-golden: no $vmaf" >&2; exit 1; }
data="$root/../shared/testdata/vif.tar.xz"
[ -f "$data" ] || { echo "make-libvmaf-golden: no $data" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
tar xJf "$data" -C "$tmp"
sets="$*"
[ -n "$sets" ] || sets=$(cd "$golden" && ls -d */ | tr -d /)
for set in $sets; do
    dir="$golden/$set"
    conf="$dir/set.txt"
    [ -f "$conf" ] || { echo "make-libvmaf-golden: no $conf" >&2; exit 1; }
    args=$(sed -n 's/^libvmaf:[[:space:]]*//p' "$conf")
    bits=$(sed -n 's/^bits:[[:space:]]*//p' "$conf")
    cases=$(sed -n 's/^cases:[[:space:]]*//p' "$conf")
    skip=" $(sed -n 's/^skip:[[:space:]]*//p' "$conf") "
    [ -n "$bits" ] || bits=8
    if [ -z "$cases" ] || [ "$cases" = all ]; then
        cases=$(python3 -c 'import json,sys; print(" ".join(c["case"] for c in json.load(open(sys.argv[1]))["cases"]))' "$tmp/vif/index.json")
    fi
    for c in $cases; do
        case "$skip" in *" $c "*) continue ;; esac
        # raw planes (libvmaf reads only 4:2:0 y4m itself), 8-bit cases shifted
        # up to the set's depth; 10-bit cases as they are
        ref="$tmp/vif/$c/ref.y4m"
        dis="$tmp/vif/$c/dis.y4m"
        raw=$(python3 "$root/scripts/y4m-shift.py" "$ref" "$tmp/ref.yuv" "$bits" --raw)
        python3 "$root/scripts/y4m-shift.py" "$dis" "$tmp/dis.yuv" "$bits" --raw >/dev/null
        # shellcheck disable=SC2086
        if ! "$vmaf" -r "$tmp/ref.yuv" -d "$tmp/dis.yuv" $raw $args --threads 1 \
            --json -o "$tmp/out.json" -q \
            >"$tmp/log" 2>&1; then
            echo "make-libvmaf-golden: $set/$c: libvmaf failed:" >&2
            cat "$tmp/log" >&2
            exit 1
        fi
        python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); j.pop("version", None); j.pop("fps", None); json.dump(j, open(sys.argv[2], "w"), separators=(",", ":")); open(sys.argv[2], "a").write("\n")' \
            "$tmp/out.json" "$dir/$c.json"
        echo "$set/$c.json"
    done
done
