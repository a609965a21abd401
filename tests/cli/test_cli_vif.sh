#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause-Patent
# `fovea vif` end to end: libvmaf's numbers from the JSON output (a golden case
# when the shared test data is there), CSV, raw input, stdin, --frames,
# CPU == default backend, frame count mismatch (common prefix + warning) and
# the errors (sizes, bit depths).
set -u
. "$(dirname "$0")/lib.sh" || exit 1
# the JSON checks need python3 (scripts/deps.sh installs it): without it the
# test is skipped, not passed with those checks left out
cli_test_setup test_cli_vif python3

# ---- generated clips: 48x32 i420, 4 frames (ref) and 3 frames (dis)
W=48
H=32
F=$((W * H * 3 / 2))
gen8 $((F * 4)) 11 >ref.yuv
gen8 $((F * 3)) 12 >dis.yuv
run 0 convert -q -s ${W}x${H} --pixfmt i420 ref.yuv ref.y4m
run 0 convert -q -s ${W}x${H} --pixfmt i420 dis.yuv dis.y4m
run 0 convert -q --pixfmt-out i420p10 ref.y4m ref10.y4m
head -c $((W * H * 3 / 2 * 2)) ref.yuv >small.yuv
run 0 convert -q -s 32x${H} --pixfmt i420 small.yuv small.y4m

# summary line, JSON and CSV (the plot: test_cli_vif_plot.sh); differing frame
# counts: prefix + warning
run 0 vif --json o.json --csv o.csv ref.y4m dis.y4m
grep -q "^vif: 3 frames ${W}x${H} 8-bit  mean scale0 " out || fail "summary: $(cat out)"
grep -q "warning:.*4 frames.*3.*first 3" err || fail "no frame count warning: $(cat err)"
[ "$(grep -c "warning:.*4 frames" err)" -eq 1 ] || fail "the frame count warning twice: $(cat err)"
[ "$(wc -l <o.csv | tr -d ' ')" -eq 4 ] || fail "o.csv: expected a header and 3 rows"
head -n 1 o.csv | grep -q "^Frame,integer_vif_scale0,integer_vif_scale1,integer_vif_scale2,integer_vif_scale3$" ||
    fail "o.csv header: $(head -n 1 o.csv)"
for k in '"frameNum"' '"integer_vif_scale3"' '"pooled_metrics"' '"harmonic_mean"' '"fovea"' \
         '"vif_enhn_gain_limit"'; do
    grep -q "$k" o.json || fail "o.json lacks $k"
done

# raw input gives the same numbers as y4m; --frames; --debug adds num/den
run 0 vif -q -s ${W}x${H} --pixfmt i420 --frames 2 --csv raw.csv ref.yuv dis.yuv
head -n 3 o.csv | cmp -s - raw.csv || fail "raw input / --frames 2 differ from y4m"
run 0 vif -q --debug --csv dbg.csv --threads 1 ref.y4m dis.y4m
head -n 1 dbg.csv | grep -q "integer_vif_num_scale0,integer_vif_den_scale0" || fail "--debug csv header"
cut -d, -f1-5 dbg.csv | cmp -s - o.csv || fail "--debug / --threads 1 changed the scales"
run 0 vif --json - ref.y4m ref.y4m
grep -q '"frameNum":' out || fail "--json - did not write stdout"
grep -q "^vif: 4 frames" err || fail "summary not moved to stderr with --json -"

# the threaded readers: stdin input, --frames, and the CPU and default
# backends (CUDA where there is a device) agree to the last digit
cat ref.y4m | "$FOVEA_CLI" vif -q --csv stdin.csv - dis.y4m >out 2>err ||
    fail "vif with REF on stdin failed"
cmp -s o.csv stdin.csv || fail "REF from stdin gives other scores"
run 0 vif -q --backend cpu --csv cpu.csv ref.y4m dis.y4m
cmp -s o.csv cpu.csv || fail "--backend cpu gives other scores than the default backend"
run 0 vif -q --frames 1 --csv one.csv ref.y4m dis.y4m
head -n 2 o.csv | cmp -s - one.csv || fail "--frames 1 differs from the first row"
run 0 vif -q --frames 0 --csv all.csv ref.y4m dis.y4m
cmp -s all.csv o.csv || fail "--frames 0 (all) differs from no --frames"

