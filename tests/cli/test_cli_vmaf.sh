#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause-Patent
# `fovea vmaf REF DIS` end to end: libvmaf's per-frame doubles and pooled
# values from the JSON output on every golden case of the shared test data
# (names and order too), CSV, raw input, stdin, --frames, --threads, the
# model given as a file or a version, --feature-only, the plot, progress,
# frame count mismatch (common prefix + warning) and the errors.
set -u
. "$(dirname "$0")/lib.sh" || exit 1
# the JSON checks need python3 (scripts/deps.sh installs it)
cli_test_setup test_cli_vmaf python3

# ---- generated clips: 48x40 i420, 4 frames (ref) and 3 frames (dis)
W=48
H=40
F=$((W * H * 3 / 2))
gen8 $((F * 4)) 31 >ref.yuv
gen8 $((F * 3)) 32 >dis.yuv
run 0 convert -q -s ${W}x${H} --pixfmt i420 ref.yuv ref.y4m
run 0 convert -q -s ${W}x${H} --pixfmt i420 dis.yuv dis.y4m
run 0 convert -q --pixfmt-out i420p10 ref.y4m ref10.y4m
head -c $((40 * H * 3 / 2 * 2)) ref.yuv >small.yuv
run 0 convert -q -s 40x${H} --pixfmt i420 small.yuv small.y4m

NAMES="integer_adm2,integer_aim,integer_adm3,integer_adm_scale0,integer_adm_scale1,\
integer_adm_scale2,integer_adm_scale3,VMAF_integer_feature_motion_sad_score,integer_vif_scale0,\
integer_vif_scale1,integer_vif_scale2,integer_vif_scale3,integer_motion2,integer_motion3"

# summary line, JSON and CSV; differing frame counts: prefix + warning
run 0 vmaf --json o.json --csv o.csv ref.y4m dis.y4m
grep -q "^vmaf: 3 frames ${W}x${H} 8-bit  VMAF mean [0-9.]* min [0-9.]* harmonic mean [0-9.]*  (\(cpu\|cuda\)," out ||
    fail "summary: $(cat out)"
grep -q "warning:.*4 frames.*3.*first 3" err || fail "no frame count warning: $(cat err)"
[ "$(wc -l <o.csv | tr -d ' ')" -eq 4 ] || fail "o.csv: expected a header and 3 rows"
[ "$(head -n 1 o.csv)" = "Frame,$NAMES,vmaf" ] || fail "o.csv header: $(head -n 1 o.csv)"
json_ok o.json "
names = '$NAMES,vmaf'.split(',')
assert list(d) == ['version', 'fps', 'frames', 'pooled_metrics', 'aggregate_metrics', 'fovea'], list(d)
assert [f['frameNum'] for f in d['frames']] == [0, 1, 2]
for f in d['frames']:
    assert list(f['metrics']) == names, list(f['metrics'])
assert list(d['pooled_metrics']) == names
for p in d['pooled_metrics'].values():
    assert list(p) == ['min', 'max', 'mean', 'harmonic_mean']
v = [f['metrics']['vmaf'] for f in d['frames']]
p = d['pooled_metrics']['vmaf']
assert p['min'] == min(v) and p['max'] == max(v), p
assert abs(p['mean'] - sum(v) / 3) < 1e-12, p
assert d['aggregate_metrics'] == {}
assert d['fovea']['model'] == 'vmaf_v0.6.1' and d['fovea']['frames'] == 3
# frame 0 has no motion; the CSV holds the JSON's numbers to the last bit
assert d['frames'][0]['metrics']['integer_motion2'] == 0
rows = [l.split(',') for l in open('o.csv').read().split()[1:]]
for i, r in enumerate(rows):
    assert [float(x) for x in r[1:]] == [d['frames'][i]['metrics'][n] for n in names], i
"

# raw input gives the same numbers as y4m; --frames; --threads
run 0 vmaf -q -s ${W}x${H} --pixfmt i420 --frames 2 --csv raw.csv ref.yuv dis.yuv
run 0 vmaf -q --frames 2 --csv two.csv ref.y4m dis.y4m
cmp -s raw.csv two.csv || fail "raw input differs from y4m"
# the last frame of a prefix has its own motion as motion2: frame 0 matches
[ "$(sed -n 2p o.csv)" = "$(sed -n 2p two.csv)" ] || fail "--frames 2: frame 0 differs"
run 0 vmaf -q --threads 1 --csv t1.csv ref.y4m dis.y4m
cmp -s o.csv t1.csv || fail "--threads 1 gives other scores"
run 0 vmaf -q --backend cpu --csv cpu.csv ref.y4m dis.y4m
cmp -s o.csv cpu.csv || fail "--backend cpu gives other scores than the default backend"
run 0 vmaf -q --frames 0 --csv all.csv ref.y4m dis.y4m
cmp -s all.csv o.csv || fail "--frames 0 (all) differs from no --frames"
cat ref.y4m | "$FOVEA_CLI" vmaf -q --csv stdin.csv - dis.y4m >out 2>err ||
    fail "vmaf with REF on stdin failed"
