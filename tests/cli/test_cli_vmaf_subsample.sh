#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause-Patent
# `fovea vmaf` and `fovea vif`: --start (pairs skipped in both inputs),
# --subsample N (libvmaf's: frames 0, N, 2N, ... scored and pooled, motion
# still from consecutive frames) and libvmaf's -r/-d spellings of REF and
# DIS. Golden: libvmaf 3.2.0's own `vmaf --subsample` numbers (plain C,
# %.17g, below) on a case of the shared test data.
set -u
. "$(dirname "$0")/lib.sh" || exit 1
cli_test_setup test_cli_vmaf_subsample python3

# ---- generated clips: 48x40 i420, 6 frames
W=48
H=40
F=$((W * H * 3 / 2))
gen8 $((F * 6)) 41 >ref.yuv
gen8 $((F * 6)) 42 >dis.yuv
run 0 convert -q -s ${W}x${H} --pixfmt i420 ref.yuv ref.y4m
run 0 convert -q -s ${W}x${H} --pixfmt i420 dis.yuv dis.y4m
run 0 convert -q --start 2 ref.y4m ref2.y4m
run 0 convert -q --start 2 dis.y4m dis2.y4m

for cmd in vmaf vif; do
    run 0 $cmd --help
    for o in "-r, --reference FILE" "-d, --distorted FILE" "--start N" "--subsample N"; do
        out_has "$o" "$cmd --help"
    done
    # -r/-d give the numbers of REF DIS
    run 0 $cmd -q --csv pos.csv ref.y4m dis.y4m
    run 0 $cmd -q --csv rd.csv -d dis.y4m -r ref.y4m
    cmp -s pos.csv rd.csv || fail "$cmd: -r/-d differ from REF DIS"
    run 0 $cmd -q --csv long.csv --reference ref.y4m --distorted=dis.y4m
    cmp -s pos.csv long.csv || fail "$cmd: --reference/--distorted differ from REF DIS"
    run 2 $cmd -r ref.y4m dis.y4m
    err_has "--reference without --distorted" "$cmd -r alone"
    run 2 $cmd -r ref.y4m -d dis.y4m dis.y4m
    err_has "no REF DIS arguments (got 1)" "$cmd -r -d and an argument"
    run 2 $cmd --subsample 0 ref.y4m dis.y4m
    err_has "--subsample" "$cmd --subsample 0"
    run 2 $cmd --start -1 ref.y4m dis.y4m
    err_has "--start" "$cmd --start -1"
    # --start N: the pairs after the first N, as a clip cut by convert --start
    run 0 $cmd -q --json s.json --start 2 ref.y4m dis.y4m
    run 0 $cmd -q --json cut.json ref2.y4m dis2.y4m
    python3 - s.json cut.json <<'PY' || fail "$cmd --start 2 differs from the cut clip"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
assert a["frames"] == b["frames"] and a["pooled_metrics"] == b["pooled_metrics"]
assert len(a["frames"]) == 4 and a["fovea"]["start"] == 2, a["fovea"]
assert "start" not in b["fovea"]
PY
    run 0 $cmd --start 2 --frames 3 ref.y4m dis.y4m
    out_match "^$cmd: 3 frames " "$cmd --start 2 --frames 3"
    run 1 $cmd --start 6 ref.y4m dis.y4m
    err_has "ref.y4m: no frames left after --start 6" "$cmd --start 6"
    run 1 $cmd --start 9 -r ref.y4m -d dis.y4m
    err_has "no frames left after --start 9" "$cmd --start 9"
    # a stream of unknown length (stdin) skipped to its end
    run 1 $cmd --start 6 - dis.y4m <ref.y4m
    err_has "no frames left after --start 6" "$cmd --start 6 on stdin"
    # --subsample 4: frames 0 and 4 of the full run, pooled over those
    run 0 $cmd -q --json all.json --csv all.csv ref.y4m dis.y4m
    run 0 $cmd --json sub.json --csv sub.csv --subsample 4 ref.y4m dis.y4m
    out_match "^$cmd: 2 frames (1 in 4 of 6 read) " "$cmd --subsample 4 summary"
    python3 - all.json sub.json all.csv sub.csv <<'PY' || fail "$cmd --subsample 4 is not frames 0 and 4"
