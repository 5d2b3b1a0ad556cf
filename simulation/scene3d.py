"""Boards in three dimensions for a physically based renderer (Blender's Cycles, `blender_worker.py`).

The flat renderer (`render.py`) draws a board as a picture warped onto the image; this module
builds the same boards as geometry, so that everything a real room does to the camera's picture
follows from the physics rather than from rules written for it: pieces have height (their tops
move off their places when the camera is off the vertical), cast shadows on their neighbours,
glossy balls and marbles carry highlights and mirror the room, the board's varnished print
reflects the ceiling light broadly, a desk lamp casts hard shadows, an arm reaching over is a mesh
with a soft shadow, and the camera has perspective and depth of field.

Three things vary by seed, so that the referee is never tuned to one copy of one room:

* `Copy`: a physical copy of a game: its pieces' colours (each a little off the standard
  edition's), their materials (matte to glossy plastic, glass-like marbles) and the board's print.
* `Room`: the camera (a Pi camera module or a webcam: field of view, picture size, pose, focus,
  noise, whether exposure and white balance are locked) and the light (the room's own light, a
  ceiling panel, a desk lamp that may be low and hard), and the table.
* the frame: sensor noise, and on a webcam its JPEG compression.

Each game's bodies (pieces' sizes and heights, slots' and slides' depths) are its own declaration
(`VisionSpec.solids` and `floors`); how a board is assembled (slots, a printed board, doors on
posts, slides under a holed plate) is picked by the artwork the game names, as in `artwork.py`.

`scene(...)` gives a plain description (a dict of numbers, names and texture files) that the worker
renders to linear light; `develop(...)` turns that into the 8-bit BGR picture a camera would
deliver. `Renderer3D` runs the worker (in its own environment, `make render3d`) and caches every
render on disk by the hash of its description.
"""

from __future__ import annotations

import colorsys
import hashlib
import json
import math
import os
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from controller.errors import RefereeError
from controller.games import registry
from controller.games.spec import DISC, SPHERE, Solid
from controller.profile import default_profile
from controller.snapshot import EMPTY, Snapshot, parse_snapshot
from controller.vision import looks
from controller.vision.geometry import DICTIONARIES, LatticeGeometry
from controller.vision.glyphs import GLYPHS
from simulation.artwork import artwork_for
from simulation.drawing import TEX, _Canvas, _draw_markers, _rng, board_margin, glyph_mask, stay_alive_points
from simulation.render import random_snapshot

ROOT = Path(__file__).resolve().parents[1]
WORKER = Path(__file__).with_name("blender_worker.py")
#: The render environment (Blender as a Python module needs exactly Python 3.11 and numpy < 2, which
#: the referee's own environment does not have): made by `make render3d`.
RENDER_PYTHON = ROOT / ".venv-render" / "bin" / "python"

Rgb = tuple[float, float, float]


# --------------------------------------------------------------------------- colour


def linear(rgb: tuple[float, float, float]) -> Rgb:
    """sRGB 0-255 to linear 0-1 (the renderer's albedo), on the scale where the standard edition's
    colours are given: the markers' white paper (`looks.PAPER`) reflects about 84% of the light."""
    out = []
    for v in rgb:
        c = max(0.0, min(1.0, v / 255))
        out.append(c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4)
    return (out[0], out[1], out[2])


def kelvin(t: float) -> Rgb:
    """The colour (linear RGB, green 1) of a black body at `t` kelvins (Tanner Helland's fit), the
    light of a warm bulb (2700 K), a cool LED (5000 K) or daylight (6500 K)."""
    t = t / 100
    r = 255.0 if t <= 66 else 329.698727446 * (t - 60) ** -0.1332047592
    g = 99.4708025861 * math.log(t) - 161.1195681661 if t <= 66 else 288.1221695283 * (t - 60) ** -0.0755148492
    b = 255.0 if t >= 66 else (0.0 if t <= 19 else 138.5177312231 * math.log(t - 10) - 305.0447927307)
    lin = linear((min(255, max(0, r)), min(255, max(0, g)), min(255, max(0, b))))
    return (lin[0] / lin[1], 1.0, lin[2] / lin[1])


def _jitter_colour(rgb: tuple[int, int, int], rng: np.random.Generator, hue: float, sat: float, val: float):
    """A copy's colour: the standard edition's turned a little in hue and changed in saturation and
    lightness, as another print run or another plastic would be."""
    h, s, v = colorsys.rgb_to_hsv(*(c / 255 for c in rgb))
    h = (h + rng.uniform(-hue, hue)) % 1.0
    s = min(1.0, s * rng.uniform(1 - sat, 1 + sat * 0.5))
    v = min(1.0, v * rng.uniform(1 - val, 1 + val * 0.5))
    return tuple(int(round(c * 255)) for c in colorsys.hsv_to_rgb(h, s, v))


# --------------------------------------------------------------------------- a copy and a room


