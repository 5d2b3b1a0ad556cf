"""Aim advice: from one camera picture, say in words what to change before calibrating or playing.

Pure (a picture and the board's geometry in, sentences and figures out), so the live page
(`GET /api/aim`), `referee aim` and the tests give the same advice. It is computed only when asked,
never per frame.

What it checks, in the order a person fixes things:

1. **Markers and framing.** The four ArUco markers are looked for with the reader's own detector.
   From the markers found a homography places the whole board (lattice, markers and their paper)
   in the picture; a part lying outside the picture, or markers missing on one side, says which
   way to move the camera ("move the camera left": the board leaves the picture on the left).
2. **Light.** On the board area only (the table around it does not matter): its mean grey and the
   fraction of it clipped to black or white: "too dark" / "too bright".
3. **Focus.** The variance of the Laplacian on the markers, compared with the variance the very
   same markers would give if their edges were blurred by `SHARP_SIGMA` pixels. The markers are the
   one part of the board whose pattern is known (the dictionary draws it), so the edge length
   inside them is known, and their ink/paper contrast is measured in the picture: for a step edge of
   contrast C blurred by a Gaussian of sigma s, the integral of the squared Laplacian across the edge
   is C^2 / (4 sqrt(pi) s^3), so the expected variance is edge length x that / area. Content, lighting
   and contrast thus cancel out; what is left is the blur. The board-area variance is reported too.
4. **Glare.** Clipped white spots over places: a place is named when at least `GLARE_SHARE` of its
   disc is clipped, by row in the game's notation when the place names show one.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

import cv2
import numpy as np

from controller.language import Text, _, _n, listed, literal
from controller.vision.geometry import (
    DICTIONARIES,
    LatticeGeometry,
    MarkerLocaliser,
    homography_from_corners,
    project,
)

#: Grey levels counted as clipped white / crushed black (8-bit).
CLIPPED_WHITE = 250
CRUSHED_BLACK = 5
#: Too dark: the board area's mean grey below `DARK_MEAN`, or its brightest part (99th percentile: the
#: marker paper, about 200 when sensibly exposed) below `DARK_WHITE`, under 40% of full scale, where
#: the colours' differences sink into the sensor's noise. The mean alone would call a dark board dark.
DARK_MEAN = 40.0
DARK_WHITE = 100.0
#: Fraction of the board area crushed to black (or clipped to white) that makes it too dark (bright).
TOO_MANY_CLIPPED = 0.20
#: Blur (Gaussian sigma, pixels) up to which the picture counts as in focus: a glyph stroke or a
#: door edge is 3-4 pixels wide at the rig's 1280x720, and a blur of 2 px merges it into its
#: neighbours. The estimate reads low once blur reaches the marker's bit cells (neighbouring edges'
#: responses cancel: an added blur of 2 px is estimated at 1.6-1.9), so the limit is set at 1.5;
#: the renderer's presets (0.6 and 1.3 px of blur) are estimated at 0.7-0.9.
SHARP_SIGMA = 1.5
#: Share of a place's disc (radius `PLACE_RADIUS` pitches) clipped white that counts as glare on it:
#: the reader gives a place up when a third of it is unusable; the advice warns at a tenth, before.
GLARE_SHARE = 0.10
PLACE_RADIUS = 0.35
#: Pixels per pitch below which the board is too small in the picture to be read well.
MIN_PITCH_PX = 14.0
#: Rectified pixels per pitch used for the per-place glare measure.
PPP = 16

CORNER_NAMES = ("top-left", "top-right", "bottom-right", "bottom-left")
GOOD = _("markers found, board fully in view")
CORNERS_GOOD = _("board placed by its saved corners (a copy without markers), fully in view")


def corner_words(name: str) -> Text:
    """A corner's name (`CORNER_NAMES`) in people's words: `top-left` (`en haut à gauche`)."""
    words = {
        "top-left": _("top-left"),
        "top-right": _("top-right"),
        "bottom-right": _("bottom-right"),
        "bottom-left": _("bottom-left"),
    }
    return words.get(name) or literal(name)


@dataclass
class AimAdvice:
    """The advice for one picture: sentences (the first is the most urgent) and the figures behind them."""

    lines: list[Text]
    ok: bool
    markers_found: list[str] = field(default_factory=list)
    markers_missing: list[str] = field(default_factory=list)
    in_view: bool = False
    #: Board-to-image homography from the markers found (None: too few markers).
    homography: np.ndarray | None = None
    measures: dict[str, float] = field(default_factory=dict)
    glare_places: list[tuple[int, int]] = field(default_factory=list)
    #: Each marker's four image corners as detected (corner name -> (4, 2) pixels).
    marker_quads: dict[str, np.ndarray] = field(default_factory=dict)
    #: The picture's (width, height).
    size: tuple[int, int] = (0, 0)
    #: Where the homography came from: "markers", "corners" (fixed ones, a copy without markers) or None.
    placed_by: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "lines": list(self.lines),
            "markers_found": list(self.markers_found),
            "markers_missing": list(self.markers_missing),
            "in_view": self.in_view,
            "measures": {k: round(float(v), 3) for k, v in self.measures.items()},
            "glare_places": [list(c) for c in self.glare_places],
        }

    def drawing(self, geom: LatticeGeometry) -> dict[str, Any]:
        """What a page draws over the picture, in the picture's pixels: each marker's outline (as found,
        else where the homography puts it), the homography itself (the page projects the lattice with it)
        and the lattice's corner points."""
        expected = (
            project(self.homography, geom.marker_corners().reshape(-1, 2)).reshape(4, 4, 2)
            if self.homography is not None
            else None
        )
        markers = []
        for k, name in enumerate(CORNER_NAMES):
            quad = self.marker_quads.get(name)
            if quad is None and expected is not None and self.placed_by == "markers":
                quad = expected[k]
            markers.append(
                {
                    "corner": name,
                    "found": name in self.marker_quads,
                    "quad": None if quad is None else np.round(quad, 1).tolist(),
                }
            )
        h = self.homography
        return {
            "size": list(self.size),
            "rows": geom.rows,
            "cols": geom.cols,
            "markers": markers,
            "placed_by": self.placed_by,
            "homography": None if h is None else (h / h[2, 2]).tolist(),
            "lattice_corners": None if h is None else np.round(project(h, geom.corner_points()), 1).tolist(),
        }


