"""The outlines of the digits and capital letters the renderer prints on Blockers! tiles, as data.

Why: the renderer once drew them with `cv2.putText`, whose typefaces differ between OpenCV
releases (5.x draws FONT_HERSHEY_DUPLEX as a filled sans, 4.x as Hershey strokes). The Raspberry Pi
runs OpenCV 4.11 (the newest that accepts the OS's numpy 1.24, docs/pi.md), the development
machine 5.x: the same simulated board then showed other letters than the reader's templates, and
`referee demo` misjudged every Blockers! game on a Pi. Filled outlines draw the same with every
OpenCV. `letters.npz` holds them, traced once from OpenCV 5's drawing (the look the templates were
made with); `python -m simulation.letters` traces them again (OpenCV 5 needed).
"""

from __future__ import annotations

import functools
import sys
from pathlib import Path

import cv2
import numpy as np

#: Stroke width of letters, digits and line symbols, in glyph half-heights (the renderer draws with it too).
STROKE = 0.27

LETTERS = "123456789ABCDEFGHI"
FILE = Path(__file__).resolve().parent / "letters.npz"
#: Half the cap height, in pixels, at which the outlines are traced (the renderer draws at most ~100).
TRACE_G = 400.0
#: Fixed-point bits of the drawn outlines (1/16 pixel).
SHIFT = 4


@functools.lru_cache(maxsize=1)
def outlines() -> dict[str, list[np.ndarray]]:
    """Each letter's closed contours, in half cap heights from the drawing's centre (x right, y down)."""
    data = np.load(FILE)
    out = {}
    for letter in LETTERS:
        points, ends = data[f"{letter}_points"], data[f"{letter}_ends"]
        out[letter] = [points[a:b] for a, b in zip(np.r_[0, ends[:-1]], ends, strict=True)]
    return out


def draw(img: np.ndarray, letter: str, g: float) -> None:
    """Fill `letter` into `img` (white on black), cap height 2g, centred as the renderer places it."""
    c = img.shape[0] / 2
    # fillPoly's coordinates are pixel indices (a pixel's centre is its index), in 1/16 pixels
    contours = [np.round((c + contour * g - 0.5) * (1 << SHIFT)).astype(np.int32) for contour in outlines()[letter]]
    cv2.fillPoly(img, contours, 255, cv2.LINE_8, SHIFT)


def _put_text(img: np.ndarray, text: str, g: float, stroke: float) -> None:
    """The renderer's former drawing: cv2.putText centred on its text box, cap height 2g."""
    t = max(1, int(round(stroke * g)))
    font = cv2.FONT_HERSHEY_DUPLEX
    (_, th), _ = cv2.getTextSize(text, font, 1.0, t)
    scale = 2 * g / th
    (tw, th), _ = cv2.getTextSize(text, font, scale, t)
    c = img.shape[0] / 2
    org = (int(round(c - tw / 2)), int(round(c + th / 2)))
    cv2.putText(img, text, org, font, scale, 255, t, cv2.LINE_AA)


def trace(stroke: float) -> dict[str, np.ndarray]:
    """Trace every letter from OpenCV's putText at TRACE_G (arrays for letters.npz)."""
    side = int(8 * TRACE_G)
    out = {}
    for letter in LETTERS:
        img = np.zeros((side, side), np.uint8)
        _put_text(img, letter, TRACE_G, stroke)
        contours, _ = cv2.findContours((img >= 128).astype(np.uint8), cv2.RETR_CCOMP, cv2.CHAIN_APPROX_NONE)
        # pixel centres, then simplified to a quarter pixel at this size (1/1600 of the cap height)
        simple = [cv2.approxPolyDP(k, 0.25, True)[:, 0, :].astype(np.float64) for k in contours]
        normalised = [((k + 0.5) - side / 2) / TRACE_G for k in simple]
        out[f"{letter}_points"] = np.concatenate(normalised).astype(np.float32)
        out[f"{letter}_ends"] = np.cumsum([len(k) for k in normalised]).astype(np.int32)
    return out


def main() -> int:
    if int(cv2.__version__.split(".")[0]) < 5:
        print(f"letters.npz is traced from OpenCV 5's typeface; this is OpenCV {cv2.__version__}", file=sys.stderr)
        return 2
    # allow_pickle named (its default): NumPy's stubs would have a stroke named so fill it
    np.savez_compressed(FILE, allow_pickle=True, **trace(STROKE))
    print(f"wrote {FILE} ({FILE.stat().st_size} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
