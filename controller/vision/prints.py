"""What a sheen cannot change: how a place's print stands out from its body, in light.

A sheen adds light to a place (`sheen_doubt.py`), smoothly over its small patch: the reflection is
broad. Added light moves neighbouring pixels alike, so once the patch's light is taken less a
plane fitted over it (what a smooth sheen adds, to first order), what is left is what the surfaces
themselves reflect: a print lighter than its body (a Blockers! tile's glyph) stays as much lighter
under the sheen, where the colour does not stay (a green tile plus a pink light is the empty
cell's pale green; a strong white one washes it to the empty look, past what `sheen_doubt` may
take off a colour). Measured in light (the camera's sRGB curve undone, relative to the paper
white), not in picture values, where the curve squeezes what is bright.

A print is measured as how much more light the lightest pixels (`PRINT_QUANTILE`) hold above the
body than the darkest lack below it: a tile's glyph only rises, an empty cell's mark only falls,
and grain and noise do both alike. The frame itself says whether prints tell its pieces from its
empty places: every piece read surely away from the sheen's doubt shows a print at least
`SEPARATION` spreads of the empty places' prints above the strongest of them (those read surely
there too). Then, over the places the sheen's colour was allowed in:

* a place the learned looks read empty surely and the sheen's colour left unsure, because a piece
  plus some of that light also explains its colour, is read empty again where its print is no
  stronger than the strongest sure empty place's (every pixel seen: a clipped one may hide a print);
* a place read empty surely is left unsure where its print is more than a spread above that: a
  clipped pixel counts at the clip, the least light it has, so a print the sheen pushed past the
  clip still shows (a tile washed to the empty look, past what `sheen_doubt` may take off a colour).
  This second check also runs within `REACH` of a patch a reflection covers (`glare`): a narrow
  sheen may clip one place and wash its neighbour to the empty look with no place showing the sheen
  (held-out sheen seed 37), and those places are no references either.

Nothing is assumed of the copy: a game whose pieces show no print of their own (plain tokens)
never has its frames tell the two apart this way, and is left as it was; so is a frame with fewer
than `MIN_REFERENCES` such places of either kind.
"""

from __future__ import annotations

import numpy as np

from controller.snapshot import EMPTY
from controller.vision.classify import Decision
from controller.vision.features import SATURATED
from controller.vision.glyph_ink import GRID, PRINT_QUANTILE, SUPPORT, sample_patches
from controller.vision.light import local_white
from controller.vision.sheen_doubt import REACH, linear

#: How far above every sure empty place's print every sure piece's must be for the frame to tell
#: them apart by it, in spreads of the empty places' prints (their strongest less their median:
#: how far their paper's grain and the sensor's noise reach above a mark, whatever its darkness).
SEPARATION = 2.0
#: The least number of sure places of each kind (empty, piece) the frame's measure is taken from.
MIN_REFERENCES = 3

#: The share of a patch's pixels (the least bright) a plane is fitted to the second time: the
#: print, lighter, left out of what the sheen adds.
BODY_SHARE = 0.7

_DISC = SUPPORT > 0
_PLANE = np.column_stack([np.ones(int(_DISC.sum())), GRID[_DISC]])  # (K, 3): 1, x, y of each pixel


def _plane_fit(light: np.ndarray, use: np.ndarray) -> np.ndarray:
    """(N, K) the plane fitted by least squares over each patch's pixels `use` (N, K) of `light`."""
    w = use.astype(np.float64)
    a = np.einsum("nk,ki,kj->nij", w, _PLANE, _PLANE) + 1e-9 * np.eye(3)
    b = np.einsum("nk,ki,nk->ni", w, _PLANE, light)
    return np.linalg.solve(a, b[..., None])[..., 0] @ _PLANE.T