def _find_markers(geom: LatticeGeometry, gray: np.ndarray) -> dict[int, np.ndarray]:
    """Every board marker the reader's detector passes find: id -> its 4 image corners."""
    localiser = MarkerLocaliser(geom, min_markers=1)
    found: dict[int, np.ndarray] = {}
    for detector in localiser.detectors:
        corners, ids, _ = detector.detectMarkers(gray)
        for c, i in zip(corners, ids.ravel() if ids is not None else []):
            if int(i) in geom.marker_ids and int(i) not in found:
                found[int(i)] = c.reshape(4, 2).astype(np.float64)
        if len(found) == 4:
            break
    return found


def _homography(geom: LatticeGeometry, found: dict[int, np.ndarray]) -> np.ndarray | None:
    board_corners = geom.marker_corners()
    src, dst = [], []
    for k, mid in enumerate(geom.marker_ids):
        if mid in found:
            src.append(board_corners[k])
            dst.append(found[mid])
    if not src:
        return None
    h, _ = cv2.findHomography(np.concatenate(src), np.concatenate(dst), 0)
    return h


def _board_outline(geom: LatticeGeometry) -> np.ndarray:
    """The board's outer corners (markers and their paper included), TL TR BR BL, in pitches."""
    m = geom.marker_offset + geom.marker_size * 0.68
    x0, y0, x1, y1 = geom.extent(m)
    return np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float64)


def _moves(outline_px: np.ndarray, width: int, height: int, missing_sides: set[str]) -> list[Text]:
    """Which way to move the camera so the outline comes into the picture."""
    pad = 2.0
    sides = set(missing_sides)
    if (outline_px[:, 0] < pad).any():
        sides.add("left")
    if (outline_px[:, 0] > width - 1 - pad).any():
        sides.add("right")
    if (outline_px[:, 1] < pad).any():
        sides.add("up")
    if (outline_px[:, 1] > height - 1 - pad).any():
        sides.add("down")
    out = []
    if {"left", "right"} <= sides or {"up", "down"} <= sides:
        out.append(_("the board is larger than the picture: move the camera further away (or zoom out)"))
        sides -= {"left", "right"} if {"left", "right"} <= sides else {"up", "down"}
    moves = {
        "left": _("move the camera left"),
        "right": _("move the camera right"),
        "up": _("move the camera up"),
        "down": _("move the camera down"),
    }
    for side in ("left", "right", "up", "down"):
        if side in sides:
            out.append(moves[side])
    return out


