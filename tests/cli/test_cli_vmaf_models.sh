#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause-Patent
# `fovea vmaf` with libvmaf's model and feature syntax: --model repeatable with
# parameters (version=, path=, name=, disable_clip, feature.option=), the
# scores named by the models' names in libvmaf's order, the bootstrap model's
# outputs, --feature NAME=opt=val, --feature-only / --no_prediction, the
# built-in list in --help, and the errors (exit 2 for a bad argument, naming it).
set -u
. "$(dirname "$0")/lib.sh" || exit 1
cli_test_setup test_cli_vmaf_models python3

W=48
H=40
F=$((W * H * 3 / 2))
gen8 $((F * 3)) 41 >ref.yuv
gen8 $((F * 3)) 42 >dis.yuv
run 0 convert -q -s ${W}x${H} --pixfmt i420 ref.yuv ref.y4m
run 0 convert -q -s ${W}x${H} --pixfmt i420 dis.yuv dis.y4m

# --help lists every built-in model and the parameters
run 0 vmaf --help
for m in vmaf_v0.6.1 vmaf_v0.6.1neg vmaf_4k_v0.6.1 vmaf_4k_v0.6.1neg vmaf_b_v0.6.3 \
    vmaf_v1.0.16_3d0h vmaf_v1.0.16_hfr_1d5h_2160; do
    grep -q "$m" out || fail "--help does not list $m"
done
grep -q "FEATURE.OPTION=VALUE" out || fail "--help: no model parameters"

# two models: each score under its name, libvmaf's order (features, then scores)
run 0 vmaf -m version=vmaf_v0.6.1 -m version=vmaf_v0.6.1neg:name=neg:disable_clip \
    --json two.json ref.y4m dis.y4m
json_ok two.json "
names = list(d['frames'][0]['metrics'])
assert names[-2:] == ['vmaf', 'neg'], names
assert 'integer_adm2_egl_1' in names and 'integer_vif_scale0_egl_1' in names, names
assert list(d['pooled_metrics'])[-2:] == ['vmaf', 'neg']
"
# the same model as a bare name, as a file and as path=FILE:name=: the same doubles
cp "$FOVEA_SOURCE_DIR/models/vmaf_v0.6.1neg.json" neg.json
run 0 vmaf -m vmaf_v0.6.1neg --json a.json ref.y4m dis.y4m
run 0 vmaf -m path=neg.json:name=x --json b.json ref.y4m dis.y4m
python3 -c "
import json, sys
a = json.load(open('a.json'))['frames']; b = json.load(open('b.json'))['frames']
assert [f['metrics']['vmaf'] for f in a] == [f['metrics']['x'] for f in b]
" || fail "bare name and path=FILE:name= differ"
# a feature option override suffixes the names as libvmaf does
run 0 vmaf -m version=vmaf_v0.6.1:adm.adm_enhn_gain_limit=1.2 --csv o.csv ref.y4m dis.y4m
head -n 1 o.csv | grep -q "integer_adm2_egl_1.2" || fail "override: $(head -n 1 o.csv)"

# the bootstrap model: its score, 20 sub-model scores and 4 statistics
run 0 vmaf -m vmaf_b_v0.6.3 --json b3.json ref.y4m dis.y4m
json_ok b3.json "
names = list(d['frames'][0]['metrics'])
want = ['vmaf'] + ['vmaf_%04d' % i for i in range(1, 21)] + \
    ['vmaf_bagging', 'vmaf_stddev', 'vmaf_ci_p95_lo', 'vmaf_ci_p95_hi']
assert names[-25:] == want, names
"

# --feature adds to the model's; --feature-only with --feature: those alone
run 0 vmaf --feature vif=debug=true --csv o.csv ref.y4m dis.y4m
head -n 1 o.csv | grep -q "integer_vif_num_scale0" || fail "--feature: $(head -n 1 o.csv)"
head -n 1 o.csv | grep -q ",vmaf$" || fail "--feature dropped the model: $(head -n 1 o.csv)"
run 0 vmaf --feature-only --feature vif --csv o.csv ref.y4m dis.y4m
[ "$(head -n 1 o.csv)" = "Frame,integer_vif_scale0,integer_vif_scale1,integer_vif_scale2,integer_vif_scale3" ] ||
    fail "--feature-only --feature vif: $(head -n 1 o.csv)"
run 0 vmaf --no_prediction --csv o.csv ref.y4m dis.y4m
head -n 1 o.csv | grep -q "vmaf" && fail "--no_prediction kept the score: $(head -n 1 o.csv)"

# errors: each names what is wrong; bad arguments exit 2
run 2 vmaf --feature nope ref.y4m dis.y4m
grep -q 'unknown feature "nope"' err || fail "unknown feature: $(cat err)"
run 2 vmaf --feature vif=nope=1 ref.y4m dis.y4m
grep -q 'nope' err || fail "unknown feature option: $(cat err)"
run 2 vmaf -m version=vmaf_v0.6.1:adm.nope=1 ref.y4m dis.y4m
grep -q 'adm.nope' err || fail "unknown model option: $(cat err)"
run 2 vmaf -m version=vmaf_v0.6.1:cambi2.x=1 ref.y4m dis.y4m
grep -q 'unknown feature "cambi2"' err || fail "unknown override feature: $(cat err)"
run 2 vmaf -m version=vmaf_v0.6.1:bogus ref.y4m dis.y4m
grep -q 'bogus' err || fail "bad parameter: $(cat err)"
run 2 vmaf -m version=vmaf_v9 ref.y4m dis.y4m
grep -q 'vmaf_v9' err || fail "unknown built-in: $(cat err)"
run 2 vmaf -m vmaf_v0.6.1 -m vmaf_v0.6.1neg ref.y4m dis.y4m
grep -q 'two scores named "vmaf"' err || fail "same names: $(cat err)"
printf '{"model_dict": {"model_type": "LIBSVMNUSVR"' >bad.json
run 1 vmaf -m path=bad.json ref.y4m dis.y4m
grep -q 'bad.json' err || fail "bad model file: $(cat err)"
echo "test_cli_vmaf_models: ok"
