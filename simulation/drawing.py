"""The simulated camera's drawing of a flat board: the canvas in board coordinates and what is drawn on it.

Why a module of its own: the renderer (`render.py`: camera, light, noise) and each game's artwork
(`artwork.py`: the board's printing, its pieces, its fittings) draw with the same primitives; both
import them from here, so neither imports the other's module back. The names keep the leading
underscore they had inside the renderer: they are the simulation's own drawing tools.
"""

from __future__ import annotations

import functools
import zlib
from collections.abc import Callable
from dataclasses import dataclass

import cv2
import numpy as np

from controller.errors import RefereeError
from controller.games.spec import Snapshot
from controller.games.stay_alive.holes import pattern_of
from controller.vision import looks
from controller.vision.geometry import DICTIONARIES, LatticeGeometry
from simulation import letters

TEX = 48  # texture pixels per pitch


@dataclass(frozen=True)
class Scene:
    """What is in front of the camera besides the board's pieces.

    `hand` is where the fingertips are, in lattice coordinates (row, col), or None; the arm
    reaches in from `hand_side`. `bump` moves the camera image by (dx, dy) pixels and a rotation
    in degrees. `open_points` are Stay Alive's open points (the dark space shows through); when
    None they are worked out from the snapshot's slide positions and the profile's holes.
    `glare`/`shadows` None means the preset decides. `frame` seeds the sensor noise; `seed` and
    `preset`, when given, replace the arguments of `render_snapshot`. `smudged` places get a
    smear of grime over their middle; `covered` places are half hidden under a sheet of paper
    (both to test that the reader abstains on a glyph it cannot see well). `glare_at` adds a
    lamp's reflection (row, col, radius), in lattice coordinates and pitches, anywhere on the
    board (near its edge too), besides the preset's own glare. `sleeve` dresses the arm's forearm in
    cloth of that colour (RGB). `hard_shadow` is a desk lamp's hard shadow cast from beside the
    board, across its frame band: (row, col) the band point it crosses, its width there and its
    angle off the band's normal (pitches, degrees); it darkens the table, the band and what lies
    beyond by the lamp's share of the light, one factor per channel. `sheen` is a broad reflection
    of a lamp or a lit wall over the board: (row, col) its middle, its spread (pitches: a Gaussian's
    sigma), its peak as a share of the light the paper reflects there, and its colour (B, G, R,
    largest 1); added to everything it covers, as light of one colour (clipped where it overflows).
    """

    hand: tuple[float, float] | None = None
    hand_side: str = "bottom"
    glare: bool | None = None
    shadows: bool | None = None
    bump: tuple[float, float, float] = (0.0, 0.0, 0.0)
    open_points: frozenset[tuple[int, int]] | None = None
    frame: int = 0
    seed: int | None = None
    preset: str | None = None
    smudged: frozenset[tuple[int, int]] = frozenset()
    covered: frozenset[tuple[int, int]] = frozenset()
    glare_at: tuple[tuple[float, float, float], ...] = ()
    sleeve: tuple[int, int, int] | None = None
    hard_shadow: tuple[float, float, float, float] | None = None
    sheen: tuple[float, float, float, float, tuple[float, float, float]] | None = None


def _bgr(rgb: tuple[int, int, int]) -> tuple[int, int, int]:
    return (int(rgb[2]), int(rgb[1]), int(rgb[0]))


def _rng(*parts: object) -> np.random.Generator:
    key = "/".join(str(p) for p in parts).encode()
    return np.random.default_rng(zlib.crc32(key))


def board_margin(geom: LatticeGeometry) -> float:
    """Pitches of board drawn beyond the lattice's corner points (markers plus a rim)."""
    return geom.marker_offset + geom.marker_size / 2 + 0.5


# --------------------------------------------------------------------------- the flat board


