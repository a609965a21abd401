#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause-Patent
# Messages and exit statuses (issue 45 item 16): "(use --in-format)" only
# where naming the input's type can help (content of unknown type), not for a
# PNM that is recognized and refused (too wide, P4, P7); a '%' conversion that
# is no frame number in an image name (o%s.png) is a usage error naming it.
set -u
. "$(dirname "$0")/lib.sh" || exit 1
cli_test_setup test_cli_messages

# ---- content read through a name that does not tell its type
printf 'P5\n20000 2\n255\n' >wide.pgm
head -c 40000 /dev/zero >>wide.pgm
run 1 convert /dev/stdin o.y4m <wide.pgm
err_has "width 20000 exceeds the maximum 16384" "too wide PNM through /dev/stdin"
grep -q -- "--in-format" err && fail "too wide PNM: --in-format cannot help: $(cat err)"
run 1 convert wide.pgm o.y4m
err_has "width 20000 exceeds" "too wide PNM by name"
printf 'P4\n8 2\n\001\002' >p4.bin
run 1 convert /dev/stdin o.y4m <p4.bin
err_has "P4" "P4 through /dev/stdin"
grep -q -- "--in-format" err && fail "P4: --in-format cannot help: $(cat err)"
printf 'P7\nWIDTH 2\nHEIGHT 2\nDEPTH 1\nMAXVAL 255\nTUPLTYPE GRAYSCALE\nENDHDR\n0123' >p7.bin
run 1 convert /dev/stdin o.y4m <p7.bin
err_has "P7" "P7 through /dev/stdin"
grep -q -- "--in-format" err && fail "P7: --in-format cannot help: $(cat err)"
# content of no known type: naming the type is the way out
printf 'neither y4m nor an image' >junk.bin
run 2 convert /dev/stdin o.y4m <junk.bin
err_has "(use --in-format)" "unknown content"
[ -e o.y4m ] && fail "a failed convert wrote o.y4m"

# ---- a '%' conversion that is no frame number: a bad argument, named
W=32
H=24
gen8 $((W * H * 3 / 2 * 2)) 5 >in.yuv
run 0 convert -q -s ${W}x${H} --pixfmt i420 in.yuv in.y4m
run 2 convert in.y4m 'o%s.png'
err_has "OUT o%s.png: bad conversion '%s'" "output o%s.png"
run 2 convert in.y4m 'o%d%d.png'
err_has "a second frame-number conversion '%d'" "output o%d%d.png"
run 2 convert in.y4m 'o%x.ppm'
err_has "bad conversion '%x'" "output o%x.ppm"
run 2 convert 'i%s.png' o.y4m
err_has "IN i%s.png: bad conversion '%s'" "input i%s.png"
run 2 diff in.y4m --mask 'm%5s.png'
err_has "bad conversion '%5s'" "diff --mask m%5s.png"
run 2 track -o 't%s.png' in.y4m
err_has "bad conversion '%s'" "track -o t%s.png"
ls ./*.png >/dev/null 2>&1 && fail "a refused pattern wrote images: $(ls ./*.png)"
# what stays valid: %%, a file that exists under that very name, %04d
# (one image: the name is not a pattern, taken as it is)
run 0 convert -q --frames 1 in.y4m 'pct%%.png'
[ -f 'pct%%.png' ] || fail "pct%%.png not written"
cp 'pct%%.png' 'lit%s.png'
run 0 convert -q 'lit%s.png' lit.y4m
run 0 convert -q in.y4m 'seq%04d.png'
[ -f seq0000.png ] && [ -f seq0001.png ] || fail "seq%04d.png: no seq0000.png, seq0001.png"
echo "test_cli_messages: ok"
