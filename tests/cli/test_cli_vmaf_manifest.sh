#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause-Patent
# `fovea vmaf --manifest`: a JSON line per pair with the pair's manifest index,
# the same pooled numbers as single-pair runs, CSV and JSON-lines manifests
# (paths relative to the manifest's folder), shards 0/2 and 1/2 giving every
# pair exactly once, a bad pair (missing file, bad model) failing alone with
# an error line and exit 1, malformed manifests refused with file:line, usage
# errors; and the docs' Slurm script and Kubernetes Job run with their array
# index variables set, checked to score every pair once.
set -u
. "$(dirname "$0")/lib.sh" || exit 1
cli_test_setup test_cli_vmaf_manifest python3

# five pairs of generated clips (48x40 i420, 3 to 5 frames) under clips/
W=48
H=40
F=$((W * H * 3 / 2))
mkdir clips sub
for k in 0 1 2 3 4; do
    n=$((3 + k % 3))
    gen8 $((F * n)) $((40 + k)) >r.yuv
    gen8 $((F * n)) $((50 + k)) >d.yuv
    run 0 convert -q -s ${W}x${H} --pixfmt i420 r.yuv clips/r$k.y4m
    run 0 convert -q -s ${W}x${H} --pixfmt i420 d.yuv clips/d$k.y4m
done
rm -f r.yuv d.yuv

# single-pair runs: the reference numbers (pair 1 with --frames 2)
for k in 0 1 2 3 4; do
    fr=0
    [ $k -eq 1 ] && fr=2
    run 0 vmaf -q --frames $fr --json s$k.json clips/r$k.y4m clips/d$k.y4m
done

cat >m.csv <<'EOF'
# five pairs; ids, a frame limit and a model column
ref,dis,id,frames,model

clips/r0.y4m,clips/d0.y4m,first,,
clips/r1.y4m, clips/d1.y4m ,"second, with a comma",2,
"clips/r2.y4m","clips/d2.y4m",third,0,version=vmaf_v0.6.1
clips/r3.y4m,clips/d3.y4m,,,
clips/r4.y4m,clips/d4.y4m,fifth,,
EOF

# check_lines FILE INDICES: FILE has one line per index (each once), and each
# successful line's pooled metrics equal the single-pair run's to the last bit
check_lines() {
    python3 - "$1" "$2" <<'PY' || fail "$1: unexpected lines"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
want = sorted(int(x) for x in sys.argv[2].split(",") if x)
got = sorted(l["index"] for l in lines)
assert got == want, f"indices {got}, expected {want}"
ids = {0: "first", 1: "second, with a comma", 2: "third", 3: "clips/d3.y4m", 4: "fifth"}
for l in lines:
    i = l["index"]
    assert l["id"] == ids[i], l["id"]
    assert l["ref"] == f"clips/r{i}.y4m" and l["dis"] == f"clips/d{i}.y4m", l
    assert "error" not in l, l["error"]
    s = json.load(open(f"s{i}.json"))
    assert l["frames"] == len(s["frames"]), (i, l["frames"])
    assert l["pooled_metrics"] == s["pooled_metrics"], f"pair {i}: pooled metrics differ"
    assert l["vmaf"] == s["pooled_metrics"]["vmaf"], i
    assert l["device"] == "cpu" or l["device"].startswith("cuda:"), l["device"]
    assert l["fps"] > 0 and l["model"] == "vmaf_v0.6.1", l
PY
}

# every pair, from another folder (paths are the manifest's), three workers
cd sub || exit 1
run 0 vmaf --manifest ../m.csv --jobs 3 --json-lines ../all.jsonl
cd .. || exit 1
check_lines all.jsonl 0,1,2,3,4
grep -q "^vmaf: 5 pairs: 5 scored, 0 failed  (3 .*workers" sub/out ||
    fail "summary: $(cat sub/out)"
# the results go to stdout by default, the summary then to stderr
run 0 vmaf --manifest m.csv --backend cpu --jobs 2 --threads 1
cp out stdout.jsonl
check_lines stdout.jsonl 0,1,2,3,4
grep -q "^vmaf: 5 pairs: 5 scored, 0 failed  (2 CPU workers x 1 thread" err ||
    fail "summary on stderr: $(cat err)"

