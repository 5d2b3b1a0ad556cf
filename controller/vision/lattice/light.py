"""Stages *rectify* and *light* of the lattice reader: the lattice warped upright as a log-colour
image, and the light over it measured from the board itself.

The light is estimated at the "between" points half a pitch diagonally from the places (the
centres of the cells' corners), which a piece rarely covers: a smooth low-order surface is fitted,
robustly and per colour channel, to their log colour. It holds exposure, colour cast (a grey-world
estimate over the board's own material), gradient and vignetting, all of which multiply each
channel and so add in log space. What a smooth surface cannot follow (a folding board's hinge, a
window's edge) the board at the four corners of a place's cell shows (`local_light`). A between
point darker than the fit by the same amount in every channel is the board in a shadow
(`shadowed`); one the fit rejects otherwise shows something other than the board.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from controller.vision.classify import open_set_distance
from controller.vision.features import SATURATED, PatchSampler, Rectifier, ring_offsets
from controller.vision.geometry import LatticeGeometry, check_corners, homography_from_corners

PPP = 24  # rectified pixels per pitch
EPS = 0.02  # added before the log so that black stays finite (and its noise small)
BETWEEN = 0.1  # pitches: the small disc sampled at each between point
#: log colour at and above which a channel is clipped (the camera's full scale, `SATURATED`)
CLIPPED_LOG = float(np.log(SATURATED / 255 + EPS))
#: log light below which a channel is dark: the board sends back less than `EPS` there, the floor added
#: before the log, so every surface's log contrast to it is squeezed to less than half and mostly noise (an
#: amber lamp of one narrow band leaves the blue channel black: a white stone and the wooden board then differ
#: only in what the other channels show). The photographs' boards send back at least 0.08 in every channel,
#: dim and coloured lamps included; under the amber lamp of `bench/relit.py`, 0.004-0.026 in blue (measured,
#: not chosen: the places above the floor, 0.022-0.026 on one chessboard, are still read).
DARK_LOG = float(np.log(2 * EPS))


def dark(light: np.ndarray) -> np.ndarray:
    """(N, 3) bools: the channels in which the log light at each place (`light`, (N, 3)) is dark (`DARK_LOG`)."""
    return np.asarray(light) < DARK_LOG


FLOOR = 0.05  # least spread of any feature within a look (log units, ~5%: light the smooth fit misses)


def rectified_log(image: np.ndarray, size: tuple[int, int], corners: np.ndarray) -> np.ndarray:
    """The lattice (plus one pitch around it) as an upright log-colour image at PPP per pitch.

    Only the lattice's bounding box is kept, and shrunk by area averaging first when the pitch
    is much larger than PPP (a 12-megapixel photograph), so the warp neither skips pixels nor
    spends time on the whole picture: the pitch in pixels matters, not the image size.
    """
    rows, cols = size
    corners = np.asarray(corners, np.float64)
    check_corners(corners, (image.shape[1], image.shape[0]))
    if image.ndim == 2:
        image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    pitch = max(
        np.linalg.norm(corners[1] - corners[0]) / (cols - 1), np.linalg.norm(corners[3] - corners[0]) / (rows - 1)
    )
    pad = 1.5 * pitch
    x0 = int(max(0, np.floor(corners[:, 0].min() - pad)))
    y0 = int(max(0, np.floor(corners[:, 1].min() - pad)))
    x1 = int(min(image.shape[1], np.ceil(corners[:, 0].max() + pad)))
    y1 = int(min(image.shape[0], np.ceil(corners[:, 1].max() + pad)))
    crop = image[y0:y1, x0:x1]
    corners = corners - [x0, y0]
    f = 1.5 * PPP / pitch
    if f < 1:
        w, h = max(1, int(round(crop.shape[1] * f))), max(1, int(round(crop.shape[0] * f)))
        fx, fy = w / crop.shape[1], h / crop.shape[0]
        crop = cv2.resize(crop, (w, h), interpolation=cv2.INTER_AREA)
        corners = (corners + 0.5) * [fx, fy] - 0.5
    geom = LatticeGeometry(rows, cols)
    homography = homography_from_corners(geom, corners)
    rect = Rectifier(-1.0, -1.0, cols, rows, PPP)
    warped = rect.warp(crop, homography).astype(np.float32)
    return np.log(warped * np.float32(1 / 255) + np.float32(EPS))


def to_px(pts: np.ndarray) -> np.ndarray:
    return (np.asarray(pts, np.float64) + 1.0) * PPP


def terms(pts: np.ndarray, size: tuple[int, int], quadratic: bool) -> np.ndarray:
    """Polynomial terms of board points, coordinates scaled to [-1, 1] over the lattice."""
    rows, cols = size
    u = pts[:, 0] / max(cols - 1, 1) * 2 - 1
    v = pts[:, 1] / max(rows - 1, 1) * 2 - 1
    t = [np.ones_like(u), u, v]
    if quadratic:
        t += [u * u, u * v, v * v]
    return np.stack(t, axis=1)


def illumination(logimg: np.ndarray, size: tuple[int, int]) -> tuple[np.ndarray, bool]:
    """Per channel, coefficients of a smooth log-light surface over the lattice, fitted robustly
    (Tukey-weighted) to the between points; quadratic when there are enough of them."""
    light = illumination_fit(logimg, size)
    return light.coef, light.quadratic


@dataclass
class Light:
    """The fitted light (`illumination`); `resid` ((rows+1, cols+1, 3)) the log colour of every
    between point minus the fitted light there; `rejected` ((rows+1, cols+1) bools) the points
    the fit rejected in some channel (what shows there is not the board under the fitted light);
    `board` (3, 3), how the bare board's log colour scatters about the fit at the points it kept;
    `clipped` ((rows+1, cols+1, 3) bools) the points clipped in a channel (the light there is a
    lower bound)."""

    coef: np.ndarray
    quadratic: bool
    resid: np.ndarray
    rejected: np.ndarray
    board: np.ndarray
    clipped: np.ndarray | None = None


def illumination_fit(logimg: np.ndarray, size: tuple[int, int]) -> Light:
    rows, cols = size
    ys, xs = np.mgrid[0 : rows + 1, 0 : cols + 1]
    pts = np.stack([xs.ravel() - 0.5, ys.ravel() - 0.5], axis=1).astype(np.float64)
    sampler = PatchSampler(to_px(pts), ring_offsets(0, BETWEEN * PPP), logimg.shape[:2])
    vals = sampler.values(logimg).mean(axis=1).astype(np.float64)  # (M, 3)
    quadratic = len(pts) >= 25
    a = terms(pts, size, quadratic)
    ridge = np.diag([0.0] + [0.5] * (a.shape[1] - 1))
    coef = np.zeros((a.shape[1], 3))
    rejected = np.zeros(len(pts), bool)
    for ch in range(3):
        y = vals[:, ch]
        w = np.ones(len(y))
        for _ in range(6):
            aw = a * w[:, None]
            coef[:, ch] = np.linalg.solve(aw.T @ a + ridge * w.sum() / len(w), aw.T @ y)
            r = y - a @ coef[:, ch]
            s = 1.4826 * np.median(np.abs(r)) + 0.02
            w = np.clip(1 - (r / (4.685 * s)) ** 2, 0, None) ** 2
        rejected |= w == 0
    resid = vals - a @ coef
    kept = resid[~rejected]
    board = (np.cov(kept.T) if len(kept) > 3 else np.zeros((3, 3))) + np.eye(3) * FLOOR**2
    return Light(
        coef,
        quadratic,
        resid.reshape(rows + 1, cols + 1, 3),
        rejected.reshape(rows + 1, cols + 1),
        board,
        (vals >= CLIPPED_LOG).reshape(rows + 1, cols + 1, 3),
    )


def local_light(light_fit: Light) -> np.ndarray:
    """(N,) how much brighter (log) the board is at each place than the smooth fit says: the
    brightest of the four between points around it that the fit kept, in all channels alike.

    A smooth surface cannot follow the light across a folding board's hinge, a window's edge or
    a cast shadow, but the board at the corners of a place's cell sees the same light as the
    place. The brightest corner, because a shadow (a neighbour's, the place's own piece's) only
    darkens: one shadowed corner does not dim the place's light. Where the fit rejected all
    four, the smooth fit stays.
    """
    level = np.where(light_fit.rejected, -np.inf, light_fit.resid.mean(axis=2))
    brightest = np.maximum.reduce([level[:-1, :-1], level[:-1, 1:], level[1:, :-1], level[1:, 1:]])
    return np.where(np.isfinite(brightest), brightest, 0.0).ravel()


def shadowed(light_fit: Light) -> np.ndarray:
    """(rows+1, cols+1) between points that show the board in a shadow: darker than the fitted
    light by the same amount in every channel, up to the board's own scatter (the least, over a
    darkening s <= 0, of the Mahalanobis distance of resid - s within the open-set distance).
    A shadow takes light away and leaves the board's colour; what covers the board has a colour
    of its own."""
    inv = np.linalg.inv(light_fit.board)
    x = light_fit.resid
    u = inv.sum(axis=1)  # inv @ 1
    s = np.minimum(x @ u / u.sum(), 0.0)  # the best darkening
    d = x - s[..., None]
    return np.einsum("...i,ij,...j->...", d, inv, d) <= open_set_distance(3) ** 2
