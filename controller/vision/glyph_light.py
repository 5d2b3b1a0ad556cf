"""Blockers! glyphs: the light across one tile, where a lamp's shadow edge crosses it.

One tile is one colour, so under an even light its plain parts (tile, not print) match wherever
they lie. A shadow whose edge crosses the tile darkens part of it, and the ink is then read
against one level of the tile and one of the print for the whole patch: the shadowed print may
fall towards the tile's level (a stroke lost, or read weaker than its rival's), or the lit tile
rise towards the print's. `glyphs._read` leaves a tile unsure when its light's step is half the
print's contrast (`light_step`), and reads every tile whose light is not even (`EVEN_STEP`) again
with the light made even (`evened`: each pixel over the light on it, told by the plain pixels
around it, `light_between`): a tile not read surely as the same glyph then is unsure. The patch
was centred on the ink read in the uneven light, which a shadowed stroke's weaker ink pulls towards
the lit ones; where the evened ink's own centre lies apart, the evened reading is made around it
too, and both must agree.
"""

from __future__ import annotations

from collections.abc import Callable

import cv2
import numpy as np

from controller.vision.glyph_ink import PATCH, PPG, SUPPORT, _dilate_rows, _normalise_planes, ink_centre
from controller.vision.glyph_model import GlyphModel

#: The light across a tile is measured on its plain parts (ink at most `PLAIN_INK`) in `CELLS` x
#: `CELLS` cells of its patch, each with at least `MIN_PLAIN` such pixels (`plain_medians`).
CELLS = 3
PLAIN_INK = 0.1
MIN_PLAIN = 12

