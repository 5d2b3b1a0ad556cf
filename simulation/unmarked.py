"""A copy without the ArUco markers: the renderer's picture with each marker square painted over.

The renderer always prints the four markers (`simulation/render.py`); a copy bought in a shop has
none. Painting each marker and its paper with the board colour just outside it gives the picture such
a copy makes, with the renderer's own homography kept as the ground truth of where the lattice is.
"""

from __future__ import annotations

import cv2
import numpy as np

from controller.snapshot import Snapshot
from controller.vision.geometry import LatticeGeometry, project
from simulation.render import Scene, render_scene

#: Half side of the painted square, in marker sides (the renderer's paper square is 0.68).
PAINT = 0.75


def render_unmarked(
    snapshot: Snapshot,
    profile,
    *,
    seed: int = 0,
    preset: str = "clean",
    scene: Scene | None = None,
    size: tuple[int, int] = (1280, 720),
) -> tuple[np.ndarray, np.ndarray]:
    """The picture of `snapshot` on a copy without markers, and the board-to-image homography."""
    image, hom = render_scene(snapshot, profile, seed=seed, preset=preset, scene=scene, size=size)
    geom = LatticeGeometry.from_profile(profile)
    s = geom.marker_size * PAINT
    square = np.array([[-s, -s], [s, -s], [s, s], [-s, s]], np.float64)
    for centre in geom.marker_centres():
        # the board's colour a little inside the marker, towards the lattice (never the table)
        inward = centre + np.sign(geom.corner_points().mean(axis=0) - centre) * (s + 0.25)
        x, y = np.rint(project(hom, inward)[0]).astype(int)
        h, w = image.shape[:2]
        patch = image[max(0, y - 3) : min(h, y + 4), max(0, x - 3) : min(w, x + 4)].reshape(-1, 3)
        colour = tuple(int(v) for v in np.median(patch, axis=0)) if len(patch) else (0, 0, 0)
        cv2.fillConvexPoly(image, np.rint(project(hom, centre + square)).astype(np.int32), colour, cv2.LINE_AA)
    return image, hom
