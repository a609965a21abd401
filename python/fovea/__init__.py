# SPDX-License-Identifier: BSD-2-Clause-Patent
"""fovea: GPU video processing: libvmaf-exact VMAF, frame differencing, KLT
tracking, panorama stitching and delta streaming, on numpy arrays and files.

Frames are numpy arrays: ``H x W`` (gray), ``H x W x 3`` (RGB) or ``H x W x 4``
(RGBA), uint8 or uint16, or planar YUV as a tuple ``(y, u, v)`` of 2-D arrays
(uint16 with ``bit_depth=`` 10, 12 or 16). Every call takes ``ctx=`` (a
:class:`Context`) or uses the calling thread's default context.

Threads: every heavy call releases the GIL. A :class:`Context` may be shared
between threads; the other objects (:class:`VmafScorer`, :class:`Stitcher`,
``fovea.diff.Differ``, ``fovea.klt.Tracker``, readers and writers) are used by
one thread at a time (a second thread gets RuntimeError): make one per thread.
Module-level functions (:func:`vmaf`, ``fovea.diff.heatmap``...) make their own
objects and may be called from any number of threads at once.
"""
import json as _json
import os as _os

import numpy as _np

import collections as _collections

from . import _fovea
from ._device import DeviceArray, to_device
from ._device import is_device as _is_device, view as _device_view
from ._fovea import Context, Error
from ._frames import Planes, default_context, empty as _empty, spec as _spec
from ._frames import context as _context

__all__ = ["Context", "Error", "Planes", "DeviceArray", "to_device", "to_host", "Reader",
           "VmafResult", "VmafScorer", "Stitcher",
           "default_context", "read", "write", "vmaf", "builtin_vmaf_models", "version",
           "cuda_compiled", "device_count", "diff", "klt", "stream"]

__version__ = _fovea.version()


def version():
    """The fovea library's version string."""
    return _fovea.version()


def cuda_compiled():
    """True when the library has its CUDA backend built in."""
    return _fovea.cuda_compiled()


def device_count():
    """CUDA devices present (0 without CUDA)."""
    return _fovea.device_count()


def builtin_vmaf_models():
    """The names of the VMAF models built into the library."""
    return _fovea.builtin_vmaf_models()


def to_host(frame):
    """A numpy copy of a frame: GPU arrays (a :class:`DeviceArray`, anything
    offering ``__cuda_array_interface__`` or ``__dlpack__`` on CUDA) copied
    after the work making them; host arrays returned as they are. Tuples of
    planes stay tuples (:class:`Planes` keep their pixel format)."""
    if isinstance(frame, (tuple, list)):
        planes = [to_host(p) for p in frame]
        pixfmt = getattr(frame, "pixfmt", None)
        return Planes(planes, pixfmt) if pixfmt else tuple(planes)
    if _is_device(frame):
        return _device_view(frame, default_context(), "frame").get()
    return frame


def _is_device_spec(spec):
    return isinstance(spec[3][0], tuple)


def _fspath(p):
    return _os.fspath(p) if isinstance(p, (str, bytes, _os.PathLike)) else None


# ---------------------------------------------------------------- reading, writing

class Reader:
    """Frames of a video file (every input the CLI reads: y4m, raw .yuv with
    ``width``/``height``/``pixfmt``, PNG/PNM and numbered image sequences,
    media through FFmpeg). Iterating yields numpy frames (see the module's
    doc; YUV as :class:`Planes`). ``info`` holds the stream's properties.
    One thread at a time."""

    def __init__(self, path, *, container=None, width=0, height=0, pixfmt=None, fps=None,
                 stream=-1, input_format=None, input_options=None, out=None, ctx=None):
        fps_num, fps_den = _fps(fps)
        if out not in (None, "device"):
            raise ValueError(f"fovea: out is None or 'device', not {out!r}")
        self._ctx = _context(ctx)
        self._device = out == "device"
        if self._device and self._ctx.backend != "cuda":
            raise ValueError("fovea: out='device' needs a CUDA context")
        self._r = _fovea.Reader(self._ctx, _os.fspath(path), container, width, height,
                                pixfmt, fps_num, fps_den, stream, input_format, input_options)
        self.info = self._r.info()
        self.width = self.info["width"]
        self.height = self.info["height"]
        self.pixfmt = self.info["pixfmt"]
        self.bit_depth = self.info["bit_depth"]

    def __iter__(self):
        return self

    def __next__(self):
        frame = self.read()
        if frame is None:
            raise StopIteration
        return frame

    def read(self):
        """The next frame, or None at the end."""
        frame, spec = _empty(self.pixfmt, self.width, self.height)
        if self._r.read_into(spec) is None:
            return None
        return to_device(frame, self._ctx) if self._device else frame

    def skip(self, n):
        """Skip n frames; False when the end came first."""
        return self._r.skip(n)

    def close(self):
        self._r.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def read(path, **kwargs):
    """Iterate over the frames of a video file: ``for f in fovea.read("a.y4m")``.

    Keywords: ``container`` ('y4m', 'yuv', 'pnm', 'png', 'media'; default from
    the name and content), ``width``, ``height``, ``pixfmt`` and ``fps`` for
    raw .yuv, ``stream``, ``input_format`` and ``input_options`` (a list of
    "KEY=VALUE") for media, ``out="device"`` (frames copied to the GPU of
    ``ctx``, a CUDA context, as :class:`DeviceArray`), ``ctx``. Returns a
    :class:`Reader` (its ``info`` says the size, pixel format and rate)."""
    return Reader(path, **kwargs)


