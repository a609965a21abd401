# SPDX-License-Identifier: BSD-2-Clause-Patent
"""fovea.read / fovea.write: y4m, raw yuv, PNG, PNM, media; frames of every
kind; bad shapes and dtypes raise before any work."""
import numpy as np
import pytest

import fovea
from conftest import have_media, make_pair


def frames_equal(a, b):
    if isinstance(a, tuple):
        return len(a) == len(b) and all(np.array_equal(x, y) for x, y in zip(a, b))
    return np.array_equal(a, b)


def test_context():
    c = fovea.Context(backend="cpu", threads=2)
    assert c.backend == "cpu" and c.threads == 2 and c.device == -1
    with pytest.raises(ValueError):
        fovea.Context(backend="nope")
    if fovea.device_count() == 0:
        with pytest.raises(fovea.Error) as e:
            fovea.Context(backend="cuda")
        assert e.value.status < 0 and str(e.value)


def test_y4m_roundtrip(tmp_path, pair):
    ref, _ = pair
    p = tmp_path / "a.y4m"
    assert fovea.write(p, ref, fps=(30000, 1001)) == len(ref)
    r = fovea.read(p)
    assert (r.width, r.height, r.pixfmt) == (176, 144, "i420")
    assert (r.info["fps_num"], r.info["fps_den"]) == (30000, 1001)
    got = list(r)
    assert len(got) == len(ref)
    assert all(isinstance(g, fovea.Planes) and g.pixfmt == "i420" for g in got)
    assert all(frames_equal(g, f) for g, f in zip(got, ref))


def test_10bit_roundtrip(tmp_path):
    ref, _ = make_pair(n=2, depth=10)
    p = tmp_path / "a10.y4m"
    fovea.write(p, ref, bit_depth=10)
    got = list(fovea.read(p))
    assert got[0].pixfmt == "i420p10" and got[0].bit_depth == 10
    assert all(frames_equal(g, f) for g, f in zip(got, ref))


def test_raw_yuv(tmp_path, pair):
    ref, _ = pair
    p = tmp_path / "a.yuv"
    fovea.write(p, ref)
    got = list(fovea.read(p, width=176, height=144, pixfmt="i420"))
    assert len(got) == len(ref) and frames_equal(got[3], ref[3])


@pytest.mark.parametrize("ext", ["png", "ppm"])
def test_images(tmp_path, ext):
    rng = np.random.default_rng(3)
    rgb = rng.integers(0, 256, (37, 53, 3), dtype=np.uint8)
    p = tmp_path / f"x.{ext}"
    fovea.write(p, [rgb])
    (got,) = list(fovea.read(p))
    assert got.shape == (37, 53, 3) and np.array_equal(got, rgb)
    gray = rng.integers(0, 65536, (20, 30), dtype=np.uint16)
    p = tmp_path / "g.png"
    fovea.write(p, [gray])
    assert np.array_equal(next(iter(fovea.read(p))), gray)


def test_image_sequence(tmp_path):
    frames = [np.full((8, 12, 4), i * 10, np.uint8) for i in range(3)]
    fovea.write(tmp_path / "s%03d.png", frames)
    got = list(fovea.read(tmp_path / "s%03d.png"))
    assert len(got) == 3 and all(np.array_equal(a, b) for a, b in zip(got, frames))


def test_media(tmp_path, pair):
    if not have_media():
        pytest.skip("this libfovea has no FFmpeg")
    ref, _ = pair
    p = tmp_path / "a.mkv"
    fovea.write(p, ref, fps=25)  # ffv1: lossless
    got = list(fovea.read(p))
    assert len(got) == len(ref) and all(frames_equal(g, f) for g, f in zip(got, ref))


def test_strided_input(tmp_path):
    big = np.arange(40 * 64, dtype=np.uint8).reshape(40, 64)
    view = big[5:25, 10:40]  # rows strided
    p = tmp_path / "v.y4m"
    fovea.write(p, [view])
    assert np.array_equal(next(iter(fovea.read(p))), view)


def test_errors(tmp_path):
    with pytest.raises(fovea.Error) as e:
        fovea.read(tmp_path / "missing.y4m")
    assert "missing.y4m" in str(e.value)
    p = tmp_path / "x.y4m"
    with pytest.raises(TypeError):
        fovea.write(p, [np.zeros((8, 8), np.float32)])
    with pytest.raises(ValueError):
        fovea.write(p, [np.zeros((8, 8, 2), np.uint8)])
    with pytest.raises(ValueError):  # chroma fitting no layout
        fovea.write(p, [(np.zeros((8, 8), np.uint8), np.zeros((3, 3), np.uint8),
                         np.zeros((3, 3), np.uint8))])
    with pytest.raises(ValueError):  # sizes change
        fovea.write(p, [np.zeros((8, 8), np.uint8), np.zeros((8, 10), np.uint8)])
    with pytest.raises(ValueError):
        fovea.write(p, [np.zeros((8, 8), np.uint16)], bit_depth=9)
    with pytest.raises(ValueError):  # a row's samples not contiguous
        fovea.write(p, [np.zeros((8, 16), np.uint8)[:, ::2]])
    with pytest.raises(TypeError):
        fovea.write(p, ["not a frame"])