class _Canvas:
    """A texture in board coordinates: board point (x, y) is pixel ((x+m)*TEX - 0.5, ...)."""

    SHIFT = 4

    def __init__(self, geom: LatticeGeometry, colour: tuple[int, int, int]) -> None:
        self.geom = geom
        self.m = board_margin(geom)
        wd = int(round((geom.cols - 1 + 2 * self.m) * TEX))
        ht = int(round((geom.rows - 1 + 2 * self.m) * TEX))
        self.img = np.empty((ht, wd, 3), np.uint8)
        self.img[:] = _bgr(colour)
        #: Where the camera sees a point raised above the board: (x, y, height) -> board point
        #: (`render.CameraView.lift`); None draws everything where it stands, as seen straight down.
        self.lift: Callable[[float, float, float], tuple[float, float]] | None = None
        #: Added to every point drawn: what is drawn now stands `height` above the board.
        self.offset = (0.0, 0.0)

    def raised(self, x: float, y: float, height: float) -> None:
        """Draw from now on as seen `height` pitches above the board around (x, y) (0: on it)."""
        if self.lift is None or height == 0:
            self.offset = (0.0, 0.0)
        else:
            lx, ly = self.lift(x, y, height)
            self.offset = (lx - x, ly - y)

    def px(self, x: float, y: float) -> tuple[int, int]:
        f = 1 << self.SHIFT
        return (
            int(round(((x + self.offset[0] + self.m) * TEX - 0.5) * f)),
            int(round(((y + self.offset[1] + self.m) * TEX - 0.5) * f)),
        )

    def r(self, pitches: float) -> int:
        return int(round(pitches * TEX * (1 << self.SHIFT)))

    def circle(self, x, y, rad, rgb, thickness=-1) -> None:
        cv2.circle(self.img, self.px(x, y), self.r(rad), _bgr(rgb), thickness, cv2.LINE_AA, self.SHIFT)

    def rect(self, x0, y0, x1, y1, rgb) -> None:
        a = self.px(x0, y0)
        b = self.px(x1, y1)
        cv2.rectangle(self.img, a, b, _bgr(rgb), -1, cv2.LINE_AA, self.SHIFT)

    def line(self, x0, y0, x1, y1, rgb, width) -> None:
        t = max(1, int(round(width * TEX)))
        cv2.line(self.img, self.px(x0, y0), self.px(x1, y1), _bgr(rgb), t, cv2.LINE_AA, self.SHIFT)

    def to_board(self) -> np.ndarray:
        """Texture pixel -> board coordinates, as a 3x3 matrix."""
        return np.array([[1 / TEX, 0, 0.5 / TEX - self.m], [0, 1 / TEX, 0.5 / TEX - self.m], [0, 0, 1]])


def _ball(cv: _Canvas, x: float, y: float, rad: float, rgb, highlight: int) -> None:
    """A ball or marble: flat colour, darker rim, a small specular highlight."""
    rim = tuple(int(v * 0.72) for v in rgb)
    cv.circle(x, y, rad, rim)
    cv.circle(x, y, rad * 0.86, rgb)
    hl = (highlight, highlight, highlight)
    cv.circle(x - rad * 0.38, y - rad * 0.38, rad * 0.16, hl)


def _draw_markers(cv: _Canvas, geom: LatticeGeometry) -> None:
    dictionary = cv2.aruco.getPredefinedDictionary(DICTIONARIES[geom.dictionary])
    size = geom.marker_size
    for (cx, cy), mid in zip(geom.marker_centres(), geom.marker_ids):
        q = size * 0.68
        cv.rect(cx - q, cy - q, cx + q, cy + q, looks.PAPER)
        s = int(round(size * TEX))
        mk = cv2.aruco.generateImageMarker(dictionary, int(mid), s)
        mk = np.where(mk > 127, 1.0, 0.0)
        paper = np.array(_bgr(looks.PAPER), np.float64)
        ink = np.array((24, 24, 26), np.float64)
        patch = (mk[..., None] * paper + (1 - mk[..., None]) * ink).astype(np.uint8)
        u0 = int(round((cx - size / 2 + cv.m) * TEX))
        v0 = int(round((cy - size / 2 + cv.m) * TEX))
        cv.img[v0 : v0 + s, u0 : u0 + s] = patch


