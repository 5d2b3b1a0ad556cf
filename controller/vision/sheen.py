"""A sheen of the room's light: a glossy piece seen where it mirrors a bright lamp or ceiling panel.

Light reflected by a glossy (dielectric) surface keeps the colour of the light that falls on it,
not that of the surface (the dichromatic reflection model: what the camera sees is the surface's
own colour plus some of the light's). Relative to the paper white, which that same light falls on,
a sheen adds about equal amounts to the three channels: a red tile under the reflection of a
ceiling panel looks brighter and paler, a pink the learned red does not match.

So a place the learned looks leave unsure (like none of them, beyond the classifier's open-set
distance, or between two of them) is looked at once more as possibly one of them under a sheen:
for each class, the least distance over sheens `s` taken off the place's colour (at most
`MAX_SHARE` of its darkest channel, as a sheen cannot take away more light than the place shows,
and nothing is left of a colour that would be all sheen). The place is then read as the class only
when that explanation is sure by the classifier's own rule: near enough, and clearly nearer than
any other meaning, whether that one is allowed a sheen too or any brightness (a shadow, a brighter
light). A place a learned look reads surely is never re-read, and two looks that a sheen or a
shadow makes alike (a dark empty slot under a lamp's sheen and a pale token in a shadow) stay
unsure. A yellow token paled by a sheen lies between the copy's yellow and orange: without the
sheen it is clearly yellow.
"""

from __future__ import annotations

import numpy as np
from scipy.ndimage import binary_dilation

from controller.snapshot import EMPTY
from controller.vision.classify import ClassModel, Decision
from controller.vision.features import colour_features, colours_of

#: The sheens tried, as shares of the place's darkest channel.
SHARES = np.linspace(0.0, 0.9, 19)


def sheen_distances(model: ClassModel, per_class: list[np.ndarray]) -> np.ndarray:
    """(N, K) least distance of each place to each class of `model` over the sheens tried;
    `per_class[k]` holds the places' features (N, 3) where a body of class k appears (each class
    measured only against its own look, every sheen at once)."""
    out = []
    for k, feats in enumerate(per_class):
        bgr = colours_of(feats)
        floor = np.clip(bgr.min(axis=1), 0.0, None)
        shaded = bgr[None] - (SHARES[:, None] * floor[None])[..., None]  # (S, N, 3)
        d = colour_features(shaded.reshape(-1, 3)) - model.means[k]
        q = np.einsum("ni,ij,nj->n", d, model.inv[k], d).reshape(len(SHARES), len(feats))
        out.append(np.sqrt(np.maximum(q, 0)).min(axis=0))
    return np.stack(out, axis=1)


#: How much brighter than it shows a clipped channel may be, as factors tried: a channel that
#: clips is only a floor, and a sheen strong enough to clip a channel can hide as much again.
CLIP_ROOM = np.array([1.0, 1.25, 1.5, 2.0, 3.0])
_CLIP_GRID = np.stack(np.meshgrid(CLIP_ROOM, CLIP_ROOM, CLIP_ROOM, indexing="ij"), -1).reshape(-1, 3)


def clip_factors(clipped: np.ndarray) -> np.ndarray:
    """(F, 3) the factors one place's channels are tried at: every factor of `CLIP_ROOM` for each
    channel that clips (`clipped`, (3,)), 1 for the others."""
    return np.unique(np.where(clipped[None], _CLIP_GRID, 1.0), axis=0)


def sheen_distances_clipped(model: ClassModel, per_class: list[np.ndarray], clipped: np.ndarray) -> np.ndarray:
    """`sheen_distances` where a channel that clips (`clipped`, (N, 3)) is only a floor: the least
    distance also over that channel brighter than it shows (by the factors `CLIP_ROOM`). An orange
    slide under a white sheen clips red: the red it shows is too little for orange plus the sheen
    (a flat render of Stay Alive, `bench/sheen_check.py` seed 23), and read as it shows, only a yellow marble fits."""
    out = sheen_distances(model, per_class)
    rows = np.flatnonzero(clipped.any(axis=1))
    if len(rows) == 0:
        return out
    for i in rows:
        factors = clip_factors(clipped[i])  # (F, 3), the same for every class
        tried = [colour_features(colours_of(f[i : i + 1]) * factors) for f in per_class]
        out[i] = sheen_distances(model, tried).min(axis=0)
    return out


def brightness_free_distances(model: ClassModel, feats: np.ndarray) -> np.ndarray:
    """(N, K) distances of each place to each class in chromaticity alone, at any brightness: how
    a look in a shadow, or under a brighter light, compares with the learned look."""
    out = []
    for ref in model.refs:
        cov = np.asarray(ref.cov, np.float64) + np.diag(model.floor)
        inv = np.linalg.inv(cov[1:, 1:])
        d = feats[:, 1:] - ref.mean[1:]
        out.append(np.sqrt(np.maximum(np.einsum("ni,ij,nj->n", d, inv, d), 0)))
    return np.stack(out, axis=1)


