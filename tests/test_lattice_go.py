"""Rules of the lattice reader that another Go board or camera than the learning photo's needs.

* The picture read by its own groups (rule `groups`): places the learned spreads leave unsure
  are read where the picture's groups of the same labels, made of the places the looks read
  surely, tell them surely, and a place unlike every learned look does not become one of them.
* A place's flatness compared with the corners of its cell that show the board (`_flatness`):
  a neighbour's stone over a corner is not the board the place is flat against.
"""

from __future__ import annotations

import numpy as np
from lattice_models import go_model

from controller.vision.classify import ClassModel, ClassRef
from controller.vision.lattice import FLOOR, N_FEATURES, PPP, SHIFTS, LatticeModel
from controller.vision.lattice.places import flatness

P20 = 6  # the 20th lightness percentile among the features (`place_features`)


def _features(levels: list[np.ndarray], seed: int = 1) -> np.ndarray:
    """(shifts, 81, F) features: the given level of every place plus a little noise, every sample
    position alike."""
    rng = np.random.default_rng(seed)
    x = np.stack(levels) + rng.normal(0, 0.03, (len(levels), N_FEATURES))
    return np.repeat(x[None], len(SHIFTS), axis=0)


def _shaded_white_stones() -> tuple[np.ndarray, list[str]]:
    """A picture of 41 empty places, 20 black and 20 white stones, the white ones seen from the
    side: their darkest fifth is their shaded flank, darker from stone to stone than on any
    learned white stone (down to the black stones' level), the rest of them as learned."""
    labels = list("." * 41 + "B" * 20 + "W" * 20)
    np.random.default_rng(4).shuffle(labels)
    flank = iter(np.linspace(0.4, -1.2, 20))
    levels = []
    for c in labels:
        x = np.full(N_FEATURES, {".": 0.0, "B": -1.2, "W": 0.4}[c])
        if c == "W":
            x[P20] = next(flank)
        levels.append(x)
    return _features(levels), labels


def test_white_stones_shaded_otherwise_than_the_learned_ones_are_read_by_the_pictures_groups() -> None:
    model = go_model()
    feats, labels = _shaded_white_stones()
    got, why, _ = model.judge(feats)
    assert [w for w in why if w] == []
    assert got == labels


def test_without_the_pictures_groups_the_most_shaded_white_stones_are_unsure() -> None:
    """What the picture's groups add: the learned and followed looks alone leave the stones with
    the darkest flanks unsure (and read none of them wrong)."""
    model = go_model()
    feats, labels = _shaded_white_stones()
    dec, _ = model.decide_picture(feats)
    unsure = ~dec.sure
    assert np.array(labels)[unsure].tolist().count("W") >= 1
    assert all(a == b for a, b, s in zip(dec.letters, labels, dec.sure) if s)


def test_an_empty_board_of_two_woods_leaves_the_paler_wood_unsure_never_white() -> None:
    """An empty board of two woods: most places as learned, 30 of a paler wood about as near the
    learned white stones as the learned board (the learned looks leave them unsure). The
    picture's groups are made of what the looks read surely, so they do not make the pale wood
    sure: fitted on every place, the board's group spread over both woods and read them empty,
    and the same spreading read half-covered points white under a violet lamp. Nor do they read
    a place as a white stone, which no place of the picture surely is: the pale wood stays unsure."""
    model = go_model()
    levels = [np.zeros(N_FEATURES)] * 51 + [np.full(N_FEATURES, 0.12)] * 30
    feats = _features(levels)
    dec, _ = model.decide_picture(feats)
    assert not dec.sure[51:].any()
    got, why, _ = model.judge(feats)
    assert all(w == "" and g == "." for g, w in zip(got[:51], why[:51]))
    assert all(w != "" for w in why[51:])