# shards: 0/2 and 1/2 together give every pair exactly once
run 0 vmaf -q --manifest m.csv --shard 0/2 --json-lines sh0.jsonl
run 0 vmaf -q --manifest m.csv --shard 1/2 --json-lines sh1.jsonl
check_lines sh0.jsonl 0,2,4
check_lines sh1.jsonl 1,3
cat sh0.jsonl sh1.jsonl >both.jsonl
check_lines both.jsonl 0,1,2,3,4
run 0 vmaf -q --manifest m.csv --shard 4/7 --json-lines sh4.jsonl
check_lines sh4.jsonl 4
run 0 vmaf -q --manifest m.csv --shard 5/7 --json-lines sh5.jsonl
[ -s sh5.jsonl ] && fail "an empty shard wrote lines"

# the same pairs as JSON lines, from stdin (absolute paths)
here=$(pwd)
python3 - "$here" >m.jsonl <<'PY'
import json, sys
ids = ["first", "second, with a comma", "third", None, "fifth"]
for k in range(5):
    o = {"ref": f"{sys.argv[1]}/clips/r{k}.y4m", "dis": f"{sys.argv[1]}/clips/d{k}.y4m"}
    if ids[k]:
        o["id"] = ids[k]
    if k == 1:
        o["frames"] = 2
    print(json.dumps(o))
PY
"$FOVEA_CLI" vmaf -q --manifest - --json-lines js.jsonl <m.jsonl >out 2>err ||
    fail "JSON lines from stdin: $(cat err)"
python3 - js.jsonl all.jsonl <<'PY' || fail "JSON-lines manifest gives other numbers"
import json, sys
a = {l["index"]: l for l in map(json.loads, open(sys.argv[1]))}
b = {l["index"]: l for l in map(json.loads, open(sys.argv[2]))}
assert sorted(a) == sorted(b) == list(range(5))
for i in a:
    assert a[i]["pooled_metrics"] == b[i]["pooled_metrics"], i
    assert a[i]["id"] == (b[i]["id"] if i != 3 else a[i]["dis"]), (a[i]["id"], b[i]["id"])
PY

# a bad pair (missing file) and a bad model fail alone: their lines carry the
# error, the others are scored, the exit status is 1
printf 'not json' >badmodel.json
cat >bad.csv <<EOF
ref,dis,id,model
clips/r0.y4m,clips/d0.y4m,ok0,
clips/r1.y4m,clips/missing.y4m,gone,
clips/r2.y4m,clips/d2.y4m,badmodel,badmodel.json
clips/r3.y4m,clips/d3.y4m,ok3,$here/badmodel.json
clips/r4.y4m,clips/d4.y4m,ok4,${FOVEA_SOURCE_DIR:?}/models/vmaf_v0.6.1.json
EOF
run 1 vmaf -q --manifest bad.csv --json-lines bad.jsonl
err_has "bad.csv:3: pair 1 (gone): " "missing file"
err_has "missing.y4m" "missing file"
err_has "bad.csv:4: pair 2 (badmodel): " "bad model"
python3 - bad.jsonl <<'PY' || fail "bad pairs: unexpected lines"
import json, sys
lines = {l["index"]: l for l in map(json.loads, open(sys.argv[1]))}
assert sorted(lines) == [0, 1, 2, 3, 4], sorted(lines)
assert "missing.y4m" in lines[1]["error"] and "pooled_metrics" not in lines[1]
assert "badmodel.json" in lines[2]["error"] and "badmodel.json" in lines[3]["error"]
for i in (0, 4):
    assert "error" not in lines[i], lines[i]
    assert lines[i]["pooled_metrics"] == json.load(open(f"s{i}.json"))["pooled_metrics"], i
PY