def _fps(fps):
    if fps is None:
        return 0, 0
    if isinstance(fps, tuple):
        return int(fps[0]), int(fps[1])
    from fractions import Fraction
    f = Fraction(fps).limit_denominator(1001000)
    return f.numerator, f.denominator


def write(path, frames, *, fps=None, bit_depth=None, container=None, codec=None, crf=-1,
          options=None, ctx=None):
    """Write frames (an iterable of numpy frames of one size and format) to
    path: y4m, raw .yuv, PNG/PNM (a pattern such as ``out%03d.png`` for
    several) or media (.mp4, .mkv, .webm, .mov; ``codec``, ``crf``,
    ``options`` as "KEY=VALUE"). ``fps`` is a number or (num, den). Returns
    the number of frames written. A file being replaced keeps its content
    until the output is complete. GPU frames are copied to the host first
    (the writers encode on the CPU)."""
    fps_num, fps_den = _fps(fps)
    c = _context(ctx)
    w = None
    n = 0
    try:
        for frame in frames:
            spec, pixfmt, width, height = _spec(to_host(frame), bit_depth)
            if w is None:
                w = _fovea.Writer(c, _os.fspath(path), width, height, pixfmt, container,
                                  fps_num, fps_den, codec, crf, options)
                first = (pixfmt, width, height)
            elif (pixfmt, width, height) != first:
                raise ValueError(f"fovea: frame {n} is {pixfmt} {width}x{height}, the first "
                                 f"was {first[0]} {first[1]}x{first[2]}")
            w.write(spec)
            n += 1
        if w is None:
            raise ValueError("fovea: no frames to write")
        w.finish()
    finally:
        if w is not None:
            w.close()
    return n


# ---------------------------------------------------------------- VMAF

def _model_specs(model):
    if model is None:
        return ()
    if isinstance(model, (str, _os.PathLike)):
        model = (model,)
    out = []
    for m in model:
        m = _os.fspath(m)
        if m.endswith(".json") and "=" not in m:
            m = "path=" + m
        out.append(m)
    return tuple(out)


def _feature_list(features):
    if features is None:
        return None
    if isinstance(features, str):
        features = (features,)
    return ",".join(features) or None


class VmafResult:
    """Scores of a run, as libvmaf reports them.

    ``frames``: metric name -> numpy float64 array over the scored frames
    (libvmaf's names and order); ``frame_numbers``: their numbers;
    ``pooled``: name -> {"min", "max", "mean", "harmonic_mean"};
    ``aggregate``: libvmaf's aggregate_metrics; ``to_json()``: libvmaf's JSON
    (the CLI's ``--json``, numbers as %.17g)."""

    def __init__(self, vm, info):
        self._vm = vm
        self.info = info
        self.names = vm.names()
        m = len(self.names)
        values = _np.frombuffer(vm.kept(), dtype=_np.float64)
        values = values.reshape(-1, m) if m else values.reshape(0, 0)
        self.values = values
        self.frames = {name: values[:, i].copy() for i, name in enumerate(self.names)}
        sub = max(1, info.get("subsample", 1))
        self.frame_numbers = _np.arange(values.shape[0], dtype=_np.int64) * sub
        n, pooled = vm.pooled()
        self.pooled = {name: {"min": p[0], "max": p[1], "mean": p[2], "harmonic_mean": p[3]}
                       for name, p in zip(self.names, pooled)} if n else {}
        self.aggregate = vm.aggregates()
        self.backend = vm.backend()

    def __len__(self):
        return self.values.shape[0]

    def __getitem__(self, name):
        return self.frames[name]

    def __repr__(self):
        main = next((k for k in ("vmaf",) if k in self.pooled), None)
        extra = f", vmaf mean {self.pooled[main]['mean']:.6f}" if main else ""
        return f"<fovea.VmafResult {len(self)} frames, {len(self.names)} metrics{extra}>"

    def to_json(self, fps=0.0):
        """libvmaf's JSON layout, as ``fovea vmaf --json`` writes it: "version",
        "fps", "frames" [{"frameNum", "metrics"}], "pooled_metrics",
        "aggregate_metrics" and a "fovea" object describing the run."""
        i = self.info
        fields = [("version", version()), ("model", i.get("model_label", "none")),
                  ("features", i.get("features_label", "model features and score")),
                  ("backend", self.backend), ("threads", i.get("threads", 0))]
        if "reference" in i:
            fields += [("reference", i["reference"]), ("distorted", i["distorted"])]
        for k in ("width", "height", "pixfmt"):
            if k in i:
                fields.append((k, i[k]))
        fields.append(("frames", i.get("frames", len(self))))
        if i.get("subsample", 1) > 1:
            fields += [("start", 0), ("subsample", i["subsample"])]
        return self._vm.to_json(float(fps), tuple(fields))

    def to_dict(self):
        """to_json() parsed."""
        return _json.loads(self.to_json())


