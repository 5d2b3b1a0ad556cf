"""Rule *own flatness*: the picture's own flat board, which the next rules weigh (it changes no
reading; it marks "own_empty" and "own_piece").

The learned flatness looks come from one board: another board's empty squares can be as even as
the learned ones and yet of another rim (a printed board's squares at its white border), and its
pieces shaded otherwise. Within one picture the empty places of one parity are one board: their
flatness look (the places the learned flatness surely reads empty and the looks do not surely read
as a piece, the place read left out, shrunk to the learned empty look) reads a place empty where
within its open-set distance and nearer than every piece look by the model's margins
("own_empty"); a place beyond it whose learned flatness is nearest a piece is a piece of a kind
not yet known ("own_piece").
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from controller.vision.classify import open_set_distance
from controller.vision.lattice.own_looks import parity_distances
from controller.vision.lattice.places import EMPTY, N_FLAT
from controller.vision.lattice.reading import Picture, Reading, parity_of

if TYPE_CHECKING:
    from controller.vision.lattice.model import LatticeModel


NAME = "own flatness"


def rule(picture: Picture, reading: Reading) -> Reading:
    """The places the picture's own flat board reads empty, and those it finds pieces, marked."""
    if not picture.with_flatness:
        return reading
    own_empty, own_piece = own_flatness(
        picture.model, picture.flat_known, list(reading.letters), reading.why_array(), picture.visible
    )
    return reading.but(NAME, marks={"own_empty": own_empty, "own_piece": own_piece})


def own_flatness(
    model: LatticeModel, flat: np.ndarray, letters: list[str], why: np.ndarray, visible: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """(N,) places the picture's own flat board reads surely empty, and (N,) places it reads as
    pieces: the flatness (`_flatness`) against the empty look of the place's parity in this
    picture.

    The learned flatness looks come from one board: another board's empty squares can be as
    even as the learned ones and yet of another rim (a printed board's squares at its white
    border), and its pieces shaded otherwise, so the learned looks leave them unsure. Within
    one picture the empty places of one parity are one board, alike. Their flatness look
    (`_parity_looks` over the places the learned flatness surely reads empty and the looks
    do not surely read as a piece, leaving out the place read, shrunk to the learned empty
    flatness look) reads a place empty, sure, when within its open-set distance and nearer it
    than every learned piece flatness look by the flatness model's margins; a place beyond
    its open-set distance whose learned flatness is nearest a piece is not the bare board of
    its parity: a piece, of a kind not yet known."""
    rows, cols = model.size
    f = model.flat_looks
    n_places = len(letters)
    own_empty, own_piece = np.zeros(n_places, bool), np.zeros(n_places, bool)
    letter_of = np.array([r.letter for r in f.refs])
    if n_places != rows * cols or not np.any(letter_of == EMPTY) or np.all(letter_of == EMPTY):
        return own_empty, own_piece
    fdec = f.decide(flat)
    flat_letters = np.array(fdec.letters)
    flat_empty = fdec.sure & (flat_letters == EMPTY)
    surely_piece = (why == "") & (np.array(letters) != EMPTY)
    parity = parity_of(n_places, cols)
    dist = f.distances(flat)
    pieces = np.flatnonzero(letter_of != EMPTY)
    limit = open_set_distance(N_FLAT)
    for q in (0, 1):
        here = np.flatnonzero(visible & (parity == q))
        population = flat_empty & ~surely_piece & visible & (parity == q)
        if not len(here) or not population.any():
            continue
        d_empty, enough = parity_distances(model, flat[population], flat[here], population[here], f)
        rival = pieces[dist[here][:, pieces].argmin(axis=1)]
        d_piece = dist[here, rival]
        margin = (d_piece - d_empty) / np.maximum(d_piece, 1e-9)
        need = np.array([f.pair_margins.get((EMPTY, f.refs[k].letter), -np.inf) for k in rival])
        own_piece[here] = enough & (d_empty > limit) & (flat_letters[here] != EMPTY)
        seen_pieces = own_piece & (parity == q)
        if seen_pieces.any():
            # The pieces of this parity in this picture: their own flatness look is the rival.
            d_piece = parity_distances(model, flat[seen_pieces], flat[here], seen_pieces[here], f, True)[0]
            margin = (d_piece - d_empty) / np.maximum(d_piece, 1e-9)
        own_empty[here] = enough & (d_empty <= limit) & (margin >= f.min_margin) & (margin > need)
    return own_empty, own_piece
