"""Calibration of shapes: a real copy's Blockers! glyphs and Flipop doors.

Blockers! glyphs (`learn_glyphs`): the 28 tiles of one colour laid out in this arrangement,
each tile square in its cell, every other cell empty (glyph shapes do not depend on colour, so
one colour is enough; pictures of more colours are averaged, and a tile under glare in one
picture is taken from the others)::

    row A (top):  1 2 3 4 5 6 7 8 9        the digits, in columns 1-9
    row B:        A B C D E F G H I        the letters
    row C:        a b c d e f g h i        the nine symbols, in the profile's `symbols` order
    row D:        *                        the wild tile, in column 1
    rows E-I:     empty

Each tile's glyph is cut out as the reader sees it (colour-free, centred on its ink), turned
back square by the angle of the tile's own edges, and stored in the profile's `vision.glyphs`
as a 28x28 8-bit image in base64 text (about 1 KB per glyph).

Flipop doors (`learn_doors`): a picture of the profile's start position, whose doors are known
from its `doors:` line; every half-edge then is a labelled example of a wing or a bare edge, and
the two references are stored in `vision.doors` like the colour references.
"""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np

from calibration.vision import games_that
from controller.errors import RefereeError
from controller.games import registry
from controller.games.spec import DOORS_ADDON, GLYPHS_ADDON, post_words
from controller.language import _, listed
from controller.snapshot import EMPTY, parse_snapshot
from controller.vision import glyphs as gl
from controller.vision.classify import ClassModel
from controller.vision.doors import (
    ABSENT,
    DEFAULT_SIGMA,
    MAX_HIDDEN,
    PRESENT,
    WINGS,
    DoorSampler,
    bar_cues,
    door_features,
    door_from_lines,
    post_of,
    turns,
)
from controller.vision.reader import BoardReader

#: (row, col) of each glyph in the calibration arrangement.
ARRANGEMENT: dict[str, tuple[int, int]] = {
    **{g: (0, k) for k, g in enumerate("123456789")},
    **{g: (1, k) for k, g in enumerate("ABCDEFGHI")},
    **{g: (2, k) for k, g in enumerate("abcdefghi")},
    "*": (3, 0),
}
#: Two learned glyphs this alike mean the arrangement was not the documented one.
MAX_LIKENESS = 0.995


def _games_reading(addon: str) -> Any:

    return games_that(lambda spec: spec.reads(addon))


def _with_vision(profile, key: str, value):
    vision = dict(profile.get("vision") or {})
    vision[key] = value
    vision["version"] = 1
    return profile.with_overrides({"vision": vision}, source=profile.source)


def tile_angle(frame: np.ndarray, h: np.ndarray, centres: np.ndarray) -> np.ndarray:
    """Each tile's turn in degrees (clockwise on the board), from its edges: the gradient
    directions in a band around the tile's outline, taken modulo 90 degrees."""
    n, side, half = len(centres), 48, 0.5
    g = (np.arange(side) + 0.5) / side * 2 * half - half
    grid = np.stack(np.meshgrid(g, g), axis=-1).reshape(-1, 2)
    pts = (centres[:, None, :] + grid[None]).reshape(-1, 1, 2)
    img = cv2.perspectiveTransform(pts, h).reshape(-1, side, 2).astype(np.float32)
    grey = cv2.cvtColor(cv2.remap(frame, img[..., 0], img[..., 1], cv2.INTER_LINEAR), cv2.COLOR_BGR2GRAY)
    grey = grey.astype(np.float32).reshape(n, side, side)
    r = np.hypot(grid[:, 0], grid[:, 1]).reshape(side, side)
    band = ((r > 0.33) & (r < 0.5)).astype(np.float32)
    out = []
    for k in range(n):
        gx = cv2.Sobel(grey[k], cv2.CV_32F, 1, 0, ksize=3)
        gy = cv2.Sobel(grey[k], cv2.CV_32F, 0, 1, ksize=3)
        w = (gx * gx + gy * gy) * band
        z = (w * np.exp(4j * np.arctan2(gy, gx))).sum()
        out.append(np.degrees(np.angle(z)) / 4)
    return np.array(out)


