"""Stage *light*: the light every place is seen in, measured from what the camera always sees.

On a copy with markers, the white paper around each corner marker (a square band just outside
it) is the reference: its robust colour at each marker, interpolated over the board, is the
light at every place, and colours are read relative to it (white paper -> 1 in every channel), so
exposure, a lamp's colour and a lighting gradient cancel. A covered or glared marker's paper is
replaced by the others'. A copy without markers uses the profile's `vision.white` (or the
standard paper's) for the whole board.
"""

from __future__ import annotations

import numpy as np

from controller.vision import looks
from controller.vision.features import PatchSampler, Rectifier, bilinear_weights
from controller.vision.geometry import LatticeGeometry


class PaperLight:
    """The paper white per marker of a rectified board (`white`), and colours relative to it."""

    def __init__(self, geom: LatticeGeometry, rect: Rectifier, ppp: float, fixed: bool, white=None) -> None:
        self.fixed = fixed
        s = geom.marker_size
        band = _square_band(0.56 * s * ppp, 0.64 * s * ppp)
        self.paper = PatchSampler(rect.to_px(geom.marker_centres()), band, rect.size[::-1])
        self.corners = geom.marker_centres()
        self.fixed_white = np.array(white, np.float64) / 255 if white else np.array(looks.PAPER[::-1]) / 255

    def weights(self, points: np.ndarray) -> np.ndarray:
        """(N, 4) how much each marker's paper counts at each board point (bilinear)."""
        return bilinear_weights(points, self.corners)

    def white(self, rect: np.ndarray) -> np.ndarray:
        """Paper white per marker (4, 3), with a covered or glared marker replaced by the others;
        a copy without markers: its one white (3,)."""
        if self.fixed:
            return self.fixed_white
        med, used = self.paper.medians(rect)
        med = med / 255
        typical = np.median(med, axis=0)
        bad = (used < 0.5) | (np.abs(med / typical - 1) > 0.3).any(axis=1)
        med[bad] = typical
        return np.maximum(med, 0.02)


def local_white(white: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Paper white (grey levels, BGR) at each of a set of points."""
    local = np.tile(white, (len(weights), 1)) if white.ndim == 1 else weights @ white
    return local * 255


def normalise(med: np.ndarray, white: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Patch medians (0-255) divided by the paper white at each patch (white paper -> 1)."""
    local = white if white.ndim == 1 else weights @ white
    return med / 255 / local


def _square_band(r_in: float, r_out: float) -> np.ndarray:
    n = int(np.ceil(r_out))
    dy, dx = np.mgrid[-n : n + 1, -n : n + 1]
    d = np.maximum(np.abs(dx), np.abs(dy))
    keep = (d >= r_in) & (d <= r_out)
    return np.stack([dy[keep], dx[keep]], axis=1)
