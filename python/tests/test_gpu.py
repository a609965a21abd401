# SPDX-License-Identifier: BSD-2-Clause-Patent
"""GPU arrays in and out: fovea.DeviceArray, a minimal foreign object offering
__cuda_array_interface__ over memory from the library, DLPack both ways;
the results equal the host path's (VMAF numbers, diff maps byte for byte,
the panorama, KLT features); bad device, dtype and shape raise before work.
The tests marked `gpu` skip without a CUDA device; the others run anywhere
(protocol plumbing, errors on a CPU context)."""
import gc
import weakref

import numpy as np
import pytest

import fovea
import fovea.diff
import fovea.klt
from conftest import make_pair

HAVE_GPU = fovea.cuda_compiled() and fovea.device_count() > 0
gpu = pytest.mark.skipif(not HAVE_GPU, reason="no CUDA device (or a CPU-only libfovea)")


class Foreign:
    """The smallest producer of the CUDA array interface: a pointer, a shape,
    strides and a stream, over memory someone else owns (kept in `keep`)."""

    def __init__(self, ptr, shape, typestr, strides=None, stream=None, readonly=False,
                 keep=None, version=3):
        self.__cuda_array_interface__ = {"shape": tuple(shape), "typestr": typestr,
                                         "data": (ptr, readonly), "strides": strides,
                                         "version": version}
        if version >= 3:
            self.__cuda_array_interface__["stream"] = stream
        self.keep = keep


def foreign_of(d, stream=None):
    """A Foreign view of a DeviceArray d (its pointer, shape and strides)."""
    return Foreign(d.ptr, d.shape, d.dtype.str, d.strides, stream, keep=d)


class DLPackOnly:
    """Only the DLPack protocol of x (a consumer must go through the capsule)."""

    def __init__(self, x):
        self.x = x
        self.streams = []

    def __dlpack__(self, stream=None):
        self.streams.append(stream)
        return self.x.__dlpack__(stream=stream)

    def __dlpack_device__(self):
        return self.x.__dlpack_device__()


class FakeCudaTensor:
    """A DLPack producer claiming CUDA memory: consuming it on a CPU context
    must fail before __dlpack__ is called."""

    def __dlpack__(self, stream=None):
        raise AssertionError("__dlpack__ called for a CPU context")

    def __dlpack_device__(self):
        return (2, 0)


@pytest.fixture
def cuda():
    if not HAVE_GPU:
        pytest.skip("no CUDA device")
    return fovea.Context(backend="cuda")


@pytest.fixture
def cpu():
    return fovea.Context(backend="cpu")


def rgb_pair(h=72, w=100, seed=11):
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 256, (h, w, 3), dtype=np.uint8)
    b = a.copy()
    b[10:30, 20:60] = rng.integers(0, 256, (20, 40, 3), dtype=np.uint8)
    return a, np.clip(b.astype(int) + rng.integers(-3, 4, b.shape), 0, 255).astype(np.uint8)


# ---------------------------------------------------------------- anywhere

def test_device_array_on_cpu_context_raises(cpu):
    a, b = rgb_pair()
    fake = Foreign(0x10000, a.shape, "|u1")  # never read: refused before any work
    with pytest.raises(ValueError, match="CUDA context"):
        fovea.diff.heatmap(fake, b, ctx=cpu)
    with pytest.raises(ValueError, match="CUDA context"):
        fovea.diff.heatmap(FakeCudaTensor(), b, ctx=cpu)
    with pytest.raises(ValueError, match="CUDA context"):
        fovea.vmaf([Foreign(0x10000, (64, 64), "|u1")], [np.zeros((64, 64), np.uint8)],
                   ctx=cpu)
    with pytest.raises(ValueError, match="CUDA context"):
        fovea.to_device(a, ctx=cpu)
    with pytest.raises(ValueError, match="CUDA context"):
        fovea.diff.heatmap(a, b, out="device", ctx=cpu)
    with pytest.raises(ValueError, match="CUDA context"):
        fovea.klt.Tracker(10, ctx=cpu).select(Foreign(0x10000, (64, 64), "|u1"))


def test_foreign_bad_dtype_shape_raise(cpu):
    a, b = rgb_pair()
    with pytest.raises(TypeError, match="uint8 or uint16"):
        fovea.diff.heatmap(Foreign(0x10000, a.shape, "<f4"), b, ctx=cpu)
    with pytest.raises(ValueError, match="stream 0"):
        fovea.diff.heatmap(Foreign(0x10000, a.shape, "|u1", stream=0), b, ctx=cpu)
    with pytest.raises(ValueError):
        fovea.diff.heatmap(Foreign(0x10000, (72, 100, 5), "|u1"), b, ctx=cpu)
    # a column-strided view: the samples of a row are not contiguous
    with pytest.raises(ValueError, match="contiguous"):
        fovea.diff.heatmap(Foreign(0x10000, a.shape, "|u1", strides=(600, 6, 1)), b, ctx=cpu)


