"""Rule *beyond*: a piece read by the picture's rules whose centre lies beyond the place's cell is
between two points, and the place unsure ("between").

A piece belongs to the point nearest its centre, and one between two points to neither (stage
`centres`). Rule `between` finds such a piece where the learned looks read it surely, by the
samples moved towards the next place; the rules that read places the looks leave doubtful by
what the picture itself shows (its split in two by lightness, its parity, its own board) see a
piece half covering a place's disc as readily as one on its point, and a look far from every
learned one says nothing of where it lies. So where a rule read a place as a piece, the piece is
found on the picture (`centres.piece_beyond`: the pixels nearer that label's looks than any
other's, the piece the one disc holding the cell's deepest point, its centre that disc's deepest
point); a centre beyond the cell leaves the place unsure. Not where the centre lies away from the
camera (`Picture.away`): a tall piece on its place is seen so, its top displaced beyond its foot.
"""

from __future__ import annotations

import numpy as np

from controller.vision.lattice.centres import piece_beyond
from controller.vision.lattice.places import DISC, EMPTY
from controller.vision.lattice.reading import Picture, Reading
from controller.vision.lattice.rules.centre import piece_pixels

NAME = "beyond"


def rule(picture: Picture, reading: Reading) -> Reading:
    """The places a rule read surely as a piece whose centre lies beyond their cell, made unsure."""
    seen = picture.rectified
    if seen is None or not picture.whole:
        return reading
    why = reading.why_array()
    letters = np.array(reading.letters, object)
    asked = (why == "") & (letters != EMPTY) & picture.visible & (np.array(reading.source, object) != "looks")
    if not asked.any():
        return reading
    cols = picture.model.size[1]
    shows = piece_pixels(picture)
    for i in np.flatnonzero(asked):
        point = np.array([i % cols, i // cols], np.float64)
        offset = piece_beyond(seen.logimg, point, seen.light[i], shows(str(letters[i])), DISC)
        if offset is None or (picture.away is not None and offset @ picture.away[i] > 0):
            continue
        why[i] = "between"
    return reading.but(NAME, why=why)