@dataclass(frozen=True)
class Copy:
    """One physical copy of a game: colours and materials (from `seed`)."""

    game: str
    seed: int
    colours: dict[str, tuple[int, int, int]]
    frame: tuple[int, int, int]
    piece_roughness: float
    piece_coat: float
    board_roughness: float
    glassy: bool

    @classmethod
    def make(cls, game: str, seed: int) -> Copy:
        rng = _rng("copy3d", game, seed)
        std = looks.pieces(game)
        colours = {}
        for key, rgb in std.items():
            neutral = max(rgb) - min(rgb) < 24  # white, black, grey: only lightness changes
            colours[key] = _jitter_colour(rgb, rng, 0.0 if neutral else 0.015, 0.12, 0.1)
        return cls(
            game=game,
            seed=seed,
            colours=colours,
            frame=_jitter_colour(looks.FRAME[game], rng, 0.02, 0.15, 0.12),
            piece_roughness=float(rng.uniform(0.08, 0.45)),
            piece_coat=float(rng.choice([0.0, 0.3, 1.0])),
            board_roughness=float(rng.uniform(0.25, 0.6)),
            glassy=bool(rng.random() < 0.5),
        )


@dataclass(frozen=True)
class Camera:
    """A camera: which kind, its picture, field of view, pose (in pitches) and focus."""

    kind: str
    width: int
    height: int
    lens_mm: float
    sensor_mm: float
    location: tuple[float, float, float]
    target: tuple[float, float, float]
    up: tuple[float, float, float]
    fstop: float
    focus_distance: float
    full_well: float
    read_noise: float
    locked: bool
    jpeg: int | None

    @property
    def fov(self) -> float:
        """The horizontal field of view in degrees."""
        return math.degrees(2 * math.atan(self.sensor_mm / 2 / self.lens_mm))


@dataclass(frozen=True)
class Room:
    """Where a copy is played: the camera and the light (from `seed`), in the copy's pitches."""

    game: str
    seed: int
    pitch_mm: float
    camera: Camera
    world: dict
    ceiling: dict
    desk_lamp: dict
    table: dict
    lamp_is_low: bool

    @classmethod
    def make(cls, game: str, profile, seed: int, kind: str | None = None) -> Room:
        rng = _rng("room3d", game, seed)
        mm = profile.pitch_mm
        geom = LatticeGeometry.from_profile(profile)
        kind = kind or ("pi" if seed % 2 == 0 else "webcam")
        camera = _camera(geom, mm, kind, rng)
        warm = float(rng.uniform(2700, 6500))
        room_colour = kelvin(float(rng.uniform(3500, 7000)))
        world = {"colour": room_colour, "floor": tuple(0.35 * c for c in room_colour), "strength": 1.0}
        cx, cy = (geom.cols - 1) / 2, -(geom.rows - 1) / 2
        # The ceiling panel: straight over the table, or where its mirror image in the board's
        # varnish falls in the camera's view (a broad reflection across the board).
        height = float(rng.uniform(1500, 2100)) / mm
        if rng.random() < 0.5:
            cam = np.array(camera.location)
            k = height / cam[2]
            mirror = np.array([cx, cy]) - (cam[:2] - [cx, cy]) * k
            pos = mirror + rng.uniform(-1, 1, 2) * (geom.cols / 2)
        else:
            pos = np.array([cx, cy]) + rng.uniform(-1, 1, 2) * 800 / mm
        side = float(rng.uniform(400, 900)) / mm
        ceiling = {
            "kind": "area",
            "shape": "RECTANGLE",
            "size": (side, side * float(rng.uniform(0.4, 1.0))),
            "location": (float(pos[0]), float(pos[1]), height),
            "colour": kelvin(float(rng.uniform(3000, 6500))),
            "share": float(rng.uniform(0.3, 0.7)),
        }
        low = bool(rng.random() < 0.35)
        lamp_h = float(rng.uniform(120, 220) if low else rng.uniform(280, 600)) / mm
        reach = float(rng.uniform(300, 550) if low else rng.uniform(100, 450)) / mm
        ang = float(rng.uniform(0, 2 * math.pi))
        lamp_pos = (cx + reach * math.cos(ang), cy + reach * math.sin(ang), lamp_h)
        desk = {
            "kind": "spot",
            "radius": float(rng.uniform(3, 25)) / mm,
            "cone": 100.0,
            "blend": 0.6,
            "location": lamp_pos,
            "target": (cx + float(rng.uniform(-2, 2)), cy + float(rng.uniform(-2, 2)), 0.0),
            "colour": kelvin(warm),
            "share": float(rng.uniform(0.8, 2.5)),
        }
        grey = rng.integers(70, 200, 3)
        table_rgb = (int(grey[0]), int(grey[1]), int(grey[2]))
        table = {"colour": linear(table_rgb), "roughness": float(rng.uniform(0.3, 0.8)), "grain": 0.5}
        return cls(game, seed, mm, camera, world, ceiling, desk, table, low)


