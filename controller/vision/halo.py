"""A lamp's reflection at the board's edge: its halo measured on the frame band, and taken away.

A reflection of a lamp is light *added* to what the board sends back: a core that clips, in a halo
that fades with the distance from the core, the same at one distance whatever lies beneath (white
light, as the paper shows the lamp). Just outside the outer places it lies on the board's margin
beside the frame band, whose colour under the copy's light is known (`vision.frame`, the second
light meter of `light.FrameLight`): what a band pixel shows beyond that colour is the halo itself,
at that pixel's distance from the core. Measured so at every distance the band covers, the halo
is a profile that only falls with the distance (the largest excess seen at that distance or
further). A place in the halo is then seen as it would be without it: each pixel of its patch
less the halo at its own distance, leaving out the pixels clipped in any channel and those nearer the core than
any band pixel (whose halo is not measured). A black marble drowned in the halo of a reflection
beside it, which looks like a white one, is then seen dark; a white one whose patch the core
mostly covers is read on the pixels it left.
"""

from __future__ import annotations

import cv2
import numpy as np

from controller.vision.features import SATURATED, PatchSampler, colour_features, masked_median
from controller.vision.glyph_ink import HALF
from controller.vision.light import normalise
from controller.vision.tops import PlaceLooks

#: Band pixels are grouped by distance from the core in steps of this many pitches.
STEP = 0.05
#: A core's pixels must lie within this many pitches of a place for its halo to be measured there.
NEAR = 1.0
#: The smallest reflection's core whose halo is measured: this radius (pitches).
MIN_CORE = 0.1
#: A reflection's core whose centre lies further than this many pitches outside the outer places is
#: past the frame band (the band runs 0.67-1.03 pitch out; a marker's white paper lies beyond).
BAND = 1.0
#: Band pixels further than this many pitches from the core measure no halo worth taking away.
FAR = 2.0
#: The halo as the band measures it, times these (its measure's uncertainty, in quarters: a look may
#: lie between two measures, as a black ball under the core's halo at 0.75, still too pale at 0.5 and
#: too dark at 1: Flipop hand_check seed 741), and the least fraction of a patch that must be read
#: once it is taken away.
SCALES = (0.5, 0.75, 1.0, 1.25, 1.5)
MIN_READ = 0.1
#: A centre whose fit to the band's excess misses by at most this many times the best fit's variance per
#: pixel more is as likely as the best (chi-square with two degrees of freedom, the centre's x and y, at 95%).
PLAUSIBLE = 5.99
#: Fewest band pixels at one distance that measure the halo there.
MIN_PIXELS = 4
#: Where the reflection's centre is looked for around its clipped pixels' centre (pitches, x and y).
SEARCH = 0.3
SHIFTS = np.stack(np.meshgrid(*[np.arange(-SEARCH, SEARCH + 1e-9, STEP)] * 2), axis=-1).reshape(-1, 2)


def clipped_cores(rect: np.ndarray) -> tuple[int, np.ndarray, np.ndarray, np.ndarray]:
    """The reflections' cores (every channel clipped) of a rectified board: how many (the background
    counted as 0), each pixel's core (0: none), each core's centre (x, y) in rectified pixels and area."""
    clipped = cv2.inRange(rect, (SATURATED,) * 3, (255,) * 3)
    n, labels, stats, centres = cv2.connectedComponentsWithStats(clipped, connectivity=8)
    return n, labels, centres, stats[:, cv2.CC_STAT_AREA]


def has_halo(areas: np.ndarray, ppp: float) -> np.ndarray:
    """Which cores (their areas in rectified pixels, at `ppp` pixels a pitch) are large enough to have a
    halo: `MIN_CORE`'s radius or more (a speck, a ball's glint or noise, has none beyond itself)."""
    return areas >= np.pi * (MIN_CORE * ppp) ** 2


