"""Rule *groups*: the picture's own groups read the places the learned spreads leave between two
looks.

Within one picture every place of a label is one group however another board or camera renders
it (white stones brighter and shaded on their far side, a board of another wood). Where the
learned looks explain the picture, a mixture fitted in it (started from the learned looks) reads a
place the looks left unsure by "margin", "pair" or "far", by the very rule the learned looks use
(the open-set distance, the margins, the pair margins), when it reads every place the looks read
surely alike, and not where the flatness is sure of the other side (empty or a piece), nor where a
clipped channel bounds the place's colour (`controller.vision.bounds`): what the clipping hid is not
in the picture to group by, and a lamp that clips distorts the very places a group is fitted on
(under a violet lamp, white stones clipped with the board joined its group, surely). Nor a place
whose looks' reading the uncertainty of the picture's measured light leaves open (rule `offset`):
the groups are fitted, as the following is, on the places with the global offset removed and the
learned looks as their prior, and so move with that offset only as far as their places pull them.

The groups are made of the places the learned looks read surely: a place the looks leave unsure
does not shape the group that then reads it. Fitted on every place, a look's group widened to take
in the doubtful places themselves (under a violet lamp, the empty points beside white stones seen
at an angle, half covered by them, widened the white stones' group until it read them white). And
a place is read only as a look the learned looks read some place of surely: a group with no place
of its own in the picture is only the learned look, and the picture says nothing of it.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from controller.vision import bounds
from controller.vision.classify import ClassModel, ClassRef, Decision
from controller.vision.lattice.places import EMPTY, FOLLOW_ROUNDS, MIN_EXPLAINED, N_FEATURES
from controller.vision.lattice.reading import DOUBTFUL, Picture, Reading
from controller.vision.lattice.rules import offset

NAME = "groups"


def rule(picture: Picture, reading: Reading) -> Reading:
    """The visible places unsure by "margin", "pair" or "far" that the picture's own groups read
    surely, so read."""
    why = reading.why_array()
    visible = picture.visible
    doubtful = visible & np.isin(why, DOUBTFUL) & ~reading.marked(offset.MARK)
    if not doubtful.any():
        return reading
    found = picture_groups(picture)
    if found is None:
        return reading
    groups, dist, anchored = found
    sure = (why == "") & visible
    if np.any(np.array(groups.letters)[sure] != np.array(reading.letters)[sure]):
        return reading
    read = doubtful & groups.sure & anchored[groups.best]
    if picture.bounds is not None:
        read &= (picture.bounds == bounds.NONE).all(axis=1)
    if picture.with_flatness:
        fdec = picture.flat_decision
        flat_empty = np.array(fdec.letters) == EMPTY
        read &= ~(fdec.sure & (flat_empty != (np.array(groups.letters) == EMPTY)))
    letters, confidence, look = list(reading.letters), np.array(reading.confidence), list(reading.look)
    for i in np.flatnonzero(read):
        why[i] = ""
        letters[i] = groups.letters[i]
        confidence[i] = groups.confidence[i]
        look[i] = int(dist[i].argmin())
    return reading.but(NAME, letters, why, read, confidence, look)


def picture_groups(picture: Picture) -> tuple[Decision, np.ndarray, np.ndarray] | None:
    """The decision of the picture's own groups, its (N, looks) distances and (looks,) which looks
    the learned looks read some place of surely, or None where the learned looks do not explain
    the picture (`MIN_EXPLAINED`, as for following it).

    A Gaussian mixture over the visible places, one component per look, fitted by
    expectation-maximisation from the learned looks: each place belongs to each look in
    proportion to its likelihood there (from the distance with the shadow allowance, at the
    sample position that fits the look best, and the look's spread) times the look's share of
    the places (those nearest it, one more each), and a look's mean and covariance
    become those of its places so weighted, with the learned mean and covariance counted as
    N_FEATURES places (the prior weight `LatticeModel._followed` and `ClassModel.learn_looks` give them).
    Two rules keep a look from becoming another label's group:

    * only the places the learned looks read surely move a look, and each only the looks within
      whose learned open-set distance it lies (a stone unlike every learned look does not drag
      the look of a label with few places; a doubtful place does not widen a look to itself);
    * a look that the learned looks read no place of surely keeps its learned mean and
      spread: nothing in the picture says what it looks like there (on an empty board, the
      squares of one colour half like a learned piece would otherwise become that piece).
    """
    c = picture.model.classes
    dec0, _, shifted, _ = picture.offset
    if dec0.sure.sum() < MIN_EXPLAINED * len(dec0.sure):
        return None
    place = np.flatnonzero(picture.visible)
    model = picture.model
    dist, pos = model.distances(shifted)
    known = (dist[place] <= c.max_distance) & dec0.sure[place, None]
    anchored = np.isin(np.arange(len(c.refs)), dist.argmin(axis=1)[dec0.sure])
    for _ in range(FOLLOW_ROUNDS):
        logdet = np.linalg.slogdet(np.linalg.inv(model.classes.inv))[1]
        share = np.log(np.bincount(dist[place].argmin(axis=1), minlength=len(c.refs)) + 1.0)
        loglik = -0.5 * dist[place] ** 2 - 0.5 * logdet[None] + share[None]
        weight = np.exp(loglik - loglik.max(axis=1, keepdims=True)) * known
        weight /= np.maximum(weight.sum(axis=1, keepdims=True), 1e-300)
        refs = []
        for k, ref in enumerate(c.refs):
            if not anchored[k]:
                refs.append(ref)
                continue
            x = shifted[pos[place, k], place]
            w = weight[:, k]
            mean = (w @ x + N_FEATURES * c.means[k]) / (w.sum() + N_FEATURES)
            d = x - mean
            cov = ((d * w[:, None]).T @ d + N_FEATURES * np.asarray(ref.cov)) / (w.sum() + N_FEATURES)
            refs.append(ClassRef(ref.key, ref.letter, mean, cov, ref.open))
        before = dist.argmin(axis=1)
        model = replace(
            picture.model,
            classes=ClassModel(refs, c.max_distance, c.min_margin, c.floor, c.pair_margins),
            flat=None,
        )
        dist, pos = model.distances(shifted)
        if np.array_equal(before, dist.argmin(axis=1)):
            break
    return model.classes.decide_distances(dist), dist, anchored