@dataclass(frozen=True)
class Shade:
    """Something standing beside the board between the desk lamp and the board (a cereal box, a
    person by the table): a box taller than the lamp, whose hard shadow crosses the board's frame
    band on the lamp's side. Its footprint stays off the board, but nothing keeps it out of the
    camera's view: the camera often sees it beside the board (rooms 2-3), as it would a real box,
    and the reader must cope with that."""

    location: tuple[float, float, float]
    size: tuple[float, float, float]  # thickness (towards the lamp), width, height; pitches
    turn: float  # degrees about the vertical

    @classmethod
    def make(cls, room: Room, geom: LatticeGeometry, seed: int) -> Shade | None:
        """A shade for `room` (its lamp and board), or None when the lamp stands over the board (no
        object beside the board can then shade it)."""
        rng = _rng("shade3d", room.game, room.seed, seed)
        mm = room.pitch_mm
        lx, ly, lh = room.desk_lamp["location"]
        cx, cy = (geom.cols - 1) / 2, -(geom.rows - 1) / 2
        towards = np.array([lx - cx, ly - cy])
        dist = float(np.linalg.norm(towards))
        m = board_margin(geom)
        half = np.array([(geom.cols - 1) / 2 + m, (geom.rows - 1) / 2 + m])
        u = towards / max(dist, 1e-9)
        thick, wide = 20 / mm, float(rng.uniform(40, 80)) / mm
        along = np.array([-u[1], u[0]]) * float(rng.uniform(-0.3, 0.3)) * float(half.min())
        clear = 0.5 + float(np.hypot(thick, wide)) / 2  # the box's footprint stays off the board
        at = 0.0
        while _off_rect(u * at + along, half) < clear:
            at += 0.05
        if dist < at + 0.5:
            return None
        x, y = np.array([cx, cy]) + u * at + along
        height = 1.5 * lh
        turn = math.degrees(math.atan2(u[1], u[0]))
        return cls((float(x), float(y), height / 2 - 12 / mm), (thick, wide, height), turn)


def _off_rect(point: np.ndarray, half: np.ndarray) -> float:
    """How far `point` (from the board's centre) lies outside the board of half sizes `half`."""
    dx, dy = np.maximum(np.abs(point) - half, 0.0)
    return float(np.hypot(dx, dy))


def _camera(geom: LatticeGeometry, mm: float, kind: str, rng: np.random.Generator) -> Camera:
    """A camera over the board: a Pi camera module (16:9, locked exposure) or a webcam (4:3, automatic
    exposure and white balance, JPEG), off the vertical by up to about 20 degrees, the board filling
    most of the picture."""
    if kind == "pi":
        width, height = 960, 540
        sensor, lens = 6.45, float(rng.uniform(4.2, 5.0))  # camera module 3 (66 degrees) or near it
        fstop, full_well, read_noise, locked, jpeg = 1.8, 3500.0, 4.0, True, None
    elif kind == "webcam":
        width, height = 800, 600
        sensor, lens = 4.8, float(rng.uniform(3.2, 3.9))
        fstop, full_well, read_noise, locked, jpeg = 2.0, 6000.0, 5.0, False, int(rng.integers(80, 93))
    else:
        raise RefereeError(f"unknown camera kind {kind!r}; expected pi or webcam")
    m = board_margin(geom)
    bw, bh = geom.cols - 1 + 2 * m, geom.rows - 1 + 2 * m
    hfov = 2 * math.atan(sensor / 2 / lens)
    vfov = 2 * math.atan(math.tan(hfov / 2) * height / width)
    fill = float(rng.uniform(0.7, 0.85))
    # Distance at which the board's larger side fills `fill` of the picture (seen straight down).
    dist = max(bw / (2 * math.tan(hfov / 2) * fill), bh / (2 * math.tan(vfov / 2) * fill))
    tilt = math.radians(float(rng.uniform(0, 20)))
    azimuth = float(rng.uniform(0, 2 * math.pi))
    cx, cy = (geom.cols - 1) / 2, -(geom.rows - 1) / 2
    dist *= 1 + 0.5 * math.sin(tilt)  # a tilted view needs a little more room
    loc = (
        cx + dist * math.sin(tilt) * math.cos(azimuth),
        cy + dist * math.sin(tilt) * math.sin(azimuth),
        dist * math.cos(tilt),
    )
    target = (cx + float(rng.uniform(-0.4, 0.4)), cy + float(rng.uniform(-0.4, 0.4)), 0.0)
    roll = math.radians(float(rng.uniform(-8, 8)))
    up = (math.sin(roll), math.cos(roll), 0.0)
    # Focus set by hand (or fixed focus) near the board, a little off; the aperture is the real
    # one in the scene's units (one unit is one pitch).
    focus = dist * float(rng.uniform(0.85, 1.2))
    return Camera(
        kind,
        width,
        height,
        lens,
        sensor,
        loc,
        target,
        up,
        fstop * mm / 1000,
        focus,
        full_well,
        read_noise,
        locked,
        jpeg,
    )


# --------------------------------------------------------------------------- textures


def _png(img: np.ndarray, textures: Path) -> str:
    """Write an image (BGR or BGRA) once, named by its content; its path."""
    ok, data = cv2.imencode(".png", img)
    if not ok:
        raise RefereeError("a texture could not be encoded")
    name = hashlib.sha1(data.tobytes()).hexdigest()[:20] + ".png"
    path = textures / name
    if not path.exists():
        textures.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".part")
        tmp.write_bytes(data.tobytes())
        tmp.replace(path)
    return str(path)


def _board_print(game: str, geom: LatticeGeometry, copy: Copy, profile) -> tuple[np.ndarray, tuple]:
    """The board's print seen from above (its artwork, markers included) and the board rectangle it
    spans (x0, y0, x1, y1)."""

    cv = _Canvas(geom, copy.frame)
    regions = profile.get("regions") if profile is not None else None
    artwork_for(game).board(cv, copy.colours, copy.frame, regions)
    _draw_markers(cv, geom)
    m = cv.m
    rect = (-m, -m, -m + cv.img.shape[1] / TEX, -m + cv.img.shape[0] / TEX)
    return cv.img, rect


