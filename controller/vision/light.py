"""Stage *light*: the light every place is seen in, measured from what the camera always sees.

On a copy with markers, the white paper around each corner marker (a square band just outside
it) is the reference: its robust colour at each marker, interpolated over the board, is the
light at every place, and colours are read relative to it (white paper -> 1 in every channel), so
exposure, a lamp's colour and a lighting gradient cancel. A covered or glared marker's paper is
replaced by the others'. A copy without markers uses the profile's `vision.white` (or the
standard paper's) for the whole board.

What dividing by the paper cannot undo is a clipped channel (`LightDoubt`): a saturated lamp
drives its strong channel to full scale on the paper and on bright pieces alike, and a colour is
then only known to lie on one side of what was seen. A place is read surely only where no look of
another meaning is within reach of what the clipped channels allow (`bounds.reachable`), and the
reader says which colours the lamp makes alike.

Nor does the paper undo a lamp that *mixes* the channels (`FrameLight`): a lamp of a few narrow
lines or bands (an amber or party LED, a fluorescent tube), seen through the camera's overlapping
channel sensitivities, blends what each channel sees; white stays white, so the paper sees no
change, but every coloured surface moves, and a piece may come to look like a learned look of
another colour. The board's frame band, a coloured surface always in view, is the second meter:
seen relative to the paper, it must look as it did when the copy was calibrated.
"""

from __future__ import annotations

import numpy as np

from controller.vision import bounds, looks
from controller.vision.classify import MIN_VAR, ClassModel, open_set_distance
from controller.vision.features import (
    SATURATED,
    PatchSampler,
    Rectifier,
    bilinear_weights,
    colour_features,
    colours_of,
)
from controller.vision.geometry import LatticeGeometry


class PaperLight:
    """The paper white per marker of a rectified board (`white`), and colours relative to it."""

    def __init__(self, geom: LatticeGeometry, rect: Rectifier, ppp: float, fixed: bool, white=None) -> None:
        self.fixed = fixed
        s = geom.marker_size
        band = _square_band(0.56 * s * ppp, 0.64 * s * ppp)
        self.paper = PatchSampler(rect.to_px(geom.marker_centres()), band, rect.size[::-1])
        self.corners = geom.marker_centres()
        self.fixed_white = np.array(white, np.float64) / 255 if white else np.array(looks.PAPER[::-1]) / 255

    def weights(self, points: np.ndarray) -> np.ndarray:
        """(N, 4) how much each marker's paper counts at each board point (bilinear)."""
        return bilinear_weights(points, self.corners)

    def white(self, rect: np.ndarray) -> np.ndarray:
        """Paper white per marker (4, 3), with a covered or glared marker replaced by the others;
        a copy without markers: its one white (3,)."""
        if self.fixed:
            return self.fixed_white
        med, used = self.paper.medians(rect)
        med = med / 255
        typical = np.median(med, axis=0)
        bad = (used < 0.5) | (np.abs(med / typical - 1) > 0.3).any(axis=1)
        med[bad] = typical
        return np.maximum(med, 0.02)


#: How much brighter than seen a clipped paper channel's light may be found: the factors tried, a
#: tenth apart (about the learned looks' spread in brightness), up to eight times.
CLIPPED_GAINS = 1.1 ** np.arange(0, 22)


