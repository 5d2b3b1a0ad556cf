"""Blockers! glyphs: the chroma reading of a tile's pixels (`chroma_step`), in a compressed frame a
stroke's borrowed colour told from glare (`borrowed_colour`), and the print's level measured clear
of a glare spot's halo by its chroma (`top_clear_of_glare`).

Every compressed picture a camera gives (JPEG, the YUV 4:2:0 of video) keeps the brightness of
each pixel but the colour of each 2 x 2 block, smoothed between blocks. A thin white stroke on a
saturated tile then takes part of the tile's colour: its brightness is the print's, but the
tile's strong channel rises past the clip, as a lamp's white light would lift it. The censored
model of a clipped pixel (`glyph_ink._censored_ink`) fits "some print plus glare" as well as
"print", and such pixels were left out: in a bright JPEG frame a blue or violet tile hid a
stroke's worth of its print and was unsure.

Glare and borrowed colour differ in where the colour went. Glare adds white light and no
colour: it lifts a pixel's brightness reading above its chroma reading (`glyph_ink._glared_ink`),
never the other way. Print in plain light reads alike both ways. Borrowed colour moves colour
between neighbours: the stroke's pixels take the tile's, and the tile's pixels beside the stroke
take the print's, so within the colour's reach some pixel reads more print by its chroma than by
its brightness. A clipped pixel whose fit needs glare is read, not left out, when such a pixel
lies beside it (`borrowed_colour`) and nothing says glare is there (`glyph_ink._glared_ink`).
"""

from __future__ import annotations

import cv2
import numpy as np

#: How far (patch pixels either way) a pixel's colour may come from: a 2 x 2 block's colour is
#: smoothed into the next block's (libjpeg's upsampling), up to about 4 frame pixels from where it
#: was, and a patch pixel is about 1.5 frame pixels at the rig's framing (`config.yaml`: 1280 x 720).
REACH = 3
#: How many times the noise of the difference between the two readings a pixel's chroma
#: reading must exceed its brightness reading to show borrowed colour (`borrowed_colour`).
NOISE_TIMES = 2.0


def chroma_step(tile: np.ndarray, paper: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(d, off), (N, 3) and (N,): the chroma reading of a pixel p of each tile is p . d - off, 0 on
    the tile (colour `tile`) and 1 on its print. The print's chroma is the white paper's
    (`paper`): the brightness statistics, which glare can mislead, would give a glared tile's
    print the tile's own chroma. A pixel's chroma (p - grey) less the tile's is read along d: since
    d sums to zero, the grey level drops out and this is a plain projection of the pixel."""
    tq = tile - tile.mean(axis=1, keepdims=True)
    d = paper - paper.mean(axis=1, keepdims=True) - tq
    d = d / np.maximum((d * d).sum(axis=1), 1e-6)[:, None]
    return d, (tq * d).sum(axis=1)


def borrowed_colour(
    planes: list[np.ndarray],
    by_brightness: np.ndarray,
    chroma: tuple[np.ndarray, np.ndarray],
    disc: np.ndarray,
    clipped: np.ndarray,
    level: np.ndarray,
    noise: float,
    at: tuple[np.ndarray, np.ndarray],
) -> np.ndarray:
    """(P,) whether each pixel `at` (tile rows, pixels) has borrowed colour beside it: some
    unclipped pixel of the `disc` within `REACH` reads more print by its chroma (`chroma`:
    `chroma_step`'s d and off) than by its brightness (`by_brightness`, (N, K), in
    units of the print's `level` (N,) grey levels from the tile), by `NOISE_TIMES` the noise of
    that difference (`noise` grey levels in each channel)."""
    tiles, pixels = at
    rows = np.unique(tiles)
    d, off = chroma[0][rows], chroma[1][rows]
    b, g, r = (p[rows] for p in planes)
    by_chroma = b * d[:, 0:1] + g * d[:, 1:2] + r * d[:, 2:3] - off[:, None]
    spread = noise * np.sqrt((d * d).sum(axis=1) + 1.0 / (level[rows] * level[rows]))
    lent = (by_chroma - by_brightness[rows] > NOISE_TIMES * spread[:, None]) & (disc > 0)[None, :] & ~clipped[rows]
    near = _window_sums(lent.astype(np.float32), REACH) > 0
    return near[np.searchsorted(rows, tiles), pixels]


def _window_sums(values: np.ndarray, reach: int) -> np.ndarray:
    """(R, side*side) sums of `values` over the square of `reach` pixels either way around each
    pixel of each row's patch; the patches are stacked with a gap so that none spills into the next."""
    side = int(round(np.sqrt(values.shape[1])))
    img = np.zeros((len(values), side + reach, side), np.float32)
    img[:, :side] = values.reshape(-1, side, side)
    size = 2 * reach + 1
    summed = cv2.boxFilter(
        img.reshape(-1, side), -1, (size, size), normalize=False, borderType=cv2.BORDER_CONSTANT
    ).reshape(len(values), side + reach, side)
    return summed[:, :side].reshape(len(values), -1)


def top_clear_of_glare(
    planes: list[np.ndarray],
    proj: np.ndarray,
    mean: np.ndarray,
    axis: np.ndarray,
    levels: tuple[np.ndarray, np.ndarray],
    paper: np.ndarray,
    hit: np.ndarray,
    lit: np.ndarray,
    rules: tuple[float, float],
) -> np.ndarray:
    """The print's level (the `quantile` of the projection `proj` on the main colour `axis`; `rules`
    is (slack, quantile)) of the rows `hit`, which have flagged glare, taken again over their `lit`
    pixels (clear of the flagged glare and its rim) whose brightness their chroma explains; never
    above `top`, the level over every lit pixel (`levels`: (tile's median, top) per row, `mean`
    each tile's mean colour, `paper` the white paper's there).

    A glare spot fades out: around the pixels bright enough to be flagged lies a halo that glare
    brightens but does not flag, and on a dark tile it is brighter than a thin print. Glare adds
    brightness but no chroma (`glyph_ink._glared_ink`), while print adds both in step: a pixel
    showing v of the print by its chroma rises v times the print's step (paper less tile, along the
    axis) by its brightness. A pixel risen by more than `slack` of that step beyond its chroma is
    lit by glare, and says nothing of the print's level. Its ink is still read (from its chroma,
    see `glyph_ink._ink`); only the level is measured without it. A row whose chroma cannot tell
    (print no lighter than the tile along the axis, or too few pixels left for the quantile) keeps
    `top`."""
    (med, top), (slack, quantile) = levels, rules
    tile = mean[hit] + med[hit, None] * axis[hit]
    paper = paper[hit]
    d, off = chroma_step(tile, paper)
    b, g, r = (p[hit] for p in planes)
    by_chroma = b * d[:, 0:1] + g * d[:, 1:2] + r * d[:, 2:3] - off[:, None]
    step = ((paper - tile) * axis[hit]).sum(axis=1)  # the print's rise along the axis (grey levels)
    above = proj[hit] - med[hit, None]
    clear = (lit > 0) & (above <= (by_chroma + slack) * step[:, None])
    out = top[hit].copy()
    for i in np.flatnonzero(step > 0):
        kept = np.sort(above[i][clear[i]])
        if len(kept) * (1 - quantile) >= 1:
            out[i] = min(out[i], med[hit[i]] + kept[int(len(kept) * quantile)])
    return out