def _marker_image(geom: LatticeGeometry, mid: int, px: int = 160) -> tuple[np.ndarray, float]:
    """A marker on its square of white paper (BGR) and the paper's half side in pitches (the
    marker's black square is `marker_size` wide, the paper 1.36 times that, as the flat renderer
    draws it)."""
    dictionary = cv2.aruco.getPredefinedDictionary(DICTIONARIES[geom.dictionary])
    inner = cv2.aruco.generateImageMarker(dictionary, int(mid), px)
    side = int(round(px * 1.36))
    paper = np.empty((side, side, 3), np.uint8)
    paper[:] = looks.PAPER[::-1]
    o = (side - px) // 2
    ink = np.where(inner[..., None] > 127, np.array(looks.PAPER[::-1]), np.array((26, 24, 24)))
    paper[o : o + px, o : o + px] = ink.astype(np.uint8)
    return paper, geom.marker_size * side / px / 2


def _tile_top(rgb: tuple[int, int, int], glyph: str, side: float, px: int = 96) -> np.ndarray:
    """A Blockers! tile's top: its colour with the glyph printed in white."""
    mask = glyph_mask(glyph, px / side, half=side / 2)
    n = mask.shape[0]
    top = np.empty((n, n, 3), np.float32)
    top[:] = rgb[::-1]
    ink = np.array(looks.GLYPH_INK[::-1], np.float32)
    a = mask[..., None]
    return (top * (1 - a) + ink * a).astype(np.uint8)


# --------------------------------------------------------------------------- the scene


@dataclass
class _Build:
    """The description being assembled."""

    textures: Path
    materials: dict = field(default_factory=dict)
    objects: list = field(default_factory=list)

    def material(self, name: str, **m) -> str:
        self.materials[name] = m
        return name

    def add(self, shape: str, material: str, **o) -> None:
        self.objects.append({"shape": shape, "material": material, **o})


def _w(x: float, y: float, z: float = 0.0) -> tuple[float, float, float]:
    """Board point (x right, y down, z up) in the renderer's world (y up)."""
    return (float(x), float(-y), float(z))


@dataclass(frozen=True)
class Hand:
    """An arm reaching over the board: fingertips over (row, col), from a side, at a height (mm)."""

    row: float
    col: float
    side: str = "bottom"
    height_mm: float = 25.0
    tone: tuple[int, int, int] = (198, 140, 104)
    #: The colour (sRGB) of a sleeve over the forearm, or None for a bare arm. A dark sleeve over a
    #: dark board is what the hand check must still tell from a lamp's hard shadow.
    sleeve: tuple[int, int, int] | None = None


def scene(
    snapshot: Snapshot,
    profile,
    copy: Copy,
    room: Room,
    out: Path,
    *,
    textures: Path,
    lamp_on: bool = True,
    hand: Hand | None = None,
    shade: Shade | None = None,
    samples: int = 24,
    threads: int = 1,
) -> dict:
    """The description of one render of `snapshot` on `copy` in `room` (written to `out`); with
    `shade`, something beside the board out of the camera's view stands in the desk lamp's light."""
    game = snapshot.game
    geom = LatticeGeometry.from_profile(profile)
    spec = registry.get(game).vision
    b = _Build(textures)
    mm = room.pitch_mm
    _room(b, room, geom)
    img, rect = _board_print(game, geom, copy, profile)
    tex = _png(img, textures)
    b.material(
        "print",
        colour=linear(copy.frame),
        texture=tex,
        projection="top",
        rect=rect,
        roughness=copy.board_roughness,
        coat=0.0,
    )
    m = board_margin(geom)
    x0, y0, x1, y1 = -m, -m, geom.cols - 1 + m, geom.rows - 1 + m
    thick = 12 / mm
    assemble = _ASSEMBLIES.get(spec.artwork, _plain)
    assemble(b, snapshot, profile, copy, geom, (x0, y0, x1, y1), thick, spec)
    _markers(b, geom)
    _pieces(b, snapshot, profile, copy, geom, spec)
    if hand is not None:
        _hand(b, hand, geom, mm)
    if shade is not None:
        b.material("shade", colour=(0.05, 0.05, 0.05), roughness=0.7)
        turn = (0.0, 0.0, shade.turn)
        b.add("box", "shade", size=shade.size, rotation=turn, location=shade.location, out_of_view=True)
    lamps = _lamps(room, lamp_on)
    cam = room.camera
    return {
        "output": str(out),
        "width": cam.width,
        "height": cam.height,
        "samples": samples,
        "threads": threads,
        "seed": int(_rng("cycles", out.name).integers(1 << 30)),
        "denoise": True,
        "camera": {
            "lens_mm": cam.lens_mm,
            "sensor_mm": cam.sensor_mm,
            "location": cam.location,
            "target": cam.target,
            "up": cam.up,
            "fstop": cam.fstop,
            "focus_distance": cam.focus_distance,
        },
        "world": room.world,
        "lamps": lamps,
        "materials": b.materials,
        "objects": b.objects,
    }


