"""Where the board is in the image: lattice coordinates, ArUco markers, homographies.

Board coordinates are measured in pitches: lattice point (row r, col c) sits at x = c, y = r.
A homography maps board coordinates to image pixels; everything else (rectifying, sampling,
rendering) is derived from it, so the renderer and the reader share one geometry.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import cv2
import numpy as np

from controller.errors import RefereeError
from controller.language import _

DICTIONARIES = {
    "4X4_50": cv2.aruco.DICT_4X4_50,
    "4X4_100": cv2.aruco.DICT_4X4_100,
    "4X4_250": cv2.aruco.DICT_4X4_250,
    "5X5_50": cv2.aruco.DICT_5X5_50,
    "5X5_100": cv2.aruco.DICT_5X5_100,
    "6X6_50": cv2.aruco.DICT_6X6_50,
}

MARKERS_HIDDEN = _(
    "the board markers are not visible: is something covering the corners of the board, "
    "or is the board outside the camera's view?"
)


def _four(ids: Iterable[int]) -> tuple[int, int, int, int]:
    """The four markers' ids, one per corner (a profile's `markers.ids` holds exactly four)."""
    first, second, third, fourth = ids
    return first, second, third, fourth


class CornersError(RefereeError):
    """Corner points given by a person that cannot describe a lattice."""


@dataclass(frozen=True)
class LatticeGeometry:
    """A rows x cols lattice and its four markers (size and offset in pitches, as in rig.md)."""

    rows: int
    cols: int
    marker_ids: tuple[int, int, int, int] = (0, 1, 2, 3)
    marker_size: float = 1.0
    marker_offset: float = 1.5
    dictionary: str = "4X4_50"

    @classmethod
    def from_profile(cls, profile) -> LatticeGeometry:
        m = profile.markers
        return cls(
            rows=profile.rows,
            cols=profile.cols,
            marker_ids=_four(int(i) for i in m["ids"]),
            marker_size=float(m["size"]),
            marker_offset=float(m["offset"]),
            dictionary=str(m["dictionary"]),
        )

    def corner_points(self) -> np.ndarray:
        """The lattice's four corner points TL, TR, BR, BL in board coordinates."""
        r, c = self.rows - 1, self.cols - 1
        return np.array([[0, 0], [c, 0], [c, r], [0, r]], np.float64)

    def marker_centres(self) -> np.ndarray:
        o = self.marker_offset
        signs = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]], np.float64)
        return self.corner_points() + signs * o

    def marker_corners(self) -> np.ndarray:
        """(4 markers, 4 corners, 2): each marker's corners TL, TR, BR, BL, upright on the board."""
        h = self.marker_size / 2
        local = np.array([[-h, -h], [h, -h], [h, h], [-h, h]], np.float64)
        return self.marker_centres()[:, None, :] + local[None, :, :]

    def points(self) -> np.ndarray:
        """Every lattice point, row-major, (rows*cols, 2) as (x, y)."""
        ys, xs = np.mgrid[0 : self.rows, 0 : self.cols]
        return np.stack([xs.ravel(), ys.ravel()], axis=1).astype(np.float64)

    def extent(self, margin: float) -> tuple[float, float, float, float]:
        """Board-coordinate box (x0, y0, x1, y1) around the lattice plus `margin` pitches."""
        return (-margin, -margin, self.cols - 1 + margin, self.rows - 1 + margin)


def project(h: np.ndarray, pts: np.ndarray) -> np.ndarray:
    """Apply homography `h` to (N, 2) points."""
    pts = np.asarray(pts, np.float64).reshape(-1, 2)
    ph = np.hstack([pts, np.ones((len(pts), 1))]) @ h.T
    return ph[:, :2] / ph[:, 2:3]


def parse_corners(text: str) -> np.ndarray:
    """Parse ``"x,y x,y x,y x,y"`` (TL, TR, BR, BL) and check it describes a convex quadrilateral."""
    parts = text.replace(";", " ").split()
    if len(parts) != 4:
        raise CornersError(
            _(
                "--corners needs four points 'x,y x,y x,y x,y' (top-left, top-right, bottom-right, bottom-left); "
                "got {count} in {text}",
                count=len(parts),
                text=repr(text),
            )
        )
    pts = []
    for p in parts:
        xy = p.split(",")
        try:
            if len(xy) != 2:
                raise ValueError
            pts.append((float(xy[0]), float(xy[1])))
        except ValueError:
            raise CornersError(_("--corners: {point} is not a point 'x,y' of two numbers", point=repr(p))) from None
    arr = np.array(pts, np.float64)
    check_corners(arr)
    return arr


