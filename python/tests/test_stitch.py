# SPDX-License-Identifier: BSD-2-Clause-Patent
"""fovea.Stitcher: panoramas byte for byte as `fovea stitch` makes them, the
color corrections, errors."""
import json
import os

import numpy as np
import pytest

import fovea


def small_rig():
    """docs/examples/rig.json at 1/12 scale (320x180 cameras)."""
    src = os.environ.get("FOVEA_SOURCE_DIR",
                         os.path.join(os.path.dirname(__file__), "..", ".."))
    rig = json.load(open(os.path.join(src, "docs", "examples", "rig.json")))
    rig["panorama"]["width"] = 475
    rig["panorama"]["height"] = 158
    rig["blend"]["feather"] = 8
    for c in rig["cameras"]:
        c["width"], c["height"] = 320, 180
        for k in ("fx", "fy"):
            c[k] = c[k] / 12
        c["cx"], c["cy"] = 159.5, 89.5
    return rig


def cameras(fmt="rgb"):
    rng = np.random.default_rng(2)
    out = []
    for i in range(2):
        yy, xx = np.mgrid[0:180, 0:320]
        base = ((xx + yy * 2 + i * 40) % 256).astype(np.uint8)
        if fmt == "rgb":
            img = np.stack([base, 255 - base, (base // 2 + 60 * i).astype(np.uint8)], 2)
            out.append(np.clip(img + rng.integers(0, 8, img.shape), 0, 255).astype(np.uint8))
        else:
            out.append((base, np.full((90, 160), 100 + 20 * i, np.uint8),
                        np.full((90, 160), 140, np.uint8)))
    return out


def test_equal_cli(cli, tmp_path):
    rig = small_rig()
    (tmp_path / "rig.json").write_text(json.dumps(rig))
    cams = cameras()
    for i, c in enumerate(cams):
        fovea.write(tmp_path / f"c{i}.png", [c])
    cli("stitch", "--rig", tmp_path / "rig.json", "--color", "off", tmp_path / "c0.png",
        tmp_path / "c1.png", "-o", tmp_path / "pano.png")
    want = next(iter(fovea.read(tmp_path / "pano.png")))
    st = fovea.Stitcher(tmp_path / "rig.json", color="off")
    assert (st.width, st.height, st.cameras) == (475, 158, 2)
    got = st.stitch(cams)
    assert got.shape == (158, 475, 4)
    assert np.array_equal(got, want)
    # the same rig given as JSON
    assert np.array_equal(fovea.Stitcher(rig_json=rig, color="off").stitch(cams), want)


def test_yuv_and_corrections():
    st = fovea.Stitcher(rig_json=small_rig(), color="fixed")
    pano = st.stitch(cameras("yuv"))
    assert isinstance(pano, fovea.Planes) and pano.pixfmt == "i420"
    assert pano[0].shape == (158, 475)
    st.corrections = [(1.0, 1.0, 1.0, 1.0), (1.2, 1.0, 0.9, 1.1)]
    got = st.corrections
    assert np.allclose(got[1], (1.2, 1.0, 0.9, 1.1), atol=1e-6)
    assert not np.array_equal(st.stitch(cameras("yuv"))[0], pano[0])


def test_errors(tmp_path):
    with pytest.raises(fovea.Error):
        fovea.Stitcher(tmp_path / "missing.json")
    with pytest.raises(fovea.Error):
        fovea.Stitcher(rig_json="{not json")
    with pytest.raises(ValueError):
        fovea.Stitcher()
    st = fovea.Stitcher(rig_json=small_rig())
    with pytest.raises(ValueError):
        st.stitch(cameras()[:1])
    with pytest.raises(ValueError):
        st.stitch([c[:100] for c in cameras()])
    with pytest.raises(ValueError):
        fovea.Stitcher(rig_json=small_rig(), color="sometimes")