def _room(b: _Build, room: Room, geom: LatticeGeometry) -> None:
    """The table the board stands on."""
    t = room.table
    b.material("table", colour=t["colour"], roughness=t["roughness"], grain=t["grain"], grain_scale=0.2)
    cx, cy = (geom.cols - 1) / 2, (geom.rows - 1) / 2
    b.add("box", "table", size=(400.0, 400.0, 1.0), location=_w(cx, cy, -0.5 - 12 / room.pitch_mm))


def _lamps(room: Room, lamp_on: bool) -> list[dict]:
    """The lamps with powers that give each its share of the light on the board (the room's own
    light, from every direction, gives 1): a lamp's irradiance falls with its distance squared."""
    ambient = math.pi * room.world["strength"] * 0.6  # the room's light on the board, roughly
    out = []
    cx = np.array(room.camera.target)
    for lamp, on in ((room.ceiling, True), (room.desk_lamp, lamp_on)):
        if not on:
            continue
        d2 = float(np.sum((np.array(lamp["location"]) - cx) ** 2))
        e = lamp["share"] * ambient
        power = e * d2 * (math.pi if lamp["kind"] == "area" else 4 * math.pi)
        out.append({k: v for k, v in lamp.items() if k != "share"} | {"power": power})
    return out


def _markers(b: _Build, geom: LatticeGeometry) -> None:
    """The four markers, printed on paper stuck on the frame (matte)."""
    for (cx, cy), mid in zip(geom.marker_centres(), geom.marker_ids):
        img, half = _marker_image(geom, mid)
        name = b.material(f"marker{mid}", texture=_png(img, b.textures), roughness=0.85)
        b.add("decal", name, rect=(cx - half, cy - half, cx + half, cy + half), z=0.002)


def _plain(b, snapshot, profile, copy, geom, rect, thick, spec) -> None:
    """A flat printed board (and Blockers!'s printed regions)."""
    x0, y0, x1, y1 = rect
    b.add("box", "print", size=(x1 - x0, y1 - y0, thick), location=_w((x0 + x1) / 2, (y0 + y1) / 2, -thick / 2))


def _slots(b, snapshot, profile, copy, geom, rect, thick, spec) -> None:
    """Colorpop: a frame with one slide per column, the slide's floor `floors['.']` below the frame."""
    x0, y0, x1, y1 = rect
    depth = -float(spec.floors.get(EMPTY, -0.25))
    rows, cols = geom.rows, geom.cols
    sx0, sx1 = -0.46, cols - 1 + 0.46
    sy0, sy1 = -0.56, rows - 1 + 0.56
    top = thick * 0.6
    for bx0, by0, bx1, by1 in ((x0, y0, x1, sy0), (x0, sy1, x1, y1), (x0, sy0, sx0, sy1), (sx1, sy0, x1, sy1)):
        b.add("box", "print", size=(bx1 - bx0, by1 - by0, top), location=_w((bx0 + bx1) / 2, (by0 + by1) / 2, -top / 2))
    for c in range(cols - 1):
        b.add("box", "print", size=(0.08, sy1 - sy0, depth), location=_w(c + 0.5, (sy0 + sy1) / 2, -depth / 2))
    b.material("slide", colour=linear(copy.colours[EMPTY]), roughness=max(0.15, copy.board_roughness - 0.1))
    b.add(
        "box",
        "slide",
        size=(sx1 - sx0, sy1 - sy0, thick),
        location=_w((sx0 + sx1) / 2, (sy0 + sy1) / 2, -depth - thick / 2),
    )


def _slide_lattice(b, snapshot, profile, copy, geom, rect, thick, spec) -> None:
    """Stay Alive: a top plate with a hole at every point, the orange slides (rows) under it, the
    white slides (columns) under those, and the dark space under both."""
    x0, y0, x1, y1 = rect
    rows, cols = geom.rows, geom.cols
    hole = 0.28
    plate = 3 / profile.pitch_mm
    holes = [(float(c), float(-r), hole) for r in range(rows) for c in range(cols)]
    b.add(
        "plate",
        "print",
        size=(x1 - x0, y1 - y0, plate),
        location=_w((x0 + x1) / 2, (y0 + y1) / 2, -plate / 2),
        holes=holes,
    )
    open_, white = stay_alive_points(snapshot, profile)
    z_orange = -float(spec.floors.get(".o", -0.15))
    z_white = -float(spec.floors.get(".w", -0.24))
    z_open = -float(spec.floors.get("open", -0.6))
    slide = 0.08
    b.material("orange", colour=linear(copy.colours[".o"]), roughness=0.4)
    b.material("white", colour=linear(copy.colours[".w"]), roughness=0.4)
    b.material("dark", colour=linear(copy.colours["open"]), roughness=0.9)
    for r in range(rows):
        through = [(float(c), float(-r), hole * 1.05) for c in range(cols) if (r, c) in open_ or (r, c) in white]
        b.add(
            "plate",
            "orange",
            size=(cols + 0.8, 0.9, slide),
            location=_w((cols - 1) / 2, r, -z_orange - slide / 2),
            holes=through,
        )
    for c in range(cols):
        through = [(float(c), float(-r), hole * 1.05) for r in range(rows) if (r, c) in open_]
        b.add(
            "plate",
            "white",
            size=(0.9, rows + 0.8, slide),
            location=_w(c, (rows - 1) / 2, -z_white - slide / 2),
            holes=through,
        )
    # The box under the board: its sides the frame's colour, its floor dark.
    b.add("box", "dark", size=(x1 - x0, y1 - y0, 0.05), location=_w((x0 + x1) / 2, (y0 + y1) / 2, -z_open - 0.025))
    side = z_open - plate  # the walls stand under the plate (a face inside another body would be black)
    for bx0, by0, bx1, by1 in (
        (x0, y0, x1, y0 + 0.3),
        (x0, y1 - 0.3, x1, y1),
        (x0, y0, x0 + 0.3, y1),
        (x1 - 0.3, y0, x1, y1),
    ):
        b.add(
            "box",
            "print",
            size=(bx1 - bx0, by1 - by0, side),
            location=_w((bx0 + bx1) / 2, (by0 + by1) / 2, -plate - side / 2),
        )


