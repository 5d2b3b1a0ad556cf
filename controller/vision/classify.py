"""The one classifier of places: class references, an open-set rule and confidence.

Every reader (the four games, and `referee lattice` for any grid game) describes a place by
features relative to the picture's own light and hands them to a `ClassModel`. Each class (a
*look*: several looks may share one meaning, e.g. light and dark empty squares) is a Gaussian in
feature space, a mean and a covariance, learned from samples (calibration, `lattice learn`) or
shipped as defaults. A place is given the nearest look by Mahalanobis distance; it is *sure*
only when

* that look is close in absolute terms: the squared distance is below the chi-square quantile
  of the feature dimension at `P_KNOWN` (the **open-set rule**: a hand, a sleeve, a cup or a
  die looks like none of the learned looks, so it is unsure whatever its nearest label), and
* it is clearly nearer than the nearest look with a different meaning (the margin), and by more
  than any margin with which a place of that rival meaning was read as this one when held out of
  the learning pictures (`pair_margins`, from a leave-one-out test: a dark piece that looks like
  a dark square where the light falls on it).

Anything else is unsure and is reported as such, never guessed. Covariances learned from few
samples are shrunk towards the spread pooled over all looks and never tighter than a floor.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Annotated, Any, ClassVar

import numpy as np
from pydantic import Field, ValidationInfo

from controller.errors import ConfigError
from controller.language import N_, _, literal
from controller.schema import LearnedSection, checked, sentence, validate

#: A covariance floor for the games' 3 colour features: no class is trusted to be tighter than
#: this (feature units squared).
MIN_VAR = np.array([0.04**2, 0.012**2, 0.012**2])

#: A sample of a learned look falls inside the open-set distance with this probability: one place
#: in 10,000 of a known look is called unsure for nothing (the next frame reads it again), while
#: a look several standard deviations away from everything learned is never forced into a class.
P_KNOWN = 0.9999


@functools.cache
def open_set_distance(dims: int, p: float = P_KNOWN) -> float:
    """The Mahalanobis distance within which a sample of a Gaussian look in `dims` dimensions
    falls with probability `p`: the square root of the chi-square quantile, found by bisection
    on the chi-square distribution function (once per `dims` and `p`: some stages ask every frame)."""
    lo, hi = 0.0, 10.0 * dims + 100.0
    for _step in range(80):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if _chi2_cdf(mid, dims) < p else (lo, mid)
    return float(np.sqrt((lo + hi) / 2))


def _chi2_cdf(x: float, dims: int) -> float:
    """P(chi-square with `dims` degrees of freedom <= x): the regularised lower incomplete
    gamma function P(dims/2, x/2) by its power series."""
    a, y = dims / 2, x / 2
    if y <= 0:
        return 0.0
    term = total = 1 / a
    n = 0
    while term > total * 1e-15 and n < 10000:
        n += 1
        term *= y / (a + n)
        total += term
    return float(np.exp(-y + a * np.log(y) - math.lgamma(a)) * total)


@dataclass
class ClassRef:
    """One appearance of a place: `letter` is what it means in a snapshot ('.' for empty);
    `open` marks Stay Alive's open point (empty, but the dark space shows)."""

    key: str
    letter: str
    mean: np.ndarray
    cov: np.ndarray
    open: bool = False

    def meaning(self) -> tuple[str, bool]:
        return (self.letter, self.open)


@dataclass
class Decision:
    keys: list[str]
    letters: list[str]
    sure: np.ndarray
    confidence: np.ndarray
    distance: np.ndarray
    open: np.ndarray = field(default_factory=lambda: np.zeros(0, bool))
    #: (N,) the index of the look each place was given
    best: np.ndarray = field(default_factory=lambda: np.zeros(0, int))
    #: (N, K): the classes each place's look does not rule out: the nearest and every rival the
    #: margin rule could not set aside (all of them when the look is like none learned). What an
    #: unsure place may be; the reader gives their letters (vision knows no rules).
    possible: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), bool))
    #: (N,) how much nearer the nearest look is than the nearest of another label, as a part of the
    #: latter's distance (1 where there is no other label): what `min_margin` is asked of
    margin: np.ndarray = field(default_factory=lambda: np.zeros(0))


