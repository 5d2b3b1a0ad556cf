"""The picture's own flat board (`LatticeModel._own_flatness`) and what leans on it, tested on
synthetic features: pieces whose flatness no learned look knows are found as unlike their
parity's empty squares in the picture and named by the lightness split (`_by_split`, with the
disc's median where the percentile does not split clearly); an empty square the learned
flatness cannot tell from a flat learned piece is told by the picture's own pieces; a piece
flat like the board but not of its colour keeps the looks' reading (`_by_parity`)."""

from __future__ import annotations

import numpy as np
from lattice_models import BLACK, WHITE, chess_model, starting_position

from controller.vision.classify import open_set_distance
from controller.vision.lattice.own_looks import flat_piece
from controller.vision.lattice.rules.own_flatness import own_flatness
from controller.vision.lattice.rules.split import _split_1d

STRANGE = [1.5, 0.0, 0.0, 0.0]  # a piece's flatness unlike every learned look (another set)


def _picture(dark_piece: float, light_piece: float, seed: int = 3) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """A starting position on the learned board, its pieces at the given log levels and of a
    flatness no learned look knows (`STRANGE`)."""
    return starting_position(dark_piece, light_piece, piece_flatness={"K": STRANGE, "W": STRANGE}, seed=seed)


def _pieces(labels: list[str]) -> list[int]:
    return [i for i, label in enumerate(labels) if label != "."]


def test_pieces_whose_flatness_no_learned_look_knows_are_found_unlike_their_squares_and_split() -> None:
    """Another set: its pieces are far from every learned look and their flatness from every
    learned flatness look (the learned flatness is sure of no piece), but each is far from the
    flat squares of its parity in this picture, and the dark ones are clearly darker: all read."""
    model = chess_model()
    feats, flat, labels = _picture(-2.3, -0.45)
    pieces = _pieces(labels)
    assert not flat_piece(model, flat)[pieces].any()
    _, own_piece = own_flatness(model, flat, ["."] * 64, np.full(64, "far", object), np.ones(64, bool))
    assert [i for i in range(64) if own_piece[i]] == pieces
    got, why, _ = model.judge(feats, None, flat)
    assert [(got[i], why[i]) for i in pieces] == [(labels[i], "") for i in pieces]


def _unclear_highlights(feats: np.ndarray, labels: list[str]) -> list[int]:
    """Spread the lightest part (80th percentile) of the pieces on the dark squares: the dark
    ones from darker than learned to half-way to the light ones, the light ones less (highlights
    of different sizes). Returned: those pieces."""
    dark_squares = [i for i in _pieces(labels) if sum(divmod(i, 8)) % 2 == 1]
    dark_ones = [i for i in dark_squares if labels[i] == "K"]
    light_ones = [i for i in dark_squares if labels[i] == "W"]
    feats[:, dark_ones, 7] = np.linspace(-2.7, -1.3, len(dark_ones))[None]
    feats[:, light_ones, 7] = np.linspace(-0.9, 0.0, len(light_ones))[None]
    return dark_squares


def test_the_median_lightness_splits_where_the_percentile_is_not_clear_with_the_same_groups() -> None:
    """On the dark squares the pieces' lightest parts are spread so that their split in two is
    not clear; the discs' median lightness splits the same pieces clearly: they are read."""
    model = chess_model()
    feats, flat, labels = _picture(-2.3, -0.45)
    dark_squares = _unclear_highlights(feats, labels)
    shifted = model._decide_offset(feats)[2]
    p80, median = shifted[0, dark_squares, 7], shifted[0, dark_squares, 0:3].mean(axis=1)
    by_p80, by_median = _split_1d(p80), _split_1d(median)
    assert by_p80[3] <= open_set_distance(1) < by_median[3]
    assert np.array_equal(by_p80[0][1], by_median[0][1])
    got, why, _ = model.judge(feats, None, flat)
    assert [(got[i], why[i]) for i in dark_squares] == [(labels[i], "") for i in dark_squares]


