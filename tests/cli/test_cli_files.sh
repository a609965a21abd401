#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause-Patent
# What the commands do to the files they write: a device node stays a device
# (and the error says why the write failed), a symlink is written through, an
# existing file is replaced only when the new one is complete, a neighbor
# named like a temporary is left alone, and an output that is one of the
# inputs (also through a hard link or a symlink) is refused before anything
# is written.
set -u
. "$(dirname "$0")/lib.sh" || exit 1
cli_test_setup test_cli_files
is_chardev() { [ -c "$1" ] || fail "$1 is no longer a character device ($2)"; }
same() { cmp -s "$1" "$2" || fail "$1 changed ($3)"; }

W=48
H=32
F=$((W * H * 3 / 2))
gen8 $((F * 3)) 5 >raw.yuv
run 0 convert -q -s ${W}x$H --pixfmt i420 raw.yuv a.y4m
gen8 $((F * 3)) 9 >raw2.yuv
run 0 convert -q -s ${W}x$H --pixfmt i420 raw2.yuv b.y4m
cp a.y4m a.copy

# camera FX MODEL YAW NAME, rig CAMERAS... > FILE: as test_cli_stitch.sh
camera() {
    printf '{"name": "%s", "width": 160, "height": 120, "model": "%s", "fx": %s, "fy": 120,
      "cx": 79.5, "cy": 59.5, "yaw": %s, "pitch": 0, "roll": 0}' "$4" "$2" "$1" "$3"
}
rig() {
    printf '{"panorama": {"projection": "equirectangular", "width": 320, "height": 120,\n'
    printf '  "hfov": 100, "vfov": 40},\n "blend": {"feather": 16},\n "cameras": ['
    sep=""
    for c in "$@"; do
        printf '%s\n  %s' "$sep" "$c"
        sep=","
    done
    printf ']}\n'
}
rig "$(camera 120 pinhole -20 left)" "$(camera 120 pinhole 20 right)" >rig.json
cp rig.json rig.copy
CF=$((160 * 120 * 3 / 2))
gen8 $((CF * 2)) 3 >c0.yuv
gen8 $((CF * 2)) 4 >c1.yuv
run 0 convert -q -s 160x120 --pixfmt i420 c0.yuv cam0.y4m
run 0 convert -q -s 160x120 --pixfmt i420 c1.yuv cam1.y4m
cp cam1.y4m cam1.copy

# small import tables: left camera sees columns 0..15, right one 8..23
have_luts=0
if command -v python3 >/dev/null 2>&1; then
    mkdir luts
    python3 - luts <<'EOF' && have_luts=1
import array, os, sys
pw, ph, cw, off = 32, 16, 16, 8
names = ("lut_left_x", "lut_left_y", "lut_right_x", "lut_right_y", "weight_left", "weight_right")
t = {k: array.array("f") for k in names}
for j in range(ph):
    for i in range(pw):
        t["lut_left_x"].append(float(i) if i < cw else -1.0)
        t["lut_left_y"].append(float(j))
        t["lut_right_x"].append(float(i - off) if off <= i < off + cw else -1.0)
        t["lut_right_y"].append(float(j))
        t["weight_left"].append(1.0)
        t["weight_right"].append(1.0)
for k in names:
    if sys.byteorder != "little":
        t[k].byteswap()
    with open(os.path.join(sys.argv[1], k + ".bin"), "wb") as f:
        t[k].tofile(f)
EOF
fi
[ "$have_luts" -eq 1 ] || echo "test_cli_files: python3 missing: map import cases skipped"