def reread(model: ClassModel, dec: Decision, per_class: list[np.ndarray]) -> tuple[Decision, np.ndarray]:
    """The decision with every unsure place (beyond the open-set distance, or too near two looks
    of different meanings) read again allowing a sheen, and which places that made sure. Places a
    learned look reads surely keep their decision. The look a sheen
    explains must be clearly nearer than any other meaning, whether that one is allowed a sheen
    too or any brightness (a shadow): a grey between a dark and a pale grey look stays unsure."""
    far = np.flatnonzero((dec.distance > model.max_distance) | ~dec.sure)
    if len(far) == 0:
        return dec, np.zeros(len(dec.sure), bool)
    shone = sheen_distances(model, [f[far] for f in per_class])
    free = np.stack([brightness_free_distances(model, f[far])[:, k] for k, f in enumerate(per_class)], axis=1)
    best = shone.argmin(axis=1)
    rows = np.arange(len(far))
    d1 = shone[rows, best]
    rivals = np.where(model.same[best], np.inf, np.minimum(shone, free))
    d2 = rivals.min(axis=1)
    margin = np.where(np.isfinite(d2), (d2 - d1) / np.maximum(d2, 1e-9), 1.0)
    need = model.pair_need[best, rivals.argmin(axis=1)]
    ok = (d1 <= model.max_distance) & (margin >= model.min_margin) & (margin > need)
    keys, letters = list(dec.keys), list(dec.letters)
    sure, conf, dist, open_ = dec.sure.copy(), dec.confidence.copy(), dec.distance.copy(), dec.open.copy()
    looks = dec.best.copy()
    won = far[ok]
    for i, b in zip(won, best[ok]):
        keys[i], letters[i], looks[i] = model.refs[b].key, model.refs[b].letter, b
    sure[won] = True
    closeness = np.clip(1.5 - d1 / model.max_distance, 0, 1)
    conf[won] = (np.clip(margin, 0, 1) * closeness)[ok]
    dist[won] = d1[ok]
    open_[won] = np.array([model.refs[b].open for b in best[ok]], bool)
    by_sheen = np.zeros(len(dec.sure), bool)
    by_sheen[won] = True
    possible = dec.possible.copy()
    if possible.size:  # a place read under a sheen may be only its look
        possible[won] = False
        possible[won, best[ok]] = True
    decision = Decision(
        keys=keys, letters=letters, sure=sure, confidence=conf, distance=dist, open=open_, best=looks, possible=possible
    )
    return decision, by_sheen


def washed(
    model: ClassModel,
    dec: Decision,
    sure: np.ndarray,
    per_class: list[np.ndarray],
    flat: list[int],
    shown: np.ndarray,
    shape: tuple[int, int],
    reach: int,
    balls: list[int] | None = None,
    clipped: np.ndarray | None = None,
) -> np.ndarray:
    """(N,) places read surely as a flat piece (`flat`: the looks of pieces lying flat, which
    mirror a broad sheen over their whole face) within `reach` places of one that shows a sheen
    (`shown`), whose colour with some white light taken off is, within the open-set distance, a
    flat piece of another meaning (an orange token paled to yellow), or whose look is the sheen's
    own colour (a grey the paper's white light would show alone: a joker): under a sheen stronger
    than a dark token's own light, nothing of the token's colour is left to tell, and a blue token
    shows a joker's pale grey. The sheen that shows around them is broad and smooth, so it is over
    them too, in an amount no colour tells. A ball (`balls`) mirrors a broad sheen only as a small
    spot, but the floor it would lie on mirrors it whole: a place read surely as a ball whose colour
    with some white light taken off is an empty floor's (not an opening: a hole mirrors nothing)
    may be that floor, washed (Stay Alive's orange slide paled to a yellow marble; where the floor
    shows through a hole in a plate, the hole's rim is an outline, so `outline.py` cannot tell). A
    channel that clips (`clipped`, (N, 3)) is only a floor (`sheen_distances_clipped`)."""
    out = np.zeros(len(sure), bool)
    if not shown.any():  # most frames: no sheen anywhere
        return out
    size = 2 * reach + 1
    near = binary_dilation(shown.reshape(shape), structure=np.ones((size, size), bool)).ravel()
    balls = balls or []
    todo = np.flatnonzero(sure & near & np.isin(dec.best, flat + balls))
    if len(todo) == 0:
        return out
    best = dec.best[todo]
    is_piece = np.array([ref.letter != EMPTY for ref in model.refs])
    floors = np.array([ref.letter == EMPTY and not ref.open for ref in model.refs])
    pieces = np.isin(np.arange(len(model.refs)), flat) & is_piece
    rivals = np.where(np.isin(best, balls)[:, None], floors[None], pieces[None])  # (T, K)
    feats = [f[todo] for f in per_class]
    shone = sheen_distances(model, feats) if clipped is None else sheen_distances_clipped(model, feats, clipped[todo])
    rival = (shone <= model.max_distance) & ~model.same[best] & rivals
    neutral = model.means[best].copy()
    neutral[:, 1:] = 0.0  # the look's brightness, no colour: the white light alone
    d = neutral - model.means[best]
    grey = np.sqrt(np.maximum(np.einsum("ni,nij,nj->n", d, model.inv[best], d), 0.0)) <= model.max_distance
    out[todo] = rival.any(axis=1) | (grey & ~np.isin(best, balls))  # a ball's own grey is no washed floor
    return out
