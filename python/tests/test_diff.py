# SPDX-License-Identifier: BSD-2-Clause-Patent
"""fovea.diff: maps byte for byte as `fovea diff` writes them; settings;
errors; threads."""
import threading

import numpy as np
import pytest

import fovea
import fovea.diff
from conftest import make_pair


@pytest.fixture
def rgb_pair():
    rng = np.random.default_rng(11)
    a = rng.integers(0, 256, (72, 100, 3), dtype=np.uint8)
    b = a.copy()
    b[10:30, 20:60] = rng.integers(0, 256, (20, 40, 3), dtype=np.uint8)
    b = np.clip(b.astype(int) + rng.integers(-3, 4, b.shape), 0, 255).astype(np.uint8)
    return a, b


def test_heatmap_noise_mask_equal_cli(cli, tmp_path, rgb_pair):
    a, b = rgb_pair
    fovea.write(tmp_path / "in%d.png", [a, b])
    cli("diff", tmp_path / "in%d.png", "--heatmap", tmp_path / "heat.png", "--noise",
        tmp_path / "noise.png", "--mask", tmp_path / "mask.png")
    heat = next(iter(fovea.read(tmp_path / "heat.png")))
    assert np.array_equal(fovea.diff.heatmap(a, b), heat)
    noise = next(iter(fovea.read(tmp_path / "noise.png")))
    assert np.array_equal(fovea.diff.noise(a, b), noise)
    mask = next(iter(fovea.read(tmp_path / "mask.png")))
    m = fovea.diff.mask(a, b)
    assert np.array_equal(m.image(), mask)
    assert m.changed_tiles == len(m.tiles) > 0
    assert all(m.changed[ty, tx] for tx, ty in m.tiles)


def test_yuv_heatmap_equal_cli(cli, tmp_path):
    ref, dis = make_pair(n=2)
    frames = [ref[0], dis[1]]
    fovea.write(tmp_path / "in.y4m", frames)
    cli("diff", tmp_path / "in.y4m", "--heatmap", tmp_path / "heat.y4m", "--threshold", "4",
        "--denoise", "median3")
    want = next(iter(fovea.read(tmp_path / "heat.y4m")))
    got = fovea.diff.heatmap(*frames, pixfmt="i420", denoise="median3", threshold=4)
    assert all(np.array_equal(x, y) for x, y in zip(got, want))


def test_denoise_sigma(rgb_pair):
    a, b = rgb_pair
    d = fovea.diff.denoise(a, "median3")
    assert d.shape == a.shape and not np.array_equal(d, a)
    assert fovea.diff.noise_sigma(a, a) == 0.0
    s = fovea.diff.noise_sigma(a, b)
    assert 0 < s < 10
    auto = fovea.diff.mask(a, b, threshold=None)
    assert auto.threshold == int(np.ceil(3 * s))


def test_differ_temporal_state(rgb_pair):
    a, b = rgb_pair
    d = fovea.diff.Differ(denoise="temporal", temporal_strength=128)
    first = d.heatmap(a, b)
    second = d.heatmap(a, b)
    assert not np.array_equal(first, second)  # the filter keeps state
    d.reset()
    assert np.array_equal(d.heatmap(a, b), first)


def test_errors(rgb_pair):
    a, b = rgb_pair
    with pytest.raises(ValueError):
        fovea.diff.heatmap(a, b[:, :50])
    with pytest.raises(TypeError):
        fovea.diff.heatmap(a.astype(np.int16), b)
    with pytest.raises(ValueError):
        fovea.diff.mask(a, b, tile=12)
    with pytest.raises(ValueError):
        fovea.diff.Differ(measure="mean")
    with pytest.raises(ValueError):
        fovea.diff.Differ().heatmap(a, b, out=np.zeros((5, 5, 3), np.uint8))


def test_threads(rgb_pair):
    a, b = rgb_pair
    want = fovea.diff.heatmap(a, b)
    out = []

    def work():
        for _ in range(5):
            out.append(np.array_equal(fovea.diff.heatmap(a, b), want))

    ts = [threading.Thread(target=work) for _ in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert len(out) == 20 and all(out)
