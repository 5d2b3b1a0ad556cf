"""Finding the centre of the piece standing in a place's cell, for the rule `centre`.

A place is described at its point and 0.1 pitch around it (`places.SHIFTS`): a piece a little
off its point is read so. A Go stone lies anywhere within about half a pitch of its intersection
(stones are placed by hand and pushed by their neighbours), and one 0.4 pitch off leaves half of
its point's disc on the bare board. Where the piece's own disc lies is measured on the picture:

* which pixels around the point show the piece is the caller's (`is_piece`: the rule asks the
  learned looks), each pixel's colour averaged over a between point's small disc, as the light
  was measured; of them, what that disc fits in and what they enclose (`whole_pieces`: not a grid
  line, but a black stone's highlight);
* the centre of the piece is the point deepest inside those pixels (the maximum of their
  distance transform): the centre of the largest disc that fits in it, which a grid line or a
  stone's rim never reaches and a disc on its point finds at its point;
* the piece stands in the place's cell when that deepest point is a maximum inside the cell,
  nearer the place's point than any other point by more than 0.1 pitch (`REACH`: the centre is
  known to a pixel or two and the corners a few pixels; a stone between two points belongs to
  neither), the place's disc fits wholly on it, and what shows the piece is one disc (`ONE_DISC`:
  not a stretch of board the looks confuse with the piece, nor touching pieces, whose outline
  does not tell which of them lies off its point). On a Go board a stone's centre lies within
  about half a pitch of its point: a stone whose centre lies in the cell is the place's.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import NamedTuple

import cv2
import numpy as np

from controller.vision.lattice.light import BETWEEN, PPP, to_px

#: pitches: how far from its point a piece's centre may lie and still belong to the place (half a
#: pitch, less the precision asked of the centre; see the module's docstring)
REACH = 0.5 - 0.05
#: how much larger than the largest disc inside it what shows a piece may be (its rim, blurred and
#: thresholded, is a pixel or so wider than that disc; a board or a row of pieces is far larger)
ONE_DISC = 1.5


def piece_centre(
    logimg: np.ndarray, point: np.ndarray, light: np.ndarray, is_piece: Callable[[np.ndarray], np.ndarray], disc: float
) -> np.ndarray | None:
    """(2,) the offset (x, y) in pitches from a place's `point` (board coordinates) to the centre of
    the piece standing in its cell, or None: `logimg` the rectified log image, `light` (3,) the log
    light at the place, `is_piece` which of (M, 3) log colours relative to that light show the
    piece, `disc` (pitches) the least disc that must fit on it."""
    found = _deepest_in_cell(logimg, point, light, is_piece, disc)
    if found is None:
        return None
    if max(abs(found.offset)) > REACH:
        return None
    return found.offset if _one_disc(found.mask, found.top, found.deepest) else None


def piece_beyond(
    logimg: np.ndarray, point: np.ndarray, light: np.ndarray, is_piece: Callable[[np.ndarray], np.ndarray], disc: float
) -> np.ndarray | None:
    """(2,) the offset (x, y) in pitches from a place's `point` to the centre of the piece showing
    in its cell where that centre lies beyond the cell (more than `REACH` from the point on an
    axis: a piece between two points, which belongs to neither, or a neighbour's), else None
    (arguments as `piece_centre`). The piece is the connected part of what shows it that holds
    the cell's deepest point, its centre that part's deepest point; not known (None) where no
    disc fits in the cell or that part is more than one disc (touching pieces, whose outline does
    not tell where each lies)."""
    found = _deepest_in_cell(logimg, point, light, is_piece, disc)
    if found is None:
        return None
    _, parts = cv2.connectedComponents(found.mask, connectivity=8)
    part = parts == parts[found.top]
    deepest = float(found.depth[part].max())
    centre = np.argwhere(part & (found.depth >= deepest - 0.5))
    if not _one_disc(found.mask, (int(centre[0][0]), int(centre[0][1])), deepest, parts):
        return None
    dy, dx = (centre.mean(axis=0) - found.own) / PPP
    return np.array([dx, dy]) if max(abs(dx), abs(dy)) > REACH else None


class Deepest(NamedTuple):
    """The deepest point inside what shows the piece within a place's cell (`_deepest_in_cell`)."""

    offset: np.ndarray  # (2,) (x, y) pitches from the place's point
    mask: np.ndarray  # (H, W) uint8: whole pieces in the window a pitch around the point
    depth: np.ndarray  # (H, W) their distance transform (pixels)
    top: tuple[int, int]  # (row, column) of that point in the window
    own: np.ndarray  # (2,) (row, column) of the place's own point in the window
    deepest: float  # its depth (pixels)


def _deepest_in_cell(
    logimg: np.ndarray, point: np.ndarray, light: np.ndarray, is_piece: Callable[[np.ndarray], np.ndarray], disc: float
) -> Deepest | None:
    """The deepest point inside what shows the piece within a place's cell (`Deepest`); None where
    the window a pitch around the point leaves the picture or no disc of `disc` pitches fits in
    the cell."""
    h, w = logimg.shape[:2]
    px, py = to_px(point[None])[0]
    cx, cy = int(round(px)), int(round(py))
    x0, x1, y0, y1 = max(cx - PPP, 0), min(cx + PPP + 1, w), max(cy - PPP, 0), min(cy + PPP + 1, h)
    if x1 - x0 < PPP or y1 - y0 < PPP:
        return None
    kernel, k = _smoothing()
    smooth = cv2.filter2D(logimg[y0:y1, x0:x1], -1, kernel, borderType=cv2.BORDER_REPLICATE)
    rel = smooth.reshape(-1, 3).astype(np.float64) - light
    mask = whole_pieces(is_piece(rel).reshape(y1 - y0, x1 - x0), k)
    padded = cv2.copyMakeBorder(mask, 1, 1, 1, 1, cv2.BORDER_CONSTANT, value=0)
    depth = cv2.distanceTransform(padded, cv2.DIST_L2, 5)[1:-1, 1:-1]
    half = PPP // 2
    ys, xs = slice(max(cy - half - y0, 0), cy + half + 1 - y0), slice(max(cx - half - x0, 0), cx + half + 1 - x0)
    cell = depth[ys, xs]
    deepest = float(cell.max()) if cell.size else 0.0
    if deepest < disc * PPP:
        return None
    top = np.argwhere(cell >= deepest - 0.5)  # the deepest pixels (a plateau's middle)
    dy, dx = top.mean(axis=0) + [ys.start + y0 - py, xs.start + x0 - px]
    iy, ix = top[0] + [ys.start, xs.start]
    return Deepest(np.array([dx, dy]) / PPP, mask, depth, (int(iy), int(ix)), np.array([py - y0, px - x0]), deepest)


@functools.cache
def _smoothing() -> tuple[np.ndarray, int]:
    """The normalised kernel of a between point's small disc (`BETWEEN`, as the light was
    measured) and its radius in pixels: the same for every place, made once."""
    radius = BETWEEN * PPP
    k = int(np.ceil(radius))
    yy, xx = np.mgrid[-k : k + 1, -k : k + 1]
    kernel = (np.hypot(xx, yy) <= radius).astype(np.float32)
    return kernel / kernel.sum(), k


def _one_disc(mask: np.ndarray, at: tuple[int, int], radius: float, parts: np.ndarray | None = None) -> bool:
    """Whether what shows the piece around `at` (row, column) is one disc: no larger than
    `ONE_DISC` times the largest disc inside it (of `radius` pixels); `parts`: the mask's
    connected parts, where already found."""
    if parts is None:
        _, parts = cv2.connectedComponents(mask, connectivity=8)
    return bool((parts == parts[at]).sum() <= ONE_DISC * np.pi * radius**2)


def whole_pieces(mask: np.ndarray, radius: int) -> np.ndarray:
    """(H, W) uint8: the pixels `mask` says show a piece, with the gaps a disc of `radius` pixels
    does not fit in closed (a highlight near a black stone's rim), then only what that disc fits
    in (a morphological opening: not a grid line of the piece's colour, nor a rim's thin crescent),
    then with what that encloses (a larger highlight, a reflection: the piece's own)."""
    disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * radius + 1, 2 * radius + 1))
    closed = cv2.morphologyEx(mask.astype(np.uint8), cv2.MORPH_CLOSE, disc)  # a highlight near the rim
    opened = cv2.morphologyEx(closed, cv2.MORPH_OPEN, disc)
    outside = cv2.copyMakeBorder(opened, 1, 1, 1, 1, cv2.BORDER_CONSTANT, value=0)
    flood = np.zeros((outside.shape[0] + 2, outside.shape[1] + 2), np.uint8)
    cv2.floodFill(outside, flood, (0, 0), 2)
    return (outside[1:-1, 1:-1] != 2).astype(np.uint8)
