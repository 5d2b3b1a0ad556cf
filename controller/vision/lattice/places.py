"""Stage *describe places* of the lattice reader: every place's features relative to the light,
its flatness, and whether the board is hidden around it.

* A place is the log colour of a disc of 0.35 pitch around its point minus the light there: the
  median per channel over the disc and over its core, and the 20th and 80th lightness
  percentiles (how uneven it is: a stone against crossing grid lines). Medians ignore a
  highlight, the grain and a piece's shaded rim.
* Pieces a little off their point and corner points a few pixels off: each place is also
  sampled at four positions 0.1 pitch away; learning keeps them all as looks of the label, and
  reading takes, per label, the position that matches best.
* Beside the looks, a description that does not depend on the board (`flatness`): an empty
  place is the flat board, even over its disc and of its cell corners' colour; a piece is a
  solid that is not.
* A hand, a sleeve, a cup: not a shadow, not a piece's own footprint on the side away from the
  camera, but something hiding the board between the places (`describe`).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from controller.matching import everyone_matched
from controller.vision import bounds
from controller.vision.classify import open_set_distance
from controller.vision.features import PatchSampler, ring_offsets
from controller.vision.geometry import LatticeGeometry, homography_from_corners
from controller.vision.lattice.light import (
    CLIPPED_LOG,
    PPP,
    Light,
    dark,
    illumination_fit,
    local_light,
    rectified_log,
    shadowed,
    terms,
    to_px,
)

#: A picture whose visible places are read surely for less than this share is not the board, the
#: pieces or the light the model learned: none of its places is sure (see `LatticeModel.read`).
MIN_EXPLAINED = 0.5
FOLLOW_ROUNDS = 20  # at most, of moving the looks to a picture (`LatticeModel._followed`)
EMPTY = "."  # the label of an empty place (notation.md)
DISC = 0.35  # pitches: the disc describing a place
CORE = 0.15  # pitches: its core
SHIFT = 0.1  # pitches: how far the extra samples of a place are moved
SHIFTS = np.array([[0, 0], [1, 0], [-1, 0], [0, 1], [0, -1]], np.float64) * SHIFT
HIDDEN_AROUND = 2  # of the four between points around a place: hidden by something larger than a piece
N_FEATURES = 8
#: pitches: the corners of a place's cell (both coordinates this far from its point), whose
#: colour a flat place's disc shares; a piece or stone standing on the point leaves them free
FLAT_RIM = (0.3, 0.44)
N_FLAT = 4  # flatness features (`flatness`)
#: pitches: the disc whose texture describes a place (`texture`): the part of the place's disc
#: that every one of its samples (`SHIFTS`) covers. A square's border, a few pixels beyond a disc
#: off by a corner's error, has a gradient tens of times a square's grain and would decide a root
#: mean square; the samples allow for that error, so the disc they share stays clear of it.
TEXTURE_DISC = DISC - SHIFT
N_LIGHTNESS = 4  # lightness features (`LatticeModel.lightness_distances`)


def offset_features(per_channel: np.ndarray) -> np.ndarray:
    """(F,) how a light offset of (3,) log units per channel moves a place's features: its disc
    and core medians by the offset, both lightness percentiles by its mean over the channels."""
    return np.concatenate([per_channel, per_channel, [per_channel.mean()] * 2])


@dataclass(frozen=True)
class Rectified:
    """The lattice as the reader sees it: `logimg` the upright log-colour image (`rectified_log`,
    lattice point (x, y) at pixel `to_px`) and `light` (N, 3) the log light at every place."""

    logimg: np.ndarray
    light: np.ndarray


@dataclass
class Described:
    """What a picture shows at every place: `feats` (shifts, N, N_FEATURES) relative to the
    light, `light` (N, 3) the log light there, `hidden` (N,) whether the board is hidden around
    the place by something larger than a piece (see `describe`)."""

    feats: np.ndarray
    light: np.ndarray
    hidden: np.ndarray
    flat: np.ndarray | None = None
    #: (N, 3) what each place's colour is known to be per channel where a channel is clipped
    #: (`controller.vision.bounds`; None: nothing clipped)
    bounds: np.ndarray | None = None
    #: (N, 2) the direction (x, y) on the board in which what stands on each place is seen
    #: displaced, away from the camera (`_away_from_camera`; None: not known)
    away: np.ndarray | None = None
    #: the picture itself, for the rules that look at it again (rule `centre`)
    rectified: Rectified | None = None


def describe(image: np.ndarray, size: tuple[int, int], corners: np.ndarray) -> Described:
    """The features of every place (`place_features`), and which places are hidden by something
    larger than a piece.

    The light at a place is the smooth fit (`illumination`) corrected by the board's own light
    around it (`local_light`). A piece stands on its place and mostly leaves the board visible
    at the between points around it (the light is measured there because a piece rarely covers
    them). A hand, a sleeve, a cup or a book covers places *and* the board between them: a place
    with HIDDEN_AROUND of its four between points unlike the board under the fitted light
    (rejected by the robust fit) is not read as anything. Only a piece's own footprint is
    forgiven: a stone seen at an angle stands out of its place on the side away from the
    camera and can hide the corner there (`_footprints`).
    """
    rows, cols = size
    logimg = rectified_log(image, size, corners)
    light_fit = illumination_fit(logimg, size)
    points = LatticeGeometry(rows, cols).points()
    local = local_light(light_fit)
    light = terms(points, size, light_fit.quadratic) @ light_fit.coef + local[:, None]
    feats = features(logimg, points, light)
    # A place whose colour is unlike the bare board's (as the kept between points scatter) shows
    # something standing on it.
    disc = feats[0, :, 0:3].astype(np.float64)
    unlike = np.einsum("ni,ij,nj->n", disc, np.linalg.inv(light_fit.board), disc)
    standing = np.sqrt(np.maximum(unlike, 0)) > open_set_distance(3)
    away = _away_from_camera(homography_from_corners(LatticeGeometry(rows, cols), corners), image.shape, points)
    colour = (disc + local[:, None]).reshape(rows, cols, 3)  # against the smooth fit, as `resid`
    covered = light_fit.rejected & ~shadowed(light_fit)
    owned = _footprints(covered, light_fit, standing.reshape(rows, cols), colour, away.reshape(rows, cols, 2))
    unexplained = (covered & ~owned).astype(int)
    around = unexplained[:-1, :-1] + unexplained[:-1, 1:] + unexplained[1:, :-1] + unexplained[1:, 1:]
    return Described(
        feats,
        light,
        (around >= HIDDEN_AROUND).ravel(),
        flatness(logimg, points, light_fit.rejected),
        clipped_bounds(logimg, points, light_fit, light),
        away,
        Rectified(logimg, light),
    )


def clipped_bounds(
    logimg: np.ndarray, points: np.ndarray, light_fit: Light, light: np.ndarray | None = None
) -> np.ndarray | None:
    """(N, 3) per place and channel (B, G, R): `bounds.UP` where its disc is clipped (its true
    colour is brighter than seen), `bounds.DOWN` where a between point around it is (the light
    there, measured on the board, is brighter than seen, so the place relative to it darker),
    `bounds.FREE` where both, and where the light there (`light`, (N, 3) log) is dark (`light.dark`:
    what the place sends back relative to the board is not measured in that channel, either way);
    None when nothing is clipped or dark."""
    disc = PatchSampler(to_px(points), ring_offsets(0, DISC * PPP), logimg.shape[:2]).values(logimg)
    place = np.median(disc, axis=1) >= CLIPPED_LOG
    corner = light_fit.clipped if light_fit.clipped is not None else np.zeros((*light_fit.rejected.shape, 3), bool)
    ref = corner[:-1, :-1] | corner[:-1, 1:] | corner[1:, :-1] | corner[1:, 1:]
    ref = ref.reshape(-1, 3)
    in_dark = np.zeros(place.shape, bool) if light is None else dark(light)
    if not (place.any() or ref.any() or in_dark.any()):
        return None
    out = np.zeros(place.shape, np.int8)
    out[place] = bounds.UP
    out[ref] = bounds.DOWN
    out[(place & ref) | in_dark] = bounds.FREE
    return out


def _away_from_camera(h: np.ndarray, shape: tuple[int, ...], points: np.ndarray) -> np.ndarray:
    """(N, 2) the direction on the board, at every lattice point, in which what stands on it is
    seen displaced: away from the point of the board under the camera.

    The board-to-image homography of a pinhole camera with square pixels and its principal point
    at the picture's centre is K [r1 r2 t]: the two columns' orthogonality and equal length give
    the focal length, then the camera's position over the board (the textbook calibration from
    one view of a plane). Seen from nearly straight above, that is ill-posed, but the point under
    the camera is then the one the picture's centre shows, which is used instead.
    """
    centre = np.array([[1.0, 0.0, -shape[1] / 2], [0.0, 1.0, -shape[0] / 2], [0.0, 0.0, 1.0]])
    hc = centre @ h
    h1, h2 = hc[:, 0], hc[:, 1]
    a = np.array([h1[0] * h2[0] + h1[1] * h2[1], h1[0] ** 2 + h1[1] ** 2 - h2[0] ** 2 - h2[1] ** 2])
    b = np.array([h1[2] * h2[2], h1[2] ** 2 - h2[2] ** 2])
    inv_f2 = -float(a @ b) / max(float(a @ a), 1e-300)
    foot = None
    if inv_f2 > 0:
        m = np.diag([np.sqrt(inv_f2), np.sqrt(inv_f2), 1.0]) @ hc
        scale = (np.linalg.norm(m[:, 0]) + np.linalg.norm(m[:, 1])) / 2
        r1, r2, t = m[:, 0] / scale, m[:, 1] / scale, m[:, 2] / scale
        rot = np.stack([r1, r2, np.cross(r1, r2)], axis=1)
        foot = (-rot.T @ t)[:2]
    if foot is None or not np.all(np.isfinite(foot)):
        under = np.linalg.solve(h, [shape[1] / 2, shape[0] / 2, 1.0])
        foot = under[:2] / under[2]
    away = points - foot
    return away / np.maximum(np.linalg.norm(away, axis=1, keepdims=True), 1e-9)


def _footprints(
    rejected: np.ndarray, light_fit: Light, standing: np.ndarray, colour: np.ndarray, away: np.ndarray
) -> np.ndarray:
    """Which rejected between points ((rows+1, cols+1) bools) pieces' footprints explain.

    The rejected points fall into groups that touch (corners of one place). A group is a set of
    footprints when every point of it can be given to its own place next to it that shows a
    piece (`standing`) whose colour the point shows mixed with the board's (`_part_of`), a corner
    of that place's cell on the side away from the camera (`away`, (rows, cols, 2) as x, y): a
    piece seen at an angle covers the corner behind it, and one piece covers one corner. An
    object over the board hides the corners around the places it covers on every side, more of
    them than the places under it, or all four corners of a cell: its group stays unexplained.
    Whether a group can be given out so is a bipartite matching (points to places).
    """
    rows, cols = standing.shape
    explained = np.zeros_like(rejected)
    board_inv = np.linalg.inv(light_fit.board)
    count, groups = cv2.connectedComponents(rejected.astype(np.uint8), connectivity=8)
    # A cell whose four corners are all covered is under something: a piece leans out of its
    # cell on one side, and pieces leaning into one cell from every side are not how pieces stand.
    inside = rejected[:-1, :-1] & rejected[:-1, 1:] & rejected[1:, :-1] & rejected[1:, 1:]
    enclosing = set(groups[:-1, :-1][inside].tolist())
    for g in range(1, count):
        if g in enclosing:
            continue
        pts = [(int(i), int(j)) for i, j in np.argwhere(groups == g)]
        owners = []
        for i, j in pts:
            near = []
            for r, c in ((i - 1, j - 1), (i - 1, j), (i, j - 1), (i, j)):
                # (j - c - 0.5, i - r - 0.5): the corner's offset (x, y) from the place's point
                if (
                    0 <= r < rows
                    and 0 <= c < cols
                    and standing[r, c]
                    and (j - c - 0.5) * away[r, c, 0] + (i - r - 0.5) * away[r, c, 1] > 0
                    and _part_of(light_fit.resid[i, j], colour[r, c], board_inv)
                ):
                    near.append((r, c))
            owners.append(near)
        if everyone_matched(owners):
            for p in pts:
                explained[p] = True
    return explained


def _part_of(seen: np.ndarray, piece: np.ndarray, board_inv: np.ndarray) -> bool:
    """Whether a between point's log colour `seen` (against the fitted light) is the board partly
    covered by a piece of log colour `piece`: light mixes linearly, so a share a of the point
    shows the piece and 1 - a the board, in every channel the same share; the point is that
    mixture if one share brings it within the open-set distance of the board's scatter."""
    share = np.linspace(0.1, 1.0, 10)[:, None]
    mixed = np.log(np.maximum(1 - share + share * np.exp(piece)[None, :], 1e-6))  # (shares, 3)
    d = seen[None, :] - mixed
    return bool(np.einsum("si,ij,sj->s", d, board_inv, d).min() <= open_set_distance(3) ** 2)


