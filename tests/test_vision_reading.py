"""Vision: localisation, reading every class under both presets, hands, bumps, gating."""

from __future__ import annotations

import numpy as np
import pytest

from controller.profile import default_profile
from controller.snapshot import EMPTY, Snapshot
from controller.vision.gating import IDLE, MOVING, STILL, MotionGate
from controller.vision.geometry import MARKERS_HIDDEN, LatticeGeometry, project
from controller.vision.reader import HAND, BoardReader
from simulation.drawing import stay_alive_points
from simulation.render import (
    Scene,
    random_snapshot,
    render_scene,
    render_snapshot,
)

GAMES = ["colorpop", "blockers", "flipop", "stay-alive"]


def every_class(game: str) -> Snapshot:
    """A board holding every piece class of the game and empty places, spread around."""
    p = default_profile(game)
    base = random_snapshot(game, p, seed=7)
    cells = [list(r) for r in base.cells]
    letters = list(p.letters)
    k = 0
    for r in range(p.rows):
        for c in range(p.cols):
            if (r + 2 * c) % 3 == 0:
                cells[r][c] = EMPTY
            else:
                cells[r][c] = letters[k % len(letters)] + ("5" if game == "blockers" else "")
                k += 1
    snap = base.with_cells(cells)
    if game == "stay-alive":
        open_, _ = stay_alive_points(snap, p)
        snap = snap.with_cells(
            [[EMPTY if (r, c) in open_ else cells[r][c] for c in range(p.cols)] for r in range(p.rows)]
        )
    return snap


def colours(snap: Snapshot) -> list[list[str]]:
    return [[c[:1] for c in row] for row in snap.cells]


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("preset", ["clean", "hard"])
@pytest.mark.slow
def test_every_class_is_read_exactly(game: str, preset: str) -> None:
    p = default_profile(game)
    snap = every_class(game)
    img, h = render_scene(snap, p, seed=11, preset=preset)
    reader = BoardReader(p)
    reading = reader.read(img)
    assert reading.problem is None, reading.problem
    assert reading.snapshot is not None and not reading.unsure
    assert colours(reading.snapshot) == colours(snap)
    if game == "blockers":  # glyphs are read (issue 7), or `?`; never a wrong one
        assert all(
            g == t or g == t[0] + "?" for gr, tr in zip(reading.snapshot.cells, snap.cells) for g, t in zip(gr, tr)
        )
    if game == "stay-alive":
        open_, _ = stay_alive_points(snap, p)
        assert reading.open_points == open_
    # Localisation against the renderer's own geometry: well under a pixel everywhere.
    pts = LatticeGeometry.from_profile(p).points()
    assert np.abs(project(reader.h, pts) - project(h, pts)).max() < 0.5


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.slow
def test_a_hand_never_yields_a_snapshot(game: str) -> None:
    p = default_profile(game)
    snap = random_snapshot(game, p, seed=3)
    reader = BoardReader(p)
    assert reader.read(render_snapshot(snap, p, seed=3, preset="hard")).snapshot is not None
    rng = np.random.default_rng(5)
    for k, side in enumerate(["bottom", "left", "top", "right"]):
        hand = (float(rng.uniform(0, p.rows - 1)), float(rng.uniform(0, p.cols - 1)))
        scene = Scene(hand=hand, hand_side=side, frame=k + 1)
        reading = reader.read(render_snapshot(snap, p, seed=3, preset="hard", scene=scene))
        assert reading.snapshot is None
        assert reading.problem is not None and reading.problem.startswith(HAND)


@pytest.mark.slow
def test_camera_bump_is_noticed_and_board_read_again() -> None:
    p = default_profile("flipop")
    snap = random_snapshot("flipop", p, seed=2)
    reader = BoardReader(p)
    assert reader.read(render_snapshot(snap, p, seed=2)).relocalised
    again = reader.read(render_snapshot(snap, p, seed=2, scene=Scene(frame=1)))
    assert not again.relocalised and again.snapshot is not None
    bumped = reader.read(render_snapshot(snap, p, seed=2, scene=Scene(bump=(5, -4, 0.7), frame=2)))
    assert bumped.relocalised
    assert bumped.snapshot is not None and colours(bumped.snapshot) == colours(snap)


def test_markers_not_visible_is_said_clearly() -> None:
    reader = BoardReader(default_profile("colorpop"))
    reading = reader.read(np.full((720, 1280, 3), 128, np.uint8))
    assert reading.snapshot is None and reading.problem == MARKERS_HIDDEN
    assert "markers are not visible" in reading.problem


