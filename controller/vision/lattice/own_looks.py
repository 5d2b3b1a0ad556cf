"""The picture's own looks of one parity of the lattice, which the rules that read a place by the
picture's other places share (`rules.parity`, `rules.own_flatness`, `rules.own_board`), and the
places the learned flatness surely reads as some piece (`flat_piece`).

Light and dark squares alternate (the lattice's parity; on a Go board every place is alike):
within one picture the empty places of one parity share a rendering, whatever board it is, so
their look in this picture, from the others than the place read, is a fair measure of that place.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from controller.vision.classify import ClassModel
from controller.vision.lattice.places import EMPTY

if TYPE_CHECKING:
    from controller.vision.lattice.model import LatticeModel


def parity_distances(
    model: LatticeModel,
    population: np.ndarray,
    samples: np.ndarray,
    inside: np.ndarray,
    classes: ClassModel | None = None,
    pieces: bool = False,
) -> tuple[np.ndarray, np.ndarray]:
    """(m,) Mahalanobis distance of each of m places to its parity's look in this picture
    (`parity_looks`, the place left out where it is one of `population`), and (m,) whether
    that look had a place of the picture. `samples` is (m, F), or (shifts, m, F) for the looks'
    features at every sample position (the nearest counts; the first is the place's own, the
    one left out)."""
    first = samples[0] if samples.ndim == 3 else samples
    mean, inv, enough = parity_looks(model, population, first, inside, classes, pieces)
    y = samples - mean
    d2 = np.einsum("...ni,nij,...nj->...n", y, inv, y)
    return np.sqrt(d2.min(axis=0) if samples.ndim == 3 else d2), enough


def parity_looks(
    model: LatticeModel,
    population: np.ndarray,
    x: np.ndarray,
    inside: np.ndarray,
    classes: ClassModel | None = None,
    pieces: bool = False,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The empty look of one parity in one picture for each of m places `x` (m, F), from the
    features `population` (n, F) of that parity's flat places, each place left out of it
    where it is one of them (`inside`, (m,) bools): the mean, and the inverse of the spread
    shrunk towards the learned empty look nearest the population's mean as
    `ClassModel.learn_looks` shrinks a look (its own spread weighed by the places, the prior
    by F), widened by 1 + 1/places (the mean's own uncertainty) and the model's floor added.
    One place is a measure as two are: its look is the learned spread about it, widened by
    1 + 1/1 (a population's mean is known to its spread over the places, however few); only
    with none left does the picture say nothing (the learned look alone is what the looks said).
    Returned: (m, F) means, (m, F, F) inverses and (m,) whether a place or more was left.
    `classes`: the looks whose empty look is the prior (the flatness's, `flat`) instead of the
    learned looks of `place_features`; `pieces`: the population is pieces, and the prior the
    learned piece look nearest its mean."""
    c = model.classes if classes is None else classes
    n, dims = population.shape
    centre = population.mean(axis=0)
    empty = np.flatnonzero((np.array([r.letter for r in c.refs]) == EMPTY) != pieces)
    near = model._shaded(centre[None])[0] if classes is None else c.distances(centre[None])[0]
    prior = np.asarray(c.refs[empty[int(near[empty].argmin())]].cov, np.float64)
    scatter = (population - centre).T @ (population - centre)
    count = np.where(inside, n - 1, n).astype(np.float64)
    # Leaving one place out moves the mean by (centre - x) / (n - 1) and takes
    # n / (n - 1) (x - centre)(x - centre)' from the scatter.
    away = x - centre
    mean = np.where(inside[:, None], centre + (centre - x) / np.maximum(n - 1, 1), centre)
    scatters = scatter[None] - np.where(inside, n / max(n - 1, 1), 0.0)[:, None, None] * np.einsum(
        "mi,mj->mij", away, away
    )
    enough = count >= 1
    own = scatters / np.maximum(count - 1, 1)[:, None, None]
    k = count[:, None, None]
    cov = (k * own + dims * prior) / (k + dims) * (1 + 1 / np.maximum(k, 1)) + np.diag(c.floor)
    return mean, np.linalg.inv(cov), enough


def own_pieces(
    model: LatticeModel, shifted: np.ndarray, letters: np.ndarray, seen: np.ndarray, here: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """(m,) each of the places `here` (m indices)'s distance to the nearest look of this picture's
    own pieces (`seen`, (N,) places of one parity read surely as a piece: rule parity asks the
    looks and the flatness both), kind by kind (`parity_looks` with `pieces`, each place left out
    of its own kind's look), and (m,) that kind; inf and "" where no other piece of that parity
    was seen. `shifted` is (shifts, N, F).

    The learned piece looks come from one set: another set's pieces may lie far from them and near
    its board (a walnut pawn on a walnut square), so a place whose looks are far from every learned
    look is not shown to be the bare board by being nearer its parity's squares in this picture
    than the learned pieces: the pieces this picture shows on that parity are the fair rival of a
    look taken from this picture (as `rules.own_board` weighs them)."""
    d = np.full(len(here), np.inf)
    kind = np.full(len(here), "", object)
    for k in sorted({str(x) for x in letters[seen]}):
        mine = seen & (letters == k)
        d_k, enough = parity_distances(model, shifted[0, mine], shifted[:, here], mine[here], None, True)
        d_k = np.where(enough, d_k, np.inf)
        nearer = d_k < d
        d, kind = np.where(nearer, d_k, d), np.where(nearer, k, kind)
    return d, kind


def flat_piece(model: LatticeModel, flat: np.ndarray) -> np.ndarray:
    """(N,) places the flatness surely reads as some piece rather than empty: within the open-set
    distance of a piece look and nearer it than every empty look by the flatness model's
    margins (whichever piece)."""
    f = model.flat_looks
    dist = f.distances(flat)
    letter_of = np.array([r.letter for r in f.refs])
    if not np.any(letter_of == EMPTY) or np.all(letter_of == EMPTY):
        return np.zeros(len(flat), bool)
    d_empty, d_piece = dist[:, letter_of == EMPTY].min(axis=1), dist[:, letter_of != EMPTY].min(axis=1)
    margin = (d_empty - d_piece) / np.maximum(d_empty, 1e-9)
    need = max([f.pair_margins.get((str(k), EMPTY), -np.inf) for k in set(letter_of) - {EMPTY}])
    return (d_piece <= f.max_distance) & (margin >= f.min_margin) & (margin > need)
