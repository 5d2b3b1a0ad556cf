"""A lamp's reflection beside a place: what is left of the place's colour once its halo is taken away.

A reflection of a lamp on the board or a piece is light *added* to what the board sends back: in
the colours the reader uses (relative to the markers' white paper, which shows the lamp's own
colour), a place in its halo is seen as its true colour plus some amount `a` >= 0 of white, the
same in every channel. Its core is brighter than anything diffuse, and clips. So a place the looks
leave unsure, with such a core within a pitch of it (the halo of a reflection that would matter
spreads about as far as its core), is read as the one meaning whose look some added white light
explains: every look is tried against the place's colour less `a` of white, for every `a` from none
to as much as its darkest channel allows, by the very rule the looks use (open-set distance,
margins). Where two meanings could be under the halo (a black marble drowned in white light looks
like a white one) it stays unsure.
"""

from __future__ import annotations

import numpy as np

from controller.vision.classify import ClassModel, Decision
from controller.vision.features import SATURATED, PatchSampler, colour_features, ring_offsets

#: How many amounts of added light are tried between none and the most the place allows.
STEPS = 48


class ReflectionCheck:
    """The reflections' cores near each place of a rectified board, and the places they explain."""

    def __init__(self, centres_px: np.ndarray, ppp: float, shape: tuple[int, int]) -> None:
        self.near = PatchSampler(centres_px, ring_offsets(0, ppp), shape)

    def cores_near(self, rect: np.ndarray, places: np.ndarray) -> np.ndarray:
        """(len(places),) whether a clipped core (every channel at full scale) lies within a pitch."""
        flat = rect.reshape(-1, rect.shape[2])
        vals = np.take(flat, self.near.index[places], axis=0)
        return (vals.min(axis=2) >= SATURATED).any(axis=1)

    def explain(self, model: ClassModel, rel: np.ndarray) -> Decision:
        """The looks' decision on `rel` ((n, 3) colours relative to the paper) with the least
        distance over every amount of added white light each look allows."""
        top = np.maximum(rel.min(axis=1), 0.0)  # the true colour is not below black
        amounts = np.linspace(0.0, 1.0, STEPS)[None, :, None] * top[:, None, None]
        under = np.maximum(rel[:, None, :] - amounts, 1e-4)  # (n, STEPS, 3)
        dist = model.distances(colour_features(under.reshape(-1, 3))).reshape(len(rel), STEPS, -1)
        return model.decide_distances(dist.min(axis=1))
