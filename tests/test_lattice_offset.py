"""Rule `offset` (issue 32): the picture's global offset is a median over the places read surely at
first, known only to its standard error; a place whose reading an offset within that error changes
is unsure, tested on synthetic features: a chessboard under a coloured lamp whose first sure places
are a few black pieces of a noisy look."""

from __future__ import annotations

import numpy as np
from lattice_models import BLACK, DARK, LIGHT, WHITE

from controller.vision.classify import ClassModel, ClassRef
from controller.vision.lattice import FLOOR, N_FEATURES, SHIFTS, LatticeModel, rules
from controller.vision.lattice.reading import Picture

F = N_FEATURES
PLACE = 6 * 8 + 2  # a white piece on a light square, seen dim
#: red and blue up, green down (log): no learned look but the wide black one is near at first
LAMP = np.array([0.3, -0.3, 0.3])


def _model() -> LatticeModel:
    """Squares and white pieces learned tight (0.1 log), black pieces wide (0.4: a dark colour's
    log is noisy)."""
    tight, wide = np.eye(F) * 0.1**2, np.eye(F) * 0.4**2
    refs = [
        ClassRef(".", ".", np.full(F, LIGHT), tight),
        ClassRef(".#2", ".", np.full(F, DARK), tight),
        ClassRef("K", "K", np.full(F, BLACK), wide),
        ClassRef("W", "W", np.full(F, WHITE), tight),
    ]
    return LatticeModel((8, 8), ClassModel(refs, floor=np.full(F, FLOOR**2)))


def _picture(scatter: float) -> tuple[np.ndarray, list[str]]:
    """Black pieces on row 0 at levels spread by `scatter` about the learned look, white pieces at
    (7, 0) and (7, 2), and a white piece at PLACE seen at 0.26 (between the white piece's look and
    the light square's, nearer the latter once a shadow is allowed), all under LAMP."""
    rng = np.random.default_rng(3)
    spread = np.array([-1.5, -1.0, -0.6, -0.2, 0.2, 0.6, 1.0, 1.5])
    labels, level = [], []
    for r in range(8):
        for c in range(8):
            piece = "K" if r == 0 else "W" if (r, c) in ((7, 0), (7, 2), (6, 2)) else "."
            labels.append(piece)
            square = LIGHT if (r + c) % 2 == 0 else DARK
            level.append({"K": BLACK + scatter * spread[c], "W": WHITE}.get(piece, square))
    level[PLACE] = 0.26
    lamp = np.concatenate([LAMP, LAMP, [LAMP.mean()] * 2])
    x = np.array(level)[:, None] + rng.normal(0, 0.01, (64, F)) + lamp
    return np.repeat(x[None], len(SHIFTS), axis=0), labels


def test_a_place_whose_reading_depends_on_an_uncertain_offset_is_unsure() -> None:
    """Eight black pieces scattered by 0.3 log are all the picture reads surely at first: the
    lamp's offset, their median, is known to 0.15 log in each channel. The dim white piece is read
    as the light square within that, but as a white piece with an offset 0.15 lower: unsure, not
    read empty surely (as it was); no place is read wrong, nearly all are read."""
    model = _model()
    feats, labels = _picture(0.3)
    error = Picture.of(model, feats).offset_error
    assert error is not None and np.all(error > 0.1)
    letters, why, _ = model.judge(feats)
    assert why[PLACE] == "margin"
    assert all(g == t for g, t, w in zip(letters, labels, why) if w == "")
    assert why.count("") >= 60


def test_a_place_read_under_a_well_measured_offset_stays_read() -> None:
    """The same picture with quiet black pieces: the offset is known to under 0.01 log, and the
    place the looks read as the light square keeps that reading (the rule asks only the light the
    measurement leaves open)."""
    model = _model()
    feats, _ = _picture(0.02)
    error = Picture.of(model, feats).offset_error
    assert error is not None and np.all(error < 0.01)
    letters, why, _ = model.judge(feats)
    assert (letters[PLACE], why[PLACE]) == (".", "")
    assert why.count("") == 64


def test_the_picture_groups_do_not_read_what_the_offset_leaves_open() -> None:
    """The groups, fitted on the places with the offset removed, move with that offset as the
    following does: they never settle a place the offset's uncertainty left open."""
    model = _model()
    feats, _ = _picture(0.3)
    reading = rules.judge(model, feats)
    assert reading.marked("offset")[PLACE] and reading.source[PLACE] == "looks"
