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


def _pdf_lines(data: bytes) -> list[str]:
    """The text lines a PDF reader shows, from the content stream's `(...) Tj` strings, decoded as the
    font's `/Encoding /WinAnsiEncoding` says (Windows-1252)."""
    assert b"/BaseFont /Helvetica /Encoding /WinAnsiEncoding" in data
    strings = re.findall(rb"\(((?:[^()\\]|\\.)*)\) Tj", data)
    return [re.sub(rb"\\(.)", rb"\1", s).decode("cp1252") for s in strings]


def test_the_pdf_carries_french_accents_in_an_encoding_its_font_prints(tmp_path, monkeypatch):
    """Helvetica without an encoding takes StandardEncoding, which has no é: the French sheet printed
    `coin supérieur` wrong. The font now says WinAnsiEncoding, whose bytes are the letters French writes."""
    for variable in ("LANGUAGE", "LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("LANG", "fr_FR.UTF-8")
    out = tmp_path / "reperes.pdf"
    assert main(["markers", "--game", "stay-alive", "--out", str(out)]) == 0
    lines = _pdf_lines(out.read_bytes())
    assert "id 0\u00a0: le coin supérieur gauche du plateau" in lines  # a no-break space before the colon
    lines = [line.replace("\u00a0", " ") for line in lines]
    assert any(line.startswith("Pièges : quatre repères ArUco (4X4_50), de 24 mm") for line in lines), lines
    assert any("à l'extérieur de la case du coin" in line and "1,5 pas" in line for line in lines), lines
    assert "cette barre mesure 50 mm une fois imprimée à la taille réelle" in lines
    monkeypatch.setenv("LANG", "C.UTF-8")
    assert main(["markers", "--game", "stay-alive", "--out", str(out)]) == 0
    assert "id 0: the top-left corner of the board" in _pdf_lines(out.read_bytes())


def test_the_png_draws_the_accents_french_needs():
    """OpenCV's font has ASCII only: `é` is drawn as `e` with its acute accent over it, `ç` with its cedilla."""
    from controller.commands.markers import put_words

    def drawn(text: str) -> np.ndarray:
        image = np.full((60, 60), 255, np.uint8)
        put_words(image, text, (10, 40), 1.0, 2)
        return image < 128

    bare, acute, grave, cedilla = drawn("e"), drawn("é"), drawn("è"), drawn("ç")
    assert (bare & ~acute).sum() == 0 and (acute & ~bare)[:22].sum() > 10  # the same e, ink added above it
    assert (acute ^ grave)[:22].sum() > 10  # the two accents lean each their way
    c = drawn("c")
    assert (cedilla & ~c)[41:].sum() > 3  # the cedilla under the baseline
    assert not (drawn("Pièges") == drawn("Pieges")).all()
