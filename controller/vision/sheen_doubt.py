"""A sheen of one colour over a patch of places: the room mirrored by glossy tiles, read again.

A glossy piece mirrors what lies in the mirror direction: a lamp, a ceiling panel, or a coloured
wall of the room. By the dichromatic reflection model its colour is then its own (diffuse) colour
plus light of the *mirrored* thing's colour, which need not be the paper's white (the paper is lit
by the whole room; the tile mirrors one part of it, a pink wall say). The light adds in the scene,
before the camera's sRGB curve: in the picture's values (relative to the paper) a blue, a red and a
yellow tile under one reflection seem to gain light of three colours, each least in its own
brightest channel; undone by the curve (`linear`), they gain the same colour. Colour alone may
not tell the looks apart there: green plus pink light is the empty cell's pale green, blue plus
pink a violet plus white (`sheen.py` takes the added light to be white).

A reflection is also broad and smooth: one mirrored part of the room covers a patch of places,
of one colour and a strength that varies. So where the frame shows a sheen (places read only by
allowing one, or beyond every learned look and brighter than their nearest look), its colour is
fitted once over those places (`fit_tints`), and every place within `REACH` of them is read again
as a look plus a non-negative amount of that light (`read_under_tint`): as the look the likeliest
colour explains best, sure only when every other meaning is clearly farther under every colour
the sheen's places allow, and, where those colours read the sheen's own places differently (its
colour is then unknown: one place, or places of one look), only when no other meaning comes within
the open-set distance under any of them. Farther away a place is not read again, but a sure one is
left unsure where a piece plus that light explains it about as well (a piece lying askew mirrors the
lamp where its flat neighbours do not). In a frame with no sheen nothing changes.
"""

from __future__ import annotations

import numpy as np
from scipy.ndimage import binary_dilation

from controller.snapshot import EMPTY
from controller.vision.classify import ClassModel, Decision, open_set_distance
from controller.vision.features import colours_of, feature_planes
from controller.vision.sheen import clip_factors

#: The exponent of the sRGB curve cameras deliver (its overall power: a value relative to the
#: paper's, raised to it, is the light relative to the paper's light).
GAMMA = 2.2
#: The amounts of the sheen's light tried, as shares of the most the place's colour holds.
SHARES = np.linspace(0.0, 0.9, 19)
#: How far (in places) from a place that shows the sheen the others are read under it: a broad
#: reflection's brightest places, in its middle, may pass for the palest look and show nothing.
REACH = 2


def linear(bgr: np.ndarray) -> np.ndarray:
    """Light relative to the paper's, from values relative to the paper's (the sRGB curve undone)."""
    return np.clip(bgr, 0.0, None) ** GAMMA


def glare_places(model: ClassModel, dec: Decision, shone: np.ndarray, per_class: list[np.ndarray]) -> np.ndarray:
    """(N,) places that show a sheen: read only by allowing one, or beyond every learned look and
    brighter, channel by channel, than their nearest look (light added to it)."""
    idx = np.arange(len(dec.sure))
    feats = np.stack([per_class[k][i] for i, k in zip(idx, dec.best)]) if len(idx) else np.zeros((0, 3))
    brighter = np.all(colours_of(feats) > colours_of(model.means)[dec.best], axis=1)
    return shone | ((dec.distance > model.max_distance) & brighter)


def _held(light: np.ndarray, tint: np.ndarray) -> np.ndarray:
    """The most of light of colour `tint` each colour of `light` (..., 3) can hold."""
    return np.clip(np.min(light / np.maximum(tint, 1e-3), axis=-1), 0.0, None)