cmp -s o.csv stdin.csv || fail "REF from stdin gives other scores"
run 0 vmaf --json - ref.y4m ref.y4m
grep -q '"frameNum":' out || fail "--json - did not write stdout"
grep -q "^vmaf: 4 frames" err || fail "summary not moved to stderr with --json -"

# the model as a file, as path=, as version=: the same numbers
model="${FOVEA_SOURCE_DIR:?}/models/vmaf_v0.6.1.json"
for m in "$model" "path=$model" version=vmaf_v0.6.1; do
    run 0 vmaf -q --model "$m" --csv m.csv ref.y4m dis.y4m
    cmp -s o.csv m.csv || fail "--model $m gives other scores"
done

# --feature-only: the model's features, the same values, no score
run 0 vmaf --feature-only --csv fo.csv --json fo.json ref.y4m dis.y4m
[ "$(head -n 1 fo.csv)" = "Frame,$NAMES" ] || fail "--feature-only header: $(head -n 1 fo.csv)"
cut -d, -f1-15 o.csv | cmp -s - fo.csv || fail "--feature-only: other feature values"
grep -q "^vmaf: 3 frames ${W}x${H} 8-bit  mean integer_adm2 [0-9.]* integer_aim .* integer_motion3 [0-9.]*  (\(cpu\|cuda\)," out ||
    fail "--feature-only summary: $(cat out)"
grep -q '"vmaf"' fo.json && fail "--feature-only JSON has a vmaf score"

# progress (forced on: stderr is no terminal here)
FOVEA_PROGRESS=1 "$FOVEA_CLI" vmaf ref.y4m ref.y4m >out 2>err || fail "progress run failed"
grep -q "frame 4/4 .*fps" err || fail "no progress: $(cat err)"
FOVEA_PROGRESS=1 "$FOVEA_CLI" vmaf -q --csv q.csv ref.y4m ref.y4m >out 2>err || fail "-q failed"
[ -s out ] && fail "-q --csv: a summary was printed: $(cat out)"
grep -q "frame" err && fail "-q: progress shown"

# ---- errors
run 1 vmaf -q ref.y4m small.y4m
grep -q "48x40 but .* is 40x40: VMAF needs equal sizes" err || fail "size mismatch: $(cat err)"
run 1 vmaf -q ref.y4m ref10.y4m
grep -q "8-bit but .* is 10-bit" err || fail "bit depth mismatch: $(cat err)"
run 1 vmaf -q missing.y4m dis.y4m
grep -q "^fovea: missing.y4m: " err || fail "missing file: $(cat err)"
head -n 1 ref.y4m | sed 's/ W[0-9]* / W32 /; s/ H[0-9]* / H32 /' >tiny.y4m
{ printf 'FRAME\n'; head -c 1536 ref.yuv; } >>tiny.y4m
run 1 vmaf -q tiny.y4m tiny.y4m
grep -q "^fovea: tiny.y4m: 32x32: VMAF needs at least 33x33" err || fail "size error: $(cat err)"
head -n 1 ref.y4m >empty.y4m
run 1 vmaf empty.y4m dis.y4m
grep -q "^fovea: empty.y4m: no frames" err || fail "empty REF: $(cat err)"
[ -s out ] && fail "empty REF: a score was printed: $(cat out)"
"$FOVEA_CLI" vmaf - ref.y4m <empty.y4m >out 2>err && fail "empty stdin: exit 0"
grep -q "^fovea: stdin: no frames" err || fail "empty stdin: $(cat err)"
# bad models: not JSON, a JSON that is no model, missing, unknown version
printf '{"model_dict": {' >bad.json
run 1 vmaf -q --model bad.json ref.y4m dis.y4m
grep -q "bad.json" err || fail "bad model: $(cat err)"
printf '{"model_dict": {"model_type": "RESNET"}}' >bad2.json
run 1 vmaf -q --model bad2.json ref.y4m dis.y4m
grep -q "bad2.json" err || fail "bad model 2: $(cat err)"
run 1 vmaf -q --model nomodel.json ref.y4m dis.y4m
grep -q "nomodel.json" err || fail "missing model: $(cat err)"
# the path once, not twice
[ "$(grep -o "nomodel.json" err | wc -l)" -eq 1 ] || fail "missing model named twice: $(cat err)"
# an unknown built-in name is a bad option value (exit 2), the list of names said once
run 2 vmaf -q --model version=vmaf_v9 ref.y4m dis.y4m
grep -q "vmaf_v9" err || fail "unknown version: $(cat err)"
[ "$(grep -o "built in" err | wc -l)" -eq 1 ] || fail "built-in list twice: $(cat err)"
# usage errors
run 2 vmaf -q ref.y4m
run 2 vmaf -q --model version= ref.y4m dis.y4m
run 2 vmaf -q --backend nope ref.y4m dis.y4m
run 2 vmaf -q ref.yuv dis.yuv
run 2 vmaf -q --shard 0/2 ref.y4m dis.y4m
grep -q -- "--shard goes with --manifest" err || fail "--shard alone: $(cat err)"
run 2 vmaf -q --json-lines x.jsonl ref.y4m dis.y4m
run 2 vmaf -q --csv ref.y4m ref.y4m dis.y4m
run 2 vmaf -q --json - --csv - ref.y4m dis.y4m
run 0 vmaf --help
grep -q -- "--manifest" out || fail "--help lacks --manifest"