def test_the_median_does_not_split_other_groups_than_the_percentile() -> None:
    """The same unclear lightest parts, but two light pieces' medians as dark as the dark
    pieces': the median groups them otherwise than the percentile, so no split reads them."""
    model = chess_model()
    feats, flat, labels = _picture(-2.3, -0.45)
    dark_squares = _unclear_highlights(feats, labels)
    light_ones = [i for i in dark_squares if labels[i] == "W"]
    feats[:, light_ones[:2], 0:3] = -2.3
    got, why, _ = model.judge(feats, None, flat)
    assert [i for i in dark_squares if why[i] == "" and got[i] != labels[i]] == []
    assert any(why[i] != "" for i in light_ones[:2])


def test_a_piece_the_looks_lean_to_the_other_kind_is_not_named_by_its_group() -> None:
    """A dark piece whose lightest part is near the light pieces' is grouped with them by the
    split of that percentile, but its looks lean to the dark piece: it is not read light."""
    model = chess_model()
    feats, flat, labels = _picture(-2.3, -0.45)
    dark_squares = [i for i in _pieces(labels) if sum(divmod(i, 8)) % 2 == 1]
    dark_ones = [i for i in dark_squares if labels[i] == "K"]
    feats[:, dark_ones, 7] = np.linspace(-2.3, -1.0, len(dark_ones))[None]
    got, why, _ = model.judge(feats, None, flat)
    assert [i for i in dark_squares if why[i] == "" and got[i] != labels[i]] == []


def test_a_piece_the_looks_take_for_a_square_is_named_by_its_group() -> None:
    """A few light pieces darker than the others, nearer the learned dark square than the
    learned light piece (the looks lean to empty, far from every look): the picture's own flat
    board says they are not empty, and the split names them light pieces with the others."""
    model = chess_model()
    feats, flat, labels = _picture(-2.3, -0.45)
    light = [i for i in _pieces(labels) if labels[i] == "W"][:3]
    feats[:, light] = -0.62
    dec, _ = model.decide_picture(feats)
    assert {dec.letters[i] for i in light} == {"."}
    got, why, _ = model.judge(feats, None, flat)
    assert [(got[i], why[i]) for i in light] == [("W", "")] * len(light)


def test_an_empty_square_is_told_from_a_flat_learned_piece_by_the_pictures_own_pieces() -> None:
    """The learned light piece is nearly flat: an empty square a little uneven lies between it
    and the learned empty look. The picture's own pieces are uneven: against them the square is
    surely empty. Without pieces in the picture the learned rival stays and it is not sure."""
    model = chess_model(flat_white=[0.2, 0.0, 0.0, 0.0], white_spread=0.03)
    _, flat, labels = _picture(-2.3, -0.45)
    odd = 3 * 8 + 3
    flat[odd] = [0.1, 0.0, 0.0, 0.0]
    why, visible = np.full(64, "margin", object), np.ones(64, bool)
    fdec = model.flat.decide(flat)
    assert not fdec.sure[odd]
    own_empty, _ = own_flatness(model, flat, ["."] * 64, why, visible)
    assert own_empty[odd]
    flat[_pieces(labels)] = 0.0  # an empty board
    own_empty, _ = own_flatness(model, flat, ["."] * 64, why, visible)
    assert not own_empty[odd]


def test_a_flat_piece_of_another_colour_than_its_squares_keeps_the_looks_reading() -> None:
    """A light piece whose top covers its cell (flat: the flatness surely reads it empty) that the
    looks surely read as a light piece: its colour is far from the picture's other squares of its
    parity, so it is no bare board, and it stays read, sure. An empty square of its parity's
    colour that the looks take for the same piece is not kept."""
    model = chess_model()
    feats, flat, labels = _picture(BLACK, WHITE)
    flat[_pieces(labels)] = [0.8, 0.4, 0.4, 0.4]  # the pieces' flatness as learned
    flat[_pieces(labels)[:16]] = [0.8, -0.6, -0.6, -0.6]
    piece = 7 * 8 + 3
    flat[piece] = 0.0
    assert model.flat.decide(flat).sure[piece]
    got, why, _ = model.judge(feats, None, flat)
    assert (got[piece], why[piece]) == ("W", "")
