"""Rule *between*: a piece seen from two places is unsure at both ("between").

Each of the two places shows the label only in its sample moved towards the other (at its own
point the look is beyond the open-set distance), and both read it: one piece stands between them,
and which of them it stands on is not known. The moved samples otherwise absorb a piece a little
off its point, or seen displaced at an angle (then it is seen from its place only, towards the
far side).
"""

from __future__ import annotations

import numpy as np

from controller.vision.lattice.places import SHIFT, SHIFTS
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
    return towards & towards[other] & (other[other] == n) & (label[other] == label)