def check_corners(arr: np.ndarray, image_size: tuple[int, int] | None = None) -> None:
    """Reject corners that are not a clockwise convex quadrilateral (or lie off the image)."""
    cross = []
    for i in range(4):
        a, b, c = arr[i], arr[(i + 1) % 4], arr[(i + 2) % 4]
        ab, bc = b - a, c - b
        cross.append(ab[0] * bc[1] - ab[1] * bc[0])
    if not all(x > 0 for x in cross):
        raise CornersError(
            _(
                "the four corners must be given in the order top-left, top-right, bottom-right, bottom-left and "
                "form a convex quadrilateral"
            )
        )
    sides = [np.linalg.norm(arr[(i + 1) % 4] - arr[i]) for i in range(4)]
    if min(sides) < 8:
        raise CornersError(_("the corners are too close together to hold a lattice"))
    if image_size is not None:
        w, h = image_size
        if (arr[:, 0] < -0.5).any() or (arr[:, 1] < -0.5).any() or (arr[:, 0] > w).any() or (arr[:, 1] > h).any():
            raise CornersError(_("a corner lies outside the {size} image", size=f"{w}x{h}"))


def homography_from_corners(geom: LatticeGeometry, corners: np.ndarray) -> np.ndarray:
    """Board-to-image homography from the lattice's four corner points in pixels."""
    src = geom.corner_points().astype(np.float32)
    if geom.rows == 1 or geom.cols == 1:
        raise CornersError(_("a lattice needs at least 2 rows and 2 columns"))
    return cv2.getPerspectiveTransform(src, np.asarray(corners, np.float32)).astype(np.float64)


def board_dictionary(geom: LatticeGeometry) -> tuple[cv2.aruco.Dictionary, list[int]]:
    """The board's ArUco dictionary cut down to the codes of its own markers, and the marker id of
    each of its codes (a detector reports the code's index).

    ArUco compares every candidate quadrilateral that passes its border test with every code of the
    dictionary in all four rotations before rejecting it: with OpenCV 5.0 one such comparison with
    the 50 codes of 4X4_50 takes about 0.1 ms (`Dictionary.identify`, measured from Python), and a
    rejected candidate is often tried twice (its outline, then a contour close to it). The dark
    tiles of a Blockers! board, a light glyph inside a dark border, pass the border test (8-10 per
    clean board), so they cost more than finding the markers: with only the board's four codes the
    first pass on the vision bench's clean Blockers! boards takes 1.5-2.2 ms instead of 2.1-4.0
    (about 1 ms either way on the hard ones). A code matches a candidate only within the
    dictionary's error correction, whatever the other codes are: the board's markers are found, with
    the same corners, as with the whole dictionary (checked on 480 renders of every game at four
    sizes). An id the dictionary does not have can never be found and is left out; with none left,
    the whole dictionary is kept."""
    full = cv2.aruco.getPredefinedDictionary(DICTIONARIES[geom.dictionary])
    ids = [i for i in geom.marker_ids if i < len(full.bytesList)]
    if not ids:
        return full, list(range(len(full.bytesList)))
    return cv2.aruco.Dictionary(full.bytesList[ids], full.markerSize, full.maxCorrectionBits), ids


@dataclass
class Localisation:
    """A fitted board-to-image homography and how it was found."""

    h: np.ndarray
    markers_seen: tuple[int, ...]
    error_px: float


