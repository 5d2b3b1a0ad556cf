"""Blockers! glyphs: which of the 28 glyphs a tile shows, or `?` when unsure.

Each tile's patch is read as ink (`glyph_ink`: how much print each pixel shows, whatever the
colours and the light, glare read from its chroma, or by a censored model where it clips) and
compared with the templates of every glyph (`glyph_model`).

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
(`GlyphModel._tells_apart`; more rivals where what it hides may be clipped print, `print_hidden`).
A tile with flagged glare is sure only if read alike with its print's level measured clear of the
glare's halo (`glyph_bleed.top_clear_of_glare`): either level alone may be wrong.
"""

from __future__ import annotations

import numpy as np

from controller.language import _n, listed
from controller.vision.glyph_ink import (
    _COARSE_SHIFTS,
    _DISC,
    _DISC_IN_WIDE,
    _FINE_SHIFTS,
    _POINTS,
    _WIDE_DISC,
    _WIDE_GRID,
    GLARE_OVER_WHITE,
    GRID,
    PATCH,
    PRINT_OVER_WHITE,
    SATURATED,
    SHIFT_RADIUS,
    SUPPORT,
    WIDE,
    _dilate_rows,
    _ink,
    _normalise_planes,
    _sample_planes,
    flagged_glare,
    ink_centre,
    normalise,
    sample_patches,
)
from controller.vision.glyph_light import (
    EVEN_STEP,
    light_step,
    plain_medians,
    read_otherwise,
    row_medians,
)
from controller.vision.glyph_model import (
    ANGLES,
    GLYPHS,
    MIN_CONTRAST,
    GlyphModel,
    GlyphReading,
    centred_turns,
    check_settings,
    decode_image,
    default_images,
    encode_image,
)

NEAR = 1.5  # pitches: the tiles whose print tells the light at a tile
MIN_NEAR = 4  # fewer tiles than this around a tile: keep the markers' paper white
PRINT_PERCENTILE = 95.0  # of a disc's brightness: on the print for every glyph but the thinnest
#: A tile whose patch changed by more than `UNCHANGED_LEVEL` grey levels (sum of the three
#: channels: well over the sensor's noise) on at most `UNCHANGED_PIXELS` of its disc since the last
#: reading keeps that reading (`GlyphMemory`).
UNCHANGED_LEVEL = 40.0
UNCHANGED_PIXELS = 0.02

#: Names the glyph reading's callers (calibration, the renderer, tests) take from here.
__all__ = [
    "ANGLES",
    "GLYPHS",
    "GRID",
    "MIN_CONTRAST",
    "PATCH",
    "SUPPORT",
    "GlyphMemory",
    "GlyphModel",
    "GlyphReading",
    "centred_patches",
    "centred_turns",
    "check_settings",
    "decode_image",
    "default_images",
    "encode_image",
    "ink_centre",
    "normalise",
    "print_white",
    "read_glyphs",
    "sample_patches",
]


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
    # The median of the near tiles' levels (every tile is near itself, so each row has one).
    lit = row_medians(np.broadcast_to(level[None, :], near.shape), near)
    count = near.sum(axis=1)
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
    clear: bool | np.ndarray = False,
) -> tuple[tuple[np.ndarray, np.ndarray, np.ndarray], np.ndarray, np.ndarray | None, np.ndarray, list[np.ndarray]]:
    """`centred_patches`, with the board points they were sampled around, the paper white at
    each tile as raised by `print_white` (None without a white), each tile's main colour axis
    (from the first sampling; the re-centred patches are read with it, see `_ink`) and the
    re-centred patches' colour planes themselves (the later checks read them).
    `planes`, when given, are the patches already sampled around `centres` and `white` is
    already raised (`brightness`: the planes' sum, when known)."""
    centres = np.asarray(centres, np.float64).reshape(-1, 2)
    if planes is None:
        planes = _sample_planes(frame, h, centres, _POINTS)
        brightness = planes[0] + planes[1] + planes[2]
        if white is not None:
            white = _print_white(brightness, centres, white)
    ink, _, _, axis = _ink(planes, white, SUPPORT, brightness=brightness, clear=clear)
    centres = centres + ink_centre(ink)  # only the ink says where the centre is (on the disc alone)
    seen = _sample_planes(frame, h, centres)
    return _normalise_planes(seen, white, axis, clear), centres, white, axis, seen


