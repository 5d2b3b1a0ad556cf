"""A lamp's reflection beside a place: what is left of the place's colour once its halo is taken away.

A reflection of a lamp on the board or a piece is light *added* to what the board sends back: in
the colours the reader uses (relative to the markers' white paper, which shows the lamp's own
colour), a place in its halo is seen as its true colour plus some amount `a` >= 0 of white, the
same in every channel. Its core is brighter than anything diffuse, and clips. So a place the looks
leave unsure, with such a core within a pitch of it (the halo of a reflection that would matter
spreads about as far as its core), is read as the one meaning whose look some added white light
explains: every look is tried against the place's colour less `a` of white, for every `a` from none
to as much as its darkest channel allows (and a channel that clips brighter than it shows: a floor,
not a measurement), by the very rule the looks use (open-set distance, margins). Where two meanings
could be under the halo (a black marble drowned in white light looks like a white one) it stays
unsure. The reflected lamp need not be the one that lights the paper (a broad cyan sheen whose
middle clips, in a room lit white): the place is read only where light of the colour the core's own
rim shows (`rim_light`) reads it as the same meaning too (held-out `bench/sheen_check.py` Blockers!
seeds 28 and 90: violet plus cyan light is blue plus white).

A lamp of a colour clips only its strong channel, so its reflection may have no core clipped in
every channel. What gives it away is that no diffuse surface sends back more light than the white
paper (or the brightest learned look, if brighter) in the paper's light, widened by the least
spread any look is allowed (the classifier's floor, at the open-set distance): a place brighter
than that in every channel carries the lamp's own light (`lit`), in an amount no colour tells, and
is unsure. The added light is a sum only in the light itself: the camera's tone curve (and a
channel clipped, only a floor) folds it into the colour, so that no amount of white taken away gives
the colour back (on 3D renders, yellow, green and blue tokens under a warm lamp's reflection come
out a near-neutral pale grey, which `explain` reads as a joker). Calibration learns nothing there
(`lit_looks`).
"""

from __future__ import annotations

import cv2
import numpy as np

from controller.vision.classify import ClassModel, Decision
from controller.vision.features import (
    BRIGHTNESS_OFFSET,
    SATURATED,
    PatchSampler,
    colour_features,
    colours_of,
    ring_offsets,
)
from controller.vision.halo import clipped_cores, has_halo
from controller.vision.light import local_white
from controller.vision.sheen import clip_factors
from controller.vision.tops import PlaceLooks

#: How many amounts of added light are tried between none and the most the place allows.
STEPS = 48
#: The width (rectified pixels) of a core's rim, where its light's colour is seen.
RIM = 2


def diffuse_bound(model: ClassModel, white: np.ndarray | None = None) -> float:
    """The most light (relative to the paper white, per channel) a diffuse surface sends back: the
    paper's own, or the brightest learned look's mean brightness where that is brighter, widened by
    the open-set distance at the least spread in brightness any look is allowed (`ClassModel.floor`),
    and by how much the markers' papers (`white`, (4, 3)) differ in brightness: the light between
    them may depart from what they show by as much (a lens's vignetting brightens the middle)."""
    brightest = max(1.0, float(np.exp(model.means[:, 0].max()) - BRIGHTNESS_OFFSET))
    spread = 1.0
    if white is not None and np.ndim(white) == 2:
        total = np.asarray(white).sum(axis=1)
        spread = float(total.max() / max(total.min(), 1e-6))
    return brightest * spread * float(np.exp(model.max_distance * np.sqrt(model.floor[0])))


def lit(model: ClassModel, rel: np.ndarray, clipped: np.ndarray, white: np.ndarray | None = None) -> np.ndarray:
    """(N,) places under a lamp's reflection: every channel of `rel` ((N, 3) colours relative to the
    paper) above `diffuse_bound`, or clipped (`clipped`, (N, 3)), and not every channel clipped
    (glare, which the reader leaves out of a patch)."""
    above = (rel > diffuse_bound(model, white)) | clipped
    return above.all(axis=1) & ~clipped.all(axis=1)


