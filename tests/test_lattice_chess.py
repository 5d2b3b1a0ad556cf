"""Rules of the lattice reader that a chessboard's own structure makes sound, tested on
synthetic features (`LatticeModel.judge`): light and dark squares alternate, so the empty
squares of one parity within one picture share a look (`LatticeModel._by_parity`)."""

from __future__ import annotations

import numpy as np
from lattice_models import DARK, LIGHT, WHITE, chess_model, starting_position

from controller.vision.lattice import N_FEATURES
from controller.vision.lattice.own_looks import parity_looks
from controller.vision.lattice.rules.parity import by_parity
from controller.vision.lattice.rules.split import _two_means_1d


def _picture(light: float, seed: int = 3) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """A starting position on another board whose light squares show at `light`."""
    return starting_position(light_square=light, seed=seed)


def test_empty_squares_of_another_board_are_read_against_the_squares_of_their_parity() -> None:
    """This board's light squares lie between the learned light square and the light piece, a
    little nearer the piece: the looks cannot say which, the flatness says empty. The picture's
    other flat light squares show the same colour, so each reads empty, sure."""
    model = chess_model()
    feats, flat, labels = _picture(0.21)
    got, why, _ = model.judge(feats, None, flat)
    light_squares = [i for i in range(64) if labels[i] == "." and sum(divmod(i, 8)) % 2 == 0]
    assert [why[i] for i in light_squares] == [""] * len(light_squares)
    assert [got[i] for i in light_squares] == ["."] * len(light_squares)
    assert [g for g, w in zip(got, why) if w == ""] == [t for t, w in zip(labels, why) if w == ""]


def test_a_flat_place_unlike_the_other_squares_of_its_parity_stays_unsure() -> None:
    """A light square with something on it that the flatness takes for the board (a flat piece
    seen from above) but whose colour is nearer the light piece than this picture's other light
    squares are: the parity's look does not explain it, and it is not read empty."""
    model = chess_model()
    feats, flat, labels = _picture(0.21)
    odd = 3 * 8 + 3  # a light square in the middle
    feats[:, odd] = WHITE + 0.09
    got, why, _ = model.judge(feats, None, flat)
    assert why[odd] != "" or got[odd] != "."


def test_squares_of_the_other_parity_say_nothing_of_a_place() -> None:
    """A light square is read against the other flat light squares only: with every other light
    square uneven, the flat dark squares (the other parity) do not make it sure."""
    model = chess_model()
    feats, flat, labels = _picture(0.21)
    light = [i for i in range(64) if labels[i] == "." and sum(divmod(i, 8)) % 2 == 0]
    _, dist = model.decide_picture(feats)

    def made(flatness: np.ndarray) -> bool:
        why = np.full(64, "margin", object)
        shifted = model._decide_offset(feats)[2]
        return bool(by_parity(model, shifted, flatness, ["W"] * 64, why, dist)[1][light[0]])

    assert made(flat)
    for i in light[1:]:
        flat[i] = [0.8, 0.4, 0.4, 0.4]  # uneven: not flat
    assert not made(flat)


def test_one_other_flat_square_of_its_parity_is_a_look_to_read_a_place_by() -> None:
    """One other flat light square is a measure of the light squares' look in this picture as
    two are: its mean known to within the learned spread (the look widened by 1 + 1/1), not a
    reason to stop reading. With no other flat light square, nothing in the picture says what
    its light squares look like, and the place is not read."""
    model = chess_model()
    feats, flat, labels = _picture(0.21)
    light = [i for i in range(64) if labels[i] == "." and sum(divmod(i, 8)) % 2 == 0]
    _, dist = model.decide_picture(feats)
    shifted = model._decide_offset(feats)[2]

    def made(flatness: np.ndarray) -> bool:
        why = np.full(64, "margin", object)
        return bool(by_parity(model, shifted, flatness, ["W"] * 64, why, dist)[1][light[0]])

    for i in light[2:]:
        flat[i] = [0.8, 0.4, 0.4, 0.4]  # uneven: not flat
    assert made(flat)
    flat[light[1]] = [0.8, 0.4, 0.4, 0.4]
    assert not made(flat)