def test_a_place_unlike_every_look_does_not_pull_a_look_of_few_places() -> None:
    """A mostly empty board with two white stones and, at one place, something unlike every
    learned look: the white look, fitted to its few places, does not reach out to it."""
    model = go_model()
    levels = [np.zeros(N_FEATURES)] * 70 + [np.full(N_FEATURES, -1.2)] * 8 + [np.full(N_FEATURES, 0.4)] * 2
    odd = np.full(N_FEATURES, 1.5)
    odd[:3] = [2.0, -0.5, 1.0]
    got, why, _ = model.judge(_features(levels + [odd]))
    assert why[-1] != ""
    assert all(w == "" for w in why[:-1])


def test_a_look_no_place_is_surely_read_as_does_not_take_the_places_it_half_explains() -> None:
    """An empty chequered board: its light squares as learned, its dark ones unlike the learned
    dark squares and about as like the learned white pieces as the black ones. No place reads
    surely as a piece, so nothing in the picture says what a piece looks like there: the pieces'
    looks keep their learned means and spreads, and the dark squares stay unsure (fitted to them,
    the white look would read them all surely as white pieces)."""
    f = N_FEATURES
    black = np.zeros(f)
    black[:3] = 0.6  # the black pieces: bluish where the white ones are neutral
    refs = [
        ClassRef(".", ".", np.full(f, 0.5), np.eye(f) * 0.08**2),
        ClassRef(".#2", ".", np.full(f, -1.5), np.eye(f) * 0.08**2),
        ClassRef("K", "K", black, np.eye(f) * 0.15**2),
        ClassRef("W", "W", np.zeros(f), np.eye(f) * 0.15**2),
    ]
    model = LatticeModel((8, 8), ClassModel(refs, floor=np.full(f, FLOOR**2)))
    dark = np.zeros(f)
    dark[:3] = 0.27
    got, why, _ = model.judge(_features([np.full(f, 0.5)] * 32 + [dark] * 32))
    assert all(w == "" and g == "." for g, w in zip(got[:32], why[:32]))
    assert all(w != "" for w in why[32:])


def _board_with_dark_corners(covered: list[tuple[int, int]]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A 3x3 lattice's log picture (an even board, at PPP pixels a pitch) whose centre place is
    empty, the given corners of its cell (between points, as (row, column) of the (4, 4) between
    points) covered by something dark (a neighbour's black stone leaning over them, as seen at an
    angle), and which between points the light fit rejected."""
    board = np.log(np.array([0.35, 0.55, 0.7]) + 0.02)
    stone = np.log(np.array([0.06, 0.06, 0.07]) + 0.02)
    logimg = np.tile(board, (5 * PPP, 5 * PPP, 1)).astype(np.float32)
    rejected = np.zeros((4, 4), bool)
    for i, j in covered:
        y, x = int((i + 0.5) * PPP), int((j + 0.5) * PPP)  # the between point, in pixels
        logimg[y - PPP // 4 : y + PPP // 4, x - PPP // 4 : x + PPP // 4] = stone
        rejected[i, j] = True
    points = np.array([[c, r] for r in range(3) for c in range(3)], np.float64)
    return logimg, points, rejected


def test_an_empty_place_among_stones_is_flat_against_the_corners_that_show_the_board() -> None:
    """Two corners of the cell hidden by neighbours' stones: compared with the two that show the
    board, the empty place has the board's colour (compared with all four, it would be brighter
    than its rim like a white stone)."""
    logimg, points, rejected = _board_with_dark_corners([(1, 1), (2, 1)])
    flat = flatness(logimg, points, rejected)[4]
    assert np.all(np.abs(flat[1:]) < 0.05)
    assert flat[0] < 0.05


def test_a_place_whose_four_corners_are_covered_is_compared_with_them_all() -> None:
    logimg, points, rejected = _board_with_dark_corners([(1, 1), (1, 2), (2, 1), (2, 2)])
    flat = flatness(logimg, points, rejected)[4]
    assert np.all(flat[1:] > 1.0)