def test_host_dlpack_is_a_host_array(cpu):
    a, b = rgb_pair()
    want = fovea.diff.heatmap(a, b, ctx=cpu)
    assert np.array_equal(fovea.diff.heatmap(DLPackOnly(a), b, ctx=cpu), want)


def test_device_array_protocols_without_gpu():
    keep = object()
    d = fovea.DeviceArray(0x20000, (4, 6), (256, 1), np.uint8, owner=keep, device=0,
                          stream=0x1234)
    cai = d.__cuda_array_interface__
    assert cai["version"] == 3 and cai["shape"] == (4, 6) and cai["typestr"] == "|u1"
    assert cai["data"] == (0x20000, False) and cai["strides"] == (256, 1)
    assert cai["stream"] == 0x1234
    assert d.__dlpack_device__() == (2, 0)
    c = fovea.DeviceArray(0x20000, (4, 6, 2), None, np.uint16, owner=keep)
    assert c.strides == (24, 4, 2) and c.__cuda_array_interface__["strides"] is None
    assert c.__cuda_array_interface__["typestr"] == "<u2" and c.nbytes == 96


def test_dlpack_capsule_round_trip_keeps_owner():
    """fovea's capsule (out) read back by fovea's consumer (in): pointer, shape,
    strides and type survive; the capsule keeps its owner alive until the
    consumer gives it back."""
    from fovea import _fovea

    class Owner:
        pass

    owner = Owner()
    ref = weakref.ref(owner)
    cap = _fovea.dlpack_give(owner, 0x30000, (5, 7, 3), (64, 3, 1), (1, 8), (2, 0))
    del owner
    gc.collect()
    assert ref() is not None
    holder, ptr, shape, strides, dtype, device = _fovea.dlpack_take(cap)
    assert (ptr, shape, strides, dtype, device) == (0x30000, (5, 7, 3), (64, 3, 1), (1, 8, 1),
                                                    (2, 0))
    with pytest.raises(TypeError):
        _fovea.dlpack_take(cap)  # consumed
    del cap
    gc.collect()
    assert ref() is not None  # the holder has it
    del holder
    gc.collect()
    assert ref() is None
    # a capsule nobody consumed gives its owner back too
    owner = Owner()
    ref = weakref.ref(owner)
    cap = _fovea.dlpack_give(owner, 0x30000, (5, 7), (7, 1), (1, 16), (2, 0))
    del owner, cap
    gc.collect()
    assert ref() is None


# ---------------------------------------------------------------- on the GPU

@gpu
@pytest.mark.parametrize("shape,dtype", [((33, 47), np.uint8), ((20, 31, 3), np.uint8),
                                         ((17, 9, 4), np.uint16), ((40, 64), np.uint16)])
def test_to_device_and_back(cuda, shape, dtype):
    rng = np.random.default_rng(3)
    a = rng.integers(0, 1000 if dtype == np.uint16 else 256, shape).astype(dtype)
    d = fovea.to_device(a, ctx=cuda)
    assert isinstance(d, fovea.DeviceArray) and d.shape == a.shape and d.dtype == a.dtype
    assert d.__cuda_array_interface__["stream"] == cuda.cuda_stream
    assert np.array_equal(d.get(), a)
    assert np.array_equal(np.asarray(d), a)
    # a crop of a strided host array, and a foreign view of the device copy
    crop = a[3:, 2:]
    dc = fovea.to_device(crop, ctx=cuda)
    assert np.array_equal(fovea.to_host(foreign_of(dc)), crop)


@gpu
def test_vmaf_device_frames_equal_host(cuda, cpu):
    ref, dis = make_pair(n=6, w=176, h=144)
    want = fovea.vmaf(ref, dis, ctx=cpu)
    host_gpu = fovea.vmaf(ref, dis, ctx=cuda)
    dref = [fovea.to_device(f, ctx=cuda) for f in ref]
    ddis = [fovea.to_device(f, ctx=cuda) for f in dis]
    own = fovea.vmaf(dref, ddis, ctx=cuda)
    # foreign arrays ordered on another context's stream
    other = fovea.Context(backend="cuda")
    fref = [tuple(foreign_of(fovea.to_device(p, ctx=other), other.cuda_stream) for p in f)
            for f in ref]
    fdis = [tuple(foreign_of(fovea.to_device(p, ctx=other), other.cuda_stream) for p in f)
            for f in dis]
    foreign = fovea.vmaf(fref, fdis, ctx=cuda)
    dl = fovea.vmaf([tuple(DLPackOnly(p) for p in f) for f in dref],
                    [tuple(DLPackOnly(p) for p in f) for f in ddis], ctx=cuda)
    for res in (host_gpu, own, foreign, dl):
        assert res.names == want.names
        for name in want.names:
            assert np.array_equal(res.frames[name], want.frames[name]), name
        assert res.pooled == want.pooled


