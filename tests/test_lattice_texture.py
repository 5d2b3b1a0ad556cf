"""Rule `texture` (`controller/vision/lattice/rules/texture.py`): a place a rule read surely as
empty by the picture's own places, whose disc is textured unlike its parity's bare board in this
picture the way the picture's pieces are, is unsure (chessBoard005 (0,6) read with the wooden
board's model: a walnut pawn on a walnut square, its colour and flatness the square's, read empty,
sure, by rule parity)."""

from __future__ import annotations

import numpy as np
from lattice_models import chess_model

from controller.vision.geometry import LatticeGeometry
from controller.vision.lattice import N_FEATURES, PPP, SHIFTS
from controller.vision.lattice.places import TEXTURE_DISC, Rectified, texture
from controller.vision.lattice.reading import Picture, Reading
from controller.vision.lattice.rules import RULES
from controller.vision.lattice.rules import texture as texture_rule

PLACE = 0 * 8 + 6  # a dark square (its parity is the top-left corner's)
PIECES = [(r, c) for r in range(8) for c in (0, 7)]  # two columns of pieces, read surely by the looks


def _board(rng: np.random.Generator) -> np.ndarray:
    """An 8x8 chessboard's rectified log image: light squares at 0.5 with a faint grain, dark ones
    at -1.0 with a stronger grain (log levels, one pitch of margin)."""
    size = 10 * PPP
    ys, xs = np.mgrid[0:size, 0:size] / PPP - 1.0
    dark = (np.round(xs).astype(int) + np.round(ys).astype(int)) % 2 == 0
    grain = np.repeat(rng.normal(0, 1, (size, 1)), size, axis=1)  # stripes along x, as wood's
    level = np.where(dark, -1.0 + 0.06 * grain, 0.5 + 0.02 * grain)
    return np.repeat(level[..., None], 3, axis=2).astype(np.float32)


def _piece(img: np.ndarray, x: float, y: float, rough: bool) -> None:
    """A piece seen from above at board point (x, y): a disc of 0.3 pitch, rough (rings of shading
    and a highlight: a turned chess piece) or smooth (one even colour over the grain: a stone)."""
    size = img.shape[0]
    ys, xs = np.mgrid[0:size, 0:size] / PPP - 1.0
    r = np.hypot(xs - x, ys - y)
    inside = r <= 0.3
    level = img[..., 0].copy()
    if rough:
        level[inside] = (-1.0 + 0.5 * np.cos(r * 40))[inside]
    else:
        level[inside] = level[int(round((y + 1) * PPP)), int(round((x + 1) * PPP))]
    img[...] = level[..., None]


def _picture(
    place_piece: bool = True,
    pieces_rough: bool = True,
    place_rough: bool = True,
    with_pieces: bool = True,
    away: np.ndarray | None = None,
) -> Picture:
    rng = np.random.default_rng(5)
    img = _board(rng)
    if with_pieces:
        for r, c in PIECES:
            _piece(img, c, r, pieces_rough)
    if place_piece:
        _piece(img, PLACE % 8, PLACE // 8, place_rough)
    feats = np.zeros((len(SHIFTS), 64, N_FEATURES))
    return Picture.of(chess_model(), feats, away=away, rectified=Rectified(img, np.zeros((64, 3))))


def _read(source: str = "parity", with_pieces: bool = True) -> Reading:
    """Every place read surely: the pieces by the looks, the bare squares empty, and the place
    read empty by `source` (a rule reading it by the picture's own places, or the looks)."""
    letters = ["."] * 64
    if with_pieces:
        for r, c in PIECES:
            letters[r * 8 + c] = "K"
    first = Reading.first(letters, [""] * 64, np.ones(64), np.zeros(64, int))
    if source == "looks":
        return first
    made = np.zeros(64, bool)
    made[PLACE] = True
    return first.but(source, made=made)


def test_a_piece_read_empty_by_a_picture_rule_whose_texture_is_a_pieces_is_unsure() -> None:
    """Fails before the rule: nothing weighed the place's texture."""
    got = texture_rule.rule(_picture(), _read())
    assert got.why[PLACE] == "texture"
    assert texture_rule in RULES


def test_the_reader_rules_leave_a_piece_read_so_unsure() -> None:
    """The whole list of rules after the picture's (as `judge` runs them) keeps it unsure."""
    picture, reading = _picture(), _read()
    for module in RULES[RULES.index(texture_rule) :]:
        reading = module.rule(picture, reading)
    assert reading.why[PLACE] != ""


def test_a_bare_square_read_empty_by_a_picture_rule_stays_sure() -> None:
    got = texture_rule.rule(_picture(place_piece=False), _read())
    assert got.why[PLACE] == "" and got.letters[PLACE] == "."


def test_a_place_the_looks_read_is_not_asked() -> None:
    assert texture_rule.rule(_picture(), _read("looks")).why[PLACE] == ""


def test_only_the_side_the_pictures_pieces_lie_on_counts() -> None:
    """Smooth pieces (stones hiding the grain) say a piece makes a place smoother: a rougher place
    is not one of them; a smooth one is."""
    assert texture_rule.rule(_picture(pieces_rough=False), _read()).why[PLACE] == ""
    got = texture_rule.rule(_picture(pieces_rough=False, place_rough=False), _read())
    assert got.why[PLACE] == "texture"


def test_with_no_piece_read_the_picture_does_not_say() -> None:
    assert texture_rule.rule(_picture(with_pieces=False), _read(with_pieces=False)).why[PLACE] == ""


def test_a_neighbours_top_seen_displaced_into_the_place_leaves_it_sure() -> None:
    """A tall piece's top is seen beyond its foot, away from the camera: the piece at (0, 7), seen
    displaced towards -x, shows its texture on (0, 6), which stays empty and sure."""
    away = np.tile([-1.0, 0.0], (64, 1))
    assert texture_rule.rule(_picture(away=away), _read()).why[PLACE] == ""
    away = np.tile([1.0, 0.0], (64, 1))  # seen displaced away from the place: no excuse
    assert texture_rule.rule(_picture(away=away), _read()).why[PLACE] == "texture"


def test_texture_does_not_depend_on_the_light() -> None:
    """A light multiplies the picture: in log it adds, and the texture stays."""
    img = _board(np.random.default_rng(1))
    points = LatticeGeometry(8, 8).points()
    assert np.allclose(texture(img, points), texture(img + np.float32(0.7), points), atol=1e-4)
    assert TEXTURE_DISC < 0.5
