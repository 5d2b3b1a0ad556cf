"""Class references and confidence.

Each class has a mean and a covariance in feature space, learned from samples (calibration) or
shipped as defaults. A place is given the nearest class by Mahalanobis distance; it is *sure*
only when that class is close in absolute terms (the patch looks like something we know) and
clearly nearer than the nearest class with a different meaning. Anything else is unsure and is
reported as such, never guessed.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from controller.errors import ConfigError

#: A covariance floor: no class is trusted to be tighter than this (feature units squared).
MIN_VAR = np.array([0.04**2, 0.012**2, 0.012**2])


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


class ClassModel:
    """Nearest-class decisions with a confidence per place."""

    def __init__(self, refs: list[ClassRef], max_distance: float = 4.5, min_margin: float = 0.3):
        if not refs:
            raise ConfigError("vision.classes", "at least one class reference is needed")
        self.refs = refs
        self.max_distance = max_distance
        self.min_margin = min_margin
        self._prepare()

    def _prepare(self) -> None:
        self.means = np.stack([r.mean for r in self.refs]).astype(np.float64)
        covs = []
        for r in self.refs:
            c = np.asarray(r.cov, np.float64) + np.diag(MIN_VAR)
            covs.append(np.linalg.inv(c))
        self.inv = np.stack(covs)
        meanings = [r.meaning() for r in self.refs]
        self.same = np.array([[a == b for b in meanings] for a in meanings])

    def distances(self, feats: np.ndarray) -> np.ndarray:
        """(N, K) Mahalanobis distances."""
        d = feats[:, None, :] - self.means[None, :, :]
        q = np.einsum("nki,kij,nkj->nk", d, self.inv, d)
        return np.sqrt(np.maximum(q, 0))

    def decide(self, feats: np.ndarray) -> Decision:
        dist = self.distances(feats)
        best = dist.argmin(axis=1)
        d1 = dist[np.arange(len(feats)), best]
        other = np.where(self.same[best], np.inf, dist)
        d2 = other.min(axis=1)
        margin = np.where(np.isfinite(d2), (d2 - d1) / np.maximum(d2, 1e-9), 1.0)
        closeness = np.clip(1.5 - d1 / self.max_distance, 0, 1)
        confidence = np.clip(margin, 0, 1) * closeness
        sure = (d1 <= self.max_distance) & (margin >= self.min_margin)
        return Decision(
            keys=[self.refs[b].key for b in best],
            letters=[self.refs[b].letter for b in best],
            sure=sure,
            confidence=confidence,
            distance=d1,
            open=np.array([self.refs[b].open for b in best]),
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
    def fit_ref(key: str, letter: str, samples: np.ndarray, shading: np.ndarray,
                open_: bool = False) -> ClassRef:
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

    def replaced(self, refs: list[ClassRef]) -> ClassModel:
        """This model with the references of the same keys replaced (others kept)."""
        new = {r.key: r for r in refs}
        kept = [new.pop(r.key, r) for r in self.refs]
        return ClassModel(kept + list(new.values()), self.max_distance, self.min_margin)

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
            "sure": {"max_distance": self.max_distance, "min_margin": self.min_margin},
        }

    @classmethod
    def from_yaml(cls, data: dict, path: str = "vision", dims: int = 3) -> ClassModel:
        if not isinstance(data, dict) or not isinstance(data.get("classes"), dict):
            raise ConfigError(f"{path}.classes", "expected a mapping of class references")
        refs = []
        for key, ref in data["classes"].items():
            p = f"{path}.classes.{key}"
            if not isinstance(ref, dict):
                raise ConfigError(p, "expected a mapping with letter, mean and cov")
            unknown = set(ref) - {"letter", "open", "mean", "cov"}
            if unknown:
                raise ConfigError(f"{p}.{sorted(unknown)[0]}", "unknown key; known: letter, open, mean, cov")
            letter = ref.get("letter")
            if not isinstance(letter, str) or len(letter) != 1:
                raise ConfigError(f"{p}.letter", f"expected one character, got {letter!r}")
            mean = _numbers(ref.get("mean"), f"{p}.mean", dims)
            cov_raw = ref.get("cov")
            if not isinstance(cov_raw, list) or len(cov_raw) != dims:
                raise ConfigError(f"{p}.cov", f"expected {dims} rows of {dims} numbers")
            cov = np.stack([_numbers(row, f"{p}.cov", dims) for row in cov_raw])
            if not np.all(np.linalg.eigvalsh((cov + cov.T) / 2) >= -1e-9):
                raise ConfigError(f"{p}.cov", "a covariance must be symmetric and not negative")
            refs.append(ClassRef(str(key), letter, mean, cov, bool(ref.get("open", False))))
        sure = data.get("sure", {})
        if not isinstance(sure, dict):
            raise ConfigError(f"{path}.sure", "expected a mapping with max_distance and min_margin")
        max_d = sure.get("max_distance", 4.5)
        min_m = sure.get("min_margin", 0.3)
        for name, v in (("max_distance", max_d), ("min_margin", min_m)):
            if isinstance(v, bool) or not isinstance(v, (int, float)) or v <= 0:
                raise ConfigError(f"{path}.sure.{name}", f"expected a positive number, got {v!r}")
        return cls(refs, float(max_d), float(min_m))


def _numbers(value, path: str, n: int) -> np.ndarray:
    if (
        not isinstance(value, list)
        or len(value) != n
        or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value)
    ):
        raise ConfigError(path, f"expected a list of {n} numbers, got {value!r}")
    return np.array(value, np.float64)
