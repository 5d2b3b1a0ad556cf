"""Blockers! glyphs: which of the 28 glyphs a tile shows, or `?` when unsure.

A tile is read from a small patch (`PATCH` x `PATCH` pixels over +-`HALF` pitches) sampled
straight from the camera frame through the board homography, so the camera's own resolution is
used (the colour reader's rectified image is far too coarse for glyphs). Each patch is made
independent of the tile's colour and of the light: its pixels are projected on the patch's main
colour axis (glyph against tile, whatever the two colours), the tile's level (the median: the
glyph covers well under half the patch) is subtracted and the glyph's level scaled to 1.

Glare is a specular reflection: it adds white light, the same amount to every channel, and
where it is strong it clips. So (`_ink`) a pixel's chroma (the pixel less its grey level) still
says how much print it shows where glare has brightened it, and the brightness reading is never
allowed above the chroma reading by more than `CHROMA_SLACK`; a pixel with a clipped channel is
read by the censored model of `_censored_ink` (what print and glare could give those unclipped
channels and push the others past the clip), and left out only when that model cannot tell
print from tile there.

The patch is then re-sampled centred on its ink's centre of mass, which takes out where the tile
was put down; what is left of the hand placement, a turn of up to about 12 degrees, is covered by
comparing with every template at `ANGLES`. The re-sampled patch shows the same tile and print in
the same light, so it is projected on the first patch's main colour axis rather than on its own
(finding an axis is about a fifth of `_ink`'s work; the levels are measured again, as they depend
on how much print the disc holds). A partly hidden tile's ink centre is pulled away from the
hidden part, so it is also tried at every shift up to `SHIFT_RADIUS` patch pixels
(`_best_shifts`, with the same axes). The score is the normalised cross-correlation over the
usable pixels; a glyph is sure only when its best score is high and the second-best glyph's
mismatch (1 - score) is clearly larger than the best's (`MIN_RATIO` times). A partly hidden tile
must also show enough of the pixels that tell its best glyph from each close rival
(`GlyphModel._tells_apart`).

Templates come from the renderer's glyph drawing (the standard edition's look) unless the
profile's `vision.glyphs` holds templates learned from a real copy (`calibration/vision_glyphs`).
The drawn templates are drawn afresh at each angle and centring offset (by
`simulation.glyph_templates`, shipped as data) rather than turned and moved after drawing:
bilinear resampling softens each glyph by an amount that depends on where its ink centre falls
between pixels, so glyphs told apart by corners (B and 8) were softened differently from the tiles.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from controller.errors import ConfigError

GLYPHS = "123456789ABCDEFGHIabcdefghi*"
PATCH = 28
HALF = 0.34  # pitches either side of the tile's centre
PPG = PATCH / (2 * HALF)  # patch pixels per pitch
ANGLES = (-12.0, -8.0, -4.0, 0.0, 4.0, 8.0, 12.0)
MIN_SCORE = 0.6
#: The second-best glyph must miss the patch by this many times more than the best.
MIN_RATIO = 1.5
#: A partly hidden tile is sure only if its best glyph is told apart from every rival (a glyph
#: whose mismatch is within `RIVAL_RATIO` times the best's) on the visible pixels where the two
#: templates differ, each weighted by the squared difference: the weights seen must add up to
#: `MIN_DIFFER_SEEN` (pixels' worth of full difference; B and 8 differ by about 3 in all), the ink
#: there must miss the rival by `DIFFER_MARGIN` of a perfect print's margin, and that visible
#: margin must outweigh `HIDDEN_MARGIN` times what the hidden pixels could say for the rival if
#: they all showed it. A rival whose telling pixels are `FULLY_SEEN` visible is left to the usual
#: rule, as on a whole tile. Chosen on hard boards 0-719 of the accuracy bench's scheme (34,981
#: tiles): no wrong glyph reported as sure; on boards 720-919, looked at only afterwards, 1 of
#: 9,775 (a C half under a clipped glare spot whose halo thickens it into the moon).
RIVAL_RATIO = 2.5
RIVAL_FLOOR = 0.02  # a near-perfect fit still has rivals: the best's mismatch counts as this
MIN_DIFFER_SEEN = 2.0
DIFFER_MARGIN = 0.3
HIDDEN_MARGIN = 0.5
FULLY_SEEN = 0.9
MAX_GLARE = 0.4  # most of a patch that glare may hide
MIN_CONTRAST = 25.0  # least grey levels between glyph and tile
SATURATED = 250
DIL = 5  # side of the square that grows glare and unreadable pixels by a 2-pixel rim
#: How the print is drawn for the out-of-the-box templates: scale and softening (patch pixels).
#: Fitted to tiles as the reader samples them on blurry, low-resolution frames (hard renders,
#: pitch 33-49 px): a camera's blur and the ink normalisation's clipping thin the strokes' edges,
#: so the print matches best about 3% smaller and a little softer than drawn (noise-free B tiles:
#: 1 - score against B 0.006 -> 0.0015, against 8 0.017 -> 0.012, so B is no longer unsure).
TEMPLATE_SCALE = 0.97
TEMPLATE_BLUR = 1.2
NEAR = 1.5  # pitches: the tiles whose print tells the light at a tile
MIN_NEAR = 4  # fewer tiles than this around a tile: keep the markers' paper white
PRINT_PERCENTILE = 95.0  # of a disc's brightness: on the print for every glyph but the thinnest
PRINT_OVER_WHITE = 1.1  # at most how much brighter than paper white that percentile may be
GLARE_OVER_WHITE = 1.35  # brighter than white paper by this much: glare (shadows and light
# gradients between the markers make the local white uncertain by up to about a quarter)
#: How far above the chroma's reading of a pixel its brightness reading may go: glare adds
#: brightness but no chroma, so a brighter reading than that is glare, not print.
CHROMA_SLACK = 0.2
#: The censored model of a pixel with a clipped channel (`_censored_ink`): the ink levels tried,
#: how far under full scale a channel counts as clipped, the noise of a channel (grey levels), and
#: the widest range of ink levels (within two noise levels of the best fit) a pixel may leave open
#: and still be used.
INK_STEPS = np.linspace(0, 1, 11).astype(np.float32)
CLIP_TOLERANCE = 4.0
NOISE = 8.0
MAX_INK_SPREAD = 0.3
#: Fits of a clipped pixel whose costs (squared misses in noise units) differ by less than one
#: noise level's worth are tied: the one needing the least glare is taken.
TIED_FIT = 1.0
MIN_GLARE = 4 * NOISE  # a clipped pixel that needs this much glare to fit is in a glare spot
#: A partly hidden tile is tried at every shift of up to this many patch pixels either way.
SHIFT_RADIUS = 3
#: A tile whose patch changed by more than `UNCHANGED_LEVEL` grey levels (sum of the three
#: channels: well over the sensor's noise) on at most `UNCHANGED_PIXELS` of its disc since the last
#: reading keeps that reading (`GlyphMemory`).
UNCHANGED_LEVEL = 40.0
UNCHANGED_PIXELS = 0.02


def _grid(side: int) -> np.ndarray:
    """(side*side, 2) board offsets (x, y) in pitches of a square patch of `side` pixels."""
    g = (np.arange(side) + 0.5 - side / 2) / PPG
    return np.stack(np.meshgrid(g, g), axis=-1).reshape(-1, 2)


def _disc(grid: np.ndarray) -> np.ndarray:
    """The patch's disc (float32 0/1) over `grid`: a turned tile's corners stay out."""
    return (np.hypot(grid[:, 0], grid[:, 1]) <= HALF - 0.5 / PPG).astype(np.float32)


GRID = _grid(PATCH)  # (K, 2)
SUPPORT = _disc(GRID)
_DISC = np.flatnonzero(SUPPORT)
_SUPPORT_SUM = SUPPORT.sum()
_RIM = np.ones((DIL, DIL), np.uint8)
WIDE = PATCH + 2 * SHIFT_RADIUS  # the side of the patch that every shifted patch is cut from
_WIDE_GRID = _grid(WIDE)
_WIDE_DISC = _disc(_WIDE_GRID)
_WIDE_DISC_INDEX = np.flatnonzero(_WIDE_DISC)
#: The disc's pixels of a patch cut from the wide one at its corner, as flat indices of the wide
#: patch, and the shifts tried (in wide-patch pixels from that corner): coarse, then around the best.
_DISC_IN_WIDE = (_DISC // PATCH) * WIDE + _DISC % PATCH
_COARSE_SHIFTS = np.array([(SHIFT_RADIUS + dy, SHIFT_RADIUS + dx) for dy in (-2, 0, 2) for dx in (-2, 0, 2)])
_FINE_SHIFTS = np.array([(dy, dx) for dy in (-1, 0, 1) for dx in (-1, 0, 1)])


def _disc_index(disc: np.ndarray) -> np.ndarray:
    """The pixels of a patch's disc (`SUPPORT` or `_WIDE_DISC`, or another) as flat indices."""
    if disc is SUPPORT:
        return _DISC
    return _WIDE_DISC_INDEX if disc is _WIDE_DISC else np.flatnonzero(disc)


