# SPDX-License-Identifier: BSD-2-Clause-Patent
"""Frames as numpy arrays <-> the extension's frame specs.

A frame is an ``H x W`` array (gray), ``H x W x 3`` (RGB) or ``H x W x 4``
(RGBA), uint8 or uint16, or planar YUV as a tuple ``(y, u, v)`` of 2-D arrays
(NV12 as ``(y, uv)`` with ``uv`` ``H/2 x W/2 x 2``). uint16 samples are 16-bit
unless ``bit_depth=`` (10, 12 or 16) says otherwise; a :class:`Planes` tuple
(what :func:`fovea.read` yields for YUV) carries its pixel format.
"""
import threading

import numpy as np

from . import _device, _fovea

_DEPTHS = (8, 10, 12, 16)


class Planes(tuple):
    """A planar frame: a tuple of 2-D numpy arrays (y, u, v) or (y, uv) with
    the pixel format it holds (``.pixfmt``, e.g. ``"i420p10"``) and
    ``.bit_depth``."""

    pixfmt = None
    bit_depth = None

    def __new__(cls, planes, pixfmt):
        t = super().__new__(cls, planes)
        t.pixfmt = pixfmt
        t.bit_depth = _fovea.pixfmt_desc(pixfmt)[2]
        return t


_local = threading.local()


def default_context():
    """The calling thread's default :class:`fovea.Context` (backend auto, every
    CPU), made at its first use. Each thread has its own."""
    ctx = getattr(_local, "ctx", None)
    if ctx is None:
        ctx = _local.ctx = _fovea.Context()
    return ctx


def context(ctx):
    return default_context() if ctx is None else ctx


def _depth(dtype, bit_depth, what):
    if dtype == np.uint8:
        if bit_depth not in (None, 8):
            raise ValueError(f"fovea: {what}: uint8 samples are 8-bit, not {bit_depth}")
        return 8
    if dtype == np.uint16:
        d = 16 if bit_depth is None else bit_depth
        if d not in (10, 12, 16):
            raise ValueError(f"fovea: {what}: bit_depth of uint16 samples must be 10, 12 or 16")
        return d
    raise TypeError(f"fovea: {what}: samples must be uint8 or uint16, not {dtype}")


def _array(a, what, ctx=None):
    """a as a numpy array, or as a DeviceArray when it is a GPU array."""
    if _device.is_device(a):
        # (a CPU context is refused by the extension, after the shape checks)
        d = _device.view(a, ctx, what)
        if d.dtype not in (np.uint8, np.uint16):
            raise TypeError(f"fovea: {what}: samples must be uint8 or uint16, not {d.dtype}")
        return d
    if hasattr(a, "__dlpack__") and not isinstance(a, np.ndarray) and \
            not hasattr(a, "__array_interface__"):
        a = np.from_dlpack(a)  # a host DLPack tensor (kDLCPU)
    if not isinstance(a, np.ndarray):
        if isinstance(a, (bytes, bytearray, memoryview)) or hasattr(a, "__array_interface__"):
            a = np.asarray(a)
        else:
            raise TypeError(f"fovea: {what}: expected a numpy array, not {type(a).__name__}")
    if not a.dtype.isnative:
        raise TypeError(f"fovea: {what}: samples must be in native byte order")
    return a


def _rows_ok(a):
    """Rows may be strided; the samples of a row must be contiguous."""
    s = a.strides
    item = a.itemsize
    inner = item
    for d in range(a.ndim - 1, 0, -1):
        if s[d] != inner:
            return False
        inner *= a.shape[d]
    return s[0] >= inner


def _plane(p, ctx, what):
    """What the extension takes for plane p: a numpy array, or a GPU plane
    tuple (16-bit samples misaligned in GPU memory copied on the device first)."""
    if not isinstance(p, _device.DeviceArray):
        return p
    if p.ptr % p.itemsize or p.strides[0] % p.itemsize:
        c = _device._context_of(p) if ctx is None else ctx
        q = _device.empty(c, _device._FLAT[p.itemsize * (p.shape[2] if p.ndim == 3 else 1)],
                          p.shape[1], p.shape[0])[0]
        q = _device.DeviceArray(q.ptr, p.shape, (q.strides[0],) + p.strides[1:], p.dtype,
                                owner=q, ctx=c, device=q.device, stream=q.stream)
        _fovea.copy(c, _device._flat_spec(q, what), _device._flat_spec(p, what))
        p = q
    return p._plane()