def test_fixed_corners_read_without_markers() -> None:
    p = default_profile("stay-alive")
    snap = every_class("stay-alive")
    img, h = render_scene(snap, p, seed=4)
    corners = project(h, LatticeGeometry.from_profile(p).corner_points())
    reading = BoardReader(p, corners=corners).read(img)
    assert reading.snapshot is not None and colours(reading.snapshot) == colours(snap)


def test_confirm_follows_slow_light_change() -> None:
    p = default_profile("colorpop")
    snap = every_class("colorpop")
    reader = BoardReader(p)
    reading = reader.read(render_snapshot(snap, p, seed=1))
    before = reader.model.means.copy()
    reader.confirm(reading.snapshot)
    moved = np.abs(reader.model.means - before).max()
    assert 0 < moved < 0.1


def test_renderer_is_deterministic_and_noise_follows_the_frame() -> None:
    p = default_profile("blockers")
    snap = random_snapshot("blockers", p, seed=1)
    a = render_snapshot(snap, p, seed=9, preset="hard", size=(640, 360))
    b = render_snapshot(snap, p, seed=9, preset="hard", size=(640, 360))
    c = render_snapshot(snap, p, seed=9, preset="hard", size=(640, 360), scene=Scene(frame=1))
    assert np.array_equal(a, b)
    diff = np.abs(a.astype(int) - c.astype(int))
    assert 0 < diff.mean() < 8  # only sensor noise differs


@pytest.mark.slow
def test_gate_waits_for_stillness_and_skips_idle_frames() -> None:
    p = default_profile("colorpop")
    snap = random_snapshot("colorpop", p, seed=5)
    reader = BoardReader(p)
    gate = MotionGate(settle=3)
    frames = [render_snapshot(snap, p, seed=5, scene=Scene(frame=i + 1)) for i in range(5)]
    states = [gate.update(f).state for f in frames]
    assert states == [MOVING, MOVING, MOVING, STILL, IDLE]
    # A hand comes in, moves, rests, and goes away.
    path = [(8.0, 5.0), (6.0, 4.0), (4.0, 4.0), (4.0, 4.0), (4.0, 4.0), (4.0, 4.0)]
    seen = []
    for i, hand in enumerate(path):
        f = render_snapshot(snap, p, seed=5, scene=Scene(hand=hand, frame=10 + i))
        g = gate.update(f)
        seen.append(g.state)
        if g.read_now:
            reading = reader.read(f)
            assert reading.snapshot is None and reading.problem.startswith(HAND)
    assert seen[:3] == [MOVING] * 3 and STILL in seen
    after = [render_snapshot(snap, p, seed=5, scene=Scene(frame=20 + i)) for i in range(5)]
    results = [gate.update(f) for f in after]
    reads = [reader.read(f) for f, g in zip(after, results) if g.read_now]
    assert len(reads) == 1 and reads[0].snapshot is not None
    assert colours(reads[0].snapshot) == colours(snap)


@pytest.mark.parametrize("game", ["colorpop", "stay-alive"])
@pytest.mark.parametrize(
    "exposure,cast",
    [
        (0.6, (1.0, 1.0, 1.0)),  # a darker room
        (1.0, (0.75, 1.0, 1.25)),  # a warm lamp (BGR gains)
        (1.1, (1.2, 1.05, 0.8)),  # a cool window
    ],
)
@pytest.mark.slow
def test_light_of_another_colour_or_strength_is_read_relative_to_the_board(game, exposure, cast) -> None:
    """Every place is read relative to the light measured on the board's own white paper, so a
    lamp or a window shifts every place alike: the classes keep their order, nothing is wrong."""
    from tests.test_vision_lattice_robust import relit

    p = default_profile(game)
    snap = every_class(game)
    img, _ = render_scene(snap, p, seed=5, preset="clean")
    reading = BoardReader(p).read(relit(img, exposure, cast, 0.0))
    cells = reading.cells
    assert cells is not None
    wrong = [
        (r, c)
        for r, row in enumerate(colours(snap))
        for c, t in enumerate(row)
        if cells[r][c] != "?" and cells[r][c][:1] != t
    ]
    assert wrong == []
    assert sum(c == "?" for row in cells for c in row) <= 0.02 * p.rows * p.cols
