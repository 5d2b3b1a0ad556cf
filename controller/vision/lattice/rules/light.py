"""Rule *light*: no place is sure that a clipped channel leaves open to another label ("light").

A saturated lamp drives its strong channel to full scale on the bright pieces and on the board the
light is measured on alike; what was seen there is a bound, not a colour (`controller.vision.bounds`).
A place read surely (by the looks or by any rule before this one) stays sure only where no learned
look of another label is brought within the open-set distance, from beyond it as seen, by a colour
its bounds allow; a shadow the light fit missed is allowed as the looks allow it
(`LatticeModel._shaded`). A place that a rule read where the looks could not stays sure only where
its bounds allow no look of another label within that distance and nearer than its own label's
looks: the rules read the same
clipped pixels (clipping flattens a stone's disc and gives it the board's colour in that channel),
so the picture never makes sure what the clipping leaves open. A look of another label is not open
to a place whose own label, at its best within the same bounds, explains it better by more than the
open-set distance of one dimension: a likelihood-ratio test at the open set's level, the channels
the lamp left unclipped telling the two labels apart (under a warm lamp the wooden board clips in
red, and a bare point still differs from a white stone in blue and in the stone's shaded rim).

Nor is any place sure whose light is dark in a channel (`in_the_dark`: a lamp of a narrow band), said
"dark".

Nor is an empty place sure where it is clipped in a channel in which the board around it (the
between points the light is measured on) is not, when its empty look is no brighter than that
board in that channel (by no more than FLOOR, what the light fit itself misses): a bare place is
the board, in the board's light, and cannot be brighter than all of it. Something brighter stands
there, whose colour in that channel the clipping hid (a white stone under a blue lamp, clipped in
blue, reads as the yellow board's blue-less grey).
"""

from __future__ import annotations

import numpy as np

from controller.vision import bounds
from controller.vision.classify import open_set_distance
from controller.vision.lattice.light import FLOOR, dark
from controller.vision.lattice.places import EMPTY, N_FEATURES
from controller.vision.lattice.reading import Picture, Reading

NAME = "light"
RAY_STEPS = 9  # colours sampled along each clipped channel's range (`reads_otherwise`)


def rule(picture: Picture, reading: Reading) -> Reading:
    """The sure places a clipped channel leaves open to a look of another label, or whose light is dark in a
    channel, unsure."""
    if picture.bounds is None:  # nothing clipped or dark (`places.clipped_bounds`)
        return reading
    why = reading.why_array()
    todo = np.flatnonzero((why == "") & (picture.bounds != bounds.NONE).any(axis=1))
    if not len(todo):
        return reading
    classes = picture.model.classes
    reach, seen = open_to(picture, todo)  # (n, looks)
    other = np.array(reading.letters, object)[todo][:, None] != np.array([r.letter for r in classes.refs])[None]
    limit = classes.max_distance**2
    # Looks of another label brought within the open-set distance by the clipping alone; and, for
    # a place a rule read (not the looks), any look of another label the bounds allow: the rules
    # measure the same clipped pixels (a clipped disc is flat, its colour the board's there).
    by_rule = (np.array(reading.source, object)[todo] != "looks")[:, None]
    own = np.where(other, np.inf, reach).min(axis=1, keepdims=True)
    # What the clipping leaves known must not already tell the place's own label from the other.
    open_ = other & (reach - own <= open_set_distance(1) ** 2)
    near = np.where(open_ & ((seen > limit) | (by_rule & (reach < own))), reach, np.inf).min(axis=1)
    why[todo[near <= limit]] = "light"
    why[in_the_dark(picture) & (why == "")] = "dark"
    why[brighter_than_board(picture, reading) & (why == "")] = "light"
    why[reads_otherwise(picture, reading, why == "")] = "light"
    why[flat_piece(picture, reading) & (why == "")] = "light"
    return reading.but(NAME, why=why)


def in_the_dark(picture: Picture) -> np.ndarray:
    """(N,) the places whose light is dark in a channel (`light.dark`). A lamp that sends the camera
    nothing in one channel is one of a narrow band (an amber LED, a sodium lamp), and the channels that do
    see it see that one band: every surface shows only how much of it it sends back, the same share in each
    of them, whatever colour it has under white light (a white stone under an amber lamp is as orange as
    the wooden board, and no darker or lighter than the two spectra make it). No learned colour describes
    it, and no rule that reads colours can settle it."""
    if picture.rectified is None:
        return np.zeros(picture.n, bool)
    return np.any(dark(picture.rectified.light), axis=1)


