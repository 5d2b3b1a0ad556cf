"""The camera's pose over the board, from the markers' homography: where a piece's top appears.

A homography maps the board's plane (the markers' plane) to the picture; a point above that plane
(the top of a tile, the middle of a ball) appears elsewhere: further from the point under the
camera, by its height over the camera's height. The homography of a plane seen by a pinhole
camera is K [r1 r2 t] (up to scale), K the camera's intrinsics and r1, r2 the board's axes in the
camera's frame; with K known (the focal length in pixels, the principal point at the picture's
centre) the pose follows, and with it the image of any point at any height.

The focal length is measured from the homography itself where the board is seen at a slant (the
two columns of K^-1 H must be orthogonal and of equal length: two equations in 1/f^2), and taken
from the field of view of a common camera (66 degrees across, a Pi camera module 3; webcams are
60-78) where the view is too near straight down to tell: there a focal length off by a fifth moves
a piece's top by a fifth of its parallax, a few hundredths of a pitch.

Board coordinates are pitches, x to the right and y down the lattice (as everywhere in vision);
height is measured towards the camera.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

#: The horizontal field of view assumed when the picture cannot tell (a Pi camera module 3).
DEFAULT_FOV = 66.0
#: Fields of view a measured focal length may give; outside them the measurement is not trusted.
FOV_RANGE = (25.0, 125.0)
#: The uncertainty of the focal equations' plane terms (see `focal_from_homography`): measured on
#: synthetic views with the markers' corners off by 0.3 pixel in a 960-pixel picture.
PLANE_NOISE = 0.002


def default_focal(width: int, fov: float = DEFAULT_FOV) -> float:
    """The focal length in pixels of a camera `fov` degrees across a picture `width` pixels wide."""
    return width / 2 / math.tan(math.radians(fov) / 2)


def focal_from_homography(h: np.ndarray, size: tuple[int, int], prior: float | None = None) -> float:
    """The focal length (pixels) the homography implies, principal point at the picture's centre,
    square pixels, blended with `prior` (default: `DEFAULT_FOV`'s) as far as the view is too near
    straight down to tell.

    With the principal point moved to the origin, picture coordinates scaled so that the half width
    is 1, H = [h1 h2 h3] and K = diag(f, f, 1), the board's axes K^-1 h1 and K^-1 h2 are orthogonal
    and of equal length, two equations linear in x = 1 / f^2:

        (h11 h12 + h21 h22) x + h31 h32 = 0
        (h11^2 + h21^2 - h12^2 - h22^2) x + h31^2 - h32^2 = 0

    solved together in the least-squares sense. Seen straight down both sides vanish and x is
    anything; the markers' corners, found to a third of a pixel, leave the first terms' size
    uncertain by about `PLANE_NOISE`, so the measurement's weight is its size squared over that
    noise's (a view 5 degrees off the vertical is measured to about 5%, one 2 degrees off is not)."""
    w, ht = size
    half = w / 2
    x0 = (half / (prior or default_focal(w))) ** 2
    m = np.diag([1 / half, 1 / half, 1.0]) @ np.array([[1.0, 0.0, -half], [0.0, 1.0, -ht / 2], [0.0, 0.0, 1.0]])
    m = m @ np.asarray(h, np.float64)
    m = m / np.linalg.norm(m[:2, :2])
    (a, b, _), (c, d, _), (e, g, _) = m
    plane = np.array([a * b + c * d, a * a + c * c - b * b - d * d])
    slant = np.array([e * g, e * e - g * g])
    size2 = float(plane @ plane)
    if size2 <= 0:
        return half / math.sqrt(x0)
    lo, hi = (math.tan(math.radians(v) / 2) ** 2 for v in FOV_RANGE)  # x = tan(fov / 2)^2
    x = min(max(-float(slant @ plane) / size2, lo), hi)
    weight = size2 / (size2 + PLANE_NOISE**2)
    return half / math.sqrt(weight * x + (1 - weight) * x0)


@dataclass(frozen=True)
class CameraPose:
    """A pinhole camera over the board: intrinsics `k`, rotation `r` and translation `t` taking board
    points (x, y, z; z away from the camera) into the camera's frame."""

    k: np.ndarray
    r: np.ndarray
    t: np.ndarray

    @classmethod
    def from_homography(cls, h: np.ndarray, size: tuple[int, int], focal: float | None = None) -> CameraPose:
        """The pose the board-to-picture homography `h` implies for a camera of focal length `focal`
        (pixels; measured from `h` when not given, else the default field of view's)."""
        w, ht = size
        f = focal or focal_from_homography(h, size)
        k = np.array([[f, 0.0, w / 2], [0.0, f, ht / 2], [0.0, 0.0, 1.0]])
        a = np.linalg.solve(k, np.asarray(h, np.float64))
        lam = 2 / (np.linalg.norm(a[:, 0]) + np.linalg.norm(a[:, 1]))
        if a[2, 2] * lam < 0:  # the board lies in front of the camera
            lam = -lam
        r1, r2, t = a[:, 0] * lam, a[:, 1] * lam, a[:, 2] * lam
        u, _, vt = np.linalg.svd(np.stack([r1, r2, np.cross(r1, r2)], axis=1))
        r = u @ vt
        return cls(k, r, t)

    def project(self, pts: np.ndarray, height: np.ndarray | float = 0.0) -> np.ndarray:
        """Picture points (N, 2) of board points (N, 2) raised `height` pitches towards the camera."""
        pts = np.asarray(pts, np.float64).reshape(-1, 2)
        z = -np.broadcast_to(np.asarray(height, np.float64), (len(pts),))
        cam = np.stack([pts[:, 0], pts[:, 1], z], axis=1) @ self.r.T + self.t
        img = cam @ self.k.T
        return img[:, :2] / img[:, 2:3]

    @property
    def height(self) -> float:
        """The camera's height over the board's plane, in pitches."""
        centre = -self.r.T @ self.t
        return float(-centre[2])

    def seen_from_above(self, h: np.ndarray, pts: np.ndarray, height: float) -> np.ndarray:
        """Board-plane points (N, 2) that the picture shows where the points `pts` raised `height`
        pitches appear: where to sample a body of that height in the rectified board. Exact at
        height 0 (the homography's own points)."""
        pts = np.asarray(pts, np.float64).reshape(-1, 2)
        if height == 0:
            return pts.copy()
        shift = self.project(pts, height) - self.project(pts, 0.0)
        base = np.hstack([pts, np.ones((len(pts), 1))]) @ np.asarray(h, np.float64).T
        img = base[:, :2] / base[:, 2:3] + shift
        back = np.hstack([img, np.ones((len(img), 1))]) @ np.linalg.inv(h).T
        return back[:, :2] / back[:, 2:3]


def homography_at(pose: CameraPose, h: np.ndarray, height: float) -> np.ndarray:
    """The homography of the plane `height` pitches above the board: board point (x, y) to the picture
    point of (x, y) raised by `height`. The pose's own homography differs from `h` by the markers'
    noise: that difference is kept, so that height 0 gives `h` itself."""
    r1, r2, r3 = pose.r[:, 0], pose.r[:, 1], pose.r[:, 2]
    at_zero = pose.k @ np.stack([r1, r2, pose.t], axis=1)
    raised = pose.k @ np.stack([r1, r2, pose.t - height * r3], axis=1)
    out = np.asarray(h, np.float64) @ np.linalg.solve(at_zero, raised)
    return out / out[2, 2]
