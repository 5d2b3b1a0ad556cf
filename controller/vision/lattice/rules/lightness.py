"""Rule *lightness*: a place far from every learned look reads as the piece its lightness alone
surely matches, where the flatness is nearest that same piece.

Another camera or set renders a piece's colour otherwise (black stones with a blue cast where the
learning photo's were grey): its full look is then far from every learned one, but its lightness
against the board's light still sits where its label's did, since a camera's colour response and a
piece's tint change the balance of the channels, not the order of light and dark. The lightness
looks (`LatticeModel._lightness_decision`) and the board-independent flatness share no colour.
"""

from __future__ import annotations

import numpy as np

from controller.vision.lattice.places import EMPTY
from controller.vision.lattice.reading import Picture, Reading

NAME = "lightness"


def rule(picture: Picture, reading: Reading) -> Reading:
    """The "far" places whose lightness and flatness agree on a piece, so read."""
    if not picture.with_flatness:
        return reading
    why = reading.why_array()
    far = np.flatnonzero(why == "far")
    if not len(far):
        return reading
    light = picture.model._lightness_decision(picture.feats, picture.shifted)
    flat_letters = picture.flat_decision.letters
    out = list(reading.letters)
    made = np.zeros(len(out), bool)
    for i in far:
        if light.sure[i] and light.letters[i] != EMPTY and flat_letters[i] == light.letters[i]:
            why[i] = ""
            out[i] = light.letters[i]
            made[i] = True
    return reading.but(NAME, out, why, made)