def _best_shifts(
    model: GlyphModel,
    frame: np.ndarray,
    h: np.ndarray,
    centres: np.ndarray,
    white: np.ndarray | None,
    axis: np.ndarray,
    print_hidden: np.ndarray | None = None,
    clear: bool | np.ndarray = False,
) -> GlyphReading:
    """The decision on each tile at the shift (up to `SHIFT_RADIUS` patch pixels either way of
    `centres`) where its best glyph fits best. One wider patch is sampled and read per tile (along
    its main colour `axis`, see `_ink`) and every shifted patch cut from it: the ink of a pixel
    hardly depends on which patch it is in, and sampling the same points again would cost far
    more. The shifts are searched coarse to
    fine: every other one first, then the eight around the best of those. `print_hidden`: see
    `GlyphModel.decide`."""
    n, r = len(centres), SHIFT_RADIUS
    rows = np.arange(n)
    planes = _sample_planes(frame, h, centres, grid=_WIDE_GRID)
    ink, usable, contrast, _ = _ink(planes, white, _WIDE_DISC, axis, clear=clear)
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
    return model.decide(at_best[0], at_best[1], contrast, full[best, rows], hidden, print_hidden)


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
    bound: np.ndarray | None = None,
) -> GlyphReading:
    """The glyph of the tile at each board point `centres` (N, 2) of the frame; `white` is the
    paper white at each point (N, 3 grey levels) when the caller knows it, `bound` (N, 3 bools)
    the channels in which that white is at or past full scale (a lamp clips the paper, and so the
    white print, there: see `lamp_lost`). With a `memory`, tiles that look as they did at the last reading keep it."""
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
        lamp = None if bound is None else np.asarray(bound, bool)[todo]
        # A glare spot's halo, too faint to flag, may set the print's level: a glared tile is sure
        # only if read alike with the level measured clear of the halo (`glyph_ink._ink`'s `clear`).
        # Its second reading is made in the same pass, as extra rows: every step reads each tile on
        # its own, and one pass over a few more rows costs far less than a second pass.
        twice = np.flatnonzero(flagged_glare(part, white, part_brightness)) if white is not None else np.arange(0)
        rows = np.concatenate([np.arange(len(todo)), twice])
        clear = np.arange(len(rows)) >= len(todo)
        if len(twice):
            part, part_brightness = [p[rows] for p in part], part_brightness[rows]
            white, lamp = None if white is None else white[rows], None if lamp is None else lamp[rows]
        both = _read(model, frame, h, centres[todo][rows], part, white, part_brightness, lamp, clear)
        got, more = both.take(np.arange(len(todo))), both.take(np.arange(len(todo), len(rows)))
        for j, tile in enumerate(twice.tolist()):
            if got.sure[tile] and (not more.sure[j] or more.glyphs[j] != got.glyphs[tile]):
                got.glyphs[tile], got.sure[tile] = "?", False
        reading.put(todo, got)
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
    bound: np.ndarray | None = None,
    clear: bool | np.ndarray = False,
) -> GlyphReading:
    """`read_glyphs` of tiles whose patches around `centres` are `planes` (their sum
    `brightness`), white raised; a tile `lamp_lost` is unsure (`clear`, for every tile or each:
    see `glyph_ink._ink`)."""
    clear = np.broadcast_to(np.asarray(clear, bool), (len(centres),))
    (ink, mask, contrast), centred, white, axis, seen = _centred(frame, h, centres, white, planes, brightness, clear)
    hidden = np.any(mask != SUPPORT[None, :], axis=1)
    whole, some = np.flatnonzero(~hidden), np.flatnonzero(hidden)
    reading = GlyphReading.blank(len(centres))
    if len(whole):
        reading.put(whole, model.decide(ink[whole], mask[whole], contrast[whole], hidden=hidden[whole]))
    if len(some):
        some_white = None if white is None else white[some]
        may_be_print = print_hidden([p[some] for p in seen], mask[some], some_white)
        shifted = _best_shifts(model, frame, h, centred[some], some_white, axis[some], may_be_print, clear[some])
        reading.put(some, shifted)
    sure = np.flatnonzero(reading.sure)
    if len(sure):
        # A shadow's edge across the tile (`glyph_light`): the print in the shadow is as near the
        # lit tile as the lit print once the step is half the contrast between them.
        step = light_step(plain_medians([p[sure] for p in seen], ink[sure], mask[sure]))
        for i in sure[step >= contrast[sure] / 2]:
            reading.glyphs[i], reading.sure[i] = "?", False
        # A tile whose light varies is sure only if read alike with the light made even (`glyph_light`).
        # Glare's halo adds light rather than multiplying it: a tile with pixels hidden (by glare) is the
        # ink reading's to read.
        uneven = np.flatnonzero(reading.sure[sure] & ~hidden[sure] & (step >= EVEN_STEP))
        if len(uneven):
            rows = sure[uneven]
            part, tile_white = [p[rows] for p in seen], None if white is None else white[rows]
            glyphs = [reading.glyphs[i] for i in rows]
            doubt = read_otherwise(
                model,
                part,
                ink[rows],
                mask[rows],
                contrast[rows],
                axis[rows],
                tile_white,
                glyphs,
                clear[rows],
                lambda moved, offset: _sample_planes(frame, h, centred[rows[moved]] + offset),
            )
            for i in rows[doubt]:
                reading.glyphs[i], reading.sure[i] = "?", False
    if bound is not None and bound.any():
        lost = lamp_lost(seen, mask, bound)
        rows = np.flatnonzero(lost.any(axis=1) & reading.sure)
        if len(rows):
            # Read again as if every pixel the lamp left unread were print: sure only if both agree.
            filled = model.decide(np.where(lost, 1.0, ink)[rows], np.where(lost, SUPPORT, mask)[rows], contrast[rows])
            for j, i in enumerate(rows):
                if not filled.sure[j] or filled.glyphs[j] != reading.glyphs[i]:
                    reading.glyphs[i], reading.sure[i] = "?", False
    return reading


