"""Rule `beyond` (`controller/vision/lattice/rules/beyond.py`): a piece that a rule reading the
picture's own places read surely, whose centre lies beyond the place's cell, stands between two
points and leaves the place unsure (seegoban board-2 (1,5) read with the angled 13x13 model: a
white stone half-way between (1,4) and (1,5), both far from every learned look, and rule `split`
read (1,5) white, sure)."""

from __future__ import annotations

import numpy as np
import pytest
from lattice_models import LIGHT_STONE, go_model

from controller.vision.lattice import N_FEATURES, PPP, SHIFTS
from controller.vision.lattice.centres import piece_beyond
from controller.vision.lattice.places import DISC, Rectified
from controller.vision.lattice.reading import Picture, Reading
from controller.vision.lattice.rules import RULES, own_board

PLACE = 4 * 9 + 4


def _drawn(stones: list[tuple[float, float]], radius: float = 0.47) -> np.ndarray:
    """A 9x9 lattice's rectified log image: the bare board at 0, light stones of `radius` pitches
    centred at the given board points (x, y)."""
    size = 10 * PPP
    ys, xs = np.mgrid[0:size, 0:size] / PPP - 1.0
    img = np.zeros((size, size, 3), np.float32)
    for x, y in stones:
        img[np.hypot(xs - x, ys - y) <= radius] = LIGHT_STONE
    return img


def _read_by_a_rule(stones: list[tuple[float, float]], away: float = 0.0) -> tuple[Picture, Reading]:
    """A 9x9 Go picture of `stones` whose place (4, 4) rule `split` read surely as a light stone
    (its looks far from every learned one); everything standing is seen displaced along x by
    `away` (0: not known)."""
    model = go_model()
    feats = np.zeros((len(SHIFTS), 81, N_FEATURES))
    feats[:, PLACE] = LIGHT_STONE / 2  # half stone, half board: between the looks
    rectified = Rectified(_drawn(stones), np.zeros((81, 3)))
    picture = Picture.of(model, feats, away=np.tile([away, 0.0], (81, 1)) if away else None, rectified=rectified)
    letters, why = ["."] * 81, [""] * 81
    letters[PLACE], why[PLACE] = "W", "far"
    first = Reading.first(letters, why, np.ones(81), np.zeros(81, int))
    made = np.zeros(81, bool)
    made[PLACE] = True
    return picture, first.but("split", letters, [""] * 81, made)


def _after_the_picture_rules(picture: Picture, reading: Reading) -> Reading:
    """The reading as the reader's rules after the last that reads places by the picture leave it."""
    for module in RULES[RULES.index(own_board) + 1 :]:
        reading = module.rule(picture, reading)
    return reading


def test_a_stone_between_two_points_read_by_a_picture_rule_is_unsure() -> None:
    """Fails before the rule: nothing after `split` asks where the stone it read lies."""
    got = _after_the_picture_rules(*_read_by_a_rule([(4.5, 4.0)]))
    assert got.why[PLACE] == "between"


@pytest.mark.parametrize(
    "stones",
    [
        [(4.0, 4.0)],  # on its point
        [(4.3, 3.8)],  # off its point, in its cell
        [(4.0, 4.0), (5.0, 4.0)],  # touching a neighbour: the outline does not tell where each lies
    ],
)
def test_a_stone_in_its_cell_read_by_a_picture_rule_stays_sure(stones: list[tuple[float, float]]) -> None:
    got = _after_the_picture_rules(*_read_by_a_rule(stones))
    assert got.why[PLACE] == "" and got.letters[PLACE] == "W"


def test_a_tall_piece_seen_displaced_away_from_the_camera_stays_sure() -> None:
    """A tall piece's top is seen beyond its foot, away from the camera: not between two points."""
    assert _after_the_picture_rules(*_read_by_a_rule([(4.5, 4.0)], away=1.0)).why[PLACE] == ""
    assert _after_the_picture_rules(*_read_by_a_rule([(4.5, 4.0)], away=-1.0)).why[PLACE] == "between"


def _beyond(img: np.ndarray, x: int, y: int) -> np.ndarray | None:
    return piece_beyond(img, np.array([x, y], float), np.zeros(3), lambda rel: rel[:, 0] > 0.2, DISC)


def test_the_centre_of_a_stone_beyond_the_cell_is_found_from_both_sides() -> None:
    img = _drawn([(4.5, 4.0)])
    left, right = _beyond(img, 4, 4), _beyond(img, 5, 4)
    assert left is not None and np.allclose(left, [0.5, 0.0], atol=0.05)
    assert right is not None and np.allclose(right, [-0.5, 0.0], atol=0.05)
    assert _beyond(_drawn([(4.3, 3.8)]), 4, 4) is None