import json, sys
a, s = (json.load(open(p)) for p in sys.argv[1:3])
assert [f["frameNum"] for f in s["frames"]] == [0, 4], s["frames"]
assert [f["metrics"] for f in s["frames"]] == [a["frames"][i]["metrics"] for i in (0, 4)]
for name, p in s["pooled_metrics"].items():
    v = [a["frames"][i]["metrics"][name] for i in (0, 4)]
    assert p["min"] == min(v) and p["max"] == max(v) and p["mean"] == (v[0] + v[1]) / 2, name
assert s["fovea"]["subsample"] == 4 and s["fovea"]["frames"] == 2
rows = open(sys.argv[4]).read().split()
assert [r.split(",")[0] for r in rows] == ["Frame", "0", "4"], rows
assert rows[1:] == [open(sys.argv[3]).read().split()[i + 1] for i in (0, 4)]
PY
done
# with --manifest the pairs come from the manifest: not -r/-d
printf 'ref,dis\nref.y4m,dis.y4m\n' >pairs.csv
run 2 vmaf --manifest pairs.csv -r ref.y4m -d dis.y4m
err_has "no REF DIS arguments" "--manifest with -r/-d"
# ... but --start and --subsample apply to each pair
run 0 vmaf --manifest pairs.csv --json-lines m.jsonl --start 2 --subsample 2 --backend cpu
json_ok m.jsonl "
assert d['frames'] == 2, d
"

# ---- golden: libvmaf 3.2.0 (vmaf-c-17g, plain C, --threads 1) on src01_160x90:
#   sub5:       --subsample 5
#   sub3s7f20:  --subsample 3 --frame_skip_ref 7 --frame_skip_dist 7 --frame_cnt 20
#   vif_sub4s3: --feature vif --no_prediction --subsample 4 --frame_skip_ref 3 --frame_skip_dist 3
cat >libvmaf.json <<'JSON'
{"sub5": {"frameNum": [0, 5, 10, 15, 20, 25, 30, 35, 40, 45], "per_frame": {"integer_adm2":
[0.9883156476122905, 0.9822268346943956, 0.9779181521920876, 0.9789481783428334,
0.9806670486119351, 0.9815851312678711, 0.981908727804622, 0.9780983580995402, 0.97642796296359,
0.9817891327778334], "integer_vif_scale0": [0.8133967518806458, 0.6777552366256714,
0.6621876358985901, 0.6758140921592712, 0.6613302230834961, 0.721139132976532, 0.6971821784973145,
0.6699927449226379, 0.6693707704544067, 0.7224183082580566], "integer_motion2": [0,
1.2071321614583332, 1.1149872504340277, 1.1171286349826388, 1.4859337022569445,
1.4844297960069444, 1.331003689236111, 1.3518082682291668, 1.510019259982639, 1.631155056423611],
"vmaf": [93.9139167641647, 92.25399399672229, 90.85479297702388, 91.13967129964657,
91.74862818409594, 92.66650252632826, 93.02159283605704, 92.04757803277971, 92.01366393503274,
94.04381535237154]}, "pooled": {"integer_adm2": {"min": 0.97642796296359, "max":
0.9883156476122905, "mean": 0.9807885174366999, "harmonic_mean": 0.9807835013372135},
"integer_vif_scale0": {"min": 0.6613302230834961, "max": 0.8133967518806458, "mean":
0.6970587074756622, "harmonic_mean": 0.6959531101378291}, "integer_motion2": {"min": 0, "max":
1.631155056423611, "mean": 1.2233597819010416, "harmonic_mean": 1.0679658571716417}, "vmaf":
{"min": 90.85479297702388, "max": 94.04381535237154, "mean": 92.37041559042225, "harmonic_mean":
92.3595909227588}}}, "sub3s7f20": {"frameNum": [0, 3, 6, 9, 12, 15, 18], "per_frame":
{"integer_adm2": [0.9823260065771703, 0.9779181521920876, 0.9763987256084637, 0.9778217375030493,
0.9816598356273807, 0.9845961141045336, 0.9815851312678711], "integer_vif_scale0":
[0.6639503836631775, 0.6621876358985901, 0.6630576848983765, 0.6473091840744019,
0.6504994630813599, 0.6836003661155701, 0.721139132976532], "integer_motion2": [0,
1.1149872504340277, 1.1742529296875, 1.180747341579861, 1.29559326171875, 1.6463072374131944,
1.4844297960069444], "vmaf": [91.0042161243163, 90.85479297702388, 90.5631663874711,
90.58212755914413, 91.84057755188783, 93.47447030689926, 92.66650252632826]}, "pooled":
{"integer_adm2": {"min": 0.9763987256084637, "max": 0.9845961141045336, "mean":
0.9803293861257938, "harmonic_mean": 0.9803255562262516}, "integer_vif_scale0": {"min":
0.6473091840744019, "max": 0.721139132976532, "mean": 0.6702491215297154, "harmonic_mean":
0.669926271121907}, "integer_motion2": {"min": 0, "max": 1.6463072374131944, "mean":
1.128045402405754, "harmonic_mean": 0.9405032114482295}, "vmaf": {"min": 90.5631663874711, "max":
93.47447030689926, "mean": 91.56940763329582, "harmonic_mean": 91.55758196111648}}}, "vif_sub4s3":
{"frameNum": [0, 4, 8, 12, 16, 20, 24, 28, 32, 36, 40, 44], "per_frame": {"integer_vif_scale0":
[0.7227516174316406, 0.6639503836631775, 0.663170576095581, 0.6758140921592712,
0.6504994630813599, 0.7001441121101379, 0.7114387154579163, 0.6655826568603516,
0.6699927449226379, 0.6891339421272278, 0.6856719255447388, 0.7372264266014099],
"integer_vif_scale3": [0.9893217086791992, 0.9817411303520203, 0.9725577235221863,
0.9774599075317383, 0.976784348487854, 0.9767267107963562, 0.9843260645866394, 0.9827474355697632,
0.9840302467346191, 0.9871504306793213, 0.9868337512016296, 0.9910960793495178]}, "pooled":
{"integer_vif_scale0": {"min": 0.6504994630813599, "max": 0.7372264266014099, "mean":
0.6862813880046209, "harmonic_mean": 0.6858954782884292}, "integer_vif_scale3": {"min":
0.9725577235221863, "max": 0.9910960793495178, "mean": 0.9825646281242371, "harmonic_mean":
0.9825495986652473}}}}
JSON
gold="${FOVEA_TESTDATA_EXTRACTED:-}/vif/src01_160x90"
if [ -f "$gold/expected.json" ]; then
    run 0 vmaf -q --threads 1 --json g5.json --subsample 5 -r "$gold/ref.y4m" -d "$gold/dis.y4m"
    run 0 vmaf -q --json g3.json --subsample 3 --start 7 --frames 20 "$gold/ref.y4m" \
        "$gold/dis.y4m"
    run 0 vif -q --json gv.json --subsample 4 --start 3 "$gold/ref.y4m" "$gold/dis.y4m"
    python3 - libvmaf.json "$gold/expected.json" <<'PY' || fail "golden subsample differs"