def print_lost(planes: list[np.ndarray], mask: np.ndarray, white: np.ndarray | None) -> np.ndarray:
    """(N, K) the pixels of each tile's disc left out (`mask` 0) that may be the print itself:
    clipped in some channel, yet away from any sign of glare (every channel clipped, or brighter
    than paper by `GLARE_OVER_WHITE`, and the rim the ink reading grows around those).

    Under a lamp brighter at the tile than at the markers, white print on a red tile clips in red
    while its blue and green rise as glare's would: the censored model cannot tell print from
    glare there, and leaves those pixels (and a rim) out. They are then the print's brightest
    strokes, not a random part of the tile, and what is left may fit another glyph (`GlyphModel.
    _tells_apart`). Pixels beside real glare are left out because of the glare, as likely on the
    tile as on the print."""
    b, g, r = planes
    clip_b, clip_g, clip_r = b >= SATURATED, g >= SATURATED, r >= SATURATED
    glare = clip_b & clip_g & clip_r
    if white is not None:
        glare |= (b + g + r) > GLARE_OVER_WHITE * np.asarray(white, np.float32).sum(axis=1)[:, None]
    near = np.zeros(mask.shape, bool)
    rows = np.flatnonzero(glare.any(axis=1))
    if len(rows):
        near[rows] = _dilate_rows(glare, rows) > 0
    return (mask == 0) & (SUPPORT[None, :] > 0) & (clip_b | clip_g | clip_r) & ~near


def print_hidden(planes: list[np.ndarray], mask: np.ndarray, white: np.ndarray | None) -> np.ndarray:
    """(N,) whether all a tile hides may be its print: every pixel left out lies within the rim
    the ink reading grows around pixels that may be print (`print_lost`). A tile that also hides
    glare or a shadow is left to the usual rivals (`GlyphModel._tells_apart`)."""
    lost = print_lost(planes, mask, white)
    rows = np.flatnonzero(lost.any(axis=1))
    out = np.zeros(len(mask), bool)
    if len(rows):
        rim = _dilate_rows(lost, rows) > 0
        left_out = (mask[rows] == 0) & (SUPPORT[None, :] > 0)
        out[rows] = ~(left_out & ~rim).any(axis=1)
    return out


def lamp_lost(planes: list[np.ndarray], mask: np.ndarray, bound: np.ndarray) -> np.ndarray:
    """(N, K) the pixels of each tile's disc whose print a lamp's colour leaves unread: left out
    (`mask` 0: print and glare fit them alike) while clipped in a channel in which the paper
    white, and so the white print, is clipped too (`bound` (N, 3)).

    A saturated lamp clips its strong channel on the paper, the white print and often the tile
    alike; what told print from tile in that channel is gone, and where the other channels rise
    about equally from tile to print (a violet tile under a violet lamp), print is read as glare
    and left out. The pixels left out are then the print itself, not a random part of the tile,
    and the rest of the disc (the tile around the print) may fit a thin glyph. So a tile is read
    surely only if it reads the same with those pixels taken as print (`_read`), as a place is
    only where no colour a clipped channel allows is another piece's (`light.LightDoubt`). Under
    white light the paper does not clip and this never applies."""
    clipped = np.zeros(mask.shape, bool)
    for c, plane in enumerate(planes):
        if bound[:, c].any():
            clipped |= (plane >= SATURATED) & bound[:, c : c + 1]
    return (mask == 0) & (SUPPORT[None, :] > 0) & clipped


def unread_words(lamp: list, too_bright: bool, glared: list) -> str | None:
    """Why the light leaves glyphs unread, in a player's words (None: it does not): the places of
    the tiles whose white print a lamp clips with the paper (`lamp_lost`; `too_bright` where it
    clips every channel), and of those beside a lamp's reflection."""
    said = []
    if lamp and too_bright:
        said.append(
            _n(
                "the light is too bright to read the glyph on {places}: dim the lamp or turn it away from the board",
                "the light is too bright to read the glyphs on {places}: dim the lamp or turn it away from the board",
                len(lamp),
                places=listed(lamp, conjunction=None),
            )
        )
    elif lamp:
        said.append(
            _n(
                "the lamp is too coloured to read the glyph on {places}: use a white light",
                "the lamp is too coloured to read the glyphs on {places}: use a white light",
                len(lamp),
                places=listed(lamp, conjunction=None),
            )
        )
    if glared:
        said.append(
            _n(
                "a lamp's reflection hides the glyph on {places}: turn the lamp away from the board",
                "a lamp's reflection hides the glyphs on {places}: turn the lamp away from the board",
                len(glared),
                places=listed(glared, conjunction=None),
            )
        )
    return listed(said, separator=";") if said else None
