"""Both readings of a place against its parity's bare board in the picture
(`LatticeModel._by_own_board`), tested on synthetic features: an empty board's edge squares
that the looks alone and the flatness alone leave near a piece (each near another piece), or
that the looks alone surely take for a piece, are read empty; a place like the picture's own
pieces of its parity is not."""

from __future__ import annotations

import numpy as np
from lattice_models import FLAT_BLACK, FLAT_WHITE, LIGHT, chess_model, starting_position

from controller.vision.lattice import N_FEATURES, N_FLAT, SHIFTS
from controller.vision.lattice.rules.own_board import by_own_board

EDGE_DARK = [i for i in range(64) if sum(divmod(i, 8)) % 2 == 1 and (i // 8 in (0, 7) or i % 8 in (0, 7))]


def _empty_board(dark_square: float, edge_unevenness: float) -> tuple[np.ndarray, np.ndarray]:
    """An empty board: light squares as learned, dark squares at `dark_square` (log level, every
    feature alike), all flat but the dark squares at the edge, a little uneven."""
    rng = np.random.default_rng(3)
    level = np.array([LIGHT if (r + c) % 2 == 0 else dark_square for r in range(8) for c in range(8)])
    x = level[:, None] + rng.normal(0, 0.01, (64, N_FEATURES))
    flat = rng.normal(0, 0.01, (64, N_FLAT))
    flat[EDGE_DARK, 0] += edge_unevenness
    return np.repeat(x[None], len(SHIFTS), axis=0), flat


def test_an_empty_boards_edge_squares_are_read_empty_by_both_readings() -> None:
    """Another board's dark squares lie between the learned dark square and the learned dark
    piece in the looks; its edge squares are a little uneven, between the learned flat board and
    a nearly flat learned light piece in the flatness. Each reading alone is unsure of them, but
    no piece is near in both: against the picture's inner dark squares they read empty."""
    model = chess_model(flat_white=[0.2, 0.0, 0.0, 0.0], white_spread=0.03)
    feats, flat = _empty_board(-1.3, 0.1)
    looks, _ = model.decide_picture(feats)
    assert not any(looks.sure[i] for i in EDGE_DARK)
    assert not any(model.flat.decide(flat).sure[i] for i in EDGE_DARK)
    got, why, _ = model.judge(feats, None, flat)
    assert [(got[i], why[i]) for i in range(64)] == [(".", "")] * 64


def test_an_empty_square_the_looks_alone_surely_take_for_a_dark_piece_is_read_empty() -> None:
    """Two edge squares darker still: the looks alone read them surely as dark pieces, the
    flatness is sure of nothing there and is far from the dark piece's: both readings together
    read them empty, like their parity's other squares."""
    model = chess_model(flat_white=[0.2, 0.0, 0.0, 0.0], white_spread=0.03)
    feats, flat = _empty_board(-1.3, 0.1)
    darker = EDGE_DARK[:2]
    feats[:, darker] = -1.4
    looks, _ = model.decide_picture(feats)
    assert [(looks.letters[i], looks.sure[i]) for i in darker] == [("K", True)] * 2
    assert not any(model.flat.decide(flat).sure[i] for i in darker)
    got, why, _ = model.judge(feats, None, flat)
    assert [(got[i], why[i]) for i in range(64)] == [(".", "")] * 64


def _leaning_piece() -> tuple[object, np.ndarray, np.ndarray, list[str], np.ndarray, np.ndarray, int]:
    """A starting position whose dark pieces are lighter than learned and half as uneven, and a
    dark piece among them between its parity's squares and those pieces in both readings, that
    the looks left unsure (read empty, "margin"); returned: the model, the features with the
    picture's offset removed, the flatness, the readings, the reasons, the looks' distances and
    that place."""
    model = chess_model()
    own = list(np.array(FLAT_BLACK) * 0.5)
    feats, flat, labels = starting_position(dark_piece=-1.4, piece_flatness={"K": own, "W": FLAT_WHITE})
    place = 1 * 8 + 2
    feats[:, place] = -1.2
    flat[place] = np.array(own) * 0.2
    _, dist = model.decide_picture(feats)
    shifted = model._decide_offset(feats)[2]
    why = np.full(64, "", object)
    why[place] = "margin"
    letters = list(labels)
    letters[place] = "."
    return model, shifted, flat, letters, why, dist, place


def test_a_place_like_the_pictures_own_pieces_of_its_parity_is_not_read_empty() -> None:
    """The learned dark piece is less like that place than its parity's squares are, but the
    picture's own dark pieces on that parity (read surely, their flatness nearest the dark piece)
    are near: it is not read empty. Where those pieces are not read surely, the learned rival
    alone is left, and the place reads empty."""
    model, shifted, flat, letters, why, dist, place = _leaning_piece()
    visible = np.ones(64, bool)
    _, made, _ = by_own_board(model, shifted, flat, letters, why.copy(), dist, visible)
    assert not made[place]
    unsure = why.copy()
    unsure[[i for i, label in enumerate(letters) if label == "K"]] = "margin"
    _, made, _ = by_own_board(model, shifted, flat, letters, unsure, dist, visible)
    assert made[place]


def test_a_place_far_from_every_look_is_not_weighed_against_the_learned_pieces() -> None:
    """The same place far from every learned look (another set's piece): the learned pieces say
    nothing of it, so it is not read empty against them."""
    model, shifted, flat, letters, why, dist, place = _leaning_piece()
    far = why.copy()
    far[[i for i, label in enumerate(letters) if label == "K"]] = "margin"
    far[place] = "far"
    _, made, _ = by_own_board(model, shifted, flat, letters, far, dist, np.ones(64, bool))
    assert not made[place]
