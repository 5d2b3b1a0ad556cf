"""Rule *lightness*: a place far from every learned look reads as the piece its lightness alone
surely matches, where the flatness is nearest that same piece and the two together read it so by
the classifier's margin (`flatness.together_reads`: two measurements of one place).

Another camera or set renders a piece's colour otherwise (black stones with a blue cast where the
learning photo's were grey): its full look is then far from every learned one, but its lightness
against the board's light still sits where its label's did, since a camera's colour response and a
piece's tint change the balance of the channels, not the order of light and dark. The lightness
looks (`LatticeModel._lightness_decision`) and the board-independent flatness share no colour.

Not where one piece stands between the place and a neighbour read the same ("between", as rule
`between` says it of places the looks read): the place's lightness matches its piece best at the
sample moved towards that neighbour, and the neighbour's at the sample moved back towards it. The
lightness of a point half covered by a stone seen off its own point, at an angle, is in part the
stone's; the looks, which would have told the bare point by its colour, are far, so nothing else
says which of the two the piece stands on.
"""

from __future__ import annotations

import numpy as np

from controller.vision.lattice.places import EMPTY
from controller.vision.lattice.reading import Picture, Reading
from controller.vision.lattice.rules.between import lightness_towards
from controller.vision.lattice.rules.flatness import together_reads

NAME = "lightness"


def rule(picture: Picture, reading: Reading) -> Reading:
    """The "far" places whose lightness and flatness agree on a piece, so read (or unsure
    "between" where that piece is seen between them and a neighbour read the same)."""
    if not picture.with_flatness:
        return reading
    why = reading.why_array()
    far = np.flatnonzero(why == "far")
    if not len(far):
        return reading
    dist = picture.lightness_distances.min(axis=0)
    light = picture.model.lightness_decide(dist)
    flat_letters = picture.flat_decision.letters
    together = together_reads(picture.model, dist, picture.flat_known, light.letters)
    out = list(reading.letters)
    made = np.zeros(len(out), bool)
    for i in far:
        if light.sure[i] and light.letters[i] != EMPTY and flat_letters[i] == light.letters[i] and together[i]:
            out[i] = light.letters[i]
            made[i] = True
    # One piece seen between the place and a neighbour read the same: each one's lightness
    # matches it best at the sample moved towards the other.
    towards = lightness_towards(picture, out)
    mutual = (towards != np.arange(len(out))) & (towards[towards] == np.arange(len(out)))
    same = np.array(out, object)[towards] == np.array(out, object)
    why[made] = np.where(mutual[made] & same[made], "between", "")
    return reading.but(NAME, out, why, made)
