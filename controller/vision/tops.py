"""Stage *piece tops*: each place described where a body of each class would appear in the picture.

A piece has height: seen by a camera off the vertical, the top of a tile or the middle of a ball
appears further from the point under the camera than the place it stands on (a ball 27 mm across
on a 40 mm pitch, seen 20 degrees off the vertical, about a tenth of a pitch), and a slot's floor
below the frame appears nearer. So every class of the model is compared with what the picture shows
at its own height: a piece's (`VisionSpec.solids`: a flat piece's top, a sphere's centre, whose
outline is centred on its image from anywhere), an empty look's (`VisionSpec.floors`, or the
opening it is seen through, `VisionSpec.openings`: the middle of what shows through a hole is on the
ray through the hole's middle, whatever lies below). The camera's pose follows from the markers'
homography (`pose.CameraPose`); seen straight down every height samples the place's own point.

A piece standing on a place is seen on its own patch, so a place read as a lower class (the floor) on a patch
clear of glare is in doubt where a taller class's patch is mostly glare: glare clips a bright piece before the
floor beside it, and a piece could stand there unseen (`hidden_above`).

Classes of one height share one sampling of the places, so a game whose pieces are all of one
height and whose empty places show the board costs two samplings per frame instead of one.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from controller.snapshot import EMPTY
from controller.vision.classify import ClassModel
from controller.vision.features import PatchSampler, Rectifier, colour_features
from controller.vision.light import normalise
from controller.vision.pose import CameraPose, homography_at


def class_heights(vision, model: ClassModel) -> dict[str, float]:
    """The height (pitches above the markers' plane) at which each class of `model` is seen."""
    out = {}
    for ref in model.refs:
        if ref.letter == EMPTY:
            z = vision.openings.get(ref.key, vision.floors.get(ref.key, 0.0))
        else:
            solid = vision.solids.get(ref.letter)
            z = solid.seen_at if solid is not None else 0.0
        out[ref.key] = round(float(z), 4)
    return out


@dataclass
class PlaceLooks:
    """What each place shows at each class's height: features (N, 3) and the glare-free fraction of
    the patch (N,) per height, and each class key's height; `medians` (N, 3) the patches' colours
    in grey levels per height (what a clipped channel's bounds are read on, `light.LightDoubt`)."""

    heights: dict[str, float]
    at: dict[float, tuple[np.ndarray, np.ndarray]]
    medians: dict[float, np.ndarray] = field(default_factory=dict)

    def of(self, key: str) -> tuple[np.ndarray, np.ndarray]:
        """Every place's features and glare-free fraction where a body of class `key` would appear."""
        return self.at[self.heights.get(key, 0.0)]

    def distances(self, model: ClassModel, by_height: dict[float, np.ndarray] | None = None) -> np.ndarray:
        """(N, K) distances of each place to each class, each measured at the class's height (`by_height`: every
        class's distances at each height, `distances_by_height`, when the caller has them)."""
        if by_height is None:
            by_height = self.distances_by_height(model)
        cols = [by_height[self.heights.get(r.key, 0.0)][:, j] for j, r in enumerate(model.refs)]
        return np.stack(cols, axis=1)

    def distances_by_height(self, model: ClassModel) -> dict[float, np.ndarray]:
        """Per height, (N, K) the distances of each place's patch there to every class."""
        return {z: model.distances(f) for z, (f, _) in self.at.items()}

    def chosen(self, keys: list[str]) -> tuple[np.ndarray, np.ndarray]:
        """Per place the features and glare-free fraction at the height of the class in `keys`."""
        zs = np.array([self.heights.get(k, 0.0) for k in keys])
        feats = np.empty_like(next(iter(self.at.values()))[0])
        used = np.empty(len(keys))
        for z, (f, u) in self.at.items():
            m = zs == z
            feats[m], used[m] = f[m], u[m]
        return feats, used

    def hidden_above(self, keys: list[str], least: float) -> np.ndarray:
        """(N,) places whose patch at the height of their class in `keys` has at least `least` free of glare
        while a class seen higher (a piece above an empty place's floor) has less: glare clips a bright piece
        before the floor beside it, so the clear floor does not rule out a piece hidden there (Flipop hand_check
        seed 1761: a white ball under a lamp's reflection read as the floor around it plus white light). Where
        the place's own patch is as hidden, what is left of it is read without the reflection's halo
        (`halo.HaloCheck.settle`, which asks the same of the pixels it leaves read)."""
        zs = np.array([self.heights.get(k, 0.0) for k in keys])
        _feats, own = self.chosen(keys)
        out = np.zeros(len(keys), bool)
        for z, (_f, u) in self.at.items():
            out |= (z > zs) & (u < least) & (own >= least)
        return out

    def chosen_medians(self, keys: list[str]) -> np.ndarray:
        """Per place the patch colour (grey levels) at the height of the class in `keys`."""
        zs = np.array([self.heights.get(k, 0.0) for k in keys])
        out = np.empty_like(next(iter(self.medians.values())))
        for z, med in self.medians.items():
            out[zs == z] = med[zs == z]
        return out

    def relit(self, white: np.ndarray, weights: np.ndarray) -> PlaceLooks:
        """The same patches relative to another paper white."""
        at = {z: (colour_features(normalise(self.medians[z], white, weights)), u) for z, (_, u) in self.at.items()}
        return PlaceLooks(self.heights, at, self.medians)


class PieceTops:
    """The places' patches in the rectified board, per height, for the homography of the frame."""

    def __init__(
        self, points: np.ndarray, rect: Rectifier, offsets: np.ndarray, heights: dict[str, float], weights: np.ndarray
    ) -> None:
        self.points = points
        self.rect = rect
        self.offsets = offsets
        self.heights = heights
        self.weights = weights  # the paper white's weights at the places' points
        self.levels = sorted(set(heights.values()))
        self._key: tuple[np.ndarray, tuple[int, int]] | None = None
        self._samplers: dict[float, PatchSampler] = {}
        self._pose: tuple[np.ndarray, tuple[int, int], CameraPose] | None = None

    def pose(self, h: np.ndarray, size: tuple[int, int]) -> CameraPose:
        """The camera's pose for homography `h` in a picture of `size` (width, height), kept while
        the homography stays."""
        if self._pose is None or self._pose[1] != size or not np.array_equal(self._pose[0], h):
            self._pose = (np.array(h, copy=True), size, CameraPose.from_homography(h, size))
        return self._pose[2]

    def raised(self, h: np.ndarray, size: tuple[int, int], height: float) -> np.ndarray:
        """The homography of the plane `height` pitches above the board (`h` itself at 0)."""
        return h if height == 0 else homography_at(self.pose(h, size), h, height)

    def samplers(self, h: np.ndarray, size: tuple[int, int]) -> dict[float, PatchSampler]:
        """Per height, the places' patches for homography `h` in a picture of `size` (width, height)."""
        if self._key is not None and self._key[1] == size and np.array_equal(self._key[0], h):
            return self._samplers
        shape = self.rect.size[::-1]
        out = {}
        for z in sorted(set(self.levels) | {0.0}):
            pts = self.points if z == 0 else self.pose(h, size).seen_from_above(h, self.points, z)
            out[z] = PatchSampler(self.rect.to_px(pts), self.offsets, shape)
        self._key, self._samplers = (np.array(h, copy=True), size), out
        return out

    def describe(
        self, rect: np.ndarray, white: np.ndarray, h: np.ndarray, size: tuple[int, int], at_points: bool = False
    ) -> PlaceLooks:
        """Every place's colour features relative to the paper white, at every class's height (and at
        the places' own points, height 0, with `at_points`)."""
        at, medians = {}, {}
        samplers = self.samplers(h, size)
        for z in sorted(set(self.levels) | ({0.0} if at_points else set())):
            med, used = samplers[z].medians(rect)
            at[z], medians[z] = (colour_features(normalise(med, white, self.weights)), used), med
        return PlaceLooks(self.heights, at, medians)
