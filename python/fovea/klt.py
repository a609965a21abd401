# SPDX-License-Identifier: BSD-2-Clause-Patent
"""KLT feature tracking with the numbers of Birchfield's KLT 1.3.4
(docs/klt.md)."""
import numpy as np

from . import _fovea
from ._device import is_device as _is_device
from ._frames import context as _context, spec as _spec

__all__ = ["Tracker", "TRACKED", "NOT_FOUND", "SMALL_DET", "MAX_ITERATIONS", "OOB",
           "LARGE_RESIDUE"]

TRACKED, NOT_FOUND, SMALL_DET, MAX_ITERATIONS, OOB, LARGE_RESIDUE = 0, -1, -2, -3, -4, -5


class Tracker:
    """A KLT tracking context and a list of ``n_features`` features.

    ``select(img)`` picks the best features of an 8-bit gray image (H x W
    uint8); ``track(img)`` tracks them from the previous image to img;
    ``replace(img)`` refills lost ones. Each returns an ``N x 3`` float64 array
    (x, y, value): value > 0 the eigenvalue of a newly selected feature, 0
    tracked, < 0 lost (KLT's codes; x = y = -1), as KLT 1.3.4 defines them.
    Keywords are KLT_TrackingContextRec fields (``mindist``, ``window_width``,
    ``window_height``, ``min_eigenvalue``, ``max_residue``, ``nPyramidLevels``,
    ``subsampling``, ...; ``window=`` sets both window sides) and
    ``search_range`` (KLTChangeTCPyramid). One thread at a time."""

    def __init__(self, n_features=100, *, window=None, search_range=None, ctx=None, **fields):
        if window is not None:
            fields.setdefault("window_width", window)
            fields.setdefault("window_height", window)
        self._ctx = _context(ctx)
        self._k = _fovea.Klt(self._ctx, int(n_features),
                             {k: float(v) for k, v in fields.items()},
                             int(search_range or 0))
        self.n_features = int(n_features)

    def _image(self, img):
        if _is_device(img):  # a GPU image: its frame spec (used on the GPU in place)
            s, pixfmt, w, h = _spec(img, None, "KLT image", self._ctx)
            if pixfmt != "gray8":
                raise ValueError(f"fovea: KLT images are H x W uint8 (gray), not {pixfmt}")
            return s, w, h
        a = np.asarray(img)
        if a.dtype != np.uint8:
            raise TypeError(f"fovea: KLT images are uint8, not {a.dtype}")
        if a.ndim != 2:
            raise ValueError(f"fovea: KLT images are H x W (gray), got shape {a.shape}")
        a = np.ascontiguousarray(a)
        return a, a.shape[1], a.shape[0]

    def _result(self, raw):
        return np.frombuffer(raw, np.float64).reshape(-1, 3).copy()

    def select(self, img):
        """Select the best features of img."""
        return self._result(self._k.select(*self._image(img)))

    def track(self, img):
        """Track the features from the previous image to img."""
        return self._result(self._k.track(*self._image(img)))

    def replace(self, img):
        """Refill the lost features with new ones of img."""
        return self._result(self._k.replace(*self._image(img)))

    @property
    def features(self):
        """The feature list now (N x 3)."""
        return self._result(self._k.features())

    @property
    def fields(self):
        """The tracking context's fields by name."""
        return self._k.fields()
