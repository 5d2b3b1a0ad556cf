"""Generic lattice reading for any grid game, learned from labelled pictures.

Nothing here knows what our boards look like: a person gives the pixel positions of the
lattice's four corner points and, for one or more pictures, the label of every place. Each place
is described by colour statistics of a disc around its point (the middle and the centre, in
Lab) and how uneven the disc is (a stone against crossing grid lines, say). Reading is nearest
neighbours among the learned samples after scaling every feature by its spread within classes,
so several looks of one label (dark and light empty squares) need no special case. Samples are
also learned slightly darker and lighter, so a later picture under other light still reads.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from controller.errors import FormatError, RefereeError
from controller.vision.features import PatchSampler, Rectifier, ring_offsets
from controller.vision.geometry import (
    CornersError,
    LatticeGeometry,
    check_corners,
    homography_from_corners,
)

PPP = 24  # rectified pixels per pitch
MODEL_VERSION = 1


def parse_size(text: str) -> tuple[int, int]:
    """``"RxC"`` -> (R, C)."""
    parts = text.lower().replace("×", "x").split("x")
    try:
        if len(parts) != 2:
            raise ValueError
        r, c = int(parts[0]), int(parts[1])
    except ValueError:
        raise RefereeError(f"--size must look like 9x9 (rows x columns); got {text!r}") from None
    if not (2 <= r <= 100 and 2 <= c <= 100):
        raise RefereeError(f"--size: a lattice has 2 to 100 rows and columns; got {text!r}")
    return r, c


def parse_labels(text: str, size: tuple[int, int], where: str = "labels") -> list[list[str]]:
    """R lines of C one-character labels, spaces between them optional; blank lines ignored."""
    rows, cols = size
    grid = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line:
            continue
        tokens = line.split()
        cells = tokens if all(len(t) == 1 for t in tokens) else [ch for ch in line if ch != " "]
        if len(cells) != cols:
            raise FormatError(f"expected {cols} labels, found {len(cells)} in {line!r}",
                              f"{where}, line {number}")
        grid.append(cells)
    if len(grid) != rows:
        raise FormatError(f"expected {rows} lines of labels for a {rows}x{cols} lattice, "
                          f"found {len(grid)}", where)
    return grid


def load_image(path: str | Path) -> np.ndarray:
    if not Path(path).is_file():
        raise RefereeError(f"the image {path} does not exist")
    img = cv2.imread(str(path), cv2.IMREAD_COLOR)
    if img is None:
        raise RefereeError(f"cannot read the image {path}: not a picture OpenCV understands")
    return img


def _lab(img: np.ndarray) -> np.ndarray:
    return cv2.cvtColor(img.astype(np.float32) / 255, cv2.COLOR_BGR2LAB)


def place_features(image: np.ndarray, size: tuple[int, int], corners: np.ndarray) -> np.ndarray:
    """(rows*cols, 7) features: Lab of the disc, Lab of its centre, spread of lightness."""
    rows, cols = size
    corners = np.asarray(corners, np.float64)
    check_corners(corners, (image.shape[1], image.shape[0]))
    geom = LatticeGeometry(rows, cols)
    # Shrink big photographs first so the warp averages pixels instead of skipping them.
    pitch = np.mean([np.linalg.norm(corners[1] - corners[0]) / (cols - 1),
                     np.linalg.norm(corners[3] - corners[0]) / (rows - 1)])
    while pitch > 3 * PPP and min(image.shape[:2]) > 64:
        image = cv2.pyrDown(image)
        corners = (corners + 0.5) / 2 - 0.5
        pitch /= 2
    h = homography_from_corners(geom, corners)
    rect = Rectifier(-0.5, -0.5, cols - 0.5, rows - 0.5, PPP)
    lab = _lab(rect.warp(image, h))
    centres = rect.to_px(geom.points())
    shape = lab.shape[:2]
    disc = PatchSampler(centres, ring_offsets(0, 0.32 * PPP), shape).values(lab)
    core = PatchSampler(centres, ring_offsets(0, 0.14 * PPP), shape).values(lab)
    med = np.median(disc, axis=1)
    mid = np.median(core, axis=1)
    q = np.percentile(disc[:, :, 0], [20, 80], axis=1)
    return np.concatenate([med, mid, (q[1] - q[0])[:, None]], axis=1).astype(np.float64)


@dataclass
class LatticeModel:
    size: tuple[int, int]
    features: np.ndarray
    labels: list[str]
    scale: np.ndarray

    def to_json(self) -> str:
        return json.dumps({
            "kind": "referee-lattice-model",
            "version": MODEL_VERSION,
            "size": list(self.size),
            "scale": [float(v) for v in self.scale],
            "labels": "".join(self.labels),
            "features": [[round(float(v), 4) for v in row] for row in self.features],
        })

    @classmethod
    def load(cls, path: str | Path) -> LatticeModel:
        try:
            data = json.loads(Path(path).read_text("utf-8"))
        except OSError as exc:
            raise RefereeError(f"cannot read the model {path}: {exc.strerror}") from None
        except (ValueError, UnicodeDecodeError):
            raise RefereeError(f"{path} is not a lattice model written by 'referee lattice learn'") from None
        if not isinstance(data, dict) or data.get("kind") != "referee-lattice-model":
            raise RefereeError(f"{path} is not a lattice model written by 'referee lattice learn'")
        if data.get("version") != MODEL_VERSION:
            raise RefereeError(f"{path} is a lattice model of another version; learn it again")
        feats = np.array(data["features"], np.float64)
        return cls(tuple(data["size"]), feats, list(data["labels"]), np.array(data["scale"]))

    def read(self, feats: np.ndarray) -> tuple[list[str], np.ndarray]:
        """Each place's label and a confidence in [0, 1]."""
        f = feats / self.scale
        s = self.features / self.scale
        d = np.sqrt(((f[:, None, :] - s[None, :, :]) ** 2).sum(axis=2))
        classes = sorted(set(self.labels))
        lab = np.array(self.labels)
        scores = []
        for c in classes:
            dc = np.sort(d[:, lab == c], axis=1)[:, :3]
            scores.append(dc.mean(axis=1))
        scores = np.stack(scores, axis=1)
        order = np.argsort(scores, axis=1)
        best = scores[np.arange(len(f)), order[:, 0]]
        second = scores[np.arange(len(f)), order[:, 1]] if len(classes) > 1 else best * 0 + np.inf
        conf = np.clip(1 - best / np.maximum(second, 1e-9), 0, 1)
        return [classes[i] for i in order[:, 0]], conf


