"""What a clipped channel still says: a bound, not a measurement.

A camera's channel saturates at full scale. Where a place's patch is clipped in a channel, its true
colour there is at least what was seen; where the light's reference (the markers' white paper, or
the board between the places) is clipped, the true light is at least what was seen, so every colour
read relative to it is at most what was seen. A saturated lamp does both in its strong channel: a
white marble and the empty board beside it then read alike, not because they are alike but because
the lamp took away what told them apart.

So a place is read surely only if no look of another meaning could have given the picture:
`reachable` measures, for every place and look, how near the look comes to any colour the bounds
allow (the least squared Mahalanobis distance over the ranges the clipped channels leave
free). A look of another meaning that the bounds bring within the open-set distance, from beyond it
as seen, is one the place may be: the clipping, not the place, makes the reading. A clipped place
rises at most to the brightest learned look in that channel (no surface of the copy sends back more
light). No constant is fitted: the looks' learned spreads and the open-set distance decide.
"""

from __future__ import annotations

from itertools import product

import numpy as np

#: Bound of one channel: none, the true value may be higher (the place is clipped), lower (the
#: reference is clipped), or anything (both).
NONE, UP, DOWN, FREE = 0, 1, -1, 2


def directions(
    bounds: np.ndarray, channel_dirs: np.ndarray, cap: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each place's freedom per channel, from its (N, C) channel bounds and the (C, D) feature
    change of a unit rise of each channel: (N, C, D) directions, and (N, C) the least and most of
    each (a rise of a clipped place's channel at most `cap` (N, C) where given: what physics
    allows; a bound reference's channel falls without end; both: anything)."""
    bounds = np.asarray(bounds)
    dirs = np.where((bounds != NONE)[..., None], np.asarray(channel_dirs, np.float64)[None], 0.0)
    lo = np.where((bounds == DOWN) | (bounds == FREE), -np.inf, 0.0)
    hi = np.where(bounds == UP, np.inf if cap is None else np.maximum(cap, 0.0), 0.0)
    hi = np.where(bounds == FREE, np.inf, hi)
    return dirs, lo, hi


def reachable(
    x: np.ndarray, dirs: np.ndarray, lo: np.ndarray, hi: np.ndarray, means: np.ndarray, invs: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """(N, K) the least squared Mahalanobis distance from each look k (mean (K, D), inverse
    covariance (K, D, D)) to the colours place n may have: x[n] + dirs[n].T @ t with lo <= t <= hi
    ((N, D) features, (N, M, D) directions, (N, M) limits, 0 <= 0 for no freedom); and (N, K) the
    squared distance of what was seen (t = 0).

    A convex quadratic over a box: at its least, every coefficient is at one of its limits or
    free, and the free ones are the unconstrained least given the others; so every such pattern
    is solved and the least feasible value kept (M is three or four: the colour channels and a
    shadow)."""
    x = np.asarray(x, np.float64)
    dirs = np.asarray(dirs, np.float64)
    n, m = dirs.shape[:2]
    d0 = x[:, None, :] - means[None]  # (N, K, D)
    seen = np.einsum("nki,kij,nkj->nk", d0, invs, d0)
    best = seen.copy()
    live = [j for j in range(m) if (hi[:, j] > lo[:, j]).any()]
    for states in product((0, 1, 2), repeat=len(live)):  # at its least, at its most, free
        if all(st == 0 for st in states):
            continue  # t at its least everywhere: seen, or not a feasible colour
        fixed = np.zeros((n, m))
        ok = np.ones(n, bool)
        free = []
        for j, st in zip(live, states):
            if st == 2:
                free.append(j)
                ok &= hi[:, j] > lo[:, j]
            else:
                limit = lo[:, j] if st == 0 else hi[:, j]
                ok &= np.isfinite(limit)
                fixed[:, j] = np.where(np.isfinite(limit), limit, 0.0)
        rows = np.flatnonzero(ok)
        if not len(rows):
            continue
        xr = x[rows] + np.einsum("nm,nmd->nd", fixed[rows], dirs[rows])
        d = xr[:, None, :] - means[None]
        pd = np.einsum("kij,nkj->nki", invs, d)
        value = np.einsum("nki,nki->nk", d, pd)
        if free:
            a = dirs[rows][:, free, :]  # (n, S, D)
            g = np.einsum("nsi,kij,ntj->nkst", a, invs, a)
            b = np.einsum("nsi,nki->nks", a, pd)
            t = -np.linalg.solve(g + 1e-12 * np.eye(len(free)), b[..., None])[..., 0]
            value = value + np.einsum("nks,nks->nk", t, b)
            inside = (t >= lo[rows][:, None, free] - 1e-9) & (t <= hi[rows][:, None, free] + 1e-9)
            value = np.where(inside.all(axis=2), value, np.inf)
        best[rows] = np.minimum(best[rows], value)
    return np.maximum(best, 0.0), seen
