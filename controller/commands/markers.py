"""`referee markers --game G --out markers.pdf`: the game's four ArUco markers, printable at their size.

`docs/rig.md`: four markers of the profile's dictionary (4X4_50, ids 0-3) stuck on the board's frame,
each `size` pitches wide with its centre `offset` pitches outside the nearest corner place along both
axes. Their size in millimetres is the profile's `pitch_mm` times `size` (Colorpop 20 mm, Blockers!
28 mm, Flipop 40 mm, Stay Alive 24 mm with the default profiles; `--profile` for your copy's).

A PDF is drawn with vectors (each black cell a filled square, exact at any printer's resolution) on an
A4 page, with a 50 mm bar to check that the printer did not scale it; a PNG is drawn at `--dpi` dots
per inch (stated in the file, so a printer that honours it prints it at size). Print at 100 % ("actual
size"), never "fit to page".
"""

from __future__ import annotations

import argparse
import struct
import zlib
from pathlib import Path

import cv2
import numpy as np

from controller.commands.render import profile_for
from controller.errors import RefereeError
from controller.games import registry

#: The page (A4, in millimetres) and its margin.
PAGE_MM = (210.0, 297.0)
MARGIN_MM = 15.0
#: White around each marker, in cells (ArUco needs a quiet zone to find the black border).
QUIET_CELLS = 1.0
CHECK_BAR_MM = 50.0
POINTS_PER_MM = 72.0 / 25.4
CORNERS = ("top-left", "top-right", "bottom-right", "bottom-left")


def register(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    parser = subparsers.add_parser(
        "markers",
        help="write the game's four ArUco markers to print (PDF or PNG), at the size the board needs",
        description="Write the four ArUco markers of a game's board (docs/rig.md) to a PDF or PNG to print at "
        "100 %% (actual size): each as wide as the profile says (pitch_mm x size), labelled with its id and the "
        "corner of the board it goes on, with a 50 mm bar to check the print's scale.",
    )
    parser.add_argument(
        "--game", required=True, choices=registry.names(), help="the game whose board the markers are for"
    )
    parser.add_argument("--out", required=True, help="the file to write: a name ending in .pdf or .png")
    parser.add_argument("--profile", help="your copy's board profile (default: the game's default profile)")
    parser.add_argument("--dpi", type=int, default=600, help="dots per inch of a PNG (default 600)")
    return parser


def marker_cells(dictionary: str, marker_id: int) -> np.ndarray:
    """The marker's cells, black border included, as a boolean array (True: black)."""
    name = f"DICT_{dictionary.upper()}"
    if not hasattr(cv2.aruco, name):
        raise RefereeError(f"unknown ArUco dictionary {dictionary!r} in the profile's geometry.markers")
    aruco = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, name))
    cells = aruco.markerSize + 2
    image = cv2.aruco.generateImageMarker(aruco, marker_id, cells, borderBits=1)
    return image < 128


class Sheet:
    """The four markers laid out on a page: positions and sizes in millimetres from the top left."""

    def __init__(self, profile) -> None:
        markers = profile.markers
        self.dictionary = str(markers.get("dictionary", "4X4_50"))
        self.ids = [int(i) for i in markers.get("ids", [0, 1, 2, 3])]
        self.size_mm = float(profile.geometry["pitch_mm"]) * float(markers.get("size", 1.0))
        self.offset = float(markers.get("offset", 1.5))
        self.pitch_mm = float(profile.geometry["pitch_mm"])
        self.cells = [marker_cells(self.dictionary, i) for i in self.ids]
        cell_mm = self.size_mm / self.cells[0].shape[0]
        box = self.size_mm + 2 * QUIET_CELLS * cell_mm + 14.0  # the marker, its quiet zone, its label
        width = PAGE_MM[0] - 2 * MARGIN_MM
        if 2 * box > width:
            raise RefereeError(f"markers of {self.size_mm:g} mm do not fit two to an A4 page; print them one by one")
        self.places = []
        for k in range(4):  # laid out as on the board: 0 top left, 1 top right, 2 bottom right, 3 bottom left
            col, row = ((0, 0), (1, 0), (1, 1), (0, 1))[k]
            x = MARGIN_MM + col * width / 2 + (width / 2 - self.size_mm) / 2
            y = MARGIN_MM + 30.0 + row * (box + 10.0)
            self.places.append((x, y))
        self.bar_y = MARGIN_MM + 30.0 + 2 * (box + 10.0)

    def label(self, k: int) -> str:
        return f"id {self.ids[k]}: the {CORNERS[k]} corner of the board"

    def instructions(self, game_title: str) -> list[str]:
        away = f"{self.offset:g} pitches ({self.offset * self.pitch_mm:g} mm)"
        return [
            f"{game_title}: four ArUco markers ({self.dictionary}), each {self.size_mm:g} mm wide. "
            "Print at 100 % (actual size).",
            f"Stick each at its corner, upright, its centre {away} outside the corner place along both edges.",
        ]


