# SPDX-License-Identifier: BSD-2-Clause-Patent
"""Delta streaming (docs/stream.md): not in this version of the Python
package; ``fovea send`` / ``fovea receive`` are the CLI's."""

__all__ = ["available"]


def available():
    """False: the Python stream API is not built yet."""
    return False