# ---- the plot (a PNG of 1200x500; the chart's drawing is test_tools_chart's)
if [ "${FOVEA_HAVE_CAIRO:-}" = ON ]; then
    run 0 vmaf -q --plot p.png ref.y4m dis.y4m
    run 0 vmaf -q --feature-only --plot pf.png ref.y4m dis.y4m
    python3 - p.png pf.png <<'PY' || fail "the plots are no 1200x500 PNG"
import struct, sys
for f in sys.argv[1:]:
    data = open(f, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR", f
    assert struct.unpack(">II", data[16:24]) == (1200, 500), f
PY
    cmp -s p.png pf.png && fail "--feature-only drew the same plot"
    run 2 vmaf -q --plot p.jpg ref.y4m dis.y4m
    grep -q "use a .png name" err || fail "--plot p.jpg: $(cat err)"
else
    run 2 vmaf -q --plot p.png ref.y4m dis.y4m
    grep -q "needs a build with cairo" err || fail "no-cairo --plot: $(cat err)"
fi

# ---- golden cases: every number of libvmaf's JSON, exactly (libvmaf's
# plain-C path where its SIMD paths differ; akiyo_18x22 is below ADM's 33x33)
gold="${FOVEA_TESTDATA_EXTRACTED:-}/vif"
if [ -f "$gold/index.json" ]; then
    n=0
    for dir in "$gold"/*/; do
        case=$(basename "$dir")
        [ -f "$dir/expected.json" ] || continue
        if [ "$case" = akiyo_18x22_multiply ]; then
            run 1 vmaf -q "$dir/ref.y4m" "$dir/dis.y4m"
            grep -q "18x22: VMAF needs at least 33x33" err || fail "$case: $(cat err)"
            continue
        fi
        run 0 vmaf -q --json "g_$case.json" "$dir/ref.y4m" "$dir/dis.y4m"
        python3 - "$dir/expected.json" "g_$case.json" "$case" <<'PY' || fail "golden $case differs"
import json, sys
exp = json.load(open(sys.argv[1]))["features"]["vmaf_v0.6.1"]
got = json.load(open(sys.argv[2]))
# the path to match: plain C (c_only) where libvmaf's SIMD paths differ
per, pooled = dict(exp["per_frame"]), dict(exp["pooled"])
for path, alt in exp.get("other_code_paths_that_differ", {}).items():
    if path.startswith("c_only"):
        per.update(alt.get("per_frame", {}))
        pooled.update(alt.get("pooled", {}))
names = exp["feature_names_printed"]
bad = []
assert len(got["frames"]) == len(exp["frame_nums"]), "frame count"
for i, f in enumerate(got["frames"]):
    if f["frameNum"] != exp["frame_nums"][i] or list(f["metrics"]) != names:
        bad.append(f"frame {i}: numbers or names")
    for n in names:
        if f["metrics"][n] != per[n][i]:
            bad.append(f"{n}[{i}]: got {f['metrics'][n]!r}, expected {per[n][i]!r}")
if list(got["pooled_metrics"]) != names:
    bad.append("pooled names")
for n in names:
    for k, v in pooled[n].items():
        g = got["pooled_metrics"][n][k]
        if g != v:
            bad.append(f"pooled {n}.{k}: got {g!r}, expected {v!r}")
for b in bad[:8]:
    print(b)
print(f"golden {sys.argv[3]}: {'all equal' if not bad else str(len(bad)) + ' differ'}")
sys.exit(1 if bad else 0)
PY
        n=$((n + 1))
    done
    [ "$n" -ge 11 ] || fail "only $n golden cases found"
else
    echo "golden VMAF data absent: generated clips only"
fi
echo "test_cli_vmaf: ok"
