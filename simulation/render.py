"""The simulated camera: draws any snapshot of any game as a camera above the board would see it.

The board is drawn flat in board coordinates (a texture at `TEX` pixels per pitch), warped into
the image by a camera homography, then lit (gradient, vignette, colour cast, shadows, glare),
blurred and given sensor noise. Everything is deterministic: the camera pose and lighting come
from `seed`, the sensor noise from `seed` and `Scene.frame`, so a still scene rendered twice
with a new frame number differs only by noise, as a real still camera does.

Why the caches: a simulated game renders hundreds of frames of one board under one camera and
light, so everything that depends only on the seed (the table, the light field, the empty board's
artwork, the sensor noise patterns, the glyph drawings) is drawn once and reused. The pictures are
bit-identical to drawing everything afresh (a test checks it); only the time changes.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from controller.errors import RefereeError
from controller.games import registry
from controller.games.spec import GLYPHS_ADDON, SPHERE
from controller.snapshot import EMPTY, Snapshot
from controller.vision import looks
from controller.vision.geometry import LatticeGeometry
from controller.vision.glyphs import GLYPHS
from controller.vision.pose import CameraPose
from simulation.artwork import Artwork, artwork_for
from simulation.drawing import (
    TEX,
    Scene,
    _bgr,
    _Canvas,
    _draw_markers,
    _grain,
    _rng,
    board_margin,
)

PRESETS: dict[str, dict[str, float]] = {
    "clean": dict(
        fill=0.86,
        fill_jitter=0.02,
        rot=3.0,
        persp=0.015,
        gradient=0.05,
        vignette=0.04,
        cast=0.0,
        exposure=0.0,
        shadows=0,
        glare=0,
        blur=0.6,
        noise=1.5,
        grain=0.02,
        tile_rot=4.0,
        tile_shift=0.02,
        door_rot=1.0,
    ),
    "hard": dict(
        fill=0.74,
        fill_jitter=0.06,
        rot=10.0,
        persp=0.05,
        gradient=0.30,
        vignette=0.12,
        cast=0.14,
        exposure=0.15,
        shadows=2,
        glare=3,
        blur=1.3,
        noise=5.0,
        grain=0.05,
        tile_rot=10.0,
        tile_shift=0.04,
        door_rot=3.0,
    ),
}


def _preset(name: str) -> dict[str, float]:
    if name not in PRESETS:
        raise RefereeError(f"unknown render preset {name!r}; expected one of {', '.join(PRESETS)}")
    return PRESETS[name]


def camera_homography(
    geom: LatticeGeometry,
    *,
    seed: int = 0,
    preset: str = "clean",
    size: tuple[int, int] = (1280, 720),
    bump: tuple[float, float, float] = (0.0, 0.0, 0.0),
) -> np.ndarray:
    """The board-to-image homography of the simulated camera (the renderer's ground truth)."""
    p = _preset(preset)
    rng = _rng("camera", seed, preset)
    w, h = size
    m = board_margin(geom)
    bw, bh = geom.cols - 1 + 2 * m, geom.rows - 1 + 2 * m
    scale = (p["fill"] + rng.uniform(-1, 1) * p["fill_jitter"]) * min(w / bw, h / bh)
    ang = np.deg2rad(rng.uniform(-1, 1) * p["rot"])
    rot = np.array([[np.cos(ang), -np.sin(ang)], [np.sin(ang), np.cos(ang)]])
    cx = (geom.cols - 1) / 2
    cy = (geom.rows - 1) / 2
    src = np.array([[-m, -m], [bw - m, -m], [bw - m, bh - m], [-m, bh - m]], np.float64)
    rel = (src - [cx, cy]) * scale
    # Make the rotated board still fit in the image.
    shrink = min(1.0, 0.96 * min(w / 2, h / 2) / np.abs(rel @ rot.T).max(axis=0).min())
    rel = rel @ rot.T * shrink
    centre = np.array([w / 2, h / 2]) + rng.uniform(-1, 1, 2) * [0.03 * w, 0.02 * h]
    jitter = rng.uniform(-1, 1, (4, 2)) * p["persp"] * scale * min(bw, bh)
    dst = rel + centre + jitter
    hom = cv2.getPerspectiveTransform(src.astype(np.float32), dst.astype(np.float32))
    dx, dy, deg = bump
    if dx or dy or deg:
        b = cv2.getRotationMatrix2D((w / 2, h / 2), deg, 1.0)
        b[:, 2] += np.array((dx, dy), np.float64)
        hom = np.vstack([b, [0, 0, 1]]) @ hom
    return hom.astype(np.float64)


@functools.lru_cache(maxsize=8)
def _empty_board(
    game: str,
    artwork: Artwork,
    geom: LatticeGeometry,
    regions: tuple[tuple[str, ...], ...] | None,
    seed: int,
    grain: float,
) -> tuple[np.ndarray, Mapping[str, Any]]:
    """The board before any piece, door or slide is drawn (its artwork, grain and markers), and
    the board's random generator's state after drawing it. Cached: it depends only on these (the
    artwork among them: one registered for a game's name while a test runs is drawn, not a cached other)."""
    frame = looks.FRAME[game]
    cv = _Canvas(geom, frame)
    rng = _rng("board", seed, game)
    artwork.board(cv, looks.pieces(game), frame, regions)
    _grain(cv.img, rng, grain)
    _draw_markers(cv, geom)
    cv.img.setflags(write=False)
    return cv.img, rng.bit_generator.state


def _draw_board(
    snapshot: Snapshot,
    profile,
    geom: LatticeGeometry,
    scene: Scene,
    seed: int,
    grain: float,
    tile_jitter: tuple[float, float] = (0.0, 0.0),
    door_jitter: float = 0.0,
    view: CameraView | None = None,
) -> _Canvas:
    """The board as a texture: its artwork, fittings and pieces; with `view`, what has height (a
    piece, a door's wings) drawn where that camera sees it, off its place."""
    game = snapshot.game
    pal = looks.pieces(game)
    regions = profile.get("regions") if profile is not None else None
    regions_key = tuple(tuple(str(x) for x in row) for row in regions) if regions else None
    artwork = artwork_for(game)
    empty, rng_state = _empty_board(game, artwork, geom, regions_key, seed, grain)
    cv = _Canvas(geom, looks.FRAME[game])
    cv.img[:] = empty
    cv.lift = view.lift if view is not None else None
    solids = registry.get(game).vision.solids
    rng = np.random.default_rng()
    rng.bit_generator.state = rng_state  # go on drawing where the empty board's drawing stopped
    rows, cols = geom.rows, geom.cols
    if artwork.fittings is not None:
        artwork.fittings(cv, snapshot, profile, scene, seed, door_jitter)
    for r in range(rows):
        for c in range(cols):
            cell = snapshot.cells[r][c]
            if cell == EMPTY:
                continue
            letter = cell[0]
            rgb = pal.get(letter)
            if rgb is None:
                raise RefereeError(
                    f"the renderer has no look for the piece {letter!r} of {game} at row {r}, column {c}"
                )
            solid = solids.get(letter)
            cv.raised(c, r, solid.seen_at if solid is not None else 0.0)
            artwork.piece(cv, r, c, cell, rgb, rng, seed, tile_jitter)
            cv.raised(c, r, 0.0)
    for r, c in sorted(scene.smudged):
        _smudge(cv, c, r, _rng("smudge", seed, r, c))
    for r, c in sorted(scene.covered):
        cv.rect(c + 0.02, r - 0.6, c + 0.62, r + 0.6, looks.PAPER)
    return cv


def _smudge(cv: _Canvas, x: float, y: float, rng: np.random.Generator) -> None:
    """A smear of grey-brown grime over the middle of a place, soft edged and mostly opaque."""
    layer = np.zeros(cv.img.shape[:2], np.float32)
    ang = float(rng.uniform(0, 180))
    axes = (cv.r(0.26) >> cv.SHIFT, cv.r(0.16) >> cv.SHIFT)
    cx, cy = cv.px(x + float(rng.uniform(-0.04, 0.04)), y + float(rng.uniform(-0.04, 0.04)))
    centre = (cx >> cv.SHIFT, cy >> cv.SHIFT)
    cv2.ellipse(layer, centre, axes, ang, 0, 360, 1.0, -1, cv2.LINE_AA)
    layer = cv2.GaussianBlur(layer, (0, 0), TEX * 0.03)[..., None] * 0.9
    grime = np.array(_bgr((104, 92, 80)), np.float32)
    cv.img[:] = (cv.img * (1 - layer) + grime * layer).astype(np.uint8)


# --------------------------------------------------------------------------- the camera


def _hand(img: np.ndarray, hom: np.ndarray, geom: LatticeGeometry, scene: Scene, rng: np.random.Generator) -> None:
    """An arm reaching in from one side with its hand over `scene.hand`, and its shadow."""
    ht, wd = img.shape[:2]
    assert scene.hand is not None  # drawn only when a hand is over the board
    row, col = scene.hand
    pts = np.array([[col, row], [col + 1, row], [col, row + 1]], np.float64)
    ph = np.hstack([pts, np.ones((3, 1))]) @ hom.T
    ph = ph[:, :2] / ph[:, 2:3]
    tip = ph[0]
    pitch = float(np.linalg.norm(ph[1] - ph[0]) + np.linalg.norm(ph[2] - ph[0])) / 2
    side = scene.hand_side
    direction = {"bottom": (0, 1), "top": (0, -1), "left": (-1, 0), "right": (1, 0)}.get(side)
    if direction is None:
        raise RefereeError(f"unknown hand side {side!r}; expected bottom, top, left or right")
    d = np.array(direction, np.float64)
    d = d + rng.uniform(-0.25, 0.25, 2) * d[::-1]
    d /= np.linalg.norm(d)
    palm = tip + d * pitch * 1.6
    elbow = palm + d * max(wd, ht) * 1.5
    mask = np.zeros((ht, wd), np.uint8)
    f = 16

    def ip(p):
        return (int(round(p[0] * f)), int(round(p[1] * f)))

    cv2.line(mask, ip(palm), ip(elbow), 255, max(2, int(pitch * 2.0)), cv2.LINE_AA, 4)
    if scene.sleeve is not None:
        forearm = np.zeros((ht, wd), np.uint8)
        cv2.line(forearm, ip(palm), ip(elbow), 255, max(2, int(pitch * 2.0)), cv2.LINE_AA, 4)
    ang = float(np.degrees(np.arctan2(d[1], d[0])))
    cv2.ellipse(mask, ip(palm), (int(pitch * 1.3 * f), int(pitch * 1.05 * f)), ang, 0, 360, 255, -1, cv2.LINE_AA, 4)
    perp = np.array([-d[1], d[0]])
    for k, length in zip((-1.5, -0.5, 0.5, 1.5), (0.9, 1.05, 1.0, 0.8)):
        base = palm + perp * k * pitch * 0.36 - d * pitch * 0.6
        end = base - d * pitch * length
        cv2.line(mask, ip(base), ip(end), 255, max(2, int(pitch * 0.3)), cv2.LINE_AA, 4)
    thumb = palm + perp * pitch * 1.1
    cv2.line(
        mask, ip(thumb), ip(thumb + (perp * 0.7 - d * 0.5) * pitch), 255, max(2, int(pitch * 0.34)), cv2.LINE_AA, 4
    )

    shift = np.array([[1, 0, pitch * 0.5], [0, 1, pitch * 0.7]], np.float32)
    shadow: np.ndarray = cv2.warpAffine(mask, shift, (wd, ht))
    # Blur and blend only around the arm and its shadow: elsewhere both are zero and the picture
    # is left as it is. The margin covers the widest blur kernel, so the result is the same as
    # blurring the whole picture (8-bit Gaussian blur is exact integer arithmetic), only faster.
    ys, xs = np.nonzero(mask | shadow)
    if len(xs) == 0:
        return
    pad = int(np.ceil(pitch * 0.4 * 4)) + 4
    y0, y1 = max(0, int(ys.min()) - pad), min(ht, int(ys.max()) + 1 + pad)
    x0, x1 = max(0, int(xs.min()) - pad), min(wd, int(xs.max()) + 1 + pad)
    mask, shadow, part = mask[y0:y1, x0:x1], shadow[y0:y1, x0:x1], img[y0:y1, x0:x1]
    shadow = cv2.GaussianBlur(shadow, (0, 0), pitch * 0.4).astype(np.float32) / 255
    part[:] = (part * (1 - 0.45 * shadow[..., None])).astype(np.uint8)

    tones = [(224, 180, 150), (198, 140, 104), (160, 110, 80), (112, 72, 52)]
    tone = np.array(_bgr(tones[int(rng.integers(len(tones)))]), np.float32)
    alpha = cv2.GaussianBlur(mask, (0, 0), 1.0).astype(np.float32)[..., None] / 255
    shade = cv2.GaussianBlur(mask, (0, 0), pitch * 0.3).astype(np.float32)[..., None] / 255
    skin = tone * (0.75 + 0.25 * shade)
    part[:] = (part * (1 - alpha) + skin * alpha).astype(np.uint8)
    if scene.sleeve is not None:  # cloth over the forearm, from the wrist, over the hand's base
        cv2.circle(forearm, ip(palm), int(pitch * 1.3 * f), 0, -1, cv2.LINE_AA, 4)
        cloth = forearm[y0:y1, x0:x1]
        alpha = cv2.GaussianBlur(cloth, (0, 0), 1.0).astype(np.float32)[..., None] / 255
        shade = cv2.GaussianBlur(cloth, (0, 0), pitch * 0.3).astype(np.float32)[..., None] / 255
        weave = 1 + 0.06 * rng.standard_normal(cloth.shape).astype(np.float32)[..., None]
        dress = np.array(_bgr(scene.sleeve), np.float32) * (0.8 + 0.2 * shade) * weave
        part[:] = np.clip(part * (1 - alpha) + dress * alpha, 0, 255).astype(np.uint8)


def _hard_shadow(img: np.ndarray, hom: np.ndarray, geom: LatticeGeometry, shade, rng: np.random.Generator) -> None:
    """A desk lamp's hard shadow cast by something beside the board (`Scene.hard_shadow`): a band
    of the picture from the table across the frame, widening away from the lamp, where only the
    room's light is left: the lamp's share of the light is taken away, one factor per channel
    (the lamp and the room differ in colour), with an edge as sharp as a small lamp's."""
    row, col, width, angle = shade
    ht, wd = img.shape[:2]
    at = np.array([col, row], np.float64)
    normal = np.array(
        [(col > geom.cols - 1) - (col < 0), (row > geom.rows - 1) - (row < 0)], np.float64
    )  # outwards, from the side the point lies on
    normal /= max(float(np.linalg.norm(normal)), 1e-9)
    turn = np.radians(angle)
    inward = -(normal * np.cos(turn) + np.array([-normal[1], normal[0]]) * np.sin(turn))
    across = np.array([-inward[1], inward[0]])
    ends = ((-6.0, 0.6), (4.0, 1.4))  # (pitches along the light from the band point, width factor)
    poly = [at + inward * t + across * s * k * width / 2 for t, k in ends for s in (-1, 1)]
    poly = [poly[0], poly[1], poly[3], poly[2]]
    ph = np.hstack([np.array(poly), np.ones((4, 1))]) @ hom.T
    px = ph[:, :2] / ph[:, 2:3]
    pitch = _pitch(hom)
    f = 16
    mask = np.zeros((ht, wd), np.uint8)
    cv2.fillPoly(mask, [np.rint(px * f).astype(np.int32)], 255, cv2.LINE_AA, 4)
    soft = cv2.GaussianBlur(mask, (0, 0), max(0.6, pitch * float(rng.uniform(0.02, 0.08)))).astype(np.float32) / 255
    share = float(rng.uniform(0.5, 2.0))  # the lamp's light against the room's, on the board
    # The lamp's colour against the room's (BGR): two white lights of different colour temperature
    # differ mostly along blue-red (a 2700 K bulb against daylight: about e^0.6 redder, e^-0.6 less blue).
    warm = float(rng.uniform(-0.6, 0.6))
    tint = np.exp(np.array([-warm, 0.0, warm]))
    keep = (1 / (1 + share * tint)) ** (1 / 2.2)  # in the picture's (gamma-encoded) levels
    factor = 1 - soft[..., None] * (1 - keep.astype(np.float32))
    img[:] = np.clip(img * factor, 0, 255).astype(np.uint8)


@dataclass(frozen=True)
class _Light:
    """The table under the board and the light over it, which depend only on the seed."""

    table: np.ndarray
    field: np.ndarray
    gains: np.ndarray
    rng_state: Mapping[str, Any]


def _pitch(hom: np.ndarray) -> float:
    """Pixels per pitch near the board's origin, as the homography `hom` (board -> picture) scales."""
    return float(np.sqrt(abs(np.linalg.det(hom[:2, :2])))) / float(hom[2, 2])


@functools.lru_cache(maxsize=4)
def _light(seed: int, preset: str, size: tuple[int, int], n_shadows: int) -> _Light:
    """The table and one multiplicative light field (gradient, vignette, shadows) with a colour cast."""
    p = _preset(preset)
    w, h = size
    rng = _rng("light", seed, preset)
    table = np.empty((h, w, 3), np.uint8)
    grey = rng.integers(90, 140, 3)
    table[:] = _bgr((int(grey[0]), int(grey[1]), int(grey[2])))
    _grain(table, rng, 0.08)
    ys, xs = np.mgrid[0:h:8, 0:w:8].astype(np.float32)
    ang = rng.uniform(0, 2 * np.pi)
    u = ((xs - w / 2) * np.cos(ang) + (ys - h / 2) * np.sin(ang)) / (w / 2)
    field = 1 + p["gradient"] * u
    rr = ((xs - w / 2) ** 2 + (ys - h / 2) ** 2) / ((w / 2) ** 2 + (h / 2) ** 2)
    field *= 1 - p["vignette"] * rr
    for _ in range(n_shadows):
        cx, cy = rng.uniform(0.2, 0.8) * w, rng.uniform(0.2, 0.8) * h
        ax, ay = rng.uniform(0.08, 0.2) * w, rng.uniform(0.08, 0.2) * h
        blob = np.exp(-((((xs - cx) / ax) ** 2 + ((ys - cy) / ay) ** 2) ** 2))
        field *= 1 - rng.uniform(0.2, 0.35) * blob
    field = cv2.resize(field, (w, h), interpolation=cv2.INTER_LINEAR)
    gains = 1 + rng.uniform(-1, 1, 3) * p["cast"]
    gains *= 1 + rng.uniform(-1, 1) * p["exposure"]
    # Exposure is locked at calibration so that white paper does not clip: keep the brightest
    # lit white just under full scale, as a sensibly exposed camera would.
    peak = float(field.max()) * float(gains.max()) * max(looks.PAPER) / 255
    if peak > 0.97:
        gains *= 0.97 / peak
    for array in (table, field, gains):
        array.setflags(write=False)
    return _Light(table, field, gains, rng.bit_generator.state)


@functools.lru_cache(maxsize=4)
def _noise(seed: int, preset: str, frame: int, shape: tuple[int, ...], sigma: float) -> np.ndarray:
    """The sensor noise of frame `frame` (the simulated world cycles through a few of them)."""
    noise = _rng("noise", seed, preset, frame).normal(0, sigma, shape).astype(np.float32)
    noise.setflags(write=False)
    return noise


def render_scene(
    snapshot: Snapshot,
    profile,
    *,
    seed: int = 0,
    preset: str = "clean",
    scene: Scene | None = None,
    size: tuple[int, int] = (1280, 720),
) -> tuple[np.ndarray, np.ndarray]:
    """The image and the board-to-image homography the camera used (for tests and benches)."""
    scene = scene or Scene()
    seed = scene.seed if scene.seed is not None else seed
    preset = scene.preset if scene.preset is not None else preset
    p = _preset(preset)
    if profile is not None:
        geom = LatticeGeometry.from_profile(profile)
    else:
        geom = LatticeGeometry(snapshot.rows, snapshot.cols)
    if (snapshot.rows, snapshot.cols) != (geom.rows, geom.cols):
        raise RefereeError(
            f"the snapshot is {snapshot.rows}x{snapshot.cols} but the profile's board is {geom.rows}x{geom.cols}"
        )
    w, h = size
    hom = camera_homography(geom, seed=seed, preset=preset, size=size, bump=scene.bump)
    view = CameraView(hom, (int(w), int(h)))
    cv = _draw_board(
        snapshot, profile, geom, scene, seed, p["grain"], (p["tile_rot"], p["tile_shift"]), p["door_rot"], view
    )

    n_shadows = int(p["shadows"]) if scene.shadows is not False else 0
    if scene.shadows and not n_shadows:
        n_shadows = 1
    light = _light(seed, preset, (int(w), int(h)), n_shadows)
    rng = np.random.default_rng()
    rng.bit_generator.state = light.rng_state  # the glare goes on from where the light stopped
    img = cv2.warpPerspective(
        cv.img,
        hom @ cv.to_board(),
        (w, h),
        dst=light.table.copy(),
        flags=cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_TRANSPARENT,
    )

    if scene.hard_shadow is not None:
        _hard_shadow(img, hom, geom, scene.hard_shadow, _rng("hard shadow", seed, scene.hard_shadow))
    if scene.hand is not None:
        _hand(img, hom, geom, scene, _rng("hand", seed, scene.hand, scene.hand_side))

    lit = img.astype(light.field.dtype)  # in place from here on: the same arithmetic, fewer big temporaries
    lit *= light.field[..., None]
    lit *= light.gains.astype(np.float32)

    n_glare = int(p["glare"]) if scene.glare is not False else 0
    if scene.glare and not n_glare:
        n_glare = 2
    if n_glare or scene.glare_at:
        pitch = _pitch(hom)
        gl: np.ndarray = np.zeros((h, w), np.float32)
        pts = geom.points()
        for _ in range(n_glare):
            bx, by = pts[int(rng.integers(len(pts)))] + rng.uniform(-0.5, 0.5, 2)
            q = hom @ np.array([bx, by, 1.0])
            gx, gy = q[0] / q[2], q[1] / q[2]
            rad = rng.uniform(0.06, 0.16) * pitch
            cv2.circle(gl, (int(gx), int(gy)), max(1, int(rad)), float(rng.uniform(250, 400)), -1)
        if scene.glare_at:  # a lamp's reflection: a clipped core in a soft halo
            halo = np.zeros((h, w), np.float32)
            for row, col, radius in scene.glare_at:
                q = hom @ np.array([col, row, 1.0])
                level = float(_rng("glare_at", seed, row, col).uniform(250, 400))
                cv2.circle(halo, (int(q[0] / q[2]), int(q[1] / q[2])), max(1, int(radius * pitch)), level, -1)
                gl += cv2.GaussianBlur(halo, (0, 0), max(1.0, radius * pitch * 0.6)) * 1.5
                halo[:] = 0
        gl = cv2.GaussianBlur(gl, (0, 0), max(1.0, pitch * 0.05))
        lit += gl[..., None]

    if scene.sheen is not None:
        _sheen(lit, hom, scene.sheen, light.field, light.gains, _balls(snapshot, view), view.pose.height)

    out: np.ndarray = np.clip(lit, 0, 255, out=lit).astype(np.uint8)
    if p["blur"] > 0:
        out = cv2.GaussianBlur(out, (0, 0), p["blur"])
    noisy = out.astype(np.float32)
    noisy += _noise(seed, preset, scene.frame, out.shape, p["noise"])
    out = np.clip(noisy, 0, 255, out=noisy).astype(np.uint8)
    return out, hom


#: A ball as the camera sees it: its outline's centre x, y and radius, and its top's x, y (pixels).
Ball = tuple[float, float, float, float, float]


def _balls(snapshot: Snapshot, view: CameraView) -> list[Ball]:
    """Every ball or marble of `snapshot` as the camera sees it (for `_sheen`)."""
    solids = registry.get(snapshot.game).vision.solids
    out: list[Ball] = []
    for r, row in enumerate(snapshot.cells):
        for c, cell in enumerate(row):
            solid = solids.get(cell[0]) if cell != EMPTY else None
            if solid is None or solid.shape != SPHERE:
                continue
            radius = solid.size / 2
            centre, side, top = view.pose.project(
                np.array([[c, r], [c + radius, r], [c, r]], np.float64),
                np.array([solid.seen_at, solid.seen_at, solid.base + solid.size]),
            )
            rad = float(np.linalg.norm(side - centre))
            out.append((float(centre[0]), float(centre[1]), rad, float(top[0]), float(top[1])))
    return out


def _sheen(
    lit: np.ndarray,
    hom: np.ndarray,
    sheen: tuple[float, float, float, float, tuple[float, float, float]],
    field: np.ndarray,
    gains: np.ndarray,
    balls: list[Ball],
    camera_height: float,
) -> None:
    """Add a broad reflection (`Scene.sheen`) to the picture's light `lit`, in place: a Gaussian of
    light of one colour, its peak a share of what the paper reflects at its middle.

    What is flat (the board, tokens, tiles) mirrors the source over the whole patch. A ball does
    not: a sphere mirrors the whole room shrunk into its outline, so the source shows on it only as
    a small spot near its top (where its normal halves the angle between the camera and the source),
    as bright as the source but as wide as the source's angle times half the ball's radius; the rest
    of the ball shows its own colour (`balls` from `_balls`)."""
    row, col, spread, peak, colour = sheen
    h, w = lit.shape[:2]
    q = hom @ np.array([col, row, 1.0])
    cx, cy = q[0] / q[2], q[1] / q[2]
    pitch = _pitch(hom)
    yy, xx = np.ogrid[0:h, 0:w]
    shape = np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / (2 * (spread * pitch) ** 2)).astype(np.float32)
    if len(balls):
        f = 16
        hidden = np.zeros((h, w), np.uint8)
        for bx, by, rad, *_ in balls:
            cv2.circle(hidden, (int(round(bx * f)), int(round(by * f))), int(round(rad * f)), 255, -1, cv2.LINE_AA, 4)
        shape *= 1 - hidden.astype(np.float32) / 255
        for _, _, rad, tx, ty in balls:
            # the source's angle (its spread on the board seen from the camera's height) times half the radius
            sigma = max(0.7, rad * spread / max(camera_height, 1.0) / 2)
            x0, x1 = max(int(tx - 4 * sigma), 0), min(int(tx + 4 * sigma) + 2, w)
            y0, y1 = max(int(ty - 4 * sigma), 0), min(int(ty + 4 * sigma) + 2, h)
            if x0 >= x1 or y0 >= y1:
                continue
            sy, sx = np.ogrid[y0:y1, x0:x1]
            spot = np.exp(-((sx - tx) ** 2 + (sy - ty) ** 2) / (2 * sigma**2)).astype(np.float32)
            np.maximum(shape[y0:y1, x0:x1], spot, out=shape[y0:y1, x0:x1])
    paper = float(np.mean(looks.PAPER)) * float(field[int(np.clip(cy, 0, h - 1)), int(np.clip(cx, 0, w - 1))])
    tint = np.asarray(colour, np.float32) * np.asarray(gains, np.float32) * np.float32(peak * paper)
    lit += shape[..., None] * tint


