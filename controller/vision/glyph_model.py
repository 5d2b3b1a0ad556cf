"""Blockers! glyphs, the templates and the decision: the 28 glyphs at every angle of `ANGLES`,
drawn from the standard edition or learned from a real copy (`vision.glyphs` of the profile), and
which glyph a patch's ink shows, with a margin, or `?` (see `glyphs` for the whole reading).

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
from typing import Annotated, Any, ClassVar

import cv2
import numpy as np
from pydantic import Field
from pydantic_core import PydanticCustomError

from controller.language import N_, _, literal
from controller.schema import LearnedSection, checked, sentence, validate
from controller.vision.glyph_ink import _DISC, _SUPPORT_SUM, PATCH, PPG, SUPPORT, ink_centre

GLYPHS = "123456789ABCDEFGHIabcdefghi*"
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
#: 9,775 (a C half under a clipped glare spot whose halo thickens it into the moon). Where the
#: hidden pixels may be the print itself (`decide`'s `print_hidden`), more glyphs are rivals
#: (`_tells_apart`).
RIVAL_RATIO = 2.5
RIVAL_FLOOR = 0.02  # a near-perfect fit still has rivals: the best's mismatch counts as this
MIN_DIFFER_SEEN = 2.0
DIFFER_MARGIN = 0.3
HIDDEN_MARGIN = 0.5
FULLY_SEEN = 0.9
MAX_GLARE = 0.4  # most of a patch that glare may hide
MIN_CONTRAST = 25.0  # least grey levels between glyph and tile
#: How the print is drawn for the out-of-the-box templates: scale and softening (patch pixels).
#: Fitted to tiles as the reader samples them on blurry, low-resolution frames (hard renders,
#: pitch 33-49 px): a camera's blur and the ink normalisation's clipping thin the strokes' edges,
#: so the print matches best about 3% smaller and a little softer than drawn (noise-free B tiles:
#: 1 - score against B 0.006 -> 0.0015, against 8 0.017 -> 0.012, so B is no longer unsure).
TEMPLATE_SCALE = 0.97
TEMPLATE_BLUR = 1.2


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

    def take(self, idx: np.ndarray) -> GlyphReading:
        """The reading of the tiles `idx` alone."""
        return GlyphReading([self.glyphs[i] for i in idx], self.sure[idx], self.best[idx], self.second[idx])

    def put(self, idx: np.ndarray, part: GlyphReading) -> None:
        """Set the tiles `idx` from `part`, the reading of those tiles alone."""
        for j, i in enumerate(idx):
            self.glyphs[i] = part.glyphs[j]
        self.sure[idx], self.best[idx], self.second[idx] = part.sure, part.best, part.second


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
def _shipped() -> dict[str, Any]:
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


def decode_image(text: object) -> np.ndarray:
    """A glyph image from its base64 text (`encode_image`); a sentence for anything else."""
    if not isinstance(text, str):
        raise sentence(_("expected base64 text of a glyph image"))
    try:
        raw = base64.b64decode(text.encode("ascii"), validate=True)
    except (ValueError, UnicodeEncodeError):
        raise sentence(_("not valid base64 text")) from None
    if len(raw) != PATCH * PATCH:
        raise sentence(_("expected {n} bytes ({side}x{side}), got {got}", n=PATCH * PATCH, side=PATCH, got=len(raw)))
    return np.frombuffer(raw, np.uint8).reshape(PATCH, PATCH).astype(np.float32) / 255


def _patch_size(value: Any) -> Any:
    if value != PATCH:
        raise sentence(_("expected {side} (the templates' side in pixels)", side=PATCH))
    return value


def _templates(value: Any) -> dict[str, np.ndarray]:
    """glyph -> image: each glyph one of `GLYPHS`, each image decoded."""
    if not isinstance(value, dict):
        raise sentence(_("expected a mapping of glyph -> image"))
    out = {}
    for key, text in value.items():
        glyph = str(key)
        if glyph not in GLYPHS:
            raise sentence(_("not a glyph; glyphs are {glyphs}", glyphs=literal(GLYPHS)), key=glyph)
        try:
            out[glyph] = decode_image(text)
        except PydanticCustomError as exc:
            raise sentence(exc.context["sentence"] if exc.context else str(exc), key=glyph) from None
    return out


def _sureness(value: Any) -> Any:
    if (
        not isinstance(value, dict)
        or set(value) - {"min_score", "min_ratio"}
        or not all(isinstance(v, (int, float)) and not isinstance(v, bool) and 0 < v < 10 for v in value.values())
    ):
        raise sentence(_("expected min_score (0-1) and min_ratio (above 1), numbers"))
    return value


class GlyphSettings(LearnedSection):
    """A profile's `vision.glyphs`: the glyph images learned from this copy, and how sure a reading must be."""

    not_a_mapping: ClassVar[str] = N_("expected a mapping with size and templates")

    size: Annotated[Any, checked(_patch_size)] = Field(default=None, validate_default=True)
    templates: Annotated[Any, checked(_templates)] = Field(default=None, validate_default=True)
    sure: Annotated[Any, checked(_sureness)] = {}