def reads_otherwise(picture: Picture, reading: Reading, sure: np.ndarray) -> np.ndarray:
    """(N,) the `sure` places clipped in a channel in which the board around them is not
    (`bounds.UP`) that some colour the clipping allows reads as another label: each such channel
    anywhere from what was seen up to the brightest learned look's (sampled in RAY_STEPS steps),
    the colour one some look could give (within its open-set distance) and nearer a look of another
    label than any of its own, with the looks as they follow this picture. The open-set test
    above asks only whether the clipping brings another label's look within reach; a look of
    another label already within reach may still be the nearer one once the clipped channel
    rises (a white piece on a light square clipped in red reads as the bare square only because
    its red was cut)."""
    assert picture.bounds is not None
    out = np.zeros(picture.n, bool)
    up = picture.bounds == bounds.UP
    classes = picture.model.classes
    labels = np.array([r.letter for r in classes.refs], object)
    top = np.maximum(classes.means[:, 0:3], classes.means[:, 3:6]).max(axis=0)
    feats = picture.shifted
    for i in np.flatnonzero(sure & up.any(axis=1)):
        own = labels == reading.letters[i]
        if own.all() or not own.any():
            continue
        seen_level = np.maximum(feats[0, i, 0:3], feats[0, i, 3:6])
        rise = np.where(up[i], np.maximum(top - seen_level, 0.0), 0.0)
        steps = [np.linspace(0.0, r, RAY_STEPS) if r > 0 else np.zeros(1) for r in rise]
        t = np.stack(np.meshgrid(*steps, indexing="ij"), axis=-1).reshape(-1, 3)
        # a unit rise of one channel moves its disc and core medians and a third of both
        # lightness percentiles (the mean over the channels)
        delta = np.concatenate([t, t, np.repeat(t.mean(axis=1, keepdims=True), 2, axis=1)], axis=1)
        dist, _ = picture.model.distances_to(feats[:, i][:, None, :] + delta[None], picture.means)
        known = dist.min(axis=1) <= classes.max_distance
        out[i] = bool((known & (dist[:, ~own].min(axis=1) < dist[:, own].min(axis=1))).any())
    return out


def flat_piece(picture: Picture, reading: Reading) -> np.ndarray:
    """(N,) the places read empty that are clipped in a channel (`bounds.UP` or `bounds.FREE`:
    what the place sent back there is hidden) whose flatness reads a piece by the flatness looks'
    margin. The flatness compares the place with the corners of its own cell, so the light
    cancels; where the clipping may have hidden a piece's colour (a white stone under a blue lamp,
    clipped in blue like the yellow board around it), a flatness that leans clearly to a piece,
    even short of the margin its learning asked of that pair, sees something standing there."""
    assert picture.bounds is not None
    out = np.zeros(picture.n, bool)
    if not picture.with_flatness:
        return out
    hidden = ((picture.bounds == bounds.UP) | (picture.bounds == bounds.FREE)).any(axis=1)
    dec = picture.flat_decision
    piece = (np.array(dec.letters, object) != EMPTY) & (dec.margin >= picture.model.flat_looks.min_margin)
    return hidden & piece & (np.array(reading.letters, object) == EMPTY)


def brighter_than_board(picture: Picture, reading: Reading) -> np.ndarray:
    """(N,) the places read empty and clipped in a channel in which no between point around them
    is (`bounds.UP`), whose empty look (the best of the label's where a rule read it) is no
    brighter than the board the light is measured on in that channel (its mean at most FLOOR, what
    the smooth light fit itself misses: empty points learned 0.15% brighter than the board in red
    are the board)."""
    assert picture.bounds is not None
    classes = picture.model.classes
    level = np.maximum(classes.means[:, 0:3], classes.means[:, 3:6])  # (looks, 3) relative to the board
    empty = np.array([r.letter == EMPTY for r in classes.refs])
    up = picture.bounds == bounds.UP
    out = np.zeros(len(up), bool)
    for i in np.flatnonzero(up.any(axis=1) & (np.array(reading.letters, object) == EMPTY)):
        k = reading.look[i]
        board = level[k] if k >= 0 and empty[k] else level[empty].max(axis=0)
        out[i] = bool((up[i] & (board <= FLOOR)).any())
    return out


def open_to(picture: Picture, places: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(n, looks) the least squared distance from every look to the colours `places` may have at
    the sample position that fits it best, and the same without the bounds: the features moved
    along their clipped channels as the bounds allow (a clipped place up to the brightest learned
    look in that channel), and by a shadow with the looks' prior on it
    (one more coordinate of spread FLOOR)."""
    classes = picture.model.classes
    assert picture.bounds is not None  # `rule` asks only where something is clipped
    place_bounds = picture.bounds[places]
    f = N_FEATURES
    # A unit rise of one channel moves its disc and core medians and a third of both lightness
    # percentiles (the mean over the channels).
    channel = np.zeros((3, f + 1))
    for c in range(3):
        channel[c, c] = channel[c, 3 + c] = 1.0
        channel[c, 6:8] = 1 / 3
    # A clipped place is at most as bright in that channel as the brightest learned look (no
    # surface of the copy sends back more than the brightest one learned).
    top = np.maximum(classes.means[:, 0:3], classes.means[:, 3:6]).max(axis=0)  # (3,)
    # A shadow only darkens: every feature lower by t >= 0, at a prior cost (t / FLOOR)^2.
    shadow = np.zeros((len(places), 1, f + 1))
    shadow[:, 0, :f], shadow[:, 0, f] = -1.0, 1.0
    none, endless = np.zeros((len(places), 1)), np.full((len(places), 1), np.inf)
    means = np.concatenate([classes.means, np.zeros((len(classes.means), 1))], axis=1)
    invs = np.zeros((len(means), f + 1, f + 1))
    invs[:, :f, :f] = classes.inv
    invs[:, f, f] = 1 / FLOOR**2
    reach, seen = [], []
    for feats in picture.shifted:
        seen_level = np.maximum(feats[places, 0:3], feats[places, 3:6])
        dirs, lo, hi = bounds.directions(place_bounds, channel, top[None] - seen_level)
        dirs = np.concatenate([dirs, shadow], axis=1)
        lo = np.concatenate([lo, none], axis=1)
        hi = np.concatenate([hi, endless], axis=1)
        x = np.concatenate([feats[places], np.zeros((len(places), 1))], axis=1)
        reach.append(bounds.reachable(x, dirs, lo, hi, means, invs)[0])
        seen.append(bounds.reachable(x, shadow, none, endless, means, invs)[0])
    return np.min(reach, axis=0), np.min(seen, axis=0)
