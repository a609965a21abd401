#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause-Patent
# `fovea vmaf` on CUDA devices (skipped, exit 77, where fovea sees none): one
# pair and a manifest on device 0 give the CPU's numbers to the last bit; with
# two or more devices, `--devices 0,1` spreads the pairs over both (every pair
# once, each device used) with the same numbers, and the wall times of one and
# two devices are printed for the note.
set -u
. "$(dirname "$0")/lib.sh" || exit 1
cli_test_setup test_cli_vmaf_gpus python3

run 0 info --json
ndev=$(python3 -c "import json, sys; print(len(json.load(open('out'))['devices']))") ||
    fail "fovea info --json"
if [ "$ndev" -eq 0 ]; then
    echo "test_cli_vmaf_gpus: no CUDA device: skipped"
    exit 77
fi

# 16 pairs of generated clips: 4 sizes (two odd), 8 and 10 bit, 6 to 9 frames
mkdir clips
echo "ref,dis,id" >m.csv
k=0
for size in 64x48 97x65 160x90 181x133; do
    W=${size%x*}
    H=${size#*x}
    for depth in 8 10; do
        for rep in 0 1; do
            n=$((6 + (k % 4)))
            F=$((W * H + 2 * ((W + 1) / 2) * ((H + 1) / 2)))
            gen8 $((F * n)) $((100 + k)) >r.yuv
            gen8 $((F * n)) $((200 + k)) >d.yuv
            run 0 convert -q -s "$size" --pixfmt i420 r.yuv r8.y4m
            run 0 convert -q -s "$size" --pixfmt i420 d.yuv d8.y4m
            if [ "$depth" = 10 ]; then
                run 0 convert -q --pixfmt-out i420p10 r8.y4m clips/r$k.y4m
                run 0 convert -q --pixfmt-out i420p10 d8.y4m clips/d$k.y4m
            else
                mv r8.y4m clips/r$k.y4m
                mv d8.y4m clips/d$k.y4m
            fi
            echo "clips/r$k.y4m,clips/d$k.y4m,p$k" >>m.csv
            k=$((k + 1))
        done
    done
done
rm -f r.yuv d.yuv r8.y4m d8.y4m

# one pair: CUDA == CPU, every frame and metric
run 0 vmaf -q --backend cpu --json c.json clips/r5.y4m clips/d5.y4m
run 0 vmaf -q --backend cuda --json g.json clips/r5.y4m clips/d5.y4m
python3 - c.json g.json <<'PY' || fail "one pair: CUDA differs from the CPU"
import json, sys
c, g = (json.load(open(f)) for f in sys.argv[1:])
assert c["frames"] == g["frames"] and c["pooled_metrics"] == g["pooled_metrics"]
assert g["fovea"]["backend"] == "cuda", g["fovea"]["backend"]
PY

# ciede (the last feature to get a CUDA extractor): the automatic backend
# scores it on CUDA, with the CPU's numbers
run 0 vmaf -q --feature ciede --json a.json clips/r5.y4m clips/d5.y4m
run 0 vmaf -q --backend cpu --feature ciede --json ac.json clips/r5.y4m clips/d5.y4m
python3 - ac.json a.json <<'PY' || fail "automatic backend with ciede differs from the CPU"
import json, sys
c, g = (json.load(open(f)) for f in sys.argv[1:])
assert c["frames"] == g["frames"] and c["pooled_metrics"] == g["pooled_metrics"]
assert g["fovea"]["backend"] == "cuda", g["fovea"]["backend"]
assert "ciede2000" in g["frames"][0]["metrics"]
PY

# features with a CUDA extractor (issue 47): the automatic backend runs them
# on CUDA, with the CPU's numbers (float_ms_ssim needs 176x176: not here)
f47="--feature psnr --feature psnr_hvs --feature float_ssim"
run 0 vmaf -q --backend cpu $f47 --json fc.json clips/r5.y4m clips/d5.y4m
run 0 vmaf -q $f47 --json fg.json clips/r5.y4m clips/d5.y4m
python3 - fc.json fg.json <<'PY' || fail "psnr, psnr_hvs, float_ssim: CUDA differs"
import json, sys
c, g = (json.load(open(f)) for f in sys.argv[1:])
assert c["frames"] == g["frames"] and c["pooled_metrics"] == g["pooled_metrics"]
assert g["fovea"]["backend"] == "cuda", g["fovea"]["backend"]
PY

# same_lines A B [DEVICES]: the same pairs with the same numbers; the devices
# of B's lines are exactly DEVICES (space-separated labels) when given
same_lines() {
    python3 - "$@" <<'PY' || fail "$2 differs from $1"
import json, sys
a = {l["index"]: l for l in map(json.loads, open(sys.argv[1]))}
b = {l["index"]: l for l in map(json.loads, open(sys.argv[2]))}
assert sorted(a) == sorted(b) == list(range(16)), (sorted(a), sorted(b))
for i in a:
    assert "error" not in b[i], b[i]["error"]
    assert a[i]["pooled_metrics"] == b[i]["pooled_metrics"], i
if len(sys.argv) > 3:
    used = sorted({l["device"] for l in b.values()})
    assert used == sorted(sys.argv[3].split()), used
PY
}

run 0 vmaf -q --manifest m.csv --backend cpu --json-lines cpu.jsonl
t0=$(date +%s.%N)
run 0 vmaf -q --manifest m.csv --devices 0 --json-lines one.jsonl
t1=$(date +%s.%N)
same_lines cpu.jsonl one.jsonl "cuda:0"
run 0 vmaf -q --manifest m.csv --devices 0 --jobs 1 --json-lines one1.jsonl
same_lines cpu.jsonl one1.jsonl "cuda:0"
if [ "$ndev" -ge 2 ]; then
    t2=$(date +%s.%N)
    run 0 vmaf -q --manifest m.csv --devices 0,1 --json-lines two.jsonl
    t3=$(date +%s.%N)
    same_lines cpu.jsonl two.jsonl "cuda:0 cuda:1"
    run 0 vmaf -q --manifest m.csv --json-lines all.jsonl
    same_lines cpu.jsonl all.jsonl
    echo "test_cli_vmaf_gpus: 16 small pairs: 1 device $(awk "BEGIN { print $t1 - $t0 }") s," \
        "2 devices $(awk "BEGIN { print $t3 - $t2 }") s (startup-bound, not the scaling figure)"
else
    echo "test_cli_vmaf_gpus: one device: the two-device checks need two"
fi
echo "test_cli_vmaf_gpus: ok"