#: Each wing of a door token (`notation.md` §1: Flipop's doors line) as an angle in degrees.
WING_ANGLES = {"N": 90.0, "E": 0.0, "S": -90.0, "W": 180.0}


def _grooved_floor(b, snapshot, profile, copy, geom, rect, thick, spec) -> None:
    """Flipop: the printed floor, a post at every inner corner with its door's steel wings."""

    _plain(b, snapshot, profile, copy, geom, rect, thick, spec)
    doors = snapshot.line("doors")
    if doors is None and profile is not None and profile.get("start"):
        doors = parse_snapshot(snapshot.game, profile.get("start")).line("doors")
    mm = profile.pitch_mm
    b.material("post", colour=linear(looks.POST), roughness=0.5)
    b.material(
        "steel", colour=linear(looks.METAL), metallic=1.0, roughness=float(_rng("steel", copy.seed).uniform(0.2, 0.45))
    )
    height = spec.door_height or 14 / mm
    per_row = geom.cols - 1
    for k in range(per_row * (geom.rows - 1)):
        i, j = divmod(k, per_row)
        px, py = j + 0.5, i + 0.5
        jrng = _rng("door3d", copy.seed, k)
        for d in doors[k] if doors else "":
            if d not in WING_ANGLES:  # an unread door ('?') has no wing to build
                continue
            ang = WING_ANGLES[d] + float(jrng.uniform(-3, 3))
            a = math.radians(ang)
            length = 0.44
            mx, my = px + math.cos(a) * length / 2, py - math.sin(a) * length / 2
            b.add(
                "box",
                "steel",
                size=(length, 2.0 / mm, height),
                location=_w(mx, my, height / 2),
                rotation=(0, 0, ang),
                bevel=0.5 / mm,
            )
        b.add("cylinder", "post", radius=3.5 / mm, depth=height * 1.2, location=_w(px, py, height * 0.6))


_ASSEMBLIES = {
    "slots": _slots,
    "printed-regions": _plain,
    "grooved-floor": _grooved_floor,
    "slide-lattice": _slide_lattice,
}


def _pieces(b: _Build, snapshot: Snapshot, profile, copy: Copy, geom: LatticeGeometry, spec) -> None:
    """Every piece of the snapshot as its game declares its body (`VisionSpec.solids`)."""

    made: set[str] = set()
    for r in range(geom.rows):
        for c in range(geom.cols):
            cell = snapshot.cells[r][c]
            if cell == EMPTY:
                continue
            letter = cell[0]
            rgb = copy.colours.get(letter)
            solid = spec.solids.get(letter) or Solid(SPHERE, 0.8, 0.8)
            if rgb is None:
                raise RefereeError(f"the renderer has no look for the piece {letter!r} of {snapshot.game}")
            name = f"piece-{letter}"
            if name not in made:
                made.add(name)
                glass = copy.glassy and solid.shape == SPHERE
                b.material(
                    name,
                    colour=linear(rgb),
                    roughness=0.03 if glass else copy.piece_roughness,
                    coat=1.0 if glass else copy.piece_coat,
                    coat_roughness=0.03,
                    subsurface=0.25 if glass else 0.0,
                    subsurface_radius=linear(rgb),
                    subsurface_scale=0.1,
                )
            prng = _rng("piece3d", copy.seed, r, c)
            if solid.shape == SPHERE:
                rad = solid.size / 2
                b.add("sphere", name, radius=rad, location=_w(c, r, solid.base + rad))
            elif solid.shape == DISC:
                x, y = c + prng.uniform(-0.02, 0.02), r + prng.uniform(-0.02, 0.02)
                b.add(
                    "cylinder",
                    name,
                    radius=solid.size / 2,
                    depth=solid.height,
                    location=_w(x, y, solid.base + solid.height / 2),
                    bevel=solid.height * 0.25,
                )
            else:
                ang = float(prng.uniform(-6, 6))
                x, y = c + prng.uniform(-0.04, 0.04), r + prng.uniform(-0.04, 0.04)
                top = solid.base + solid.height
                b.add(
                    "box",
                    name,
                    size=(solid.size, solid.size, solid.height),
                    location=_w(x, y, top - solid.height / 2),
                    rotation=(0, 0, -ang),
                    bevel=0.02,
                )
                glyph = cell[1] if len(cell) > 1 and cell[1] in GLYPHS else str(prng.choice(list(GLYPHS)))
                inner = solid.size - 0.06
                img = _tile_top(rgb, glyph, inner)
                tname = b.material(
                    f"top-{letter}{glyph}",
                    texture=_png(img, b.textures),
                    roughness=copy.piece_roughness,
                    coat=copy.piece_coat,
                    coat_roughness=0.03,
                )
                half = inner / 2
                b.add(
                    "decal", tname, rect=(x - half, y - half, x + half, y + half), z=top + 0.002, rotation=(0, 0, -ang)
                )