def _grain(img: np.ndarray, rng: np.random.Generator, amount: float) -> None:
    """Low-frequency streaks, like wood grain or moulded plastic, multiplied into the board."""
    ht, wd = img.shape[:2]
    small = rng.normal(0, 1, (max(2, ht // 24), max(2, wd // 4))).astype(np.float32)
    field = cv2.resize(small, (wd, ht), interpolation=cv2.INTER_CUBIC)
    img[:] = np.clip(img * (1 + amount * field[..., None]), 0, 255).astype(np.uint8)


# --------------------------------------------------------------------------- glyphs

#: Half the height of a tile's glyph, in pitches (a 14 mm glyph on a 28 mm tile).
GLYPH_HALF = 0.25
#: Stroke width of letters, digits and line symbols, in glyph half-heights.
STROKE = letters.STROKE
_SUPER = 8  # supersampling of glyph drawing


def _symbol(img: np.ndarray, glyph: str, g: float) -> None:
    """Draw one of the nine symbols (a..i) or the wild tile into `img` (white on black), in glyph
    units: (u, v) in [-1, 1] map to `g` pixels either side of the image centre."""
    c = img.shape[0] / 2
    t = max(1, int(round(STROKE * g)))

    def p(u: float, v: float) -> tuple[int, int]:
        return (int(round(c + u * g)), int(round(c + v * g)))

    def poly(pts) -> None:
        cv2.fillPoly(img, [np.array([p(u, v) for u, v in pts], np.int32)], 255, cv2.LINE_AA)

    def rad(r: float) -> int:
        return max(1, int(round(r * g)))

    if glyph == "a":  # moon: a crescent opening to the upper right
        cv2.circle(img, p(0, 0), rad(0.92), 255, -1, cv2.LINE_AA)
        cv2.circle(img, p(0.42, -0.22), rad(0.74), 0, -1, cv2.LINE_AA)
    elif glyph == "b":  # sun: a disc and eight rays
        cv2.circle(img, p(0, 0), rad(0.34), 255, -1, cv2.LINE_AA)
        for k in range(8):
            a = k * np.pi / 4 + np.pi / 8
            cv2.line(
                img, p(0.64 * np.cos(a), 0.64 * np.sin(a)), p(1.0 * np.cos(a), 1.0 * np.sin(a)), 255, t, cv2.LINE_AA
            )
    elif glyph == "c":  # star: five points
        angles = -np.pi / 2 + np.arange(10) * np.pi / 5
        r = np.where(np.arange(10) % 2 == 0, 1.0, 0.4)
        poly(np.stack([r * np.cos(angles), r * np.sin(angles) + 0.08], axis=1))
    elif glyph == "d":  # heart
        s = np.linspace(0, 2 * np.pi, 60)
        x = 16 * np.sin(s) ** 3
        y = -(13 * np.cos(s) - 5 * np.cos(2 * s) - 2 * np.cos(3 * s) - np.cos(4 * s))
        poly(np.stack([x / 17, (y + 2.5) / 15.5], axis=1))
    elif glyph == "e":  # anchor: ring, stock, shank and a curved crown with flukes
        cv2.circle(img, p(0, -0.78), rad(0.2), 255, t // 2 + 1, cv2.LINE_AA)
        cv2.line(img, p(0, -0.56), p(0, 0.92), 255, t, cv2.LINE_AA)
        cv2.line(img, p(-0.42, -0.36), p(0.42, -0.36), 255, t, cv2.LINE_AA)
        cv2.ellipse(img, p(0, 0.22), (rad(0.78), rad(0.7)), 0, 10, 170, 255, t, cv2.LINE_AA)
        poly([(-0.95, 0.1), (-0.55, 0.3), (-0.85, 0.5)])
        poly([(0.95, 0.1), (0.55, 0.3), (0.85, 0.5)])
    elif glyph == "f":  # key: a ring bow, a shaft and two teeth
        cv2.circle(img, p(-0.52, 0), rad(0.36), 255, t, cv2.LINE_AA)
        cv2.line(img, p(-0.16, 0), p(0.95, 0), 255, t, cv2.LINE_AA)
        cv2.line(img, p(0.56, 0), p(0.56, 0.42), 255, t, cv2.LINE_AA)
        cv2.line(img, p(0.86, 0), p(0.86, 0.34), 255, t, cv2.LINE_AA)
    elif glyph == "g":  # crown: three points over a band
        poly([(-0.92, 0.62), (-0.92, -0.62), (-0.46, 0.02), (0, -0.86), (0.46, 0.02), (0.92, -0.62), (0.92, 0.62)])
    elif glyph == "h":  # bell: a flared dome, a lip and a clapper
        s = np.linspace(np.pi, 2 * np.pi, 20)
        dome = [(0.46 * np.cos(a), -0.32 + 0.5 * np.sin(a)) for a in s]
        poly(dome + [(0.58, 0.2), (0.9, 0.52), (-0.9, 0.52), (-0.58, 0.2)])
        cv2.circle(img, p(0, 0.78), rad(0.18), 255, -1, cv2.LINE_AA)
        cv2.circle(img, p(0, -0.9), rad(0.1), 255, -1, cv2.LINE_AA)
    elif glyph == "i":  # leaf: a pointed blade on a diagonal, its midrib left unprinted, a stalk
        s = np.linspace(-1, 1, 24)
        w = 0.42 * (1 - s**2)
        u, v = s * 0.78, np.concatenate([w, -w[::-1]])
        uu = np.concatenate([u, u[::-1]])
        rot = np.array([[np.cos(-np.pi / 4), -np.sin(-np.pi / 4)], [np.sin(-np.pi / 4), np.cos(-np.pi / 4)]])
        pts = np.stack([uu, v], axis=1) @ rot.T + [0.1, -0.1]
        poly(pts)
        cv2.line(img, p(-0.45, 0.45), p(0.45, -0.45), 0, max(1, t // 3), cv2.LINE_AA)
        cv2.line(img, p(-0.95, 0.95), p(-0.5, 0.5), 255, t, cv2.LINE_AA)
    elif glyph == "*":  # the wild "BLOCKERS!" tile: an exclamation mark in a ring
        cv2.circle(img, p(0, 0), rad(0.9), 255, max(1, int(t * 0.6)), cv2.LINE_AA)
        poly([(-0.13, -0.58), (0.13, -0.58), (0.07, 0.2), (-0.07, 0.2)])
        cv2.circle(img, p(0, 0.45), rad(0.13), 255, -1, cv2.LINE_AA)
    else:
        raise RefereeError(f"no drawing for the glyph {glyph!r}")


def _text(img: np.ndarray, text: str, g: float) -> None:
    """A digit or capital letter in a printed sans typeface, cap height 2g, centred: its stored
    outline filled (`simulation/letters.py`), the same with every OpenCV release."""
    letters.draw(img, text, g)


@functools.lru_cache(maxsize=4096)
def glyph_mask(
    glyph: str,
    ppp: float,
    half: float = 0.3,
    angle: float = 0.0,
    shift: tuple[float, float] = (0.0, 0.0),
    size: float = GLYPH_HALF,
) -> np.ndarray:
    """Ink coverage (float32, 0..1) of a glyph on a square of +-`half` pitches sampled at `ppp`
    pixels per pitch; the glyph is turned by `angle` degrees (clockwise on the image) and moved by
    `shift` pitches. The renderer prints tiles and board symbols with it, and the reader's
    out-of-the-box glyph templates are made from it, so both always agree."""
    side = max(4, int(round(2 * half * ppp)))
    hr = side * _SUPER
    img: np.ndarray = np.zeros((hr, hr), np.uint8)
    g = size * ppp * _SUPER
    if glyph in "123456789ABCDEFGHI":
        _text(img, glyph, g)
    else:
        _symbol(img, glyph, g)
    if angle or shift[0] or shift[1]:
        m = cv2.getRotationMatrix2D((hr / 2, hr / 2), -angle, 1.0)
        m[:, 2] += np.array((shift[0] * ppp * _SUPER, shift[1] * ppp * _SUPER), np.float64)
        img = cv2.warpAffine(img, m, (hr, hr), flags=cv2.INTER_LINEAR)
    small = cv2.resize(img, (side, side), interpolation=cv2.INTER_AREA)
    mask = small.astype(np.float32) / 255
    mask.setflags(write=False)  # cached and shared: callers read it only
    return mask


def _stamp(cv: _Canvas, x: float, y: float, glyph: str, ink, angle: float = 0.0, size: float = GLYPH_HALF) -> None:
    """Print a glyph centred on board point (x, y) in colour `ink`."""
    half = 0.3 * size / GLYPH_HALF + 0.05
    side = max(4, int(round(2 * half * TEX)))
    u0 = (x + cv.offset[0] + cv.m) * TEX - side / 2
    v0 = (y + cv.offset[1] + cv.m) * TEX - side / 2
    iu, iv = int(np.floor(u0)), int(np.floor(v0))
    mask = glyph_mask(glyph, TEX, side / (2 * TEX), angle, ((u0 - iu) / TEX, (v0 - iv) / TEX), size)
    roi = cv.img[iv : iv + side, iu : iu + side]
    a = mask[: roi.shape[0], : roi.shape[1], None]
    roi[:] = (roi * (1 - a) + np.array(_bgr(ink), np.float32) * a).astype(np.uint8)


def stay_alive_points(snapshot: Snapshot, profile) -> tuple[set, set]:
    """Open points, and closed points where the (upper) orange slide has a hole so the white
    slide shows, from the slide positions and the profile's holes (empty sets when unknown)."""
    holes = profile.get("holes") if profile is not None else None
    orange, white = snapshot.line("orange"), snapshot.line("white")
    if not holes or orange is None or white is None:
        return set(), set()
    pattern = pattern_of(holes)
    return set(pattern.open_points(orange, white)), set(pattern.white_showing(orange, white))


def _tile(
    cv: _Canvas, x: float, y: float, rgb, glyph: str, rng: np.random.Generator, jitter: tuple[float, float]
) -> None:
    """A Blockers! tile put down by hand: a coloured square with a darker edge, turned and
    moved a little (`jitter` = most degrees, most pitches), and its glyph printed in white."""
    angle = float(rng.uniform(-1, 1)) * jitter[0]
    x += float(rng.uniform(-1, 1)) * jitter[1]
    y += float(rng.uniform(-1, 1)) * jitter[1]
    a = np.deg2rad(angle)
    rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    edge = (int(rgb[0] * 0.75), int(rgb[1] * 0.75), int(rgb[2] * 0.75))
    for half, colour in ((0.43, edge), (0.39, rgb)):
        sq = np.array([[-half, -half], [half, -half], [half, half], [-half, half]]) @ rot.T
        pts = np.array([cv.px(x + u, y + v) for u, v in sq], np.int32)
        cv2.fillConvexPoly(cv.img, pts, _bgr(colour), cv2.LINE_AA, cv.SHIFT)
    _stamp(cv, x, y, glyph, looks.GLYPH_INK, angle)


def _wing(cv: _Canvas, px: float, py: float, d: str, angle: float) -> None:
    """A metal door wing from the post at (px, py) pointing `d`, off square by `angle` degrees:
    a dark edge, the steel body and a highlight along one side."""
    base = {"N": -90.0, "E": 0.0, "S": 90.0, "W": 180.0}[d] + angle
    a = np.deg2rad(base)
    ux, uy = np.cos(a), np.sin(a)
    x1, y1 = px + 0.44 * ux, py + 0.44 * uy
    cv.line(px, py, x1, y1, looks.METAL_EDGE, 0.085)
    cv.line(px + 0.01 * ux, py + 0.01 * uy, x1 - 0.01 * ux, y1 - 0.01 * uy, looks.METAL, 0.06)
    ox, oy = -uy * 0.014, ux * 0.014
    cv.line(
        px + 0.05 * ux + ox, py + 0.05 * uy + oy, x1 - 0.03 * ux + ox, y1 - 0.03 * uy + oy, looks.METAL_SHINE, 0.018
    )