class ClassModel:
    """Nearest-class decisions with a confidence per place."""

    def __init__(
        self,
        refs: list[ClassRef],
        max_distance: float | None = None,
        min_margin: float = 0.3,
        floor: np.ndarray | None = None,
        pair_margins: dict[tuple[str, str], float] | None = None,
    ):
        if not refs:
            raise ConfigError("vision.classes", _("at least one class reference is needed"))
        self.refs = refs
        dims = len(refs[0].mean)
        self.max_distance = open_set_distance(dims) if max_distance is None else float(max_distance)
        self.min_margin = min_margin
        #: (letter read, rival letter) -> the margin that place must exceed (see `decide_distances`)
        self.pair_margins = dict(pair_margins or {})
        self.floor = np.asarray(
            MIN_VAR if floor is None and dims == 3 else np.zeros(dims) if floor is None else floor, np.float64
        )
        self._prepare()

    def _prepare(self) -> None:
        self.means = np.stack([r.mean for r in self.refs]).astype(np.float64)
        covs = []
        for r in self.refs:
            c = np.asarray(r.cov, np.float64) + np.diag(self.floor)
            covs.append(np.linalg.inv(c))
        self.inv = np.stack(covs)
        #: (K,) each look's spread in brightness (log light), floor included: how far a place of
        #: that look may stray darker or lighter by chance
        self.brightness_spread = np.sqrt(np.array([float(np.asarray(r.cov)[0][0]) for r in self.refs]) + self.floor[0])
        meanings = [r.meaning() for r in self.refs]
        self.same = np.array([[a == b for b in meanings] for a in meanings])
        self.pair_need = np.array(
            [[self.pair_margins.get((a.letter, b.letter), -np.inf) for b in self.refs] for a in self.refs]
        )

    def distances(self, feats: np.ndarray) -> np.ndarray:
        """(N, K) Mahalanobis distances."""
        d = feats[:, None, :] - self.means[None, :, :]
        q = np.einsum("nki,kij,nkj->nk", d, self.inv, d)
        return np.sqrt(np.maximum(q, 0))

    def decide(self, feats: np.ndarray) -> Decision:
        """The nearest look of every place (rows of `feats`) and whether it is sure."""
        return self.decide_distances(self.distances(feats))

    def margin_clear(self, margin: np.ndarray, best: np.ndarray, rival: np.ndarray) -> np.ndarray:
        """(N,) whether look `best` is clearly nearer than look `rival` of another meaning, by the
        relative `margin` (d_rival - d_best) / d_rival: at least `min_margin`, and more than the
        pair's own need (`pair_need`)."""
        return (margin >= self.min_margin) & (margin > self.pair_need[best, rival])

    def decide_distances(self, dist: np.ndarray) -> Decision:
        """As `decide`, from (N, K) distances already measured (e.g. the least over several
        sample positions of each place)."""
        best = dist.argmin(axis=1)
        d1 = dist[np.arange(len(dist)), best]
        other = np.where(self.same[best], np.inf, dist)
        d2 = other.min(axis=1)
        finite = np.isfinite(d2)
        margin = np.where(finite, (d2 - d1) / np.maximum(np.where(finite, d2, 1.0), 1e-9), 1.0)
        closeness = np.clip(1.5 - d1 / self.max_distance, 0, 1)
        confidence = np.clip(margin, 0, 1) * closeness
        sure = (d1 <= self.max_distance) & self.margin_clear(margin, best, other.argmin(axis=1))
        # A rival k is set aside when the place is nearer the nearest look by the margin it needs:
        # (d_k - d1) / d_k >= need, that is d_k >= d1 / (1 - need).
        need = np.clip(np.maximum(self.min_margin, self.pair_need[best]), 0.0, 0.999)
        possible = (dist < d1[:, None] / (1.0 - need)) | (d1 > self.max_distance)[:, None]
        possible[np.arange(len(dist)), best] = True
        return Decision(
            keys=[self.refs[b].key for b in best],
            letters=[self.refs[b].letter for b in best],
            sure=sure,
            confidence=confidence,
            distance=d1,
            open=np.array([self.refs[b].open for b in best]),
            best=best,
            possible=possible,
            margin=margin,
        )

    def follow(self, key_samples: dict[str, np.ndarray], rate: float = 0.05) -> None:
        """Move class means a little towards confirmed samples (slow light changes)."""
        for ref in self.refs:
            s = key_samples.get(ref.key)
            if s is None or len(s) == 0:
                continue
            ref.mean = (1 - rate) * ref.mean + rate * np.median(s, axis=0)
        self._prepare()

    # ------------------------------------------------------------------ learning and storage

    @staticmethod
    def fit_ref(key: str, letter: str, samples: np.ndarray, shading: np.ndarray, open_: bool = False) -> ClassRef:
        """A reference from samples: a robust centre, and the samples' spread widened by half of
        `shading` (the default spread), since one calibration picture cannot show every light
        the board will be seen in."""
        samples = np.asarray(samples, np.float64)
        if len(samples) == 0:
            raise ValueError(f"no samples for class {key}")
        mean = np.median(samples, axis=0)
        dims = samples.shape[1]
        cov = np.cov(samples.T) * 2.0 if len(samples) >= 4 else np.zeros((dims, dims))
        cov = cov + 0.5 * np.asarray(shading, np.float64)
        return ClassRef(key, letter, mean, cov, open_)

    @staticmethod
    def learn_looks(
        samples: np.ndarray, labels: list[str], place: np.ndarray | None = None, floor: np.ndarray | None = None
    ) -> list[ClassRef]:
        """Looks of every label from labelled samples (N, D), e.g. the places of one picture.

        `place` numbers the place each sample came from (several samples of one place, taken a
        little off its point, are not independent): the number of distinct places is what a
        look's spread was measured on. A label whose places fall in clearly separate groups
        (light and dark squares) gets one look per group, found by splitting in two (2-means)
        while the halves lie further apart than the open-set distance. Each look's covariance
        is shrunk towards the spread pooled over all looks, with the weight of D places, so a
        look learned from one or two places gets the typical spread rather than its own
        accidental one, and widened by (1 + 1/places), the uncertainty of its mean; the model
        adds `floor` on top of it.
        """
        x = np.asarray(samples, np.float64)
        lab = np.asarray(labels)
        place = np.arange(len(x)) if place is None else np.asarray(place)
        dims = x.shape[1]
        floor_cov = np.diag(np.zeros(dims) if floor is None else np.asarray(floor, np.float64))
        limit = open_set_distance(dims)  # further apart than one look would be
        groups: list[tuple[str, np.ndarray]] = []
        for letter in sorted(set(labels)):
            idx = np.flatnonzero(lab == letter)
            groups += [(letter, g) for g in _split(x, place, idx, floor_cov, limit)]
        stats = []
        for letter, idx in groups:
            n = len(np.unique(place[idx]))
            cov = np.cov(x[idx].T) if len(idx) > 1 else np.zeros((dims, dims))
            stats.append((letter, x[idx].mean(axis=0), np.atleast_2d(cov), n))
        weight = sum(max(n - 1, 0) for *_, n in stats)
        pooled = sum(max(n - 1, 0) * c for _, _, c, n in stats) / weight if weight else np.zeros((dims, dims))
        refs = []
        count: dict[str, int] = {}
        for letter, mean, cov, n in stats:
            k = count[letter] = count.get(letter, 0) + 1
            # The spread of new samples about a mean measured on n places is (1 + 1/n) times
            # the look's own: the mean itself is only known to within cov / n.
            shrunk = (n * cov + dims * pooled) / (n + dims) * (1 + 1 / n)
            refs.append(ClassRef(letter if k == 1 else f"{letter}#{k}", letter, mean, shrunk))
        return refs

    def replaced(self, refs: list[ClassRef]) -> ClassModel:
        """This model with the references of the same keys replaced (others kept)."""
        new = {r.key: r for r in refs}
        kept = [new.pop(r.key, r) for r in self.refs]
        return ClassModel(kept + list(new.values()), self.max_distance, self.min_margin, self.floor, self.pair_margins)

    def to_yaml(self) -> dict:
        return {
            "classes": {
                r.key: {
                    "letter": r.letter,
                    "open": bool(r.open),
                    "mean": [round(float(v), 5) for v in r.mean],
                    "cov": [[round(float(v), 7) for v in row] for row in np.asarray(r.cov)],
                }
                for r in self.refs
            },
            "sure": {
                "max_distance": self.max_distance,
                "min_margin": self.min_margin,
                **(
                    {"pair_margins": [[a, b, round(float(m), 5)] for (a, b), m in sorted(self.pair_margins.items())]}
                    if self.pair_margins
                    else {}
                ),
            },
        }

    @classmethod
    def from_yaml(
        cls, data: dict, path: str = "vision", dims: int = 3, letters: Collection[str] | None = None
    ) -> ClassModel:
        """The model a profile's `vision:` (or a lattice model's file) stores: its `classes` and how
        `sure` it is, checked (`References`), each mistake named by its key path under `path`;
        `letters`, when given, are the letters a class may stand for."""
        picked = {key: data[key] for key in References.known_keys() if key in data} if isinstance(data, dict) else {}
        checked = validate(References, picked, prefix=path, context={"dims": dims, "letters": letters})
        refs = [
            ClassRef(
                str(key), ref.letter, np.array(ref.mean, np.float64), np.array(ref.cov, np.float64), bool(ref.open)
            )
            for key, ref in checked.classes.items()
        ]
        sure = checked.sure
        return cls(
            refs,
            float(sure.max_distance if sure.max_distance is not None else open_set_distance(dims)),
            float(sure.min_margin),
            pair_margins={(a, b): float(m) for a, b, m in sure.pair_margins},
        )


