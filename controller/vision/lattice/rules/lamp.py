"""Rule *lamp*: the light measured on the board's own two surfaces; no place is sure whose reading
depends on a lamp the light fit cannot undo ("lamp").

The light fit takes away whatever multiplies each colour channel (exposure, a coloured lamp whose
spectrum follows the camera's channels, white balance): the places' log colours relative to the
board are then the learned ones. A lamp of a few narrow lines (a purple party LED, a cheap white
LED) mixes the channels instead, and moves every colour, relative to the board as well, in a way no
gain per channel undoes. A chequered board always shows two known surfaces, its light and dark
squares, learned under the neutral light as two empty looks: under any gain per channel, and any
tone curve of the camera, the log contrast between them keeps its direction (a gain cancels in the
difference; a tone curve scales it). A direction turned is a lamp mixing the channels (or a camera
rendering the colours otherwise: the turn is a reason to read again, not a reading).

The squares are found without their colours: the places the flatness surely reads empty
(`Picture.flat_empty`), by their parity. The turn that takes the seen contrast's direction back to
the learned one is the least correction the lamp asks for, and every place is read again by the
looks with its colours turned so. The turn is measured on the squares, so it is known to hold for
them alone (for a piece's colours it is a guess): a place read surely as a piece that the turned
colours surely read as the empty square of its own parity depends on the light, and is unsure. The
turn is a lamp's only for a parity whose bare squares it gives back their learned look (most of them
read surely as it, turned): a turn that leaves them another look measured another board (a model
learned on another chessboard, whose squares differ in more than the contrast's direction), not a
lamp, and says nothing of the pieces on them. A board with one surface (a Go board's wood: it is
the light's own reference) shows nothing of a mixing, and is left as it is.
"""

from __future__ import annotations

import numpy as np

from controller.vision.lattice.places import EMPTY
from controller.vision.lattice.reading import Picture, Reading

NAME = "lamp"
#: least places of each parity that the flatness reads empty for their colour to be measured
LEAST_SQUARES = 4


def rule(picture: Picture, reading: Reading) -> Reading:
    """Places read surely as pieces that the colours turned back by the board's own two surfaces
    read surely as their bare square, unsure."""
    measured = board_turn(picture)
    if measured is None:
        return reading
    turn, squares = measured
    corrected, dist = Picture.of(picture.model, turned(picture.feats, turn), None, picture.flat, None).followed
    # Read surely as its own square's surface, as measured: the empty look of its parity.
    own_square = corrected.sure & (dist.argmin(axis=1) == np.array(squares)[picture.parity])
    # The turn is a lamp's only where it gives a parity's bare squares back their learned look.
    known = picture.flat_empty & picture.visible
    relit = np.array([np.mean(own_square[known & (picture.parity == p)]) > 0.5 for p in (0, 1)])
    own_square &= relit[picture.parity]
    why = reading.why_array()
    piece = np.array(reading.letters, object) != EMPTY
    why[(why == "") & own_square & piece & picture.visible] = NAME
    return reading.but(NAME, why=why)


def board_turn(picture: Picture) -> tuple[np.ndarray, tuple[int, int]] | None:
    """(3, 3) the rotation of log colour (about the board's light) that takes the contrast seen
    between the board's two surfaces back to the direction learned, or None where the board does
    not show two learned surfaces."""
    if not (picture.with_flatness and picture.whole):
        return None
    classes = picture.model.classes
    empty = np.flatnonzero([r.letter == EMPTY for r in classes.refs])
    if len(empty) < 2:
        return None
    colour = (picture.shifted[0, :, 0:3] + picture.shifted[0, :, 3:6]) / 2
    known = picture.flat_empty & picture.visible
    seen, looks = [], []
    for p in (0, 1):
        mine = known & (picture.parity == p)
        if mine.sum() < LEAST_SQUARES:
            return None
        seen.append(np.median(colour[mine], axis=0))
        learned = (classes.means[empty, 0:3] + classes.means[empty, 3:6]) / 2
        looks.append(int(empty[np.argmin(np.abs(learned - seen[-1]).sum(axis=1))]))
    if looks[0] == looks[1]:
        return None  # one surface: nothing to measure a mixing by
    means = (classes.means[:, 0:3] + classes.means[:, 3:6]) / 2
    return rotation(seen[0] - seen[1], means[looks[0]] - means[looks[1]]), (looks[0], looks[1])


def rotation(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """(3, 3) the least rotation taking the direction of `a` to that of `b` (Rodrigues)."""
    a = a / np.linalg.norm(a)
    b = b / np.linalg.norm(b)
    axis = np.cross(a, b)
    s, c = np.linalg.norm(axis), float(a @ b)
    if s < 1e-12:
        return np.eye(3)
    k = axis / s
    kx = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    return np.eye(3) + s * kx + (1 - c) * kx @ kx


def turned(feats: np.ndarray, turn: np.ndarray) -> np.ndarray:
    """(shifts, N, F) the features with the disc's and the core's log colour turned by `turn`, and
    the lightness percentiles moved as the disc's mean lightness moves."""
    out = feats.copy()
    for lo in (0, 3):
        out[..., lo : lo + 3] = feats[..., lo : lo + 3] @ turn.T
    out[..., 6:8] += (out[..., 0:3].mean(axis=-1) - feats[..., 0:3].mean(axis=-1))[..., None]
    return out