@gpu
def test_vmaf_scorer_holds_device_pairs(cuda):
    ref, dis = make_pair(n=4)
    s = fovea.VmafScorer(ctx=cuda)
    refs = []
    for r, d in zip(ref, dis):
        dr = fovea.to_device(r, ctx=cuda)
        refs.append(weakref.ref(dr[0]))
        s.push(dr, fovea.to_device(d, ctx=cuda))
        del dr
    res = s.result()
    gc.collect()
    assert all(w() is None for w in refs)  # let go once scored
    assert np.array_equal(res.frames["vmaf"], fovea.vmaf(ref, dis, ctx=cuda).frames["vmaf"])


@gpu
def test_vmaf_misaligned_uint16_is_copied_on_device(cuda):
    ref, dis = make_pair(n=3, depth=10)
    want = fovea.vmaf(ref, dis, bit_depth=10, ctx=cuda)

    def odd(y):  # the 16-bit samples one byte into a device row
        h, w = y.shape
        z = np.zeros((h, 2 * w + 2), np.uint8)
        z[:, 1:2 * w + 1] = y.view(np.uint8).reshape(h, 2 * w)
        dz = fovea.to_device(z, ctx=cuda)
        return Foreign(dz.ptr + 1, (h, w), "<u2", (dz.strides[0], 2), keep=dz)

    got = fovea.vmaf([odd(f[0]) for f in ref], [odd(f[0]) for f in dis], bit_depth=10,
                     ctx=cuda)
    assert np.array_equal(got.frames["vmaf"], want.frames["vmaf"])


@gpu
def test_diff_device_in_and_out(cuda, cpu):
    a, b = rgb_pair()
    da, db = fovea.to_device(a, ctx=cuda), fovea.to_device(b, ctx=cuda)
    for fn, kw in ((fovea.diff.heatmap, {}), (fovea.diff.heatmap, {"pixfmt": "i420"}),
                   (fovea.diff.noise, {"threshold": 8})):
        want = fn(a, b, ctx=cpu, **kw)
        host_out = fn(da, db, ctx=cuda, **kw)
        dev_out = fn(foreign_of(da), DLPackOnly(db), out="device", ctx=cuda, **kw)
        if isinstance(want, tuple):
            assert all(isinstance(p, fovea.DeviceArray) for p in dev_out)
            assert dev_out.pixfmt == "i420"
            for w, h, d in zip(want, host_out, fovea.to_host(dev_out)):
                assert np.array_equal(w, h) and np.array_equal(w, d)
        else:
            assert isinstance(dev_out, fovea.DeviceArray)
            assert np.array_equal(want, host_out)
            assert np.array_equal(want, dev_out.get())
    m_want = fovea.diff.mask(a, b, ctx=cpu)
    m = fovea.diff.mask(da, foreign_of(db), ctx=cuda)
    assert np.array_equal(m.changed, m_want.changed) and m.threshold == m_want.threshold
    assert fovea.diff.noise_sigma(da, db, ctx=cuda) == fovea.diff.noise_sigma(a, b, ctx=cpu)
    g = a[:, :, 0].copy()
    want = fovea.diff.denoise(g, "median3", ctx=cpu)
    got = fovea.diff.denoise(fovea.to_device(g, ctx=cuda), "median3", out="device", ctx=cuda)
    assert np.array_equal(got.get(), want)
    # a device result feeds the next call without leaving the GPU
    heat = fovea.diff.heatmap(da, db, out="device", ctx=cuda)
    again = fovea.diff.heatmap(heat, heat, ctx=cuda)
    assert np.array_equal(again, fovea.diff.heatmap(heat.get(), heat.get(), ctx=cpu))


@gpu
def test_device_errors_before_work(cuda):
    a, b = rgb_pair()
    da = fovea.to_device(a, ctx=cuda)
    with pytest.raises(ValueError):
        fovea.diff.heatmap(da, fovea.to_device(b[:, :50].copy(), ctx=cuda), ctx=cuda)
    with pytest.raises(TypeError):
        fovea.diff.heatmap(Foreign(da.ptr, a.shape, "<i2", keep=da), b, ctx=cuda)
    ro = Foreign(da.ptr, da.shape, "|u1", da.strides, readonly=True, keep=da)
    with pytest.raises(ValueError, match="read-only"):
        fovea.diff.heatmap(a, b, out=ro, ctx=cuda)
    with pytest.raises(ValueError, match="device 7"):
        fovea.diff.heatmap(fovea.DeviceArray(da.ptr, da.shape, da.strides, np.uint8, owner=da,
                                             device=7), b, ctx=cuda)
    with pytest.raises(ValueError, match="all host or all GPU"):
        fovea.vmaf([(fovea.to_device(np.zeros((64, 64), np.uint8), ctx=cuda),
                     np.zeros((32, 32), np.uint8), np.zeros((32, 32), np.uint8))],
                   [np.zeros((64, 64), np.uint8)], ctx=cuda)