def place_features(image: np.ndarray, size: tuple[int, int], corners: np.ndarray) -> np.ndarray:
    """(shifts, rows*cols, N_FEATURES) features of every place, relative to the picture's light.

    Per place: the median log colour (B, G, R) of its disc, the same of its core, and the 20th
    and 80th percentiles of the disc's lightness, each minus the illumination surface there.
    The first shift is the point itself, the others 0.1 pitch away.
    """
    return describe(image, size, corners).feats


def features(logimg: np.ndarray, points: np.ndarray, light: np.ndarray) -> np.ndarray:
    """(shifts, N, N_FEATURES) every place's features at its point and at each of `SHIFTS`."""
    return np.stack([sampled(logimg, points + shift, light) for shift in SHIFTS])


def sampled(logimg: np.ndarray, at: np.ndarray, light: np.ndarray) -> np.ndarray:
    """(N, N_FEATURES) the features of places whose disc is sampled at `at` (N, 2 board points),
    against the light (N, 3) of each."""
    disc = ring_offsets(0, DISC * PPP)
    core_mask = np.hypot(disc[:, 0], disc[:, 1]) <= CORE * PPP
    out = np.empty((len(at), N_FEATURES), np.float32)
    vals = PatchSampler(to_px(at), disc, logimg.shape[:2]).values(logimg)
    vals = vals - light[:, None, :].astype(np.float32)
    lightness = vals.mean(axis=2)
    out[:, 0:3] = np.median(vals, axis=1)
    out[:, 3:6] = np.median(vals[:, core_mask], axis=1)
    out[:, 6:8] = np.percentile(lightness, [20, 80], axis=1).T
    return out