# ---------------------------------------------------------------- a full device
# /dev/full's node made here: as root a replaced or removed node would be the
# test's own, never the system's.
if mknod full c 1 7 2>/dev/null && mknod full.png c 1 7 && mknod full.y4m c 1 7; then
    run 1 convert -q --frames 1 a.y4m full.png
    err_has "full.png: frame 0: write error: No space left on device" "convert to a full device"
    is_chardev full.png "convert to png"
    run 1 convert -q a.y4m full.y4m
    err_has "full.y4m: " "convert y4m to a full device"
    err_has "No space left on device" "convert y4m to a full device"
    is_chardev full.y4m "convert to y4m"
    run 1 rig check -q rig.json --save-map full
    err_has "No space left on device" "rig check --save-map"
    is_chardev full "rig check --save-map"
    run 1 rig check -q rig.json --png full
    err_has "No space left on device" "rig check --png"
    is_chardev full "rig check --png"
    run 1 rig check -q rig.json --json full
    err_has "No space left on device" "rig check --json"
    is_chardev full "rig check --json"
    if [ "$have_luts" -eq 1 ]; then
        run 1 map import --tables luts --pano 32x16 --camera 16x16 -o full
        err_has "No space left on device" "map import -o"
        is_chardev full "map import -o"
    fi
    run 1 vif -q --csv full a.y4m b.y4m
    err_has "No space left on device" "vif --csv"
    is_chardev full "vif --csv"
    if [ "${FOVEA_HAVE_CAIRO:-ON}" != OFF ]; then
        run 1 vif -q --plot full.png a.y4m b.y4m
        err_has "full.png: " "vif --plot"
        err_has "No space left on device" "vif --plot"
        is_chardev full.png "vif --plot"
    fi
    run 1 track -q --features 20 a.y4m -o full
    err_has "No space left on device" "track -o"
    is_chardev full "track -o"
    run 1 track -q --features 20 a.y4m --json x.json --overlay full.y4m
    err_has "No space left on device" "track --overlay"
    is_chardev full.y4m "track --overlay"
    run 1 stitch -q --rig rig.json cam0.y4m cam1.y4m --color off -o full.y4m
    err_has "No space left on device" "stitch -o"
    is_chardev full.y4m "stitch -o"
    rm -f full full.png full.y4m
else
    echo "test_cli_files: mknod not permitted (not root): device-node cases skipped"
fi
# a device the user may use without privileges: the system's reason, not "write error"
if [ -c /dev/full ]; then
    run 1 vif -q --csv /dev/full a.y4m b.y4m
    err_has "/dev/full: No space left on device" "vif --csv /dev/full"
    run 1 track -q --features 20 a.y4m -o /dev/full
    err_has "/dev/full: No space left on device" "track -o /dev/full"
    printf 'ref,dis\na.y4m,b.y4m\n' >pairs.csv
    run 1 vmaf -q --backend cpu --manifest pairs.csv --json-lines /dev/full
    err_has "write error: No space left on device" "vmaf --json-lines /dev/full"
    [ -c /dev/full ] || fail "/dev/full is gone"
fi

# ---------------------------------------------------------------- reasons
run 1 convert -q a.y4m nodir/x.y4m
err_has "nodir/x.y4m: No such file or directory" "convert into a missing directory"
run 1 track -q --features 20 a.y4m -o nodir/x.txt
err_has "nodir/x.txt: No such file or directory" "track -o into a missing directory"
mkdir adir
run 1 convert -q a.y4m adir --out-format y4m
err_has "adir: Is a directory" "convert to a directory"
run 1 vif -q --csv adir a.y4m b.y4m
err_has "adir: Is a directory" "vif --csv to a directory"

# ---------------------------------------------------------------- symlinks
mkdir real
echo old >real/t.png
ln -s real/t.png link.png
run 0 convert -q --frames 1 a.y4m link.png
[ -L link.png ] || fail "link.png is no longer a symlink"
head -c 4 real/t.png | od -c | grep -q 'P   N   G' || fail "real/t.png did not get the PNG"
ln -s real/new.map dangling.map
run 0 rig check -q rig.json --save-map dangling.map
[ -L dangling.map ] || fail "dangling.map is no longer a symlink"
[ -s real/new.map ] || fail "the symlink's target real/new.map was not written"
run 0 stitch -q --map dangling.map cam0.y4m cam1.y4m --color off -o pano.y4m