@dataclass
class GlyphReading:
    """Per tile: the glyph or `?`, whether it is sure, the best and second-best scores."""

    glyphs: list[str]
    sure: np.ndarray
    best: np.ndarray
    second: np.ndarray

    @classmethod
    def blank(cls, n: int) -> GlyphReading:
        return cls(["?"] * n, np.zeros(n, bool), np.zeros(n), np.zeros(n))

    def put(self, idx: np.ndarray, part: GlyphReading) -> None:
        """Set the tiles `idx` from `part`, the reading of those tiles alone."""
        for j, i in enumerate(idx):
            self.glyphs[i] = part.glyphs[j]
        self.sure[idx], self.best[idx], self.second[idx] = part.sure, part.best, part.second


# --------------------------------------------------------------------------- patches


def _image_points(h: np.ndarray, centres: np.ndarray, grid: np.ndarray = GRID) -> tuple[np.ndarray, np.ndarray]:
    """Image x and y (N, K) float32 of every patch pixel around board points `centres`.

    The homography is applied by hand rather than by cv2.perspectiveTransform on N*K points: its
    terms split into one per tile and one per patch pixel (shared by all tiles), so the grid is a
    few broadcast additions and two divisions, cheap enough to redo for the re-centred pass. The
    arithmetic is done in place (same operations, same order, same result as written plainly).
    One row per tile also makes the maps' rows long, which cv2.remap runs faster than many rows
    of one patch's width."""
    h = np.asarray(h, np.float64)
    a = centres @ h[:, :2].T + h[:, 2]  # (N, 3): each tile centre's homogeneous image point
    g = np.ascontiguousarray((grid @ h[:, :2].T).T)  # (3, K): each patch pixel's offset from it
    inv = np.add(a[:, 2:3], g[2])
    np.divide(1, inv, out=inv)
    x = np.add(a[:, 0:1], g[0])
    x *= inv
    y = np.add(a[:, 1:2], g[1])
    y *= inv
    return x.astype(np.float32), y.astype(np.float32)


def _remap_maps(h: np.ndarray, centres: np.ndarray, grid: np.ndarray = GRID) -> tuple[np.ndarray, np.ndarray]:
    """`_image_points` as cv2.remap's fixed-point maps (cv2.convertMaps to CV_16SC2): bilinear
    remapping converts float maps to this form anyway, block by block; handing it over converted
    saves that work and reads half the memory."""
    x, y = _image_points(h, centres, grid)
    return cv2.convertMaps(x, y, cv2.CV_16SC2)


