"""Blockers! glyphs: which of the 28 glyphs a tile shows, or `?` when unsure.

A tile is read from a small patch (`PATCH` x `PATCH` pixels over +-`HALF` pitches) sampled
straight from the camera frame through the board homography, so the camera's own resolution is
used (the colour reader's rectified image is far too coarse for glyphs). Each patch is made
independent of the tile's colour and of the light: its pixels are projected on the patch's main
colour axis (glyph against tile, whatever the two colours), the tile's level (the median: the
glyph covers well under half the patch) is subtracted and the glyph's level scaled to 1. Glare
(clipped pixels and a rim around them) is masked out. The patch is then re-sampled centred on its
ink's centre of mass, which takes out where the tile was put down; what is left of the hand
placement, a turn of up to about 12 degrees, is covered by comparing with every template at
`ANGLES`. The score is the normalised cross-correlation over the unmasked pixels; a glyph is
sure only when its best score is high and the second-best glyph's mismatch (1 - score) is
clearly larger than the best's (`MIN_RATIO` times). A partly hidden tile must also show enough
of the pixels that tell its best glyph from each close rival (`GlyphModel._tells_apart`). A
glared tile left unsure is read once more from its pixels' chroma (`glare_free`): a glare spot
adds white light, the same to every channel, so only clipped pixels are lost there; that reading
counts only if sure by the same rules and by a wider margin (`GLARE_FREE_RATIO`).

Templates come from the renderer's glyph drawing (the standard edition's look) unless the
profile's `vision.glyphs` holds templates learned from a real copy (`calibration/vision_glyphs`).
The drawn templates are drawn afresh at each angle and centring offset (`drawn_turns`) rather than
turned and moved after drawing: bilinear resampling softens each glyph by an amount that depends on
where its ink centre falls between pixels, so glyphs told apart by corners (B and 8) were softened
differently from the tiles.
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
#: A partly hidden tile (glare masked) is sure only if its best glyph is told apart from every
#: rival (a glyph whose mismatch is within `RIVAL_RATIO` times the best's) on the visible pixels
#: where the two templates differ, each weighted by the squared difference: the weights seen must
#: add up to `MIN_DIFFER_SEEN` (pixels' worth of full difference; B and 8 differ by about 3 in
#: all) and the ink there must miss the rival by `DIFFER_MARGIN` of a perfect print's margin.
#: Fitted on 160 hard boards (seeds 0-159 of the accuracy bench's scheme), where it turns the 3
#: sure-but-wrong partly hidden tiles into `?` for 3 more `?` on right ones.
RIVAL_RATIO = 2.5
RIVAL_FLOOR = 0.02  # a near-perfect fit still has rivals: the best's mismatch counts as this
MIN_DIFFER_SEEN = 2.0
DIFFER_MARGIN = 0.3
MAX_GLARE = 0.4  # most of a patch that glare may hide
MIN_CONTRAST = 25.0  # least grey levels between glyph and tile
SATURATED = 250
DIL = 5  # pixels of rim around glare also left out
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
#: A glared tile left unsure is read again from its pixels' chroma (`glare_free`); that reading
#: counts only if sure by every rule above and its second-best glyph misses by this many times
#: more than the best (at 1.7 it misreads; 2.0 on 520 hard boards, seeds 0-519: no misreads).
GLARE_FREE_RATIO = 2.0
GLARE_OVER_WHITE = 1.35  # brighter than white paper by this much: glare (shadows and light
# gradients between the markers make the local white uncertain by up to about a quarter)

_grid = (np.arange(PATCH) + 0.5) / PPG - HALF
GRID = np.stack(np.meshgrid(_grid, _grid), axis=-1).reshape(-1, 2)  # (K, 2) board offsets (x, y)
_r = np.hypot(GRID[:, 0], GRID[:, 1])
SUPPORT = (_r <= HALF - 0.5 / PPG).astype(np.float32)  # a disc: a turned tile's corners stay out
_DISC = np.flatnonzero(SUPPORT)
_RIM = np.ones((DIL, DIL), np.uint8)


@dataclass
class GlyphReading:
    """Per tile: the glyph or `?`, whether it is sure, the best and second-best scores."""

    glyphs: list[str]
    sure: np.ndarray
    best: np.ndarray
    second: np.ndarray


# --------------------------------------------------------------------------- patches


def _image_points(h: np.ndarray, centres: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Image x and y (N*PATCH, PATCH) float32 of every patch pixel around board points `centres`.

    The homography is applied by hand rather than by cv2.perspectiveTransform on N*K points: its
    terms split into one per tile and one per patch pixel (shared by all tiles), so the grid is a
    few broadcast additions and two divisions, cheap enough to redo for the re-centred pass."""
    h = np.asarray(h, np.float64)
    a = centres @ h[:, :2].T + h[:, 2]  # (N, 3): each tile centre's homogeneous image point
    g = GRID @ h[:, :2].T  # (K, 3): each patch pixel's offset from it
    inv = 1 / (a[:, 2:3] + g[None, :, 2])
    x = (a[:, 0:1] + g[None, :, 0]) * inv
    y = (a[:, 1:2] + g[None, :, 1]) * inv
    n = len(centres)
    return (x.astype(np.float32).reshape(n * PATCH, PATCH),
            y.astype(np.float32).reshape(n * PATCH, PATCH))


