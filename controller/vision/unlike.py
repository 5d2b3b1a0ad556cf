"""Whether a frame's light is unlike the calibration's: the unsure places say so, not something on the board.

A lamp the paper white cannot undo (one of a narrow spectrum, which no gain per channel mimics)
moves every place of a look alike: the same pigment under the same light. The places of such a
look are then all far from it (beyond the open-set distance of every learned look) or all read
somewhere it was not learned. A lamp's reflection, or the room mirrored by glossy tiles, is
local: a few places of a look are far while the frame's other places of that look sit by their
learned look, where a sample of the calibration would (within the median of the chi distribution
the open-set distance comes from). Those few places are left unsure, and say nothing of the
light. So only far places of a look the frame does not show by its learned self count: when they
are most of the unsure places and of at least two meanings (a hand, a cup or a stray piece is one
thing of one colour), every colour is read in a light unlike the calibration's.

A shadow is local too, but it is not left to say nothing: where brightness is all that tells two
looks apart, a piece under it can take another meaning's look, surely (`undone_shadow`).
"""

from __future__ import annotations

import numpy as np

from controller.vision.classify import ClassModel, Decision, open_set_distance
from controller.vision.features import colour_features, colours_of

#: How many of its look's brightness spreads darker a place read surely is taken as shadowed: the
#: one-dimensional 95% quantile.
DIM = open_set_distance(1, 0.95)
#: How far from its look a place read surely is taken as moved by a shadow, when darker too: the three-dimensional
#: 95% quantile.
FAR_READ = open_set_distance(3, 0.95)


def seen_as_learned(model: ClassModel, dec: Decision, sure: np.ndarray) -> np.ndarray:
    """(K,) the looks this frame shows by their learned selves: the median distance of the places
    read surely as each is within the chi distribution's median (as a calibration sample's)."""
    typical = open_set_distance(model.means.shape[1], 0.5)
    seen = np.zeros(len(model.refs), bool)
    for k in np.unique(dec.best[sure]):
        seen[k] = float(np.median(dec.distance[sure & (dec.best == k)])) <= typical
    return seen


def unlike_calibration(model: ClassModel, dec: Decision, sure: np.ndarray) -> bool:
    """Whether the unsure places say that the light is far from the one the copy was calibrated
    under: most of them are far from every learned look, of looks the frame does not show by their
    learned selves elsewhere, and of at least two meanings."""
    unsure = np.flatnonzero(~sure)
    far = unsure[dec.distance[unsure] > model.max_distance]
    moved = far[~seen_as_learned(model, dec, sure)[dec.best[far]]]
    return 2 * len(moved) > len(unsure) and len({dec.letters[i] for i in moved}) >= 2


def undone_shadow(
    model: ClassModel,
    dec: Decision,
    sure: np.ndarray,
    feats: np.ndarray,
    rows: int,
    cols: int,
    reach: int,
    sheened: np.ndarray | None = None,
    read_at: np.ndarray | None = None,
    seen: list[np.ndarray] | None = None,
) -> np.ndarray:
    """(N,) the sure places near a shadow that the shadow's light, given back, reads as another meaning.

    A place beyond every learned look and darker than its nearest one is under a shadow (or a light unlike the
    calibration's): if its look is right, the shadow kept that share of each channel (the lamp's light taken
    away, the room's other light left, so a colour as well as a depth). Brightness can be all that tells two
    looks apart (a white or grey piece from a dark empty place), so a sure place within `reach` of such a place
    is read again with each channel divided by that share, and is left unsure when that reads it as a look of
    another meaning not clearly farther than it was read (the classifier's margin rule: in that shadow, the
    other meaning explains it about as well). A place sitting by its own look, with or without the shadow, keeps
    its reading; far from any shadow, nothing changes. A place read surely can show the shadow too, darker than
    its look by more than `DIM` of its spreads (a shadow within the looks' tolerance), or darker and farther
    than `FAR_READ` from it. A place read only by allowing a sheen (`sheened`: a free amount of added light fits
    it closely) is unsure where the other meaning is within the open-set distance with the light given back: a
    sheen's amount, fitted to the place, is no better evidence than a shadow's depth measured beside it. For
    such a place the depth is free too (`_at_any_depth`), in the colour any unsure place darker than its nearest
    look shows within `reach` (the middle of a hard shadow is deeper than its fringe, where the looks may still
    take it in). `read_at`: the distance each place was read at by its looks alone, where a light fitted over it
    (the tint stage's) kept its meaning but brought it nearer (default `dec.distance`). `seen`: each look's
    features (N, 3) where a body of its class appears (`tops.PlaceLooks`): another meaning is read with the light
    given back on its own patch as well as on `feats`, at the nearer (`_decide_given_back`; Flipop hand_check seed
    1633: a white ball in a hard shadow read as the floor, whose patch shows the floor beside the ball)."""
    unsure = np.flatnonzero(~sure)
    darker = unsure[feats[unsure, 0] < model.means[dec.best[unsure], 0]]
    shaded = darker[dec.distance[darker] > model.max_distance]
    # A place read surely can show a shadow too: darker than its look by more than the look's
    # brightness strays on its own but once in twenty places.
    spread = model.brightness_spread
    read = np.flatnonzero(sure)
    dim = read[model.means[dec.best[read], 0] - feats[read, 0] > DIM * spread[dec.best[read]]]
    # Or darker than its look and beyond where a learned sample lies but once in twenty (a coloured shadow moves the
    # colour as well as the brightness: Flipop hand_check seeds 1405, 1474, 1513, the floor beside a white ball).
    off = read[(model.means[dec.best[read], 0] > feats[read, 0]) & (dec.distance[read] > FAR_READ)]
    dim = np.union1d(dim, off)
    shaded = np.concatenate([shaded, dim])
    doubt = np.zeros(len(sure), bool)
    # Flipop hand_check seed 201: a white ball in the deep middle of a coloured shadow read as the floor plus a sheen.
    freely = darker if sheened is not None and (sheened & sure).any() else darker[:0]
    seeds = np.union1d(shaded, freely)
    if not len(seeds):
        return doubt
    kept = colours_of(feats[seeds]) / np.maximum(colours_of(model.means[dec.best[seeds]]), 1e-3)
    kept = np.clip(kept, 1e-3, 1.0)  # a shadow takes light away; it adds none
    grid = np.arange(rows * cols)
    row, col = grid // cols, grid % cols
    for place, share in zip(seeds, kept, strict=True):
        near = sure & (np.abs(row - row[place]) <= reach) & (np.abs(col - col[place]) <= reach)
        if place in shaded:
            doubt |= _given_back(model, dec, near, feats, share, sheened, read_at, seen)
        if sheened is not None and place in freely:
            doubt |= _at_any_depth(model, dec, near & sheened, feats, share, seen)
    return doubt


