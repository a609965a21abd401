# SPDX-License-Identifier: BSD-2-Clause-Patent
"""fovea.vmaf / VmafScorer: the same numbers as `fovea vmaf --json`, to the
byte, from files and from numpy frames; errors; threads."""
import json
import re
import threading

import numpy as np
import pytest

import fovea
from conftest import make_pair


def no_fps(text):
    return re.sub(r'\n\t"fps":\t[^\n]*\n', "\n", text)


def cli_json(cli, tmp_path, *args):
    out = tmp_path / "cli.json"
    cli("vmaf", "-q", *args, "--json", out)
    return out.read_text()


def test_files_equal_cli(cli, tmp_path, y4m_pair):
    r, d, _, _ = y4m_pair
    res = fovea.vmaf(r, d)
    assert no_fps(res.to_json()) == no_fps(cli_json(cli, tmp_path, r, d))
    doc = json.loads(res.to_json())
    assert res.pooled["vmaf"] == doc["pooled_metrics"]["vmaf"]
    assert list(res.frames) == list(doc["frames"][0]["metrics"])
    for i, f in enumerate(doc["frames"]):
        for k, v in f["metrics"].items():
            assert res.frames[k][i] == v


def test_files_pipeline_equal_cli(cli, tmp_path):
    """fovea.vmaf(path, path) runs the CLI's pipeline (reader threads, rings
    smaller than the run, batches pending): the same numbers as the CLI over
    a long run, a frame limit with subsample, and a shorter distorted file."""
    ref, dis = make_pair(n=15, w=96, h=64, seed=3)
    more = make_pair(n=15, w=96, h=64, seed=4)
    ref, dis = ref + more[0], dis + more[1]
    r, d, d_short = tmp_path / "r.y4m", tmp_path / "d.y4m", tmp_path / "ds.y4m"
    fovea.write(r, ref, fps=25)
    fovea.write(d, dis, fps=25)
    fovea.write(d_short, dis[:23], fps=25)
    ctx = fovea.Context(threads=2)
    cases = [((r, d), {}, ()),
             ((r, d), {"subsample": 3, "max_frames": 20}, ("--subsample", 3, "--frames", 20)),
             ((r, d_short), {}, ())]
    for (rp, dp), kw, args in cases:
        res = fovea.vmaf(str(rp), str(dp), ctx=ctx, **kw)
        doc = json.loads(cli_json(cli, tmp_path, rp, dp, "--threads", 2, *args))
        got = res.to_dict()
        assert got["frames"] == doc["frames"], (rp, dp, kw)
        assert got["pooled_metrics"] == doc["pooled_metrics"], (rp, dp, kw)
        assert len(got["frames"]) == {0: 30, 1: 7, 2: 23}[cases.index(((rp, dp), kw, args))]
        # and the frames pushed one at a time
        n = kw.get("max_frames") or None
        arr = fovea.vmaf(ref[:n], (dis[:23] if dp == d_short else dis)[:n], ctx=ctx,
                         subsample=kw.get("subsample", 1))
        assert arr.to_dict()["frames"] == doc["frames"]


def test_arrays_equal_cli(cli, tmp_path, y4m_pair):
    r, d, ref, dis = y4m_pair
    res = fovea.vmaf(ref, dis)
    cli_doc = json.loads(cli_json(cli, tmp_path, r, d))
    doc = res.to_dict()
    assert doc["frames"] == cli_doc["frames"]
    assert doc["pooled_metrics"] == cli_doc["pooled_metrics"]
    assert res.pooled == cli_doc["pooled_metrics"]
    # luma only: gray frames give the same numbers
    gray = fovea.vmaf([f[0] for f in ref], [f[0] for f in dis])
    assert gray.to_dict()["frames"] == cli_doc["frames"]


def test_features_equal_cli(cli, tmp_path, y4m_pair):
    r, d, ref, dis = y4m_pair
    res = fovea.vmaf(r, d, features=("psnr", "vif:vif_enhn_gain_limit=1.0"))
    text = cli_json(cli, tmp_path, r, d, "--feature", "psnr", "--feature",
                    "vif=vif_enhn_gain_limit=1.0")
    assert json.loads(res.to_json())["frames"] == json.loads(text)["frames"]
    only = fovea.vmaf(ref, dis, model=None, features="psnr")
    text = cli_json(cli, tmp_path, r, d, "--feature-only", "--feature", "psnr")
    assert only.to_dict()["frames"] == json.loads(text)["frames"]
    assert "vmaf" not in only.frames and "psnr_y" in only.frames