# --------------------------------------------------------------------------- the stored references, checked


def _dims(info: ValidationInfo) -> int:
    return int((info.context or {}).get("dims", 3))


def _numbers(value: Any, info: ValidationInfo) -> list:
    n = _dims(info)
    if (
        not isinstance(value, list)
        or len(value) != n
        or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value)
    ):
        raise sentence(_("expected a list of {n} numbers, got {value}", n=n, value=literal(repr(value))))
    return value


def _letter(value: Any, info: ValidationInfo) -> str:
    if not isinstance(value, str) or len(value) != 1:
        raise sentence(_("expected one character, got {value}", value=literal(repr(value))))
    letters = (info.context or {}).get("letters")
    if letters is not None and value not in letters:
        raise sentence(
            _(
                "{letter} is not one of this game's classes ({value})",
                letter=repr(value),
                value=" ".join(sorted(letters)),
            )
        )
    return value


def _covariance(value: Any, info: ValidationInfo) -> list:
    n = _dims(info)
    if not isinstance(value, list) or len(value) != n:
        raise sentence(_("expected {n} rows of {n} numbers", n=n))
    cov = np.array([_numbers(row, info) for row in value], np.float64)
    if not np.all(np.linalg.eigvalsh((cov + cov.T) / 2) >= -1e-9):
        raise sentence(_("a covariance must be symmetric and not negative"))
    return value