def _hand(b: _Build, hand: Hand, geom: LatticeGeometry, mm: float) -> None:
    """An arm reaching in from one side, its fingertips over (row, col), a little curled."""
    b.material(
        "skin",
        colour=linear(hand.tone),
        roughness=0.55,
        subsurface=0.3,
        subsurface_radius=(0.8, 0.3, 0.15),
        subsurface_scale=4 / mm,
    )
    direction = {"bottom": (0.0, 1.0), "top": (0.0, -1.0), "left": (-1.0, 0.0), "right": (1.0, 0.0)}.get(hand.side)
    if direction is None:
        raise RefereeError(f"unknown hand side {hand.side!r}; expected bottom, top, left or right")
    d = np.array(direction)  # from the fingertips towards the elbow, board coordinates
    perp = np.array([-d[1], d[0]])
    tip = np.array([hand.col, hand.row], np.float64)
    z_tip = hand.height_mm / mm
    u = 1 / mm
    palm = tip + d * 80 * u
    z_palm = z_tip + 45 * u
    wrist = palm + d * 55 * u
    z_wrist = z_palm + 25 * u
    elbow = wrist + d * 300 * u
    z_elbow = z_wrist + 180 * u

    def p(xy, z):
        return _w(xy[0], xy[1], z)

    forearm = "skin"
    if hand.sleeve is not None:  # cloth: matte, a little wider than the arm, from the wrist
        forearm = b.material("sleeve", colour=linear(hand.sleeve), roughness=0.9)
    grow = 4 * u if hand.sleeve is not None else 0.0
    b.add(
        "capsule",
        forearm,
        **{"from": p(wrist, z_wrist), "to": p(elbow, z_elbow)},
        radius=27 * u + grow,
        radius_to=38 * u + grow,
    )
    ang = math.degrees(math.atan2(-d[1], d[0]))
    b.add("ellipsoid", "skin", radii=(52 * u, 44 * u, 16 * u), location=p(palm, z_palm), rotation=(0, 12, ang))
    for k, length in zip((-1.5, -0.5, 0.5, 1.5), (62, 74, 70, 56)):
        base = palm + perp * k * 19 * u - d * 38 * u
        knuckle = base - d * length * 0.5 * u
        end = base - d * length * u
        b.add(
            "capsule",
            "skin",
            **{"from": p(base, z_palm), "to": p(knuckle, z_palm - 8 * u)},
            radius=9 * u,
            radius_to=8.5 * u,
        )
        b.add(
            "capsule",
            "skin",
            **{"from": p(knuckle, z_palm - 8 * u), "to": p(end, z_tip + 8 * u)},
            radius=8.5 * u,
            radius_to=7.5 * u,
        )
    thumb = palm + perp * 45 * u
    b.add(
        "capsule",
        "skin",
        **{"from": p(thumb, z_palm), "to": p(thumb - d * 45 * u + perp * 10 * u, z_tip + 15 * u)},
        radius=11 * u,
        radius_to=9 * u,
    )


# --------------------------------------------------------------------------- the camera's processing


def _srgb(x: np.ndarray) -> np.ndarray:
    return np.where(x <= 0.0031308, 12.92 * x, 1.055 * np.power(np.maximum(x, 0.0031308), 1 / 2.4) - 0.055)


@dataclass(frozen=True)
class Exposure:
    """What the camera's automatic exposure and white balance chose (kept when they are locked)."""

    gain: float
    balance: tuple[float, float, float]

    @classmethod
    def measure(cls, raw: np.ndarray) -> Exposure:
        """Exposure that puts the picture's mean at 18% grey (a camera's metering) unless that clips
        more than the brightest half percent of any channel, and a grey-world white balance that
        corrects three quarters of the light's colour (as cameras do, not fully)."""
        x = raw.astype(np.float32)
        lum = x @ np.array([0.2126, 0.7152, 0.0722], np.float32)
        peak = float(np.percentile(x.max(axis=2), 99.5))
        gain = min(0.18 / max(float(lum.mean()), 1e-6), 0.97 / max(peak, 1e-6))
        means = x.reshape(-1, 3).mean(axis=0)
        grey = float(means.mean())
        balance = tuple(float((grey / max(m, 1e-6)) ** 0.75) for m in means)
        return cls(gain, balance)  # type: ignore[arg-type]


