"""Rule *centre*: a place the looks leave between two labels is read from the centre of the piece
standing in its cell (the point nearest its centre).

A stone a good part of a pitch off its intersection (pushed by a hand, placed hastily) leaves half
of the place's disc on the bare board: its looks lie between the stone's and the board's, and the
samples moved 0.1 pitch do not reach it. Where the piece the looks lean to lies is measured on the
picture (`centres.piece_centre`): the pixels around the point nearer that label's look (its disc
colour, as it follows the picture) than any look of another label, and the deepest point inside
them, which must lie nearer the place's point than any other point (a piece belongs to the point
nearest its centre, one between two points to neither), in one disc. The place described at that
centre (`places.sampled`) is read with the looks as they follow the picture, the picture's global
offset removed (as every place); where it reads surely as that piece, the place is that piece. It
comes after rule `flatness`, which measures the flatness at the place's point, where half of the
disc shows the bare board.

Not where the piece may be a neighbour's seen at an angle: a tall piece's top is seen displaced
away from the camera, out of its own cell into the next (as rule `between` says).

Only places the looks leave doubtful ("margin", "pair", "far") between a piece and another label, and not
those left so by the picture's uncertain offset (rule `offset`: the light, not where the piece
lies, decides them).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from controller.vision.lattice.centres import piece_centre
from controller.vision.lattice.places import DISC, EMPTY, SHIFT, sampled
from controller.vision.lattice.reading import Picture, Reading
from controller.vision.lattice.rules.offset import MARK

NAME = "centre"


def rule(picture: Picture, reading: Reading) -> Reading:
    """The doubtful places whose piece, described at its own centre, reads surely, so read."""
    seen = picture.rectified
    if seen is None or not picture.whole:
        return reading
    why = reading.why_array()
    doubtful = np.isin(why, ("margin", "pair", "far")) & picture.visible & ~reading.marked(MARK)
    if not doubtful.any():
        return reading
    model = picture.model
    classes = model.classes
    cols = model.size[1]
    removed = picture.feats[0, 0] - picture.shifted[0, 0]  # the picture's global offset (features)
    labels = np.array([r.letter for r in classes.refs], object)
    letters = list(reading.letters)
    confidence = np.array(reading.confidence)
    made = np.zeros(len(letters), bool)
    pieces = labels != EMPTY
    nearest_piece = np.where(pieces[None], picture.dist, np.inf).argmin(axis=1)  # (N,) a look of a piece
    shows = piece_pixels(picture)
    for i in np.flatnonzero(doubtful):
        label = letters[i] if letters[i] != EMPTY else labels[nearest_piece[i]]
        point = np.array([i % cols, i // cols], np.float64)
        offset = piece_centre(seen.logimg, point, seen.light[i], shows(label), DISC)
        if offset is None or seen_from_a_neighbour(picture, reading, int(i), offset, label):
            continue
        x = sampled(seen.logimg, (point + offset)[None], seen.light[i : i + 1]) - removed
        dec = classes.decide_distances(model.distances_to(x[None], picture.means)[0])
        if dec.sure[0] and dec.letters[0] == label:
            letters[i] = label
            why[i] = ""
            made[i] = True
            confidence[i] = dec.confidence[0]
    if not made.any():
        return reading
    return reading.but(NAME, letters, why, made, confidence=confidence)


def piece_pixels(picture: Picture) -> Callable[[str], Callable[[np.ndarray], np.ndarray]]:
    """For a label, which of (M, 3) log colours relative to a place's light show that label's
    piece: nearer (the picture's global offset removed) one of its looks' disc colour, as the
    looks follow the picture, than any look of another label."""
    classes = picture.model.classes
    removed = picture.feats[0, 0] - picture.shifted[0, 0]  # the picture's global offset (features)
    colour = picture.means[:, 0:3]  # every look's disc colour, following the picture
    inv = np.linalg.inv(np.stack([np.asarray(r.cov)[0:3, 0:3] for r in classes.refs]) + np.diag(classes.floor[0:3]))
    whiten = np.linalg.cholesky(inv)  # (looks, 3, 3): |x @ whiten[k]|^2 is x's squared distance to look k
    labels = np.array([r.letter for r in classes.refs], object)

    def of(label: str) -> Callable[[np.ndarray], np.ndarray]:
        mine = labels == label

        def is_piece(rel: np.ndarray) -> np.ndarray:
            x = (rel - removed[0:3])[None] - colour[:, None, :]  # (looks, M, 3)
            y = np.matmul(x, whiten)
            d = y[..., 0] ** 2 + y[..., 1] ** 2 + y[..., 2] ** 2  # a sum over 3, without a slow reduce
            return d[mine].min(axis=0) < d[~mine].min(axis=0)

        return is_piece

    return of


def seen_from_a_neighbour(picture: Picture, reading: Reading, i: int, offset: np.ndarray, label: str) -> bool:
    """Whether the piece of `label` found off place `i`'s point, `offset` (x, y) pitches, may be the
    top of its neighbour's piece seen displaced away from the camera (`Picture.away`): a neighbour
    lying in the offset's direction (along an axis where the offset is more than `SHIFT`) reads
    surely that label, and the camera sees what stands on it displaced towards place `i`."""
    if picture.away is None:
        return False
    rows, cols = picture.model.size
    r, c = divmod(i, cols)
    for axis in (0, 1):
        if abs(offset[axis]) <= SHIFT:
            continue
        step = np.zeros(2, int)
        step[axis] = int(np.sign(offset[axis]))
        rr, cc = r + step[1], c + step[0]
        if not (0 <= rr < rows and 0 <= cc < cols):
            continue
        n = rr * cols + cc
        if reading.why[n] == "" and reading.letters[n] == label and picture.away[n] @ -step > 0:
            return True
    return False