def check_settings(data: object, path: str = "vision.glyphs") -> dict[str, np.ndarray]:
    """The learned glyph images of a profile's `vision.glyphs`, checked."""
    return validate(GlyphSettings, data, prefix=path).templates


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
        print_hidden: np.ndarray | None = None,
    ) -> GlyphReading:
        """The glyph of each patch, sure or not; `scores` are its `_scores` and `hidden` (bool) which
        patches are partly hidden (mask not the whole disc), when already known; `print_hidden`
        (bool) which patches' hidden pixels may be the print itself (`glyphs.print_hidden`)."""
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
                widen = print_hidden is not None and bool(print_hidden[i])
                sure[i] = self._tells_apart(ink[i], mask[i], s[i], turn[j], widen)
        glyphs = [GLYPHS[o] if ok else "?" for o, ok in zip(order[:, 0], sure)]
        return GlyphReading(glyphs, sure, best, second)

    def _tells_apart(
        self, ink: np.ndarray, mask: np.ndarray, score: np.ndarray, turn: np.ndarray, print_hidden: bool = False
    ) -> bool:
        """Whether a partly hidden tile's visible pixels tell its best glyph from every close
        rival. Hiding part of a glyph can leave what another glyph also shows (a 3 in an 8 with
        one side hidden), and the score over the visible pixels cannot see what was lost; so on
        the pixels where the two templates differ, enough must be visible and the ink there must
        match the best glyph clearly better than the rival, by more than the hidden pixels could
        say for the rival.

        With `print_hidden` the hidden pixels may be the print itself (clipped print, not glare):
        then the print's own telling strokes are what is missing (a 1 whose flag and foot clip
        fits an I's stroke everywhere else), so a glyph is a rival when its mismatch times the
        visible share of the pixels telling it from the best is near the best's. Elsewhere what
        is hidden is glare or a shadow, as likely on the tile as on the print, and the rivals are
        the glyphs whose mismatch itself is near."""
        a = len(ANGLES)
        b = int(score.argmax())
        near = RIVAL_RATIO * max(1 - float(score[b]), RIVAL_FLOOR)
        seen = mask > 0
        every = self.templates[np.arange(len(GLYPHS)) * a + turn]  # (G, K), each glyph as turned
        tb = every[b]
        miss = 1 - score
        if print_hidden:
            tells = (tb - every) ** 2
            miss = miss * (tells * seen).sum(axis=1) / np.maximum(tells.sum(axis=1), 1e-9)
        if (~seen).any():
            # Each glyph where its own seen strokes fall (`_hidden_aligned`), scored there too.
            every = _hidden_aligned(ink, seen, every)
            miss = np.minimum(miss, 1 - _seen_ncc(ink, seen, every))
        rivals = np.flatnonzero(miss < near)
        rivals = rivals[rivals != b]
        if not len(rivals):
            return True
        tr = every[rivals]  # (R, K)
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


#: How far (patch pixels either way) a rival's template is moved to fit a partly hidden tile.
HIDDEN_SHIFT = 6


def _hidden_aligned(ink: np.ndarray, seen: np.ndarray, templates: np.ndarray) -> np.ndarray:
    """`templates` (G, K), each moved by up to `HIDDEN_SHIFT` pixels to where it fits the seen ink
    best, (G, K).

    A spot that hides part of a tile pulls the ink centre, on which the patch is centred, away
    from what it hides; had the tile been this rival, the hidden part would be the rival's own
    strokes, and the centre pulled by their weight, not the best glyph's. So the rival is compared
    where its seen strokes fall (least squared miss over the seen pixels). A template is moved
    zero-filled: what moves out of the patch is gone, nothing comes in (a wrap-around would bring a
    stroke from the far edge into the disc).

    The miss at every shift of every template at once: over the seen pixels, (T - ink)^2 is T^2
    less twice T times the ink plus what does not move, so two matrix products of the seen
    pixels' (and the seen ink's) windows at each shift with the templates (and their squares)
    give it; the first least shift (rows, then columns, from -`HIDDEN_SHIFT`) wins, as one template
    at a time did."""
    side = 2 * HIDDEN_SHIFT + 1
    seen_disc = (seen * SUPPORT).astype(np.float32).reshape(PATCH, PATCH)

    def windows(image: np.ndarray) -> np.ndarray:  # (shifts, K): the image around each shift
        return np.lib.stride_tricks.sliding_window_view(np.pad(image, HIDDEN_SHIFT), (PATCH, PATCH)).reshape(
            side**2, -1
        )

    ink_seen = seen_disc * np.asarray(ink, np.float32).reshape(PATCH, PATCH)
    miss = windows(seen_disc) @ (templates * templates).T - 2 * (windows(ink_seen) @ templates.T)  # (shifts, G)
    best = miss.argmin(axis=0)
    dy, dx = best // side - HIDDEN_SHIFT, best % side - HIDDEN_SHIFT
    padded = np.pad(templates.reshape(-1, PATCH, PATCH), ((0, 0), (HIDDEN_SHIFT,) * 2, (HIDDEN_SHIFT,) * 2))
    at_y, at_x = HIDDEN_SHIFT - dy, HIDDEN_SHIFT - dx
    moved = np.stack([padded[g, y : y + PATCH, x : x + PATCH] for g, (y, x) in enumerate(zip(at_y, at_x))])
    return moved.reshape(len(templates), -1) * SUPPORT


def _seen_ncc(ink: np.ndarray, seen: np.ndarray, templates: np.ndarray) -> np.ndarray:
    """(G,) normalised cross-correlation of the ink with each template over the seen pixels."""
    m = seen.astype(np.float32)
    cnt = max(float(m.sum()), 1.0)
    v = ink * m
    sv, svv = v.sum(), (v * v).sum()
    svt, st, stt = templates @ v, templates @ m, (templates * templates) @ m
    return GlyphModel._ncc(svt, sv, svv, st, stt, np.full(1, cnt, np.float32))


@lru_cache(maxsize=1)
def _default_model() -> GlyphModel:
    return GlyphModel()
