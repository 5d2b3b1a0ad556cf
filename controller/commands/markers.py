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
import unicodedata
import zlib
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from controller.commands.render import profile_for
from controller.errors import RefereeError
from controller.games import registry
from controller.language import N_, Text, _, _n, listed, said
from controller.words import game_name

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
        raise RefereeError(
            _("unknown ArUco dictionary {name} in the profile's geometry.markers", name=repr(dictionary))
        )
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
            raise RefereeError(
                _("markers of {size} mm do not fit two to an A4 page; print them one by one", size=self.size_mm)
            )
        self.places = []
        for k in range(4):  # laid out as on the board: 0 top left, 1 top right, 2 bottom right, 3 bottom left
            col, row = ((0, 0), (1, 0), (1, 1), (0, 1))[k]
            x = MARGIN_MM + col * width / 2 + (width / 2 - self.size_mm) / 2
            y = MARGIN_MM + 30.0 + row * (box + 10.0)
            self.places.append((x, y))
        self.bar_y = MARGIN_MM + 30.0 + 2 * (box + 10.0)

    def label(self, k: int) -> Text:
        return Text(CORNER_LABELS[k], {"id": str(self.ids[k])})

    def instructions(self, game_title: Any) -> list[Text]:
        away = _n("{n} pitch ({mm} mm)", "{n} pitches ({mm} mm)", int(self.offset), mm=_mm(self.offset * self.pitch_mm))
        if self.offset != int(self.offset):  # a fraction of a pitch is plural in both languages
            away = _("{pitches} pitches ({mm} mm)", pitches=_mm(self.offset), mm=_mm(self.offset * self.pitch_mm))
        return [
            _(
                "{game}: four ArUco markers ({dictionary}), each {size} mm wide. Print at 100 % (actual size).",
                game=game_title,
                dictionary=self.dictionary,
                size=_mm(self.size_mm),
            ),
            _(
                "Stick each at its corner, upright, its centre {away} outside the corner place along both edges.",
                away=away,
            ),
        ]


def _mm(value: float) -> Any:
    """A length as `:g` wrote it (20, 1.5), in the language's way of writing numbers (1,5 in French)."""
    return int(value) if float(value).is_integer() else round(float(value), 3)


#: Each marker's label on the sheet, by its corner (0 top left, then clockwise, as `CORNERS`).
CORNER_LABELS = (
    N_("id {id}: the top-left corner of the board"),
    N_("id {id}: the top-right corner of the board"),
    N_("id {id}: the bottom-right corner of the board"),
    N_("id {id}: the bottom-left corner of the board"),
)
#: The corners' words in the command's last line (`ids 0 top-left, 1 top-right, ...`).
CORNER_WORDS = (N_("top-left"), N_("top-right"), N_("bottom-right"), N_("bottom-left"))


def check_bar_words() -> Text:
    return _("this bar is {mm} mm long when printed at size", mm=_mm(CHECK_BAR_MM))


def pdf_text(words: str) -> bytes:
    """A line for the PDF's standard font in WinAnsiEncoding (Windows-1252, which the PDF's standard
    fonts cover: every letter French writes, é è à ç ô œ « »): a narrow no-break space becomes a
    no-break space, anything else the encoding lacks a `?`; PDF's string delimiters escaped."""
    words = words.replace("\u202f", "\u00a0")
    data = words.encode("cp1252", "replace")
    return data.replace(b"\\", b"\\\\").replace(b"(", b"\\(").replace(b")", b"\\)")


def write_pdf(sheet: Sheet, path: Path, title: Any, language: str | None = None) -> None:
    """A one-page A4 PDF drawn with vectors (PDF 1.4, Helvetica, no image): exact at any resolution.

    Helvetica is one of the PDF's standard fonts, which every reader and printer provides with the
    Latin letters of Windows-1252 when the font says `/Encoding /WinAnsiEncoding` (without it a
    reader takes Adobe's StandardEncoding, which has no accented letter: French printed wrong)."""
    page_w, page_h = (v * POINTS_PER_MM for v in PAGE_MM)

    def pt(x_mm: float, y_mm: float) -> tuple[float, float]:  # PDF's origin is the bottom left
        return x_mm * POINTS_PER_MM, page_h - y_mm * POINTS_PER_MM

    def text(x_mm: float, y_mm: float, size: float, words: Any) -> bytes:
        x, y = pt(x_mm, y_mm)
        return b"BT /F1 %s Tf %.2f %.2f Td (%s) Tj ET" % (f"{size:g}".encode(), x, y, pdf_text(said(words, language)))

    ops: list[bytes | str] = ["0 g"]
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
    ops.append(text(MARGIN_MM, sheet.bar_y + 7, 9, check_bar_words()))
    content = b"\n".join(op if isinstance(op, bytes) else op.encode("ascii") for op in ops)
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {page_w:.2f} {page_h:.2f}] "
        "/Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>".encode(),
        b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
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


