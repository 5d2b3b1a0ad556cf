"""Blockers! glyphs: the light across one tile, where a lamp's shadow edge crosses it.

One tile is one colour, so under an even light its plain parts (tile, not print) match wherever
they lie. A shadow whose edge crosses the tile darkens part of it, and the ink is then read
against one level of the tile and one of the print for the whole patch: the shadowed print may
fall towards the tile's level (a stroke lost, or read weaker than its rival's), or the lit tile
rise towards the print's. `glyphs._read` leaves a tile unsure when its light's step is half the
print's contrast (`light_step`), and reads every tile whose light is not even (`EVEN_STEP`) again
with the light made even (`evened`): under the most likely light (`light_between`) the tile must
be read surely as the same glyph, and under the least and the most light each pixel may have
(`light_bounds`: a shadow's edge may pass over the print) the same glyph must match best.
"""

from __future__ import annotations

import cv2
import numpy as np

from controller.vision.glyph_ink import PATCH, SUPPORT, _dilate_rows, _normalise_planes
from controller.vision.glyph_model import GLYPHS, GlyphModel

#: The light across a tile is measured on its plain parts (ink at most `PLAIN_INK`) in `CELLS` x
#: `CELLS` cells of its patch, each with at least `MIN_PLAIN` such pixels (`plain_medians`).
CELLS = 3
PLAIN_INK = 0.1
MIN_PLAIN = 12

_CELL = (np.arange(PATCH) * CELLS) // PATCH
#: The patch pixels of each of the `CELLS` x `CELLS` cells.
_CELL_PIXELS = [np.flatnonzero((_CELL[:, None] * CELLS + _CELL[None, :]).ravel() == k) for k in range(CELLS * CELLS)]


