# SPDX-License-Identifier: BSD-2-Clause-Patent
"""fovea.stream: a Sender in one thread, receive() in another, over loopback."""
import os
import threading

import numpy as np
import pytest

import fovea
from conftest import make_pair

# ctest says whether the library has the streamer: then the package must too
needs_stream = pytest.mark.skipif(
    os.environ.get("FOVEA_HAVE_STREAM", "ON" if fovea.stream.available() else "OFF") != "ON",
    reason="library built without the delta streamer")


def test_available_without_streamer():
    if fovea.stream.available():
        return
    with pytest.raises(fovea.Error, match="no delta streamer"):
        fovea.stream.Sender(like=np.zeros((8, 8), np.uint8))


def _run(frames, threshold, **kw):
    """Send frames to one receiver; returns [(number, frame)], the receiver."""
    s = fovea.stream.Sender("127.0.0.1:0", threshold=threshold, like=frames[0], **kw)
    got, err = [], []
    box = {}

    def recv():
        try:
            r = box["r"] = fovea.stream.receive(s.address, timeout=20)
            for item in r:
                got.append(item)
        except Exception as e:  # noqa: BLE001 (reported below)
            err.append(e)

    t = threading.Thread(target=recv)
    t.start()
    try:
        assert s.wait_for_receivers(1, timeout=20)
        for f in frames:
            s.send(f)
    finally:
        s.close()
        t.join(30)
    assert not err, err
    return got, box["r"]


def _planes(f):
    return list(f) if isinstance(f, tuple) else [f]


@needs_stream
def test_lossless_equal_byte_for_byte():
    ref, _ = make_pair(n=6)
    got, r = _run(ref, 0)
    assert [n for n, _ in got] == list(range(6))
    assert r.info["threshold"] == 0 and r.info["pixfmt"] == "i420"
    assert r.end == 6
    for (_, f), src in zip(got, ref):
        assert isinstance(f, fovea.Planes) and f.pixfmt == "i420"
        for a, b in zip(_planes(f), _planes(src)):
            assert a.dtype == b.dtype and a.tobytes() == np.ascontiguousarray(b).tobytes()


@needs_stream
def test_lossy_within_threshold():
    rng = np.random.default_rng(3)
    base = rng.integers(0, 256, (72, 88, 3), dtype=np.uint8)
    frames = []
    for i in range(6):  # noise within T on odd frames, a moving block beyond it
        f = base.astype(int) + rng.integers(-2, 3, base.shape) * (i % 2)
        f[8:24, 8 * i:8 * i + 16] += 60
        frames.append(np.clip(f, 0, 255).astype(np.uint8))
    got, r = _run(frames, 3)
    assert len(got) == 6 and r.info["threshold"] == 3
    worst = max(int(np.abs(f.astype(int) - src.astype(int)).max())
                for (_, f), src in zip(got, frames))
    assert worst <= 3
    # deltas skipped some change: not all frames are exact copies
    assert any(not np.array_equal(f, src) for (_, f), src in zip(got, frames))


@needs_stream
def test_gray16_lossless():
    frames = [np.arange(40 * 56, dtype=np.uint16).reshape(40, 56) * (i + 1) for i in range(3)]
    got, _ = _run(frames, 0, tile=8)
    assert all(np.array_equal(f, src) and f.dtype == np.uint16
               for (_, f), src in zip(got, frames))


@needs_stream
def test_refused_by_max_clients():
    frame = np.zeros((32, 32), np.uint8)
    with fovea.stream.Sender(max_clients=1, like=frame, linger=1) as s:
        r1 = fovea.stream.receive(s.address, timeout=10)
        assert s.wait_for_receivers(1, timeout=10)
        done = {}

        def second():
            try:
                with fovea.stream.receive(s.address, timeout=10) as r2:
                    r2.hello()
            except fovea.Error as e:
                done["e"] = e

        t = threading.Thread(target=second)
        t.start()
        while t.is_alive():
            s.poll(0.05)
        assert "e" in done
        assert "max_clients 1" in str(done["e"]) and "turned away" in str(done["e"])
        assert s.stats["refused"] == 1
        s.send(frame)
        r1.close()


@needs_stream
def test_bad_arguments():
    f = np.zeros((16, 16), np.uint8)
    with pytest.raises(TypeError):
        fovea.stream.Sender(threshold="1", like=f)
    with pytest.raises(ValueError):
        fovea.stream.Sender(threshold=-1, like=f)
    with pytest.raises(ValueError):
        fovea.stream.Sender(tile=12, like=f)
    with pytest.raises(ValueError):
        fovea.stream.Sender("nohost", like=f)
    with pytest.raises(TypeError):
        fovea.stream.Sender(5, like=f)
    with pytest.raises(ValueError):
        fovea.stream.Sender(width=16, like=None, height=None, pixfmt=None)
    with pytest.raises(TypeError):
        fovea.stream.receive(1234)
    with pytest.raises(ValueError):
        fovea.stream.receive("127.0.0.1")
    with pytest.raises(ValueError):
        fovea.stream.receive("127.0.0.1:1", timeout=0)
    with fovea.stream.Sender(like=f, linger=0) as s:
        with pytest.raises(ValueError):
            s.send(np.zeros((16, 8), np.uint8))
        with pytest.raises(TypeError):
            s.send(np.zeros((16, 16), np.float32))


@needs_stream
def test_lazy_open_and_connection_refused():
    s = fovea.stream.Sender()
    assert s.address is None
    s.send(np.zeros((8, 8), np.uint8))
    addr = s.address
    assert addr.startswith("127.0.0.1:")
    s.close()
    with pytest.raises(fovea.Error):
        fovea.stream.receive(addr, timeout=2)