def sheet_image(sheet: Sheet, dpi: int, title: Any, language: str | None = None) -> np.ndarray:
    """The page as a grey image at `dpi` (white paper, black cells, labels)."""
    px = dpi / 25.4
    image = np.full((round(PAGE_MM[1] * px), round(PAGE_MM[0] * px)), 255, np.uint8)
    scale = dpi / 300.0
    for i, line in enumerate(sheet.instructions(title)):
        org = (round(MARGIN_MM * px), round((MARGIN_MM + 6 + 6 * i) * px))
        put_words(image, said(line, language), org, 0.75 * scale, max(1, round(scale)))
    for k, (x0, y0) in enumerate(sheet.places):
        cells = sheet.cells[k]
        cell = sheet.size_mm / cells.shape[0]
        for r, c in zip(*np.nonzero(cells)):
            x1, y1 = round((x0 + c * cell) * px), round((y0 + r * cell) * px)
            x2, y2 = round((x0 + (c + 1) * cell) * px), round((y0 + (r + 1) * cell) * px)
            image[y1:y2, x1:x2] = 0
        org = (round(x0 * px), round((y0 + sheet.size_mm + QUIET_CELLS * cell + 6) * px))
        put_words(image, said(sheet.label(k), language), org, 0.75 * scale, max(1, round(scale)))
    y = round(sheet.bar_y * px)
    image[y : y + round(2 * px), round(MARGIN_MM * px) : round((MARGIN_MM + CHECK_BAR_MM) * px)] = 0
    org = (round(MARGIN_MM * px), round((sheet.bar_y + 7) * px))
    put_words(image, said(check_bar_words(), language), org, 0.75 * scale, max(1, round(scale)))
    return image


#: Letters OpenCV's Hershey font lacks, written with the ones it has.
_SPELLED = {"œ": "oe", "Œ": "OE", "æ": "ae", "Æ": "AE", "«": "<<", "»": ">>", "’": "'", "‘": "'", "–": "-", "—": "-"}
_SPACES = {"\u00a0", "\u202f", "\u2009"}


def put_words(image: np.ndarray, text: str, org: tuple[int, int], font_scale: float, thickness: int) -> None:
    """`cv2.putText` with the accents French needs: OpenCV's Hershey font has ASCII only, so each
    letter is drawn bare and its accent (acute, grave, circumflex, diaeresis, cedilla) drawn over or
    under it with lines."""
    font = cv2.FONT_HERSHEY_SIMPLEX
    x, baseline = org
    for char in text:
        char = " " if char in _SPACES else _SPELLED.get(char, char)
        parts = unicodedata.normalize("NFD", char)
        bare = "".join(c for c in parts if not unicodedata.combining(c))
        bare = bare if bare.isascii() else "?"
        (width, height), _below = cv2.getTextSize(bare, font, font_scale, thickness)
        cv2.putText(image, bare, (x, baseline), font, font_scale, 0, thickness, cv2.LINE_AA)
        marks = [c for c in parts if unicodedata.combining(c)]
        if marks:
            inked = _ink_height(bare, font, font_scale, thickness, height)
            for mark in marks:
                _accent(image, mark, x, baseline, width, inked, thickness)
        x += width


def _ink_height(letter: str, font: int, font_scale: float, thickness: int, height: int) -> int:
    """How far above the baseline the letter's ink reaches (an `e` is lower than an `E`): where its accent goes."""
    scratch = np.zeros((3 * height + 4, 3 * height + 4), np.uint8)
    baseline = 2 * height + 2
    cv2.putText(scratch, letter, (1, baseline), font, font_scale, 255, thickness, cv2.LINE_AA)
    rows = np.flatnonzero(scratch[:baseline].max(axis=1) > 127)
    return int(baseline - rows[0]) if len(rows) else height


