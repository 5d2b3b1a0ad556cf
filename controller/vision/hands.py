"""The hand check: an arm reaching over the board, or only a lamp's reflection near its edge?

An arm reaching for a piece crosses the band of board frame around the lattice, so the reader
looks along that band (a ring of small patches, half a pitch apart) for a run of patches whose
colour is not the band's own. A reflection of a lamp can make such a run too, but it differs in
ways that follow from the physics of light:

- it *adds* the lamp's light to the band's colour instead of replacing it: under white light the
  change, relative to white paper, is about the same in every channel (a skin or sleeve colour
  over a coloured band changes the channels very differently, or darkens them);
- it has a core brighter than the white paper around the markers, or clipped: no diffuse surface
  under the same light is brighter than white paper, only a mirror-like reflection of the lamp
  (on the band, or between it and the outer places: a reflection just outside them lights the
  band with its halo only);
- it is small: a run longer than `MAX_SPOT` patches is never taken for a reflection.

A desk lamp's pool of light on the band (its diffuse light, not its reflection) is a run of any
length, brighter in every channel and warmer or cooler than the band's typical light, but it
changes *smoothly* along the band, into the run and out of it: a point lamp at height H over the
board lights a matte surface as H / (H^2 + x^2)^(3/2), whose log changes by at most 3 d / (2 H)
over a distance d. With patches half a pitch apart, `SMOOTH_STEP` allows a lamp as low as about
4 pitches (8-16 cm) over the board. An arm replaces the band's material: its edges are steps
(0.75 or more in some channel's log on the 3D renders' arms, 0.15 at most on their lamps' pools).
The smooth way in is looked at from the band's own light up to the run, not only from the patch
beside the run: an arm's edge may lie inside that patch, which then is not odd (a patch's colour
is taken from its darker part) while its median is the arm's, and the step would be missed. A soft
shadow (a box far from the band, its penumbra several patches wide) changes as smoothly, darker:
smooth light that takes light away is light too when each of its steps moves every channel the
same way (an object of a colour close to the band's still tips the channels' balance at its edge).

A lamp's hard shadow cast across the band from beside the board is told from an arm by what lies
beyond the band (`shadows.CastShadows`): a shadow multiplies the band and the board's edge alike,
an arm hides the edge. Where such a shadow falls across the lamp's pool, the pool ends in a sharp
step down in every channel (`beyond_pool`): the smooth part before it is still a pool, and only
what lies beyond the step is judged, as a run of its own. Where the pool's peak is all of it the run
holds (one patch beside the shadow, odd in colour), the shadow's judge is given the run without it
(`pool_ends`), while the run's length still counts it.

So a run of odd patches is a hand unless it is a lamp's pool or a cast shadow, or, once the reflection's patches
are left out (only when the run has a core), fewer than `min_arm` odd patches in a row remain: `MIN_ARM`, or as
many as a wrist must cover on a board whose pitch is coarse (`arm_patches`: Flipop's 40 mm pitch sets its band
patches 20 mm apart, and a 50 mm wrist covers only two of them whole). Motion is not used: a
hand held still over the board must still be caught (the motion gate waits for stillness).
"""

from __future__ import annotations

import numpy as np

from controller.language import _
from controller.vision.features import PatchSampler, Rectifier, colour_features, ring_offsets
from controller.vision.geometry import LatticeGeometry
from controller.vision.light import PaperLight, local_white, normalise
from controller.vision.shadows import CastShadows

HAND = _("a hand or an object is over the board")

#: Odd patches in a row that make an arm (the renderer's narrowest arm covers four, 0.5 pitch apart),
#: on boards whose band patches lie close enough for a wrist to cover that many (`arm_patches`).
MIN_ARM = 3
#: The narrowest width of an arm reaching over a board, its wrist (an adult's is 50-65 mm across, a
#: child's a little less): a run of odd patches need not be longer than a wrist covers.
WRIST_MM = 50.0
#: Longest run of patches (0.5 pitch apart) a reflection may cover: 2.5 pitches, a lamp's
#: reflection of 0.6 pitch radius with its halo; a forearm crossing the band covers more.
MAX_SPOT = 5
#: A patch is odd when its chromaticity moves this far from the band's, or its log brightness
#: rises this much, or most of it is clipped (the reader's long-standing rule).
CHROMA_ODD = 0.09
BRIGHTER_ODD = 0.45
CLIPPED_ODD = 0.7
#: Added light: a brightening of at least `ADDED_MIN` of paper white whose channels differ by at
#: most `ADDED_SPREAD` of it (the renderer's hands differ by at least their whole brightening).
ADDED_MIN = 0.1
ADDED_SPREAD = 0.35
#: A patch with this fraction of clipped pixels is lit by a reflection.
CLIPPED_GLARE = 0.15
#: Largest change of any channel's log light between neighbouring band patches (half a pitch apart),
#: entry and exit included, in a lamp's pool of light (see the module's docstring).
SMOOTH_STEP = 0.2
#: The band patches' noise (log): a pool only adds light (no patch of it darker than the band's
#: typical colour by more than this in any channel); a step that raises one channel and lowers
#: another by more than this is no change of light alone.
POOL_DIP = 0.05
#: Brighter than white paper by this factor in every channel: a specular core.
OVER_WHITE = 1.1
SATURATED = 250


