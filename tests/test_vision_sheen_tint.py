"""A sheen of one colour over a patch (`controller/vision/sheen_doubt.py`): glossy tiles mirroring a
pink wall gain pink light, added in the scene before the camera's sRGB curve. A green tile so lit
is the empty cell's pale green, a blue one a violet: neither may be read surely as what it is not.

The pictures are flat: each place's colour relative to the paper, as the camera's curve gives it
(light ** (1 / 2.2)), every body of a place the same colour (`per_class` all alike)."""

from __future__ import annotations

import numpy as np

from controller.vision.classify import ClassModel, ClassRef
from controller.vision.features import colour_features
from controller.vision.sheen import reread
from controller.vision.sheen_doubt import GAMMA, fit_tints, read_under_tint

# Blockers! looks as a 3D room's calibration learned them (white-normalised BGR), and their spread.
LOOKS = {
    "R": (0.38, 0.33, 0.87),
    "G": (0.39, 0.63, 0.32),
    "B": (0.94, 0.44, 0.34),
    "Y": (0.36, 0.86, 1.04),
    "V": (0.74, 0.41, 0.61),
    ".": (0.79, 0.91, 0.94),
}
COV = np.diag([0.156**2, 0.021**2, 0.021**2])
PINK = np.array([0.47, 0.68, 1.0])  # linear BGR of a pink wall's reflection, relative to the paper's light
WHITE = np.ones(3)
SIZE = 7


def _model() -> ClassModel:
    return ClassModel([ClassRef(k, k, colour_features(np.array([v]))[0], COV.copy()) for k, v in LOOKS.items()])


def _under(letter: str, amount: float, tint: np.ndarray) -> np.ndarray:
    """A tile's colour in the picture with `amount` of light of colour `tint` added in the scene."""
    return (np.array(LOOKS[letter]) ** GAMMA + amount * tint) ** (1 / GAMMA)


def _board(patch: dict[tuple[int, int], tuple[str, float]], tint: np.ndarray) -> np.ndarray:
    """Features of a SIZE x SIZE board of empty cells with the tiles of `patch` (place: look, light)."""
    bgr = np.array([_under(".", 0.0, tint)] * SIZE * SIZE)
    for (r, c), (letter, amount) in patch.items():
        bgr[r * SIZE + c] = _under(letter, amount, tint)
    return colour_features(bgr)


def _read(model: ClassModel, feats: np.ndarray):
    """As the reader: the looks, the white sheen's re-read, then the sheen's own colour."""
    per_class = [feats] * len(model.refs)
    dec, shone = reread(model, model.decide(feats), per_class)
    return dec, read_under_tint(model, dec, shone, per_class, SIZE, SIZE)


# A pink reflection over the middle of the board: strong on a red, a blue and a yellow tile.
PATCH = {(2, 2): ("R", 1.6), (2, 3): ("B", 1.5), (2, 4): ("Y", 1.5), (3, 2): ("B", 0.3), (3, 4): ("R", 0.3)}


def test_the_light_one_reflection_adds_is_one_colour_in_light() -> None:
    model = _model()
    feats = _board(PATCH, PINK)
    shown = np.flatnonzero(model.decide(feats).distance > model.max_distance)
    likeliest, allowed = fit_tints(model, [feats] * len(model.refs), shown)
    assert np.allclose(likeliest[0], PINK, atol=0.03)
    assert any(np.allclose(t, PINK, atol=0.03) for t in allowed)


def test_a_green_tile_under_a_pink_sheen_is_not_read_empty_surely() -> None:
    model = _model()
    feats = _board({**PATCH, (3, 3): ("G", 1.6)}, PINK)
    i = 3 * SIZE + 3
    plain = model.decide(feats)
    assert plain.letters[i] == "." and plain.sure[i]  # before: the empty cell's look, surely
    _, (dec, read) = _read(model, feats)
    assert read[i] and not (dec.sure[i] and dec.letters[i] == ".")


def test_a_blue_tile_under_a_pink_sheen_is_not_read_violet_surely() -> None:
    model = _model()
    feats = _board({**PATCH, (3, 3): ("B", 0.8)}, PINK)
    i = 3 * SIZE + 3
    white, (dec, _) = _read(model, feats)
    assert white.letters[i] == "V" and white.sure[i]  # before: a white sheen made it violet, surely
    assert not (dec.sure[i] and dec.letters[i] == "V")


def test_beside_a_white_sheen_the_empty_cells_and_tiles_stay_read() -> None:
    # a ceiling panel's reflection: white light on tiles of five looks (paler than any learned
    # look); they and the empty cells beside them are read, each as what it is, surely
    model = _model()
    patch = {(2, 2): ("R", 0.4), (2, 3): ("B", 0.4), (2, 4): ("Y", 0.4), (3, 2): ("G", 0.4), (3, 4): ("V", 0.4)}
    feats = _board(patch, WHITE)
    _, (dec, read) = _read(model, feats)
    for (r, c), (letter, _amount) in patch.items():
        assert dec.letters[r * SIZE + c] == letter and dec.sure[r * SIZE + c]
    empty = [i for i in np.flatnonzero(read) if divmod(int(i), SIZE) not in patch]
    assert empty and all(dec.letters[i] == "." and dec.sure[i] for i in empty)


def test_far_from_any_sheen_nothing_changes() -> None:
    model = _model()
    feats = _board({(0, 0): ("G", 0.0), (6, 6): ("B", 0.0)}, PINK)
    plain = model.decide(feats)
    dec, read = read_under_tint(model, plain, np.zeros(SIZE * SIZE, bool), [feats] * len(model.refs), SIZE, SIZE)
    assert not read.any() and dec is plain
    feats = _board({**PATCH, (6, 6): ("G", 0.0)}, PINK)  # a sheen in the middle: a corner is beyond reach
    plain = model.decide(feats)
    _, (dec, read) = _read(model, feats)
    corner = 6 * SIZE + 6
    assert not read[corner] and dec.letters[corner] == "G" and dec.sure[corner]


def test_a_tile_lying_askew_far_from_the_sheen_is_not_read_empty_surely() -> None:
    # a tile beyond the sheen's reach that mirrors the same lamp (3D room 12: a green tile lying
    # askew three rows from the sheen, read empty surely); its flat neighbours keep their readings
    model = _model()
    feats = _board({**PATCH, (6, 6): ("G", 1.6)}, PINK)
    corner = 6 * SIZE + 6
    plain = model.decide(feats)
    assert plain.letters[corner] == "." and plain.sure[corner]  # before: the empty cell's look, surely
    _, (dec, read) = _read(model, feats)
    assert read[corner] and not (dec.sure[corner] and dec.letters[corner] == ".")
    for i in (6 * SIZE + 5, 5 * SIZE + 6, 0):  # empty cells beside it and far from both
        assert dec.letters[i] == "." and dec.sure[i]
