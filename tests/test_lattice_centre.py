"""Rule `centre` (`controller/vision/lattice/centres.py`): a stone well off its point is read from
its own centre, at the point nearest that centre; a stone between two points belongs to neither."""

from __future__ import annotations

import numpy as np
import pytest
from lattice_models import go_model

from bench.lattice_accuracy import SCENARIOS, _disc, _lin, photograph, random_grid, synth_board
from controller.vision import lattice
from controller.vision.lattice import N_FEATURES, PPP, SHIFTS
from controller.vision.lattice.centres import piece_centre
from controller.vision.lattice.places import DISC
from controller.vision.lattice.reading import Picture, Reading
from controller.vision.lattice.rules.centre import seen_from_a_neighbour
from tests.test_vision_lattice_robust import learned

#: the Go scenario's stones (`synth_board`): colour, shading towards the rim, highlight
STONES = {"w": (_lin((236, 234, 226)), 0.35, 0.4), "b": (_lin((28, 28, 30)), 0.3, 0.25)}


def _board_with_a_stone_at(
    x: float, y: float, seed: int, stone: str = "w"
) -> tuple[np.ndarray, list[list[str]], np.ndarray]:
    """A synthetic Go board (`bench/lattice_accuracy.py`) whose places around (4, 4) are bare but
    for one `stone` ("w" or "b") centred at board point (x, y): the picture, its labels with that
    stone on no place yet, and the lattice's corners."""
    rng = np.random.default_rng(seed)
    rows, cols = SCENARIOS["go"][:2]
    grid = random_grid("go", rng)
    for r in range(2, 7):
        for c in range(2, 7):
            grid[r][c] = "."
    board = synth_board("go", grid, rng)
    _disc(board, x, y, 0.47, *STONES[stone])
    img, corners = photograph(board, rows, cols, rng)
    return img, grid, corners


@pytest.mark.parametrize("stone", ["w", "b"])
@pytest.mark.parametrize("seed", [11, 12, 13])
def test_a_stone_well_off_its_point_is_read_at_the_point_nearest_its_centre(seed: int, stone: str) -> None:
    """Fails before the rule: the place's disc is half stone, half board, and stays unsure."""
    model = learned("go", (1,))
    img, grid, corners = _board_with_a_stone_at(4.38, 3.85, seed, stone)
    grid[4][4] = stone
    got, sure, _ = lattice.read(model, img, corners)
    assert got[4][4] == stone and sure[4, 4]
    wrong = [(r, c) for r in range(9) for c in range(9) if sure[r, c] and got[r][c] != grid[r][c]]
    assert wrong == []


def _drawn(stones: list[tuple[float, float]], radius: float = 0.47) -> np.ndarray:
    """A 9x9 lattice's rectified log image (`light.rectified_log`'s layout): the bare board at 0,
    stones of `radius` pitches at 1 centred at the given board points (x, y)."""
    size = 10 * PPP
    ys, xs = np.mgrid[0:size, 0:size] / PPP - 1.0
    img = np.zeros((size, size, 3), np.float32)
    for x, y in stones:
        img[np.hypot(xs - x, ys - y) <= radius] = 1.0
    return img


def _centre(img: np.ndarray, x: int, y: int) -> np.ndarray | None:
    return piece_centre(img, np.array([x, y], float), np.zeros(3), lambda rel: rel[:, 0] > 0.5, DISC)


def test_the_centre_of_a_stone_off_its_point_is_found_in_its_cell_only() -> None:
    img = _drawn([(4.38, 3.85)])
    found = _centre(img, 4, 4)
    assert found is not None and np.allclose(found, [0.38, -0.15], atol=0.05)
    assert _centre(img, 5, 4) is None and _centre(img, 4, 3) is None and _centre(img, 5, 3) is None


def test_a_stone_between_two_points_belongs_to_neither() -> None:
    img = _drawn([(4.5, 4.0)])
    assert _centre(img, 4, 4) is None and _centre(img, 5, 4) is None


def test_touching_stones_each_have_their_own_centre_but_a_larger_region_is_no_stone() -> None:
    """Two stones side by side show one region of twice a disc's area: its deepest points are the
    two centres, but it is not one disc, so neither is taken; a lone stone on its point is."""
    row = _drawn([(3.0, 4.0), (4.0, 4.0)], radius=0.5)
    assert _centre(row, 3, 4) is None and _centre(row, 4, 4) is None
    alone = _centre(_drawn([(4.0, 4.0)]), 4, 4)
    assert alone is not None and np.allclose(alone, 0, atol=0.05)
    assert _centre(_drawn([(4.0, 4.0)], radius=0.3), 4, 4) is None  # the place's disc does not fit on it


def _picture_seen_towards(away_x: float, neighbour: str) -> tuple[Picture, Reading]:
    """A 9x9 Go picture whose place (4, 4) the looks leave doubtful as W, its right-hand neighbour
    read surely as `neighbour`, everything standing seen displaced along x by `away_x`."""
    model = go_model()
    letters = ["."] * 81
    why = [""] * 81
    letters[4 * 9 + 4], why[4 * 9 + 4] = "W", "margin"
    letters[4 * 9 + 5] = neighbour
    away = np.tile([away_x, 0.0], (81, 1))
    picture = Picture.of(model, np.zeros((len(SHIFTS), 81, N_FEATURES)), away=away)
    return picture, Reading.first(letters, why, np.zeros(81), np.zeros(81, int))


def test_a_piece_found_towards_a_neighbour_of_its_label_seen_displaced_towards_it_is_that_neighbours() -> None:
    """A tall piece's top is seen displaced away from the camera, into the next cell: found off
    (4, 4)'s point towards (4, 5), which reads surely the same label and is seen displaced towards
    (4, 4), it may be (4, 5)'s own piece."""
    towards = np.array([0.3, 0.0])
    assert seen_from_a_neighbour(*_picture_seen_towards(-1.0, "W"), 4 * 9 + 4, towards, "W")
    assert not seen_from_a_neighbour(*_picture_seen_towards(1.0, "W"), 4 * 9 + 4, towards, "W")
    assert not seen_from_a_neighbour(*_picture_seen_towards(-1.0, "."), 4 * 9 + 4, towards, "W")
    assert not seen_from_a_neighbour(*_picture_seen_towards(-1.0, "W"), 4 * 9 + 4, np.array([0.05, 0.3]), "W")