def _least_distances(model: ClassModel, light: np.ndarray, tints: np.ndarray) -> np.ndarray:
    """(T, N, K) least distance of each place to each look over the amounts of light of each
    colour of `tints` (T, 3) taken off its light `light` (N, K, 3: as each look's body shows it).
    The features (`feature_planes`) and the look's quadratic form are taken channel by channel (the
    same arithmetic as `colour_features` and `ClassModel.distances`, without their (S, T, N, K, 3) copies)."""
    held = _held(light[None], tints[:, None, None, :])  # (T, N, K)
    left = light[None, None] - (SHARES[:, None, None, None] * held[None])[..., None] * tints[None, :, None, None, :]
    f0, f1, f2 = feature_planes(*np.moveaxis(np.clip(left, 1e-6, None) ** (1 / GAMMA), -1, 0))  # each (S, T, N, K)
    d0, d1, d2 = f0 - model.means[:, 0], f1 - model.means[:, 1], f2 - model.means[:, 2]
    inv = model.inv
    q = inv[:, 0, 0] * d0 * d0 + inv[:, 1, 1] * d1 * d1 + inv[:, 2, 2] * d2 * d2
    q += 2 * (inv[:, 0, 1] * d0 * d1 + inv[:, 0, 2] * d0 * d2 + inv[:, 1, 2] * d1 * d2)
    return np.sqrt(np.maximum(q, 0)).min(axis=0)


def _unexplained(light: np.ndarray, looks: np.ndarray, scales: np.ndarray, tints: np.ndarray) -> np.ndarray:
    """(T, G, K) the light (squared) left unexplained when each place (`light` G, K, 3) is taken as
    each look (`looks` K, 3) at a brightness of `scales` (S, K) plus a non-negative amount of
    light of each colour of `tints` (T, 3), at the best of those brightnesses and amounts: what
    of the excess over the look is not along the colour (all of it where it points away)."""
    excess = light[None] - scales[:, None, :, None] * looks[None, None]  # (S, G, K, 3)
    along = np.clip(excess @ tints.T, 0.0, None)  # (S, G, K, T)
    left = np.einsum("sgkc,sgkc->sgk", excess, excess)[..., None] - along**2 / np.einsum("tc,tc->t", tints, tints)
    return np.moveaxis(np.clip(left, 0.0, None).min(axis=0), -1, 0)