class MarkerLocaliser:
    """Finds the four ArUco markers and fits one homography to all their corners.

    Detection runs on a half-size copy (about 4x cheaper on a Pi) and the corners are then
    refined to sub-pixel accuracy on the full image, so nothing is lost in precision. (Halving the
    colour frame first and converting only a quarter of the pixels to grey is no cheaper: 0.53 ms
    either way on a 1280x720 frame, alternately timed, and it rounds differently.)

    Passes run from cheap to thorough and stop once every marker is found. Most of ArUco's time
    goes on checking candidate quadrilaterals, and a sharp board full of printed squares (tiles,
    glyphs, grid cells) makes dozens of them: the first pass therefore asks for a strong dark
    border (black ink on white paper always has one) and a plausible size, which leaves almost
    only the markers; a weaker threshold and finally OpenCV's default three-window pass run only
    when a marker is still missing (in dim light, or when a hand covers one).
    """

    #: (threshold window, threshold constant) of each pass; None = OpenCV's default windows.
    PASSES: tuple[tuple[int, float] | None, ...] = ((5, 15.0), (5, 7.0), None)
    #: Smallest marker perimeter, as a fraction of the detection image's larger side: a marker
    #: smaller than 8 pixels a side at half size has too few pixels per bit to decode anyway.
    MIN_PERIMETER = 0.05
    #: The first pass's polygon fit (fraction of a contour's perimeter; OpenCV's default 0.03): a
    #: marker's outline is a clean square, while many printed tile outlines and glyph strokes pass
    #: as quadrilaterals only under the looser fit, and each quadrilateral costs a perspective
    #: removal and a decode. On 120 rendered boards of every game the first pass misses no more
    #: markers than with the default, and on clean Blockers! boards it ran in 2.3-3.5 ms instead
    #: of about 4.5 (with the whole dictionary, before `board_dictionary`); the later passes keep
    #: the default, so a marker the tight fit misses is still found.
    FIRST_PASS_POLYGON_FIT = 0.02

    def __init__(self, geom: LatticeGeometry, min_markers: int = 3) -> None:
        self.geom = geom
        self.min_markers = min_markers
        dictionary, self.code_ids = board_dictionary(geom)
        self.detectors = []
        for k, spec in enumerate(self.PASSES):
            p = cv2.aruco.DetectorParameters()
            p.minMarkerPerimeterRate = self.MIN_PERIMETER
            if k == 0:
                p.polygonalApproxAccuracyRate = self.FIRST_PASS_POLYGON_FIT
            if spec is not None:
                p.adaptiveThreshWinSizeMin = p.adaptiveThreshWinSizeMax = spec[0]
                p.adaptiveThreshConstant = spec[1]
            self.detectors.append(cv2.aruco.ArucoDetector(dictionary, p))
        self.board_corners = geom.marker_corners()
        #: Bits along a marker's side: its code and its black border.
        self.bits = dictionary.markerSize + 2

    #: Pixels per bit below which a blurred, noisy marker may not decode: ArUco reads each bit
    #: from a 4x4-pixel cell of the unwarped marker (`perspectiveRemovePixelPerCell`), so fewer
    #: pixels than that are interpolated, not seen.
    MIN_PIXELS_PER_BIT = 4.0

    def _find(self, image: np.ndarray, scale: int, found: dict[int, np.ndarray]) -> None:
        """Adds to `found` (id -> corners in full-size pixels) the markers the passes find in `image`."""
        for detector in self.detectors:
            corners, ids, _rejected = detector.detectMarkers(image)
            for c, k in zip(corners, ids.ravel() if ids is not None else []):
                i = self.code_ids[int(k)]
                if i in self.geom.marker_ids and i not in found:
                    found[i] = c.reshape(4, 2).astype(np.float64) * scale + (scale - 1) / 2
            if len(found) == 4:
                return

    def _too_small_to_decode(self, found: dict[int, np.ndarray], scale: int) -> bool:
        """Whether a missing marker may just be too small for the half-size picture: true when
        the markers found have fewer than `MIN_PIXELS_PER_BIT` pixels per bit there (a small or
        distant board), or when none was found at all. Then the full picture is searched too;
        a board seen large enough is never searched twice (a hand over a marker costs nothing)."""
        if not found:
            return True
        side = min(float(np.linalg.norm(c[1] - c[0])) for c in found.values()) / scale
        return side / self.bits < self.MIN_PIXELS_PER_BIT

    def detect(self, frame: np.ndarray) -> Localisation | None:
        gray = frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
        scale = 2 if gray.shape[1] >= 960 else 1
        small = (
            cv2.resize(gray, (gray.shape[1] // scale, gray.shape[0] // scale), interpolation=cv2.INTER_AREA)
            if scale > 1
            else gray
        )
        found: dict[int, np.ndarray] = {}
        self._find(small, scale, found)
        if len(found) < 4 and scale > 1 and self._too_small_to_decode(found, scale):
            self._find(gray, 1, found)
        if len(found) < self.min_markers:
            return None
        img_pts, board_pts = [], []
        for k, mid in enumerate(self.geom.marker_ids):
            if mid in found:
                img_pts.append(found[mid])
                board_pts.append(self.board_corners[k])
        img = np.concatenate(img_pts).astype(np.float32)
        side = min(float(np.linalg.norm(p[1] - p[0])) for p in img_pts)
        win = int(max(2, min(6, side / 8)))
        crit = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 20, 0.01)
        refined = cv2.cornerSubPix(gray, img.reshape(-1, 1, 2), (win, win), (-1, -1), crit)
        img = refined.reshape(-1, 2).astype(np.float64)
        board = np.concatenate(board_pts)
        h, _mask = cv2.findHomography(board, img, 0)
        if h is None:
            return None
        err = float(np.sqrt(np.mean(np.sum((project(h, board) - img) ** 2, axis=1))))
        if err > max(3.0, side / 10):
            return None
        seen = tuple(sorted(found))
        return Localisation(h=h, markers_seen=seen, error_px=err)


class MarkerCheck:
    """A cheap test that a cached homography still fits: sample just inside and just outside
    each marker's black border and see whether the inside is still darker than the outside.

    A camera bump of a few pixels moves the samples across the border and fails the test, so
    the reader re-localises; a hand over one marker fails only that marker.
    """

    def __init__(self, geom: LatticeGeometry, band: float = 0.07, per_side: int = 6) -> None:
        self.geom = geom
        inner, outer = [], []
        h = geom.marker_size / 2
        t = (np.arange(per_side) + 0.5) / per_side * 2 - 1
        for centre in geom.marker_centres():
            ins, outs = [], []
            for sx, sy, along in ((0, -1, "x"), (1, 0, "y"), (0, 1, "x"), (-1, 0, "y")):
                for v in t * (h - band * 1.5):
                    if along == "x":
                        p_in = (v, sy * (h - band))
                        p_out = (v, sy * (h + band))
                    else:
                        p_in = (sx * (h - band), v)
                        p_out = (sx * (h + band), v)
                    ins.append(centre + p_in)
                    outs.append(centre + p_out)
            inner.append(np.array(ins))
            outer.append(np.array(outs))
        self.inner = np.stack(inner)
        self.outer = np.stack(outer)

    #: Grey levels the paper outside a marker's border must be above the ink inside it.
    MARGIN = 20.0

    def markers_ok(self, gray: np.ndarray, h: np.ndarray, margin: float = MARGIN) -> list[bool]:
        """Per marker: does the cached homography still put its border where it is?"""
        vin, vout, inside = self.samples(gray, h)
        good = (vout - vin) > margin
        return [bool(inside[i].all() and good[i].mean() >= 0.9) for i in range(len(vin))]

    def samples(self, gray: np.ndarray, h: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Grey levels just inside and just outside each marker's black border (markers x samples),
        and whether each inside sample falls in the picture."""
        hgt, wid = gray.shape[:2]
        n, k, _depth = self.inner.shape
        pin = project(h, self.inner.reshape(-1, 2))
        pout = project(h, self.outer.reshape(-1, 2))
        xi = np.clip(np.rint(pin[:, 0]), 0, wid - 1).astype(int)
        yi = np.clip(np.rint(pin[:, 1]), 0, hgt - 1).astype(int)
        xo = np.clip(np.rint(pout[:, 0]), 0, wid - 1).astype(int)
        yo = np.clip(np.rint(pout[:, 1]), 0, hgt - 1).astype(int)
        vin = gray[yi, xi].astype(np.int16).reshape(n, k)
        vout = gray[yo, xo].astype(np.int16).reshape(n, k)
        inside = ((pin[:, 0] >= 0) & (pin[:, 0] < wid) & (pin[:, 1] >= 0) & (pin[:, 1] < hgt)).reshape(n, k)
        return vin, vout, inside