def _accent(image: np.ndarray, mark: str, x: int, baseline: int, width: int, height: int, thickness: int) -> None:
    """One combining mark over (or, a cedilla, under) the letter drawn at `x` whose box is `width` x `height`."""
    middle, size = x + width / 2, max(2.0, width * 0.3)
    top = baseline - height - max(2.0, thickness * 1.5)

    def line(x1: float, y1: float, x2: float, y2: float) -> None:
        cv2.line(image, (round(x1), round(y1)), (round(x2), round(y2)), 0, thickness, cv2.LINE_AA)

    if mark == "\u0301":  # acute: é
        line(middle - size * 0.5, top, middle + size * 0.5, top - size)
    elif mark == "\u0300":  # grave: è à ù
        line(middle - size * 0.5, top - size, middle + size * 0.5, top)
    elif mark == "\u0302":  # circumflex: ê ô î
        line(middle - size * 0.6, top, middle, top - size * 0.8)
        line(middle, top - size * 0.8, middle + size * 0.6, top)
    elif mark == "\u0308":  # diaeresis: ë ï
        for dx in (-size * 0.5, size * 0.5):
            cv2.circle(image, (round(middle + dx), round(top - size * 0.3)), max(1, thickness), 0, -1, cv2.LINE_AA)
    elif mark == "\u0327":  # cedilla: ç
        line(middle, baseline, middle, baseline + size * 0.6)
        line(middle, baseline + size * 0.6, middle - size * 0.5, baseline + size * 1.1)


def write_png(image: np.ndarray, dpi: int, path: Path) -> None:
    """A PNG whose pHYs chunk states `dpi`, so it prints at size."""
    ok, data = cv2.imencode(".png", image)
    if not ok:
        raise RefereeError(_("the markers could not be drawn as PNG"))
    png = data.tobytes()
    per_metre = round(dpi / 0.0254)
    body = b"pHYs" + struct.pack(">IIB", per_metre, per_metre, 1)
    chunk = struct.pack(">I", 9) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)
    end_of_header = 8 + 8 + 13 + 4  # signature, IHDR's length and type, its 13 bytes, its CRC
    path.write_bytes(png[:end_of_header] + chunk + png[end_of_header:])


def run(args: argparse.Namespace) -> int:

    language = getattr(args, "command_language", None)
    out = Path(args.out)
    kind = out.suffix.lower()
    if kind not in (".pdf", ".png"):
        raise RefereeError(_("--out: write a .pdf or a .png file, not {name}", name=repr(out.name)))
    if not out.parent.is_dir():
        raise RefereeError(_("--out: the folder {folder} does not exist", folder=str(out.parent)))
    if not 72 <= args.dpi <= 2400:
        raise RefereeError(_("--dpi: expected 72 to 2400 dots per inch, got {dpi}", dpi=str(args.dpi)))
    profile = profile_for(args.game, args.profile)
    sheet = Sheet(profile)
    title = game_name(args.game)
    if kind == ".pdf":
        write_pdf(sheet, out, title, language)
    else:
        write_png(sheet_image(sheet, args.dpi, title, language), args.dpi, out)
    ids = listed(
        [_("{id} {corner}", id=str(i), corner=Text(corner)) for i, corner in zip(sheet.ids, CORNER_WORDS)], None
    )
    if kind == ".png":
        wrote = _(
            "Wrote {file} at {dpi} dpi: four {dictionary} markers of {size} mm (ids {ids}).",
            file=str(out),
            dpi=str(args.dpi),
            dictionary=sheet.dictionary,
            size=_mm(sheet.size_mm),
            ids=ids,
        )
    else:
        wrote = _(
            "Wrote {file}: four {dictionary} markers of {size} mm (ids {ids}).",
            file=str(out),
            dictionary=sheet.dictionary,
            size=_mm(sheet.size_mm),
            ids=ids,
        )
    print(said(wrote, language))
    print(said(_("Print at 100 % (actual size) and check the 50 mm bar with a ruler."), language))
    return 0