# malformed manifests: every bad line named with file:line, nothing scored
cat >mal.csv <<'EOF'
ref,dis,frames
clips/r0.y4m,clips/d0.y4m,
clips/r1.y4m
# fine
clips/r2.y4m,clips/d2.y4m,many
EOF
run 1 vmaf --manifest mal.csv --json-lines mal.jsonl
err_has "mal.csv:3: 1 field, the header has 3" "short line"
err_has "mal.csv:5: frames: expected a non-negative integer, got 'many'" "bad frames"
err_has "mal.csv: 2 malformed lines: nothing scored" "malformed summary"
[ -e mal.jsonl ] && fail "a malformed manifest wrote results"
printf '{"ref": "clips/r0.y4m", "dis": "clips/d0.y4m"}\n{"ref": "x", "dist": "y"}\n' >mal.jsonl
run 1 vmaf --manifest mal.jsonl
err_has "mal.jsonl:2: unknown key 'dist'" "JSON lines key"
[ -s out ] && fail "a malformed JSON-lines manifest printed results"
printf '# nothing\n' >empty.csv
run 1 vmaf --manifest empty.csv
err_has "no pairs" "empty manifest"
run 1 vmaf --manifest nothere.csv
err_has "nothere.csv" "missing manifest"

# usage errors
for s in 2/2 3/2 1 -1/2 a/b 0/0; do
    run 2 vmaf --manifest m.csv --shard "$s"
    err_has "--shard: expected I/N with 0 <= I < N" "--shard $s"
done
run 2 vmaf --manifest m.csv --devices 0,0
run 2 vmaf --manifest m.csv --jobs 0
run 2 vmaf --manifest m.csv --json x.json
err_has "--json is for one pair" "--json with --manifest"
run 2 vmaf --manifest m.csv clips/r0.y4m clips/d0.y4m
run 2 vmaf --manifest m.csv --json-lines m.csv
run 2 vmaf --manifest m.csv --backend cpu --devices 0 --json-lines x.jsonl
err_has "not with --backend cpu" "--devices with --backend cpu"
# a device that is not there (none here; at most a few on a GPU machine)
run 1 vmaf --manifest m.csv --devices 63 --json-lines x.jsonl
err_has "no CUDA device" "--devices 63"

# ---- the docs' examples: the Slurm array script and the Kubernetes Job,
# run with the variables Slurm and Kubernetes set, score every pair once
ex="$FOVEA_SOURCE_DIR/docs/examples"
if command -v bash >/dev/null 2>&1; then
    # --array=0-2 (count 3), then --array=1-3 and --array=0-4:2 (ids 0, 2, 4)
    for array in "0 1 2" "1 2 3" "0 2 4"; do
        set -- $array
        min=$1
        step=$(($2 - $1))
        rm -rf res
        for id in $array; do
            SLURM_ARRAY_TASK_ID=$id SLURM_ARRAY_TASK_MIN=$min SLURM_ARRAY_TASK_STEP=$step \
                SLURM_ARRAY_TASK_COUNT=3 FOVEA="$FOVEA_CLI" \
                bash "$ex/vmaf-slurm.sh" m.csv res --backend cpu >out 2>err ||
                fail "slurm task $id of '$array': $(cat err)"
        done
        check_lines res/shard-0.jsonl 0,3
        check_lines res/shard-1.jsonl 1,4
        check_lines res/shard-2.jsonl 2
    done
else
    echo "bash not found: the Slurm script is not run"
fi
mkdir bin
ln -s "$FOVEA_CLI" bin/fovea
python3 - "$ex/vmaf-k8s-job.yaml" "$here" <<'PY' || fail "the Kubernetes Job's shards"
import json, os, subprocess, sys
try:
    import yaml
except ImportError:
    print("python3 yaml not found: the Kubernetes Job's command is not run")
    sys.exit(0)
job = yaml.safe_load(open(sys.argv[1]))
spec = job["spec"]
assert spec["completionMode"] == "Indexed"
c = spec["template"]["spec"]["containers"][0]
env = {e["name"]: e["value"] for e in c["env"]}
assert int(env["SHARDS"]) == spec["completions"], "SHARDS must equal completions"
here = sys.argv[2]
seen = []
for i in range(spec["completions"]):
    e = dict(os.environ, JOB_COMPLETION_INDEX=str(i), SHARDS=env["SHARDS"],
             MANIFEST=f"{here}/m.csv", RESULTS=f"{here}/k8s",
             PATH=f"{here}/bin:" + os.environ["PATH"])
    r = subprocess.run(c["command"] + c["args"], env=e)
    assert r.returncode == 0, f"index {i}: exit {r.returncode}"
    for l in open(f"{here}/k8s/shard-{i}.jsonl"):
        k = json.loads(l)["index"]
        assert k % spec["completions"] == i, (k, i)
        seen.append(k)