def test_10bit_equal_cli(cli, tmp_path):
    ref, dis = make_pair(n=3, depth=10)
    r, d = tmp_path / "r10.y4m", tmp_path / "d10.y4m"
    fovea.write(r, ref, bit_depth=10)
    fovea.write(d, dis, bit_depth=10)
    cli_doc = json.loads(cli_json(cli, tmp_path, r, d))
    assert fovea.vmaf(ref, dis, bit_depth=10).to_dict()["frames"] == cli_doc["frames"]
    assert fovea.vmaf(str(r), str(d)).to_dict()["frames"] == cli_doc["frames"]
    # the same samples read as 16-bit are another input: other numbers
    assert fovea.vmaf(ref, dis).to_dict()["frames"] != cli_doc["frames"]


def test_scorer_push(pair):
    ref, dis = pair
    s = fovea.VmafScorer()
    for a, b in zip(ref, dis):
        s.push(a, b)
    res = s.result()
    assert len(res) == len(ref) and res.frames["vmaf"].dtype == np.float64
    assert res.to_dict()["frames"] == fovea.vmaf(ref, dis).to_dict()["frames"]
    assert set(res.pooled["vmaf"]) == {"min", "max", "mean", "harmonic_mean"}


def test_models():
    names = fovea.builtin_vmaf_models()
    assert "vmaf_v0.6.1" in names and "vmaf_v0.6.1neg" in names
    ref, dis = make_pair(n=2)
    res = fovea.vmaf(ref, dis, model=["vmaf_v0.6.1", "version=vmaf_v0.6.1neg:name=neg"])
    assert "vmaf" in res.frames and "neg" in res.frames


def test_errors(pair):
    ref, dis = pair
    with pytest.raises(fovea.Error) as e:
        fovea.vmaf(ref, dis, model="no_such_model")
    assert "no_such_model" in str(e.value)
    with pytest.raises(fovea.Error):
        fovea.vmaf(ref, dis, features="no_such_feature")
    with pytest.raises(ValueError):  # sizes differ
        fovea.vmaf([ref[0][0]], [ref[0][0][:, :100]])
    with pytest.raises(TypeError):
        fovea.vmaf([ref[0][0].astype(np.float32)], [ref[0][0]])
    with pytest.raises(ValueError):
        fovea.vmaf([np.zeros((64, 64, 3), np.uint8)], [np.zeros((64, 64, 3), np.uint8)])
    with pytest.raises(fovea.Error):  # too small for ADM
        fovea.vmaf([np.zeros((20, 20), np.uint8)], [np.zeros((20, 20), np.uint8)])
    with pytest.raises(TypeError):
        fovea.vmaf("a.y4m", dis)


def test_threads_same_answers(pair):
    ref, dis = pair
    want = fovea.vmaf(ref, dis).to_dict()["frames"]
    got = [None] * 4
    errors = []

    def work(i):
        try:
            got[i] = fovea.vmaf(ref, dis, ctx=fovea.Context(threads=1 + i % 2)).to_dict()["frames"]
        except Exception as e:  # pragma: no cover
            errors.append(e)

    ts = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert not errors and all(g == want for g in got)


def test_scorer_one_thread_at_a_time(pair):
    ref, dis = pair
    big = np.random.default_rng(1).integers(0, 256, (1080, 1920), dtype=np.uint8)
    s = fovea.VmafScorer(ctx=fovea.Context(threads=1))
    busy = []

    def push():
        try:
            for _ in range(3):
                s.push(big, big)
        except RuntimeError as e:
            busy.append(e)

    ts = [threading.Thread(target=push) for _ in range(3)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    # either the pushes interleaved cleanly or a second thread was refused;
    # never a crash or a corrupt count
    res = s.result()
    assert len(res) + 3 * len(busy) >= 3
