"""The colour of a reflection's light, seen on its core's rim (`reflections.ReflectionCheck.rim_light`):
the reflected lamp need not be the paper's (a broad cyan sheen whose middle clips, in a room lit
white), and white light added would then read a violet tile as blue."""

from __future__ import annotations

import numpy as np

from controller.vision.reflections import ReflectionCheck

PPP = 24  # rectified pixels a pitch
PAPER = np.array([0.9, 0.9, 0.9])  # the paper white, BGR, 0-1


def _rect(rim_bgr: tuple[int, int, int]) -> np.ndarray:
    """A 3 x 3 pitch board of mid grey with a clipped core (a third of a pitch across) on the middle
    place, its rim (three pixels wide) of `rim_bgr`."""
    img = np.full((3 * PPP, 3 * PPP, 3), 120, np.uint8)
    ys, xs = np.mgrid[0 : 3 * PPP, 0 : 3 * PPP]
    d = np.hypot(xs - 1.5 * PPP, ys - 1.5 * PPP)
    img[d <= PPP / 6 + 3] = rim_bgr
    img[d <= PPP / 6] = 255
    return img


def _light(rect: np.ndarray) -> np.ndarray:
    centres = np.array([[(c + 0.5) * PPP, (r + 0.5) * PPP] for r in range(3) for c in range(3)])
    check = ReflectionCheck(centres, PPP, rect.shape[:2])
    return check.rim_light(rect, PAPER, check.large_cores(rect), np.arange(9))


def test_the_rim_of_a_cyan_lamps_core_shows_cyan_light() -> None:
    light = _light(_rect((250, 240, 170)))
    assert np.allclose(light[4], np.array([250, 240, 170]) / 250, atol=0.01)


def test_the_rim_of_a_white_lamps_core_shows_white_light() -> None:
    light = _light(_rect((240, 240, 240)))
    assert np.allclose(light[4], 1.0, atol=0.01)


def test_a_place_with_no_core_within_a_pitch_keeps_white() -> None:
    rect = _rect((250, 240, 170))
    rect[rect == 255] = 120  # no core clipped in every channel
    assert np.allclose(_light(rect), 1.0)
