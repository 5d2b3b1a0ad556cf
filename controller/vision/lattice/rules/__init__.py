"""The lattice reader's rules, in the order `judge` applies them, each a module with one function
`rule(picture, reading) -> reading` and a docstring saying what it does.

The learned looks read every place first (`classified`); the rules then read some of the places
the looks leave unsure by what the picture itself shows (its own groups, its bare board, the
parity of its squares, the flatness of its places), or make unsure places whose reading the
picture contradicts. `bench/lattice_accuracy.py --rules` prints what each one changes, and what is
read right and wrong without it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from types import ModuleType
from typing import TYPE_CHECKING

import numpy as np

from controller.vision.lattice.reading import Picture, Reading
from controller.vision.lattice.rules import (
    between,
    beyond,
    centre,
    explained,
    flatness,
    groups,
    hidden,
    lamp,
    light,
    lightness,
    offset,
    own_board,
    own_flatness,
    parity,
    split,
    texture,
)

if TYPE_CHECKING:
    from controller.vision.lattice.model import LatticeModel
    from controller.vision.lattice.places import Rectified

Rule = Callable[[Picture, Reading], Reading]

#: The rules in the order they apply.
RULES: tuple[ModuleType, ...] = (
    offset,
    groups,
    between,
    lightness,
    own_flatness,
    parity,
    split,
    flatness,
    centre,
    own_board,
    beyond,
    texture,
    light,
    lamp,
    hidden,
    explained,
)


def classified(picture: Picture) -> Reading:
    """The learned looks' reading of every place, the looks following the picture
    (`LatticeModel.decide_picture`): unsure places "far" (beyond the open-set distance of every
    look), "margin" (too near a look of another label) or "pair" (not past that label pair's
    margin)."""
    dec, dist = picture.followed
    classes = picture.model.classes
    why = np.full(len(dec.sure), "", object)
    best = dist.argmin(axis=1)
    rival = np.where(classes.same[best], np.inf, dist)
    d2 = rival.min(axis=1)
    plain = (d2 - dec.distance) / np.maximum(np.where(np.isfinite(d2), d2, 1.0), 1e-9)
    why[~dec.sure] = "pair"
    why[~dec.sure & (plain < classes.min_margin)] = "margin"
    why[~dec.sure & (dec.distance > classes.max_distance)] = "far"
    return Reading.first(dec.letters, why, dec.confidence, best)


def judge(
    model: LatticeModel,
    feats: np.ndarray,
    hidden: np.ndarray | None = None,
    flat: np.ndarray | None = None,
    rules: Sequence[ModuleType] = RULES,
    bounds: np.ndarray | None = None,
    away: np.ndarray | None = None,
    rectified: Rectified | None = None,
) -> Reading:
    """The reading of one picture's places ((shifts, N, F) features, (N,) hidden places, (N,
    N_FLAT) flatness, (N, 3) clipped channels' bounds, (N, 2) the direction away from the camera,
    the rectified picture itself): the looks' reading, then each rule of `rules` in turn."""
    picture = Picture.of(model, feats, hidden, flat, bounds, away, rectified)
    reading = classified(picture)
    for module in rules:
        reading = module.rule(picture, reading)
    return reading