def learn_glyphs(profile, images: list[np.ndarray], corners=None):
    """The profile with `vision.glyphs` learned from pictures of the calibration arrangement."""
    if not registry.get(profile.game).reads(GLYPHS_ADDON):
        raise RefereeError(_("the glyph calibration is for {games}", games=_games_reading(GLYPHS_ADDON)))
    if not images:
        raise RefereeError(_("the glyph calibration needs at least one picture"))
    cells = {pos: g for g, pos in ARRANGEMENT.items()}
    sums = {g: np.zeros((gl.PATCH, gl.PATCH), np.float64) for g in gl.GLYPHS}
    counts = dict.fromkeys(gl.GLYPHS, 0)
    for image in images:
        reader = BoardReader(profile, corners=corners)
        reading = reader.read(image)
        if reading.cells is None:
            raise RefereeError(_("the calibration picture cannot be read: {problem}", problem=reading.problem))
        for r in range(profile.rows):
            for c in range(profile.cols):
                got = reading.cells[r][c]
                if (r, c) in cells and got[:1] in (EMPTY, "?"):
                    raise RefereeError(
                        _(
                            "no tile was seen at row {row}, column {column}, where the glyph {glyph} belongs (rows "
                            "A-C: 1-9, A-I, the nine symbols; the wild tile at D1)",
                            row=str(r),
                            column=str(c),
                            glyph=repr(cells[(r, c)]),
                        )
                    )
                if (r, c) not in cells and got != EMPTY:
                    raise RefereeError(
                        _(
                            "row {row}, column {column} should be empty in the glyph calibration",
                            row=str(r),
                            column=str(c),
                        )
                    )
        colours = {reading.cells[r][c][0] for r, c in cells}
        assert reader.h is not None  # the picture was read: the board was found
        if len(colours) != 1:
            raise RefereeError(
                _("lay out the tiles of one colour only: seen {colours}", colours=" ".join(sorted(colours)))
            )
        white = reader.paper_white(image)
        order = list(gl.GLYPHS)
        centres = np.array([[ARRANGEMENT[g][1], ARRANGEMENT[g][0]] for g in order], np.float64)
        local = (
            np.tile(white, (len(order), 1))
            if white.ndim == 1
            else reader.paper_weights[[ARRANGEMENT[g][0] * profile.cols + ARRANGEMENT[g][1] for g in order]] @ white
        ) * 255
        tops = reader.glyphs_homography(image)  # the glyphs are printed on the tiles' tops
        ink, mask, contrast = gl.centred_patches(image, tops, centres, local)
        angles = tile_angle(image, tops, centres)
        for k, g in enumerate(order):
            # A glared or faint tile is left to the other pictures (glare moves with the light).
            if mask[k].sum() >= 0.9 * gl.SUPPORT.sum() and contrast[k] >= gl.MIN_CONTRAST:
                sums[g] += _turned(ink[k].reshape(gl.PATCH, gl.PATCH), -angles[k])
                counts[g] += 1
    unseen = [g for g in gl.GLYPHS if not counts[g]]
    if unseen:
        raise RefereeError(
            _(
                "the glyph {glyph} is not clearly visible in any picture (glare or a faint print): take another "
                "picture with the light from elsewhere",
                glyph=repr(unseen[0]),
            )
        )
    learned = {
        g: np.clip(v / counts[g] / max(float(np.percentile(v / counts[g], 99)), 1e-3), 0, 1) for g, v in sums.items()
    }
    _check_distinct(learned)
    data = {"size": gl.PATCH, "templates": {g: gl.encode_image(learned[g]) for g in gl.GLYPHS}}
    return _with_vision(profile, "glyphs", data)


def _turned(image: np.ndarray, angle: float) -> np.ndarray:
    """`image` turned by `angle` degrees clockwise about its centre."""
    c = (gl.PATCH / 2 - 0.5, gl.PATCH / 2 - 0.5)
    m = cv2.getRotationMatrix2D(c, -angle, 1.0)
    return cv2.warpAffine(image.astype(np.float32), m, (gl.PATCH, gl.PATCH), flags=cv2.INTER_LINEAR)