def print_strength(
    frame: np.ndarray, h: np.ndarray, points: np.ndarray, local: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """(N,) how much lighter each place's print is than its body, in light summed over the three
    channels (paper white 1 in each) less a plane fitted over the patch's body, around board points
    `points` (N, 2) with paper white `local` (N, 3, grey levels) there; and (N,) whether every pixel
    was seen. The strength is how much more light the lightest pixels hold above the middle of the
    patch's body than the darkest lack below it. A clipped pixel counts at the clip, the least light
    it has: a print pushed past the clip still shows, narrowed."""
    pix = sample_patches(frame, h, points)[:, _DISC]  # (N, K, 3)
    light = linear(pix / np.maximum(local[:, None, :], 1.0)).sum(axis=2)
    seen: np.ndarray = np.all(pix < SATURATED, axis=2)
    use = seen | (seen.mean(axis=1) < 0.5)[:, None]  # mostly clipped: every pixel, at the clip
    left = light - _plane_fit(light, use)
    top = np.where(use, left, left.max() + 1.0)  # pixels left out rank above every one used
    body = use & (left <= np.quantile(top, BODY_SHARE, axis=1, keepdims=True))
    left = light - _plane_fit(light, body)
    lightest, middle, darkest = np.quantile(left, [PRINT_QUANTILE, 0.5, 1 - PRINT_QUANTILE], axis=1)
    return (lightest - middle) - (middle - darkest), np.all(seen, axis=1)


def settle_by_print(
    frame: np.ndarray,
    h: np.ndarray,
    points: np.ndarray,
    white: np.ndarray,
    weights: np.ndarray,
    before: Decision,
    after: Decision,
    tinted: np.ndarray,
    glare: np.ndarray | None = None,
) -> Decision:
    """`after` (the decision the sheen's colour was allowed in, over the places `tinted`), where the
    frame tells an empty place's print from a piece's: with each place it left unsure that `before`
    read empty surely given that reading back where its print is no stronger than the strongest sure
    empty place's (every pixel seen), and each place it read empty surely left unsure where its print
    is more than a spread above that (a tile washed to the empty look), there and beside `glare`."""
    empty_before = np.array([letter == EMPTY for letter in before.letters], bool)
    empty_now = np.array([letter == EMPTY for letter in after.letters], bool)
    beside = _beside(points, glare) if glare is not None and glare.any() else np.zeros(len(before.sure), bool)
    doubted = tinted & before.sure & ~after.sure & empty_before
    trusted = (tinted | beside) & after.sure & empty_now
    if not (doubted | trusted).any():
        return after
    looked_at = tinted | beside
    empties, pieces = after.sure & empty_now & ~looked_at, after.sure & ~empty_now & ~looked_at
    measured = np.flatnonzero(doubted | trusted | empties | pieces)
    strength, complete = np.zeros(len(before.sure)), np.zeros(len(before.sure), bool)
    strength[measured], complete[measured] = print_strength(
        frame, h, points[measured], local_white(white, weights[measured])
    )
    if (empties & complete).sum() < MIN_REFERENCES or (pieces & complete).sum() < MIN_REFERENCES:
        return after
    faint, weak = strength[empties & complete].max(), strength[pieces & complete].min()
    spread = faint - np.median(strength[empties & complete])
    if weak < faint + SEPARATION * spread:
        return after
    back = doubted & complete & (strength <= faint)
    printed = trusted & (strength > faint + spread)
    if not (back.any() or printed.any()):
        return after
    out = _taken_back(after, before, back)
    out.sure[printed] = False
    out.confidence[printed] = 0.0
    return out


def _beside(points: np.ndarray, glare: np.ndarray) -> np.ndarray:
    """(N,) the places within `REACH` of a patch a reflection covers (`glare`), not those patches:
    a reflection's core clips a place, and a sheen around it may wash its neighbours to another
    look in an amount no colour shows, while a print keeps its contrast."""
    apart = np.abs(points[:, None, :] - points[None, glare, :]).max(axis=2).min(axis=1)
    return (apart <= REACH + 1e-6) & ~glare


def _taken_back(after: Decision, before: Decision, back: np.ndarray) -> Decision:
    """`after` with the places `back` decided as in `before`."""
    idx = np.flatnonzero(back)
    keys, letters = list(after.keys), list(after.letters)
    for i in idx:
        keys[i], letters[i] = before.keys[i], before.letters[i]

    def mixed(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        if not a.size or not b.size:
            return a
        out = a.copy()
        out[idx] = b[idx]
        return out

    return Decision(
        keys=keys,
        letters=letters,
        sure=mixed(after.sure, before.sure),
        confidence=mixed(after.confidence, before.confidence),
        distance=mixed(after.distance, before.distance),
        open=mixed(after.open, before.open),
        best=mixed(after.best, before.best),
        possible=mixed(after.possible, before.possible),
        margin=mixed(after.margin, before.margin),
    )
