# SPDX-License-Identifier: BSD-2-Clause-Patent
"""Frame differencing (docs/diff.md): heat map, noise map, change mask,
denoising and the noise level of a pair, byte for byte as ``fovea diff``.

The functions make a :class:`Differ` per call (any thread); a :class:`Differ`
keeps its scratch buffers and the temporal filter's state across calls (one
thread at a time)."""
import numpy as np

from . import _fovea
from ._frames import context as _context, empty as _empty, spec as _spec

__all__ = ["Differ", "heatmap", "noise", "mask", "denoise", "noise_sigma", "MaskResult"]


class MaskResult:
    """A change mask: ``changed`` (tiles_y x tiles_x uint8, 1 changed),
    ``tiles`` (N x 2 int array of the changed tiles' (tx, ty), ascending),
    ``indices`` (ty * tiles_x + tx), ``tile``, ``changed_pixels``, ``diff_sum``,
    ``diff_max`` and the ``threshold`` used."""

    def __init__(self, d):
        self.tile = d["tile"]
        self.tiles_x, self.tiles_y = d["tiles_x"], d["tiles_y"]
        self.changed = np.frombuffer(d["changed"], np.uint8).reshape(self.tiles_y, self.tiles_x)
        self.indices = np.frombuffer(d["list"], np.int32).copy()
        self.tiles = np.stack([self.indices % self.tiles_x, self.indices // self.tiles_x], 1)
        self.changed_tiles = d["changed_tiles"]
        self.changed_pixels = d["changed_pixels"]
        self.diff_sum = d["diff_sum"]
        self.diff_max = d["diff_max"]
        self.threshold = d["threshold"]

    def image(self):
        """The mask as ``fovea diff --mask`` writes it: one gray8 pixel per tile,
        255 changed, 0 not."""
        return self.changed * np.uint8(255)

    def __repr__(self):
        return (f"<fovea.diff.MaskResult {self.changed_tiles}/{self.tiles_x * self.tiles_y} "
                f"tiles changed, threshold {self.threshold}>")


class Differ:
    """A differencing context.

    measure: 'sum' (over the channels) or 'max'; normalize_max: the difference
    at the heat map's top (None: a quarter of the range, 0: the full range);
    threshold: a sample changed when its difference is above it (None: the
    automatic one, ceil(auto_k x sigma)); tile: 8, 16, 32 or 64; noise_mode:
    'black' or 'overlay'; denoise: 'none', 'median3', 'gauss5' or 'temporal'
    (temporal_strength 0..255); bit_depth for uint16 frames."""

    def __init__(self, *, measure="sum", normalize_max=None, threshold=10, tile=16,
                 noise_mode="black", denoise="none", auto_k=3.0, temporal_strength=192,
                 bit_depth=None, ctx=None):
        if tile not in (8, 16, 32, 64):
            raise ValueError(f"fovea: tile must be 8, 16, 32 or 64, not {tile}")
        if not 0 <= temporal_strength <= 255:
            raise ValueError("fovea: temporal_strength must be 0..255")
        self._ctx = _context(ctx)
        self._d = _fovea.Diff(self._ctx, measure,
                              -1 if normalize_max is None else int(normalize_max),
                              -1 if threshold is None else int(threshold), int(tile),
                              noise_mode, denoise, float(auto_k), int(temporal_strength))
        self._bit_depth = bit_depth
        self._noise_mode = noise_mode

    def _pair(self, prev, cur):
        a, fa, w, h = _spec(prev, self._bit_depth, "prev", self._ctx)
        b, fb, w2, h2 = _spec(cur, self._bit_depth, "cur", self._ctx)
        if (fa, w, h) != (fb, w2, h2):
            raise ValueError(f"fovea: prev is {fa} {w}x{h}, cur is {fb} {w2}x{h2}")
        return a, b, fa, w, h

    def _out(self, out, fmt, w, h):
        if out is None:
            return _empty(fmt, w, h)
        if isinstance(out, str):
            if out != "device":
                raise ValueError(f"fovea: out is an array, None or 'device', not {out!r}")
            return _empty(fmt, w, h, device=self._ctx)
        s, f, ow, oh = _spec(out, None, "out", self._ctx)
        if (f, ow, oh) != (fmt, w, h):
            raise ValueError(f"fovea: out must be {fmt} {w}x{h}")
        return out, s

    def heatmap(self, prev, cur, *, pixfmt="rgb24", out=None):
        """Heat map of prev -> cur: H x W x 3 (rgb24, default), x 4 (rgba) or
        I420 Planes (pixfmt='i420', as ``fovea diff --heatmap x.y4m``).
        ``out``: an array to fill, or "device": a new GPU frame
        (:class:`fovea.DeviceArray`, ready in the context stream's order)."""
        a, b, _, w, h = self._pair(prev, cur)
        out, s = self._out(out, pixfmt, w, h)
        self._d.heatmap(a, b, s)
        return out

    def noise(self, prev, cur, *, pixfmt=None, out=None):
        """Noise map of prev -> cur: changed pixels red, on black (rgb24 by
        default, or rgba / i420) or over cur (noise_mode 'overlay': cur's
        format)."""
        a, b, f, w, h = self._pair(prev, cur)
        if pixfmt is None:
            pixfmt = f if self._noise_mode == "overlay" else "rgb24"
        out, s = self._out(out, pixfmt, w, h)
        self._d.noise(a, b, s)
        return out

    def mask(self, ref, cur):
        """The change mask of cur against ref: a :class:`MaskResult`."""
        a, b, _, _, _ = self._pair(ref, cur)
        return MaskResult(self._d.mask(a, b))

    def denoise(self, frame, *, out=None):
        """frame as the maps compare it (the denoise filter applied)."""
        s, f, w, h = _spec(frame, self._bit_depth, "frame", self._ctx)
        out, o = self._out(out, f, w, h)
        self._d.denoise(s, o)
        return out

    def noise_sigma(self, prev, cur):
        """Robust noise level (sigma) of the difference of two frames."""
        a, b, _, _, _ = self._pair(prev, cur)
        return self._d.noise_sigma(a, b)

    def reset(self):
        """Forget the temporal filter's state."""
        self._d.reset()


def heatmap(prev, cur, *, pixfmt="rgb24", out=None, ctx=None, **settings):
    """Heat map of prev -> cur (see :class:`Differ` for the settings;
    ``out="device"``: on the GPU)."""
    return Differ(ctx=ctx, **settings).heatmap(prev, cur, pixfmt=pixfmt, out=out)


def noise(prev, cur, *, pixfmt=None, out=None, ctx=None, **settings):
    """Noise map of prev -> cur (see :class:`Differ`; ``out="device"``: on the GPU)."""
    return Differ(ctx=ctx, **settings).noise(prev, cur, pixfmt=pixfmt, out=out)


def mask(prev, cur, tile=16, threshold=10, *, ctx=None, **settings):
    """Change mask of cur against prev: a :class:`MaskResult` (``.changed``
    array, ``.tiles`` list)."""
    return Differ(tile=tile, threshold=threshold, ctx=ctx, **settings).mask(prev, cur)


def denoise(frame, mode="median3", *, out=None, ctx=None, **settings):
    """frame filtered by mode ('median3', 'gauss5'; ``out="device"``: on the GPU)."""
    return Differ(denoise=mode, ctx=ctx, **settings).denoise(frame, out=out)


def noise_sigma(prev, cur, *, ctx=None, **settings):
    """Robust noise level of the difference of prev and cur."""
    return Differ(ctx=ctx, **settings).noise_sigma(prev, cur)
