"""The camera's pose from the markers' homography (`controller/vision/pose.py`): where a point above
the board appears, checked against pinhole cameras whose pose is known."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from controller.vision.geometry import LatticeGeometry
from controller.vision.pose import CameraPose, default_focal, focal_from_homography

SIZE = (960, 540)


def _camera(tilt: float, fov: float, azimuth: float, dist: float = 14.0, centre=(4.0, 4.0)):
    """A pinhole camera `dist` pitches from the board's centre, `tilt` degrees off the vertical."""
    w, h = SIZE
    f = default_focal(w, fov)
    k = np.array([[f, 0, w / 2], [0, f, h / 2], [0, 0, 1.0]])
    t, a = math.radians(tilt), math.radians(azimuth)
    cx, cy = centre
    # Board coordinates: x right, y down, z into the board (away from the camera above it).
    c = np.array([cx + dist * math.sin(t) * math.cos(a), cy + dist * math.sin(t) * math.sin(a), -dist * math.cos(t)])
    z = np.array([cx, cy, 0.0]) - c
    z /= np.linalg.norm(z)
    x = np.cross(z, [0.0, -1.0, 0.0])
    x /= np.linalg.norm(x)
    y = np.cross(z, x)
    r = np.stack([x, y, z])
    return k, r, -r @ c, f


def _project(k, r, t, pts3):
    cam = pts3 @ r.T + t
    img = cam @ k.T
    return img[:, :2] / img[:, 2:3]


def _homography(k, r, t, rng, noise=0.3):
    geom = LatticeGeometry(9, 9)
    board = geom.marker_corners().reshape(-1, 2)
    img = _project(k, r, t, np.hstack([board, np.zeros((len(board), 1))])) + rng.normal(0, noise, (len(board), 2))
    h, _ = cv2.findHomography(board, img, 0)
    return h


@pytest.mark.parametrize("tilt", [5, 10, 20])
def test_the_focal_length_is_measured_from_a_slanted_view(tilt):
    rng = np.random.default_rng(tilt)
    for _ in range(10):
        fov = rng.uniform(50, 80)
        k, r, t, f = _camera(tilt, fov, rng.uniform(0, 360))
        tolerance = {5: 0.15, 10: 0.1, 20: 0.05}[tilt]
        assert focal_from_homography(_homography(k, r, t, rng), SIZE) == pytest.approx(f, rel=tolerance)


def test_straight_down_the_focal_length_is_the_common_cameras():
    rng = np.random.default_rng(1)
    k, r, t, f = _camera(0.0, 66.0, 0.0)
    assert focal_from_homography(_homography(k, r, t, rng), SIZE) == pytest.approx(default_focal(SIZE[0]), rel=0.1)


@pytest.mark.parametrize("tilt", [0, 8, 20])
def test_a_point_above_the_board_appears_where_the_camera_sees_it(tilt):
    """The middle of a ball 0.34 pitch above a place: within 0.03 pitch of where the camera shows it,
    while it appears up to a fifth of a pitch off its place."""
    rng = np.random.default_rng(10 + tilt)
    worst = moved = 0.0
    for _ in range(10):
        k, r, t, _ = _camera(tilt, rng.uniform(55, 75), rng.uniform(0, 360))
        h = _homography(k, r, t, rng)
        pose = CameraPose.from_homography(h, SIZE)
        pts = LatticeGeometry(9, 9).points()
        seen = pose.seen_from_above(h, pts, 0.34)
        truth_img = _project(k, r, t, np.hstack([pts, np.full((len(pts), 1), -0.34)]))
        back = np.hstack([truth_img, np.ones((len(pts), 1))]) @ np.linalg.inv(h).T
        truth = back[:, :2] / back[:, 2:3]
        worst = max(worst, float(np.abs(seen - truth).max()))
        moved = max(moved, float(np.abs(truth - pts).max()))
    assert worst < 0.03
    assert moved > 0.08
    if tilt:  # straight down the distance is only known through the assumed field of view
        assert pose.height == pytest.approx(14.0, rel=0.1)


def test_height_zero_is_the_homographys_own_point():
    rng = np.random.default_rng(3)
    k, r, t, _ = _camera(12, 60, 40)
    h = _homography(k, r, t, rng)
    pts = LatticeGeometry(5, 5).points()
    assert np.allclose(CameraPose.from_homography(h, SIZE).seen_from_above(h, pts, 0.0), pts)


def test_each_class_is_compared_where_its_body_appears():
    """A ball at its centre's height, a token's top below the frame, an empty slot at its floor, a
    look through Stay Alive's holes at the plate's middle (what shows through a hole is centred on
    the ray through the hole's middle, however deep it lies)."""
    from controller.games import registry
    from controller.profile import default_profile
    from controller.vision.reader import model_for
    from controller.vision.tops import class_heights

    def heights(game):
        return class_heights(registry.get(game).vision, model_for(default_profile(game)))

    assert heights("flipop")["W"] == pytest.approx(0.34)
    assert heights("flipop")["."] == 0.0
    assert heights("colorpop")["G"] == pytest.approx(-0.1)
    assert heights("colorpop")["."] == pytest.approx(-0.25)
    stay = heights("stay-alive")
    assert stay["open"] == stay[".o"] == stay[".w"] == pytest.approx(-0.0625)
    assert stay["R"] > 0


def test_the_plane_of_a_height_maps_the_board_where_the_camera_sees_it():
    from controller.vision.pose import homography_at

    rng = np.random.default_rng(5)
    k, r, t, _ = _camera(15, 62, 120)
    h = _homography(k, r, t, rng, noise=0.0)
    pose = CameraPose.from_homography(h, SIZE)
    pts = LatticeGeometry(7, 7).points()
    raised = homography_at(pose, h, 0.35)
    got = np.hstack([pts, np.ones((len(pts), 1))]) @ raised.T
    truth = _project(k, r, t, np.hstack([pts, np.full((len(pts), 1), -0.35)]))
    assert np.abs(got[:, :2] / got[:, 2:3] - truth).max() < 1.0  # pixels, in a 960-pixel picture
    assert np.allclose(homography_at(pose, h, 0.0), h / h[2, 2])
