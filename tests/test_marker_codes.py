"""The marker detector looks only for the board's own codes (`geometry.board_dictionary`): a copy
whose markers carry other ids is found with those ids, a printed code that is not one of the
board's is ignored, and an id its dictionary does not have is simply never found."""

from __future__ import annotations

import cv2
import numpy as np

from controller.vision.geometry import DICTIONARIES, LatticeGeometry, MarkerLocaliser, project

PX = 60.0  # pixels per pitch of the drawn board


def _board_picture(geom: LatticeGeometry, printed: tuple[int, int, int, int]) -> np.ndarray:
    """A grey 1280x720 picture of white paper squares carrying the codes `printed` where `geom`
    puts its four markers."""
    h = np.array([[PX, 0, 380], [0, PX, 160], [0, 0, 1]], np.float64)
    picture = np.full((720, 1280), 90, np.uint8)
    dictionary = cv2.aruco.getPredefinedDictionary(DICTIONARIES[geom.dictionary])
    side = 120
    marker_px = np.float32([[0, 0], [side, 0], [side, side], [0, side]])
    for centre, corners, code in zip(geom.marker_centres(), geom.marker_corners(), printed):
        paper = project(h, np.array([centre - 0.75, centre + 0.75])).astype(int)  # a white margin round it
        cv2.rectangle(picture, tuple(paper[0]), tuple(paper[1]), 235, -1)
        marker = cv2.aruco.generateImageMarker(dictionary, code, side)
        warp = cv2.getPerspectiveTransform(marker_px, project(h, corners).astype(np.float32))
        drawn = cv2.warpPerspective(marker, warp, (1280, 720), flags=cv2.INTER_AREA, borderValue=255)
        inside = cv2.warpPerspective(np.full_like(marker, 255), warp, (1280, 720)) > 0
        picture[inside] = drawn[inside]
    return cv2.cvtColor(picture, cv2.COLOR_GRAY2BGR)


def test_a_copy_with_other_marker_ids_is_found_with_them():
    geom = LatticeGeometry(rows=5, cols=5, marker_ids=(12, 7, 44, 30))
    found = MarkerLocaliser(geom).detect(_board_picture(geom, geom.marker_ids))
    assert found is not None
    assert found.markers_seen == (7, 12, 30, 44)
    assert found.error_px < 1.0


def test_a_printed_code_that_is_not_the_boards_is_not_taken_for_its_marker():
    geom = LatticeGeometry(rows=5, cols=5, marker_ids=(0, 1, 2, 3))
    found = MarkerLocaliser(geom).detect(_board_picture(geom, (0, 1, 2, 9)))
    assert found is not None
    assert found.markers_seen == (0, 1, 2)


def test_an_id_the_dictionary_does_not_have_is_never_found():
    geom = LatticeGeometry(rows=5, cols=5, marker_ids=(0, 1, 2, 60))  # 4X4_50 has codes 0-49
    found = MarkerLocaliser(geom).detect(_board_picture(geom, (0, 1, 2, 3)))
    assert found is not None
    assert found.markers_seen == (0, 1, 2)
