# SPDX-License-Identifier: BSD-2-Clause-Patent
from typing import Any

import numpy as np
import numpy.typing as npt

from . import Context

TRACKED: int
NOT_FOUND: int
SMALL_DET: int
MAX_ITERATIONS: int
OOB: int
LARGE_RESIDUE: int

class Tracker:
    n_features: int
    def __init__(self, n_features: int = ..., *, window: int | None = ...,
                 search_range: int | None = ..., ctx: Context | None = ...,
                 **fields: float) -> None: ...
    def select(self, img: npt.NDArray[np.uint8] | Any) -> npt.NDArray[np.float64]: ...
    def track(self, img: npt.NDArray[np.uint8] | Any) -> npt.NDArray[np.float64]: ...
    def replace(self, img: npt.NDArray[np.uint8] | Any) -> npt.NDArray[np.float64]: ...
    @property
    def features(self) -> npt.NDArray[np.float64]: ...
    @property
    def fields(self) -> dict[str, float]: ...
