"""A lamp's reflection on a corner marker is not a hand (controller/vision/localise.py).

Where a marker fails the border test only because its black border is clipped or brighter than
the white paper of the markers that fit, no object covers it: only a mirror-like reflection is
brighter than white paper under the same light. The board is read, and read right."""

from __future__ import annotations

import pytest

from controller.profile import default_profile
from controller.vision.geometry import LatticeGeometry
from controller.vision.reader import HAND, BoardReader
from simulation.render import Scene, random_snapshot, render_snapshot

pytestmark = pytest.mark.slow  # every test here takes seconds


@pytest.mark.parametrize("game", ["colorpop", "blockers", "flipop", "stay-alive"])
def test_a_reflection_on_a_corner_marker_is_read_through(game: str):
    profile = default_profile(game)
    snapshot = random_snapshot(game, profile, seed=1)
    for x, y in LatticeGeometry.from_profile(profile).marker_centres()[::2]:  # two opposite corners
        scene = Scene(glare_at=((float(y), float(x), 0.8),), frame=1)
        reading = BoardReader(profile).read(render_snapshot(snapshot, profile, seed=2, scene=scene))
        assert reading.problem is None
        for r, row in enumerate(snapshot.cells):
            for c, cell in enumerate(row):
                assert reading.cells[r][c] == cell or (r, c) in reading.unsure


def test_a_hand_over_a_corner_marker_is_still_a_hand():
    profile = default_profile("flipop")
    snapshot = random_snapshot("flipop", profile, seed=1)
    reader = BoardReader(profile)
    assert reader.read(render_snapshot(snapshot, profile, seed=2, scene=Scene(frame=1))).problem is None
    hand = Scene(hand=(-1.0, -1.0), hand_side="left", frame=2)  # the fingertips on the top-left marker
    reading = reader.read(render_snapshot(snapshot, profile, seed=2, scene=hand))
    assert reading.problem is not None and reading.problem.startswith(HAND)
