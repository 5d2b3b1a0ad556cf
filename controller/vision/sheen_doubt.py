"""Doubt beside a sheen: a place whose colour is also another look plus added light, near glare.

A glossy piece mirrors what lies in the mirror direction: a lamp, a ceiling panel, or a coloured
wall of the room. By the dichromatic reflection model its colour is then its own (diffuse) colour
plus light of the *mirrored* thing's colour, which need not be the paper's white (the paper is lit
by the whole room; the tile mirrors one part of it, a pink wall say). Added light of an unknown
colour can turn a green tile into a pale green that the learned looks read, surely, as the empty
cell; or a blue tile into a violet one. Colour alone cannot tell them apart there.

A sheen is also broad and smooth: the same reflection falls on a patch of neighbouring places. So
where the frame shows a sheen (places the learned looks cannot read without one: beyond the
open-set distance and brighter than their nearest look, or read only by allowing a sheen), a place
beside it (or in it) read as one meaning is unsure when its colour is, in every channel, at least
that of a look of another meaning (so that look plus non-negative light of some colour explains it).
Far from any sheen nothing changes; the doubt only turns sure readings unsure.
"""

from __future__ import annotations

import numpy as np
from scipy.ndimage import binary_dilation

from controller.vision.classify import ClassModel, Decision
from controller.vision.sheen import colours_of


def _looks_bgr(model: ClassModel) -> np.ndarray:
    """(K, 3) white-normalised BGR of each learned look's mean, and how far below it a shaded
    diffuse look may go (one standard deviation of the learned brightness)."""
    means = np.array([r.mean for r in model.refs], np.float64)
    bgr = colours_of(means)
    spread = np.sqrt(np.array([float(np.asarray(r.cov)[0][0]) for r in model.refs]) + model.floor[0])
    return bgr * np.exp(-spread)[:, None]


def glare_places(model: ClassModel, dec: Decision, shone: np.ndarray, per_class: list[np.ndarray]) -> np.ndarray:
    """(N,) places that show a sheen: read only by allowing one, or beyond every learned look and
    brighter, channel by channel, than their nearest look (light added to it)."""
    idx = np.arange(len(dec.sure))
    best = dec.best
    feats = np.stack([per_class[k][i] for i, k in zip(idx, best)]) if len(idx) else np.zeros((0, 3))
    bgr = colours_of(feats)
    looks = colours_of(np.array([r.mean for r in model.refs], np.float64))[best]
    brighter = np.all(bgr > looks, axis=1)
    return shone | ((dec.distance > model.max_distance) & brighter)


def doubt_beside_sheen(
    model: ClassModel, dec: Decision, shone: np.ndarray, per_class: list[np.ndarray], rows: int, cols: int
) -> np.ndarray:
    """(N,) places read surely that a sheen nearby leaves open to a look of another meaning."""
    glare = glare_places(model, dec, shone, per_class).reshape(rows, cols)
    if not glare.any():
        return np.zeros(len(dec.sure), bool)
    near = binary_dilation(glare, structure=np.ones((3, 3), bool)).ravel()
    floors = _looks_bgr(model)
    doubt = np.zeros(len(dec.sure), bool)
    for i in np.flatnonzero(near & dec.sure):
        read = dec.best[i]
        for k, ref in enumerate(model.refs):
            if model.same[read, k]:
                continue
            colour = colours_of(per_class[k][i : i + 1])[0]
            if np.all(colour >= floors[k]):
                doubt[i] = True
                break
    return doubt