def _missing_sides(missing: list[int]) -> set[str]:
    """Sides of the board whose markers are both missing (0 TL, 1 TR, 2 BR, 3 BL)."""
    sides = set()
    for side, pair in (("left", {0, 3}), ("right", {1, 2}), ("up", {0, 1}), ("down", {2, 3})):
        if pair <= set(missing):
            sides.add(side)
    return sides


def _marker_pattern(geom: LatticeGeometry, mid: int, cells: int) -> tuple[np.ndarray, float]:
    """The marker as drawn (1 = paper) at `cells` pixels a side, and its edge length in marker sides."""
    dictionary = cv2.aruco.getPredefinedDictionary(DICTIONARIES[geom.dictionary])
    image = cv2.aruco.generateImageMarker(dictionary, int(mid), cells)
    bits = (image > 127).astype(np.int8)
    padded = np.pad(bits, 1, constant_values=1)  # the paper around the marker
    edges = np.abs(np.diff(padded, axis=0)).sum() + np.abs(np.diff(padded, axis=1)).sum()
    return bits, float(edges) / cells


def _focus(geom: LatticeGeometry, gray: np.ndarray, h: np.ndarray, ids: list[int]) -> tuple[float, float] | None:
    """(blur sigma in pixels estimated on the markers, their Laplacian variance); None without markers."""
    lap = cv2.Laplacian(gray.astype(np.float32), cv2.CV_32F)
    sigmas, variances = [], []
    board_corners = geom.marker_corners()
    for k, mid in enumerate(geom.marker_ids):
        if mid not in ids:
            continue
        quad = project(h, board_corners[k])
        side_px = float(np.mean([np.linalg.norm(quad[(i + 1) % 4] - quad[i]) for i in range(4)]))
        if side_px < 12:
            continue
        # The marker's square plus a thin paper band: every edge of the pattern, with both its sides.
        pad = 0.08 * geom.marker_size
        centre = geom.marker_centres()[k]
        s = geom.marker_size / 2 + pad
        box = project(h, centre + np.array([[-s, -s], [s, -s], [s, s], [-s, s]]))
        mask = np.zeros(gray.shape, np.uint8)
        cv2.fillConvexPoly(mask, np.rint(box).astype(np.int32), 1)
        inside = mask.astype(bool)
        if inside.sum() < 50:
            continue
        variance = float(lap[inside].var())
        # contrast: the marker's ink against its paper, both measured in the picture
        bits, edge_sides = _marker_pattern(geom, mid, 48)
        warp = cv2.getPerspectiveTransform(
            np.array([[0, 0], [47, 0], [47, 47], [0, 47]], np.float32), project(h, board_corners[k]).astype(np.float32)
        )
        ink_px = project(warp, np.argwhere(bits == 0)[::7, ::-1].astype(np.float64))
        xs = np.clip(np.rint(ink_px[:, 0]).astype(int), 0, gray.shape[1] - 1)
        ys = np.clip(np.rint(ink_px[:, 1]).astype(int), 0, gray.shape[0] - 1)
        ink = float(np.median(gray[ys, xs]))
        ring = project(h, centre + np.array([[0, -1], [1, 0], [0, 1], [-1, 0]]) * (geom.marker_size / 2 + pad / 2))
        xs = np.clip(np.rint(ring[:, 0]).astype(int), 0, gray.shape[1] - 1)
        ys = np.clip(np.rint(ring[:, 1]).astype(int), 0, gray.shape[0] - 1)
        paper = float(np.median(gray[ys, xs]))
        contrast = paper - ink
        if contrast < 20:
            continue
        edge_px = edge_sides * side_px
        # var = edge_px * C^2 / (4 sqrt(pi) sigma^3) / area  ->  sigma
        sigma = (edge_px * contrast**2 / (4 * np.sqrt(np.pi) * inside.sum() * max(variance, 1e-6))) ** (1 / 3)
        sigmas.append(float(sigma))
        variances.append(variance)
    if not sigmas:
        return None
    return float(np.median(sigmas)), float(np.median(variances))


