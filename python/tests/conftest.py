# SPDX-License-Identifier: BSD-2-Clause-Patent
"""Shared fixtures: deterministic frames, y4m pairs and the CLI to compare with
(FOVEA_CLI, set by ctest; tests comparing with it skip without it)."""
import os
import subprocess

import numpy as np
import pytest

import fovea


def make_pair(n=5, w=176, h=144, seed=7, depth=8):
    """n deterministic I420 reference frames (a moving gradient and texture)
    and distorted copies (noise), as Planes."""
    rng = np.random.default_rng(seed)
    dtype = np.uint8 if depth == 8 else np.uint16
    top = (1 << depth) - 1
    yy, xx = np.mgrid[0:h, 0:w]
    tex = rng.integers(0, top // 4, (h + 16, w + 16))
    ref, dis = [], []
    for i in range(n):
        y = (xx * 3 + yy * 2 + i * 5) % (top // 2) + tex[i:i + h, i:i + w]
        y = np.clip(y, 0, top).astype(dtype)
        u = np.full(((h + 1) // 2, (w + 1) // 2), top // 2, dtype)
        v = u.copy()
        noise = rng.integers(-(top // 40) - 1, top // 40 + 2, y.shape)
        d = np.clip(y.astype(np.int64) + noise, 0, top).astype(dtype)
        ref.append((y, u, v))
        dis.append((d, u.copy(), v.copy()))
    return ref, dis


@pytest.fixture
def pair():
    return make_pair()


@pytest.fixture
def y4m_pair(tmp_path, pair):
    ref, dis = pair
    r, d = tmp_path / "ref.y4m", tmp_path / "dis.y4m"
    fovea.write(r, ref, fps=25)
    fovea.write(d, dis, fps=25)
    return str(r), str(d), ref, dis


@pytest.fixture
def cli():
    path = os.environ.get("FOVEA_CLI")
    if not path or not os.path.exists(path):
        pytest.skip("FOVEA_CLI (the fovea command) not set")

    def run(*args):
        return subprocess.run([path, *map(str, args)], check=True, capture_output=True)

    return run


def have_media():
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        try:
            fovea.write(os.path.join(d, "x.mkv"), [np.zeros((16, 16), np.uint8)])
            return True
        except fovea.Error:
            return False