assert sorted(seen) == [0, 1, 2, 3, 4], seen
PY
# a features column: each row's features join the model's (and the command's
# --feature), with the numbers of a single-pair run with the same --feature
run 0 vmaf -q --json f0.json --feature psnr clips/r0.y4m clips/d0.y4m
run 0 vmaf -q --json f1.json --feature psnr --feature float_ssim=enable_lcs=true \
    clips/r1.y4m clips/d1.y4m
run 0 vmaf -q --json f2.json --feature psnr --feature float_ssim clips/r2.y4m clips/d2.y4m
printf '%s\n' 'ref,dis,features' 'clips/r0.y4m,clips/d0.y4m,' \
    'clips/r1.y4m,clips/d1.y4m,"float_ssim=enable_lcs=true"' \
    'clips/r2.y4m,clips/d2.y4m,float_ssim' >f.csv
run 0 vmaf -q --manifest f.csv --feature psnr --json-lines f.jsonl
printf '%s\n' \
    '{"ref": "clips/r1.y4m", "dis": "clips/d1.y4m", "features": ["psnr", "float_ssim=enable_lcs=true"]}' \
    '{"ref": "clips/r2.y4m", "dis": "clips/d2.y4m", "features": "psnr; float_ssim"}' >f.jsonl.in
run 0 vmaf -q --manifest f.jsonl.in --json-lines fj.jsonl
python3 - <<'PY' || fail "features column: other numbers than --feature"
import json
lines = {l["index"]: l for l in map(json.loads, open("f.jsonl"))}
assert sorted(lines) == [0, 1, 2], sorted(lines)
for i in range(3):
    s = json.load(open(f"f{i}.json"))
    assert lines[i]["pooled_metrics"] == s["pooled_metrics"], f"pair {i}"
assert "float_ssim_l" in lines[1]["pooled_metrics"] and "psnr_y" in lines[2]["pooled_metrics"]
assert "float_ssim" not in lines[0]["pooled_metrics"]
js = {l["index"]: l for l in map(json.loads, open("fj.jsonl"))}
for i, k in ((0, 1), (1, 2)):
    assert js[i]["pooled_metrics"] == json.load(open(f"f{k}.json"))["pooled_metrics"], i
PY
# malformed features: a manifest error naming the line
printf 'ref,dis,features\nclips/r0.y4m,clips/d0.y4m,=psnr\n' >fbad.csv
run 1 vmaf -q --manifest fbad.csv --json-lines fbad.jsonl
err_has "fbad.csv:2: " "malformed features"
err_has "features: expected NAME" "malformed features"
printf '%s\n' '{"ref": "clips/r0.y4m", "dis": "clips/d0.y4m", "features": [1]}' >fbad.jsonl.in
run 1 vmaf -q --manifest fbad.jsonl.in --json-lines fbad2.jsonl
err_has "fbad.jsonl.in:1: " "features not strings"
err_has "features: expected strings" "features not strings"
# an unknown feature fails its pair alone, with the library's reason
printf 'ref,dis,features\nclips/r0.y4m,clips/d0.y4m,nosuchfeature\nclips/r1.y4m,clips/d1.y4m,psnr\n' >func.csv
run 1 vmaf -q --manifest func.csv --json-lines func.jsonl
python3 - <<'PY' || fail "an unknown feature"
import json
lines = {l["index"]: l for l in map(json.loads, open("func.jsonl"))}
assert "nosuchfeature" in lines[0]["error"], lines[0]
assert "error" not in lines[1] and "psnr_y" in lines[1]["pooled_metrics"], lines[1]
PY

echo "test_cli_vmaf_manifest: ok"