_RGB = {}


def _is_rgb(pixfmt):
    rgb = _RGB.get(pixfmt)
    if rgb is None:
        rgb = _RGB[pixfmt] = bool(_fovea.pixfmt_desc(pixfmt)[8])
    return rgb


class VmafScorer:
    """Score frame pairs produced one at a time: ``push(ref, dis)`` each pair,
    then ``result()``. Parameters as :func:`vmaf`. One thread at a time; the
    work runs on the context's threads (or its GPU) with the GIL released."""

    def __init__(self, model="vmaf_v0.6.1", features=(), *, bit_depth=None, subsample=1,
                 no_prediction=False, ctx=None):
        self._ctx = _context(ctx)
        specs = _model_specs(model)
        flags = 4 if no_prediction else 0
        self._vm = _fovea.Vmaf(self._ctx, specs, _feature_list(features), flags, subsample)
        self._bit_depth = bit_depth
        self._shape = None
        self._n = 0
        self._held = _collections.deque()  # (pair number, ref spec, dis spec) of GPU pairs
        self._info = {"subsample": subsample, "threads": self._ctx.threads,
                      "model_label": ", ".join(specs) if specs else "none",
                      "features_label": "model features only" if (no_prediction or not specs)
                      else "model features and score"}

    def push(self, ref, dis):
        """Queue the next pair (numpy frames of one size and bit depth; only
        luma is read). Scores of earlier pairs are computed meanwhile.
        GPU frames (on a CUDA context) are read in place when their batch
        runs: they are kept alive until their scores are in, and must not
        change until then."""
        rs, rf, w, h = _spec(ref, self._bit_depth, "ref", self._ctx)
        ds, df, dw, dh = _spec(dis, self._bit_depth, "dis", self._ctx)
        if (w, h) != (dw, dh):
            raise ValueError(f"fovea: ref is {w}x{h}, dis is {dw}x{dh}")
        if _is_rgb(rf) or _is_rgb(df):
            raise ValueError("fovea: VMAF reads YUV or gray frames, not RGB")
        if self._shape is None:
            self._shape = (w, h, rf)
        self._vm.submit(rs, ds)
        if _is_device_spec(rs) or _is_device_spec(ds):
            self._held.append((self._n, rs, ds))
        self._n += 1
        if self._held:
            self._release()

    def _release(self):
        """Let go of the GPU pairs whose scores are in."""
        done = self._n - self._vm.pending()
        while self._held and self._held[0][0] < done:
            self._held.popleft()

    def result(self):
        """Flush (the last pair is scored) and return a :class:`VmafResult`."""
        self._vm.flush()
        self._release()
        info = dict(self._info)
        if self._shape:
            info.update(width=self._shape[0], height=self._shape[1], pixfmt=self._shape[2])
        info["frames"] = self._n
        return VmafResult(self._vm, info)

    def reset(self):
        """Forget every pair: a new run."""
        self._vm.reset()
        self._held.clear()
        self._n = 0
        self._shape = None