class ClassReference(LearnedSection):
    """One look: the letter it stands for, its mean and covariance in feature space."""

    not_a_mapping: ClassVar[str] = N_("expected a mapping with letter, mean and cov")

    letter: Annotated[str, checked(_letter)] = Field(default=None, validate_default=True)
    #: An open point of Stay Alive (the dark space under the board): empty, but not a floor.
    open: Any = False
    mean: Annotated[list[float], checked(_numbers)] = Field(default=None, validate_default=True)
    cov: Annotated[list[list[float]], checked(_covariance)] = Field(default=None, validate_default=True)


def _positive(value: Any) -> Any:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
        raise sentence(_("expected a positive number, got {value}", value=literal(repr(value))))
    return value


def _pair_margins(value: Any) -> list:
    """[[letter read, rival letter, margin], ...]."""
    if not isinstance(value, list):
        raise sentence(_("expected a list of [letter, rival letter, margin]"))
    for item in value:
        if (
            not isinstance(item, list)
            or len(item) != 3
            or not all(isinstance(x, str) and len(x) == 1 for x in item[:2])
            or isinstance(item[2], bool)
            or not isinstance(item[2], (int, float))
            or not 0 <= item[2] < 1
        ):
            raise sentence(
                _("expected [letter, rival letter, margin from 0 to 1], got {item}", item=literal(repr(item)))
            )
    return value


