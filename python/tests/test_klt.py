# SPDX-License-Identifier: BSD-2-Clause-Patent
"""fovea.klt.Tracker: KLT 1.3.4's numbers (the golden cases of
../shared/testdata/klt), errors, one tracker per thread."""
import json
import os
import threading

import numpy as np
import pytest

import fovea
import fovea.klt


def golden(case):
    root = os.environ.get("FOVEA_TESTDATA_EXTRACTED")
    d = os.path.join(root or "", "klt", case)
    if not root or not os.path.isdir(d):
        pytest.skip("KLT golden data (../shared/testdata/klt.tar.xz) not extracted")
    params = json.load(open(os.path.join(d, "params.json")))
    expected = json.load(open(os.path.join(d, "expected.json")))
    frames = [next(iter(fovea.read(os.path.join(d, f)))) for f in params["frames"]]
    return params, expected, frames


@pytest.mark.parametrize("case", ["b_default_noreplace", "a_default_replace"])
def test_golden(case):
    params, expected, frames = golden(case)
    t = fovea.klt.Tracker(params["nFeatures"], ctx=fovea.Context(backend="cpu"))
    replace = params["replace_lost_features"]
    for rec in expected["records"]:
        i, stage = rec["frame"], rec["stage"]
        if stage == "select":
            got = t.select(frames[i])
        elif stage == "track":
            got = t.track(frames[i])
        else:
            assert stage == "replace" and replace
            got = t.replace(frames[i])
        want = np.array(rec["features"], dtype=np.float64)
        # KLT's coordinates are floats: the golden text reads back as the float
        want[:, :2] = want[:, :2].astype(np.float32)
        assert np.array_equal(got, want), f"{case} frame {i} {stage}"


def synthetic(shift=0):
    rng = np.random.default_rng(5)
    base = rng.integers(0, 256, (130, 170), dtype=np.uint8)
    img = np.kron(base, np.ones((3, 3), np.uint8))[:360, :480]
    return np.roll(img, shift, axis=1)


def test_select_track():
    t = fovea.klt.Tracker(50, window=9, mindist=8)
    assert t.fields["window_width"] == 9
    sel = t.select(synthetic())
    assert sel.shape == (50, 3) and (sel[:, 2] > 0).all()
    tr = t.track(synthetic(2))
    ok = tr[:, 2] == fovea.klt.TRACKED
    assert ok.sum() > 40
    assert np.allclose(tr[ok, 0] - sel[ok, 0], 2, atol=0.1)
    assert np.array_equal(tr[ok, 1], tr[ok, 1])


def test_errors():
    t = fovea.klt.Tracker(10)
    with pytest.raises(ValueError):
        t.track(synthetic())  # nothing selected yet
    with pytest.raises(TypeError):
        t.select(synthetic().astype(np.float32))
    with pytest.raises(ValueError):
        t.select(np.zeros((10, 10, 3), np.uint8))
    with pytest.raises(ValueError):
        fovea.klt.Tracker(10, no_such_field=1)
    with pytest.raises(ValueError):
        fovea.klt.Tracker(0)


def test_threads():
    want = fovea.klt.Tracker(30).select(synthetic())
    res = []

    def work():
        t = fovea.klt.Tracker(30)
        for _ in range(3):
            res.append(np.array_equal(t.select(synthetic()), want))

    ts = [threading.Thread(target=work) for _ in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert len(res) == 12 and all(res)
