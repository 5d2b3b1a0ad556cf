"""A place the flatness reads empty, far from every learned look, whose looks are as near this
picture's own pieces of its parity as its parity's bare board (`rules.parity`, `rules.flatness`,
`own_looks.own_pieces`): another set's dark pawn on another board's dark square, of a flat top
the learned flatness takes for the board. The learned piece looks, far from it, are no measure
of it; the pieces the picture shows are, and the place stays unsure. Synthetic features, as the
other lattice tests."""

from __future__ import annotations

import numpy as np
from lattice_models import FLAT_BLACK, chess_model

from controller.vision.lattice import N_FEATURES, N_FLAT, SHIFTS
from controller.vision.lattice.places import EMPTY
from controller.vision.lattice.rules.flatness import with_flatness
from controller.vision.lattice.rules.parity import by_parity

#: this board's squares of one parity and this set's pieces (log levels), brighter than every
#: learned look (so no shadow brings them near one) and far from all
SQUARE, PIECE = 1.3, 1.0
PAWN = 3 * 8 + 2  # a dark square ((row + column) odd) in the middle


def _picture(pawn: float, pieces: bool = True) -> tuple[np.ndarray, np.ndarray, list[str], np.ndarray]:
    """Another board and set: the squares of odd parity at SQUARE, far from every learned look;
    the pieces on rows 0-1 at PIECE, read surely as dark pieces (by the rules before), uneven
    (`FLAT_BLACK`); the other squares (at SQUARE + 1, flat) do not matter here. A pawn at `pawn`
    on a square of odd parity, flat like the board. (shifts, 64, F) features, (64, N_FLAT) flatness,
    the looks' letters and reasons as the rules before `parity` leave them."""
    rng = np.random.default_rng(4)
    level, flat, letters, why = [], [], [], []
    for r in range(8):
        for c in range(8):
            dark = (r + c) % 2 == 1
            if r < 2 and pieces:
                level.append(PIECE)
                flat.append(FLAT_BLACK)
                letters.append("K")
                why.append("")
            elif r * 8 + c == PAWN:
                level.append(pawn)
                flat.append([0.0] * N_FLAT)
                letters.append("K")
                why.append("far")
            else:
                level.append(SQUARE if dark else SQUARE + 1)
                flat.append([0.0] * N_FLAT)
                letters.append(EMPTY)
                why.append("far")
    x = np.array(level)[:, None] + rng.normal(0, 0.01, (64, N_FEATURES))
    f = np.array(flat, np.float64) + rng.normal(0, 0.01, (64, N_FLAT))
    return np.repeat(x[None], len(SHIFTS), axis=0), f, letters, np.array(why, object)


def _by_parity(pawn: float, pieces: bool = True) -> tuple[bool, bool]:
    """Whether rule parity reads the pawn empty, and whether it marks it like the picture's pieces."""
    model = chess_model()
    feats, flat, letters, why = _picture(pawn, pieces)
    dist = model.decide_picture(feats)[1]
    assert dist[PAWN].min() > model.classes.max_distance  # far from every learned look
    shifted = model._decide_offset(feats)[2]
    _, made, _, like_pieces = by_parity(model, shifted, flat, letters, why, dist)
    return bool(made[PAWN]), bool(like_pieces[PAWN])


def test_a_flat_place_as_near_the_pictures_pieces_as_its_squares_is_not_read_empty() -> None:
    """Half-way between this board's dark squares and this set's dark pieces: nearer the squares
    than the learned dark piece, but not than the picture's own dark pieces by the margin."""
    assert _by_parity((SQUARE + PIECE) / 2) == (False, True)


def test_a_flat_place_of_its_squares_colour_is_read_empty_beside_the_pictures_pieces() -> None:
    """The pictures' own pieces are a rival, not a veto: a place of its dark squares' colour reads
    empty, sure, as before."""
    assert _by_parity(SQUARE) == (True, False)


def test_with_no_piece_in_the_picture_the_learned_pieces_are_the_rival() -> None:
    """No piece read surely in the picture: nothing in it says what its pieces look like, and the
    place reads against the learned looks alone (empty, as the flatness says)."""
    assert _by_parity((SQUARE + PIECE) / 2, pieces=False) == (True, False)


def test_the_flatness_does_not_read_empty_a_far_place_like_the_pictures_pieces() -> None:
    """The flatness reads a far place empty where it surely reads it so (the looks know nothing
    of it), but not a place whose looks are as near the picture's own pieces as its squares."""
    model = chess_model()
    feats, flat, letters, why = _picture((SQUARE + PIECE) / 2)
    like = np.zeros(64, bool)
    out, made, _ = with_flatness(model, letters, why.copy(), flat, None, None)
    assert made[PAWN] and out[PAWN] == EMPTY
    like[PAWN] = True
    out, made, _ = with_flatness(model, letters, why.copy(), flat, None, None, like)
    assert not made[PAWN] and out[PAWN] == "K"
