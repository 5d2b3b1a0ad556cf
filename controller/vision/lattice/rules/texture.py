"""Rule *texture*: a place a rule read surely as empty by the picture's own places, whose disc is
textured unlike its parity's bare board in this picture the way its pieces are, is unsure
("texture").

The rules that read the places the learned looks leave doubtful by what the picture itself shows
(its parity's bare squares, its flat board, its groups) weigh a place's colour and flatness. A
piece of the board's own colour (a walnut pawn on a walnut square, seen from above) matches both:
its median colour is the square's, its disc little less even. What it changes is the texture
(`places.texture`): its outline, shading and highlights on a grained square, or a smooth stone
over a point's lines. Within one picture the bare places of one parity are one board under one
camera, so their texture is one population, and the pieces the picture shows say which way a
piece moves a place's texture from it (rougher or smoother). A place read empty stays sure unless
its texture lies beyond the prediction interval of its parity's population (the places of its
parity read surely empty, the place itself left out) at the open-set level `P_KNOWN` (Student's t
with n - 1 degrees of freedom, times the population's spread, with the least spread of any
feature `FLOOR`, and sqrt(1 + 1/n)), on the side the picture's pieces lie. With fewer than two
other places, or no piece read surely, the picture does not say, and the place stays as read.
Nor where a neighbour's sure piece is seen displaced towards the place, away from the camera
(`Picture.away`): a tall piece's top shows in the next cell (as rules between, centre and beyond
say), and the texture there is that piece's.
"""

from __future__ import annotations

import numpy as np
from scipy.stats import t as student

from controller.vision.classify import P_KNOWN
from controller.vision.lattice.light import FLOOR
from controller.vision.lattice.places import EMPTY
from controller.vision.lattice.reading import Picture, Reading

NAME = "texture"


def rule(picture: Picture, reading: Reading) -> Reading:
    """The places a rule read surely as empty whose texture is unlike their parity's bare board's
    in this picture, as its pieces are, made unsure."""
    texture = picture.texture
    if texture is None:
        return reading
    why = reading.why_array()
    letters = np.array(reading.letters, object)
    sure = (why == "") & picture.visible
    empty = sure & (letters == EMPTY)
    asked = empty & (np.array(reading.source, object) != "looks")
    side = _pieces_side(texture, empty, sure & (letters != EMPTY), picture.parity)
    if not asked.any() or side == 0:
        return reading
    for q in (0, 1):
        here = np.flatnonzero(asked & (picture.parity == q))
        population = texture[empty & (picture.parity == q)]
        if not len(here):
            continue
        # Each place's population without itself (every place asked is one of it).
        n = len(population) - 1
        if n < 2:
            continue
        mean = (population.sum() - texture[here]) / n
        squares = (np.square(population).sum() - np.square(texture[here]) - n * np.square(mean)) / (n - 1)
        spread = np.sqrt(np.maximum(squares, 0.0) + FLOOR**2)
        limit = student.ppf(1 - (1 - P_KNOWN) / 2, n - 1) * spread * np.sqrt(1 + 1 / n)
        unlike = side * (texture[here] - mean) > limit
        for i in here[unlike]:
            if not _neighbours_top(picture, reading, int(i)):
                why[i] = "texture"
    return reading.but(NAME, why=why)


def _neighbours_top(picture: Picture, reading: Reading, i: int) -> bool:
    """Whether a piece read surely on a neighbour of place `i` (along a row or a column) is seen
    displaced towards it: the camera sees the top of a tall piece away from itself
    (`Picture.away`), out of its own cell into the next, and that top is the piece's texture,
    not a piece of the place's own."""
    if picture.away is None:
        return False
    rows, cols = picture.model.size
    r, c = divmod(i, cols)
    for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
        rr, cc = r + dr, c + dc
        if not (0 <= rr < rows and 0 <= cc < cols):
            continue
        n = rr * cols + cc
        towards = np.array([-dc, -dr], np.float64)  # (x, y) from the neighbour to the place
        if reading.why[n] == "" and reading.letters[n] != EMPTY and picture.away[n] @ towards > 0:
            return True
    return False


def _pieces_side(texture: np.ndarray, empty: np.ndarray, pieces: np.ndarray, parity: np.ndarray) -> int:
    """+1 where the picture's pieces are rougher than the bare board of their parity (the median
    over them), -1 where smoother, 0 where no piece (or no bare board of its parity) is read."""
    offsets = [
        texture[pieces & (parity == q)] - texture[empty & (parity == q)].mean()
        for q in (0, 1)
        if (pieces & (parity == q)).any() and (empty & (parity == q)).any()
    ]
    if not offsets:
        return 0
    return int(np.sign(np.median(np.concatenate(offsets))))
