# SPDX-License-Identifier: BSD-2-Clause-Patent
"""GPU arrays: :class:`DeviceArray` (fovea's own, and its view of foreign
arrays offering ``__cuda_array_interface__`` or ``__dlpack__``), and
:func:`to_device`.

Streams: fovea's GPU work runs on its context's CUDA stream
(``Context.cuda_stream``). A foreign array's stream (its interface's
``stream``) is waited for (a CUDA event, the host does not wait) before
fovea's work is queued, and made to wait for that work when the call
returns; DLPack producers are given the context's stream (``__dlpack__(stream=)``)
and order it themselves. Results made on the GPU (``out="device"``) are
ready in the context stream's order: their ``__cuda_array_interface__``
names that stream, ``__dlpack__(stream=s)`` makes s wait for it, and
``synchronize()`` (or ``get()``) waits on the host.
"""
import numpy as np

from . import _fovea

_KDL_CPU, _KDL_CUDA, _KDL_CUDA_HOST, _KDL_CUDA_MANAGED = 1, 2, 3, 13
_KDL_UINT = 1
# bytes a pixel of a plane -> the format a copy of it uses (bytes are bytes)
_FLAT = {1: "gray8", 2: "gray16", 3: "rgb24", 4: "rgba", 6: "rgb48", 8: "rgba64"}