def spec(frame, bit_depth=None, what="frame", ctx=None):
    """(spec, pixfmt, width, height) of a frame: spec is what the extension
    takes. GPU arrays (for work on ctx, a CUDA context) are used in place."""
    if isinstance(frame, (tuple, list)):
        planes = [_array(p, what, ctx) for p in frame]
        pixfmt = getattr(frame, "pixfmt", None)
        if len(planes) not in (2, 3) or any(p.ndim not in (2, 3) for p in planes):
            raise ValueError(f"fovea: {what}: planar YUV is (y, u, v) of 2-D arrays")
        y = planes[0]
        if y.ndim != 2:
            raise ValueError(f"fovea: {what}: the Y plane must be 2-D")
        h, w = y.shape
        if any(p.dtype != y.dtype for p in planes):
            raise TypeError(f"fovea: {what}: every plane must have the same dtype")
        if pixfmt is None:
            depth = _depth(y.dtype, bit_depth, what)
            cw, ch = (w + 1) // 2, (h + 1) // 2
            if len(planes) == 2:
                if depth != 8 or planes[1].shape != (ch, cw, 2):
                    raise ValueError(f"fovea: {what}: NV12 is (y, uv) with uv {ch}x{cw}x2 uint8")
                pixfmt = "nv12"
            else:
                u, v = planes[1], planes[2]
                if u.shape != v.shape or u.ndim != 2:
                    raise ValueError(f"fovea: {what}: u and v must be 2-D of one shape")
                chroma = {(h, w): 444, (h, cw): 422, (ch, cw): 420}.get(u.shape)
                if chroma is None:
                    raise ValueError(
                        f"fovea: {what}: chroma {u.shape[0]}x{u.shape[1]} fits no layout of a "
                        f"{h}x{w} Y plane (4:4:4 {h}x{w}, 4:2:2 {h}x{cw}, 4:2:0 {ch}x{cw})")
                pixfmt = _fovea.pixfmt_yuv(chroma, depth)
        else:
            desc = _fovea.pixfmt_desc(pixfmt)
            if desc is None or desc[1] != len(planes):
                raise ValueError(f"fovea: {what}: {len(planes)} planes for {pixfmt}")
        _check_planes(planes, pixfmt, w, h, what)
        return (pixfmt, w, h, tuple(_plane(p, ctx, what) for p in planes)), pixfmt, w, h
    a = _array(frame, what, ctx)
    if a.ndim == 2:
        h, w = a.shape
        depth = _depth(a.dtype, bit_depth, what)
        pixfmt = "gray8" if depth == 8 else f"gray{depth}"
    elif a.ndim == 3 and a.shape[2] in (3, 4):
        h, w = a.shape[:2]
        _depth(a.dtype, None, what)
        if a.dtype == np.uint8:
            pixfmt = "rgb24" if a.shape[2] == 3 else "rgba"
        else:
            pixfmt = "rgb48" if a.shape[2] == 3 else "rgba64"
    else:
        raise ValueError(f"fovea: {what}: expected H x W, H x W x 3 or H x W x 4, "
                         f"got shape {a.shape}")
    _check_planes([a], pixfmt, w, h, what)
    return (pixfmt, w, h, (_plane(a, ctx, what),)), pixfmt, w, h


def _check_planes(planes, pixfmt, w, h, what):
    if not (1 <= w <= 16384 and 1 <= h <= 16384):
        raise ValueError(f"fovea: {what}: size {w}x{h} is outside 1..16384")
    for i, p in enumerate(planes):
        rows, cols = _fovea.plane_shape(pixfmt, w, h, i)
        if p.shape[0] != rows or p.shape[1] != cols:
            raise ValueError(f"fovea: {what}: plane {i} of {pixfmt} {w}x{h} must be "
                             f"{rows}x{cols}, got {p.shape[0]}x{p.shape[1]}")
        if not _rows_ok(p):
            raise ValueError(f"fovea: {what}: plane {i}: the samples of each row must be "
                             "contiguous (np.ascontiguousarray)")


def empty(pixfmt, w, h, device=None):
    """A new frame of pixfmt (numpy arrays, uninitialized; with device, a
    CUDA Context: DeviceArrays on its GPU) and its spec."""
    if device is not None:
        planes = _device.empty(device, pixfmt, w, h)
        frame = planes[0] if len(planes) == 1 else Planes(planes, pixfmt)
        return frame, (pixfmt, w, h, tuple(p._plane() for p in planes))
    desc = _fovea.pixfmt_desc(pixfmt)
    if desc is None:
        raise ValueError(f"fovea: unknown pixel format '{pixfmt}'")
    _, nplanes, depth, bps, _, _, comps, _, is_rgb = desc
    dtype = np.uint8 if bps == 1 else np.uint16
    planes = []
    for i in range(nplanes):
        rows, cols = _fovea.plane_shape(pixfmt, w, h, i)
        if is_rgb:
            shape = (rows, cols, comps)
        elif pixfmt == "nv12" and i == 1:
            shape = (rows, cols, 2)
        else:
            shape = (rows, cols)
        planes.append(np.empty(shape, dtype))
    frame = planes[0] if nplanes == 1 else Planes(planes, pixfmt)
    return frame, (pixfmt, w, h, tuple(planes))
