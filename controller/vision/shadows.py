"""A lamp's hard shadow across the frame band is not an arm (part of the stage *hand check*).

Something standing beside the board between a desk lamp and the board (a box, a person by the
table) casts a hard shadow across the band of frame around the lattice: a run of band patches
darker in every channel, entered by a sharp step, as a dark sleeve over the band would be.
Colour alone cannot tell them apart; what lies beyond the band, the board's outer edge and the
table, can:

- a cast shadow *multiplies* what lies under it by one factor per channel (the room's light over
  the room's and the lamp's together): where it covers the band and the table beyond the board's
  edge alike, the contrast across that edge (table against band, per channel) is what it is in the
  lamp's full light beside the shadow (the edge is *kept*); where it covers the band only, the
  table keeps its light; in between, the table is darkened by a part of the band's darkening, the
  same part in every channel (the lamp's colour against the room's); near the thing that casts it,
  the table is darkened by one more factor, the same in every channel (it also hides part of the
  room's light from the table): the edge then keeps its colour contrast, only darker (3D bench,
  Blockers! room 3: a narrow shadow from a box beside the board);
- an arm *replaces* what lies under it: it reaches over the board from beside it, so over the band
  and the board's edge alike, and the edge is gone (the contrast across it becomes the arm's own,
  near nothing), whatever the sleeve's colour; where it lies over the table only, the table changes
  to the arm's colour, not by the band's darkening.

So a run of odd band patches, widened by the band patches beside it that are darkened too (a
shadow's colour moves less where it is shallower, round a corner if it reaches one), is a shadow
when it only takes light away from the band's light just beside it (a lamp's pool or the room's
light may change along a side: its median need not be the light the shadow took away), none of
its odd patches is unlike a shadow beyond the band (at most of the distances where an edge is
seen; the two ends of a shadow of four patches or more are its fringe, or beyond one of them near
a corner lies the corner's marker), and either at least `MIN_KEPT` of its patches keep the edge
(the shadow crosses the board's edge: it is cast from beside the board, out of reach of any arm;
where the edge's contrast is not itself a darkening in the shadow's colour, a table darkened by at
least `HALF` the band's darkening in its colour keeps it too: the shadow's edge may cross the table
patch looked at, but an arm over the table changes it by its change over the band plus the edge's
contrast, whatever its colour, never by a part of that change alone) or the edge and the table
beyond every odd patch are in the lamp's full light straight out and at
every slant (a shadow cast into the band from over the board, or round a corner from the side it
crosses: nothing crosses the edge there, and an arm reaches over the band from beside the board,
so over the edge). The edge's contrast in full light and how much it varies are measured on the same frame, on the band
patches the shadow leaves alone (the tolerance is `NOISE_K` robust standard deviations of their
variation from one patch to the next, pooled over the four sides, at least `NOISE_FLOOR`; the
band's own noise the same way); distances beyond the band where no contrast stands clearly above
that (`EDGE_K` tolerances: no edge there, the board goes on, or the picture ends) say nothing, and
a run of which nothing is said stays an arm.

Left as an arm (the safe side): a shadow too narrow, or cast too much at a slant, to cross the
board's edge beside its own patches of the band while darkening the table beyond them.
"""

from __future__ import annotations

import numpy as np

from controller.vision.features import masked_median
from controller.vision.geometry import project

#: Distances (pitches) beyond the band, outwards, where the board's edge and the table are looked at.
BEYOND = np.array([0.5, 0.9, 1.3, 1.7, 2.1, 2.5])
#: Radius (pitches) of each patch looked at beyond the band.
RADIUS = 0.2
#: The tolerance on a contrast: this many robust standard deviations of the side's other patches ...
NOISE_K = 4.0
#: ... and at least this much (log; a patch median's noise on the renders and photos).
NOISE_FLOOR = 0.1
#: A contrast says something when it exceeds this many tolerances (an edge well above the noise).
EDGE_K = 2.0
#: Patches of the band's shadow that keep the edge's whole contrast: the shadow crosses the board's
#: edge, it is cast from beside the board.
MIN_KEPT = 2
#: A band patch is in the shadow where it is darkened by at least this part of the run's depth (a
#: hard shadow's fringe is narrow: a patch is in it or beside it).
HALF = 0.5
#: Slants (along the side per pitch out) at which the table in the shadow is looked for beyond a
#: patch of the band's shadow: a lamp to one side casts it as much as 45 degrees off straight out.
#: A quarter apart: 2.5 pitches out (`BEYOND`'s farthest) neighbouring slants look 0.6 pitch apart,
#: less than the narrowest shadow's width (0.8 pitch), which no longer falls between two of them.
SLANTS = (0.0, -0.25, 0.25, -0.5, 0.5, -0.75, 0.75, -1.0, 1.0)
#: Band patches are this far apart along a side (pitches; `hands.ring_points`).
STEP = 0.5
#: Fewest clean band patches on a side to measure its edge's contrast and spread.
MIN_CLEAN = 4


