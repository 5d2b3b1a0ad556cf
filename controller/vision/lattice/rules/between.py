"""Rule *between*: a piece seen from two places is unsure at both ("between").

Each of the two places shows the label only in its sample moved towards the other (at its own
point the look is beyond the open-set distance), and both read it: one piece stands between them,
and which of them it stands on is not known. The moved samples otherwise absorb a piece a little
off its point, or seen displaced at an angle (then it is seen from its place only, towards the
far side).

Or the place shows its label only in its sample moved towards a neighbour read the same, and the
lightness of both (the mean over the channels, which a coloured lamp leaves in its order where it
moves the colours) matches that label best at the samples moved towards each other: the one piece
between them, whose colour at the neighbour's own point the lamp may have made another look's
(an empty point half covered by a stone seen off its own point, under a magenta lamp). Not where
the place's lightness at its own point is its label's (within the lightness looks' open-set
distance): a point half covered shows the bare board's lightness there, a piece on its point its
own (two stones of one colour side by side, whose lightness matches best where they touch). Nor
where the place matches towards the far side, away from the camera (`Picture.away`): a tall piece
on its place is seen so, its top displaced beyond its foot (a dark king on a dark square, whose
own point shows the square's lightness), as the moved samples are meant to absorb.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from controller.vision.classify import open_set_distance
from controller.vision.lattice.places import N_LIGHTNESS, SHIFT, SHIFTS
from controller.vision.lattice.reading import Picture, Reading

NAME = "between"


def rule(picture: Picture, reading: Reading) -> Reading:
    """The sure places whose piece stands between them and the next place, made unsure."""
    why = reading.why_array()
    between = (why == "") & between_places(picture, reading)
    if not between.any():
        return reading
    why[between] = "between"
    return reading.but(NAME, why=why)


def between_places(picture: Picture, reading: Reading) -> np.ndarray:
    """(N,) places whose piece stands between them and the next place, by the learned look each
    was read as (none where a rule read it otherwise)."""
    model = picture.model
    rows, cols = model.size
    letters = reading.letters
    feats = picture.feats
    if len(feats) != len(SHIFTS):
        return np.zeros(len(letters), bool)
    best = np.array(reading.look)
    known = best >= 0
    best = np.where(known, best, 0)
    n = np.arange(len(letters))
    chosen = np.stack([model._shaded(f)[n, best] for f in feats])  # (shifts, N)
    off_point = (chosen[0] > model.classes.max_distance) & known
    step = np.rint(SHIFTS[chosen.argmin(axis=0)] / SHIFT).astype(int)  # (N, 2) as (dx, dy)
    r, c = np.divmod(n, cols)
    rr, cc = r + step[:, 1], c + step[:, 0]
    inside = (rr >= 0) & (rr < rows) & (cc >= 0) & (cc < cols)
    other = np.where(inside, rr * cols + cc, n)
    label = np.array(letters, object)
    towards = off_point & (other != n)
    same = label[other] == label
    light, own_point = lightness_seen(picture, letters)
    # Not where the place's own point shows its label's lightness: its piece covers it; nor where
    # it matches towards the far side: a tall piece on it is seen so.
    by_lightness = (light == other) & (light[other] == n) & (own_point > open_set_distance(N_LIGHTNESS))
    if picture.away is not None:
        by_lightness &= (cc - c) * picture.away[:, 0] + (rr - r) * picture.away[:, 1] <= 0
    return towards & same & ((towards[other] & (other[other] == n)) | by_lightness)


def lightness_towards(picture: Picture, letters: Sequence[str]) -> np.ndarray:
    """(N,) the neighbour towards which each place's lightness (`LatticeModel.lightness_distances`)
    matches its label `letters` best, the place itself where that is at its own point (or no look
    has the label)."""
    return lightness_seen(picture, letters)[0]


def lightness_seen(picture: Picture, letters: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """As `lightness_towards`, and (N,) the distance of each place's lightness at its own point to
    its label's nearest look (0 where the samples are not known)."""
    model = picture.model
    rows, cols = model.size
    n = np.arange(len(letters))
    if len(picture.shifted) != len(SHIFTS) or len(letters) != rows * cols:
        return n, np.zeros(len(n))
    labels = np.array([r.letter for r in model.classes.refs], object)
    mine = labels[None, :] == np.array(letters, object)[:, None]  # (N, looks)
    dist = np.where(mine[None], picture.lightness_distances, np.inf).min(axis=2)  # (shifts, N)
    step = np.where(mine.any(axis=1)[:, None], np.rint(SHIFTS[dist.argmin(axis=0)] / SHIFT).astype(int), 0)
    r, c = np.divmod(n, cols)
    rr, cc = r + step[:, 1], c + step[:, 0]
    inside = (rr >= 0) & (rr < rows) & (cc >= 0) & (cc < cols)
    return np.where(inside, rr * cols + cc, n), dist[0]
