"""Generic lattice reading for any grid game, learned from labelled pictures (`referee lattice`).

Nothing here knows what our boards look like: a person gives the pixel positions of the
lattice's four corner points and, for one or more pictures, the label of every place. The
pictures may be taken under other light than the ones read later (another time of day, a lamp,
another exposure or white balance), so every place is described relative to the picture's own
light. `read` is the recipe, one named stage after another:

1. *load* (`inputs`, `frames.load_image`): the picture, the lattice's size and labels;
2. *rectify* and *light* (`light`): the lattice warped upright as a log-colour image, and the
   light over it fitted to the board between the places;
3. *describe places* (`places`): every place's colour relative to that light, at its point and
   a little off it, its flatness, and whether the board is hidden around it;
4. *classify* (`model`): the learned looks of every label, following the picture;
5. *rules* (`rules`): what the picture's own places say of the places the looks leave unsure,
   each rule a module of its own, applied in the order of `rules.RULES`.

Learning (`learn`) describes the labelled pictures the same way and keeps, per label, its looks
and the margins a cross-validation of the learning places found it needs.
"""

from __future__ import annotations

import numpy as np

from controller.vision.frames import load_image
from controller.vision.geometry import CornersError
from controller.vision.lattice.inputs import parse_labels, parse_size
from controller.vision.lattice.learn import learn
from controller.vision.lattice.light import FLOOR, PPP, illumination
from controller.vision.lattice.model import MODEL_VERSION, LatticeModel
from controller.vision.lattice.places import (
    EMPTY,
    MIN_EXPLAINED,
    N_FEATURES,
    N_FLAT,
    SHIFT,
    SHIFTS,
    Described,
    describe,
    place_features,
)


def read(model: LatticeModel, image: np.ndarray, corners: np.ndarray) -> tuple[list[list[str]], np.ndarray, np.ndarray]:
    """The label of every place of a picture (row lists), whether it is sure and a confidence
    ((rows, cols) arrays)."""
    grid, why, conf = read_why(model, image, corners)
    return grid, why == "", conf


def read_why(
    model: LatticeModel, image: np.ndarray, corners: np.ndarray
) -> tuple[list[list[str]], np.ndarray, np.ndarray]:
    """As `read`, with why each place is unsure ((rows, cols) strings, "" where sure; see
    `reading`) instead of whether it is sure."""
    rows, cols = model.size
    seen = describe(image, model.size, corners)
    labels, why, conf = model.judge(seen.feats, seen.hidden, seen.flat, seen.bounds, seen.away, seen.rectified)
    grid = [labels[r * cols : (r + 1) * cols] for r in range(rows)]
    why_grid = np.array(why, object).reshape(rows, cols)
    return grid, why_grid, np.where(why_grid == "", conf.reshape(rows, cols), 0.0)


__all__ = [
    "EMPTY",
    "FLOOR",
    "MIN_EXPLAINED",
    "MODEL_VERSION",
    "N_FEATURES",
    "N_FLAT",
    "PPP",
    "SHIFT",
    "SHIFTS",
    "CornersError",
    "Described",
    "LatticeModel",
    "describe",
    "illumination",
    "learn",
    "load_image",
    "parse_labels",
    "parse_size",
    "place_features",
    "read",
    "read_why",
]
