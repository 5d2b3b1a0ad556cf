"""A lamp's reflection just outside the outer places does not blind the reader (issue 32, item 3):
the places in its halo are read as the one meaning whose look some added white light explains
(`controller.vision.reflections`), and never wrongly. The reflections are `bench/hand_check.py`'s."""

from __future__ import annotations

import numpy as np
import pytest

from bench.hand_check import NEAR_OUTSIDE, NEAR_RADII, edge_glare
from controller.profile import default_profile
from controller.vision.reader import BoardReader
from simulation.render import Scene, random_snapshot, render_snapshot


@pytest.mark.parametrize("seed", [1, 4])
def test_a_board_beside_a_reflection_at_its_edge_is_read(seed) -> None:
    """Stay Alive boards with a reflection at a corner of the outer places (unsure before: the
    places in its halo lay beyond every learned look)."""
    p = default_profile("stay-alive")
    snap = random_snapshot("stay-alive", p, seed=seed)
    spot = edge_glare(p, np.random.default_rng(5000 + seed), NEAR_RADII, NEAR_OUTSIDE)
    image = render_snapshot(snap, p, seed=seed, preset="hard", scene=Scene(glare_at=(spot,), frame=4))
    reading = BoardReader(p).read(image)
    assert reading.problem is None
    assert reading.snapshot is not None and reading.snapshot.cells == snap.cells