# errors
run 1 vif -q ref.y4m small.y4m
grep -q "48x32 but .* is 32x32" err || fail "size mismatch message: $(cat err)"
run 1 vif -q ref.y4m ref10.y4m
grep -q "8-bit but .* is 10-bit" err || fail "bit depth mismatch message: $(cat err)"
run 2 vif -q ref.y4m
run 2 vif -q --gain-limit 0.5 ref.y4m dis.y4m
run 2 vif -q --backend nope ref.y4m dis.y4m
run 2 vif -q ref.yuv dis.yuv
run 1 vif -q missing.y4m dis.y4m
run 0 vif --help
grep -q -- "--plot" out || fail "--help lacks --plot"
grep -q -- "--fps" out && fail "vif --help lists --fps, which vif has no use for"
run 2 vif -q --fps 25 ref.y4m dis.y4m
grep -q "unknown option '--fps'" err || fail "vif --fps: $(cat err)"

# every size or format error names the file
head -n 1 ref.y4m | sed 's/ W[0-9]* / W8 /; s/ H[0-9]* / H8 /' >tiny.y4m
{ printf 'FRAME\n'; head -c 96 /dev/zero; } >>tiny.y4m
run 1 vif -q tiny.y4m tiny.y4m
grep -q "^fovea: tiny.y4m: 8x8: VIF needs at least 16x16" err || fail "size error: $(cat err)"

# inputs without frames: no score, exit 1 naming the file
head -n 1 ref.y4m >empty.y4m
run 1 vif empty.y4m dis.y4m
grep -q "^fovea: empty.y4m: no frames" err || fail "empty REF: $(cat err)"
[ -s out ] && fail "empty REF: a score was printed: $(cat out)"
run 1 vif ref.y4m empty.y4m
grep -q "^fovea: empty.y4m: no frames" err || fail "empty DIS: $(cat err)"
cp empty.y4m empty2.y4m
run 1 vif empty.y4m empty2.y4m
grep -q "^fovea: empty.y4m: no frames" err || fail "both empty: $(cat err)"
"$FOVEA_CLI" vif - ref.y4m <empty.y4m >out 2>err && fail "empty stdin: exit 0"
grep -q "^fovea: stdin: no frames" err || fail "empty stdin: $(cat err)"

# --quiet: no summary when --json or --csv carries the scores, else the
# summary is the result and stays
run 0 vif -q --csv q.csv ref.y4m ref.y4m
[ -s out ] && fail "-q --csv: a summary was printed: $(cat out)"
run 0 vif -q ref.y4m ref.y4m
grep -q "^vif: 4 frames" out || fail "-q alone: the scores are missing: $(cat out)"

# ---- golden case: every number of libvmaf's JSON, exactly
gold="${FOVEA_TESTDATA_EXTRACTED:-}/vif/src01_160x90"
if [ -f "$gold/expected.json" ]; then
    run 0 vif -q --debug --json g.json "$gold/ref.y4m" "$gold/dis.y4m"
    python3 - "$gold/expected.json" g.json <<'PY' || fail "golden JSON differs"
import json, sys
exp = json.load(open(sys.argv[1]))
got = json.load(open(sys.argv[2]))
bad = 0
for s in ("vif", "vif_debug"):
    per = exp["features"][s]["per_frame"]
    for name, values in per.items():
        for i, v in enumerate(values):
            g = got["frames"][i]["metrics"].get(name)
            if g != v:
                bad += 1
                if bad < 5:
                    print(f"{name}[{i}]: got {g!r}, expected {v!r}")
for name, pool in exp["features"]["vif"]["pooled"].items():
    for k, v in pool.items():
        g = got["pooled_metrics"][name][k]
        if g != v:
            bad += 1
            print(f"pooled {name}.{k}: got {g!r}, expected {v!r}")
assert len(got["frames"]) == len(exp["features"]["vif"]["frame_nums"])
print(f"golden src01_160x90: {'all equal' if not bad else str(bad) + ' differ'}")
sys.exit(1 if bad else 0)
PY
else
    echo "golden VIF data absent: generated clips only"
fi
echo "test_cli_vif: ok"
