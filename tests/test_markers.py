"""`referee markers`: the game's four ArUco markers, printable at the size its board needs (docs/rig.md)."""

from __future__ import annotations

import re
import struct

import cv2
import numpy as np
import pytest

from controller.cli import main
from controller.commands.markers import POINTS_PER_MM, marker_cells
from controller.profile import default_profile

GAMES = ["colorpop", "blockers", "flipop", "stay-alive"]


def _size_mm(game: str) -> float:
    geometry = default_profile(game).geometry
    return float(geometry["pitch_mm"]) * float(geometry["markers"]["size"])


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.slow
def test_the_png_holds_the_four_markers_at_their_size_and_says_its_dpi(game, tmp_path, capsys):
    out = tmp_path / "markers.png"
    assert main(["markers", "--game", game, "--out", str(out), "--dpi", "300"]) == 0
    assert f"markers of {_size_mm(game):g} mm" in capsys.readouterr().out
    data = out.read_bytes()
    at = data.index(b"pHYs")
    per_metre_x, per_metre_y, unit = struct.unpack(">IIB", data[at + 4 : at + 13])
    assert unit == 1 and per_metre_x == per_metre_y == round(300 / 0.0254)
    image = cv2.imread(str(out), cv2.IMREAD_GRAYSCALE)
    assert image.shape == (3508, 2480)  # A4 at 300 dpi
    detector = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50))
    corners, ids, _ = detector.detectMarkers(image)
    assert ids is not None and sorted(ids.ravel()) == [0, 1, 2, 3]
    side = _size_mm(game) * 300 / 25.4
    for quad in corners:
        edges = np.linalg.norm(np.roll(quad[0], -1, axis=0) - quad[0], axis=1)
        assert np.all(np.abs(edges - side) < 2.0), (edges, side)
    by_id = {int(i): q[0].mean(axis=0) for i, q in zip(ids.ravel(), corners)}
    assert by_id[0][0] < by_id[1][0] and by_id[3][0] < by_id[2][0]  # laid out as on the board
    assert by_id[0][1] < by_id[3][1] and by_id[1][1] < by_id[2][1]


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.slow
def test_the_pdf_draws_each_markers_cells_at_their_size_on_an_a4_page(game, tmp_path):
    out = tmp_path / "markers.pdf"
    assert main(["markers", "--game", game, "--out", str(out)]) == 0
    data = out.read_bytes()
    assert data.startswith(b"%PDF-1.4") and data.rstrip().endswith(b"%%EOF")
    assert b"/MediaBox [0 0 595.28 841.89]" in data
    start = int(re.search(rb"startxref\n(\d+)", data).group(1))
    offsets = [int(x) for x in re.findall(rb"(\d{10}) 00000 n", data[start:])]
    for number, offset in enumerate(offsets, start=1):  # every object where the table says
        assert data[offset:].startswith(b"%d 0 obj" % number)
    squares = [tuple(map(float, m)) for m in re.findall(rb"([\d.]+) ([\d.]+) ([\d.]+) ([\d.]+) re f", data)]
    cell = _size_mm(game) * POINTS_PER_MM / 6  # 4x4 bits and their black border
    cells = [s for s in squares if abs(s[2] - cell) < 0.01 and abs(s[3] - cell) < 0.01]
    ys = [y for _, y, *_ in cells]
    middle = (min(ys) + max(ys)) / 2
    markers: list[list[tuple[float, float]]] = [[], [], [], []]
    for x, y, *_ in cells:  # the four markers sit two by two: left/right, top/bottom (PDF's y goes up)
        left, top = x < 595.28 / 2, y > middle
        markers[(0 if left else 1) if top else (3 if left else 2)].append((x, y))
    assert all(markers)
    for marker_id, squares_of in enumerate(markers):
        x0 = min(x for x, _ in squares_of)
        y_top = max(y for _, y in squares_of) + cell
        grid = np.zeros((6, 6), bool)
        for x, y in squares_of:
            grid[round((y_top - y - cell) / cell), round((x - x0) / cell)] = True
        assert (grid == marker_cells("4X4_50", marker_id)).all(), marker_id


def test_bad_outputs_are_said_in_a_sentence(tmp_path, capsys):
    assert main(["markers", "--game", "colorpop", "--out", str(tmp_path / "m.jpg")]) == 2
    assert "write a .pdf or a .png file" in capsys.readouterr().err
    assert main(["markers", "--game", "colorpop", "--out", str(tmp_path / "no" / "m.pdf")]) == 2
    assert "does not exist" in capsys.readouterr().err
