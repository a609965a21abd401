#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause-Patent
# `fovea rig check` on rigs with misspelt, case-different, repeated or
# NUL-holding keys: exit 1 with "fovea: FILE: <where>: <what>" (these used to
# be reported valid, the intended value silently not applied).
set -u
. "$(dirname "$0")/lib.sh" || exit 1
cli_test_setup test_cli_rig_keys

# rig BLEND PANORAMA_EXTRA CAMERA1_EXTRA > FILE: two pinholes, 320x120 panorama
rig() {
    printf '{"panorama": {"projection": "equirectangular", "width": 320, "height": 120,
  "hfov": 100, "vfov": 40%s},
 "blend": {%s},
 "cameras": [
  {"name": "left", "width": 160, "height": 120, "model": "pinhole", "fx": 120, "fy": 120,
   "cx": 79.5, "cy": 59.5, "yaw": -20},
  {"name": "right", "width": 160, "height": 120, "model": "pinhole", "fx": 120, "fy": 120,
   "cx": 79.5, "cy": 59.5%s}]}
' "$2" "$1" "$3"
}

rig '"feather": 16' '' ', "yaw": 20' >good.json
run 0 rig check good.json
grep -F -q "good.json: valid" out || fail "good.json: not reported valid"

rig '"fether": 16' '' ', "yaw": 20' >feather.json
run 1 rig check feather.json
err_has 'fovea: feather.json: blend: unknown key "fether" (did you mean "feather"?)' "fether"

rig '"feather": 16' '' ', "Yaw": 20' >case.json
run 1 rig check case.json
err_has 'fovea: case.json: cameras[1]: unknown key "Yaw" (did you mean "yaw"?)' "Yaw"

rig '"feather": 16' '' ', "yaw": 20, "distortion": [0.1]' >dist.json
run 1 rig check dist.json
err_has 'fovea: dist.json: cameras[1]: unknown key "distortion" (did you mean "dist"?)' \
    "distortion"

rig '"feather": 16' ', "pich": 3' ', "yaw": 20' >pano.json
run 1 rig check pano.json
err_has 'fovea: pano.json: panorama: unknown key "pich" (did you mean "pitch"?)' "pich"

rig '"feather": 16, "feather": 0' '' ', "yaw": 20' >dup.json
run 1 rig check dup.json
err_has 'fovea: dup.json: blend: duplicate key "feather"' "duplicate feather"

rig '"feather": 16' '' ', "ya\u0000w": 20' >nul.json
run 1 rig check nul.json
err_has 'fovea: nul.json: the key at line 8, column 28 contains a NUL character' "NUL in a key"
exit 0