class DeviceArray:
    """An array in CUDA device memory: a view (pointer, shape, byte strides,
    dtype) of fovea's memory (``out="device"``, :func:`to_device`) or of a
    foreign array (CuPy, PyTorch, anything offering
    ``__cuda_array_interface__`` or ``__dlpack__``), which it keeps alive.

    Offers ``__cuda_array_interface__`` (version 3, with ``stream``),
    ``__dlpack__(stream=)`` and ``__dlpack_device__()``, so CuPy, PyTorch and
    numba take it without a copy. ``get()`` (or ``numpy.asarray(a)``) copies it
    to the host, waiting for the work that makes it. Frames as numpy arrays:
    ``H x W`` gray, ``H x W x 3|4``, YUV as a tuple of planes
    (:class:`fovea.Planes`)."""

    __slots__ = ("ptr", "shape", "strides", "dtype", "ctx", "device", "readonly", "stream",
                 "_owner", "__weakref__")

    def __init__(self, ptr, shape, strides, dtype, *, owner, ctx=None, device=-1,
                 readonly=False, stream=None):
        self.ptr = int(ptr)
        self.shape = tuple(int(n) for n in shape)
        self.dtype = np.dtype(dtype)
        if strides is None:
            strides, step = [], self.dtype.itemsize
            for n in reversed(self.shape):
                strides.insert(0, step)
                step *= n
        self.strides = tuple(int(s) for s in strides)
        self.ctx = ctx
        self.device = int(device)
        self.readonly = bool(readonly)
        self.stream = stream  # the CUDA stream the contents are ordered on (None: ready)
        self._owner = owner

    # -- the numpy-like surface
    ndim = property(lambda self: len(self.shape))
    itemsize = property(lambda self: self.dtype.itemsize)
    size = property(lambda self: int(np.prod(self.shape)))
    nbytes = property(lambda self: self.size * self.dtype.itemsize)

    def __len__(self):
        return self.shape[0]

    def __repr__(self):
        return (f"<fovea.DeviceArray {'x'.join(map(str, self.shape))} {self.dtype} on cuda:"
                f"{self.device}, stream {self.stream}>")

    def _contiguous(self):
        step = self.itemsize
        for n, s in zip(reversed(self.shape), reversed(self.strides)):
            if n > 1 and s != step:
                return False
            step *= n
        return True

    # -- the CUDA array interface (numba's, CuPy's and PyTorch's protocol)
    @property
    def __cuda_array_interface__(self):
        return {"shape": self.shape, "typestr": self.dtype.str, "descr": [("", self.dtype.str)],
                "data": (self.ptr, self.readonly), "version": 3,
                "strides": None if self._contiguous() else self.strides,
                "stream": self.stream or None}

    # -- DLPack
    def __dlpack_device__(self):
        return (_KDL_CUDA, self._device_id())

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        """A DLPack capsule over this memory (no copy). stream: the
        consumer's stream (None: CUDA's legacy default stream, -1: no order);
        it waits for the work that makes this array."""
        if copy:
            raise BufferError("fovea: DeviceArray.__dlpack__ never copies")
        if dl_device is not None and tuple(dl_device) != self.__dlpack_device__():
            raise BufferError("fovea: a DeviceArray stays on its device")
        if stream == 0:
            raise ValueError("fovea: __dlpack__(stream=0) is ambiguous (DLPack): use 1 or 2")
        if stream != -1 and self.stream:
            # the consumer's stream waits for ours (a foreign array's stream
            # through a context: it waits for that stream, the consumer for it)
            ctx = _context_of(self)
            if self.ctx is None:
                ctx.wait_stream(self.stream)
            ctx.signal_stream(1 if stream is None else int(stream))
        if any(s % self.itemsize for s in self.strides):
            raise BufferError("fovea: strides not a multiple of the item size")
        return _fovea.dlpack_give(self, self.ptr, self.shape,
                                  tuple(s // self.itemsize for s in self.strides),
                                  (_KDL_UINT, 8 * self.itemsize),
                                  (_KDL_CUDA, self._device_id()))

    def _device_id(self):
        if self.device >= 0:
            return self.device
        return self.ctx.device if self.ctx is not None else 0

    # -- to the host
    def get(self, out=None):
        """A numpy copy (into ``out`` when given), after the work that makes
        this array is done."""
        if out is None:
            out = np.empty(self.shape, self.dtype)
        elif out.shape != self.shape or out.dtype != self.dtype:
            raise ValueError(f"fovea: out must be {self.shape} {self.dtype}")
        _fovea.copy(_context_of(self), _flat_spec(out, "out"), _flat_spec(self, "array"))
        return out

    to_host = get

    def __array__(self, dtype=None, copy=None):
        a = self.get()
        return a if dtype is None else a.astype(dtype)

    def synchronize(self):
        """Wait on the host until the work queued on this array's stream is done."""
        _context_of(self).sync()

    # -- the frame plane the extension takes
    def _plane(self):
        row = self.itemsize
        for n in self.shape[1:]:
            row *= n
        stream = self.stream or 0
        return (self.ptr, self.shape[0], row, self.strides[0], self.device, stream,
                self.readonly, self)


def _context_of(a):
    """The CUDA context that copies and orders a: its own, else the thread's default."""
    if a.ctx is not None:
        return a.ctx
    from ._frames import default_context
    ctx = default_context()
    if ctx.backend != "cuda":
        raise ValueError("fovea: a GPU array needs a CUDA context (the default one runs on the "
                         "CPU)")
    return ctx


def _flat_spec(a, what):
    """The spec of one array (host or device) as a frame of its byte layout:
    rows of pixels of itemsize x channels bytes."""
    comps = a.shape[2] if len(a.shape) == 3 else 1
    fmt = _FLAT.get(a.dtype.itemsize * comps)
    if len(a.shape) not in (2, 3) or fmt is None:
        raise ValueError(f"fovea: {what}: copies take H x W or H x W x C arrays of 1 to 8 "
                         f"bytes a pixel, not {a.shape} {a.dtype}")
    plane = a._plane() if isinstance(a, DeviceArray) else a
    return (fmt, a.shape[1], a.shape[0], (plane,))


def is_device(obj):
    """True for a GPU array (a DeviceArray, a CUDA array interface, a CUDA DLPack tensor)."""
    if isinstance(obj, DeviceArray) or hasattr(obj, "__cuda_array_interface__"):
        return not isinstance(obj, np.ndarray)
    dev = getattr(obj, "__dlpack_device__", None)
    if dev is None or isinstance(obj, np.ndarray):
        return False
    return dev()[0] in (_KDL_CUDA, _KDL_CUDA_MANAGED)


def _dtype_of_typestr(t, what):
    dt = np.dtype(t)
    if dt not in (np.uint8, np.uint16) or not dt.isnative:
        raise TypeError(f"fovea: {what}: samples must be uint8 or uint16 (native byte order), "
                        f"not {t}")
    return dt


def view(obj, ctx, what):
    """A :class:`DeviceArray` over the GPU array obj (used in place), for
    work on ctx (whose CUDA stream a DLPack producer is asked to order)."""
    if isinstance(obj, DeviceArray):
        return obj
    cai = getattr(obj, "__cuda_array_interface__", None)
    if cai is not None:
        if cai.get("mask") is not None:
            raise ValueError(f"fovea: {what}: masked CUDA arrays are not taken")
        dt = _dtype_of_typestr(cai["typestr"], what)
        ptr, readonly = cai["data"]
        stream = cai.get("stream") if cai.get("version", 0) >= 3 else None
        if stream == 0:
            raise ValueError(f"fovea: {what}: __cuda_array_interface__ stream 0 is not allowed "
                             "(version 3: 1 = legacy default, 2 = per-thread default)")
        # the interface does not name the device: the context's
        return DeviceArray(ptr or 0, cai["shape"], cai.get("strides"), dt, owner=obj,
                           device=-1, readonly=readonly, stream=stream)
    kind, dev_id = obj.__dlpack_device__()
    if ctx is None or ctx.backend != "cuda":
        raise ValueError(f"fovea: {what}: a GPU array (DLPack device {kind}:{dev_id}) needs a "
                         "CUDA context (fovea.Context(backend='cuda'))")
    if dev_id != ctx.device:
        raise ValueError(f"fovea: {what}: the GPU array is on device {dev_id}, the context "
                         f"uses device {ctx.device}")
    holder, ptr, shape, strides, (code, bits, lanes), _ = _fovea.dlpack_take(
        obj.__dlpack__(stream=ctx.cuda_stream))
    if code != _KDL_UINT or bits not in (8, 16) or lanes != 1:
        raise TypeError(f"fovea: {what}: samples must be uint8 or uint16, not DLPack type "
                        f"code {code} with {bits} bits x {lanes}")
    return DeviceArray(ptr, shape, strides, np.uint8 if bits == 8 else np.uint16,
                       owner=holder, device=dev_id, stream=None)


def empty(ctx, pixfmt, w, h):
    """A new GPU frame of pixfmt on ctx (DeviceArray planes over one
    fovea_frame_alloc buffer, uninitialized) and its spec."""
    desc = _fovea.pixfmt_desc(pixfmt)
    if desc is None:
        raise ValueError(f"fovea: unknown pixel format '{pixfmt}'")
    _, nplanes, _, bps, _, _, comps, _, is_rgb = desc
    buf = _fovea.DeviceBuffer(ctx, pixfmt, w, h)
    dtype = np.dtype(np.uint8 if bps == 1 else np.uint16)
    stream = ctx.cuda_stream
    planes = []
    for i, (ptr, stride) in enumerate(buf.planes):
        rows, cols = _fovea.plane_shape(pixfmt, w, h, i)
        if is_rgb:
            shape = (rows, cols, comps)
        elif pixfmt == "nv12" and i == 1:
            shape = (rows, cols, 2)
        else:
            shape = (rows, cols)
        strides = (stride,) + tuple(np.empty(shape[1:], dtype).strides)
        planes.append(DeviceArray(ptr, shape, strides, dtype, owner=buf, ctx=ctx,
                                  device=buf.device, stream=stream))
    return planes


def to_device(frame, ctx=None):
    """Copy a numpy frame (an array, or a tuple of planes) to the GPU of ctx
    (a CUDA :class:`fovea.Context`; default: the thread's default context):
    a :class:`DeviceArray`, or :class:`fovea.Planes` of them. The copy is done
    when it returns (the host memory is free)."""
    from ._frames import Planes, context
    ctx = context(ctx)
    if ctx.backend != "cuda":
        raise ValueError("fovea: to_device needs a CUDA context (fovea.Context(backend='cuda'))")
    if isinstance(frame, (tuple, list)):
        planes = [to_device(p, ctx) for p in frame]
        pixfmt = getattr(frame, "pixfmt", None)
        return Planes(planes, pixfmt) if pixfmt else tuple(planes)
    a = np.asarray(frame)
    if a.dtype not in (np.uint8, np.uint16) or a.ndim not in (2, 3):
        raise TypeError(f"fovea: to_device takes H x W or H x W x C uint8/uint16 arrays, not "
                        f"{a.shape} {a.dtype}")
    comps = a.shape[2] if a.ndim == 3 else 1
    fmt = _FLAT.get(a.itemsize * comps)
    if fmt is None:
        raise ValueError(f"fovea: to_device: {comps} channels of {a.dtype} are not taken")
    if not a.flags.c_contiguous:
        a = np.ascontiguousarray(a)
    buf = _fovea.DeviceBuffer(ctx, fmt, a.shape[1], a.shape[0])
    ptr, stride = buf.planes[0]
    d = DeviceArray(ptr, a.shape, (stride,) + a.strides[1:], a.dtype, owner=buf, ctx=ctx,
                    device=buf.device, stream=ctx.cuda_stream)
    _fovea.copy(ctx, _flat_spec(d, "array"), _flat_spec(a, "array"))
    return d