import json, sys
exp = json.load(open(sys.argv[1]))
full = json.load(open(sys.argv[2]))["features"]["vmaf_v0.6.1"]["per_frame"]
bad = []
for name, path in (("sub5", "g5.json"), ("sub3s7f20", "g3.json"), ("vif_sub4s3", "gv.json")):
    e, g = exp[name], json.load(open(path))
    if [f["frameNum"] for f in g["frames"]] != e["frameNum"]:
        bad.append(f"{name}: frame numbers {[f['frameNum'] for f in g['frames']]}")
        continue
    for m, vals in e["per_frame"].items():
        got = [f["metrics"][m] for f in g["frames"]]
        if got != vals:
            bad.append(f"{name} {m}: got {got}, expected {vals}")
    for m, pool in e["pooled"].items():
        if g["pooled_metrics"][m] != pool:
            bad.append(f"{name} pooled {m}: got {g['pooled_metrics'][m]}, expected {pool}")
# every metric of a subsampled frame is the full run's (libvmaf's golden data)
g = json.load(open("g5.json"))
for f in g["frames"]:
    for m, v in f["metrics"].items():
        if m in full and full[m][f["frameNum"]] != v:
            bad.append(f"sub5 frame {f['frameNum']} {m}: {v} vs full run {full[m][f['frameNum']]}")
for b in bad[:8]:
    print(b)
sys.exit(1 if bad else 0)
PY
else
    echo "golden VMAF data absent: generated clips only"
fi
echo "test_cli_vmaf_subsample: ok"
