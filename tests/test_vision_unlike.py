"""A light unlike the calibration's (`controller/vision/unlike.py`): a lamp of a narrow spectrum
moves every place of a look alike, a reflection only a few of them. The pictures are flat: each
place's colour relative to the paper (white-normalised BGR)."""

from __future__ import annotations

import numpy as np

from controller.vision.classify import ClassModel, ClassRef
from controller.vision.features import colour_features
from controller.vision.unlike import seen_as_learned, unlike_calibration

LOOKS = {
    "R": (0.38, 0.33, 0.87),
    "G": (0.39, 0.63, 0.32),
    "B": (0.94, 0.44, 0.34),
    "Y": (0.36, 0.86, 1.04),
    ".": (0.79, 0.91, 0.94),
}
COV = np.diag([0.156**2, 0.021**2, 0.021**2])
#: A 6 x 6 board: a tile of each colour on every other place of its row, the rest empty.
BOARD = [letter for row in "RGBY.." for letter in (row, ".") * 3]


def _model() -> ClassModel:
    return ClassModel([ClassRef(k, k, colour_features(np.array([v]))[0], COV.copy()) for k, v in LOOKS.items()])


def _decide(model: ClassModel, bgr: np.ndarray):
    dec = model.decide(colour_features(bgr))
    return dec, dec.sure.copy()


def _board(moved: dict[int, tuple[float, float, float]]) -> np.ndarray:
    """Every place its learned look, but for `moved` (place: the colour it shows)."""
    bgr = np.array([LOOKS[letter] for letter in BOARD], float)
    for i, colour in moved.items():
        bgr[i] = colour
    return bgr


def test_a_few_tiles_under_a_reflection_do_not_say_the_lamp_is_unlike() -> None:
    # one red, one green, one blue tile paled by the room they mirror; the other tiles of those
    # colours sit by their learned looks
    model = _model()
    reflected = {0: (0.62, 0.6, 1.0), 6: (0.6, 0.85, 0.6), 14: (1.0, 0.72, 0.62)}
    dec, sure = _decide(model, _board(reflected))
    far = np.flatnonzero(dec.distance > model.max_distance)
    assert set(far) == set(reflected) and len({dec.letters[i] for i in far}) >= 2
    assert np.array_equal(np.flatnonzero(~sure), far)  # every unsure place is far: the old rule's case
    assert seen_as_learned(model, dec, sure)[[0, 1, 2]].all()
    assert not unlike_calibration(model, dec, sure)


def test_a_lamp_that_moves_every_red_and_green_tile_is_unlike() -> None:
    model = _model()
    lamp = {i: (0.05, 0.15, 0.9) for i in (0, 2, 4)} | {i: (0.05, 0.9, 0.05) for i in (6, 8, 10)}
    dec, sure = _decide(model, _board(lamp))
    assert (dec.distance[list(lamp)] > model.max_distance).all()
    assert unlike_calibration(model, dec, sure)


def test_a_look_read_only_away_from_its_learned_self_does_not_vouch_for_its_far_places() -> None:
    # the lamp moves the yellow tiles: two are read surely as yellow, but well away from the learned
    # look (as no calibration sample sits), the third and the red tiles beyond every look
    model = _model()
    moved = {18: (0.3, 0.8, 1.12), 20: (0.3, 0.8, 1.12), 22: (0.05, 0.5, 1.3)}
    moved |= {i: (0.05, 0.15, 0.9) for i in (0, 2, 4)}
    dec, sure = _decide(model, _board(moved))
    assert sure[[18, 20]].all() and (dec.distance[[18, 20]] > 1.6).all()
    assert not seen_as_learned(model, dec, sure)[3]
    assert unlike_calibration(model, dec, sure)