class HaloCheck:
    """The halo of each reflection's core near the board's edge, measured on the frame band, and
    the places' colours without it."""

    def __init__(self, band, frame: np.ndarray | None, ppp: float, places_px: np.ndarray) -> None:
        """`band`: the frame band's patches (`hands.HandCheck`: `ring`, and the paper white's
        `weights` there), `frame` its colour relative to the paper, `places_px` the places' points
        (rectified pixels)."""
        self.band = band.ring
        self.places_px = places_px
        self.box = (places_px.min(axis=0), places_px.max(axis=0))  # the outer places' centres
        self.band_weights = band.weights
        self.frame = None if frame is None else np.asarray(frame, np.float64)
        self.ppp = ppp
        height, width = self.band.shape
        ys, xs = np.mgrid[0:height, 0:width]
        out = np.maximum(
            np.maximum(self.box[0][0] - xs, xs - self.box[1][0]), np.maximum(self.box[0][1] - ys, ys - self.box[1][1])
        )
        # Where a reflection beside the band has its centre (255) and not (0).
        self.zone = (((out > 0) & (out <= BAND * ppp)) * 255).astype(np.uint8)
        self.band_yx = np.stack(np.divmod(self.band.index.ravel(), width), axis=1).astype(np.float64)

    def profile(
        self, rect: np.ndarray, white: np.ndarray, centre: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
        """The halo of the core whose clipped pixels centre on `centre`: where the reflection's own
        centre is (x, y, rectified pixels), and the halo (grey levels added) at distances (pitches)
        from it, falling with the distance, as measured on the frame band; None where the band does
        not measure it (no known frame colour, too few band pixels near the core). The first of
        `profiles`."""
        found = self.profiles(rect, white, centre)
        return found[0] if found else None

    def profiles(self, rect: np.ndarray, white: np.ndarray, centre: np.ndarray) -> list[tuple]:
        """Every halo (`profile`'s triple) at a centre the band cannot tell from the best one, the best
        first; empty where the band does not measure it.

        The clipped pixels' centre is not the reflection's: the core reaches further over a bright
        surface than over a dark one. The reflection's centre is the point around which the band's
        excess is most nearly a function of the distance alone (the halo is round): searched within
        `SEARCH` pitches of the clipped pixels' centre. The band lies on one side of the core, so it
        places the centre well along the band but hardly across it, towards the places: a centre
        nearer them, with the halo the band then measures, lights them far more where the halo is
        steep (Flipop hand_check seed 821: a black ball at half a pitch from the core, with twice the
        light the best centre gives there). Every centre whose misfit exceeds the best's by less than
        `PLAUSIBLE` times the misfit's variance per pixel (a likelihood ratio's 95% region for a point
        in the plane) is as likely; of those, the nearest the places and the furthest from them are
        kept beside the best (at most three halos)."""
        if self.frame is None:
            return []
        vals = self.band.values(rect).astype(np.float64)  # (P, K, 3)
        local = (self.band_weights @ white if white.ndim == 2 else np.tile(white, (len(vals), 1))) * 255
        excess = (vals - local[:, None, :] * self.frame[None, None, :]).mean(axis=2).ravel()
        ok = (vals.max(axis=2) < SATURATED).ravel()
        near = ok & (np.hypot(*(self.band_yx[:, ::-1] - centre).T) / self.ppp <= FAR)
        if near.sum() < MIN_PIXELS:
            return []
        xy, excess = self.band_yx[near][:, ::-1], excess[near]
        # Every trial centre at once: each band pixel's distance bin, and how far the excess lies
        # from its bin's mean (the sum of squares within bins).
        trials = centre + SHIFTS * self.ppp  # (T, 2)
        dist = np.hypot(xy[None, :, 0] - trials[:, None, 0], xy[None, :, 1] - trials[:, None, 1]) / self.ppp
        bins = np.floor(dist / STEP).astype(int)
        width = int(bins.max()) + 1
        flat = (bins + width * np.arange(len(trials))[:, None]).ravel()
        weights = np.tile(excess, len(trials))
        count = np.bincount(flat, minlength=width * len(trials)).reshape(len(trials), width)
        total = np.bincount(flat, weights, minlength=width * len(trials)).reshape(len(trials), width)
        explained = (total**2 / np.maximum(count, 1)).sum(axis=1)
        best = int(np.argmax(explained))
        misfit = float(excess @ excess) - explained
        per_pixel = max(misfit[best], 0.0) / max(len(excess) - int((count[best] > 0).sum()), 1)
        plausible = np.flatnonzero(misfit <= misfit[best] + PLAUSIBLE * per_pixel)
        # The halo on the places grows as the centre nears them: the nearest and the furthest plausible
        # centres (how far outside the outer places) bound what the others would give.
        ahead = trials[plausible]
        outside = np.maximum(np.maximum(self.box[0] - ahead, ahead - self.box[1]), 0).max(axis=1)
        ends = plausible[[int(np.argmin(outside)), int(np.argmax(outside))]]
        out = []
        for t in dict.fromkeys([best, *ends.tolist()]):
            halo = self._falling(excess, bins[t])
            if halo is None and t == best:
                return []  # no distance with enough band pixels at the best centre: not measured
            if halo is not None:
                out.append((trials[t], *halo))
        return out

    @staticmethod
    def _falling(excess: np.ndarray, bins: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
        """The band's excess (`excess`, by distance bin `bins`) as a halo: the median at each distance
        with `MIN_PIXELS`, then the most seen there or further (it only falls with the distance)."""
        levels, at = [], []
        for b in np.unique(bins):
            here = excess[bins == b]
            if len(here) >= MIN_PIXELS:
                at.append((b + 0.5) * STEP)
                levels.append(float(np.median(here)))
        if not at:
            return None
        return np.array(at), np.maximum.accumulate(np.maximum(levels, 0.0)[::-1])[::-1]

    def plausible_halos(self, rect: np.ndarray, white: np.ndarray, places_px: np.ndarray) -> dict[int, list[tuple]]:
        """Per place (index into `places_px`, (N, 2) rectified pixels) within `NEAR` of the core of
        a reflection beside the frame band (`MIN_CORE` and more across, its centre outside the
        outer places by at most `BAND`), every halo of that core the band cannot tell from the best
        (`profiles`: centre and measured halo, the best first); places with none are left out."""
        if not cv2.countNonZero(cv2.bitwise_and(cv2.inRange(rect, (SATURATED,) * 3, (255,) * 3), self.zone)):
            return {}  # nothing clipped beside the band: no reflection there (most frames)
        _n, labels, centres, areas = clipped_cores(rect)
        beyond = np.maximum(np.maximum(self.box[0] - centres, centres - self.box[1]), 0.0).max(axis=1)
        # A speck (a highlight, noise) has no halo the band could measure; a core among the places
        # or past the band (a marker's paper) has no band beside it.
        kept = has_halo(areas, self.ppp) & (beyond > 0) & (beyond <= BAND * self.ppp)
        kept[0] = False  # the background
        if not kept.any():
            return {}
        core_yx = np.argwhere(kept[labels])
        core_of = labels[core_yx[:, 0], core_yx[:, 1]]
        found: dict[int, list[tuple]] = {}
        out: dict[int, list[tuple]] = {}
        for j, (x, y) in enumerate(places_px):
            d = np.hypot(core_yx[:, 1] - x, core_yx[:, 0] - y) / self.ppp
            if d.min() > NEAR:
                continue
            near = np.unique(core_of[d <= NEAR])
            core = int(near[np.argmax(areas[near])])  # the largest near it
            if core not in found:
                found[core] = self.profiles(rect, white, centres[core])
            if found[core]:
                out[j] = found[core]
        return out

    def varies(self, halo: tuple, point_px: np.ndarray, contrast: float, radius: float = HALF) -> bool:
        """Whether `halo` (one of `plausible_halos`') varies by at least `contrast` grey levels over the disc of
        `radius` pitches at `point_px` (rectified pixels), as far as the band measured it."""
        centre, at, level = halo
        d = np.hypot(*(np.asarray(point_px) - centre)) / self.ppp
        return bool(
            np.interp(max(d - radius, at[0]), at, level) - np.interp(d + radius, at, level, right=0.0) >= contrast
        )

    def without_halo(
        self, rect: np.ndarray, patches: PatchSampler, halos: dict[int, tuple], scale: float = 1.0
    ) -> tuple[np.ndarray, np.ndarray]:
        """The patches of the places in `halos` (one of `plausible_halos`' each) less `scale` times their halo: their
        robust colours (grey levels, (N, 3), NaN where not read) and the fraction of each patch
        read (pixels clipped in any channel, and those nearer the core than the band measured,
        left out)."""
        width = rect.shape[1]
        n = len(patches.index)
        out = np.full((n, 3), np.nan)
        read = np.zeros(n)
        for j, (centre, at, level) in halos.items():
            index = patches.index[j]
            y, x = np.divmod(index, width)
            vals = np.take(rect.reshape(-1, 3), index, axis=0).astype(np.float64)
            dist = np.hypot(x - centre[0], y - centre[1]) / self.ppp
            # A pixel clipped in any channel shows only a bound there: left out with the core.
            known = (dist >= at[0]) & (vals.max(axis=1) < SATURATED)
            if not known.any():
                continue
            less = np.clip(vals - scale * np.interp(dist, at, level, right=0.0)[:, None], 0, None)
            med, _used = masked_median(less[known][None].astype(np.float32))
            out[j], read[j] = med[0], known.mean()
        return out, read

    def settle(
        self,
        rect,
        white,
        samplers: dict,
        heights: dict,
        model,
        weights: np.ndarray,
        dec,
        sure,
        lit_read=None,
        fitted=None,
    ) -> dict:
        """The places beside a reflection outside the places (`plausible_halos`), looked at without its halo at each of
        `SCALES` times each halo the band cannot tell from the best (`plausible_halos`), each class at its own
        height (`samplers`, `heights`: `tops.PieceTops`) relative to the paper white (`weights` at the places):
        an unsure place is read where every measure reads it surely as one meaning (and leaves `MIN_READ` of its
        patch read, a taller class's too where that meaning is a lower one); a sure place is unsure where a
        measure leaves a look of another meaning within the open-set distance, on whatever of its patch is read,
        and not ruled out (the nearest, or the place then unsure by the margin rule; one that leaves a colour no
        look describes is not the halo's measure). A sure place whose patch a strong halo leaves under
        `MIN_READ` read at every measure is unsure unless every measure finds its meaning nearest on some pixels
        left (and no height's patch read `MIN_READ` says surely another), or it was read with added light taken
        off (`lit_read`: `reflections.ReflectionCheck.settled`); so is a meaning a fitted light gave (`fitted`)
        where a strong halo leaves the patch like no look at every measure. `dec` and `sure` updated; the best
        halos, by place."""
        plausible = self.plausible_halos(rect, white, self.places_px)
        halos = {j: found[0] for j, found in plausible.items()}
        if not halos:
            return halos
        todo = np.array(sorted(halos))
        # Every measure: each halo the band cannot tell from the best (`profiles`), at each of `SCALES`.
        most = max(len(found) for found in plausible.values())
        alternatives = [{j: found[min(k, len(found) - 1)] for j, found in plausible.items()} for k in range(most)]
        letters = np.array([r.letter for r in model.refs])
        # A halo adding more light than a look's brightness tolerates (the least spread at the open-set distance, as
        # `reflections.diffuse_bound`) was measured; a core's own clipping with nothing on the band is not a halo.
        tolerance = float(np.exp(model.max_distance * np.sqrt(model.floor[0]))) - 1.0
        nearest = np.repeat(np.array([halos[i][2][0] for i in todo])[:, None], 3, axis=1)
        strong = normalise(nearest, white, weights[todo]).mean(axis=1) >= tolerance
        seen, own, said, own_keys = [], [], [], [dec.keys[i] for i in todo]
        for measured, scale in ((m, scale) for m in alternatives for scale in SCALES):
            at = {}
            for z in sorted(set(heights.values())):
                med, read = self.without_halo(rect, samplers[z], measured, scale)
                rel = normalise(np.nan_to_num(med[todo], nan=255.0), white, weights[todo])
                at[z] = (colour_features(rel), read[todo])
            looks = PlaceLooks(heights, at)
            by_height = looks.distances_by_height(model)
            dist = looks.distances(model, by_height)
            lit = model.decide_distances(dist)
            # Each look's distance where some of the patch is read at its height (a few pixels are still evidence
            # against a sure reading: Flipop hand_check seed 121, a black ball the core mostly covers read white).
            shown = np.stack([looks.of(r.key)[1] > 0 for r in model.refs], axis=1)
            # Read on enough of its patch, and not a lower class where a taller one's patch is left unread (a piece
            # could stand there hidden by the core: Flipop hand_check seed 2026, `tops.PlaceLooks.hidden_above`).
            ok = (looks.chosen(lit.keys)[1] >= MIN_READ) & ~looks.hidden_above(lit.keys, MIN_READ)
            seen.append((lit, ok, np.where(shown, dist, np.inf)))
            own.append(looks.chosen(own_keys)[1])
            # What each height's patch, where at least `MIN_READ` of it is read, says surely on its own.
            for z, (_feats, read_z) in at.items():
                alone = model.decide_distances(by_height[z])
                said.append((alone.letters, alone.sure & (read_z >= MIN_READ)))
        first = seen[len(SCALES) // 2][0]  # the best halo at its measure
        for j, i in enumerate(todo):
            # Another meaning within the open-set distance that the measure does not rule out: the nearest, or as near
            # as the classifier's margin allows (Flipop seed 190: a black ball in the halo, W 4.07 and B 4.35 at 1x).
            other = (letters != dec.letters[i])[None] & np.array([near[j] <= model.max_distance for *_, near in seen])
            if sure[i] and any(
                o.any() and (lit.letters[j] != dec.letters[i] or not lit.sure[j]) for o, (lit, *_) in zip(other, seen)
            ):
                sure[i] = False
                continue
            # Nor is a reading whose patch a strong halo leaves under `MIN_READ` read at every measure, unless what is
            # left is nearest its meaning at every measure: the reading saw the halo's light (Colorpop hand_check seed
            # 360: a purple token read as a joker, its pixels left nearest purple; seed 99's yellow token is kept).
            # Nothing left says nothing (Flipop hand_check seed 945: a black ball the core covers, read W surely; none
            # of its pixels lies as far from the core as the band measured the halo, and an unread patch is white).
            # Nor is it kept where a patch read enough says surely another meaning (Flipop hand_check seed 2475: a black
            # ball the core leaves one pale pixel of, its floor's patch, which holds the ball's lower side, black).
            kept = all(lit.letters[j] == dec.letters[i] and o[j] > 0 for (lit, *_), o in zip(seen, own)) and not any(
                sure_z[j] and letters_z[j] != dec.letters[i] for letters_z, sure_z in said
            )
            taken_off = lit_read is not None and lit_read[i]  # read with the added light taken off already
            if sure[i] and strong[j] and not kept and not taken_off and all(o[j] < MIN_READ for o in own):
                sure[i] = False
                continue
            # Nor a meaning a light fitted over the place gave it (`fitted`: the tint stage's) where, without a strong
            # halo, its patch is no look at all at any measure: the fitted light explained the halo's light some other
            # way, and what the halo leaves says nothing for it (Stay Alive hand_check seed 1347: a red marble the core
            # mostly covers, read red plus white light, turned into an empty orange hole under a fitted light).
            fitted_here = sure[i] and strong[j] and fitted is not None and fitted[i]
            if fitted_here and not any((near[j] <= model.max_distance).any() for *_, near in seen):
                sure[i] = False
                continue
            one = len({lit.letters[j] for lit, *_ in seen}) == 1 and all(lit.sure[j] and ok[j] for lit, ok, _ in seen)
            if not sure[i] and one:
                dec.best[i], dec.letters[i], dec.keys[i] = first.best[j], first.letters[j], first.keys[j]
                dec.open[i], dec.confidence[i], sure[i] = first.open[j], first.confidence[j], True
        return halos