def texture(logimg: np.ndarray, points: np.ndarray) -> np.ndarray:
    """(N,) how textured every place is: the log of the root mean square of its log lightness's
    gradient over the disc of `TEXTURE_DISC` around its point.

    A light multiplies the picture, so it adds to the log lightness and leaves its gradient as it
    was: the texture of a place does not depend on the light. The bare board of one kind (a
    walnut square, a printed one, a Go point with its two lines) has one texture; a piece standing
    on it adds its outline, its shading and highlights (a chess piece), or hides the grain and the
    lines under a smooth surface (a Go stone). It is the log, so that a sharper or blurrier camera
    (a scale on every gradient) moves every place alike."""
    channels = logimg.astype(np.float32, copy=False)
    lightness = (channels[..., 0] + channels[..., 1] + channels[..., 2]) / 3  # a mean without a slow reduce
    gx = cv2.Sobel(lightness, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(lightness, cv2.CV_32F, 0, 1, ksize=3)
    energy = (gx * gx + gy * gy)[..., None]
    vals = PatchSampler(to_px(points), ring_offsets(0, TEXTURE_DISC * PPP), logimg.shape[:2]).values(energy)[..., 0]
    return 0.5 * np.log(vals.mean(axis=1).astype(np.float64) + 1e-12)


def _cell_corners(inner: float, outer: float) -> np.ndarray:
    """Pixel offsets (dy, dx) of the four corner blocks of a cell: both coordinates between
    `inner` and `outer` pixels from its point."""
    n = int(np.ceil(outer))
    dy, dx = np.mgrid[-n : n + 1, -n : n + 1]
    keep = (np.minimum(np.abs(dx), np.abs(dy)) >= inner) & (np.maximum(np.abs(dx), np.abs(dy)) <= outer)
    return np.stack([dy[keep], dx[keep]], axis=1)


def flatness(logimg: np.ndarray, points: np.ndarray, rejected: np.ndarray) -> np.ndarray:
    """(N, N_FLAT) how flat every place is, whatever the board: the spread of its disc's lightness
    (80th minus 20th percentile) and its disc's median log colour minus that of the corners of its
    cell (`FLAT_RIM`, `_cell_corners`) that show the board (`_board_corners`; `rejected`, (rows+1,
    cols+1), the between points the light fit rejected).

    An empty place is the flat board: one colour edge to edge, so its disc is even and has the
    colour of its cell's corners, on a wooden board, a printed one or a Go board alike. A piece is a
    solid: shading, highlights and a silhouette make its disc uneven or unlike the rim around it.
    Both are differences within one place, so the light cancels and no light estimate is needed.
    """
    px = to_px(points)
    disc = PatchSampler(px, ring_offsets(0, DISC * PPP), logimg.shape[:2]).values(logimg)
    offsets = _cell_corners(FLAT_RIM[0] * PPP, FLAT_RIM[1] * PPP)
    rim = PatchSampler(px, offsets, logimg.shape[:2]).values(logimg)
    rim = _board_corners(rim, offsets, rejected)
    lightness = disc.mean(axis=2)
    spread = np.percentile(lightness, 80, axis=1) - np.percentile(lightness, 20, axis=1)
    return np.concatenate([spread[:, None], np.median(disc, axis=1) - np.nanmedian(rim, axis=1)], axis=1)


def _board_corners(rim: np.ndarray, offsets: np.ndarray, rejected: np.ndarray) -> np.ndarray:
    """(N, P, 3) the cell-corner pixels `rim` (at `offsets` (P, 2) as dy, dx) of every place, with
    those of the corners whose between point the light fit rejected (`rejected`) set to NaN,
    unless all four corners are so.

    A flat place has its board's colour; what a neighbour's stone covers at a corner of the cell
    is not the board: an empty place among black stones would be brighter than their corners
    and a white stone only as bright as its white neighbours' edges. Where every corner is
    covered, all four are kept: nothing nearer shows the board there."""
    rows, cols = rejected.shape[0] - 1, rejected.shape[1] - 1
    r, c = np.divmod(np.arange(rows * cols), cols)
    down, right = (offsets[:, 0] > 0).astype(int), (offsets[:, 1] > 0).astype(int)
    covered = rejected[r[:, None] + down[None], c[:, None] + right[None]]  # (N, P)
    covered &= ~covered.all(axis=1, keepdims=True)
    return np.where(covered[..., None], np.nan, rim)
