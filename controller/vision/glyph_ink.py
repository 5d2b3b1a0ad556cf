"""Blockers! glyphs, the ink of a tile's patch: how much print each pixel shows, whatever the
colours of tile and print and the light (see `glyphs` for the whole reading).

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
print from tile there (and the colour is not borrowed from the tile, as a compressed frame's is:
`glyph_bleed`).
"""

from __future__ import annotations

import cv2
import numpy as np

from controller.vision.glyph_bleed import borrowed_colour, chroma_step, top_clear_of_glare

PATCH = 28
HALF = 0.34  # pitches either side of the tile's centre
PPG = PATCH / (2 * HALF)  # patch pixels per pitch
SATURATED = 250
DIL = 5  # side of the square that grows glare and unreadable pixels by a 2-pixel rim
GLARE_OVER_WHITE = 1.35  # brighter than white paper by this much: glare (shadows and light
# gradients between the markers make the local white uncertain by up to about a quarter)
#: At most how much brighter than the paper white the print may be (its own white, or the markers'
#: paper in a shadow): within it a tile's print as its statistics measure it may be its print's
#: colour (`_glared_ink`: a clipped print pixel is then print, not print and glare), and
#: `glyphs.print_white` keeps the paper's level; beyond it, the paper white is raised to the print's.
PRINT_OVER_WHITE = 1.1
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
#: The quantile of a disc's pixels (along the main colour axis) taken as the print's level: the
#: glyph covers more than the top 2% of the disc for every glyph.
PRINT_QUANTILE = 0.98


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
    planes: list[np.ndarray],
    white: np.ndarray | None = None,
    axis: np.ndarray | None = None,
    clear: bool | np.ndarray = False,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """`normalise` on (N, K) colour planes (`axis`, `clear`: see `_ink`)."""
    ink, usable, contrast, _ = _ink(planes, white, SUPPORT, axis, clear=clear)
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
    clear: bool | np.ndarray = False,
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
    noisy, and is kept unless it exceeds the chroma reading by more than `CHROMA_SLACK`.
    `clear` (for every tile, or (N,) for each): the print's level of a tile with flagged glare is
    measured clear of the glare's halo (`glyph_bleed.top_clear_of_glare`; the reader reads such tiles both
    ways, see `glyphs.read_glyphs`)."""
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
            for m, plane in zip(masked, centred):
                m[hit] = plane[hit] * lit_hit
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
    at = np.minimum(np.maximum((m * np.array([0.5, PRINT_QUANTILE])).astype(int), 0), np.maximum(m - 1, 0))
    at += (np.arange(n) * ranked.shape[1])[:, None]  # flat indices (take_along_axis costs more)
    med, top = ranked.ravel().take(at).T
    pick = np.broadcast_to(np.asarray(clear, bool), (n,))[hit]  # the glared rows read clear of the halo
    if white is not None and pick.any():
        top[hit[pick]] = top_clear_of_glare(
            planes, proj, mean, axis, (med, top), white, hit[pick], lit_hit[pick], (CHROMA_SLACK, PRINT_QUANTILE)
        )
    level = np.maximum(top - med, 1e-3)
    by_brightness = np.subtract(proj, med[:, None], out=proj)
    by_brightness /= level[:, None]
    tile = mean + med[:, None] * axis  # (N, 3) colours
    print_ = tile + level[:, None] * axis  # the print as the brightness statistics see it
    # Every tile, not only those with flagged glare: a faint glare spot on a dark tile stays
    # under the brightness test and clips nothing, and only the chroma shows it is not print.
    clipped = clips[0] | clips[1]
    clipped |= clips[2]
    # A tile's clipped pixels may be read against its print as the tile shows it, up to
    # `PRINT_OVER_WHITE` times the paper: white print brighter than the paper clips first, and read
    # against the paper's white its excess would be glare, and the pixel left unread.
    paper = print_ if white is None else white
    seen = None if white is None else np.minimum(np.maximum(print_, white), white * PRINT_OVER_WHITE)
    ink, usable = _glared_ink(planes, tile, paper, by_brightness, disc, hit, glared, clipped, level, seen)
    np.clip(ink, 0, 1, out=ink)
    if usable is None:
        usable = np.ones_like(ink)
    else:
        ink *= usable
    return ink, usable, level.astype(np.float32), axis


def flagged_glare(planes: list[np.ndarray], white: np.ndarray | None, brightness: np.ndarray) -> np.ndarray:
    """(N,) whether each patch shows flagged glare, as `_ink` flags it: a pixel clipped in every
    channel, or brighter than the paper `white` by `GLARE_OVER_WHITE` (`brightness`: the planes' sum)."""
    b, g, r = planes
    glare = (b >= SATURATED) & (g >= SATURATED) & (r >= SATURATED)
    if white is not None:
        glare |= brightness > GLARE_OVER_WHITE * np.asarray(white, np.float32).sum(axis=1)[:, None]
    return np.asarray(glare.any(axis=1))


def _glared_ink(
    planes: list[np.ndarray],
    tile: np.ndarray,
    paper: np.ndarray,
    by_brightness: np.ndarray,
    disc: np.ndarray,
    hit: np.ndarray,
    glared: np.ndarray | None,
    clipped: np.ndarray,
    print_level: np.ndarray,
    seen_print: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray | None]:
    """(ink, usable) of every tile, glared or not (see `_ink`): `tile` and `paper` (N, 3) are the
    colours of each tile and of white paper there; the pixels clear of flagged glare are those of
    `disc` but, on the rows `hit`, where `glared` (those rows' glare and a rim around it) is set;
    `clipped` are the pixels with a clipped channel; `print_level` (N,) the print's grey levels
    above the tile; `seen_print` (N, 3) the print's colour the clipped pixels are read against
    (default `paper`). `usable` is None when every pixel is (usually: no pass over the planes)."""
    b, g, r = planes
    d, off = chroma_step(tile, paper)
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
        near_glare = np.zeros(len(tiles), bool)  # flagged glare or its rim
        on_glared_tile = np.zeros(len(tiles), bool)  # a tile with flagged glare (one of `hit`)
        if glared is not None:
            row_of = np.full(len(b), -1)
            row_of[hit] = np.arange(len(hit))
            on_glared_tile = row_of[tiles] >= 0
            some = np.flatnonzero(on_glared_tile)
            near_glare[some] = glared[row_of[tiles[some]], pixels[some]] > 0
        level, spread, glare = _censored_ink(obs, tile[tiles], paper[tiles])
        if seen_print is not None:
            # A tile that loses some clipped pixel as glare against the paper's white is read again
            # against its print's own level, and kept so where that explains every clipped pixel
            # without glare (one that still needs it says the clip is not the print's brightness).
            again = np.flatnonzero(_of_tiles(tiles, tiles[_unread(spread, glare, near_glare)], len(b)))
            if len(again):
                by_print = _censored_ink(obs[again], tile[tiles[again]], seen_print[tiles[again]])
                still = _unread(by_print[1], by_print[2], near_glare[again])
                whole = ~_of_tiles(tiles[again], tiles[again][still], len(b))
                kept = again[whole]
                level[kept], spread[kept], glare[kept] = (a[whole] for a in by_print)
        ink.ravel()[flat] = np.where(
            in_disc[pixels] & ~near_glare, np.minimum(by_brightness.ravel().take(flat), level + CHROMA_SLACK), level
        )
        # Left out: what the model cannot read where there is glare, flagged or needed to fit; not
        # needed where the colour is borrowed (`glyph_bleed`) and the tile shows no flagged glare,
        # though that much glare would have flagged the white print it covered.
        lost = _unread(spread, glare, near_glare)
        would_flag = (paper[tiles] + glare[:, None] >= SATURATED).all(axis=1)
        maybe = np.flatnonzero(lost & ~near_glare & ~on_glared_tile & would_flag)
        if len(maybe):
            at = (tiles[maybe], pixels[maybe])
            lost[maybe] = ~borrowed_colour(planes, by_brightness, (d, off), disc, clipped, print_level, NOISE, at)
        unread = np.zeros_like(clipped)
        unread[tiles, pixels] = lost
        bad = np.flatnonzero(unread.any(axis=1))
        if len(bad):
            usable = np.ones_like(ink)
            usable[bad] = 1 - _dilate_rows(unread, bad)
    return ink, usable


def _of_tiles(tiles: np.ndarray, some: np.ndarray, n: int) -> np.ndarray:
    """Which of `tiles` (tile indices under `n`) are among `some`: np.isin, by one table."""
    marked = np.zeros(n, bool)
    marked[some] = True
    return marked[tiles]


def _unread(spread: np.ndarray, glare: np.ndarray, near_glare: np.ndarray) -> np.ndarray:
    """Which clipped pixels the censored model leaves unread: their ink is open over more than
    `MAX_INK_SPREAD` where there is glare, flagged (`near_glare`) or needed to fit (`MIN_GLARE`)."""
    return (spread > MAX_INK_SPREAD) & (near_glare | (glare > MIN_GLARE))


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
    # Channel by channel, (P, V) arrays: a sum over channels is two additions in the order numpy's
    # reduction over a short axis adds them (the same figures; a strided reduction costs far more).
    chans = range(3)
    clip = [obs[:, c] >= SATURATED for c in chans]
    free = [~k[:, None] for k in clip]
    a = [tile[:, c, None] + INK_STEPS[None, :] * (print_ - tile)[:, c, None] for c in chans]  # (P, V) each
    res = [obs[:, c, None] - a[c] for c in chans]
    n_free = free[0].astype(np.int64) + free[1] + free[2]  # as a sum over the channels counts them
    need = [(SATURATED - CLIP_TOLERANCE) - a[c] for c in chans]  # the glare a clipped channel needs
    res_free = res[0] * free[0] + res[1] * free[1] + res[2] * free[2]
    g = np.maximum(res_free / np.maximum(n_free, 1), 0)
    for _ in range(3):
        # The clipped channels that still need more glare join the mean. The best glare is at
        # least every such estimate (the cost is convex in it and they approach it from below),
        # and with no unclipped channel any glare enough for every clipped one fits. Once no
        # estimate moves, the next rounds would repeat this one.
        short = [clip[c][:, None] & (need[c] > g) for c in chans]
        wanted = need[0] * short[0] + need[1] * short[1] + need[2] * short[2]
        more = (res_free + wanted) / np.maximum(n_free + short[0] + short[1] + short[2], 1)
        if not (more > g).any():
            break
        g = np.maximum(g, more)
    miss = [np.where(free[c], res[c] - g, np.maximum(need[c] - g, 0)) for c in chans]
    cost = (miss[0] * miss[0] + miss[1] * miss[1] + miss[2] * miss[2]) / (NOISE * NOISE)
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
