"""Finding the board's markers when the board is small in the picture (bench/faithful.py, seed 1098).

The markers are searched in a half-size copy of the picture. A small or distant board leaves too
few pixels per bit there after blur and noise, and a bumped camera then lost the board for the
rest of a game. The full picture is searched too when the markers are too small to decode at
half size, and only then.
"""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from controller.profile import default_profile
from controller.vision.geometry import LatticeGeometry, MarkerLocaliser
from simulation.render import Scene, random_snapshot, render_scene

pytestmark = pytest.mark.slow  # every test here takes seconds

BUMP = (11.59468490604602, -4.5553173135168095, 1.0)  # the bump of bench/faithful.py's Colorpop game, seed 1098


def _picture(scene: Scene) -> tuple[np.ndarray, LatticeGeometry]:
    profile = default_profile("colorpop")
    snapshot = random_snapshot("colorpop", profile, 1)
    image, _ = render_scene(snapshot, profile, seed=1098, preset="hard", scene=scene, size=(1280, 720))
    return image, LatticeGeometry.from_profile(profile)


def _found_at_half_size(localiser: MarkerLocaliser, image: np.ndarray) -> dict:
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    small = cv2.resize(gray, (gray.shape[1] // 2, gray.shape[0] // 2), interpolation=cv2.INTER_AREA)
    found: dict = {}
    localiser._find(small, 2, found)
    return found


def test_a_small_bumped_board_is_found_in_the_full_picture():
    image, geom = _picture(Scene(bump=BUMP, frame=2))
    localiser = MarkerLocaliser(geom)
    assert len(_found_at_half_size(localiser, image)) < localiser.min_markers  # the case this is about
    found = localiser.detect(image)
    assert found is not None
    assert found.markers_seen == (0, 1, 2, 3)
    assert found.error_px < 1.5


def test_a_large_board_with_a_covered_marker_is_not_searched_twice(monkeypatch):
    profile = default_profile("flipop")  # 5x5: its markers are large in the picture
    snapshot = random_snapshot("flipop", profile, 2)
    scene = Scene(hand=(0, 0), hand_side="left")
    image, _ = render_scene(snapshot, profile, seed=3, preset="clean", scene=scene, size=(1280, 720))
    localiser = MarkerLocaliser(LatticeGeometry.from_profile(profile))
    searched: list[int] = []
    original = localiser._find

    def spy(image, scale, found):
        searched.append(scale)
        original(image, scale, found)

    monkeypatch.setattr(localiser, "_find", spy)
    found = localiser.detect(image)
    assert found is not None and 0 not in found.markers_seen  # the hand covers the top-left marker
    assert searched == [2]  # only the half-size picture: its markers are large enough to decode
