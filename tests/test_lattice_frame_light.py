"""The light is fitted to the playing surface, not to the board's frame around it.

A chessboard's squares run to half a pitch beyond the outer places, where a frame of another
material (often darker) begins: the outer between points straddle it. The frame is under the
same light but has its own colour, so it says nothing of the light on the places, and a fit
that takes it for the surface bends down at the board's corners and reads a corner place as
brighter than it is.

Not yet met (session 10, helpers light and light2): every way of fitting the light tried so far
that meets these costs wrong places across folders on the chess photographs (the variants and
their figures are in stop 41's closing note, `issues stops`); the tests are kept as the statement of
what the fit should do, strictly expected to fail until a fit meets them.
"""

from __future__ import annotations

import numpy as np
import pytest

from controller.vision import lattice
from controller.vision.lattice.light import illumination_fit, rectified_log

SIZE = (8, 8)
PITCH = 50
CORNERS = np.array([[100, 100], [450, 100], [450, 450], [100, 450]], np.float64)


def framed_board(surface: float, frame: tuple[float, float, float], ramp: float = 0.0) -> np.ndarray:
    """A plain surface reaching half a pitch beyond the outer places, in a frame of its own colour
    (BGR gains over the surface's), under a left-to-right light ramp."""
    h = w = 550
    img = np.empty((h, w, 3), np.float32)
    img[:] = np.array(frame, np.float32) * surface
    lo, hi = 100 - PITCH // 2, 450 + PITCH // 2
    img[lo:hi, lo:hi] = surface
    light = 1 + ramp * np.linspace(-1, 1, w, dtype=np.float32)[None, :, None]
    return np.clip(img * light, 0, 255).astype(np.uint8)


NOT_YET = pytest.mark.xfail(strict=True, reason="the light fit still follows the frame (issue #32)")


@NOT_YET
@pytest.mark.parametrize("frame", [(0.45, 0.5, 0.6), (0.7, 0.7, 0.7), (1.3, 1.2, 1.1)])
def test_every_place_of_a_framed_plain_board_reads_alike(frame) -> None:
    """Relative to the fitted light every place of a plain board is the same, corners included,
    whether its frame is darker, a shade of it, or lighter."""
    img = framed_board(140.0, frame, ramp=0.15)
    feats = lattice.place_features(img, SIZE, CORNERS)[0]
    spread = np.abs(feats - np.median(feats, axis=0)).max(axis=1).reshape(SIZE)
    assert spread.max() < 0.04, spread


@NOT_YET
def test_a_frame_of_its_own_colour_is_not_the_board_covered() -> None:
    """The frame's between points are measured against the frame's own colour: none is taken
    for something covering the board (which would hide the places along the edge)."""
    img = framed_board(140.0, (0.45, 0.5, 0.6))
    fit = illumination_fit(rectified_log(img, SIZE, CORNERS), SIZE)
    assert not fit.rejected.any()
    # and the light on the surface is flat: no bend pulled down by the frame
    assert np.abs(fit.coef[1:]).max() < 0.03