def fit_tints(model: ClassModel, per_class: list[np.ndarray], places: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The colours (linear BGR, largest channel 1) of the light a sheen adds over `places`: (1, 3)
    the likeliest and (T, 3) every colour the places allow (none where no place is brighter than a
    look in every channel). The colours tried are white and those the places' excesses of light
    over the looks show (at a look's own brightness and a learned spread brighter).

    Each colour leaves some light unexplained: each place taken as the look it fits best, at a
    brightness within twice the learned spread, plus a non-negative amount of that colour (least
    squares of light: a strong sheen shows its colour best). The likeliest leaves the least. Once
    a place's brightness and amount are fitted one number of its three is left, and the colour
    takes two of all the places': what the likeliest leaves measures the noise, and a colour is
    allowed when it leaves no more than the open-set quantile of two dimensions of that noise
    more. With two places or fewer nothing measures it: every colour that lets as many of them as
    any colour does be a look plus some of it (within the open-set distance) is allowed."""
    looks = linear(colours_of(model.means))  # (K, 3)
    spread = GAMMA * model.brightness_spread
    light = np.stack([linear(colours_of(f[places])) for f in per_class], axis=1)  # (G, K, 3)
    excess = np.concatenate([light - looks[None], light - np.exp(spread)[:, None] * looks[None]]).reshape(-1, 3)
    tints = excess[np.all(excess > 0, axis=1)]
    if not len(tints):
        return tints, tints
    tints = np.concatenate([tints, np.ones((1, 3))])
    tints = np.unique(np.round(tints / tints.max(axis=1, keepdims=True), 2), axis=0)
    scales = np.exp(np.linspace(-2, 2, 9)[:, None] * spread[None])  # (S, K)
    unexplained = _unexplained(light, looks, scales, tints).min(axis=2).sum(axis=1)
    likeliest = tints[[int(np.argmin(unexplained))]]
    dof = len(places) - 2
    if dof > 0:
        noise = unexplained.min() / dof
        return likeliest, tints[unexplained <= unexplained.min() + noise * open_set_distance(2) ** 2]
    explained = (_least_distances(model, light, tints).min(axis=2) <= model.max_distance).sum(axis=1)
    return likeliest, tints[explained == explained.max()]


def tinted_distances(model: ClassModel, per_class: list[np.ndarray], tints: np.ndarray) -> np.ndarray:
    """(N, K) least distance of each place to each look over the amounts of light of each colour
    of `tints` taken off its colour (none to nearly all it holds); `per_class[k]` holds the
    places' features (N, 3) where a body of class k appears."""
    light = np.stack([linear(colours_of(f)) for f in per_class], axis=1)  # (N, K, 3)
    return _least_distances(model, light, tints).min(axis=0)


def read_under_tint(
    model: ClassModel,
    dec: Decision,
    shone: np.ndarray,
    per_class: list[np.ndarray],
    rows: int,
    cols: int,
    clipped: np.ndarray | None = None,
) -> tuple[Decision, np.ndarray]:
    """The decision with every place within `REACH` of a sheen read again as a look plus some of
    the sheen's light, and (N,) the places so read. Each is read as the look the likeliest colour
    explains best; sure only when every colour the sheen allows reads it as that meaning, every
    other meaning is clearly farther under all of them (the classifier's margin rule), and, where
    those colours read the sheen's own places differently (its colour unknown), beyond the
    open-set distance under all of them. A sure place farther away is left unsure where a piece
    plus that light explains it about as well (`_askew_piece`).
    A place some look explains so is within the open-set distance (a sheen, not a light unlike
    the calibration's). A channel that clips (`clipped`, (N, 3)) is only a floor to the other
    meanings: each is also tried with that channel brighter than it shows (`_raised`), and a place
    another meaning explains only so (within the open-set distance with the channel raised, beyond
    it without) is unsure: how far above the clip the channel lies is unknown, so no margin over
    that meaning can be read (Blockers! `sheen_check` seed 200: a yellow tile at a white sheen's
    middle, green and red clipped, read as the empty square plus a little light)."""
    n = len(dec.sure)
    glare = glare_places(model, dec, shone, per_class)
    if not glare.any():
        return dec, np.zeros(n, bool)
    likeliest, allowed = fit_tints(model, per_class, np.flatnonzero(glare))
    if not len(likeliest):
        return dec, np.zeros(n, bool)
    size = 2 * REACH + 1
    near = binary_dilation(glare.reshape(rows, cols), structure=np.ones((size, size), bool)).ravel()
    idx = np.flatnonzero(near)
    tints = np.unique(np.concatenate([likeliest, allowed]), axis=0)
    light = np.stack([linear(colours_of(f[idx])) for f in per_class], axis=1)  # (N, K, 3)
    each = _least_distances(model, light, tints)  # (T, N, K)
    dist = each[int(np.flatnonzero(np.all(tints == likeliest, axis=1))[0])]
    wide = each.min(axis=0)
    by_floor = np.zeros(wide.shape, bool)
    if clipped is not None:
        raised = _raised(model, light, tints, clipped[idx])
        by_floor = (raised <= model.max_distance) & (wide > model.max_distance)
        wide = np.minimum(wide, raised)
    best = dist.argmin(axis=1)
    reads = each.argmin(axis=2)  # (T, N): the look each colour reads each place as
    agree = np.all(model.same[reads, best[None]], axis=0)
    # The sheen's colour is known well enough to read by where every colour it allows reads the
    # places that show it alike (what is left unknown of it then changes nothing).
    shows = glare[idx]
    known = bool(np.all(model.same[reads[:, shows], reads[:1, shows]]))
    d1 = dist[np.arange(len(idx)), best]
    d2, margin, clear = _margin_rule(model, best, d1, np.where(model.same[best], np.inf, wide))
    explained = d1 <= model.max_distance
    one = explained & agree & clear
    one &= ~(by_floor & ~model.same[best]).any(axis=1)  # a clipped channel's height is unknown: no margin over it
    if not known:
        one &= d2 > model.max_distance
    keys, letters = list(dec.keys), list(dec.letters)
    looks, sure, conf = dec.best.copy(), dec.sure.copy(), dec.confidence.copy()
    dist_, open_, possible = dec.distance.copy(), dec.open.copy(), dec.possible.copy()
    for j in np.flatnonzero(one):  # a place left unsure keeps its look (what later stages measure)
        i, ref = idx[j], model.refs[int(best[j])]
        keys[i], letters[i], looks[i], open_[i] = ref.key, ref.letter, best[j], ref.open
    sure[idx] = one
    conf[idx] = np.where(one, np.clip(margin, 0, 1) * np.clip(1.5 - d1 / model.max_distance, 0, 1), 0.0)
    dist_[idx] = np.where(one | explained, d1, dec.distance[idx])
    if possible.size:  # what a place may be: every meaning the sheen leaves within reach
        possible[idx] = (wide <= model.max_distance) | ~explained[:, None]
        possible[idx, best] = True
    far = np.flatnonzero(~near & dec.sure)
    doubted = far[_askew_piece(model, dec, per_class, tints, far)]
    sure[doubted] = False
    conf[doubted] = 0.0
    decision = Decision(
        keys=keys,
        letters=letters,
        sure=sure,
        confidence=conf,
        distance=dist_,
        open=open_,
        best=looks,
        possible=possible,
    )
    read = np.zeros(n, bool)
    read[idx] = True
    read[doubted] = True
    return decision, read


def _raised(model: ClassModel, light: np.ndarray, tints: np.ndarray, clipped: np.ndarray) -> np.ndarray:
    """(N, K) least distance of each place to each look over the amounts of light of each colour
    of `tints` taken off, with every channel that clips (`clipped`, (N, 3)) brighter than it shows
    by each of `sheen.CLIP_ROOM`'s factors (inf where no channel clips): an orange token under a
    cyan sheen clips red, and orange plus the sheen has more red than the picture can show."""
    out = np.full(light.shape[:2], np.inf)
    for i in np.flatnonzero(clipped.any(axis=1)):
        factors = clip_factors(clipped[i]) ** GAMMA  # (F, 3): in light, the sRGB curve undone
        tried = light[i][None] * factors[:, None, :]  # (F, K, 3)
        out[i] = _least_distances(model, tried, tints).min(axis=(0, 1))
    return out


def _askew_piece(
    model: ClassModel, dec: Decision, per_class: list[np.ndarray], tints: np.ndarray, places: np.ndarray
) -> np.ndarray:
    """(len(places),) which sure places, beyond `REACH` of the sheen, a piece of another meaning
    plus some of the sheen's light (any colour of `tints`, (T, 3)) explains about as well as they
    were read: not clearly farther by the classifier's margin rule, within the open-set distance.

    The board is flat and its own reflection smooth (hence the reach), but a piece lying askew
    mirrors the lamp where its flat neighbours do not (3D room 12: a green tile three rows from the
    sheen, washed to the empty cell's pale look, was read empty surely). Far from the sheen a place
    is not read again; it is only left unsure where such a piece could be there. An empty place
    mirrors nothing its neighbours do not, so an empty look is no rival here (a pale token taken
    for an empty slot under a sheen is `outline.py`'s, which looks for its edge)."""
    if not len(places):
        return np.zeros(0, bool)
    tinted = tinted_distances(model, [f[places] for f in per_class], tints)  # (N, K)
    best = dec.best[places]
    piece = np.array([ref.letter != EMPTY for ref in model.refs])
    d2, _margin, clear = _margin_rule(
        model, best, dec.distance[places], np.where(model.same[best] | ~piece[None], np.inf, tinted)
    )
    return (d2 <= model.max_distance) & ~clear


def _margin_rule(
    model: ClassModel, best: np.ndarray, d1: np.ndarray, rivals: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The classifier's margin rule (`ClassModel.decide_distances`) for places read as looks `best`
    at distances `d1`, against `rivals` (N, K: each look's distance, inf where it is no rival):
    the nearest rival's distance, the margin, and whether every rival is clearly farther."""
    d2 = rivals.min(axis=1)
    margin = np.where(np.isfinite(d2), (d2 - d1) / np.maximum(d2, 1e-9), 1.0)
    need = model.pair_need[best, rivals.argmin(axis=1)]
    return d2, margin, (margin >= model.min_margin) & (margin > need)
