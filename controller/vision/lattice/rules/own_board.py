"""Rule *own board*: both readings together against the picture's bare board.

The looks and the flatness are two readings of one place, which is one thing in both: an empty
square of another board may be near a piece in one (its dark squares as dark as a learned dark
piece) but rarely near the same piece in both. Each label's distance is that of both together (the
squared Mahalanobis distances added): for empty, to the place's parity's bare board in this picture
in both (`own_looks`); for a piece, to its nearest learned look in each, or to this picture's own
sure pieces of that kind on that parity where nearer. A place the looks leave unsure by "margin" or
"pair", or read surely as a piece the flatness is not sure of, reads empty where within the
open-set distance of both and nearer empty than every piece by the margins; a place read surely
empty that this confirms is marked "agrees".
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from controller.vision.classify import open_set_distance
from controller.vision.lattice.own_looks import parity_distances
from controller.vision.lattice.places import EMPTY, N_FEATURES, N_FLAT
from controller.vision.lattice.reading import Picture, Reading, parity_of

if TYPE_CHECKING:
    from controller.vision.lattice.model import LatticeModel


NAME = "own board"


def rule(picture: Picture, reading: Reading) -> Reading:
    """The places whose looks and flatness together are their parity's bare board, read empty."""
    if not picture.with_flatness:
        return reading
    why = reading.why_array()
    letters, made, agrees = by_own_board(
        picture.model, picture.shifted, picture.flat_known, list(reading.letters), why, picture.dist, picture.visible
    )
    return reading.but(NAME, letters, why, made, marks={"by_picture": made, "agrees": made | agrees})


def by_own_board(
    model: LatticeModel,
    shifted: np.ndarray,
    flat: np.ndarray,
    letters: list[str],
    why: np.ndarray,
    dist: np.ndarray,
    visible: np.ndarray,
) -> tuple[list[str], np.ndarray, np.ndarray]:
    """Read empty the places whose looks and flatness together are those of their parity's bare
    board in this picture; say which places were so read (`why` "margin", "pair" or "far"
    changed in place to "") and which places read empty this reading confirms.

    The looks (`place_features`) and the flatness (`_flatness`) are two readings of one place:
    a place is one thing in both, empty or the same piece. Each alone may leave an empty
    square of another board near a piece (its dark squares as dark as a learned dark piece,
    its edge squares as uneven as a nearly flat learned light piece), but rarely near the same
    piece in both. So each label's distance is that of both readings together (the squared
    Mahalanobis distances added: the two taken as independent given the label): for empty, to
    the place's parity's empty look in this picture in both (`_parity_looks`, over the places
    the flatness surely reads empty and the looks do not surely read as a piece, the place
    left out); for a piece, to its nearest look of that piece in each (the looks following the
    picture, `dist` from `decide_picture`, and the learned flatness looks), or to the look of
    this picture's own pieces of that kind on that parity where it is nearer (one or more read
    surely, their flatness nearest that piece too: another set's pieces, unlike the learned
    ones, and the only fair rival of a look taken from this picture). The place reads empty,
    sure, when within the open-set distance of both readings' features and nearer empty than
    every piece by the model's margins (`min_margin`, and the pair margins of both models).
    Asked are the places the looks leave unsure by "margin" or "pair", those they read surely
    as a piece that the flatness is not sure of (the looks alone: a dark square of another
    board as dark as the learned dark piece), and those read surely empty (which this reading
    may confirm, see `judge`'s "picture"); not a "far" place: the
    learned looks know nothing of it, so a learned piece look is no measure of it. Like
    `_by_parity` this leans on the picture's own places, so it says nothing of whether the
    learned looks explain the picture."""
    rows, cols = model.size
    n_places = len(letters)
    made, agrees = np.zeros(n_places, bool), np.zeros(n_places, bool)
    c, f = model.classes, model.flat_looks
    letter_of = np.array([r.letter for r in c.refs])
    flat_of = np.array([r.letter for r in f.refs])
    kinds = sorted({str(k) for k in letter_of if k != EMPTY})
    if (
        n_places != rows * cols
        or not kinds
        or not np.any(letter_of == EMPTY)
        or not set(kinds) <= {str(k) for k in flat_of}
    ):
        return letters, made, agrees
    fdec = f.decide(flat)
    flat_empty = fdec.sure & (np.array(fdec.letters) == EMPTY)
    read_as = np.array(letters)
    surely_piece = (why == "") & (read_as != EMPTY)
    parity = parity_of(n_places, cols)
    fdist = f.distances(flat)
    flat_read = np.array(fdec.letters)
    asked = visible & (
        np.isin(why, ["margin", "pair"])
        | ((why == "") & (read_as == EMPTY))
        | (surely_piece & ~(fdec.sure & (flat_read == read_as)))
    )
    limit = open_set_distance(N_FEATURES + N_FLAT)
    out = list(letters)
    for q in (0, 1):
        here = np.flatnonzero(asked & (parity == q))
        population = flat_empty & ~surely_piece & visible & (parity == q)
        if not len(here) or not population.any():
            continue
        inside = population[here]
        d_looks, enough = parity_distances(model, shifted[0, population], shifted[:, here], inside)
        d_flat = parity_distances(model, flat[population], flat[here], inside, f)[0]
        d_empty = np.sqrt(d_looks**2 + d_flat**2)
        best_margin = np.full(len(here), np.inf)
        for k in kinds:
            k_looks = dist[here][:, letter_of == k].min(axis=1)
            k_flat = fdist[here][:, flat_of == k].min(axis=1)
            seen = surely_piece & visible & (read_as == k) & (flat_read == k) & (parity == q)
            if seen.any():
                # This picture's own pieces of this kind on this parity: the nearer rival.
                k_looks = np.minimum(
                    k_looks, parity_distances(model, shifted[0, seen], shifted[:, here], seen[here], None, True)[0]
                )
                k_flat = np.minimum(k_flat, parity_distances(model, flat[seen], flat[here], seen[here], f, True)[0])
            d_k = np.sqrt(k_looks**2 + k_flat**2)
            margin = (d_k - d_empty) / np.maximum(d_k, 1e-9)
            need = max(c.pair_margins.get((EMPTY, k), -np.inf), f.pair_margins.get((EMPTY, k), -np.inf))
            best_margin = np.minimum(best_margin, np.where(margin > need, margin, -np.inf))
        sure = enough & (d_empty <= limit) & (best_margin >= c.min_margin)
        for i in here[sure]:
            if why[i] == "" and read_as[i] == EMPTY:
                agrees[i] = True
            else:
                why[i], out[i], made[i] = "", EMPTY, True
    return out, made, agrees