class _PointsCache:
    """The last tiles' patch grids (as remap maps): the homography is kept while the camera does
    not move and the tiles seldom change between frames, so the first (uncentred) sampling's grid
    is reused."""

    def __init__(self) -> None:
        self.entry: tuple[bytes, tuple[np.ndarray, np.ndarray]] | None = None

    def maps(self, h: np.ndarray, centres: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        key = np.asarray(h, np.float64).tobytes() + centres.tobytes()
        entry = self.entry  # one attribute, replaced whole: safe if two readers share it
        if entry is None or entry[0] != key:
            entry = (key, _remap_maps(h, centres))
            self.entry = entry
        return entry[1]


_POINTS = _PointsCache()


def _sample_planes(
    frame: np.ndarray, h: np.ndarray, centres: np.ndarray, cache: _PointsCache | None = None, grid: np.ndarray = GRID
) -> list[np.ndarray]:
    """The patches around `centres` as float32 (N, K) planes, one per colour channel: one
    cv2.remap for all tiles, and planes rather than (N, K, 3) because every later step works
    channel by channel (reductions over a last axis of 3 are slow in numpy)."""
    if cache is not None and grid is GRID:
        xy, frac = cache.maps(h, centres)
    else:
        xy, frac = _remap_maps(h, centres, grid)
    out = cv2.remap(frame, xy, frac, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    n = len(centres)
    if out.ndim == 2:
        return [out.reshape(n, -1).astype(np.float32)] * 3
    return [p.reshape(n, -1).astype(np.float32) for p in cv2.split(out)]


def sample_patches(
    frame: np.ndarray, h: np.ndarray, centres: np.ndarray, shifts: np.ndarray | None = None
) -> np.ndarray:
    """(N, K, 3) float32 pixels of the patches around board points `centres` (moved by `shifts`
    pitches), bilinear from the frame through the board-to-image homography `h`."""
    centres = np.asarray(centres, np.float64).reshape(-1, 2)
    if shifts is not None:
        centres = centres + shifts
    return np.stack(_sample_planes(frame, h, centres), axis=-1)


def normalise(pix: np.ndarray, white: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Colour patches (N, K, 3) -> (ink in [0, 1] (N, K), usable mask (N, K), contrast (N,)).

    `white` (N, 3) is the white paper's colour at each patch (grey levels), when known: no
    printed surface is much brighter than white paper in the same light, so a pixel that is must
    be glare (a specular reflection), read from its chroma rather than its brightness.

    Ink is 0 on the tile and 1 on the glyph whatever their colours; the mask leaves out the area
    outside the disc and clipped glare that cannot be read; contrast is how far the glyph's level
    is from the tile's, in grey levels along the patch's main colour axis."""
    pix = np.asarray(pix, np.float32)
    return _normalise_planes([np.ascontiguousarray(pix[..., c]) for c in range(3)], white)


def _normalise_planes(
    planes: list[np.ndarray], white: np.ndarray | None = None, axis: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """`normalise` on (N, K) colour planes (`axis`: see `_ink`)."""
    ink, usable, contrast, _ = _ink(planes, white, SUPPORT, axis)
    ink *= SUPPORT
    usable *= SUPPORT
    return ink, usable, contrast


def _dilate_rows(marks: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """`marks` (N, side*side) bool of the given rows, each grown by a rim of `DIL // 2` pixels, as
    float32 (len(rows), side*side). The rows are stacked with a gap of empty rows so that one
    patch's rim does not spill into the next."""
    side = int(round(np.sqrt(marks.shape[1])))
    gap = DIL // 2
    img = np.zeros((len(rows), side + gap, side), np.uint8)
    img[:, :side] = marks[rows].reshape(-1, side, side)
    grown = cv2.dilate(img.reshape(-1, side), _RIM).reshape(len(rows), side + gap, side)
    return grown[:, :side].reshape(len(rows), -1).astype(np.float32)


def _ink(
    planes: list[np.ndarray],
    white: np.ndarray | None,
    disc: np.ndarray,
    axis: np.ndarray | None = None,
    brightness: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(ink, usable, contrast, axis) of (N, side*side) colour planes, the tile's statistics taken
    over `disc`; `axis` (N, 3) is each tile's main colour axis, found here unless given (from
    another sampling of the same tiles: the same tile and print in the same light have the same
    axis, and finding it, a covariance and an eigenvector per tile, is about a fifth of the work).
    Every step is an elementwise or row operation on whole planes (no per-tile loop, no
    small batched matrix products, which numpy runs slowly) but the censored model of the few
    clipped pixels. This runs two or three times per tile on every cold read, so its arithmetic
    is written in place where that saves a pass over the planes, the glare rim is kept only for
    the rows with glare, and the two quantiles come from one sort of the disc's pixels alone. The
    first sampling's ink decides where the tile is re-sampled, so its arithmetic is kept exactly
    as it was (a change in the last bit moves a few re-centred samples across a fixed-point step
    of cv2.remap); with a given axis the projection skips centring the planes, which changes
    the ink by float rounding only (at most 3e-6 on the vision bench's boards).

    The brightness reading projects each pixel on the main colour axis of the glare-free pixels;
    the chroma reading places each pixel's chroma between the tile's and the print's. Where glare
    lit a pixel the chroma reading is the one to trust; elsewhere the brightness reading is less
    noisy, and is kept unless it exceeds the chroma reading by more than `CHROMA_SLACK`."""
    b, g, r = planes
    n = len(b)
    # Which channels clip, once: every one (glare) and any one (for the censored model).
    clips = [b >= SATURATED, g >= SATURATED, r >= SATURATED]
    glare = clips[0] & clips[1]
    glare &= clips[2]
    if white is not None:
        white = np.asarray(white, np.float32)
        if brightness is None:  # the sum of the planes (the caller's, when it has it)
            brightness = b + g
            brightness += r
        glare |= brightness > GLARE_OVER_WHITE * white.sum(axis=1)[:, None]
    inside = _disc_index(disc)
    hit = np.flatnonzero(glare.any(axis=1))
    glared = None  # glare and a rim around it, (len(hit), side*side), on the rows `hit`
    if len(hit):
        glared = _dilate_rows(glare, hit)
        lit_hit = disc * (1 - glared)  # the pixels the tile's statistics come from
        cnt = np.full(n, float(disc.sum()), np.float32)
        cnt[hit] = lit_hit.sum(axis=1)
        cnt = np.maximum(cnt, 1)
    else:
        cnt = np.full(n, max(float(disc.sum()), 1.0), np.float32)
    # The tiles' mean colours: without glare the disc's pixels (one matrix-vector product per
    # plane), the glared rows again over their lit pixels.
    mean = np.empty((n, 3), np.float32)
    for c, p in enumerate(planes):
        mean[:, c] = p @ disc
        if len(hit):
            mean[hit, c] = np.einsum("nk,nk->n", lit_hit, p[hit])
    mean /= cnt[:, None]
    if axis is None:
        centred = [p - mean[:, c : c + 1] for c, p in enumerate(planes)]
        masked = [c * disc for c in centred]
        if len(hit):
            for m, c in zip(masked, centred):
                m[hit] = c[hit] * lit_hit
        cov = np.empty((n, 3, 3), np.float32)
        for i in range(3):
            for j in range(i, 3):
                cov[:, i, j] = cov[:, j, i] = np.einsum("nk,nk->n", masked[i], masked[j]) / cnt
        _, vecs = np.linalg.eigh(cov + np.eye(3, dtype=np.float32) * 1e-3)
        # Blockers! glyphs are printed in white: the glyph is the lighter side of the axis.
        # Choosing the side by spread instead lets a faint thin print (the wild tile's ring under
        # blur) lose to the tile's own darker shading, and the patch is then read inside out.
        axis = vecs[:, :, -1]
        axis = axis * np.where(axis.sum(axis=1) >= 0, 1.0, -1.0).astype(np.float32)[:, None]
        proj = centred[0] * axis[:, 0:1]
        proj += np.multiply(centred[1], axis[:, 1:2], out=masked[0])
        proj += np.multiply(centred[2], axis[:, 2:3], out=masked[0])
    else:
        # (p - mean) . axis without centring each plane
        proj = b * axis[:, 0:1]
        part = np.multiply(g, axis[:, 1:2])
        proj += part
        np.multiply(r, axis[:, 2:3], out=part)
        part -= (mean * axis).sum(axis=1)[:, None]
        proj += part
    # The two quantiles by one sort of the disc's pixels (the only ones lit), the glared ones
    # sent to the end.
    ranked = proj.take(inside, axis=1)
    if len(hit):
        ranked[hit] = np.where(lit_hit[:, inside] > 0, ranked[hit], np.float32(1e9))
    ranked.sort(axis=1)
    m = cnt.astype(int)[:, None]
    at = np.minimum(np.maximum((m * np.array([0.5, 0.98])).astype(int), 0), np.maximum(m - 1, 0))
    at += (np.arange(n) * ranked.shape[1])[:, None]  # flat indices (take_along_axis costs more)
    med, top = ranked.ravel().take(at).T
    level = np.maximum(top - med, 1e-3)
    by_brightness = np.subtract(proj, med[:, None], out=proj)
    by_brightness /= level[:, None]
    tile = mean + med[:, None] * axis  # (N, 3) colours
    print_ = tile + level[:, None] * axis  # the print as the brightness statistics see it
    # Every tile, not only those with flagged glare: a faint glare spot on a dark tile stays
    # under the brightness test and clips nothing, and only the chroma shows it is not print.
    clipped = clips[0] | clips[1]
    clipped |= clips[2]
    ink, usable = _glared_ink(
        planes, tile, print_ if white is None else white, by_brightness, disc, hit, glared, clipped
    )
    np.clip(ink, 0, 1, out=ink)
    if usable is None:
        usable = np.ones_like(ink)
    else:
        ink *= usable
    return ink, usable, level.astype(np.float32), axis


def _glared_ink(
    planes: list[np.ndarray],
    tile: np.ndarray,
    paper: np.ndarray,
    by_brightness: np.ndarray,
    disc: np.ndarray,
    hit: np.ndarray,
    glared: np.ndarray | None,
    clipped: np.ndarray,
) -> tuple[np.ndarray, np.ndarray | None]:
    """(ink, usable) of every tile, glared or not (see `_ink`): `tile` and `paper` (N, 3) are the
    colours of each tile and of white paper there; the pixels clear of flagged glare are those of
    `disc` but, on the rows `hit`, where `glared` (those rows' glare and a rim around it) is set;
    `clipped` are the pixels with a clipped channel. `usable` is None when every pixel is (the
    usual case: no pass over the planes to say so)."""
    b, g, r = planes
    tq = tile - tile.mean(axis=1, keepdims=True)
    # The print's chroma is the white paper's: the brightness statistics, which glare can
    # mislead, would give a glared tile's print the tile's own chroma.
    d = paper - paper.mean(axis=1, keepdims=True) - tq
    d = d / np.maximum((d * d).sum(axis=1), 1e-6)[:, None]
    # A pixel's chroma (p - grey) less the tile's, along d: since d sums to zero, the grey level
    # drops out and this is a plain projection of the pixel.
    off = (tq * d).sum(axis=1)
    by_chroma = b * d[:, 0:1]
    scratch = np.multiply(g, d[:, 1:2])
    by_chroma += scratch
    np.multiply(r, d[:, 2:3], out=scratch)
    scratch -= off[:, None]
    by_chroma += scratch  # (b d0 + g d1) + (r d2 - off)
    np.add(by_chroma, CHROMA_SLACK, out=scratch)
    np.minimum(by_brightness, scratch, out=scratch)
    in_disc = disc > 0
    if glared is not None:
        lit_hit = in_disc & (glared == 0)
        glared_rows = np.where(lit_hit, scratch[hit], by_chroma[hit])
    ink = by_chroma  # the chroma reading where glare is flagged, and outside the disc
    np.copyto(ink, scratch, where=in_disc)
    if glared is not None:
        ink[hit] = glared_rows
    usable = None
    rows = np.flatnonzero(clipped.any(axis=1))
    tiles, pixels = np.nonzero(clipped[rows])
    tiles = rows[tiles]
    if len(tiles):
        flat = tiles * b.shape[1] + pixels
        obs = np.array([b.ravel().take(flat), g.ravel().take(flat), r.ravel().take(flat)]).T
        level, spread, glare = _censored_ink(obs, tile[tiles], paper[tiles])
        near_glare = np.zeros(len(tiles), bool)  # flagged glare or its rim
        if glared is not None:
            row_of = np.full(len(b), -1)
            row_of[hit] = np.arange(len(hit))
            some = np.flatnonzero(row_of[tiles] >= 0)
            near_glare[some] = glared[row_of[tiles[some]], pixels[some]] > 0
        ink.ravel()[flat] = np.where(
            in_disc[pixels] & ~near_glare, np.minimum(by_brightness.ravel().take(flat), level + CHROMA_SLACK), level
        )
        # Left out: what the model cannot read where there is glare (flagged, or needed to fit).
        unread = np.zeros_like(clipped)
        unread[tiles, pixels] = (spread > MAX_INK_SPREAD) & (near_glare | (glare > MIN_GLARE))
        bad = np.flatnonzero(unread.any(axis=1))
        if len(bad):
            usable = np.ones_like(ink)
            usable[bad] = 1 - _dilate_rows(unread, bad)
    return ink, usable


def _censored_ink(obs: np.ndarray, tile: np.ndarray, print_: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Ink level, how uncertain it is and the glare that fits it, (P,) each, of pixels with a
    clipped channel: `obs` (P, 3) their colours, `tile` and `print_` (P, 3) the colours of their
    tile and its print.

    A pixel showing ink level v under glare g (the same in every channel) is tile + v (print -
    tile) + g, and a channel past the clip only says it is at least that far. For each level of
    `INK_STEPS` the best glare g >= 0 is found (the unclipped channels' mean residual, raised
    where the clipped ones need more), and the level that fits best is the pixel's ink; of levels
    that fit equally well (`TIED_FIT`), the one with the least glare. The
    spread is the range of levels that fit within two noise levels: a pixel clipped in every
    channel fits every level (spread 1) and is not used; a yellow tile clipped in red and green
    with its blue channel well under the print's still says "no print"."""
    clip = (obs >= SATURATED)[:, :, None]
    a = tile[:, :, None] + INK_STEPS[None, None, :] * (print_ - tile)[:, :, None]  # (P, 3, V)
    res = obs[:, :, None] - a
    free = ~clip
    n_free = free.sum(axis=1)
    need = (SATURATED - CLIP_TOLERANCE) - a  # the glare a clipped channel needs
    res_free = (res * free).sum(axis=1)
    g = np.maximum(res_free / np.maximum(n_free, 1), 0)
    for _ in range(3):
        # The clipped channels that still need more glare join the mean. The best glare is at
        # least every such estimate (the cost is convex in it and they approach it from below),
        # and with no unclipped channel any glare enough for every clipped one fits. Once no
        # estimate moves, the next rounds would repeat this one.
        short = clip & (need > g[:, None, :])
        more = (res_free + (need * short).sum(axis=1)) / np.maximum(n_free + short.sum(axis=1), 1)
        if not (more > g).any():
            break
        g = np.maximum(g, more)
    miss = np.where(free, res - g[:, None, :], np.maximum(need - g[:, None, :], 0))
    cost = (miss * miss).sum(axis=1) / (NOISE * NOISE)
    rows = np.arange(len(obs))
    least = cost.min(axis=1)[:, None]
    # Of the levels the noise cannot tell from the best fit, the one that needs the least glare:
    # glare is a second cause, not invoked where print alone explains the pixel (white print
    # clipped in red on a red tile: its blue and green rise alike for print and for glare).
    best = np.where(cost <= least + TIED_FIT, g, np.inf).argmin(axis=1)
    fits = cost <= least + 4.0
    lo = INK_STEPS[fits.argmax(axis=1)]
    hi = INK_STEPS[len(INK_STEPS) - 1 - fits[:, ::-1].argmax(axis=1)]
    return INK_STEPS[best], hi - lo, g[rows, best]


def ink_centre(ink: np.ndarray) -> np.ndarray:
    """(N, 2) centre of mass of the ink (board offsets in pitches), from the clear ink on the disc only."""
    w = np.clip((ink - 0.3) / 0.4, 0, 1) * SUPPORT[None, :]
    tot = np.maximum(w.sum(axis=1, keepdims=True), 1e-6)
    return (w @ GRID) / tot


# --------------------------------------------------------------------------- templates


def _prepare(ink: np.ndarray) -> np.ndarray:
    """A template's ink on the disc, as float32 (K,)."""
    return (np.asarray(ink, np.float32).reshape(-1) * SUPPORT).astype(np.float32)


def centred_turns(image: np.ndarray) -> np.ndarray:
    """(len(ANGLES), K) copies of one glyph image (PATCH x PATCH ink, 0..1) turned by each of
    `ANGLES` about its ink's centre of mass and moved so that centre is the patch's centre."""
    image = np.asarray(image, np.float32).reshape(PATCH, PATCH)
    c = ink_centre(_prepare(image)[None, :])[0] * PPG  # pixels from the patch centre
    centre = (PATCH / 2 - 0.5 + c[0], PATCH / 2 - 0.5 + c[1])
    out = []
    for a in ANGLES:
        m = cv2.getRotationMatrix2D(centre, -a, 1.0)
        m[:, 2] += (-c[0], -c[1])
        turned = cv2.warpAffine(image, m, (PATCH, PATCH), flags=cv2.INTER_LINEAR)
        out.append(_prepare(turned))
    return np.stack(out)


#: The standard edition's glyphs as a camera sees them, drawn once by the simulated rig's renderer
#: (`python -m simulation.glyph_templates` writes it; a test checks it still matches the drawing):
#: `images` upright, `turns` at each of `ANGLES`, each centred on its ink.
TEMPLATES_FILE = "glyph_templates.npz"


@lru_cache(maxsize=1)
def _shipped() -> dict[str, np.ndarray]:
    from importlib import resources

    with resources.files("controller.vision").joinpath(TEMPLATES_FILE).open("rb") as file:
        data = np.load(file)
        return {"images": np.array(data["images"]), "turns": np.array(data["turns"]), "glyphs": str(data["glyphs"])}


@lru_cache(maxsize=1)
def default_images() -> dict[str, np.ndarray]:
    """The standard edition's glyphs as a camera sees them, upright, PATCH x PATCH, ink 0..1."""
    data = _shipped()
    return {g: data["images"][i] for i, g in enumerate(data["glyphs"])}


@lru_cache(maxsize=1)
def _default_turns() -> dict[str, np.ndarray]:
    """(len(ANGLES), K) per glyph, like `centred_turns`, but each angle drawn afresh, so every glyph
    and angle is exactly as soft as the drawing (no resampling blur)."""
    data = _shipped()
    return {g: data["turns"][i] for i, g in enumerate(data["glyphs"])}


def encode_image(image: np.ndarray) -> str:
    """A glyph image as base64 text of PATCH*PATCH bytes (profile storage)."""
    data = np.clip(np.rint(np.asarray(image, np.float32) * 255), 0, 255).astype(np.uint8)
    return base64.b64encode(data.tobytes()).decode("ascii")


def decode_image(text: object, path: str) -> np.ndarray:
    if not isinstance(text, str):
        raise ConfigError(path, "expected base64 text of a glyph image")
    try:
        raw = base64.b64decode(text.encode("ascii"), validate=True)
    except (ValueError, UnicodeEncodeError):
        raise ConfigError(path, "not valid base64 text") from None
    if len(raw) != PATCH * PATCH:
        raise ConfigError(path, f"expected {PATCH * PATCH} bytes ({PATCH}x{PATCH}), got {len(raw)}")
    return np.frombuffer(raw, np.uint8).reshape(PATCH, PATCH).astype(np.float32) / 255


def check_settings(data: object, path: str = "vision.glyphs") -> dict[str, np.ndarray]:
    """The learned glyph images of a profile's `vision.glyphs`, checked."""
    if not isinstance(data, dict):
        raise ConfigError(path, "expected a mapping with size and templates")
    unknown = set(data) - {"size", "templates", "sure"}
    if unknown:
        raise ConfigError(f"{path}.{sorted(unknown)[0]}", "unknown key; known: size, templates, sure")
    if data.get("size") != PATCH:
        raise ConfigError(f"{path}.size", f"expected {PATCH} (the templates' side in pixels)")
    templates = data.get("templates")
    if not isinstance(templates, dict):
        raise ConfigError(f"{path}.templates", "expected a mapping of glyph -> image")
    out = {}
    for key, text in templates.items():
        g = str(key)
        if g not in GLYPHS:
            raise ConfigError(f"{path}.templates.{g}", f"not a glyph; glyphs are {GLYPHS}")
        out[g] = decode_image(text, f"{path}.templates.{g}")
    sure = data.get("sure", {})
    if (
        not isinstance(sure, dict)
        or set(sure) - {"min_score", "min_ratio"}
        or not all(isinstance(v, (int, float)) and not isinstance(v, bool) and 0 < v < 10 for v in sure.values())
    ):
        raise ConfigError(f"{path}.sure", "expected min_score (0-1) and min_ratio (above 1), numbers")
    return out


# --------------------------------------------------------------------------- reading


class GlyphModel:
    """Templates of the 28 glyphs at every angle of `ANGLES`, and the decision with a margin."""

    def __init__(
        self, images: dict[str, np.ndarray] | None = None, min_score: float = MIN_SCORE, min_ratio: float = MIN_RATIO
    ) -> None:
        images = images or {}
        drawn = _default_turns()
        self.glyphs = GLYPHS
        self.min_score = min_score
        self.min_ratio = min_ratio
        self.templates = np.concatenate(
            [  # (G*A, K)
                centred_turns(images[g]) if g in images else drawn[g] for g in GLYPHS
            ]
        )
        t = self.templates
        self.t2 = t * t
        self._full_st = SUPPORT @ t.T
        self._full_stt = SUPPORT @ self.t2.T
        # The templates on the disc's pixels alone, (D, G*A), and beside them their squares (D,
        # 2*G*A): they are 0 elsewhere, so the products with the patches skip the corners.
        self._disc_t = np.ascontiguousarray(t[:, _DISC].T)
        self._disc_t_both = np.ascontiguousarray(np.hstack([self._disc_t, self.t2[:, _DISC].T]))

    @classmethod
    def from_profile(cls, settings: dict) -> GlyphModel:
        data = settings.get("glyphs")
        if data is None:
            return _default_model()
        images = check_settings(data)
        sure = data.get("sure", {})
        return cls(images, float(sure.get("min_score", MIN_SCORE)), float(sure.get("min_ratio", MIN_RATIO)))

    def scores(self, ink: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """(N, G) best normalised cross-correlation of each glyph over its angles."""
        return self._scores(ink, mask).max(axis=2)

    def _scores(self, ink: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """(N, G, A) normalised cross-correlation with each glyph at each angle of patches whose
        ink and mask (N, K) are 0 outside the disc (as `normalise` gives them)."""
        return self._disc_scores(ink[:, _DISC], mask[:, _DISC])

    def _disc_scores(self, ink: np.ndarray, mask: np.ndarray | None) -> np.ndarray:
        """`_scores` from the disc's pixels (N, D) of the patches: one matrix product over all
        tiles and templates for the ink. Where a mask hides pixels, the sums of the templates (and
        of their squares) over the seen pixels are the whole disc's less those over the hidden
        ones: a hidden tile hides a few tens of the disc's pixels, so that product, over the pixels
        some patch does not fully see and both template sets at once, is a fraction of one over
        every pixel (the same sums up to float rounding).
        `mask` None: every pixel of every patch is seen (the same figures, fewer passes)."""
        sv = ink.sum(axis=1)[:, None]
        svv = (ink * ink).sum(axis=1)[:, None]
        svt = ink @ self._disc_t
        st, stt = self._full_st[None, :], self._full_stt[None, :]
        if mask is None:
            cnt = np.full((1, 1), len(_DISC), np.float32)
            return self._ncc(svt, sv, svv, st, stt, cnt).reshape(len(ink), len(GLYPHS), len(ANGLES))
        cnt = np.maximum(mask.sum(axis=1), 1)[:, None]
        unseen = 1 - mask
        cols = np.flatnonzero(unseen.any(axis=0))  # the pixels some patch does not fully see
        if len(cols):
            lost = unseen[:, cols] @ self._disc_t_both[cols]  # a whole patch's rows lose exactly 0
            st, stt = st - lost[:, : len(st[0])], stt - lost[:, len(st[0]) :]
        return self._ncc(svt, sv, svv, st, stt, cnt).reshape(len(ink), len(GLYPHS), len(ANGLES))

    @staticmethod
    def _ncc(
        svt: np.ndarray, sv: np.ndarray, svv: np.ndarray, st: np.ndarray, stt: np.ndarray, cnt: np.ndarray
    ) -> np.ndarray:
        """Normalised cross-correlation from the sums over the seen pixels of ink x template, ink,
        ink squared, template, template squared, and their count."""
        num = svt - sv * st / cnt
        den = np.sqrt(np.maximum(svv - sv * sv / cnt, 1e-6) * np.maximum(stt - st * st / cnt, 1e-6))
        return num / den

    def decide(
        self,
        ink: np.ndarray,
        mask: np.ndarray,
        contrast: np.ndarray,
        scores: np.ndarray | None = None,
        hidden: np.ndarray | None = None,
    ) -> GlyphReading:
        """The glyph of each patch, sure or not; `scores` are its `_scores` and `hidden` (bool) which
        patches are partly hidden (mask not the whole disc), when already known."""
        if scores is not None:
            full = scores
        elif hidden is not None and not hidden.any():  # every patch whole: its mask is the disc
            full = self._disc_scores(ink[:, _DISC], None)
        else:
            full = self._scores(ink, mask)
        s = full.max(axis=2)
        order = np.argsort(-s, axis=1)
        rows = np.arange(len(s))
        best, second = s[rows, order[:, 0]], s[rows, order[:, 1]]
        seen = mask.sum(axis=1) / _SUPPORT_SUM
        ratio = (1 - second) / np.maximum(1 - best, 1e-6)
        sure = (
            (best >= self.min_score) & (ratio >= self.min_ratio) & (seen >= 1 - MAX_GLARE) & (contrast >= MIN_CONTRAST)
        )
        if hidden is None:
            hidden = np.any(mask != SUPPORT[None, :], axis=1)
        hidden = np.flatnonzero(sure & hidden)
        if len(hidden):
            turn = full[hidden].argmax(axis=2)
            for j, i in enumerate(hidden):
                sure[i] = self._tells_apart(ink[i], mask[i], s[i], turn[j])
        glyphs = [GLYPHS[o] if ok else "?" for o, ok in zip(order[:, 0], sure)]
        return GlyphReading(glyphs, sure, best, second)

    def _tells_apart(self, ink: np.ndarray, mask: np.ndarray, score: np.ndarray, turn: np.ndarray) -> bool:
        """Whether a partly hidden tile's visible pixels tell its best glyph from every close
        rival. Hiding part of a glyph can leave what another glyph also shows (a 3 in an 8 with
        one side hidden), and the score over the visible pixels cannot see what was lost; so on
        the pixels where the two templates differ, enough must be visible and the ink there must
        match the best glyph clearly better than the rival, by more than the hidden pixels could
        say for the rival."""
        a = len(ANGLES)
        b = int(score.argmax())
        near = RIVAL_RATIO * max(1 - float(score[b]), RIVAL_FLOOR)
        rivals = np.flatnonzero((1 - score) < near)
        rivals = rivals[rivals != b]
        if not len(rivals):
            return True
        tb = self.templates[b * a + turn[b]]
        tr = self.templates[rivals * a + turn[rivals]]  # (R, K)
        seen = mask > 0
        w = (tb - tr) ** 2  # how much each pixel tells the two apart
        shown = w * seen
        visible = shown.sum(axis=1)
        hidden = (w * w * ~seen).sum(axis=1)  # all a rival could gain where it is not seen
        check = visible < FULLY_SEEN * w.sum(axis=1)
        if np.any(check & (visible < MIN_DIFFER_SEEN)):
            return False
        seen_ = np.maximum(visible, 1e-9)
        ideal = (shown * w).sum(axis=1) / seen_  # the rival's mismatch on a perfect print
        margin = (shown * ((ink - tr) ** 2 - (ink - tb) ** 2)).sum(axis=1) / seen_
        fails = check & ((margin < DIFFER_MARGIN * ideal) | (visible * margin < HIDDEN_MARGIN * hidden))
        return not fails.any()


@lru_cache(maxsize=1)
def _default_model() -> GlyphModel:
    return GlyphModel()


def print_white(pix: np.ndarray, centres: np.ndarray, white: np.ndarray) -> np.ndarray:
    """`white` (N, 3) raised where the tiles around a tile show brighter print than the markers'
    paper would allow: markers in a shadow make the paper white too low, and the glare test then
    masks the print itself. A tile's print level is a high percentile of its disc's brightness;
    the median over the tiles within `NEAR` pitches (at least `MIN_NEAR` of them) stands for the
    light there, so a glare spot on one tile does not raise its own threshold."""
    pix = np.asarray(pix, np.float32)
    return _print_white(pix[..., 0] + pix[..., 1] + pix[..., 2], centres, white)


def _print_white(brightness: np.ndarray, centres: np.ndarray, white: np.ndarray) -> np.ndarray:
    """`print_white` from the patches' brightness (N, K: the sum of the three channels)."""
    white = np.asarray(white, np.float32)
    centres = np.asarray(centres, np.float64).reshape(-1, 2)
    disc = brightness[:, _DISC]
    k = int(len(_DISC) * PRINT_PERCENTILE / 100)
    level = np.partition(disc, k, axis=1)[:, k] / PRINT_OVER_WHITE
    d = centres[:, None, :] - centres[None, :, :]
    near = d[..., 0] ** 2 + d[..., 1] ** 2 <= NEAR * NEAR
    # The median of the near tiles' levels by one sort (np.nanmedian is far slower): the others
    # are sent to the end as infinity, and every tile is near itself so each row has one.
    ranked = np.sort(np.where(near, level[None, :], np.float32(np.inf)), axis=1)
    count = near.sum(axis=1)
    rows = np.arange(len(level))
    lit = (ranked[rows, (count - 1) // 2] + ranked[rows, count // 2]) / 2
    total = white.sum(axis=1)
    raise_ = (count >= MIN_NEAR) & (lit > total)
    gain = np.where(raise_, lit / np.maximum(total, 1e-3), 1.0).astype(np.float32)
    return white * gain[:, None]


def centred_patches(
    frame: np.ndarray, h: np.ndarray, centres: np.ndarray, white: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Normalised patches re-sampled around each tile's ink centre: (ink, mask, contrast).

    The second sampling is exact (bilinear from the frame at the shifted points), not a shift of
    the first patch, which would blur the print a second time."""
    return _centred(frame, h, centres, white)[0]


def _centred(
    frame: np.ndarray,
    h: np.ndarray,
    centres: np.ndarray,
    white: np.ndarray | None,
    planes: list[np.ndarray] | None = None,
    brightness: np.ndarray | None = None,
) -> tuple[tuple[np.ndarray, np.ndarray, np.ndarray], np.ndarray, np.ndarray | None, np.ndarray]:
    """`centred_patches`, with the board points they were sampled around, the paper white at
    each tile as raised by `print_white` (None without a white) and each tile's main colour
    axis (from the first sampling; the re-centred patches are read with it, see `_ink`).
    `planes`, when given, are the patches already sampled around `centres` and `white` is
    already raised (`brightness`: the planes' sum, when known)."""
    centres = np.asarray(centres, np.float64).reshape(-1, 2)
    if planes is None:
        planes = _sample_planes(frame, h, centres, _POINTS)
        brightness = planes[0] + planes[1] + planes[2]
        if white is not None:
            white = _print_white(brightness, centres, white)
    ink, _, _, axis = _ink(planes, white, SUPPORT, brightness=brightness)
    centres = centres + ink_centre(ink)  # only the ink says where the centre is (on the disc alone)
    return _normalise_planes(_sample_planes(frame, h, centres), white, axis), centres, white, axis


def _best_shifts(
    model: GlyphModel, frame: np.ndarray, h: np.ndarray, centres: np.ndarray, white: np.ndarray | None, axis: np.ndarray
) -> GlyphReading:
    """The decision on each tile at the shift (up to `SHIFT_RADIUS` patch pixels either way of
    `centres`) where its best glyph fits best. One wider patch is sampled and read per tile (along
    its main colour `axis`, see `_ink`) and every shifted patch cut from it: the ink of a pixel
    hardly depends on which patch it is in, and sampling the same points again would cost far
    more. The shifts are searched coarse to
    fine: every other one first, then the eight around the best of those."""
    n, r = len(centres), SHIFT_RADIUS
    rows = np.arange(n)
    planes = _sample_planes(frame, h, centres, grid=_WIDE_GRID)
    ink, usable, contrast, _ = _ink(planes, white, _WIDE_DISC, axis)
    # Where the disc's pixels (y, x) of the patch shifted by (dy, dx) lie in the flattened wide
    # patches: tile * WIDE**2 + (dy + y) * WIDE + (dx + x). Only they are cut and scored.
    flat_ink, flat_usable = ink.reshape(-1), usable.reshape(-1)

    def scored(at: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The patches of every tile at offsets `at` (S, N, 2): (S, N, D) ink and masks on the
        disc, their (S, N, G, A) scores, and (N,) which of the S offsets each tile's best glyph
        fits best."""
        idx = (rows * (WIDE * WIDE) + at[..., 0] * WIDE + at[..., 1])[..., None] + _DISC_IN_WIDE
        cut_ink, cut_mask = flat_ink.take(idx), flat_usable.take(idx)
        d = len(_DISC)
        full = model._disc_scores(cut_ink.reshape(-1, d), cut_mask.reshape(-1, d))
        best = full.max(axis=(1, 2)).reshape(len(at), n).argmax(axis=0)
        return cut_ink, cut_mask, full.reshape(len(at), n, *full.shape[1:]), best

    at = np.repeat(_COARSE_SHIFTS[:, None, :], n, axis=1)
    start = at[scored(at)[3], rows]
    around = np.minimum(np.maximum(start[None] + _FINE_SHIFTS[:, None, :], 0), 2 * r)
    cut_ink, cut_mask, full, best = scored(around)
    # The decision at the best offset reuses that offset's scores rather than computing them again.
    at_best = np.zeros((2, n, len(SUPPORT)), np.float32)
    at_best[0][:, _DISC], at_best[1][:, _DISC] = cut_ink[best, rows], cut_mask[best, rows]
    hidden = (cut_mask[best, rows] != 1).any(axis=1)  # as decide would find it (0 outside the disc)
    return model.decide(at_best[0], at_best[1], contrast, full[best, rows], hidden)


class GlyphMemory:
    """The last reading of each tile and what its patch looked like. Between two moves most
    tiles do not change; a tile whose patch is the same as last time (same homography, no more
    than `UNCHANGED_PIXELS` of its disc changed by over `UNCHANGED_LEVEL` grey levels) keeps its
    reading, and only the others are read again. That holds for a `?` too: the same pixels give
    the same doubt, and a tile that comes out from under glare or grime has changed."""

    def __init__(self) -> None:
        self.key: bytes | None = None
        self.tiles: dict[tuple[float, float], tuple[np.ndarray, str, bool, float, float]] = {}

    def forget(self) -> None:
        self.key, self.tiles = None, {}

    def recall(
        self, h: np.ndarray, centres: np.ndarray, brightness: np.ndarray
    ) -> list[tuple[str, bool, float, float] | None]:
        if self.key != np.asarray(h, np.float64).tobytes():
            self.forget()
            return [None] * len(centres)
        out: list[tuple[str, bool, float, float] | None] = []
        for c, now in zip(centres, brightness):
            kept = self.tiles.get((float(c[0]), float(c[1])))
            if kept is not None and _same_patch(kept[0], now):
                out.append(kept[1:])
            else:
                out.append(None)
        return out

    def store(self, h: np.ndarray, centres: np.ndarray, brightness: np.ndarray, reading: GlyphReading) -> None:
        self.key = np.asarray(h, np.float64).tobytes()
        # tolist() gives the same Python floats and bools as converting element by element, faster.
        self.tiles = {
            (c[0], c[1]): (now, g, ok, b, s)
            for c, now, g, ok, b, s in zip(
                np.asarray(centres, np.float64).tolist(),
                brightness,
                reading.glyphs,
                np.asarray(reading.sure, bool).tolist(),
                np.asarray(reading.best).tolist(),
                np.asarray(reading.second).tolist(),
            )
        }


def _same_patch(before: np.ndarray, now: np.ndarray) -> bool:
    changed = np.abs(now[_DISC] - before[_DISC]) > UNCHANGED_LEVEL
    return float(changed.mean()) <= UNCHANGED_PIXELS


def read_glyphs(
    model: GlyphModel,
    frame: np.ndarray,
    h: np.ndarray,
    centres: np.ndarray,
    white: np.ndarray | None = None,
    memory: GlyphMemory | None = None,
) -> GlyphReading:
    """The glyph of the tile at each board point `centres` (N, 2) of the frame; `white` is the
    paper white at each point (N, 3 grey levels) when the caller knows it. With a `memory`,
    tiles that look as they did at the last reading keep it."""
    centres = np.asarray(centres, np.float64).reshape(-1, 2)
    n = len(centres)
    if n == 0:
        return GlyphReading.blank(0)
    planes = _sample_planes(frame, h, centres, _POINTS)
    brightness = planes[0] + planes[1] + planes[2]
    kept = memory.recall(h, centres, brightness) if memory is not None else [None] * n
    reading = GlyphReading.blank(n)
    for i, k in enumerate(kept):
        if k is not None:
            reading.glyphs[i], reading.sure[i], reading.best[i], reading.second[i] = k
    todo = np.array([i for i, k in enumerate(kept) if k is None], int)
    if len(todo):
        if white is not None:  # from every tile: a tile's light is told by the tiles around it
            white = _print_white(brightness, centres, white)[todo]
        if len(todo) == n:  # a cold read: every tile
            part, part_brightness = planes, brightness
        else:
            part, part_brightness = [p[todo] for p in planes], brightness[todo]
        reading.put(todo, _read(model, frame, h, centres[todo], part, white, part_brightness))
    if memory is not None:
        memory.store(h, centres, brightness, reading)
    return reading


def _read(
    model: GlyphModel,
    frame: np.ndarray,
    h: np.ndarray,
    centres: np.ndarray,
    planes: list[np.ndarray],
    white: np.ndarray | None,
    brightness: np.ndarray,
) -> GlyphReading:
    """`read_glyphs` of tiles whose patches around `centres` are `planes` (their sum
    `brightness`), white raised."""
    (ink, mask, contrast), centred, white, axis = _centred(frame, h, centres, white, planes, brightness)
    hidden = np.any(mask != SUPPORT[None, :], axis=1)
    whole, some = np.flatnonzero(~hidden), np.flatnonzero(hidden)
    reading = GlyphReading.blank(len(centres))
    if len(whole):
        reading.put(whole, model.decide(ink[whole], mask[whole], contrast[whole], hidden=hidden[whole]))
    if len(some):
        reading.put(
            some, _best_shifts(model, frame, h, centred[some], None if white is None else white[some], axis[some])
        )
    return reading
