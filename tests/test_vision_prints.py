"""A print's contrast under a sheen (`controller/vision/prints.py`): light added over a patch moves
every pixel alike, so a tile's glyph stays as much lighter than its body, in light, and an empty
cell's faint mark shows no print. Where the sheen's colour left an empty cell unsure (a green tile
plus a pink light is its pale green), the print gives its reading back; a tile so washed keeps
its print and stays unsure.

The frames are drawn: a board of `SIZE` x `SIZE` cells of `PITCH` pixels, paper white 200 in each
channel, each cell an empty cell (paper with a darker mark) or a tile (a colour with a white bar),
and a pink sheen added in light (before the camera's curve) over some cells."""

from __future__ import annotations

import numpy as np
import pytest

from controller.snapshot import EMPTY
from controller.vision.classify import Decision
from controller.vision.prints import print_strength, settle_by_print
from controller.vision.sheen_doubt import GAMMA

SIZE = 5
PITCH = 40
PAPER = 200.0
EMPTY_LOOK = (0.79, 0.91, 0.94)  # white-normalised BGR
GREEN = (0.39, 0.63, 0.32)
PINK = np.array([0.47, 0.68, 1.0])  # linear BGR of a pink wall's reflection, relative to the paper's light
H = np.array([[PITCH, 0, PITCH / 2], [0, PITCH, PITCH / 2], [0, 0, 1]], np.float64)
POINTS = np.stack(np.meshgrid(np.arange(SIZE), np.arange(SIZE)), axis=-1).reshape(-1, 2).astype(np.float64)


def _frame(tiles: dict[int, tuple], sheen: dict[int, float], plain: bool = False, seed: int = 0) -> np.ndarray:
    """The board's picture: tiles (place: colour) with a white bar on empty cells with a mark 15%
    darker (neither when `plain`); `sheen` (place: amount of pink light) added before the curve."""
    light = np.zeros((SIZE * PITCH, SIZE * PITCH, 3))
    for i in range(SIZE * SIZE):
        r, c = divmod(i, SIZE)
        cell = light[r * PITCH : (r + 1) * PITCH, c * PITCH : (c + 1) * PITCH]
        if i in tiles:
            cell[:] = np.array(tiles[i]) ** GAMMA
            if not plain:
                cell[12:28, 17:23] = 0.95**GAMMA  # the glyph: a white bar
        else:
            cell[:] = np.array(EMPTY_LOOK) ** GAMMA
            if not plain:
                cell[16:24, 16:24] *= 0.85**GAMMA  # the cell's printed mark
        cell += sheen.get(i, 0.0) * PINK
    noise = np.random.default_rng(seed).normal(0.0, 1.5, light.shape)
    return np.clip(np.clip(light, 0, None) ** (1 / GAMMA) * PAPER + noise, 0, 255).astype(np.uint8)


def _decision(letters: list[str], sure: np.ndarray) -> Decision:
    n = len(letters)
    return Decision(
        keys=list(letters),
        letters=list(letters),
        sure=sure.copy(),
        confidence=np.where(sure, 0.9, 0.0),
        distance=np.ones(n),
        open=np.zeros(n, bool),
        best=np.array([0 if letter == "G" else 1 for letter in letters]),
        possible=np.zeros((n, 2), bool),
        margin=np.ones(n),
    )


WHITE = np.full(3, PAPER / 255)
WEIGHTS = np.ones((SIZE * SIZE, 1))
TILES = {0: GREEN, 4: GREEN, 20: GREEN, 24: GREEN}
LIT = {11: 0.5, 12: 0.6, 13: 0.5, 7: 0.3, 17: 0.3}  # a pink reflection over the middle, short of clipping


def _strength(frame: np.ndarray) -> np.ndarray:
    return print_strength(frame, H, POINTS, np.tile(WHITE * 255, (len(POINTS), 1)))[0]