_CELL = (np.arange(PATCH) * CELLS) // PATCH
#: The patch pixels of each of the `CELLS` x `CELLS` cells.
_CELL_PIXELS = [np.flatnonzero((_CELL[:, None] * CELLS + _CELL[None, :]).ravel() == k) for k in range(CELLS * CELLS)]
#: (cells, most pixels in a cell) the patch pixels of each cell, padded with PATCH * PATCH (a column
#: `plain_medians` adds, never plain).
_WIDEST = max(len(p) for p in _CELL_PIXELS)
_CELL_INDEX = np.array([np.pad(p, (0, _WIDEST - len(p)), constant_values=PATCH * PATCH) for p in _CELL_PIXELS])


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
    # Every cell's plain pixels at once, each cell padded to the largest with a column never plain:
    # one sort of (N, cells, channels, pixels) rather than one per cell and channel.
    plain = np.concatenate([_plain(ink, mask), np.zeros((n, 1), bool)], axis=1)[:, _CELL_INDEX]
    colour = np.concatenate([np.stack(planes, axis=1), np.zeros((n, 3, 1), np.float32)], axis=2)
    ranked = np.sort(np.where(plain[:, :, None, :], colour[:, :, _CELL_INDEX].transpose(0, 2, 1, 3), np.inf), axis=3)
    count = plain.sum(axis=2)  # (N, cells)
    low = np.take_along_axis(ranked, np.maximum(count - 1, 0)[:, :, None, None] // 2, axis=3)[..., 0]
    high = np.take_along_axis(ranked, (count // 2)[:, :, None, None], axis=3)[..., 0]
    return np.where((count >= MIN_PLAIN)[:, :, None], (low + high) / 2, np.nan).astype(np.float32)


def light_step(medians: np.ndarray) -> np.ndarray:
    """(N,) how much the light varies across each tile, in grey levels: the largest distance
    between the median colours of its plain parts (`plain_medians`) in any two cells."""
    d = np.sqrt(((medians[:, :, None, :] - medians[:, None, :, :]) ** 2).sum(axis=3))
    return np.where(np.isnan(d), 0.0, d).max(axis=(1, 2))


#: A tile whose plain parts differ by less than this (grey levels, `light_step`) is in an even
#: light: the sensor's noise and the print's blur stay below it (`tests/test_glyph_shadow_edge.py`).
EVEN_STEP = 10.0


#: How far (patch pixels) the plain pixels tell the light over the print beside them
#: (`light_between`, the sigma of its blur): the rim left out beside the print (2) and half a
#: stroke, so that the plain pixels nearest a stroke's middle count about as much as nearer ones
#: (a narrower blur reads the light there from the few pixels at its fringe: noise, JPEG's most).
REACH = 5


#: Rows left between the tiles' patches stacked into one image (`_stacked`): as wide as the blur
#: reaches (OpenCV's kernel for a float image spans four sigmas each way), so that no tile's light
#: spills into the next.
_GAP = 4 * REACH


def _stacked(a: np.ndarray, fill: float = 0.0) -> np.ndarray:
    """(N, PATCH, PATCH, ...) patches as one image, one below the other, `_GAP` rows of `fill`
    around each: one OpenCV call filters every tile (a call per tile costs more than its work)."""
    out = np.full((len(a), PATCH + _GAP, *a.shape[2:]), fill, a.dtype)
    out[:, _GAP:] = a
    return np.concatenate([out.reshape(-1, *a.shape[2:]), np.full((_GAP, *a.shape[2:]), fill, a.dtype)])


def _unstacked(image: np.ndarray, n: int) -> np.ndarray:
    """The N patches of a `_stacked` image."""
    return image[: n * (PATCH + _GAP)].reshape(n, PATCH + _GAP, *image.shape[1:])[:, _GAP:]


def light_between(planes: list[np.ndarray], ink: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """(N, K, 3) the light most likely on each pixel of each tile, channel by channel: the plain
    pixels' colour, averaged with weights falling off over `REACH` pixels (a normalised blur), so
    a smooth change of the light (a lamp's falloff, a shadow's soft edge) is followed smoothly over
    the print. A tile without plain pixels keeps its own colour (no light is known there)."""
    n = len(ink)
    plain = _plain(ink, mask).astype(np.float32)
    colour = np.stack(planes, axis=-1).astype(np.float32)
    weighted = np.concatenate([colour * plain[..., None], plain[..., None]], axis=2).reshape(n, PATCH, PATCH, 4)
    blurred = _unstacked(cv2.GaussianBlur(_stacked(weighted), (0, 0), REACH), n).reshape(n, -1, 4)
    light = blurred[..., :3] / np.maximum(blurred[..., 3:], 1e-6)
    seen = np.asarray(plain.any(axis=1))
    return np.where(seen[:, None, None], light, colour)


_DISC_PIXELS = np.flatnonzero(SUPPORT > 0)


def evened(planes: list[np.ndarray], light: np.ndarray) -> list[np.ndarray]:
    """The tiles' patches (`planes`, each (N, K)) as they would look with the light across each
    tile made even: each pixel multiplied, channel by channel, by the tile's typical light (the
    median over its disc) over the light at that pixel (`light`, (N, K, 3), from `light_between`),
    then every pixel of the tile by one factor that leaves the pixel under the least light as it
    was and every other below its own level: no pixel is pushed into clipping, and the tile's
    colours keep their balance (one channel's dark speck does not tint the whole tile). A shadow
    multiplies tile and print alike, so this undoes it where the light is known."""
    # The median over the disc by one partition of each tile's channels (np.median's checks and
    # strided reductions cost ten times as much here; the same figures).
    disc = light.transpose(0, 2, 1).take(_DISC_PIXELS, axis=2)  # (N, 3, D)
    half = disc.shape[2] // 2
    disc.partition((half - 1, half), axis=2)
    middle = (disc[..., half - 1] + disc[..., half]) / 2 if disc.shape[2] % 2 == 0 else disc[..., half]
    gain = middle[:, None, :] / np.maximum(light, 1.0)  # (N, K, 3)
    # The largest gain over the disc is the median light over the disc's least light (division is
    # monotonic: the same figure as the largest of the gains, without cutting the disc out of them).
    most = (middle / np.maximum(disc.min(axis=2), 1.0)).max(axis=1)
    gain /= np.maximum(most, 1e-6)[:, None, None]
    return [p * gain[..., c] for c, p in enumerate(planes)]


#: How far (patch pixels) the evened ink's centre may lie from the patch's before the evened reading
#: is made around it (`read_otherwise`): the step of the search for a partly hidden tile's best shift
#: (`glyphs._best_shifts`). Under a tile's even light it lies within a few tenths of a pixel.
RECENTRE = 1.0


def read_otherwise(
    model: GlyphModel,
    planes: list[np.ndarray],
    ink: np.ndarray,
    mask: np.ndarray,
    contrast: np.ndarray,
    axis: np.ndarray,
    white: np.ndarray | None,
    glyphs: list[str],
    clear: bool | np.ndarray = False,
    resample: Callable[[np.ndarray, np.ndarray], list[np.ndarray]] | None = None,
) -> np.ndarray:
    """(N,) bool: which tiles, read surely as `glyphs` from their patches (`planes`; `ink`, `mask`,
    `contrast` and colour `axis` as read), are not read surely as the same glyph with their light
    made even (`evened` under `light_between`). The contrast is kept as read (`GlyphModel.decide`'s
    least contrast is the print's in the light it was read in, not in the evened tile's lower
    one). `white` and `clear` as the ink reading's (`glyph_ink._ink`). `resample`, given some
    tiles (indices) and the offsets (pitches) from their patches' centres to their evened ink's,
    samples their patches there: a tile whose evened ink's centre is `RECENTRE` or more off its
    patch's is evened and read around that centre too, and is sure only if read surely as the same
    glyph around both centres (neither is known to be where the tile lies: under a shadow's edge the
    evened ink is itself uncertain)."""
    even_ink, even_mask = _evened_ink(planes, ink, mask, white, axis, clear)
    again = model.decide(even_ink, even_mask, contrast)
    differ = np.array([a != g for a, g in zip(again.glyphs, glyphs)], bool)
    offset = ink_centre(even_ink)
    rows = np.flatnonzero(np.linalg.norm(offset, axis=1) * PPG >= RECENTRE)
    if resample is not None and len(rows):
        moved = resample(rows, offset[rows])
        w, ax = None if white is None else white[rows], axis[rows]
        cl = np.asarray(clear)[rows] if np.ndim(clear) else clear
        moved_ink, moved_mask, _ = _normalise_planes(moved, w, ax, cl)
        there = model.decide(*_evened_ink(moved, moved_ink, moved_mask, w, ax, cl), contrast[rows])
        differ[rows] |= np.array([there.glyphs[j] != glyphs[i] for j, i in enumerate(rows)], bool)
    return differ


def _evened_ink(
    planes: list[np.ndarray],
    ink: np.ndarray,
    mask: np.ndarray,
    white: np.ndarray | None,
    axis: np.ndarray,
    clear: bool | np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """(ink, mask) of the tiles' patches `planes` (read as `ink`, `mask`) with their light made even
    (`evened` under `light_between`), read along `axis` as the ink reading would (`white`, `clear`)."""
    even_ink, even_mask, _ = _normalise_planes(evened(planes, light_between(planes, ink, mask)), white, axis, clear)
    return even_ink, even_mask