def develop(raw: np.ndarray, camera: Camera, frame: int, exposure: Exposure | None = None) -> np.ndarray:
    """The 8-bit BGR picture the camera delivers from the scene's light `raw` (linear RGB): exposure
    and white balance (its own, or `exposure` when they are locked), shot and read noise of the sensor,
    the sRGB curve, and a webcam's JPEG compression."""
    exposure = exposure or Exposure.measure(raw)
    x = raw.astype(np.float32) * exposure.gain * np.array(exposure.balance, np.float32)
    rng = _rng("sensor3d", camera.kind, frame)
    electrons = np.clip(x, 0, 1) * camera.full_well
    noisy = electrons + rng.normal(0, 1, x.shape).astype(np.float32) * np.sqrt(electrons + camera.read_noise**2)
    x = np.clip(noisy / camera.full_well, 0, 1)
    out = (_srgb(x) * 255 + 0.5).astype(np.uint8)[..., ::-1]
    out = np.ascontiguousarray(out)
    if camera.jpeg:
        ok, data = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, camera.jpeg])
        decoded = cv2.imdecode(data, cv2.IMREAD_COLOR)
        assert decoded is not None  # a JPEG just encoded decodes
        out = np.asarray(decoded, np.uint8)
    return out


# --------------------------------------------------------------------------- running the worker, cached


def _worker_version() -> str:
    """The worker's `VERSION` (read from its source: the worker needs Blender to import)."""
    for line in WORKER.read_text().splitlines():
        if line.startswith("VERSION = "):
            return "v" + line.split("=", 1)[1].strip()
    raise RefereeError(f"{WORKER} names no VERSION")


def _portable(value: Any) -> Any:
    """`value` with every texture file reduced to its name: a texture is named by the hash of its
    pixels, so its folder (the cache's path, however it was spelled) says nothing about the scene."""
    if isinstance(value, dict):
        return {k: _portable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_portable(v) for v in value]
    if isinstance(value, str | Path) and str(value).endswith(".png"):
        return Path(value).name
    return value


def job_key(job: dict) -> str:
    """A render's cache key: its description (without where it is written, and its textures by name
    only, so that one cache serves whatever path it is given) and the worker's code."""
    desc = _portable({k: v for k, v in job.items() if k != "output"})
    text = json.dumps(desc, sort_keys=True, default=str) + _worker_version()
    return hashlib.sha1(text.encode()).hexdigest()[:24]


class RendererMissing(RefereeError):
    """The render environment (`make render3d`) is not there."""


class Renderer3D:
    """Renders scene descriptions with the worker, each once: the linear light is kept in `cache`
    under the description's hash, so a bench run again renders only what changed."""

    def __init__(self, cache: Path, python: Path | None = None, threads: int = 1) -> None:
        self.cache = Path(cache)
        self.textures = self.cache / "textures"
        self.python = Path(python or os.environ.get("REFEREE_RENDER_PYTHON") or RENDER_PYTHON)
        self.threads = threads

    def path_for(self, job: dict) -> Path:
        return self.cache / "raw" / f"{job_key(job)}.npy"

    def missing(self, jobs: list[dict]) -> list[dict]:
        return [j for j in jobs if not self.path_for(j).exists()]

    def render(self, jobs: list[dict], log=print) -> list[np.ndarray]:
        """The linear light of every job, rendering those not in the cache (one worker process)."""
        todo = []
        for job in jobs:
            path = self.path_for(job)
            if not path.exists():
                todo.append({**job, "output": str(path), "threads": self.threads})
        if todo:
            if not self.python.exists():
                raise RendererMissing(
                    f"the 3D renderer is not installed ({self.python} is missing): run `make render3d` "
                    "(Blender's bpy from PyPI in its own environment; it needs Python 3.11)"
                )
            (self.cache / "raw").mkdir(parents=True, exist_ok=True)
            jobs_file = self.cache / f"jobs-{os.getpid()}.json"
            jobs_file.write_text(json.dumps(todo, default=_plain_json))
            log(f"rendering {len(todo)} scene(s) with Cycles ({self.threads} thread(s)); cached in {self.cache}")
            try:
                proc = subprocess.run(
                    [str(self.python), str(WORKER), str(jobs_file)],
                    stdout=subprocess.PIPE,
                    stderr=subprocess.STDOUT,
                    text=True,
                )
            finally:
                jobs_file.unlink(missing_ok=True)
            lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("rendered ")]
            for ln in lines:
                log("  " + ln)
            if proc.returncode != 0:
                tail = "\n".join(proc.stdout.splitlines()[-15:])
                raise RefereeError(f"the 3D renderer failed (exit {proc.returncode}):\n{tail}")
        return [np.load(self.path_for(j)) for j in jobs]


def _plain_json(value):
    if isinstance(value, (np.floating, np.integer)):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    raise TypeError(f"not JSON: {type(value).__name__}")


def main() -> int:  # pragma: no cover - a manual look at one scene
    import argparse

    ap = argparse.ArgumentParser(description="render one random board of a game in 3D")
    ap.add_argument("--game", default="flipop")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--samples", type=int, default=16)
    ap.add_argument("--out", default="out/scene3d.png")
    ap.add_argument("--hand", action="store_true")
    args = ap.parse_args()
    p = default_profile(args.game)
    snap = random_snapshot(args.game, p, seed=args.seed)
    copy, room = Copy.make(args.game, args.seed), Room.make(args.game, p, args.seed)
    r3 = Renderer3D(ROOT / "out" / "scenes3d")
    hand = Hand(2, 3) if args.hand else None
    job = scene(snap, p, copy, room, Path("x.npy"), textures=r3.textures, samples=args.samples, hand=hand)
    raw = r3.render([job])[0]
    cv2.imwrite(args.out, develop(raw, room.camera, 0))
    print(args.out, room.camera.kind, f"fov {room.camera.fov:.0f}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
