"""Rule *offset*: a place the looks read surely stays sure only under every light the picture's
measurement allows ("margin" otherwise).

The looks read a place once the picture's global offset is removed (`LatticeModel.decide`): per
channel, the median of how far the places read surely at first lie from their looks. A median of a
few places that scatter widely is known only to its standard error (`LatticeModel._decide_offset`):
a chessboard whose first sure places are a dozen black pieces, whose log colour is noisy, leaves it
uncertain by a tenth of a log unit or more in each channel, and a place whose reading depends on
that much light is not known. So a place the looks read surely stays sure only where no offset
within one standard error in each channel (the corners of that box) brings a look of another label
within the open-set distance and nearer than every look of its own label. Where the looks follow
the picture, a followed look moves with the offset by the share of its mean the picture's places
make (`Picture.share`): a look followed by many places moves nearly with the place, one learned
elsewhere stays.

Such a place is left as the looks leave a place too near a look of another label ("margin", marked
MARK), first of all rules: the rules that read a place against the picture's own board, parity or
flatness compare places with each other and not with the learned looks, and may read it; the
picture's groups, fitted on the places with the offset removed from the learned looks, may not
(rule `groups`).
"""

from __future__ import annotations

import itertools

import numpy as np

from controller.vision.lattice.places import offset_features
from controller.vision.lattice.reading import Picture, Reading

NAME = "offset"
MARK = "offset"  # the places this rule left unsure
#: The offsets tried: every corner of the box of one standard error per channel.
CORNERS = np.array(list(itertools.product((-1.0, 1.0), repeat=3)))


def rule(picture: Picture, reading: Reading) -> Reading:
    """The places the looks read surely that some offset within its standard error reads as
    another label, unsure ("margin")."""
    error = picture.offset_error
    if error is None:
        return reading
    classes = picture.model.classes
    labels = np.array([r.letter for r in classes.refs], object)
    letters = np.array(reading.letters, object)
    why = reading.why_array()
    # each corner's offset as the features see it, as `_decide_offset` removes it
    deltas = np.array([offset_features(c) for c in CORNERS * error])  # (8, F)
    # A place's distance to a look changes by at most the offset's own length in that look's
    # metric (the part the look does not follow): only a place that some look of another label
    # could then overtake is measured again.
    moved = deltas[:, None, :] * (1.0 - picture.share)[None, :, None]  # (8, looks, F)
    reach = np.sqrt(np.einsum("cki,kij,ckj->ck", moved, classes.inv, moved)).max(axis=0)  # (looks,)
    own = letters[:, None] == labels[None]  # (N, looks)
    dist = picture.dist
    nearest_other = np.where(own, np.inf, dist - reach).min(axis=1)
    farthest_own = np.where(own, dist + reach, np.inf).min(axis=1)
    may_turn = (nearest_other < farthest_own) & (nearest_other <= classes.max_distance)
    todo = np.flatnonzero((why == "") & (np.array(reading.source, object) == "looks") & ~own.all(axis=1) & may_turn)
    if not len(todo):
        return reading
    own = own[todo]
    feats = picture.shifted[:, todo]
    open_ = np.zeros(len(todo), bool)
    for delta in deltas:
        dist, _ = picture.model.distances_to(feats - delta, picture.means - picture.share[:, None] * delta)
        other = np.where(own, np.inf, dist).min(axis=1)
        mine = np.where(own, dist, np.inf).min(axis=1)
        open_ |= (dist.min(axis=1) <= classes.max_distance) & (other < mine)
    if not open_.any():
        return reading
    left = np.zeros(len(why), bool)
    left[todo[open_]] = True
    why[left] = "margin"
    return reading.but(NAME, why=why, marks={MARK: left})