def _disc(radius: float, step: float) -> np.ndarray:
    n = int(np.floor(radius / step))
    dy, dx = np.mgrid[-n : n + 1, -n : n + 1] * step
    keep = np.hypot(dx, dy) <= radius + 1e-9
    return np.stack([dx[keep], dy[keep]], axis=1)


class CastShadows:
    """What lies beyond the band patches (`points`, board coordinates, with their outward `normals`
    and the `sides` they lie on), and whether a run of odd patches is a lamp's cast shadow."""

    def __init__(self, points: np.ndarray, normals: np.ndarray, sides: np.ndarray) -> None:
        self.sides = np.asarray(sides)
        #: The depths of the runs found shadows since the frame's hand check began (`HandCheck.arm_seen`).
        self.depths: list[np.ndarray] = []
        beyond = points[:, None, :] + BEYOND[None, :, None] * normals[:, None, :]  # (N, D, 2)
        self.spots = beyond[:, :, None, :] + _disc(RADIUS, 0.04)[None, None]  # (N, D, K, 2)

    def beyond(self, frame: np.ndarray, h: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(N, D, 3) log colour beyond each band patch, and (N, D) whether it was seen (inside the
        picture and not clipped)."""
        n, d, k, _ = self.spots.shape
        px = np.rint(project(h, self.spots.reshape(-1, 2))).astype(int)
        ht, wd = frame.shape[:2]
        inside = ((px[:, 0] >= 0) & (px[:, 0] < wd) & (px[:, 1] >= 0) & (px[:, 1] < ht)).reshape(n * d, k)
        vals = frame[np.clip(px[:, 1], 0, ht - 1), np.clip(px[:, 0], 0, wd - 1)].reshape(n * d, k, 3)
        med, used = masked_median(vals)
        seen = inside.all(axis=1) & (used > 0.5)
        return np.log(np.maximum(med, 1.0)).reshape(n, d, 3), seen.reshape(n, d)

    def explains(self, run: list[int], odd: np.ndarray, band: np.ndarray, beyond: np.ndarray, seen: np.ndarray) -> bool:
        """`_explains`, keeping in `depths` the depth (log, per channel) of each run it finds a shadow."""
        found, depth = self._explains(run, odd, band, beyond, seen)
        if found and depth is not None:
            self.depths.append(depth)
        return found

    def _explains(
        self, run: list[int], odd: np.ndarray, band: np.ndarray, beyond: np.ndarray, seen: np.ndarray
    ) -> tuple[bool, np.ndarray | None]:
        """Whether the run of odd band patches is a cast shadow (see the module's docstring).

        `band` (N, 3) the band patches' log colours; `beyond`, `seen` as `beyond` gives them."""
        n = len(band)
        if (~odd).sum() < MIN_CLEAN:
            return False, None
        typical = np.tile(np.median(band[~odd], axis=0), (n, 1))  # each patch's side's typical band
        own = np.zeros(n, bool)  # colour (the whole band's on a side with few patches left)
        for side in range(4):
            clean = (self.sides == side) & ~odd
            if clean.sum() >= MIN_CLEAN:
                typical[self.sides == side] = np.median(band[clean], axis=0)
                own[self.sides == side] = True
        band_tol = np.maximum(NOISE_K * self._spread(band, ~odd, along=True), NOISE_FLOOR)
        if own[run].all() and (np.abs(band[run] - typical[run]) <= band_tol).all():
            return True, None  # the band's own colour on its side, odd only against the paper's white
        # Under the shadow the band would have the light beside it where that is brighter than its
        # side's median: a lamp's pool or the room's light may change along a side, so the median
        # need not be the light the shadow took away (and where the light beside is darker, the
        # shadow may reach beyond the run's odd patches: the median stays).
        near, light = _beside(run, band, odd)
        if light.mean() > typical[run].mean():
            typical[near] = light
        change = band - typical
        clear = ~odd & (np.abs(change) <= band_tol).all(axis=1)
        # The whole shadow: the run and the band patches beside it that it darkens too (its colour
        # moved less there), round a corner if it reaches one; and its depth, the lamp's share.
        depth = -np.median(change[run], axis=0)
        if (depth <= 0).any():  # a shadow only takes light away
            return False, None
        # How deep in the shadow each band patch is (its darkening, a part of the run's, in its colour).
        within = -(change @ depth) / (depth @ depth)
        shadow = _widened(run, ~clear & (within >= HALF), n)
        if (change[shadow] > band_tol).any():
            return False, None
        # Per patch of the shadow and distance beyond the band where an edge is seen: whether the
        # patch is unlike a shadow there, and whether it keeps the edge's whole contrast with the
        # table straight out or at each slant of `SLANTS` (a lamp to one side).
        seen_edge = np.zeros(len(shadow), int)
        unlike = np.zeros(len(shadow), int)
        kept = np.zeros((len(SLANTS), len(shadow)), int)
        looked = np.zeros(len(shadow), int)  # places beyond looked at, at every slant ...
        in_light = np.zeros(len(shadow), int)  # ... and those where the edge and table are in full light
        for j in range(len(BEYOND)):
            tol = np.maximum(NOISE_K * self._spread(beyond[:, j] - band, clear & seen[:, j], along=True), NOISE_FLOOR)
            for side in np.unique(self.sides[shadow]):
                ok = np.flatnonzero(clear & seen[:, j] & (self.sides == side))
                if len(ok) < MIN_CLEAN:  # few left on this side: the whole band's
                    ok = np.flatnonzero(clear & seen[:, j])
                    if len(ok) < MIN_CLEAN:
                        continue
                ref = np.median(beyond[ok, j] - band[ok], axis=0)  # the edge's contrast in full light
                if not (np.abs(ref) > EDGE_K * tol).any():  # no edge here to keep
                    continue
                # An arm over the table beyond changes it by its change over the band plus the edge's
                # contrast, whatever its colour: where that contrast is not itself a darkening in the
                # shadow's colour, a table darkened in the shadow's colour is no arm's.
                told = bool((np.abs(ref - (ref @ depth) / (depth @ depth) * depth) > EDGE_K * tol).any())
                mine = np.flatnonzero((self.sides[shadow] == side) & seen[shadow, j])
                for m in mine:
                    i = shadow[m]
                    contrast = beyond[i, j] - band[i]
                    # What lies beyond, against what it is in full light: a shadow darkens it by a
                    # part of the depth (none, all, or more on a glossy table), the same part in
                    # every channel; an arm over the band and the edge leaves no edge.
                    table = beyond[i, j] - typical[i] - ref
                    part = float(-(table @ depth) / (depth @ depth))
                    seen_edge[m] += 1
                    shadowlike = (np.abs(table + part * depth) <= tol).all() or _colour_kept(contrast - ref, ref, tol)
                    unlike[m] += (not shadowlike) or (np.abs(contrast) <= tol).all()
                # The table that far along the side, out there, at each slant (all patches and slants at once).
                t = shadow[mine][:, None] + np.rint(np.array(SLANTS) * BEYOND[j] / STEP).astype(int)[None, :]
                tc = np.clip(t, 0, n - 1)
                there = (t == tc) & (self.sides[tc] == side) & seen[tc, j]  # (M, S)
                off = beyond[tc, j] - band[shadow[mine]][:, None, :] - ref
                change = beyond[tc, j] - typical[tc] - ref  # the table's change from its full light
                keep = (np.abs(off) <= tol).all(axis=2) | _colour_kept(off, ref, tol)
                if told:
                    keep |= _darkened(change, depth, tol)
                kept[:, mine] += (there & keep).T
                looked[mine] += there.sum(axis=1)
                in_light[mine] += (there & (np.abs(change) <= tol).all(axis=2)).sum(axis=1)
        if not seen_edge[odd[shadow]].any():
            return False, None  # nothing is known of what lies beyond the run
        # An odd patch unlike a shadow at most of its edges is an arm's, unless it is one of the two
        # ends of a shadow of four patches or more: its fringe, across which its edge may lie
        # (beyond it, the table half in the lamp's light), or beyond which the corner's marker lies.
        judged = odd[shadow].copy()
        if len(shadow) >= 4:
            judged[[0, -1]] = False
        if (2 * unlike > seen_edge)[judged].any():
            return False, None
        keeps = ((seen_edge > 0) & (2 * kept >= seen_edge) & (within[shadow] >= HALF)).sum(axis=1)
        if int(keeps.max()) >= MIN_KEPT:
            return True, depth
        # Or nothing crosses the board's edge beyond the run: an arm over the band reaches over the
        # edge from beside the board, while this shadow (cast into the band from over the board,
        # or round a corner) leaves the edge and the table beyond every odd patch in full light,
        # straight out and at every slant.
        mine = odd[shadow]
        return bool((looked[mine] > 0).all() and (in_light[mine] == looked[mine]).all()), depth

    def _spread(self, values: np.ndarray, use: np.ndarray, along: bool = False) -> np.ndarray:
        """Robust standard deviation per channel of (N, 3) values about their own side's median
        (`along`: about what their neighbours along the side predict, so that a smooth change, a
        lamp's gradient, is no spread), pooled over the sides (a small board has few patches on a
        side); `use`: which count."""
        resid = []
        for s in range(4):
            k = np.flatnonzero(use & (self.sides == s))
            if along and len(k) >= 3:
                x = values[k]
                resid.append((x[1:-1] - (x[:-2] + x[2:]) / 2) / np.sqrt(1.5))
            elif not along and len(k) >= 3:
                resid.append(values[k] - np.median(values[k], axis=0))
        if not resid:
            return np.full(3, np.inf)
        return _spread(np.concatenate(resid))


#: Band patches looked at beyond each end of a run for the light beside it.
BESIDE = 3


def _beside(run: list[int], band: np.ndarray, odd: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The band patches from the light beside the run's one end to the other's, and that light
    (log, per channel): beyond each end, the brightest of the `BESIDE` patches that are not odd (a
    shadow only takes light away, and its fringe is darkened too); the mean of the two ends'."""
    n = len(band)
    bounds, lights = [run[0], run[-1]], []
    for end, (start, way) in enumerate(((run[0], -1), (run[-1], +1))):
        look = [i for i in ((start + way * k) % n for k in range(1, BESIDE + 1)) if not odd[i] and i not in run]
        if look:
            bounds[end] = max(look, key=lambda i: float(band[i].mean()))
            lights.append(band[bounds[end]])
    light = np.mean(lights, axis=0) if lights else np.median(band[run], axis=0)
    return (bounds[0] + np.arange((bounds[1] - bounds[0]) % n + 1)) % n, light


def _widened(run: list[int], also: np.ndarray, n: int, most: int | None = None) -> np.ndarray:
    """The run's patches with those of `also` next to it (at most `most` each way), on either
    side, around the ring of `n`."""
    out = list(run)
    most = n if most is None else most
    i, k = (run[0] - 1) % n, 0
    while also[i] and i not in out and k < most:
        out.insert(0, i)
        i, k = (i - 1) % n, k + 1
    i, k = (run[-1] + 1) % n, 0
    while also[i] and i not in out and k < most:
        out.append(i)
        i, k = (i + 1) % n, k + 1
    return np.array(out)


def _colour_kept(off: np.ndarray, ref: np.ndarray, tol: np.ndarray) -> np.ndarray:
    """Whether an edge's contrast, `off` (log, per channel, on the last axis) from its contrast `ref` in
    full light, is kept up to a darkening of the table by one factor in every channel: near the box
    that casts the shadow, the box also hides part of the room's light from the table (a grey
    factor, whatever the room light's colour), so the table is darker than the band's shadow but the
    edge keeps its colour contrast. Only where that contrast is clear (an edge that differs in
    colour, not only in brightness): an arm over the band and the edge leaves its own contrast, not
    the edge's."""
    clear = bool(np.ptp(ref) > EDGE_K * tol.max())
    return clear & (np.ptp(off, axis=-1) <= 2 * tol.max()) & (off <= tol).all(axis=-1)


def _darkened(change: np.ndarray, depth: np.ndarray, tol: np.ndarray) -> np.ndarray:
    """Whether the table's `change` from its full light (log, per channel, on the last axis) is a
    darkening by at least `HALF` of the band's shadow `depth` (up to `tol`), in the shadow's colour:
    the shadow reaches over the table there, maybe over part of the patch looked at (its edge at a
    slant)."""
    part = -(change @ depth) / (depth @ depth)
    return (part >= HALF) & (np.abs(change + part[..., None] * depth) <= tol).all(axis=-1)


def _spread(x: np.ndarray) -> np.ndarray:
    """Robust standard deviation per channel of (M, 3) values."""
    return 1.4826 * np.median(np.abs(x - np.median(x, axis=0)), axis=0)