def unclipped_white(
    med: np.ndarray, white: np.ndarray, weights: np.ndarray, model: ClassModel
) -> tuple[np.ndarray, np.ndarray]:
    """The paper white with its clipped channels measured on the places instead, and where it is
    still only a bound (as `white`, bools).

    A channel clipped on the paper says only that the light is at least that bright, and every
    colour read relative to it comes out too strong by the same factor. The places the learned
    looks describe tell by how much: each clipped channel's light is the one (of `CLIPPED_GAINS`
    times what the paper shows; both channels together where two clip, one common factor where all
    three do) under which the places lie nearest their nearest learned looks, each place's distance
    capped at the open-set distance (a place no look describes does not pull). Where all three
    clip (the board over-exposed), or the best factor is the largest tried, the lamp's colour is
    not measured and the paper stays a bound. A white paper clipped in no channel is returned as
    it is."""
    at_scale = np.asarray(white) * 255 >= SATURATED
    clipped = at_scale.reshape(-1, 3).any(axis=0)
    if not clipped.any():
        return white, at_scale
    chans = np.flatnonzero(clipped)
    if len(chans) == 3:
        grid = np.repeat(CLIPPED_GAINS[:, None], 3, axis=1)
    else:
        mesh = np.meshgrid(*([CLIPPED_GAINS] * len(chans)), indexing="ij")
        grid = np.ones((mesh[0].size, 3))
        for j, c in enumerate(chans):
            grid[:, c] = mesh[j].ravel()
    base = med / 255 / (white if white.ndim == 1 else weights @ white)  # (N, 3)
    # Only the clipped channels' relative colours change: rel / gain under each trial.
    trial = base[None] / grid[:, None, :]  # (G, N, 3)
    n = base.shape[0]
    dist = model.distances(colour_features(trial.reshape(-1, 3))).reshape(len(grid), n, -1).min(axis=2)
    cost = np.minimum(dist, model.max_distance).sum(axis=1)
    gain = grid[int(np.argmin(cost))]
    if len(chans) == 3 or gain.max() >= CLIPPED_GAINS[-1]:
        return white * gain, at_scale
    return np.where(at_scale, white * gain, white), np.zeros_like(at_scale)