def _check_distinct(learned: dict[str, np.ndarray]) -> None:
    flat = np.stack([gl.SUPPORT * learned[g].reshape(-1) for g in gl.GLYPHS]).astype(np.float64)
    flat -= flat.mean(axis=1, keepdims=True)
    flat /= np.maximum(np.linalg.norm(flat, axis=1, keepdims=True), 1e-9)
    sim = flat @ flat.T
    np.fill_diagonal(sim, -1)
    i, j = np.unravel_index(int(sim.argmax()), sim.shape)
    if sim[i, j] > MAX_LIKENESS:
        raise RefereeError(
            _(
                "the glyphs {first} and {second} look the same: are the tiles laid out as documented (rows A-C: "
                "1-9, A-I, the symbols in profile order; wild at D1)?",
                first=repr(gl.GLYPHS[i]),
                second=repr(gl.GLYPHS[j]),
            )
        )


def learn_doors(profile, image: np.ndarray, corners=None, name: Any = None):
    """The profile with `vision.doors` learned from a picture of its start position.

    A half-edge glare hides is neither learned from nor checked (glare moves with the light, the
    reader leaves such a door `?`); a half-edge seen clearly and read against the start's doors
    refuses the picture, naming the posts, unless the wings' lines there show the start's door
    (`doors.bar_cues`): a ball's or a post's shadow over a half-edge has a wing's colour (3D room 14:
    the home row's balls, lit from the side, shade the next posts' north half-edges)."""
    name = name if name is not None else _("the start picture")

    start = profile.get("start")
    if not registry.get(profile.game).reads(DOORS_ADDON) or not start:
        raise RefereeError(
            _("the door calibration is for {games}, whose profile has a start", games=_games_reading(DOORS_ADDON))
        )
    doors = parse_snapshot(profile.game, start).line("doors")
    if doors is None:
        raise RefereeError(_("the door calibration needs a profile whose start says where the doors are"))
    reader = BoardReader(profile, corners=corners)
    white = reader.paper_white(image)
    if reader.h is None:
        raise RefereeError(_("the board was not found in {name}: are its four markers in view?", name=name))
    sampler = DoorSampler(reader.geom.rows, reader.geom.cols)
    weights = reader.light.weights(sampler.posts)
    local = (np.tile(white, (len(weights), 1)) if white.ndim == 1 else weights @ white) * 255
    h = reader.doors_homography(image)
    feats, used = door_features(sampler, image, h, local)
    groups: dict[str, list[np.ndarray]] = {PRESENT: [], ABSENT: []}
    for k, door in enumerate(doors):
        for w, wing in enumerate(WINGS):
            if used[k, w] >= 0.8:
                groups[PRESENT if wing in door else ABSENT].append(feats[k, w])
    if len(groups[PRESENT]) < 3 or len(groups[ABSENT]) < 3:
        raise RefereeError(
            _(
                "too few door edges were clearly visible in {name} to learn the doors: glare? take the picture with "
                "the light from elsewhere",
                name=name,
            )
        )
    shading = np.diag(np.array(DEFAULT_SIGMA) ** 2) * 0.5
    refs = [
        ClassModel.fit_ref("wing", PRESENT, np.array(groups[PRESENT]), shading),
        ClassModel.fit_ref("bare", ABSENT, np.array(groups[ABSENT]), shading),
    ]
    model = ClassModel(refs)
    dec = model.decide(feats.reshape(-1, feats.shape[-1]))
    want = np.array([[w in d for w in WINGS] for d in doors]).reshape(-1)
    seen = dec.sure & (used.reshape(-1) >= 1 - MAX_HIDDEN)
    wrong = sorted({int(i) // 4 for i in np.flatnonzero(seen & ((np.array(dec.letters) == PRESENT) != want))})
    if wrong:  # a shadow darkens the floor to a wing's colour, never into a wing's thin neutral line
        lines, bare = bar_cues(sampler.sample_profiles(image, h, np.array(wrong)), local[wrong])
        shapes = [turns(d) for d in doors]
        wrong = [k for j, k in enumerate(wrong) if door_from_lines(shapes[k], lines[j], bare[j]) != doors[k]]
    if wrong:
        posts = {k: post_of(k, reader.geom.cols) for k in wrong[:6]}
        place_name = registry.get(profile.game).place_name
        what = listed(
            [
                _("{post}: {doors} at the start", post=post_words(posts[k], place_name), doors=doors[k])
                for k in wrong[:6]
            ],
            None,
        )
        raise RefereeError(
            _("the doors in {name} do not match the profile's start doors at {posts}", name=name, posts=what)
        )
    return _with_vision(profile, "doors", model.to_yaml())
