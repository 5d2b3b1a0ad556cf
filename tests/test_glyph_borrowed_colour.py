"""Blockers! glyphs in a compressed frame (`controller/vision/glyph_bleed.py`): JPEG keeps each
pixel's brightness but a 2 x 2 block's colour, so a thin white stroke on a saturated tile takes
the tile's colour and its strong channel clips as glare would make it. Such a stroke is print, read
surely; a real glare spot beside the print, which lends no colour, is still left out."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from controller.profile import default_profile
from controller.snapshot import EMPTY
from controller.vision import glyph_bleed
from controller.vision import glyph_ink as ink_module
from controller.vision.glyphs import ANGLES, GLYPHS, GRID, SUPPORT, GlyphModel, normalise
from controller.vision.reader import BoardReader
from simulation.render import random_snapshot, render_snapshot


def _jpeg(image: np.ndarray, quality: int = 85) -> np.ndarray:
    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])
    assert ok
    return cv2.imdecode(data, cv2.IMREAD_COLOR)


def _glyphs(seed: int) -> tuple[int, int, int]:
    """(tiles, read right, wrong but sure) of a bright clean Blockers! board seen through JPEG."""
    p = default_profile("blockers")
    snap = random_snapshot("blockers", p, seed=7000 + seed)
    reading = BoardReader(p).read(_jpeg(render_snapshot(snap, p, seed=seed, preset="clean")))
    assert reading.cells is not None, reading.problem
    tiles = right = wrong = 0
    for r, row in enumerate(snap.cells):
        for c, truth in enumerate(row):
            if truth == EMPTY:
                continue
            tiles += 1
            got = reading.cells[r][c]
            right += got == truth
            wrong += "?" not in got and got != truth
    return tiles, right, wrong


@pytest.mark.slow
def test_print_that_took_the_tiles_colour_in_a_jpeg_frame_is_read(monkeypatch) -> None:
    """A bright board (white paper near 240) through JPEG: the white strokes on blue and violet
    tiles clip in blue, as glare would. Two rules read them as print, each alone leaving some
    unsure: the borrowed colour (`glyph_bleed`: a stroke's pixels took the tile's colour) and the
    print's own level (`glyph_ink.PRINT_OVER_WHITE`: the print is a little brighter than the paper,
    and its excess over the paper's white is not glare, where that explains the whole tile). With
    both, more than nine glyphs in ten are sure and right; with either alone fewer; with neither,
    one tile in ten more is unsure than with the borrowed colour alone, one in twenty more than
    with the print's level alone. None is read wrongly any way."""
    seeds = (0, 1)
    both = [_glyphs(seed) for seed in seeds]
    monkeypatch.setattr(ink_module, "PRINT_OVER_WHITE", 1.0)  # print read against the paper's white
    bleed_only = [_glyphs(seed) for seed in seeds]
    monkeypatch.setattr(glyph_bleed, "NOISE_TIMES", np.inf)  # no colour is ever borrowed
    neither = [_glyphs(seed) for seed in seeds]
    monkeypatch.setattr(ink_module, "PRINT_OVER_WHITE", 1.1)
    level_only = [_glyphs(seed) for seed in seeds]
    arms = (both, bleed_only, level_only, neither)
    assert all(sum(w for _, _, w in arm) == 0 for arm in arms)
    tiles = sum(t for t, _, _ in both)
    right, bleed, level, none = (sum(r for _, r, _ in arm) for arm in arms)
    assert right >= 0.9 * tiles and right > max(bleed, level)
    assert bleed - none >= 0.1 * tiles and level - none >= 0.05 * tiles


def _tile_with_spot(glyph: str, tile: tuple[float, float, float], height: float, at: tuple[float, float], rng):
    """(pixels (1, K, 3), paper (1, 3)): a tile showing `glyph` in bright light under a round
    white glare spot `height` grey levels high at `at` (pitches from the centre), with sensor
    noise, clipped at 255."""
    model = GlyphModel()
    t = model.templates[GLYPHS.index(glyph) * len(ANGLES) + ANGLES.index(0.0)]
    tile_, paper = np.array(tile), np.array([228.0, 233.0, 236.0])
    pix = tile_ + t[:, None] * (paper - tile_)
    spot = height * np.exp(-((GRID[:, 0] - at[0]) ** 2 + (GRID[:, 1] - at[1]) ** 2) / 0.005)
    pix = pix + spot[:, None] + rng.normal(0, 3.0, pix.shape)
    return np.clip(pix, 0, 255).astype(np.float32)[None], paper[None]


def test_a_glare_spot_beside_the_print_lends_no_colour_and_stays_left_out(monkeypatch) -> None:
    """Glare adds white light, no colour: beside a spot no pixel reads more print by its chroma
    than by its brightness, so the spot's clipped pixels are left out exactly as without the
    rule, on red, blue, violet and green tiles in bright light (where the spot clips the tile's
    strong channel but not the print beside it)."""
    rng = np.random.default_rng(5)
    tiles = [(57.0, 57.0, 187.0), (200.0, 85.0, 43.0), (171.0, 63.0, 133.0), (60.0, 150.0, 60.0)]
    cases = [
        (glyph, tile, height, at)
        for glyph in "8E1h"
        for tile in tiles
        for height in (80.0, 160.0)
        for at in ((0.24, 0.0), (0.0, 0.24), (-0.2, 0.1))
    ]
    left_out = 0
    for glyph, tile, height, at in cases:
        pix, paper = _tile_with_spot(glyph, tile, height, at, rng)
        _, mask, _ = normalise(pix, paper)
        with monkeypatch.context() as m:
            m.setattr(glyph_bleed, "NOISE_TIMES", np.inf)
            _, mask_without, _ = normalise(pix, paper)
        assert np.array_equal(mask, mask_without), (glyph, tile, height, at)
        left_out += int((mask[0][SUPPORT > 0] == 0).any())
    assert left_out > len(cases) // 4  # the spots do leave pixels out: the check above is not idle


def test_borrowed_colour_is_seen_beside_a_pixel_not_far_from_it() -> None:
    """`borrowed_colour` on one blue tile: a pixel whose chroma reads print while its brightness
    reads tile (it took the print's colour) marks the pixels within `REACH` of it, and no other."""
    side = ink_module.PATCH
    k = side * side
    tile, paper = np.array([200.0, 85.0, 43.0]), np.array([228.0, 233.0, 236.0])
    pix = np.tile(tile, (k, 1))
    lent_at = (side // 2) * side + side // 2  # the middle pixel
    # Its brightness stays the tile's, its colour moves half way to white paper's.
    grey, tile_grey = (paper - paper.mean()), tile - tile.mean()
    pix[lent_at] = tile + 0.5 * (grey - tile_grey)
    planes = [np.ascontiguousarray(pix[None, :, c], np.float32) for c in range(3)]
    d, off = glyph_bleed.chroma_step(tile[None], paper[None])
    level = np.array([200.0])
    by_brightness = np.zeros((1, k), np.float32)
    near = (side // 2, side // 2 + glyph_bleed.REACH)
    far = (side // 2, side // 2 + glyph_bleed.REACH + 1)
    at = (np.zeros(2, int), np.array([near[0] * side + near[1], far[0] * side + far[1]]))
    disc = np.ones(k, np.float32)
    clipped = np.zeros((1, k), bool)
    got = glyph_bleed.borrowed_colour(planes, by_brightness, (d, off), disc, clipped, level, ink_module.NOISE, at)
    assert got.tolist() == [True, False]