def row_names(place_name: Callable[[tuple[int, int]], str], rows: int, cols: int) -> list[str] | None:
    """Each row's name in the game's notation, read off its place names; None when they show none.

    A row's name is what all its places share (a prefix or a suffix) beyond what every place of the
    board shares: ``A3 B3 C3`` -> ``3``; ``(4,2) (4,3)`` -> ``4``; ``point 3,4`` -> ``3``.
    """
    names = [[place_name((r, c)) for c in range(cols)] for r in range(rows)]
    everyone = [n for row in names for n in row]
    for take in (os.path.commonprefix, lambda xs: os.path.commonprefix([x[::-1] for x in xs])[::-1]):
        shared = take(everyone)
        out = []
        for row in names:
            part = take(row)
            part = part[len(shared) :] if part.startswith(shared) else part[: len(part) - len(shared)]
            out.append(part.strip(" ,()-:"))
        if all(out) and len(set(out)) == rows:
            return out
    return None


def _glare(geom: LatticeGeometry, gray: np.ndarray, h: np.ndarray) -> list[tuple[int, int]]:
    """Places with at least `GLARE_SHARE` of their disc clipped white."""
    x0, y0 = -0.5, -0.5
    w = int(round((geom.cols) * PPP))
    hh = int(round((geom.rows) * PPP))
    to_rect = np.array([[PPP, 0, -x0 * PPP - 0.5], [0, PPP, -y0 * PPP - 0.5], [0, 0, 1]], np.float64)
    clipped = (gray >= CLIPPED_WHITE).astype(np.uint8) * 255
    rect = cv2.warpPerspective(clipped, to_rect @ np.linalg.inv(h), (w, hh), flags=cv2.INTER_NEAREST, borderValue=0)
    r = PLACE_RADIUS * PPP
    yy, xx = np.mgrid[-int(r) : int(r) + 1, -int(r) : int(r) + 1]
    disc = (xx**2 + yy**2) <= r * r
    out = []
    for row in range(geom.rows):
        for col in range(geom.cols):
            cx, cy = int(round((col - x0) * PPP - 0.5)), int(round((row - y0) * PPP - 0.5))
            patch = rect[max(0, cy - int(r)) : cy + int(r) + 1, max(0, cx - int(r)) : cx + int(r) + 1]
            if patch.shape != disc.shape:
                continue
            if (patch[disc] > 0).mean() >= GLARE_SHARE:
                out.append((row, col))
    return out


def _glare_line(places: list[tuple[int, int]], place_name, rows: int, cols: int) -> Text:
    names = row_names(place_name, rows, cols) if place_name is not None else None
    spots = listed(
        [
            place_name(c) if place_name is not None else _("row {row} column {column}", row=c[0] + 1, column=c[1] + 1)
            for c in places
        ],
        conjunction=None,
    )
    if names is None:
        return _("glare on {places}: move the lamp or tilt the camera", places=spots)
    glare_rows = sorted({r for r, _c in places})
    return _n(
        "glare on row {rows} ({places}): move the lamp or tilt the camera",
        "glare on rows {rows} ({places}): move the lamp or tilt the camera",
        len(glare_rows),
        rows=listed([names[r] for r in glare_rows]),
        places=spots,
    )