def _pieces_picture(dark: np.ndarray, light: np.ndarray) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """A starting position on the learned board (squares as learned) whose dark pieces (rows 0-1)
    show at the `dark` levels and light pieces (rows 6-7) at the `light` levels, every feature
    alike; the flatness surely reads each piece as its kind."""
    feats, flat, labels = _picture(LIGHT)
    rng = np.random.default_rng(5)
    levels = iter(list(dark) + list(light))
    for i, label in enumerate(labels):
        if label != ".":
            feats[:, i] = next(levels) + rng.normal(0, 0.01, N_FEATURES)
    return feats, flat, labels


def test_pieces_far_from_the_learned_looks_are_read_by_a_clear_split_in_two_by_lightness() -> None:
    """Another set of pieces under another camera: the dark ones darker than the learned dark
    pieces, the light ones darker than the learned light ones, both far from every learned look
    (unsure), but within the picture the dark ones are clearly darker than the light ones on
    either colour of square: the split names them by that order."""
    model = chess_model()
    feats, flat, labels = _pieces_picture(np.full(16, -2.3), np.full(16, -0.45))
    got, why, _ = model.judge(feats, None, flat)
    pieces = [i for i, label in enumerate(labels) if label != "."]
    assert [why[i] for i in pieces] == [""] * len(pieces)
    assert [got[i] for i in pieces] == [labels[i] for i in pieces]


def test_pieces_of_one_kind_do_not_split_in_two() -> None:
    """Only dark pieces, their lightness spread evenly from darker than learned to near the
    learned light pieces (some lit more than others): the lighter ones lean to the light piece,
    but no split lies clearly between two groups, so none is read as a light piece."""
    model = chess_model()
    spread = np.linspace(-2.4, -0.45, 16)
    feats, flat, labels = _pieces_picture(spread, spread)
    for i, label in enumerate(labels):
        if label == "W":
            labels[i] = "K"
            flat[i] = [0.8, -0.6, -0.6, -0.6]
    got, why, _ = model.judge(feats, None, flat)
    pieces = [i for i, label in enumerate(labels) if label != "."]
    assert "W" in {got[i] for i in pieces}  # the looks lean so for some
    assert [i for i in pieces if why[i] == "" and got[i] != "K"] == []


def test_the_best_split_of_values_in_two() -> None:
    values = np.array([0.1, 0.0, 1.0, 0.05, 1.1, 0.95])
    assert 0.1 < _two_means_1d(values) < 0.95
    assert _two_means_1d(values[:3]) is None


def test_a_parity_look_leaves_out_the_place_it_reads() -> None:
    """The look a place is read against is its parity's flat places without itself: the same
    mean and spread as measured directly on the others."""
    model = chess_model()
    rng = np.random.default_rng(8)
    population = 0.5 + rng.normal(0, 0.05, (12, N_FEATURES))
    x = np.concatenate([population[3:4], [np.full(N_FEATURES, 0.2)]])
    mean, inv, enough = parity_looks(model, population, x, np.array([True, False]))
    for j, others in enumerate([np.delete(population, 3, axis=0), population]):
        n = len(others)
        prior = np.asarray(model.classes.refs[0].cov)
        cov = (n * np.cov(others.T) + N_FEATURES * prior) / (n + N_FEATURES) * (1 + 1 / n)
        cov += np.diag(model.classes.floor)
        assert np.allclose(mean[j], others.mean(axis=0))
        assert np.allclose(inv[j], np.linalg.inv(cov))
    assert enough.all()


def test_a_light_piece_as_near_the_learned_square_as_the_learned_piece_reads_unlike_its_squares() -> None:
    """Light pieces only (an endgame of one side, so no split in two), rendered between the
    learned light square and light piece (the looks cannot say which), whose flatness leans to a
    piece: this picture's light and dark squares show as learned, far from them, so each reads
    as the piece."""
    model = chess_model()
    feats, flat, labels = _picture(LIGHT)
    for i in range(16):  # the dark pieces' rows empty
        labels[i] = "."
        feats[:, i] = (LIGHT if sum(divmod(i, 8)) % 2 == 0 else DARK) + feats[:, i] - feats[:, i].mean()
        flat[i] = 0.0
    light_pieces = [i for i, label in enumerate(labels) if label == "W"]
    for i in light_pieces:
        feats[:, i] += 0.2 - WHITE
        flat[i] = [0.5, 0.2, 0.2, 0.2]
    before, _ = model.decide_picture(feats)
    assert not before.sure[light_pieces].any()
    got, why, _ = model.judge(feats, None, flat)
    assert [(got[i], why[i]) for i in light_pieces] == [("W", "")] * len(light_pieces)