def vmaf(ref, dis, model="vmaf_v0.6.1", features=(), bit_depth=None, *, subsample=1,
         no_prediction=False, max_frames=0, width=None, height=None, pixfmt=None, ctx=None):
    """VMAF of dis against ref, bit-exact with libvmaf 3.2.0.

    ref, dis: two file paths (read as the CLI reads them; ``width``,
    ``height``, ``pixfmt`` for raw .yuv) or two iterables of numpy frames
    (uint16 frames with ``bit_depth``).
    model: a built-in model's name (:func:`builtin_vmaf_models`), a libvmaf
    model parameter string ("version=vmaf_v0.6.1neg:name=neg"), a JSON model
    path, a list of them, or None for features only.
    features: more features, libvmaf's names with options, e.g.
    ``("psnr", "vif:vif_enhn_gain_limit=1.0")``.
    Returns a :class:`VmafResult` (``.frames``, ``.pooled``, ``.to_json()``).
    Raises fovea.Error (the library's message) for unreadable inputs and bad
    models, ValueError/TypeError for frames of a wrong shape or dtype."""
    scorer = VmafScorer(model, features, bit_depth=bit_depth, subsample=subsample,
                        no_prediction=no_prediction, ctx=ctx)
    rp, dp = _fspath(ref), _fspath(dis)
    if rp is not None and dp is not None:
        kw = {k: v for k, v in (("width", width), ("height", height), ("pixfmt", pixfmt))
              if v is not None}
        info = scorer._vm.score_files(rp, dp, kw or None, int(max_frames))
        info.update(scorer._info, reference=rp, distorted=dp)
        return VmafResult(scorer._vm, info)
    if (rp is None) != (dp is None):
        raise TypeError("fovea: ref and dis must both be paths or both be frame iterables")
    n = 0
    for r, d in zip(ref, dis):
        scorer.push(r, d)
        n += 1
        if max_frames and n >= max_frames:
            break
    return scorer.result()


# ---------------------------------------------------------------- stitching

class Stitcher:
    """A panorama stitcher: ``Stitcher(rig="rig.json")`` (a rig file,
    docs/rig.md), ``Stitcher(rig_json=text)`` or ``Stitcher(map="x.map")``
    (a map file). ``stitch([cam0, cam1, ...])`` returns the panorama: RGBA
    (H x W x 4) from RGB24/RGBA cameras, I420 :class:`Planes` from YUV ones.
    ``color``: 'auto' (measured from the overlaps), 'fixed' or 'off';
    ``corrections`` (per camera (gain_r, gain_g, gain_b, gamma)) reads and
    sets the color corrections. One thread at a time."""

    def __init__(self, rig=None, *, rig_json=None, map=None, color="auto", deterministic=False,
                 auto_interval=30, auto_smoothing=0.5, yuv_full_range=False, ctx=None):
        if isinstance(rig_json, dict):
            rig_json = _json.dumps(rig_json)
        self._ctx = _context(ctx)
        self._st = _fovea.Stitch(self._ctx, _fspath(rig) if rig is not None else None,
                                 rig_json.encode() if isinstance(rig_json, str) else rig_json,
                                 _fspath(map) if map is not None else None, color,
                                 int(bool(deterministic)), auto_interval, auto_smoothing,
                                 int(bool(yuv_full_range)))
        self.width, self.height, self.camera_sizes = self._st.geometry()

    @property
    def cameras(self):
        return len(self.camera_sizes)

    def stitch(self, frames, out=None):
        """Stitch one set of camera frames (one per camera, each its size;
        numpy or GPU arrays); ``out`` (optional) receives the panorama in
        place, or ``out="device"`` returns it on the GPU (a
        :class:`DeviceArray`, or :class:`Planes` of them, ready in the context
        stream's order)."""
        frames = list(frames)
        if len(frames) != self.cameras:
            raise ValueError(f"fovea: {self.cameras} camera frames expected, got {len(frames)}")
        specs = []
        for i, f in enumerate(frames):
            s, pixfmt, w, h = _spec(f, None, f"camera {i}", self._ctx)
            if (w, h) != tuple(self.camera_sizes[i]):
                raise ValueError(f"fovea: camera {i} is {w}x{h}, the rig says "
                                 f"{self.camera_sizes[i][0]}x{self.camera_sizes[i][1]}")
            specs.append(s)
        rgb = _fovea.pixfmt_desc(specs[0][0])[8]
        out_fmt = "rgba" if rgb else "i420"
        if out is None:
            out, out_spec = _empty(out_fmt, self.width, self.height)
        elif isinstance(out, str):
            if out != "device":
                raise ValueError(f"fovea: out is an array, None or 'device', not {out!r}")
            out, out_spec = _empty(out_fmt, self.width, self.height, device=self._ctx)
        else:
            out_spec = _spec(out, None, "out", self._ctx)[0]
        self._st.process(tuple(specs), out_spec)
        return out

    @property
    def corrections(self):
        """Per camera (gain_r, gain_g, gain_b, gamma) in use now."""
        return [tuple(c) for c in self._st.get_color()]

    @corrections.setter
    def corrections(self, value):
        self._st.set_color(tuple(tuple(float(x) for x in c) for c in value))


from . import diff, klt, stream  # noqa: E402  (submodules use the names above)