def test_light_added_leaves_the_print_and_the_mark_as_they_were() -> None:
    tiles = {**TILES, 12: GREEN}
    plain, lit = _strength(_frame(tiles, {})), _strength(_frame(tiles, LIT, seed=1))
    assert plain[12] == pytest.approx(lit[12], rel=0.1)  # the tile's glyph under 0.6 of pink light
    empty = [i for i in range(SIZE * SIZE) if i not in tiles]
    assert max(lit[empty]) < 0.25 * min(lit[list(tiles)])  # a mark, lit or not, is no print


def _sheen_read(tiles: dict[int, tuple], plain: bool = False) -> tuple[Decision, Decision, Decision, np.ndarray]:
    """Before: the looks' reading (every place sure, the lit green tile read empty); after: the
    sheen's colour left every lit place unsure; and the places it read."""
    letters = ["G" if i in tiles and i not in LIT else EMPTY for i in range(SIZE * SIZE)]
    before = _decision(letters, np.ones(SIZE * SIZE, bool))
    tinted = np.isin(np.arange(SIZE * SIZE), list(LIT))
    after = _decision(letters, ~tinted)
    frame = _frame(tiles, LIT, plain=plain)
    return before, after, settle_by_print(frame, H, POINTS, WHITE, WEIGHTS, before, after, tinted), tinted


def test_the_print_gives_back_the_empty_cells_a_sheen_left_unsure() -> None:
    _, _, settled, tinted = _sheen_read(TILES)
    assert settled.sure[tinted].all() and all(settled.letters[i] == EMPTY for i in np.flatnonzero(tinted))


def test_a_green_tile_washed_to_the_empty_look_keeps_its_print_and_stays_unsure() -> None:
    _, _, settled, _ = _sheen_read({**TILES, 12: GREEN})
    assert not settled.sure[12]
    assert all(settled.sure[i] for i in (7, 11, 13, 17))


def test_plain_pieces_on_plain_cells_tell_nothing_by_print_and_nothing_changes() -> None:
    _, after, settled, _ = _sheen_read(TILES, plain=True)
    assert (settled.sure == after.sure).all()


def test_too_few_sure_pieces_in_the_frame_settle_nothing() -> None:
    _, after, settled, _ = _sheen_read({0: GREEN, 4: GREEN})
    assert (settled.sure == after.sure).all()


def test_a_tile_the_sheen_read_empty_surely_is_left_unsure_by_its_print() -> None:
    letters = ["G" if i in TILES else EMPTY for i in range(SIZE * SIZE)]
    tinted = np.isin(np.arange(SIZE * SIZE), list(LIT))
    read = _decision(letters, np.ones(SIZE * SIZE, bool))  # the washed tile at 12 read empty, surely
    settled = settle_by_print(_frame({**TILES, 12: GREEN}, LIT), H, POINTS, WHITE, WEIGHTS, read, read, tinted)
    assert not settled.sure[12]
    assert all(settled.sure[i] for i in range(SIZE * SIZE) if i != 12)


@pytest.mark.parametrize("seed", [1])
def test_no_tile_is_read_empty_surely_under_a_strong_white_reflection(seed: int) -> None:
    """A flat Blockers! board under a broad white reflection peaking at 0.8 of the paper's light
    (`bench/sheen_check.py`'s picture): a blue tile at its middle, washed to the empty look past
    what a sheen may take off a colour, was read empty surely; its glyph says it is no empty cell."""
    from controller.profile import default_profile
    from controller.vision.reader import BoardReader
    from simulation.render import Scene, random_snapshot, render_snapshot

    profile = default_profile("blockers")
    snap = random_snapshot("blockers", profile, seed)
    scene = Scene(sheen=(6.7, 4.07, 0.83, 0.8, (1.0, 1.0, 1.0)))  # bench/sheen_check.py's seed 1
    reading = BoardReader(profile).read(render_snapshot(snap, profile, seed=seed, preset="clean", scene=scene))
    assert reading.cells is not None
    wrong = [
        (r, c)
        for r in range(profile.rows)
        for c in range(profile.cols)
        if reading.cells[r][c] != "?" and (reading.cells[r][c] == EMPTY) != (snap.cells[r][c] == EMPTY)
    ]
    assert snap.cells[7][4] != EMPTY and not wrong