@gpu
def test_stitch_device(cuda, cpu):
    from test_stitch import cameras, small_rig
    rig = small_rig()
    for fmt in ("rgb", "yuv"):
        cams = cameras(fmt)
        want = fovea.Stitcher(rig_json=rig, color="off", ctx=cuda).stitch(cams)
        dcams = [fovea.to_device(c, ctx=cuda) for c in cams]
        st = fovea.Stitcher(rig_json=rig, color="off", ctx=cuda)
        got = st.stitch(dcams, out="device")
        got_host = fovea.to_host(got)
        for w, g in zip(want if fmt == "yuv" else (want,),
                        got_host if fmt == "yuv" else (got_host,)):
            assert np.array_equal(w, g)
        foreign = st.stitch([foreign_of(c) if fmt == "rgb" else
                             tuple(foreign_of(p) for p in c) for c in dcams])
        assert np.array_equal(np.asarray(foreign if fmt == "rgb" else foreign[0]),
                              np.asarray(want if fmt == "rgb" else want[0]))
        # the CPU backend: within one code (texture sampling on the GPU), as test_gpu_stitch
        ref = fovea.Stitcher(rig_json=rig, color="off", ctx=cpu).stitch(cams)
        r0 = ref if fmt == "rgb" else ref[0]
        g0 = got_host if fmt == "rgb" else got_host[0]
        assert np.abs(r0.astype(int) - g0.astype(int)).max() <= 1


@gpu
def test_klt_device(cuda, cpu):
    rng = np.random.default_rng(5)
    yy, xx = np.mgrid[0:120, 0:160]
    f0 = (((xx // 8 + yy // 8) % 2) * 180 + rng.integers(0, 40, xx.shape)).astype(np.uint8)
    f1 = np.roll(f0, (2, 3), (0, 1))
    t_cpu = fovea.klt.Tracker(50, ctx=cpu)
    t_dev = fovea.klt.Tracker(50, ctx=cuda)
    d0 = fovea.to_device(f0, ctx=cuda)
    assert np.array_equal(t_dev.select(d0), t_cpu.select(f0))
    assert np.array_equal(t_dev.track(foreign_of(fovea.to_device(f1, ctx=cuda))),
                          t_cpu.track(f1))
    assert np.array_equal(t_dev.replace(DLPackOnly(fovea.to_device(f1, ctx=cuda))),
                          t_cpu.replace(f1))
    with pytest.raises(ValueError, match="do not mix"):
        t_dev.track(f1)


@gpu
def test_write_and_read_device(cuda, tmp_path):
    ref, _ = make_pair(n=3)
    fovea.write(tmp_path / "a.y4m", ref, fps=25)
    fovea.write(tmp_path / "b.y4m", [fovea.to_device(f, ctx=cuda) for f in ref], fps=25)
    assert (tmp_path / "a.y4m").read_bytes() == (tmp_path / "b.y4m").read_bytes()
    got = list(fovea.read(tmp_path / "a.y4m", out="device", ctx=cuda))
    assert all(isinstance(p, fovea.DeviceArray) for f in got for p in f)
    for f, r in zip(got, ref):
        for p, q in zip(fovea.to_host(f), r):
            assert np.array_equal(p, q)


@gpu
def test_dlpack_out_orders_consumer_stream(cuda):
    a = np.arange(64 * 80, dtype=np.uint16).reshape(64, 80)
    d = fovea.to_device(a, ctx=cuda)
    other = fovea.Context(backend="cuda")
    ref = weakref.ref(d)
    cap = d.__dlpack__(stream=other.cuda_stream)
    from fovea import _fovea
    holder, ptr, shape, strides, dtype, device = _fovea.dlpack_take(cap)
    assert ptr == d.ptr and shape == (64, 80) and dtype == (1, 16, 1)
    assert device == (2, cuda.device) and strides == d.strides
    del d, cap
    gc.collect()
    assert ref() is not None
    view = fovea.DeviceArray(ptr, shape, strides, np.uint16, owner=holder, ctx=other,
                             stream=other.cuda_stream)
    assert np.array_equal(view.get(), a)
    del view, holder
    gc.collect()
    assert ref() is None
