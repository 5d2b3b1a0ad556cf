"""Rule *explained*: a picture the learned looks do not explain has no place sure by them alone
("picture").

A model learned on one board can meet a picture it does not describe: another board (black and
white squares where it learned wood), other pieces, a light far from the learning picture's. Most
places are then unsure, and the few it reads surely are those that happen to look like a learned
look (a black square like a dark piece): a look learned there is not evidence here. So when fewer
than `MIN_EXPLAINED` of the visible places are read surely by the looks (places a rule read by the
picture's own places, marked "by_picture", say nothing of that), a place stays sure only where a
reading that does not depend on the board confirms it ("agrees", or read empty where the
picture's own flat board reads it empty: "own_empty").
"""

from __future__ import annotations

import numpy as np

from controller.vision.lattice.places import EMPTY, MIN_EXPLAINED
from controller.vision.lattice.reading import Picture, Reading

NAME = "explained"


def rule(picture: Picture, reading: Reading) -> Reading:
    """Unconfirmed sure places of a picture the looks do not explain, unsure."""
    why = reading.why_array()
    sure = why == ""
    if (sure & ~reading.marked("by_picture")).sum() >= MIN_EXPLAINED * picture.visible.sum():
        return reading
    confirmed = reading.marked("agrees") | (reading.marked("own_empty") & (np.array(reading.letters) == EMPTY))
    why[sure & ~confirmed] = "picture"
    return reading.but(NAME, why=why)