# ---------------------------------------------------------------- neighbors, modes
echo "someone else's file" >pano.map.tmp
cp pano.map.tmp tmp.copy
echo "old map" >pano.map
chmod 640 pano.map
run 0 rig check -q rig.json --save-map pano.map
same pano.map.tmp tmp.copy "rig check --save-map pano.map"
[ "$(head -c 8 pano.map)" = FOVEAMAP ] || fail "pano.map was not replaced"
case $(ls -l pano.map) in
-rw-r-----*) ;;
*) fail "pano.map lost its mode 640: $(ls -l pano.map)" ;;
esac
[ "$(ls -A | grep -c '^\.')" -eq 0 ] || fail "temporary files left behind: $(ls -A | grep '^\.')"

# a failed run leaves the old output as it was: the input ends early (truncated)
echo "old video" >keep.y4m
cp keep.y4m keep.copy
head -c $(($(wc -c <a.y4m) - 10)) a.y4m >short.y4m
run 1 convert -q short.y4m keep.y4m
err_has "truncated" "convert of a truncated input"
same keep.y4m keep.copy "failed convert"
run 1 stitch -q --rig rig.json cam0.y4m short.y4m --color off -o keep.y4m
same keep.y4m keep.copy "failed stitch"
[ "$(ls -A | grep -c '^\.')" -eq 0 ] || fail "temporary files left behind: $(ls -A | grep '^\.')"

# ---------------------------------------------------------------- output = input
run 2 convert a.y4m a.y4m
err_has "a.y4m: output is the same file as input a.y4m" "convert a.y4m a.y4m"
same a.y4m a.copy "convert a.y4m a.y4m"
ln a.y4m hard.y4m
run 2 convert a.y4m hard.y4m
err_has "output is the same file as input" "convert through a hard link"
same a.y4m a.copy "convert to a hard link of the input"
ln -s a.y4m soft.y4m
run 2 convert soft.y4m a.y4m --out-format y4m
err_has "output is the same file as input" "convert from a symlink"
run 2 convert a.y4m soft.y4m
same a.y4m a.copy "convert to a symlink to the input"
run 2 convert -q --frames 1 a.y4m x.png --json a.y4m
same a.y4m a.copy "convert --json over the input"
# a pattern: each frame's file name is checked when it is opened
run 0 convert -q --frames 1 --pixfmt-out gray8 a.y4m f0000.pgm
cp f0000.pgm f.copy
run 2 convert -q f0000.pgm f%04d.pgm
err_has "f0000.pgm: output is the same file as input f0000.pgm" "convert to a pattern"
same f0000.pgm f.copy "convert to a pattern over the input"
ln -s f0000.pgm gin.pgm
run 2 convert -q gin.pgm f%04d.pgm
same f0000.pgm f.copy "convert to a pattern over the input through a symlink"

run 2 stitch --rig rig.json cam0.y4m cam1.y4m -o cam1.y4m
err_has "cam1.y4m: output is the same file as input cam1.y4m" "stitch -o over a camera"
same cam1.y4m cam1.copy "stitch -o over a camera"
run 2 stitch --rig rig.json cam0.y4m cam1.y4m -o pano.y4m --json rig.json
same rig.json rig.copy "stitch --json over the rig"

run 2 track a.y4m --overlay hard.y4m
same a.y4m a.copy "track --overlay over the input"
run 2 track a.y4m -o soft.y4m
same a.y4m a.copy "track -o over the input"

run 2 vif a.y4m b.y4m --csv hard.y4m
run 2 vif a.y4m b.y4m --json a.y4m
run 2 vif a.y4m b.y4m --plot soft.y4m
same a.y4m a.copy "vif outputs over the reference"

run 2 rig check rig.json --save-map rig.json
run 2 rig check rig.json --png rig.json
run 2 rig check rig.json --json rig.json
same rig.json rig.copy "rig check outputs over the rig"
if [ "$have_luts" -eq 1 ]; then
    cp luts/weight_left.bin wl.copy
    run 2 map import --tables luts --pano 32x16 --camera 16x16 -o luts/weight_left.bin
    err_has "output is the same file as input" "map import -o over a table"
    same luts/weight_left.bin wl.copy "map import -o over a table"
    run 0 map import --tables luts --pano 32x16 --camera 16x16 -o imported.map
fi
exit 0