def odd_patches(feats: np.ndarray, used: np.ndarray) -> np.ndarray:
    """Band patches whose colour differs from the band's typical colour (`feats`: log brightness
    and two chromaticities per patch; `used`: the unclipped fraction of each patch)."""
    ref = np.median(feats, axis=0)
    chroma = np.hypot(feats[:, 1] - ref[1], feats[:, 2] - ref[2])
    return (chroma > CHROMA_ODD) | (feats[:, 0] - ref[0] > BRIGHTER_ODD) | (used < 1 - CLIPPED_ODD)


def reflection_patches(vals: np.ndarray, white: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(patches lit by added white light or clipped, patches with a core brighter than paper).

    `vals` are the band patches' pixels (N, K, 3) in grey levels, `white` the paper white at each
    patch (N, 3) in grey levels."""
    vals = np.asarray(vals, np.float32)
    white = np.maximum(np.asarray(white, np.float32), 1.0)
    clipped = (vals.max(axis=2) >= SATURATED).mean(axis=1)
    colour = np.median(vals, axis=1) / white
    change = colour - np.median(colour, axis=0)
    added = change.mean(axis=1)
    spread = change.max(axis=1) - change.min(axis=1)
    lit = (clipped >= CLIPPED_GLARE) | ((added >= ADDED_MIN) & (spread <= ADDED_SPREAD * added))
    peak = (vals / white[:, None, :]).min(axis=2).max(axis=1)
    core = (vals.min(axis=2) >= SATURATED).any(axis=1) | (peak >= OVER_WHITE)
    return lit, core


def band_logs(vals: np.ndarray, white: np.ndarray) -> np.ndarray:
    """Each band patch's log colour (N, 3) relative to paper white, against the band's typical one:
    what `lamp_pool` and `beyond_pool` follow along the band.

    `vals` are the band patches' pixels (N, K, 3) in grey levels, `white` the paper white at each
    patch (N, 3) in grey levels."""
    colour = np.median(np.asarray(vals, np.float32), axis=1) / np.maximum(np.asarray(white, np.float32), 1.0)
    return np.log(np.maximum(colour, 1e-3) / np.maximum(np.median(colour, axis=0), 1e-3))


def _to_band(logs: np.ndarray, start: int, way: int) -> list[int] | None:
    """The band patches from `start` going `way` (-1 or +1) round the ring up to the first one in
    the band's own light (within `SMOOTH_STEP` of its typical colour in every channel), or None."""
    n = len(logs)
    path: list[int] = []
    for k in range(n):
        i = (start + way * k) % n
        path.append(i)
        if (np.abs(logs[i]) <= SMOOTH_STEP).all():
            return path
    return None


def lamp_pool(run: list[int], logs: np.ndarray) -> bool:
    """Whether the run of odd band patches is only light on the band's own material, changing
    smoothly along the band from the band's own light into the run and out of it back to the band's
    own light: a lamp's pool (brighter in every channel), a soft shadow (a penumbra wider than a
    patch: darker), or a pool dimmed by a soft shadow at its end. An arm is a solid object of its
    own colour: its edges are steps.

    Light that only adds is a pool. Where the run is darker than the band's light, each step along
    the way must also move every channel the same way (all up or all down, up to the patches'
    noise, `POOL_DIP`): a shadow takes a part of the lamp's light from every channel and its edge
    gives it back, while an object whose colour differs from the band's by less than a sharp step
    still changes the channels' balance at its edge (odd in colour, some channel rises while another
    falls).

    The patches beside the run are not enough: an arm's edge may lie inside one of them (covering
    more than half of it: the run's odd patches are measured on each patch's darker part, the steps
    on its median), so its step would fall outside the path looked at. From the band's own light
    to the run's, an arm's edge is a step somewhere. `logs` are the band's `band_logs`."""
    n = len(logs)
    before = _to_band(logs, (run[0] - 1) % n, -1)
    after = _to_band(logs, (run[-1] + 1) % n, +1)
    if before is None or after is None:
        return False
    path = [*before[::-1], *run, *after]
    steps = np.diff(logs[path], axis=0)
    if (np.abs(steps) > SMOOTH_STEP).any():
        return False
    if not (logs[run] < -POOL_DIP).any():
        return True  # only adds light: a pool
    mixed = (steps.max(axis=1) > POOL_DIP) & (steps.min(axis=1) < -POOL_DIP)
    return not mixed.any()


def beyond_pool(run: list[int], logs: np.ndarray) -> list[int] | None:
    """The part of the run beyond a lamp's pool of light cut short by a sharp step down in every
    channel (a hard shadow falling across the pool), or None when the run is no such pool.

    From one end of the run, the pool must be entered smoothly from the band's own light (as in
    `lamp_pool`: an arm's edge is a step somewhere on that way), only add light, and change
    smoothly for at least 2 patches up to the step, which may lie in the run or just beyond it.
    What lies beyond the step (maybe nothing odd) is judged as a run of its own; the pool's patches
    tell nothing of an arm. `logs` are the band's `band_logs`."""
    n = len(logs)
    for way, back in ((run, -1), (run[::-1], +1)):
        entry = _to_band(logs, (way[0] + back) % n, back)
        if entry is None:
            continue
        beyond = _to_band(logs, (way[-1] - back) % n, -back) or [(way[-1] - back) % n]
        path = [*entry[::-1], *way, *beyond]
        steps = np.diff(logs[path], axis=0)  # steps[k]: from path[k] to path[k + 1]
        sharp = np.flatnonzero((np.abs(steps) > SMOOTH_STEP).any(axis=1))
        first = len(entry)  # path[first] is way[0]
        if len(sharp) == 0 or sharp[0] < first + 1:
            continue  # smooth throughout (`lamp_pool` judges it), a step on the way in, or no pool before the step
        cut = int(sharp[0])
        pool = path[first : cut + 1]
        if (steps[cut] < 0).all() and not (logs[pool] < -POOL_DIP).any():
            return [i for i in run if i not in pool]
    return None


def pool_ends(run: list[int], logs: np.ndarray) -> list[int]:
    """The run without its end patches that belong to a lamp's pool beside it: patches that only add
    light (no channel below the band's typical light by more than `POOL_DIP`) and are reached from the
    band's own light outside the run by smooth steps (`SMOOTH_STEP`). Such a patch is the band's own
    material under more light (the pool's peak may lie just beside a hard shadow that cuts it); it is
    no part of a shadow, and tells nothing of an arm. Only the shadow's judge is given the run without
    them (`arm_seen`): whether the run is long enough for an arm is still decided on the whole run."""
    n = len(logs)
    out = list(run)
    for way in (-1, +1):
        while len(out) > 1:
            end = out[0] if way < 0 else out[-1]
            if (logs[end] < -POOL_DIP).any():
                break
            path = _to_band(logs, (end + way) % n, way)
            if path is None or any(i in out for i in path):
                break
            steps = np.diff(logs[[end, *path]], axis=0)
            if (np.abs(steps) > SMOOTH_STEP).any():
                break
            out.remove(end)
    return out


def _runs(flags: np.ndarray) -> list[list[int]]:
    """Maximal runs of set flags around the closed band, as index lists."""
    n = len(flags)
    if flags.all():
        return [list(range(n))]
    start = int(np.flatnonzero(~flags)[0])  # begin just after an unset flag: no run wraps
    runs: list[list[int]] = []
    current: list[int] = []
    for step in range(1, n + 1):
        i = (start + step) % n
        if flags[i]:
            current.append(i)
        elif current:
            runs.append(current)
            current = []
    if current:
        runs.append(current)
    return runs


def _longest(indices: list[int], run: list[int]) -> int:
    keep = set(indices)
    best = count = 0
    for i in run:
        count = count + 1 if i in keep else 0
        best = max(best, count)
    return best


def arm_patches(spacing_mm: float | None) -> int:
    """Odd patches in a row that make an arm when band patches lie `spacing_mm` apart: as many as
    a wrist surely covers (an interval of `WRIST_MM` holds at least that many patch centres), at
    most `MIN_ARM` and never fewer than two (one odd patch is a speck). Unknown spacing: `MIN_ARM`."""
    if spacing_mm is None or spacing_mm <= 0:
        return MIN_ARM
    return int(np.clip(WRIST_MM // spacing_mm, 2, MIN_ARM))


def arm_seen(
    feats: np.ndarray,
    used: np.ndarray,
    vals: np.ndarray,
    white: np.ndarray,
    shadow=None,
    min_arm: int = MIN_ARM,
    inner: np.ndarray | None = None,
) -> bool:
    """Whether an arm crosses the band (see the module's docstring). `shadow(run, odd)`, when
    given, says whether a run of odd patches is a lamp's cast shadow; `min_arm` is how many odd
    patches in a row an arm covers at least (`arm_patches`); `inner`, the pixels (N, K, 3) between
    each band patch and the lattice, where a reflection's core just outside the outer places lies
    while only its halo lights the band."""
    odd = odd_patches(feats, used)
    if not odd.any():
        return False
    lit, core = reflection_patches(vals, white)
    if inner is not None:
        core |= reflection_patches(inner, white)[1]
    logs = band_logs(vals, white)
    for run in _runs(odd):
        if len(run) < min_arm or lamp_pool(run, logs):
            continue
        rest = beyond_pool(run, logs)
        if rest is not None:  # a pool cut by a sharp step down: what lies beyond it is judged alone
            run = rest
            if len(run) < min_arm:
                continue
        if shadow is not None and shadow(pool_ends(run, logs), odd):
            continue
        if len(run) > MAX_SPOT:
            return True
        rest = [i for i in run if not lit[i]] if core[run].any() else run
        if _longest(rest, run) >= min_arm:
            return True
    return False


class HandCheck:
    """Stage *hand check* of the game reader: the ring of band patches around the lattice of one
    board, and whether an arm crosses it in a rectified frame."""

    def __init__(
        self, geom: LatticeGeometry, rect: Rectifier, ppp: float, light: PaperLight, pitch_mm: float | None = None
    ) -> None:
        self.points = ring_points(geom)
        self.min_arm = arm_patches(None if pitch_mm is None else RING_STEP * pitch_mm)
        self.shadows = CastShadows(self.points, *ring_sides(geom, self.points))
        self.ring = PatchSampler(rect.to_px(self.points), ring_offsets(0, 0.18 * ppp), rect.size[::-1])
        inner = self.points - INNER * ring_sides(geom, self.points)[0]
        self.inner = PatchSampler(rect.to_px(inner), ring_offsets(0, INNER_RADIUS * ppp), rect.size[::-1])
        self.weights = light.weights(self.points)

    def arm_seen(
        self, rect: np.ndarray, white: np.ndarray, frame: np.ndarray | None = None, h: np.ndarray | None = None
    ) -> bool:
        """An arm must cross the frame band around the lattice: a run of band patches whose
        colour differs from the band's own, unless it is only a lamp's reflection, its pool of
        light, or (given the picture `frame` and the board-to-image homography `h`) its shadow."""
        med, used = self.ring.medians(rect)
        feats = colour_features(normalise(med, white, self.weights))
        self.shadows.depths = []
        shadow = None
        if frame is not None and h is not None:
            band = np.log(np.maximum(med, 1.0))
            measured: list = []

            def shadow(run: list[int], odd: np.ndarray) -> bool:
                if not measured:  # what lies beyond the band: looked at only for a run that may be an arm
                    measured.extend(self.shadows.beyond(frame, h))
                return self.shadows.explains(run, odd, band, *measured)

        vals, inner = self.ring.values(rect), self.inner.values(rect)
        return arm_seen(feats, used, vals, local_white(white, self.weights), shadow, self.min_arm, inner)

    @property
    def shadow_kept(self) -> list[np.ndarray]:
        """The share of each channel's light (3,) every hard shadow found on the band in the last
        frame checked kept (the lamp's light taken away): what the board's places under it keep too."""
        return [np.exp(-depth) for depth in self.shadows.depths]


def ring_sides(g: LatticeGeometry, points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each band point's outward direction (N, 2) and side (N,: 0 top, 1 right, 2 bottom, 3 left)."""
    outward = np.array([(0.0, -1.0), (1.0, 0.0), (0.0, 1.0), (-1.0, 0.0)])
    x, y = points[:, 0], points[:, 1]
    sides = np.select([y < 0, x > g.cols - 1, y > g.rows - 1], [0, 1, 2], 3)
    return outward[sides], sides


#: The band patches' spacing, in pitches.
RING_STEP = 0.5
#: Where a reflection's core is looked for between the band and the lattice: this far inward from
#: each band patch, within this radius (pitches): the band lies 0.85 outside the outer places.
INNER = 0.4
INNER_RADIUS = 0.3


def ring_points(g: LatticeGeometry, step: float = RING_STEP, out: float = 0.85) -> np.ndarray:
    """Points on the frame band around the lattice, in order around the board."""
    xs = np.arange(-0.3, g.cols - 1 + 0.3 + 1e-9, step)
    ys = np.arange(-0.3, g.rows - 1 + 0.3 + 1e-9, step)
    top = [(x, -out) for x in xs]
    right = [(g.cols - 1 + out, y) for y in ys]
    bottom = [(x, g.rows - 1 + out) for x in xs[::-1]]
    left = [(-out, y) for y in ys[::-1]]
    return np.array(top + right + bottom + left, np.float64)