class Sureness(LearnedSection):
    """How sure a reading must be (see the module's docstring)."""

    not_a_mapping: ClassVar[str] = N_("expected a mapping with max_distance and min_margin")

    #: None: the open-set distance of the features' dimension.
    max_distance: Annotated[float | None, checked(_positive)] = None
    min_margin: Annotated[float, checked(_positive)] = 0.3
    pair_margins: Annotated[list[Any], checked(_pair_margins)] = []


def _some_references(value: Any) -> Any:
    if not isinstance(value, dict):
        raise sentence(_("expected a mapping of class references"))
    if not value:
        raise sentence(_("at least one class reference is needed"))
    return value


class References(LearnedSection):
    """A model's stored references: its looks by key, and how sure a reading must be."""

    classes: Annotated[dict[Any, ClassReference], checked(_some_references)] = Field(
        default=None, validate_default=True
    )
    sure: Sureness = Sureness()


def _split(
    x: np.ndarray, place: np.ndarray, idx: np.ndarray, floor_cov: np.ndarray, limit: float, depth: int = 0
) -> list[np.ndarray]:
    """`idx` in one group, or split in two (2-means over whole places) when the halves are
    further apart than `limit` in their pooled covariance; each half needs two places."""
    places = np.unique(place[idx])
    if depth >= 3 or len(places) < 4:
        return [idx]
    centre = np.stack([x[idx][place[idx] == p].mean(axis=0) for p in places])
    spread = np.sqrt(np.diag(np.cov(centre.T)) + np.diag(floor_cov) + 1e-12)
    z = centre / spread
    # 2-means from the two places furthest apart along the main direction.
    _, _, vt = np.linalg.svd(z - z.mean(axis=0), full_matrices=False)
    proj = (z - z.mean(axis=0)) @ vt[0]
    c = np.stack([z[proj.argmin()], z[proj.argmax()]])
    for _ in range(20):
        side = ((z[:, None, :] - c[None]) ** 2).sum(axis=2).argmin(axis=1)
        if side.min() == side.max():
            return [idx]
        new = np.stack([z[side == 0].mean(axis=0), z[side == 1].mean(axis=0)])
        if np.allclose(new, c):
            break
        c = new
    if min((side == 0).sum(), (side == 1).sum()) < 2:
        return [idx]
    halves = [centre[side == 0], centre[side == 1]]
    pooled = sum((len(h) - 1) * np.atleast_2d(np.cov(h.T)) for h in halves) / (len(centre) - 2) + floor_cov
    d = halves[0].mean(axis=0) - halves[1].mean(axis=0)
    if float(np.sqrt(d @ np.linalg.solve(pooled + 1e-12 * np.eye(len(d)), d))) <= limit:
        return [idx]
    out = []
    for s in (0, 1):
        member = np.isin(place[idx], places[side == s])
        out += _split(x, place, idx[member], floor_cov, limit, depth + 1)
    return out
