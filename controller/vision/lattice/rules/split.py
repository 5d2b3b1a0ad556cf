"""Rule *split*: the pieces of one picture split in two by lightness, named by its order.

Between two kinds of pieces (light and dark), only the order of their lightness holds from board
to board. Within each parity, the places the flatness surely reads as pieces (or the picture's own
flat board finds pieces) split in two by lightness where the split is clear (the groups further
apart than the open-set distance of one dimension in their pooled spread, the rule by which
`ClassModel.learn_looks` splits a label), and the learned lightness looks name the groups by order.
A place the looks lean to its group's name reads it, sure, by the model's margins; a sure place
the split agrees with is marked "agrees".
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from controller.vision.classify import open_set_distance
from controller.vision.lattice.light import FLOOR
from controller.vision.lattice.own_looks import flat_piece
from controller.vision.lattice.places import EMPTY, N_FEATURES
from controller.vision.lattice.reading import Picture, Reading, parity_of

if TYPE_CHECKING:
    from controller.vision.lattice.model import LatticeModel


NAME = "split"


def rule(picture: Picture, reading: Reading) -> Reading:
    """The pieces read by a clear split of their parity in two by lightness."""
    if not picture.with_flatness:
        return reading
    why = reading.why_array()
    letters, made, agrees = by_split(
        picture.model,
        picture.feats,
        picture.shifted,
        picture.flat_known,
        list(reading.letters),
        why,
        picture.visible,
        reading.marked("own_piece"),
    )
    return reading.but(NAME, letters, why, made, marks={"by_picture": made, "agrees": made | agrees})


def by_split(
    model: LatticeModel,
    feats: np.ndarray,
    shifted: np.ndarray,
    flat: np.ndarray,
    letters: list[str],
    why: np.ndarray,
    visible: np.ndarray,
    own_piece: np.ndarray | None = None,
) -> tuple[list[str], np.ndarray, np.ndarray]:
    """Read the pieces of one picture by splitting them in two by lightness, within each parity
    of the lattice; say which places were so read (`why` "margin", "pair" or "far" changed in
    place to "") and which places read surely the split confirms.

    Between two kinds of pieces (light and dark), only the order of their lightness holds
    from board to board: light pieces are lighter than dark ones in the same light. On one
    square colour a piece shows in the lightness percentile away from the square's own: the
    darkest part of the disc on the lighter squares (the 20th percentile), the lightest on
    the darker ones (the 80th); which parity is lighter, the picture's flat places say. The
    places of a parity that the flatness surely reads as a piece (not empty, `_flat_piece`)
    are split in two where the two groups lie the furthest apart (1-D 2-means); the split
    holds only when the groups' means lie further apart than the open-set distance of one
    dimension in their pooled spread (the rule by which `ClassModel.learn_looks` splits a
    label in two looks), and when the learned lightness looks (`_lightness_decision`) read
    the darker group mostly as the darker piece and the lighter as the lighter. A place
    whose looks lean to the piece its group is named (and are not sure of another) reads it,
    sure, when within the open-set distance of its group and nearer it than the other by the
    model's margins. Pictures of one kind of pieces do not split so. `shifted` as in
    `_by_parity`. `own_piece` (`_own_flatness`): places the picture's own flat board finds
    pieces, which join the split; where their looks lean to empty they say nothing of the
    kind, and the group's name is read. Where the percentile does not split clearly (a dark
    piece's highlight varies with its shape), the disc's median lightness (the piece's own
    colour where it covers most of the disc) may: its split is used when it is clear and
    groups the places exactly as the percentile's best split does.
    """
    rows, cols = model.size
    n_places = len(letters)
    made, agrees = np.zeros(n_places, bool), np.zeros(n_places, bool)
    c = model.classes
    proj = np.zeros((4, N_FEATURES))
    proj[0, 0:3] = proj[1, 3:6] = 1 / 3
    proj[2, 6] = proj[3, 7] = 1
    letter_of = np.array([r.letter for r in c.refs])
    kinds = sorted(
        {str(x) for x in letter_of if x != EMPTY}, key=lambda k: float((c.means[letter_of == k] @ proj.T).mean())
    )
    if n_places != rows * cols or len(kinds) != 2:
        return letters, made, agrees
    fdec = model.flat_looks.decide(flat)
    flat_empty = fdec.sure & (np.array(fdec.letters) == EMPTY)
    parity = parity_of(n_places, cols)
    x = shifted[0]
    level = [x[flat_empty & (parity == q), 0:3].mean(axis=1) for q in (0, 1)]
    if min(len(v) for v in level) == 0:
        return letters, made, agrees
    lighter = int(np.median(level[1]) > np.median(level[0]))
    piece = (flat_piece(model, flat) | (False if own_piece is None else own_piece)) & visible
    named = np.full(n_places, "", object)
    judged = False
    limit = open_set_distance(1)
    out = list(letters)
    for q in (0, 1):
        idx = np.flatnonzero(piece & (parity == q))
        v = x[idx, 6] if q == lighter else x[idx, 7]
        split = _split_1d(v)
        if split is None:
            continue
        if split[3] <= limit:
            # Not clear in the percentile: the disc's median lightness (the piece's own, where it
            # covers most of the disc) may split the same places clearly.
            median = x[idx, 0:3].mean(axis=1)
            other = _split_1d(median)
            if other is None or other[3] <= limit or not np.array_equal(other[0][1], split[0][1]):
                continue
            v, split = median, other
        groups, mean, spread, _ = split
        if not judged:  # the learned lightness looks' names, for the pieces only
            named[piece] = model._lightness_decision(feats, shifted[:, piece]).letters
            judged = True
        if any(np.mean(named[idx[g]] == kind) <= 0.5 for g, kind in zip(groups, kinds)):
            continue
        for j, i in enumerate(idx):
            g = int(groups[1][j])
            own, other = abs(v[j] - mean[g]) / spread, abs(v[j] - mean[1 - g]) / spread
            margin = (other - own) / max(other, 1e-9)
            need = c.pair_margins.get((kinds[g], kinds[1 - g]), -np.inf)
            # The looks must lean to the group's name, unless they lean to empty where the
            # picture's own flat board says it is not empty: then they say nothing of its kind.
            unlike = own_piece is not None and own_piece[i] and out[i] == EMPTY
            if own > limit or margin < c.min_margin or margin <= need or (out[i] != kinds[g] and not unlike):
                continue
            if why[i] in ("margin", "pair", "far"):
                why[i], made[i], out[i] = "", True, kinds[g]
            elif why[i] == "" and out[i] == kinds[g]:
                agrees[i] = True
    return out, made, agrees


def _two_means_1d(v: np.ndarray) -> float | None:
    """The value that splits `v` in two groups of at least two with the least spread within them
    (the best 1-D 2-means), or None for fewer than four values."""
    if len(v) < 4:
        return None
    o = np.sort(v)
    best = min(range(2, len(o) - 1), key=lambda k: o[:k].var() * k + o[k:].var() * (len(o) - k))
    return float((o[best - 1] + o[best]) / 2)


def _split_1d(v: np.ndarray) -> tuple[list[np.ndarray], list[float], float, float] | None:
    """The best two groups of `v` (`_two_means_1d`): (the lower and the upper group as bools,
    their means, their pooled spread with the floor, how many spreads their means lie apart), or
    None for fewer than four values."""
    cut = _two_means_1d(v)
    if cut is None:
        return None
    groups = [v < cut, v >= cut]
    within = sum(((v[g] - v[g].mean()) ** 2).sum() for g in groups) / (len(v) - 2)
    spread = float(np.sqrt(within + FLOOR**2))
    mean = [float(v[g].mean()) for g in groups]
    return groups, mean, spread, (mean[1] - mean[0]) / spread