def lit_looks(model: ClassModel, looks: PlaceLooks, keys: list[str]) -> np.ndarray:
    """(N,) places under a lamp's reflection (`lit`), each seen where a body of its class in `keys`
    appears: what calibration learns nothing from (their colour is not the class's)."""
    feats, _used = looks.chosen(keys)
    return lit(model, colours_of(feats), looks.chosen_medians(keys) >= SATURATED)


class ReflectionCheck:
    """The reflections' cores near each place of a rectified board, and the places they explain."""

    def __init__(self, centres_px: np.ndarray, ppp: float, shape: tuple[int, int]) -> None:
        self.near = PatchSampler(centres_px, ring_offsets(0, ppp), shape)
        self.ppp = ppp
        self.settled = np.zeros(0, bool)  # the places the last `settle` read as a look plus white light

    def large_cores(self, rect: np.ndarray) -> np.ndarray:
        """(H, W) each pixel's core clipped in every channel large enough to have a halo (0: none;
        `halo.has_halo`: a speck, a ball's glint, has none beyond itself)."""
        _n, labels, _centres, areas = clipped_cores(rect)
        large = has_halo(areas, self.ppp)
        large[0] = False  # the background
        return np.where(large[labels], labels, 0)

    def rim_light(self, rect: np.ndarray, white: np.ndarray, labels: np.ndarray, places: np.ndarray) -> np.ndarray:
        """(len(places), 3) the colour of the light a reflection near each place adds, largest channel 1:
        the rim just outside its core (`RIM` pixels wide, the core with most pixels within a pitch of the
        place), relative to the paper, where the added light outshines the surface. A lamp of another
        colour than the paper's (a broad cyan sheen whose middle clips) is seen there; a channel that
        clips is only a floor, so the colour is no more than a second guess beside white."""
        out = np.ones((len(places), 3))
        paper = np.asarray(white, np.float64).reshape(-1, 3).mean(axis=0) * 255
        near = labels.ravel()[self.near.index[places]]  # (len(places), pixels)
        rims: dict[int, np.ndarray] = {}
        for j, ring in enumerate(near):
            found = ring[ring > 0]
            if not len(found):
                continue
            core = int(np.bincount(found).argmax())
            if core not in rims:
                mask = (labels == core).astype(np.uint8)
                grown = cv2.dilate(mask, np.ones((2 * RIM + 1, 2 * RIM + 1), np.uint8))
                rim = rect[(grown > 0) & (mask == 0)].astype(np.float64) / paper
                rims[core] = np.median(rim, axis=0) if len(rim) else np.ones(3)
            out[j] = rims[core] / max(float(rims[core].max()), 1e-6)
        return out

    def cores_near(self, rect: np.ndarray, places: np.ndarray, lit_above: np.ndarray | None = None) -> np.ndarray:
        """(len(places),) whether a core lies within a pitch: a pixel clipped in every channel, or
        (given `lit_above`, (len(places), 3) grey levels: `diffuse_bound` in each place's light)
        every channel of which is clipped or above that."""
        flat = rect.reshape(-1, rect.shape[2])
        vals = np.take(flat, self.near.index[places], axis=0)
        core = vals >= SATURATED
        if lit_above is not None:
            core |= vals > lit_above[:, None, :]
        return core.all(axis=2).any(axis=1)

    def settle(
        self,
        model: ClassModel,
        rect: np.ndarray,
        white: np.ndarray,
        rel: np.ndarray,
        clipped: np.ndarray,
        usable: np.ndarray,
        dec: Decision,
        sure: np.ndarray,
    ) -> np.ndarray:
        """Places under a lamp's reflection (`lit`) made unsure; places the looks leave unsure (and
        `usable`) beside a core clipped in every channel within a pitch, large enough to have a halo
        (`large_cores`), read where only one meaning's look explains them with some added white light
        (`explain`), and the same with light of the core's rim's colour (`rim_light`): `dec` and `sure`
        updated. Returns the places under a reflection."""
        under = lit(model, rel, clipped, white)
        sure &= ~under
        todo = np.flatnonzero(~sure & ~under & usable)
        if len(todo):  # a core large enough to have a halo (Flipop hand_check seed 174: a glint beside a ball)
            labels = self.large_cores(rect)
            todo = todo[np.take(labels.ravel() > 0, self.near.index[todo]).any(axis=1)]
        self.settled = np.zeros(len(sure), bool)
        if len(todo):
            found = self.explain(model, rel[todo])
            # Read where the rim's light, as a second guess of the light's colour, reads it the same.
            again = self.explain(model, rel[todo], self.rim_light(rect, white, labels, todo))
            found.sure &= again.sure & model.same[found.best, again.best]
            # And where a channel the place clips, only a floor, read brighter reads it the same (Stay Alive
            # hand_check seed 2062: an orange hole in a core's halo, red clipped, read as a yellow marble plus white
            # light; orange has more red than it can show). It only adds doubt: raised, a blue channel under a cyan
            # sheen reads a violet tile blue (`bench/sheen_check.py` Blockers! seeds 241, 252).
            if clipped[todo].any():
                raised = self.explain(model, rel[todo], clipped=clipped[todo])
                found.sure &= raised.sure & model.same[found.best, raised.best]
            for j, i in enumerate(todo):
                if found.sure[j]:
                    self.settled[i] = True
                    dec.best[i], dec.letters[i], dec.keys[i] = found.best[j], found.letters[j], found.keys[j]
                    dec.open[i], dec.confidence[i], sure[i] = found.open[j], found.confidence[j], True
        return under

    def beside(
        self, rect: np.ndarray, under: np.ndarray, model: ClassModel, white: np.ndarray, weights: np.ndarray
    ) -> np.ndarray:
        """(N,) the places under a reflection (`under`) or with a core within a pitch (`cores_near`,
        lit above `diffuse_bound` in the paper's light, `white` at the places' `weights`). Said to the
        player only (what to change), so with no allowance for the markers' papers differing: a place
        brighter than that in the paper's light is lit by the lamp, reflected or too near, and moving
        the lamp is the change to make either way (3D room 3: tokens on the bottom row under a warm
        lamp's reflection, 1.3-1.5 times the paper, read as jokers)."""
        others = np.flatnonzero(~under)
        lit_above = local_white(white, weights[others]) * diffuse_bound(model)
        out = under.copy()
        out[others[self.cores_near(rect, others, lit_above)]] = True
        return out

    def explain(
        self, model: ClassModel, rel: np.ndarray, light: np.ndarray | None = None, clipped: np.ndarray | None = None
    ) -> Decision:
        """The looks' decision on `rel` ((n, 3) colours relative to the paper) with the least
        distance over every amount of added light each look allows: white, or of the colours
        `light` ((n, 3), largest channel 1); where a channel clips (`clipped`, (n, 3)), also over
        that channel brighter than it shows (by `sheen.CLIP_ROOM`'s factors: the true colour is at
        least what was seen there, as `sheen.sheen_distances_clipped` reads a sheen)."""
        light = np.ones_like(rel) if light is None else np.asarray(light, np.float64)
        dist = _added_light_distances(model, rel, light)
        for i in [] if clipped is None else np.flatnonzero(np.asarray(clipped).any(axis=1)):
            tried = rel[i][None] * clip_factors(np.asarray(clipped)[i])  # (F, 3), factor 1 included
            dist[i] = _added_light_distances(model, tried, np.repeat(light[i : i + 1], len(tried), axis=0)).min(axis=0)
        return model.decide_distances(dist)


def _added_light_distances(model: ClassModel, rel: np.ndarray, light: np.ndarray) -> np.ndarray:
    """(n, K) least distance of each colour `rel` (n, 3) to each look over every amount of light of
    colour `light` (n, 3) taken off, from none to as much as its darkest channel allows."""
    top = np.maximum((rel / np.maximum(light, 1e-6)).min(axis=1), 0.0)  # the true colour is not below black
    amounts = np.linspace(0.0, 1.0, STEPS)[None, :, None] * top[:, None, None] * light[:, None, :]
    under = np.maximum(rel[:, None, :] - amounts, 1e-4)  # (n, STEPS, 3)
    return model.distances(colour_features(under.reshape(-1, 3))).reshape(len(rel), STEPS, -1).min(axis=1)