class _PointsCache:
    """The last tiles' patch grids: the homography is kept while the camera does not move and the
    tiles seldom change between frames, so the first (uncentred) sampling's grid is reused."""

    def __init__(self) -> None:
        self.entry: tuple[bytes, tuple[np.ndarray, np.ndarray]] | None = None

    def points(self, h: np.ndarray, centres: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        key = np.asarray(h, np.float64).tobytes() + centres.tobytes()
        entry = self.entry  # one attribute, replaced whole: safe if two readers share it
        if entry is None or entry[0] != key:
            entry = (key, _image_points(h, centres))
            self.entry = entry
        return entry[1]


_POINTS = _PointsCache()


def _sample_planes(frame: np.ndarray, h: np.ndarray, centres: np.ndarray,
                   cache: _PointsCache | None = None) -> list[np.ndarray]:
    """The patches around `centres` as float32 (N, K) planes, one per colour channel: one
    cv2.remap for all tiles, and planes rather than (N, K, 3) because every later step works
    channel by channel (reductions over a last axis of 3 are slow in numpy)."""
    x, y = _image_points(h, centres) if cache is None else cache.points(h, centres)
    out = cv2.remap(frame, x, y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    n = len(centres)
    if out.ndim == 2:
        return [out.reshape(n, -1).astype(np.float32)] * 3
    return [p.reshape(n, -1).astype(np.float32) for p in cv2.split(out)]


def sample_patches(frame: np.ndarray, h: np.ndarray, centres: np.ndarray,
                   shifts: np.ndarray | None = None) -> np.ndarray:
    """(N, K, 3) float32 pixels of the patches around board points `centres` (moved by `shifts`
    pitches), bilinear from the frame through the board-to-image homography `h`."""
    centres = np.asarray(centres, np.float64).reshape(-1, 2)
    if shifts is not None:
        centres = centres + shifts
    return np.stack(_sample_planes(frame, h, centres), axis=-1)


def normalise(pix: np.ndarray, white: np.ndarray | None = None
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Colour patches (N, K, 3) -> (ink in [0, 1] (N, K), usable mask (N, K), contrast (N,)).

    `white` (N, 3) is the white paper's colour at each patch (grey levels), when known: no
    printed surface is much brighter than white paper in the same light, so a pixel that is must
    be glare (a specular reflection), and it and its rim are masked out like clipped pixels.

    Ink is 0 on the tile and 1 on the glyph whatever their colours; the mask leaves out the area
    outside the disc and glare; contrast is how far the glyph's level is from the tile's, in
    grey levels along the patch's main colour axis."""
    pix = np.asarray(pix, np.float32)
    limit = None if white is None else GLARE_OVER_WHITE * np.asarray(white, np.float32).sum(axis=1)
    return _normalise_planes([np.ascontiguousarray(pix[..., c]) for c in range(3)], limit)


def _normalise_planes(planes: list[np.ndarray], limit: np.ndarray | None = None
                      ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """`normalise` on (N, K) colour planes, with `limit` (N,) the brightness (sum of the three
    channels) above which a pixel is glare. Every step is an elementwise or row operation on
    whole planes (no per-tile loop, no small batched matrix products, which numpy runs slowly)."""
    b, g, r = planes
    n = len(b)
    glare = np.minimum(np.minimum(b, g), r) >= SATURATED
    if limit is not None:
        glare |= (b + g + r) > np.asarray(limit, np.float32)[:, None]
    mask = np.broadcast_to(SUPPORT, (n, len(SUPPORT))).copy()
    hit = np.flatnonzero(glare.any(axis=1))
    if len(hit):
        # Only the glared tiles are dilated, stacked with a gap of empty rows so that one tile's
        # rim does not spill into the next tile's patch.
        gap = DIL // 2
        img = np.zeros((len(hit), PATCH + gap, PATCH), np.uint8)
        img[:, :PATCH] = glare[hit].reshape(-1, PATCH, PATCH)
        sat = cv2.dilate(img.reshape(-1, PATCH), _RIM).reshape(len(hit), PATCH + gap, PATCH)
        mask[hit] *= 1 - sat[:, :PATCH].reshape(len(hit), -1).astype(np.float32)
    cnt = np.maximum(mask.sum(axis=1), 1)
    centred = [p - (np.einsum("nk,nk->n", mask, p) / cnt)[:, None] for p in planes]
    masked = [c * mask for c in centred]
    cov = np.empty((n, 3, 3), np.float32)
    for i in range(3):
        for j in range(i, 3):
            cov[:, i, j] = cov[:, j, i] = np.einsum("nk,nk->n", masked[i], masked[j]) / cnt
    _, vecs = np.linalg.eigh(cov + np.eye(3, dtype=np.float32) * 1e-3)
    axis = vecs[:, :, -1]
    proj = (centred[0] * axis[:, 0:1] + centred[1] * axis[:, 1:2]) + centred[2] * axis[:, 2:3]
    big = np.float32(1e9)
    ranked = np.sort(np.where(mask > 0, proj, big), axis=1)
    m = cnt.astype(int)
    rows = np.arange(n)

    def q(f: float) -> np.ndarray:
        return ranked[rows, np.clip((m * f).astype(int), 0, np.maximum(m - 1, 0))]

    med = q(0.5)
    hi, lo = q(0.98) - med, med - q(0.02)
    # Blockers! glyphs are printed in white: the glyph is the lighter side of the axis. Choosing
    # the side by spread instead lets a faint thin print (the wild tile's ring under blur) lose
    # to the tile's own darker shading, and the patch is then read inside out.
    sign = np.where(axis.sum(axis=1) >= 0, 1.0, -1.0).astype(np.float32)
    ink_level = np.maximum(np.where(sign > 0, hi, lo), 1e-3)
    rel = (proj - med[:, None]) * (sign / ink_level)[:, None]
    ink = np.clip(rel, 0, 1) * mask
    return ink.astype(np.float32), mask, ink_level.astype(np.float32)


def ink_centre(ink: np.ndarray) -> np.ndarray:
    """(N, 2) centre of mass of the ink (board offsets in pitches), from the clear ink only."""
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


def _drawn(glyph: str, angle: float = 0.0, shift: tuple[float, float] = (0.0, 0.0)) -> np.ndarray:
    """The renderer's drawing of `glyph` turned by `angle` and moved by `shift` pitches, as a
    camera sees it (`TEMPLATE_SCALE`, softened by `TEMPLATE_BLUR`), PATCH x PATCH, ink 0..1."""
    from controller.vision.render import glyph_mask

    img = glyph_mask(glyph, PPG * TEMPLATE_SCALE, HALF / TEMPLATE_SCALE, angle,
                     (shift[0] / TEMPLATE_SCALE, shift[1] / TEMPLATE_SCALE))
    img = cv2.GaussianBlur(img, (0, 0), TEMPLATE_BLUR)
    return np.clip(img / max(float(np.percentile(img, 99)), 1e-3), 0, 1)


@lru_cache(maxsize=1)
def default_images() -> dict[str, np.ndarray]:
    """The standard edition's glyphs as a camera sees them, upright, PATCH x PATCH, ink 0..1."""
    return {g: _drawn(g) for g in GLYPHS}


def drawn_turns(glyph: str) -> np.ndarray:
    """(len(ANGLES), K) like `centred_turns`, but each angle drawn by the renderer's own
    supersampled drawing, so every glyph and angle is exactly as soft as `TEMPLATE_BLUR`."""
    out = []
    for a in ANGLES:
        c = ink_centre(_prepare(_drawn(glyph, a))[None, :])[0]
        out.append(_prepare(_drawn(glyph, a, (-float(c[0]), -float(c[1])))))
    return np.stack(out)


@lru_cache(maxsize=1)
def _default_turns() -> dict[str, np.ndarray]:
    return {g: drawn_turns(g) for g in GLYPHS}


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
    if not isinstance(sure, dict) or set(sure) - {"min_score", "min_ratio"} or not all(
        isinstance(v, (int, float)) and not isinstance(v, bool) and 0 < v < 10 for v in sure.values()
    ):
        raise ConfigError(f"{path}.sure", "expected min_score (0-1) and min_ratio (above 1), numbers")
    return out


# --------------------------------------------------------------------------- reading


class GlyphModel:
    """Templates of the 28 glyphs at every angle of `ANGLES`, and the decision with a margin."""

    def __init__(self, images: dict[str, np.ndarray] | None = None,
                 min_score: float = MIN_SCORE, min_ratio: float = MIN_RATIO) -> None:
        images = images or {}
        drawn = _default_turns()
        self.glyphs = GLYPHS
        self.min_score = min_score
        self.min_ratio = min_ratio
        self.templates = np.concatenate([  # (G*A, K)
            centred_turns(images[g]) if g in images else drawn[g] for g in GLYPHS])
        t = self.templates
        self.t2 = t * t
        self._full_st = SUPPORT @ t.T
        self._full_stt = SUPPORT @ self.t2.T

    @classmethod
    def from_profile(cls, settings: dict) -> GlyphModel:
        data = settings.get("glyphs")
        if data is None:
            return _default_model()
        images = check_settings(data)
        sure = data.get("sure", {})
        return cls(images, float(sure.get("min_score", MIN_SCORE)),
                   float(sure.get("min_ratio", MIN_RATIO)))

    def scores(self, ink: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """(N, G) best normalised cross-correlation of each glyph over its angles."""
        return self._scores(ink, mask).max(axis=2)

    def _scores(self, ink: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """(N, G, A) normalised cross-correlation with each glyph at each angle, as one matrix
        product over all tiles and templates."""
        t = self.templates
        cnt = np.maximum(mask.sum(axis=1), 1)[:, None]
        sv = ink.sum(axis=1)[:, None]
        svv = (ink * ink).sum(axis=1)[:, None]
        svt = ink @ t.T
        full = np.all(mask == SUPPORT[None, :], axis=1)
        st = np.where(full[:, None], self._full_st[None, :], 0.0)
        stt = np.where(full[:, None], self._full_stt[None, :], 0.0)
        if not full.all():
            part = ~full
            st[part] = mask[part] @ t.T
            stt[part] = mask[part] @ self.t2.T
        num = svt - sv * st / cnt
        den = np.sqrt(np.maximum(svv - sv * sv / cnt, 1e-6) * np.maximum(stt - st * st / cnt, 1e-6))
        ncc = num / den
        return ncc.reshape(len(ink), len(GLYPHS), len(ANGLES))

    def decide(self, ink: np.ndarray, mask: np.ndarray, contrast: np.ndarray) -> GlyphReading:
        full = self._scores(ink, mask)
        s = full.max(axis=2)
        order = np.argsort(-s, axis=1)
        rows = np.arange(len(s))
        best, second = s[rows, order[:, 0]], s[rows, order[:, 1]]
        seen = mask.sum(axis=1) / SUPPORT.sum()
        ratio = (1 - second) / np.maximum(1 - best, 1e-6)
        sure = ((best >= self.min_score) & (ratio >= self.min_ratio)
                & (seen >= 1 - MAX_GLARE) & (contrast >= MIN_CONTRAST))
        hidden = np.flatnonzero(sure & np.any(mask != SUPPORT[None, :], axis=1))
        if len(hidden):
            turn = full[hidden].argmax(axis=2)
            for j, i in enumerate(hidden):
                sure[i] = self._tells_apart(ink[i], mask[i], s[i], turn[j])
        glyphs = [GLYPHS[o] if ok else "?" for o, ok in zip(order[:, 0], sure)]
        return GlyphReading(glyphs, sure, best, second)

    def _tells_apart(self, ink: np.ndarray, mask: np.ndarray, score: np.ndarray,
                     turn: np.ndarray) -> bool:
        """Whether a partly hidden tile's visible pixels tell its best glyph from every close
        rival. Hiding part of a glyph can leave what another glyph also shows (a 3 in an 8 with
        one side hidden), and the score over the visible pixels cannot see what was lost; so on
        the pixels where the two templates differ, enough must be visible and the ink there must
        match the best glyph clearly better than the rival."""
        a = len(ANGLES)
        b = int(score.argmax())
        tb = self.templates[b * a + turn[b]]
        seen = mask > 0
        near = RIVAL_RATIO * max(1 - float(score[b]), RIVAL_FLOOR)
        for r in np.flatnonzero((1 - score) < near):
            if r == b:
                continue
            tr = self.templates[r * a + turn[r]]
            w = (tb - tr) ** 2  # how much each pixel tells the two apart
            shown = w * seen
            visible = float(shown.sum())
            if visible < MIN_DIFFER_SEEN:
                return False
            ideal = float((shown * w).sum()) / visible  # the rival's mismatch on a perfect print
            eb = float((shown * (ink - tb) ** 2).sum()) / visible
            er = float((shown * (ink - tr) ** 2).sum()) / visible
            if er - eb < DIFFER_MARGIN * ideal:
                return False
        return True


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
    return _print_white(pix[..., 0] + pix[..., 1] + pix[..., 2], centres, white)[0]


def _print_white(brightness: np.ndarray, centres: np.ndarray, white: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray]:
    """`print_white` from the patches' brightness (N, K: the sum of the three channels), and the
    glare limit (N,): a brightness (sum of the channels) `GLARE_OVER_WHITE` times that white."""
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
    return white * gain[:, None], (GLARE_OVER_WHITE * total * gain).astype(np.float32)


def centred_patches(frame: np.ndarray, h: np.ndarray, centres: np.ndarray,
                    white: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Normalised patches re-sampled around each tile's ink centre: (ink, mask, contrast).

    The second sampling is exact (bilinear from the frame at the shifted points), not a shift of
    the first patch, which would blur the print a second time."""
    return _centred(frame, h, centres, white)[0]


def _centred(frame: np.ndarray, h: np.ndarray, centres: np.ndarray, white: np.ndarray | None
             ) -> tuple[tuple[np.ndarray, np.ndarray, np.ndarray], list[np.ndarray],
                        np.ndarray | None]:
    """`centred_patches`, with the re-centred colour planes and the (raised) paper white."""
    centres = np.asarray(centres, np.float64).reshape(-1, 2)
    planes = _sample_planes(frame, h, centres, _POINTS)
    limit = None
    if white is not None:
        white, limit = _print_white(planes[0] + planes[1] + planes[2], centres, white)
    ink, _, _ = _normalise_planes(planes, limit)
    shift = ink_centre(ink)
    planes = _sample_planes(frame, h, centres + shift)
    return _normalise_planes(planes, limit), planes, white


def glare_free(planes: list[np.ndarray], white: np.ndarray
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(ink, mask, contrast) like `normalise`, but from the pixels' chroma only (each pixel less
    its grey level), which an additive white glare spot leaves as it is. The print is white paper,
    so its chroma is the paper white's (`white`, (N, 3)) and the tile's is its disc's median; ink
    is each pixel's place between the two. Only pixels with a clipped channel (and their rim) are
    left out: clipping, not the glare itself, loses the chroma. Contrast is the chroma distance
    between print and tile, in grey levels."""
    b, g, r = planes
    n = len(b)
    grey = (b + g + r) / 3
    chroma = [b - grey, g - grey, r - grey]
    clipped = np.maximum(np.maximum(b, g), r) >= SATURATED
    mask = np.broadcast_to(SUPPORT, (n, len(SUPPORT))).copy()
    hit = np.flatnonzero(clipped.any(axis=1))
    for i in hit:
        rim = cv2.dilate(clipped[i].reshape(PATCH, PATCH).astype(np.uint8), _RIM)
        mask[i] *= 1 - rim.reshape(-1).astype(np.float32)
    w = np.asarray(white, np.float32)
    wq = w - w.mean(axis=1, keepdims=True)
    big = np.float32(1e9)
    vis = np.where(mask.any(axis=1, keepdims=True), mask, SUPPORT[None, :]) > 0
    tile = np.stack([np.nanmedian(np.where(vis, c, np.nan), axis=1) for c in chroma], axis=1)
    d = wq - tile
    d2 = np.maximum((d * d).sum(axis=1), 1e-6)
    u = sum((c - tile[:, j:j + 1]) * (d[:, j:j + 1] / d2[:, None]) for j, c in enumerate(chroma))
    ranked = np.sort(np.where(mask > 0, u, big), axis=1)
    m = np.maximum(mask.sum(axis=1).astype(int), 1)
    level = np.maximum(ranked[np.arange(n), np.clip((m * 0.98).astype(int), 0, m - 1)], 1e-3)
    ink = np.clip(u / level[:, None], 0, 1) * mask
    return ink.astype(np.float32), mask, np.sqrt(d2).astype(np.float32)


def read_glyphs(model: GlyphModel, frame: np.ndarray, h: np.ndarray, centres: np.ndarray,
                white: np.ndarray | None = None) -> GlyphReading:
    """The glyph of the tile at each board point `centres` (N, 2) of the frame; `white` is the
    paper white at each point (N, 3 grey levels) when the caller knows it."""
    if len(centres) == 0:
        z = np.zeros(0)
        return GlyphReading([], z.astype(bool), z, z)
    (ink, mask, contrast), planes, white = _centred(frame, h, centres, white)
    reading = model.decide(ink, mask, contrast)
    if white is None:
        return reading
    redo = np.flatnonzero(~reading.sure & np.any(mask != SUPPORT[None, :], axis=1))
    if len(redo):
        again = model.decide(*glare_free([p[redo] for p in planes], white[redo]))
        for j, i in enumerate(redo):
            ratio = (1 - again.second[j]) / max(1 - float(again.best[j]), 1e-6)
            if again.sure[j] and ratio >= max(model.min_ratio, GLARE_FREE_RATIO):
                reading.glyphs[i] = again.glyphs[j]
                reading.sure[i] = True
                reading.best[i], reading.second[i] = again.best[j], again.second[j]
    return reading
