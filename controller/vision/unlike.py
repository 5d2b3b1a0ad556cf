"""Whether a frame's light is unlike the calibration's: the unsure places say so, not something on the board.

A lamp the paper white cannot undo (one of a narrow spectrum, which no gain per channel mimics)
moves every place of a look alike: the same pigment under the same light. The places of such a
look are then all far from it (beyond the open-set distance of every learned look) or all read
somewhere it was not learned. A lamp's reflection, or the room mirrored by glossy tiles, is
local: a few places of a look are far while the frame's other places of that look sit by their
learned look, where a sample of the calibration would (within the median of the chi distribution
the open-set distance comes from). Those few places are left unsure, and say nothing of the
light. So only far places of a look the frame does not show by its learned self count: when they
are most of the unsure places and of at least two meanings (a hand, a cup or a stray piece is one
thing of one colour), every colour is read in a light unlike the calibration's.
"""

from __future__ import annotations

import numpy as np

from controller.vision.classify import ClassModel, Decision, open_set_distance


def seen_as_learned(model: ClassModel, dec: Decision, sure: np.ndarray) -> np.ndarray:
    """(K,) the looks this frame shows by their learned selves: the median distance of the places
    read surely as each is within the chi distribution's median (as a calibration sample's)."""
    typical = open_set_distance(model.means.shape[1], 0.5)
    seen = np.zeros(len(model.refs), bool)
    for k in np.unique(dec.best[sure]):
        seen[k] = float(np.median(dec.distance[sure & (dec.best == k)])) <= typical
    return seen


def unlike_calibration(model: ClassModel, dec: Decision, sure: np.ndarray) -> bool:
    """Whether the unsure places say that the light is far from the one the copy was calibrated
    under: most of them are far from every learned look, of looks the frame does not show by their
    learned selves elsewhere, and of at least two meanings."""
    unsure = np.flatnonzero(~sure)
    far = unsure[dec.distance[unsure] > model.max_distance]
    moved = far[~seen_as_learned(model, dec, sure)[dec.best[far]]]
    return 2 * len(moved) > len(unsure) and len({dec.letters[i] for i in moved}) >= 2