def learn(samples: list[tuple[np.ndarray, list[list[str]]]], size: tuple[int, int],
          corners: list[np.ndarray]) -> LatticeModel:
    """A model from (image, labels) pairs, each with its own lattice corners."""
    feats, labels = [], []
    for (image, grid), cor in zip(samples, corners):
        f = place_features(image, size, cor)
        feats.append(f)
        labels += [ch for row in grid for ch in row]
    x = np.concatenate(feats)
    lab = np.array(labels)
    # Within-class spread of every feature, pooled, never below a floor (in Lab units).
    floor = np.array([2.0, 1.5, 1.5, 2.0, 1.5, 1.5, 2.0])
    resid = np.concatenate([x[lab == c] - np.median(x[lab == c], axis=0) for c in set(labels)])
    scale = np.maximum(np.sqrt(np.mean(resid**2, axis=0)), floor)
    # A little light tolerance: each sample also learned darker and lighter.
    shifted = []
    for dl in (-6.0, 6.0):
        y = x.copy()
        y[:, 0] += dl
        y[:, 3] += dl
        shifted.append(y)
    x_all = np.concatenate([x, *shifted])
    return LatticeModel(size, x_all, labels * 3, scale)


def read(model: LatticeModel, image: np.ndarray, corners: np.ndarray) -> tuple[list[list[str]], np.ndarray]:
    rows, cols = model.size
    labels, conf = model.read(place_features(image, model.size, corners))
    grid = [labels[r * cols : (r + 1) * cols] for r in range(rows)]
    return grid, conf.reshape(rows, cols)


__all__ = ["CornersError", "LatticeModel", "learn", "load_image", "parse_labels", "parse_size",
           "place_features", "read"]