#: The depths a shadow is tried at, as powers of the share of light it was seen to keep.
DEPTHS = np.linspace(0.25, 4.0, 16)


def _at_any_depth(
    model: ClassModel,
    dec: Decision,
    places: np.ndarray,
    feats: np.ndarray,
    share: np.ndarray,
    seen: list[np.ndarray] | None = None,
) -> np.ndarray:
    """(N,) which of `places` a look of another meaning explains (within the open-set distance) under a shadow of
    the colour `share` shows at some depth of `DEPTHS` (the share raised to it: light taken away multiplies)."""
    doubt = np.zeros(len(places), bool)
    near = np.flatnonzero(places)
    if not len(near) or np.all(share >= 1.0):
        return doubt
    again = _decide_given_back(model, feats, seen, near, share ** DEPTHS[:, None, None])  # (depths, places)
    other = ~model.same[again.best, np.tile(dec.best[near], len(DEPTHS))] & (again.distance <= model.max_distance)
    doubt[near] = other.reshape(len(DEPTHS), -1).any(axis=0)
    return doubt


def undone_band_shadow(
    model: ClassModel,
    dec: Decision,
    sure: np.ndarray,
    feats: np.ndarray,
    kept: np.ndarray,
    seen: list[np.ndarray] | None = None,
) -> np.ndarray:
    """(N,) the sure places that a shadow measured on the frame band, its light given back, reads
    as another meaning at least as well (`undone_shadow`'s rule). `kept` (3,) is the share of each
    channel the shadow left on the band (`shadows.CastShadows.depths`): a shadow that crosses the
    board's edge reaches the places, and its faint part may leave them all within the learned
    looks (no place beyond them to measure it on), while a piece half under it reads as another."""
    return _given_back(model, dec, sure, feats, np.clip(np.asarray(kept, np.float64), 1e-3, 1.0))


def _given_back(
    model: ClassModel,
    dec: Decision,
    places: np.ndarray,
    feats: np.ndarray,
    share: np.ndarray,
    sheened: np.ndarray | None = None,
    read_at: np.ndarray | None = None,
    seen: list[np.ndarray] | None = None,
) -> np.ndarray:
    """(N,) which of `places` (N,) read with each channel divided by `share` (the light a shadow
    kept) are a look of another meaning within the open-set distance and not clearly farther than
    they were read (the classifier's margin rule: Flipop hand_check seed 260, a white ball in a deep
    shadow read as the floor at 1.45, white given back 1.57); for the places `sheened` (read only by
    allowing a sheen), anywhere within the open-set distance. `seen`: as `undone_shadow`'s."""
    doubt = np.zeros(len(places), bool)
    near = np.flatnonzero(places)
    if len(near):
        again = _decide_given_back(model, feats, seen, near, share)
        read = (dec.distance if read_at is None else read_at)[near]
        margin = (again.distance - read) / np.maximum(again.distance, 1e-9)
        clear = model.margin_clear(margin, dec.best[near], again.best)
        if sheened is not None:
            clear &= ~sheened[near]
        within = again.distance <= np.maximum(model.max_distance, read)
        doubt[near] = ~model.same[again.best, dec.best[near]] & within & ~clear
    return doubt


def _decide_given_back(
    model: ClassModel, feats: np.ndarray, seen: list[np.ndarray] | None, near: np.ndarray, divide: np.ndarray
) -> Decision:
    """The looks' decision on the places `near` with each channel divided by `divide` ((3,), or (D, 1, 3) for D
    tries, decided in that order), each look measured on the place's read patch (`feats`) and, given `seen`, on its
    own class's features too, at the nearer of the two: a piece's body shows on its own patch, and in part on the
    floor's (the floor's patch of a ball's place holds the ball's lower side)."""
    on_read = model.distances(colour_features((colours_of(feats[near]) / divide).reshape(-1, 3)))
    if seen is None:
        return model.decide_distances(on_read)
    by_patch: dict[int, np.ndarray] = {}  # classes of one height share one patch: measured once
    columns = []
    for k, f in enumerate(seen):
        if id(f) not in by_patch:
            by_patch[id(f)] = model.distances(colour_features((colours_of(f[near]) / divide).reshape(-1, 3)))
        columns.append(np.minimum(by_patch[id(f)][:, k], on_read[:, k]))
    return model.decide_distances(np.stack(columns, axis=1))