def aim_advice(
    frame: np.ndarray,
    geom: LatticeGeometry,
    place_name: Callable[[tuple[int, int]], str] | None = None,
    corners: np.ndarray | None = None,
) -> AimAdvice:
    """The advice for one picture of a board with geometry `geom` (see the module's docstring).

    `corners` (the lattice's corner points fixed for a copy without markers) place the board when
    fewer than two markers are found: light and glare are then judged on it, focus is not.
    """
    frame = np.asarray(frame)
    gray = frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    height, width = gray.shape[:2]
    found = _find_markers(geom, gray)
    missing = [k for k, mid in enumerate(geom.marker_ids) if mid not in found]
    advice = AimAdvice(
        lines=[],
        ok=False,
        markers_found=[CORNER_NAMES[k] for k, mid in enumerate(geom.marker_ids) if mid in found],
        markers_missing=[CORNER_NAMES[k] for k in missing],
        marker_quads={CORNER_NAMES[k]: found[mid] for k, mid in enumerate(geom.marker_ids) if mid in found},
        size=(width, height),
    )
    # One marker's four corners fit a homography exactly but extrapolate it badly across the board.
    h = _homography(geom, found) if len(found) >= 2 else None
    advice.placed_by = "markers" if h is not None else None
    if h is None and corners is not None:
        h = homography_from_corners(geom, np.asarray(corners, np.float64))
        advice.placed_by = "corners"
        advice.in_view = True
    advice.homography = h
    # Placed by a person: framing from the lattice, no marker to miss.
    if advice.placed_by == "corners" and h is not None:
        x0, y0, x1, y1 = geom.extent(0.5)
        outline = project(h, np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float64))
        moves = _moves(outline, width, height, set())
        advice.in_view = not moves
        advice.lines.extend(moves)
        area_mask = np.zeros(gray.shape, np.uint8)
        cv2.fillConvexPoly(area_mask, np.rint(outline).astype(np.int32), 1)
        area = area_mask.astype(bool) if area_mask.sum() >= 100 else np.ones(gray.shape, bool)
    elif h is None:
        if found:
            advice.lines.append(
                _(
                    "only the {corner} marker found: is the board in the camera's view, lit and in focus?",
                    corner=corner_words(advice.markers_found[0]),
                )
            )
        else:
            advice.lines.append(_("no board marker found: is the board in the camera's view, lit and in focus?"))
        area = np.ones(gray.shape, bool)
    else:
        outline = project(h, _board_outline(geom))
        moves = _moves(outline, width, height, _missing_sides(missing))
        advice.in_view = not moves
        advice.lines.extend(moves)
        pitch = float(np.linalg.norm(project(h, np.array([[0.0, 0.0], [1.0, 0.0]])) @ [-1, 1]))
        advice.measures["pitch_px"] = pitch
        if not moves and pitch < MIN_PITCH_PX:
            advice.lines.append(_("the board is small in the picture: move the camera closer (or zoom in)"))
        if not moves and missing:
            advice.lines.append(
                _n(
                    "the {corners} marker not found: is something covering it, or is it in shadow?",
                    "the {corners} markers not found: is something covering them, or are they in shadow?",
                    len(missing),
                    corners=listed([corner_words(m) for m in advice.markers_missing]),
                )
            )
        area_mask = np.zeros(gray.shape, np.uint8)
        cv2.fillConvexPoly(area_mask, np.rint(project(h, _board_outline(geom))).astype(np.int32), 1)
        area = area_mask.astype(bool)
        if area.sum() < 100:
            area = np.ones(gray.shape, bool)
    values = gray[area]
    mean = float(values.mean())
    white = float((values >= CLIPPED_WHITE).mean())
    black = float((values <= CRUSHED_BLACK).mean())
    top = float(np.percentile(values, 99))
    advice.measures.update(mean=mean, clipped_white=white, crushed_black=black, brightest=top)
    if mean < DARK_MEAN or top < DARK_WHITE or black > TOO_MANY_CLIPPED:
        advice.lines.append(_("too dark: add light or raise the camera's exposure"))
    elif white > TOO_MANY_CLIPPED:
        advice.lines.append(_("too bright: less light on the board or lower the camera's exposure"))
    if h is not None:
        lap = cv2.Laplacian(gray.astype(np.float32), cv2.CV_32F)
        advice.measures["laplacian_variance"] = float(lap[area].var())
        focus = _focus(geom, gray, h, list(found))
        if focus is not None:
            sigma, marker_variance = focus
            advice.measures.update(blur_px=sigma, marker_laplacian_variance=marker_variance)
            if sigma > SHARP_SIGMA:
                advice.lines.append(
                    _(
                        "out of focus (edges blurred over about {pixels} pixels): turn the camera's focus ring or "
                        "clean the lens",
                        pixels=Decimal(f"{sigma:.1f}"),
                    )
                )
        if white <= TOO_MANY_CLIPPED:
            advice.glare_places = _glare(geom, gray, h)
            if advice.glare_places:
                advice.lines.append(_glare_line(advice.glare_places, place_name, geom.rows, geom.cols))
    if not advice.lines:  # every marker found (a missing one has its own line) and nothing else to say
        advice.lines.append(GOOD if advice.placed_by == "markers" else CORNERS_GOOD)
        advice.ok = True
    return advice