def write_pdf(sheet: Sheet, path: Path, title: str) -> None:
    """A one-page A4 PDF drawn with vectors (PDF 1.4, Helvetica, no image): exact at any resolution."""
    page_w, page_h = (v * POINTS_PER_MM for v in PAGE_MM)

    def pt(x_mm: float, y_mm: float) -> tuple[float, float]:  # PDF's origin is the bottom left
        return x_mm * POINTS_PER_MM, page_h - y_mm * POINTS_PER_MM

    def text(x_mm: float, y_mm: float, size: float, words: str) -> str:
        x, y = pt(x_mm, y_mm)
        safe = words.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
        return f"BT /F1 {size:g} Tf {x:.2f} {y:.2f} Td ({safe}) Tj ET"

    ops = ["0 g"]
    for i, line in enumerate(sheet.instructions(title)):
        ops.append(text(MARGIN_MM, MARGIN_MM + 6 + 6 * i, 9, line))
    for k, (x0, y0) in enumerate(sheet.places):
        cells = sheet.cells[k]
        cell = sheet.size_mm / cells.shape[0]
        for r, c in zip(*np.nonzero(cells)):
            x, y = pt(x0 + c * cell, y0 + (r + 1) * cell)
            ops.append(f"{x:.3f} {y:.3f} {cell * POINTS_PER_MM:.3f} {cell * POINTS_PER_MM:.3f} re f")
        ops.append(text(x0, y0 + sheet.size_mm + QUIET_CELLS * cell + 6, 9, sheet.label(k)))
    bx, by = pt(MARGIN_MM, sheet.bar_y)
    ops.append(f"{bx:.3f} {by:.3f} {CHECK_BAR_MM * POINTS_PER_MM:.3f} {2 * POINTS_PER_MM:.3f} re f")
    ops.append(text(MARGIN_MM, sheet.bar_y + 7, 9, f"this bar is {CHECK_BAR_MM:g} mm long when printed at size"))
    content = "\n".join(ops).encode("latin-1", "replace")
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {page_w:.2f} {page_h:.2f}] "
        "/Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>".encode(),
        b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    path.write_bytes(bytes(out))


def sheet_image(sheet: Sheet, dpi: int, title: str) -> np.ndarray:
    """The page as a grey image at `dpi` (white paper, black cells, labels)."""
    px = dpi / 25.4
    image = np.full((round(PAGE_MM[1] * px), round(PAGE_MM[0] * px)), 255, np.uint8)
    scale = dpi / 300.0
    for i, line in enumerate(sheet.instructions(title)):
        org = (round(MARGIN_MM * px), round((MARGIN_MM + 6 + 6 * i) * px))
        cv2.putText(image, line, org, cv2.FONT_HERSHEY_SIMPLEX, 0.75 * scale, 0, max(1, round(scale)), cv2.LINE_AA)
    for k, (x0, y0) in enumerate(sheet.places):
        cells = sheet.cells[k]
        cell = sheet.size_mm / cells.shape[0]
        for r, c in zip(*np.nonzero(cells)):
            x1, y1 = round((x0 + c * cell) * px), round((y0 + r * cell) * px)
            x2, y2 = round((x0 + (c + 1) * cell) * px), round((y0 + (r + 1) * cell) * px)
            image[y1:y2, x1:x2] = 0
        org = (round(x0 * px), round((y0 + sheet.size_mm + QUIET_CELLS * cell + 6) * px))
        cv2.putText(image, sheet.label(k), org, cv2.FONT_HERSHEY_SIMPLEX, 0.75 * scale, 0, max(1, round(scale)))
    y = round(sheet.bar_y * px)
    image[y : y + round(2 * px), round(MARGIN_MM * px) : round((MARGIN_MM + CHECK_BAR_MM) * px)] = 0
    org = (round(MARGIN_MM * px), round((sheet.bar_y + 7) * px))
    said = f"this bar is {CHECK_BAR_MM:g} mm long when printed at size"
    cv2.putText(image, said, org, cv2.FONT_HERSHEY_SIMPLEX, 0.75 * scale, 0, max(1, round(scale)), cv2.LINE_AA)
    return image


def write_png(image: np.ndarray, dpi: int, path: Path) -> None:
    """A PNG whose pHYs chunk states `dpi`, so it prints at size."""
    ok, data = cv2.imencode(".png", image)
    if not ok:
        raise RefereeError("the markers could not be drawn as PNG")
    png = data.tobytes()
    per_metre = round(dpi / 0.0254)
    body = b"pHYs" + struct.pack(">IIB", per_metre, per_metre, 1)
    chunk = struct.pack(">I", 9) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)
    end_of_header = 8 + 8 + 13 + 4  # signature, IHDR's length and type, its 13 bytes, its CRC
    path.write_bytes(png[:end_of_header] + chunk + png[end_of_header:])


def run(args: argparse.Namespace) -> int:

    out = Path(args.out)
    kind = out.suffix.lower()
    if kind not in (".pdf", ".png"):
        raise RefereeError(f"--out: write a .pdf or a .png file, not {out.name!r}")
    if not out.parent.is_dir():
        raise RefereeError(f"--out: the folder {out.parent} does not exist")
    if not 72 <= args.dpi <= 2400:
        raise RefereeError(f"--dpi: expected 72 to 2400 dots per inch, got {args.dpi}")
    profile = profile_for(args.game, args.profile)
    sheet = Sheet(profile)
    title = registry.get(args.game).title
    if kind == ".pdf":
        write_pdf(sheet, out, title)
    else:
        write_png(sheet_image(sheet, args.dpi, title), args.dpi, out)
    ids = ", ".join(f"{i} {corner}" for i, corner in zip(sheet.ids, CORNERS))
    at = f" at {args.dpi} dpi" if kind == ".png" else ""
    print(f"Wrote {out}{at}: four {sheet.dictionary} markers of {sheet.size_mm:g} mm (ids {ids}).")
    print("Print at 100 % (actual size) and check the 50 mm bar with a ruler.")
    return 0
