"""The flat renderer's broad reflection (`Scene.sheen`) follows what each surface mirrors."""

from __future__ import annotations

import numpy as np

from controller.profile import default_profile
from controller.snapshot import Snapshot
from simulation.render import Scene, render_scene


def _flipop(cells: dict[tuple[int, int], str]) -> Snapshot:
    rows = tuple(tuple(cells.get((r, c), ".") for c in range(5)) for r in range(5))
    return Snapshot("flipop", rows, {})


def test_a_ball_mirrors_a_broad_sheen_only_as_a_small_spot() -> None:
    """A sphere mirrors the whole room shrunk into its outline: a broad reflection that washes the
    flat floor beside a black ball leaves the ball's body its own colour (all but a spot near its
    top), where a flat renderer once added the light over it evenly."""
    profile = default_profile("flipop")
    snap = _flipop({(2, 2): "B"})
    sheen = Scene(sheen=(2.0, 2.0, 1.2, 0.8, (1.0, 1.0, 1.0)))
    plain, hom = render_scene(snap, profile, seed=3, preset="clean")
    shone, _ = render_scene(snap, profile, seed=3, preset="clean", scene=sheen)
    q = hom @ np.array([2.0, 2.0, 1.0])
    x, y = int(q[0] / q[2]), int(q[1] / q[2])
    pitch = float(np.sqrt(abs(np.linalg.det(hom[:2, :2])))) / float(hom[2, 2])
    ball = (slice(y - 3, y + 4), slice(x - 3, x + 4))  # the ball's middle (it is seen a little off its point)
    floor = (slice(y - 3, y + 4), slice(int(x + 0.45 * pitch) - 3, int(x + 0.45 * pitch) + 4))
    gain = shone.astype(float) - plain.astype(float)
    assert np.median(gain[floor]) > 40  # the floor beside it is washed
    assert np.median(np.abs(gain[ball])) < 12  # the ball's body is not