def row_medians(values: np.ndarray, keep: np.ndarray) -> np.ndarray:
    """(N,) the median of each row's kept values (each row keeps at least one), by one sort:
    the others are sent to the end as infinity (np.nanmedian over rows is far slower)."""
    ranked = np.sort(np.where(keep, values, np.array(np.inf, np.float32)), axis=1)
    count = keep.sum(axis=1)
    rows = np.arange(len(ranked))
    return (ranked[rows, (count - 1) // 2] + ranked[rows, count // 2]) / 2


def _plain(ink: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """(N, K) bool: each tile's plain pixels (`plain_medians`)."""
    near_print = _dilate_rows((ink > PLAIN_INK) | ((mask == 0) & (SUPPORT[None, :] > 0)), np.arange(len(ink))) > 0
    return ~near_print & (SUPPORT[None, :] > 0)


def plain_medians(planes: list[np.ndarray], ink: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """(N, CELLS * CELLS, 3) the median colour of each tile's plain parts (ink at most `PLAIN_INK`)
    in each of `CELLS` x `CELLS` cells of its disc; NaN in a cell with fewer than `MIN_PLAIN` of them.

    Pixels beside print (lifted by the blur) and beside glare (whose halo adds light: it is the ink
    reading's to read, by chroma) are left out: only a change of the light that falls on the tile
    is measured."""
    n = len(ink)
    plain = _plain(ink, mask)
    medians = np.full((n, CELLS * CELLS, 3), np.nan, np.float32)
    for k, pixels in enumerate(_CELL_PIXELS):
        in_cell = plain[:, pixels]
        enough = np.flatnonzero(in_cell.sum(axis=1) >= MIN_PLAIN)
        if not len(enough):
            continue
        for c, plane in enumerate(planes):
            medians[enough, k, c] = row_medians(plane[enough][:, pixels], in_cell[enough])
    return medians


def light_step(medians: np.ndarray) -> np.ndarray:
    """(N,) how much the light varies across each tile, in grey levels: the largest distance
    between the median colours of its plain parts (`plain_medians`) in any two cells."""
    d = np.sqrt(((medians[:, :, None, :] - medians[:, None, :, :]) ** 2).sum(axis=3))
    return np.where(np.isnan(d), 0.0, d).max(axis=(1, 2))


#: A tile whose plain parts differ by less than this (grey levels, `light_step`) is in an even
#: light: the sensor's noise and the print's blur stay below it (`tests/test_glyph_shadow_edge.py`).
EVEN_STEP = 10.0


#: How far (patch pixels) the nearest plain pixels may lie from a pixel of print: the rim left out
#: beside the print (2) and half a stroke (`light_bounds`).
REACH = 5
_WINDOWS = [np.ones((2 * r + 1, 2 * r + 1), np.uint8) for r in range(REACH + 2)]


def light_between(planes: list[np.ndarray], ink: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """(N, K, 3) the light most likely on each pixel of each tile, channel by channel: the plain
    pixels' colour, averaged with weights falling off over `REACH` pixels (a normalised blur), so
    a smooth change of the light (a lamp's falloff, a shadow's soft edge) is followed smoothly over
    the print."""
    n = len(ink)
    plain = _plain(ink, mask).reshape(n, PATCH, PATCH).astype(np.float32)
    colour = np.stack(planes, axis=-1).astype(np.float32).reshape(n, PATCH, PATCH, 3)
    light = colour.copy()
    for i in range(n):
        if not plain[i].any():
            continue
        weight = cv2.GaussianBlur(plain[i], (0, 0), REACH / 2)[..., None]
        light[i] = cv2.GaussianBlur(colour[i] * plain[i][..., None], (0, 0), REACH / 2) / np.maximum(weight, 1e-6)
    return light.reshape(n, -1, 3)


def light_bounds(planes: list[np.ndarray], ink: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(low, high), each (N, K, 3): the least and the most light that may fall on each pixel of
    each tile, channel by channel, in the tile's own grey levels.

    Where the tile is plain its colour is the light there (one tile is one colour). Over the print
    the light is told by the plain pixels nearest it (those within one pixel more than the
    nearest, up to `REACH`: both sides of a stroke); where they differ, a shadow's edge may pass
    over the print, which then lies in the lit part or the shadowed one, and both bounds are kept."""
    n = len(ink)
    plain = _plain(ink, mask).reshape(n, PATCH, PATCH)
    low = np.stack(planes, axis=-1).astype(np.float32).reshape(n, PATCH, PATCH, 3)
    high = low.copy()
    big = np.float32(1e6)
    for i in range(n):
        if not plain[i].any():
            continue
        away = cv2.distanceTransform((~plain[i]).astype(np.uint8), cv2.DIST_C, 3)
        radius = np.minimum(np.ceil(away).astype(int) + 1, REACH + 1)
        # The plain pixels' colour, its noise averaged over their plain neighbours.
        weight = cv2.blur(plain[i].astype(np.float32), (3, 3))[..., None]
        smooth = cv2.blur(low[i] * plain[i][..., None], (3, 3)) / np.maximum(weight, 1e-3)
        top = np.where(plain[i][..., None], smooth, -big)
        bottom = np.where(plain[i][..., None], smooth, big)
        # Beyond `REACH` of any plain pixel: anywhere between the tile's darkest and lightest.
        high[i][~plain[i]], low[i][~plain[i]] = top.max(axis=(0, 1)), bottom.min(axis=(0, 1))
        for r in np.unique(radius[~plain[i]]).tolist():
            most, least = cv2.dilate(top, _WINDOWS[r]), cv2.erode(bottom, _WINDOWS[r])
            found = ~plain[i] & (radius == r) & (most[..., 0] > -big)
            high[i][found], low[i][found] = most[found], least[found]
    return low.reshape(n, -1, 3), high.reshape(n, -1, 3)


def evened(planes: list[np.ndarray], light: np.ndarray) -> list[np.ndarray]:
    """The tiles' patches (`planes`, each (N, K)) as they would look with the light across each
    tile made even: each pixel multiplied, channel by channel, by the least light on the tile's
    disc over the light at that pixel (`light`, (N, K, 3), from `light_bounds`). A shadow
    multiplies tile and print alike, so this undoes it where the light is known; brought down to
    the darkest light, no pixel is pushed into clipping or above the paper's white."""
    dark = np.where(SUPPORT[None, :, None] > 0, light, np.inf).min(axis=1)
    return [p * (dark[:, None, c] / np.maximum(light[..., c], 1.0)) for c, p in enumerate(planes)]


def read_otherwise(
    model: GlyphModel,
    planes: list[np.ndarray],
    ink: np.ndarray,
    mask: np.ndarray,
    contrast: np.ndarray,
    axis: np.ndarray,
    white: np.ndarray | None,
    glyphs: list[str],
    clear: bool = False,
) -> np.ndarray:
    """(N,) bool: which tiles, read surely as `glyphs` from their patches (`planes`; `ink`, `mask`,
    `contrast` and colour `axis` as read), may be another glyph with their light made even: not
    read surely as the same glyph under the likeliest light (`light_between`), or matching another
    glyph best under the least or the most light (`light_bounds`). `white` and `clear` as the ink
    reading's (`glyph_ink._ink`)."""
    doubt = np.zeros(len(glyphs), bool)
    for k, light in enumerate((light_between(planes, ink, mask), *light_bounds(planes, ink, mask))):
        even_ink, even_mask, _ = _normalise_planes(evened(planes, light), white, axis, clear)
        if k == 0:  # the contrast as read: brought down to the darkest light, the print keeps its share
            again = model.decide(even_ink, even_mask, contrast).glyphs
        else:
            again = [GLYPHS[g] for g in model.scores(even_ink, even_mask).argmax(axis=1)]
        doubt |= np.array([a != g for a, g in zip(again, glyphs)])
    return doubt