class CameraView:
    """The pinhole camera a homography implies (`controller.vision.pose`): where a point raised above
    the board appears, so that a piece's top is drawn where the camera would see it. The flat
    renderer has no camera of its own besides its homography, so it takes the pose the homography
    implies, as a reader measuring it would."""

    def __init__(self, hom: np.ndarray, size: tuple[int, int]) -> None:

        self.hom = hom
        self.pose = CameraPose.from_homography(hom, size)

    def lift(self, x: float, y: float, height: float) -> tuple[float, float]:
        """The board point the picture shows where (x, y) raised `height` pitches appears."""
        ((bx, by),) = self.pose.seen_from_above(self.hom, np.array([[x, y]]), height)
        return float(bx), float(by)


def render_snapshot(
    snapshot: Snapshot,
    profile,
    *,
    seed: int = 0,
    preset: str = "clean",
    scene: Scene | None = None,
    size: tuple[int, int] = (1280, 720),
) -> np.ndarray:
    """Draw `snapshot` as the camera would see it (BGR uint8, `size` = (width, height))."""
    return render_scene(snapshot, profile, seed=seed, preset=preset, scene=scene, size=size)[0]


def random_snapshot(game: str, profile, seed: int, fill: float = 0.6) -> Snapshot:
    """A plausible random position of `game` (for the simulated world, tests and benches), as its
    `PlaySpec` declares: pieces scattered over `fill` of the places, or filling columns from the
    bottom where they fall (Colorpop's slides); random extra lines and the places they leave no
    piece on (Stay Alive's slides and open points); a random glyph on every piece of a game whose
    reader reads glyphs (Blockers!)."""
    spec = registry.get(game)
    play = spec.play
    rng = np.random.default_rng(seed)
    rows, cols = profile.rows, profile.cols
    letters = list(profile.letters)
    cells = [[EMPTY] * cols for _ in range(rows)]
    lines, blocked = play.random_lines(profile, rng) if play.random_lines is not None else ({}, frozenset())
    glyphs = list(GLYPHS) if spec.reads(GLYPHS_ADDON) else None
    for c in range(cols):
        height = int(rng.integers(0, rows + 1)) if play.falls_to_bottom else 0
        for r in range(rows):
            if play.falls_to_bottom:
                put = r >= rows - height
            else:
                put = rng.random() < fill and (r, c) not in blocked
            if not put:
                continue
            letter = str(rng.choice(letters))
            if glyphs is not None:
                letter += str(rng.choice(glyphs))
            cells[r][c] = letter
    return Snapshot(game, tuple(tuple(r) for r in cells), lines)