def channel_bounds(med: np.ndarray, paper: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """(N, 3) what each place's colour relative to the paper is known to be, per channel
    (`bounds`): at least what was seen where the place's patch is clipped, at most where the paper
    whose light it is read in is only a bound (its true white is brighter), anything where both.
    `med` (N, 3) patch colours in grey levels, `paper` (4, 3) or (3,) bools: the paper's channels
    that are only bounds (`unclipped_white`)."""
    place = med >= SATURATED
    if paper.ndim == 1:
        ref = np.broadcast_to(paper, place.shape)
    else:
        ref = (weights > 0) @ paper.astype(np.float64) > 0
    out = np.zeros(place.shape, np.int8)
    out[place] = bounds.UP
    out[ref] = bounds.DOWN
    out[place & ref] = bounds.FREE
    return out


class LightDoubt:
    """Which places a clipped channel leaves open between looks of different meanings.

    The looks live in feature space (`colour_features`), where a clipped channel's freedom is a
    curve; in log colour (log B, G, R relative to the paper) it is a straight half-line. Each look
    is carried there by the features' Jacobian at its mean (its spread, a few per cent in colour,
    is where the linearisation holds), and a place may be a look of another meaning when the bounds
    bring that look within the open-set distance, from beyond it as the colour was seen."""

    def __init__(self, model: ClassModel) -> None:
        self.model = model
        self._means: np.ndarray | None = None

    def _looks(self) -> tuple[np.ndarray, np.ndarray]:
        """Every look's mean and precision in log colour (recomputed when the looks moved)."""
        if self._means is None or not np.array_equal(self._means, self.model.means):
            self._means = self.model.means.copy()
            logs, precs = [], []
            for k, mean in enumerate(self.model.means):
                y = np.log(np.maximum(colours_of(mean[None])[0], 1e-3))
                jac = np.empty((3, 3))
                for c in range(3):
                    step = np.zeros(3)
                    step[c] = 1e-4
                    hi, lo = colour_features(np.exp(y + step)[None])[0], colour_features(np.exp(y - step)[None])[0]
                    jac[:, c] = (hi - lo) / 2e-4
                logs.append(y)
                precs.append(jac.T @ self.model.inv[k] @ jac)
            self._log_means, self._log_precs = np.array(logs), np.array(precs)
        return self._log_means, self._log_precs

    def rivals(self, rel: np.ndarray, place_bounds: np.ndarray, best: np.ndarray, sure: np.ndarray) -> np.ndarray:
        """(N,) for each sure place, the look of another meaning its bounds leave it open to (-1:
        none). `rel` (N, 3) colours relative to the paper (B, G, R), `best` (N,) the looks read."""
        out = np.full(len(rel), -1)
        todo = np.flatnonzero(sure & (place_bounds != bounds.NONE).any(axis=1))
        if not len(todo):
            return out
        means, precs = self._looks()
        y = np.log(np.maximum(rel[todo], 1e-3))
        # A clipped place is at most as bright in that channel as the paper or the brightest
        # learned look: no surface of the copy sends back more light than those.
        top = np.maximum(means.max(axis=0), 0.0)
        dirs, lo, hi = bounds.directions(place_bounds[todo], np.eye(3), top[None] - y)
        reach, seen = bounds.reachable(y, dirs, lo, hi, means, precs)  # (n, K) squared distances
        limit = self.model.max_distance**2
        # Looks of another meaning than the one read that the clipping brings within the open-set
        # distance from beyond it, or nearer than the look read is as seen (the colour the reader
        # went by is then not what tells them apart).
        read = seen[np.arange(len(todo)), best[todo]][:, None]
        other = ~self.model.same[best[todo]] & ((seen > limit) | (reach < read))
        reach = np.where(other, reach, np.inf)
        near = reach.argmin(axis=1)
        open_to = reach[np.arange(len(todo)), near] <= limit
        out[todo[open_to]] = near[open_to]
        return out


class FrameLight:
    """The board's frame band, seen relative to the paper, as a meter of a light the paper does
    not undo (see the module's docstring).

    `expected` is the frame's colour relative to the paper white (B, G, R) under the light the copy
    was calibrated in (`vision.frame`, which calibration measures; the standard edition's declared
    frame colour for a copy read with the standard edition's looks), None where it is not known
    (nothing is then measured). `spread` is a look's standard spread in the features (log
    brightness, two chromaticities); the frame, the median of many band patches, is far more
    precise than one place, so a light that moves it beyond the open-set distance of such a look
    (the distance within which a look's own samples fall) is not the calibration's."""

    def __init__(self, expected, ring: PatchSampler, weights: np.ndarray, spread) -> None:
        self.expected = None if expected is None else colour_features(np.asarray(expected, np.float64)[None])[0]
        self.ring = ring
        self.weights = weights
        self.inv = np.linalg.inv(np.diag(np.asarray(spread, np.float64) ** 2 + MIN_VAR))
        self.limit = open_set_distance(3)

    def colour(self, rect: np.ndarray, white: np.ndarray) -> np.ndarray | None:
        """The frame's colour relative to the paper (B, G, R): the median over the band's patches
        free of clipped pixels (a hand or a reflection on a few of them does not move it), None
        when fewer than half of them are."""
        med, used = self.ring.medians(rect)
        clean = (used > 0.5) & (med < SATURATED).all(axis=1)
        if 2 * clean.sum() < len(clean):
            return None
        return np.median(normalise(med[clean], white, self.weights[clean]), axis=0)

    def distance(self, rect: np.ndarray, white: np.ndarray, paper_bound: np.ndarray) -> float:
        """How far (Mahalanobis, in a look's spread) the frame is seen from its calibrated colour;
        0 where that is not known or not measured."""
        if self.expected is None:
            return 0.0
        seen = self.colour(rect, white)
        if seen is None:
            return 0.0
        # Where the paper is only a bound in a channel, its true white there may be up to the
        # largest of `CLIPPED_GAINS` brighter: the frame is as calibrated if any such light makes it so.
        bound = np.asarray(paper_bound).reshape(-1, 3).any(axis=0)
        gains = np.ones((1, 3))
        for c in np.flatnonzero(bound):
            gains = np.repeat(gains, len(CLIPPED_GAINS), axis=0)
            gains[:, c] = np.tile(CLIPPED_GAINS, len(gains) // len(CLIPPED_GAINS))
        d = colour_features(seen[None] / gains) - self.expected
        return float(np.sqrt(np.einsum("ni,ij,nj->n", d, self.inv, d).min()))

    def unlike(self, rect: np.ndarray, white: np.ndarray, paper_bound: np.ndarray) -> bool:
        """Whether the light is one the paper does not undo: every colour read in it is unsure."""
        return self.distance(rect, white, paper_bound) > self.limit


def local_white(white: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Paper white (grey levels, BGR) at each of a set of points."""
    local = np.tile(white, (len(weights), 1)) if white.ndim == 1 else weights @ white
    return local * 255


def normalise(med: np.ndarray, white: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Patch medians (0-255) divided by the paper white at each patch (white paper -> 1)."""
    local = white if white.ndim == 1 else weights @ white
    return med / 255 / local


def _square_band(r_in: float, r_out: float) -> np.ndarray:
    n = int(np.ceil(r_out))
    dy, dx = np.mgrid[-n : n + 1, -n : n + 1]
    d = np.maximum(np.abs(dx), np.abs(dy))
    keep = (d >= r_in) & (d <= r_out)
    return np.stack([dy[keep], dx[keep]], axis=1)
