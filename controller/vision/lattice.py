"""Generic lattice reading for any grid game, learned from labelled pictures.

Nothing here knows what our boards look like: a person gives the pixel positions of the
lattice's four corner points and, for one or more pictures, the label of every place. The
pictures may be taken under other light than the ones read later (another time of day, a lamp,
another exposure or white balance), so every place is described *relative to the picture's own
illumination*:

* The light is estimated from the board itself, at the "between" points half a pitch diagonally
  from the places (the centres of the cells' corners), which a piece rarely covers: a smooth
  low-order surface is fitted, robustly and per colour channel, to their log colour. It holds
  exposure, colour cast (a grey-world estimate over the board's own material), gradient and
  vignetting, all of which multiply each channel and so add in log space. What a smooth surface
  cannot follow (a folding board's hinge, a window's edge) the board at the four corners of a
  place's cell shows: the brightest of them lifts or lowers the place's light alike in every
  channel (the brightest, since a neighbour's shadow only darkens).
* A place is the log colour of a disc of 0.35 pitch around its point minus that light: the
  median per channel over the disc and over its core, and the 20th and 80th lightness
  percentiles (how uneven it is: a stone against crossing grid lines). Medians ignore a
  highlight, the grain and a piece's shaded rim.
* Pieces a little off their point and corner points a few pixels off: each place is also
  sampled at four positions 0.1 pitch away; learning keeps them all as looks of the label, and
  reading takes, per label, the position that matches best.
* The decision is the games' classifier (`classify.ClassModel`): every label is one or more
  Gaussian looks (light and dark empty squares are two looks of one label), a place takes the
  nearest look by Mahalanobis distance, and it is sure only within the open-set distance of
  that look and clearly nearer to it than to any other label (more clearly for a pair of labels
  that a cross-validation of the learning places found confusable). A place may lie in a
  neighbouring piece's shadow, which lowers all its log features alike: that darkening is a
  nuisance with a prior (`LatticeModel._shaded`). The global offset that the surely read places
  still show is removed and the board read again. Then the looks follow the picture: another
  board or camera renders a label otherwise (brighter white stones, less shaded black ones), the
  same for every place of that label, so each look's mean moves to the places read surely as it
  there, and the picture is read again (`LatticeModel.decide_picture`, with the rules that keep
  this from inventing readings). A place where the board is hidden around it (a hand, a sleeve,
  a cup: not a shadow, not a piece's own footprint on the side away from the camera, see
  `describe`) is never sure, nor is a piece seen from two places between them, and neither is
  any place of a picture whose
  visible places are mostly unsure (a board or pieces unlike the learned ones: the model does not
  describe that picture). The command lists unsure places on stderr.
* Within one picture every place of a label is one group: where the learned looks explain the
  picture, a mixture fitted in it (started from the learned looks) reads the places the learned
  spreads leave between two looks, by the same rule, when it reads every place the looks read
  surely alike (`LatticeModel._by_picture_groups`).
* Beside the looks, a reading that does not depend on the board (`_flatness`): an empty place is
  the flat board, even over its disc and of its cell corners' colour, on a wooden, printed or Go
  board alike; a piece is a solid that is not. Where that reading is sure of an empty place and
  the looks are not, the place reads empty (a printed board learned on a wooden one); where it
  and the looks are sure of opposite things, the place is unsure (`LatticeModel._with_flatness`).
  In a picture the looks do not explain, a place keeps its reading where both readings agree.
  A place far from every look (another camera tints the pieces otherwise) reads as the piece its
  lightness alone surely matches when the flatness is nearest that piece too
  (`LatticeModel._lightness_far`).
* Within one picture, the lattice's parity (light and dark squares alternate): a place the
  flatness surely reads empty while the looks lean to a piece reads empty when its colour is
  that of the picture's other flat places of its parity (`LatticeModel._by_parity`); the places
  of a parity the flatness surely reads as pieces split in two by lightness, named by its order,
  where that split is clear (`LatticeModel._by_split`). Both lean on the picture's own places and
  so say nothing of whether the learned looks explain it.
* The picture's own flat board (`LatticeModel._own_flatness`): the flatness of each parity's
  surely flat places in this picture is that board's empty look; a place far beyond it is a
  piece (another set, whose flatness no learned look knows) and joins the split, and a place
  within it, clearly nearer than the picture's own pieces of its parity, is a candidate for the
  parity rule. A place the looks surely read as a piece that is flat but not of its parity's
  board colour in this picture is a piece whose top covers its cell: the flatness does not
  make it unsure.
* Both readings together (`LatticeModel._by_own_board`): a place is one thing in its looks and its
  flatness, so each label's distance is both distances together; a place the looks leave
  between two labels reads empty where, against its parity's bare board in this picture in both,
  it is clearly nearer than every piece (in the looks, a dark square like a dark piece; in the
  flatness, an uneven edge square like a nearly flat light piece: never the same piece).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from controller.errors import ConfigError, FormatError, RefereeError
from controller.vision.classify import ClassModel, ClassRef, Decision, open_set_distance
from controller.vision.features import PatchSampler, Rectifier, ring_offsets
from controller.vision.geometry import (
    CornersError,
    LatticeGeometry,
    check_corners,
    homography_from_corners,
)

PPP = 24  # rectified pixels per pitch
MODEL_VERSION = 5
EPS = 0.02  # added before the log so that black stays finite (and its noise small)
DISC = 0.35  # pitches: the disc describing a place
CORE = 0.15  # pitches: its core
BETWEEN = 0.1  # pitches: the small disc sampled at each between point
SHIFT = 0.1  # pitches: how far the extra samples of a place are moved
SHIFTS = np.array([[0, 0], [1, 0], [-1, 0], [0, 1], [0, -1]], np.float64) * SHIFT
FLOOR = 0.05  # least spread of any feature within a look (log units, ~5%: light the smooth fit misses)
HIDDEN_AROUND = 2  # of the four between points around a place: hidden by something larger than a piece
#: A picture whose visible places are read surely for less than this share is not the board, the
#: pieces or the light the model learned: none of its places is sure (see `LatticeModel.read`).
MIN_EXPLAINED = 0.5
FOLDS = 10  # parts of the learning places read by the model learned without them (`_held_out_margins`)
N_FEATURES = 8
FOLLOW_ROUNDS = 20  # at most, of moving the looks to a picture (`LatticeModel._followed`)
#: pitches: the corners of a place's cell (both coordinates this far from its point), whose
#: colour a flat place's disc shares; a piece or stone standing on the point leaves them free
FLAT_RIM = (0.3, 0.44)
N_FLAT = 4  # flatness features (`_flatness`)
EMPTY = "."  # the label of an empty place (notation.md)


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
            raise FormatError(f"expected {cols} labels, found {len(cells)} in {line!r}", f"{where}, line {number}")
        grid.append(cells)
    if len(grid) != rows:
        raise FormatError(f"expected {rows} lines of labels for a {rows}x{cols} lattice, found {len(grid)}", where)
    return grid


def load_image(path: str | Path) -> np.ndarray:
    if Path(path).is_dir():
        raise RefereeError(f"{path} is a folder, not a picture: give the picture file itself (a .png or .jpg)")
    if not Path(path).is_file():
        raise RefereeError(f"the image {path} does not exist")
    img = cv2.imread(str(path), cv2.IMREAD_COLOR)
    if img is None:
        raise RefereeError(f"cannot read the image {path}: not a picture OpenCV understands")
    return img


def _rectified_log(image: np.ndarray, size: tuple[int, int], corners: np.ndarray) -> np.ndarray:
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
    h = homography_from_corners(geom, corners)
    rect = Rectifier(-1.0, -1.0, cols, rows, PPP)
    warped = rect.warp(crop, h).astype(np.float32)
    return np.log(warped * np.float32(1 / 255) + np.float32(EPS))


def _to_px(pts: np.ndarray) -> np.ndarray:
    return (np.asarray(pts, np.float64) + 1.0) * PPP


def _terms(pts: np.ndarray, size: tuple[int, int], quadratic: bool) -> np.ndarray:
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
    light = _illumination(logimg, size)
    return light.coef, light.quadratic


@dataclass
class _Light:
    """The fitted light (`illumination`); `resid` ((rows+1, cols+1, 3)) the log colour of every
    between point minus the fitted light there; `rejected` ((rows+1, cols+1) bools) the points
    the fit rejected in some channel (what shows there is not the board under the fitted light);
    `board` (3, 3), how the bare board's log colour scatters about the fit at the points it kept."""

    coef: np.ndarray
    quadratic: bool
    resid: np.ndarray
    rejected: np.ndarray
    board: np.ndarray


def _illumination(logimg: np.ndarray, size: tuple[int, int]) -> _Light:
    rows, cols = size
    ys, xs = np.mgrid[0 : rows + 1, 0 : cols + 1]
    pts = np.stack([xs.ravel() - 0.5, ys.ravel() - 0.5], axis=1).astype(np.float64)
    sampler = PatchSampler(_to_px(pts), ring_offsets(0, BETWEEN * PPP), logimg.shape[:2])
    vals = sampler.values(logimg).mean(axis=1).astype(np.float64)  # (M, 3)
    quadratic = len(pts) >= 25
    a = _terms(pts, size, quadratic)
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
    return _Light(coef, quadratic, resid.reshape(rows + 1, cols + 1, 3), rejected.reshape(rows + 1, cols + 1), board)


@dataclass
class Described:
    """What a picture shows at every place: `feats` (shifts, N, N_FEATURES) relative to the
    light, `light` (N, 3) the log light there, `hidden` (N,) whether the board is hidden around
    the place by something larger than a piece (see `describe`)."""

    feats: np.ndarray
    light: np.ndarray
    hidden: np.ndarray
    flat: np.ndarray | None = None


def describe(image: np.ndarray, size: tuple[int, int], corners: np.ndarray) -> Described:
    """The features of every place (`place_features`), and which places are hidden by something
    larger than a piece.

    The light at a place is the smooth fit (`illumination`) corrected by the board's own light
    around it (`_local_light`). A piece stands on its place and mostly leaves the board visible
    at the between points around it (the light is measured there because a piece rarely covers
    them). A hand, a sleeve, a cup or a book covers places *and* the board between them: a place
    with HIDDEN_AROUND of its four between points unlike the board under the fitted light
    (rejected by the robust fit) is not read as anything. Only a piece's own footprint is
    forgiven: a stone seen at an angle stands out of its place on the side away from the
    camera and can hide the corner there (`_footprints`).
    """
    rows, cols = size
    logimg = _rectified_log(image, size, corners)
    light_fit = _illumination(logimg, size)
    points = LatticeGeometry(rows, cols).points()
    local = _local_light(light_fit)
    light = _terms(points, size, light_fit.quadratic) @ light_fit.coef + local[:, None]
    feats = _features(logimg, points, light)
    # A place whose colour is unlike the bare board's (as the kept between points scatter) shows
    # something standing on it.
    disc = feats[0, :, 0:3].astype(np.float64)
    unlike = np.einsum("ni,ij,nj->n", disc, np.linalg.inv(light_fit.board), disc)
    standing = np.sqrt(np.maximum(unlike, 0)) > open_set_distance(3)
    away = _away_from_camera(homography_from_corners(LatticeGeometry(rows, cols), corners), image.shape, points)
    colour = (disc + local[:, None]).reshape(rows, cols, 3)  # against the smooth fit, as `resid`
    covered = light_fit.rejected & ~_shadowed(light_fit)
    owned = _footprints(covered, light_fit, standing.reshape(rows, cols), colour, away.reshape(rows, cols, 2))
    unexplained = (covered & ~owned).astype(int)
    around = unexplained[:-1, :-1] + unexplained[:-1, 1:] + unexplained[1:, :-1] + unexplained[1:, 1:]
    return Described(feats, light, (around >= HIDDEN_AROUND).ravel(), _flatness(logimg, points, light_fit.rejected))


def _local_light(light_fit: _Light) -> np.ndarray:
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


def _shadowed(light_fit: _Light) -> np.ndarray:
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


def _footprints(
    rejected: np.ndarray, light_fit: _Light, standing: np.ndarray, colour: np.ndarray, away: np.ndarray
) -> np.ndarray:
    """Which rejected between points ((rows+1, cols+1) bools) pieces' footprints explain.

    The rejected points fall into groups that touch (corners of one place). A group is a set of
    footprints when every point of it can be given to its own place next to it that shows a
    piece (`standing`) whose colour the point shows mixed with the board's (`_part_of`), a corner
    of that place's cell on the side away from the camera (`away`, (rows, cols, 2) as x, y): a
    piece seen at an angle covers the corner behind it, and one piece covers one corner. An
    object over the board hides the corners around the places it covers on every side, more of
    them than the places under it, or all four corners of a cell: its group stays unexplained.
    Whether a group can be given out so is a bipartite matching (points to places), found by
    augmenting paths.
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
        if _every_point_owned(owners):
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


def _every_point_owned(owners: list[list[tuple[int, int]]]) -> bool:
    """Whether every point can get its own owner from its list (Kuhn's augmenting paths)."""
    owner_of: dict[tuple[int, int], int] = {}

    def place(k: int, seen: set) -> bool:
        for o in owners[k]:
            if o in seen:
                continue
            seen.add(o)
            if o not in owner_of or place(owner_of[o], seen):
                owner_of[o] = k
                return True
        return False

    return all(place(k, set()) for k in range(len(owners)))


def place_features(image: np.ndarray, size: tuple[int, int], corners: np.ndarray) -> np.ndarray:
    """(shifts, rows*cols, N_FEATURES) features of every place, relative to the picture's light.

    Per place: the median log colour (B, G, R) of its disc, the same of its core, and the 20th
    and 80th percentiles of the disc's lightness, each minus the illumination surface there.
    The first shift is the point itself, the others 0.1 pitch away.
    """
    return describe(image, size, corners).feats


def _features(logimg: np.ndarray, points: np.ndarray, light: np.ndarray) -> np.ndarray:
    disc = ring_offsets(0, DISC * PPP)
    core_mask = np.hypot(disc[:, 0], disc[:, 1]) <= CORE * PPP
    out = np.empty((len(SHIFTS), len(points), N_FEATURES), np.float32)
    for k, shift in enumerate(SHIFTS):
        vals = PatchSampler(_to_px(points + shift), disc, logimg.shape[:2]).values(logimg)
        vals = vals - light[:, None, :].astype(np.float32)
        lightness = vals.mean(axis=2)
        out[k, :, 0:3] = np.median(vals, axis=1)
        out[k, :, 3:6] = np.median(vals[:, core_mask], axis=1)
        out[k, :, 6:8] = np.percentile(lightness, [20, 80], axis=1).T
    return out


def _cell_corners(inner: float, outer: float) -> np.ndarray:
    """Pixel offsets (dy, dx) of the four corner blocks of a cell: both coordinates between
    `inner` and `outer` pixels from its point."""
    n = int(np.ceil(outer))
    dy, dx = np.mgrid[-n : n + 1, -n : n + 1]
    keep = (np.minimum(np.abs(dx), np.abs(dy)) >= inner) & (np.maximum(np.abs(dx), np.abs(dy)) <= outer)
    return np.stack([dy[keep], dx[keep]], axis=1)


def _flatness(logimg: np.ndarray, points: np.ndarray, rejected: np.ndarray) -> np.ndarray:
    """(N, N_FLAT) how flat every place is, whatever the board: the spread of its disc's lightness
    (80th minus 20th percentile) and its disc's median log colour minus that of the corners of its
    cell (`FLAT_RIM`, `_cell_corners`) that show the board (`_board_corners`; `rejected`, (rows+1,
    cols+1), the between points the light fit rejected).

    An empty place is the flat board: one colour edge to edge, so its disc is even and has the
    colour of its cell's corners, on a wooden board, a printed one or a Go board alike. A piece is a
    solid: shading, highlights and a silhouette make its disc uneven or unlike the rim around it.
    Both are differences within one place, so the light cancels and no light estimate is needed.
    """
    px = _to_px(points)
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


@dataclass
class LatticeModel:
    """The learned looks of every label: the same `ClassModel` the games read with, over the
    features of `place_features`."""

    size: tuple[int, int]
    classes: ClassModel
    flat: ClassModel | None = None

    @property
    def labels(self) -> list[str]:
        """Every label learned, once."""
        return sorted({r.letter for r in self.classes.refs})

    def to_json(self) -> str:
        return json.dumps(
            {
                "kind": "referee-lattice-model",
                "version": MODEL_VERSION,
                "size": list(self.size),
                "floor": [round(float(v), 7) for v in self.classes.floor],
                **self.classes.to_yaml(),
                **({"flat": self.flat.to_yaml()} if self.flat is not None else {}),
            }
        )

    @classmethod
    def load(cls, path: str | Path) -> LatticeModel:
        not_model = f"{path} is not a lattice model written by 'referee lattice learn'"
        try:
            data = json.loads(Path(path).read_text("utf-8"))
        except OSError as exc:
            raise RefereeError(f"cannot read the model {path}: {exc.strerror}") from None
        except (ValueError, UnicodeDecodeError):
            raise RefereeError(not_model) from None
        if not isinstance(data, dict) or data.get("kind") != "referee-lattice-model":
            raise RefereeError(not_model)
        version = data.get("version")
        if version != MODEL_VERSION:
            raise RefereeError(
                f"{path} is a lattice model of version {version}, but this referee reads version "
                f"{MODEL_VERSION} (a place's flatness compared with the corners of its cell that show the "
                f"board); learn it again with 'referee lattice learn'"
            )
        try:
            size = (int(data["size"][0]), int(data["size"][1]))
            floor = np.array(data["floor"], np.float64)
            if floor.shape != (N_FEATURES,) or not np.all(floor >= 0):
                raise ValueError
            classes = ClassModel.from_yaml(data, path="model", dims=N_FEATURES)
            flat = ClassModel.from_yaml(data["flat"], path="model.flat", dims=N_FLAT) if "flat" in data else None
        except ConfigError as exc:
            raise RefereeError(f"{path}: the lattice model is damaged ({exc}); learn it again") from None
        except (KeyError, TypeError, ValueError, IndexError):
            raise RefereeError(f"{path}: the lattice model is damaged; learn it again") from None
        classes = ClassModel(classes.refs, classes.max_distance, classes.min_margin, floor, classes.pair_margins)
        if flat is not None:
            flat = ClassModel(
                flat.refs, flat.max_distance, flat.min_margin, np.full(N_FLAT, FLOOR**2), flat.pair_margins
            )
        return cls(size, classes, flat)

    def distances(self, feats: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(N, looks) distance of every place to every look at the sample position that fits
        that look best, and (N, looks) which position that was."""
        d = np.stack([self._shaded(f) for f in feats])  # (shifts, N, looks)
        return d.min(axis=0), d.argmin(axis=0)

    def _shaded(self, feats: np.ndarray, means: np.ndarray | None = None) -> np.ndarray:
        """(N, looks) Mahalanobis distances of one sample position (F features per place), each
        place allowed to lie in a shadow the light fit missed.

        A neighbouring piece's shadow dims a place's light, and so lowers every log feature by
        the same amount s < 0 (a shadow only darkens). With s a nuisance of Gaussian prior
        N(0, FLOOR^2) (the light the smooth fit misses, see FLOOR), the distance is the least
        over s <= 0 of (x - s 1)' S^-1 (x - s 1) + s^2 / FLOOR^2, in closed form. A brighter
        place gets no allowance; a place darker than a look in some features and not others
        little: only the common part is a shadow. `means` (looks, F) replaces the learned means
        (the looks following a picture, see `_followed`); the spreads stay the learned ones.
        """
        c = self.classes
        x = feats[:, None, :] - (c.means if means is None else means)[None]
        d2 = np.einsum("nki,kij,nkj->nk", x, c.inv, x)
        u = c.inv @ np.ones(N_FEATURES)  # (looks, F)
        a = u.sum(axis=1)  # (looks,)
        b = np.einsum("nkf,kf->nk", x, u)
        s = np.minimum(b / (a + 1 / FLOOR**2), 0.0)
        return np.sqrt(np.maximum(d2 - 2 * s * b + s * s * (a + 1 / FLOOR**2), 0.0))

    def read(
        self, feats: np.ndarray, hidden: np.ndarray | None = None, flat: np.ndarray | None = None
    ) -> tuple[list[str], np.ndarray, np.ndarray]:
        """Each place's label, whether it is sure and a confidence in [0, 1], from (shifts, N, F)
        features; `hidden` places (see `describe`) are never sure.

        A model learned on one board can meet a picture it does not describe: another board
        (black and white squares where it learned wood), other pieces, a light far from the
        learning picture's. Most places are then unsure, and the few it reads surely are those
        that happen to look like a learned look (a black square like a dark piece): a look
        learned there is not evidence here. So when fewer than `MIN_EXPLAINED` of the visible
        places are read surely, the model is taken not to explain the picture and none is sure.
        """
        letters, why, confidence = self.judge(feats, hidden, flat)
        sure = np.array([w == "" for w in why], bool)
        return letters, sure, np.where(sure, confidence, 0.0)

    def judge(
        self, feats: np.ndarray, hidden: np.ndarray | None = None, flat: np.ndarray | None = None
    ) -> tuple[list[str], list[str], np.ndarray]:
        """As `read`, with why each place is unsure instead of whether it is sure:

        * "" sure; "hidden": the board hidden around it (see `describe`);
        * "far": beyond the open-set distance of every look, and not read by its lightness
          (`_lightness_far`); "margin": too near a look of another label; "pair": not past the
          margin that label pair needs (`_held_out_margins`), or made sure only by the looks
          following the picture while it lies towards another label's look or a neighbour's piece
          (`decide_picture`);
        * "between": its piece stands between it and the next place (`_between`);
        * "flat": the looks and the flatness (`flat`, from `describe`) are sure of opposite
          things (`_with_flatness`);
        * "picture": the model does not explain the picture (`MIN_EXPLAINED`).

        Rules that lean on the picture itself then read some of the doubtful places, each by the
        model's own open-set distance and margins: the picture's own groups (`_by_picture_groups`),
        its squares of one parity (`_by_parity`), the lightness split of its pieces (`_by_split`,
        `_own_flatness`) and both readings against its bare board (`_by_own_board`). A place one
        of them read, or the flatness alone, says nothing of whether the learned looks explain the
        picture; where they do not, a place keeps its reading only if a board-independent reading
        confirms it (the flatness nearest the same label, a clear split, the bare board)."""
        dec, dist = self.decide_picture(feats)
        visible = np.ones(len(dec.sure), bool) if hidden is None else ~np.asarray(hidden, bool)
        why = np.full(len(dec.sure), "", object)
        best = dist.argmin(axis=1)
        rival = np.where(self.classes.same[best], np.inf, dist)
        d2 = rival.min(axis=1)
        plain = (d2 - dec.distance) / np.maximum(np.where(np.isfinite(d2), d2, 1.0), 1e-9)
        why[~dec.sure] = "pair"
        why[~dec.sure & (plain < self.classes.min_margin)] = "margin"
        why[~dec.sure & (dec.distance > self.classes.max_distance)] = "far"
        best = self._by_picture_groups(feats, visible, dec, why, best, flat)
        why[(why == "") & self._between(feats, dec.letters, best)] = "between"
        letters = list(dec.letters)
        by_flatness = confirmed = np.zeros(len(why), bool)
        if flat is not None and self.flat is not None:
            flat = np.asarray(flat, np.float64)
            letters = self._lightness_far(feats, flat, letters, why)
            shifted = self._decide_offset(feats)[2]
            own_empty, own_piece = self._own_flatness(flat, letters, why, visible)
            letters, by_parity, not_board = self._by_parity(shifted, flat, letters, why, dist, own_empty)
            letters, by_split, split_agrees = self._by_split(feats, shifted, flat, letters, why, visible, own_piece)
            letters, by_flatness, confirmed = self._with_flatness(letters, why, flat, not_board)
            letters, by_both, both_agree = self._by_own_board(shifted, flat, letters, why, dist, visible)
            by_flatness = by_flatness | by_parity | by_split | by_both
            confirmed = (
                confirmed
                | by_split
                | split_agrees
                | (own_empty & (np.array(letters) == EMPTY))
                | (by_both | both_agree)
            )
        why[~visible] = "hidden"
        # Places made sure by their flatness alone say nothing of whether the looks explain the
        # picture. When they do not, a place read surely empty keeps that reading if its flatness
        # is nearest an empty look too, and a place read surely as a piece if its flatness is
        # surely that piece too: flatness does not depend on the board, so that agreement is no
        # chance likeness of a learned look (a black square like a dark piece is flat).
        if ((why == "") & ~by_flatness).sum() < MIN_EXPLAINED * visible.sum():
            why[(why == "") & ~confirmed] = "picture"
        return letters, [str(w) for w in why], dec.confidence

    def _by_picture_groups(
        self,
        feats: np.ndarray,
        visible: np.ndarray,
        dec: Decision,
        why: np.ndarray,
        best: np.ndarray,
        flat: np.ndarray | None = None,
    ) -> np.ndarray:
        """Read the visible places unsure by "margin", "pair" or "far" by the picture's own groups
        (`_picture_groups`) where those read them surely; `dec` (letters, confidence) and `why` are
        changed in place, and the (N,) look of every place is returned.

        Within one picture every place of a label is one group however another board or camera
        renders it (white stones brighter and shaded on their far side, a board of another
        wood). The learned spreads, measured on the learning picture alone, can leave such a
        place between two looks; the picture's own groups, fitted to it, can tell it. They are
        trusted only where they read every place that the looks read surely the same way (the
        two then describe one picture), and a place is sure by the very rule the learned looks
        use (`ClassModel.decide_distances`: the open-set distance, the margins, the pair margins).
        Nor where the flatness (`flat`, when given) is sure of the other side, empty or a piece:
        the two would then be sure of opposite things (`_with_flatness`), and the place is left to
        the rules that read it with the flatness (`_by_parity`)."""
        doubtful = visible & np.isin(why, ["margin", "pair", "far"])
        if not doubtful.any():
            return best
        found = self._picture_groups(feats, visible)
        if found is None:
            return best
        groups, dist = found
        sure = (why == "") & visible
        if np.any(np.array(groups.letters)[sure] != np.array(dec.letters)[sure]):
            return best
        read = doubtful & groups.sure
        if flat is not None and self.flat is not None:
            fdec = self.flat.decide(np.asarray(flat, np.float64))
            flat_empty = np.array(fdec.letters) == EMPTY
            read &= ~(fdec.sure & (flat_empty != (np.array(groups.letters) == EMPTY)))
        best = best.copy()
        for i in np.flatnonzero(read):
            why[i] = ""
            dec.letters[i] = groups.letters[i]
            dec.confidence[i] = groups.confidence[i]
            best[i] = dist[i].argmin()
        return best

    def _picture_groups(self, feats: np.ndarray, visible: np.ndarray) -> tuple[Decision, np.ndarray] | None:
        """The decision of the picture's own groups and its (N, looks) distances, or None where the
        learned looks do not explain the picture (`MIN_EXPLAINED`, as for following it).

        A Gaussian mixture over the visible places, one component per look, fitted by
        expectation-maximisation from the learned looks: each place belongs to each look in
        proportion to its likelihood there (from the distance with the shadow allowance, at the
        sample position that fits the look best, and the look's spread) times the look's share of
        the places (those nearest it, one more each), and a look's mean and covariance
        become those of its places so weighted, with the learned mean and covariance counted as
        N_FEATURES places (the prior weight `_followed` and `ClassModel.learn_looks` give them).
        Two rules keep a look from becoming another label's group:

        * a place belongs only to the looks within whose learned open-set distance it lies (a
          stone unlike every learned look does not drag the look of a label with few places);
        * a look that the learned looks read no place of surely keeps its learned mean and
          spread: nothing in the picture says what it looks like there (on an empty board, the
          squares of one colour half like a learned piece would otherwise become that piece).
        """
        c = self.classes
        dec0, _, shifted = self._decide_offset(feats)
        if dec0.sure.sum() < MIN_EXPLAINED * len(dec0.sure):
            return None
        place = np.flatnonzero(visible)
        model = self
        dist, pos = model.distances(shifted)
        known = dist[place] <= c.max_distance
        anchored = np.isin(np.arange(len(c.refs)), dist.argmin(axis=1)[dec0.sure])
        for _ in range(FOLLOW_ROUNDS):
            logdet = np.linalg.slogdet(np.linalg.inv(model.classes.inv))[1]
            share = np.log(np.bincount(dist[place].argmin(axis=1), minlength=len(c.refs)) + 1.0)
            loglik = -0.5 * dist[place] ** 2 - 0.5 * logdet[None] + share[None]
            weight = np.exp(loglik - loglik.max(axis=1, keepdims=True)) * known
            weight /= np.maximum(weight.sum(axis=1, keepdims=True), 1e-300)
            refs = []
            for k, ref in enumerate(c.refs):
                if not anchored[k]:
                    refs.append(ref)
                    continue
                x = shifted[pos[place, k], place]
                w = weight[:, k]
                mean = (w @ x + N_FEATURES * c.means[k]) / (w.sum() + N_FEATURES)
                d = x - mean
                cov = ((d * w[:, None]).T @ d + N_FEATURES * np.asarray(ref.cov)) / (w.sum() + N_FEATURES)
                refs.append(ClassRef(ref.key, ref.letter, mean, cov, ref.open))
            before = dist.argmin(axis=1)
            model = LatticeModel(self.size, ClassModel(refs, c.max_distance, c.min_margin, c.floor, c.pair_margins))
            dist, pos = model.distances(shifted)
            if np.array_equal(before, dist.argmin(axis=1)):
                break
        return model.classes.decide_distances(dist), dist

    def _lightness_far(self, feats: np.ndarray, flat: np.ndarray, letters: list[str], why: np.ndarray) -> list[str]:
        """Read the places far from every look (`why` "far", changed in place to "" where read) by
        their lightness alone, where the flatness agrees.

        Another camera or set renders a piece's colour otherwise (black stones with a blue cast
        where the learning photo's were grey): its full look is then far from every learned one,
        but its lightness against the board's light still sits where its label's did, since a
        camera's colour response and a piece's tint change the balance of the channels, not the
        order of light and dark. Such a place reads as the piece whose lightness looks
        (`_lightness_decision`) are surely nearest, when the board-independent flatness
        (`_flatness`) is nearest that same piece: two readings that share no colour."""
        far = np.flatnonzero(why == "far")
        if not len(far):
            return letters
        light = self._lightness_decision(feats)
        flat_letters = self.flat.decide(flat).letters
        out = list(letters)
        for i in far:
            if light.sure[i] and light.letters[i] != EMPTY and flat_letters[i] == light.letters[i]:
                why[i] = ""
                out[i] = light.letters[i]
        return out

    def _lightness_decision(self, feats: np.ndarray, shifted: np.ndarray | None = None) -> Decision:
        """The looks' decision on the lightness features only: the mean over the channels of the
        disc's and of the core's log colour and the two lightness percentiles, each look's spread
        projected alike, the open-set distance of four features, the looks' margins. `shifted`:
        the features with the global offset already removed (of some places only), if known."""
        c = self.classes
        if shifted is None:
            _, _, shifted = self._decide_offset(feats)
        proj = np.zeros((4, N_FEATURES))
        proj[0, 0:3] = proj[1, 3:6] = 1 / 3
        proj[2, 6] = proj[3, 7] = 1
        inv = np.linalg.inv(np.stack([proj @ (np.asarray(r.cov) + np.diag(c.floor)) @ proj.T for r in c.refs]))
        means = c.means @ proj.T
        dist = []
        for f in shifted:
            y = (f @ proj.T)[:, None, :] - means[None]
            dist.append(np.sqrt(np.einsum("nki,kij,nkj->nk", y, inv, y)))
        lightness = ClassModel(c.refs, open_set_distance(4), c.min_margin, c.floor, c.pair_margins)
        return lightness.decide_distances(np.min(dist, axis=0))

    def _by_parity(
        self,
        shifted: np.ndarray,
        flat: np.ndarray,
        letters: list[str],
        why: np.ndarray,
        dist: np.ndarray,
        own_empty: np.ndarray | None = None,
    ) -> tuple[list[str], np.ndarray, np.ndarray]:
        """Read empty the places the flatness surely reads empty while the looks lean to a piece,
        where their colour is that of the picture's other flat places of the same parity, and as
        pieces the places both lean to a piece, where unlike those; say which places were so read
        (`why` changed in place to "" there).

        Light and dark squares alternate (the lattice's parity; on a Go board every place is
        alike): an empty place shows its parity's bare board. Another board renders its squares
        otherwise than the learning board (a printed board's white squares near a wooden set's
        light pieces), but within one picture the empty places of one parity share a rendering.
        The places of that parity that the flatness surely reads empty and the looks do not
        surely read as a piece give its empty look in this picture (`_parity_looks`), from the
        others than the place read. The place reads empty, sure, when that look is within the
        open-set distance and nearer than every piece look by the margins the model needs
        (`min_margin`, the pair margins). The other way round, a place the flatness and the looks
        both lean to a piece reads the piece its looks are nearest when that look is nearer than
        its parity's empty look and every look of another piece by those margins (a light piece
        on a light square that the learned looks found as near the square). `dist` is (N, looks)
        from `decide_picture`. Those
        readings lean on the picture's other places, so they say nothing of whether the
        learned looks explain the picture. `shifted` is the (shifts, N, F) features with the
        picture's global offset removed (`_decide_offset`). `own_empty` (`_own_flatness`): places
        the picture's own flat board reads empty, candidates as the flat-sure ones are. Returned
        too: the places the looks surely read as a piece that are flat but beyond the open-set
        distance of their parity's empty look, that piece look nearer by the margins: not the
        bare board whatever the flatness says (`_with_flatness` leaves them sure).
        """
        rows, cols = self.size
        made = np.zeros(len(letters), bool)
        c = self.classes
        letter_of = np.array([r.letter for r in c.refs])
        pieces = np.flatnonzero(letter_of != EMPTY)
        if len(letters) != rows * cols or not len(pieces) or not np.any(letter_of == EMPTY):
            return letters, made, np.zeros(len(letters), bool)
        fdec = self.flat.decide(flat)
        flat_empty = fdec.sure & (np.array(fdec.letters) == EMPTY)
        surely_piece = (why == "") & (np.array(letters) != EMPTY)
        parity = _parity(len(letters), cols)
        not_board = np.zeros(len(letters), bool)
        flat_empty_here = flat_empty if own_empty is None else flat_empty | own_empty
        candidates = flat_empty_here & (np.isin(why, ["margin", "pair", "far"]) | surely_piece)
        out = list(letters)
        for q in (0, 1):
            here = np.flatnonzero(candidates & (parity == q))
            population = flat_empty & ~surely_piece & (parity == q)
            if not len(here) or population.sum() < 2:
                continue
            d_empty, enough = self._parity_distances(shifted[0, population], shifted[:, here], population[here])
            rival = pieces[dist[here][:, pieces].argmin(axis=1)]
            d_piece = dist[here, rival]
            margin = (d_piece - d_empty) / np.maximum(d_piece, 1e-9)
            need = np.array([c.pair_margins.get((EMPTY, c.refs[k].letter), -np.inf) for k in rival])
            read = enough & (d_empty <= c.max_distance) & (margin >= c.min_margin) & (margin > need)
            for i in here[read]:
                why[i], out[i], made[i] = "", EMPTY, True
            # A place the looks surely read as a piece, flat but not of its parity's bare board in
            # this picture (beyond that look's open-set distance, and its piece look nearer by the
            # margins): a piece whose top covers its cell, not the board.
            opposite = (d_empty - d_piece) / np.maximum(d_empty, 1e-9)
            need = np.array([c.pair_margins.get((c.refs[k].letter, EMPTY), -np.inf) for k in rival])
            unlike = (
                enough
                & surely_piece[here]
                & (d_empty > c.max_distance)
                & (opposite >= c.min_margin)
                & (opposite > need)
                & (np.array(letters)[here] == letter_of[rival])
            )
            not_board[here[unlike]] = True
        # A place both readings lean to a piece (the flatness nearest a piece, the looks unsure)
        # reads the piece its looks are nearest when nearer it than its parity's empty look in
        # this picture and every look of another piece by the model's margins.
        leaning = (np.array(fdec.letters) != EMPTY) & np.isin(why, ["margin", "pair", "far"]) & (np.array(out) != EMPTY)
        piece_of = letter_of[pieces]
        for q in (0, 1):
            here = np.flatnonzero(leaning & (parity == q))
            population = flat_empty & ~surely_piece & (parity == q)
            if not len(here) or population.sum() < 2:
                continue
            d_empty, _ = self._parity_distances(shifted[0, population], shifted[:, here], np.zeros(len(here), bool))
            near = dist[here][:, pieces]  # (candidates, piece looks)
            best = near.argmin(axis=1)
            d1 = near[np.arange(len(here)), best]
            other = np.where(piece_of[None] == piece_of[best][:, None], np.inf, near)
            d2 = np.minimum(other.min(axis=1), d_empty)
            rival = np.where(other.min(axis=1) < d_empty, piece_of[other.argmin(axis=1)], EMPTY)
            margin = (d2 - d1) / np.maximum(d2, 1e-9)
            need = np.array([c.pair_margins.get((str(a), str(b)), -np.inf) for a, b in zip(piece_of[best], rival)])
            read = (d1 <= c.max_distance) & (margin >= c.min_margin) & (margin > need)
            for i, letter in zip(here[read], piece_of[best][read]):
                why[i], out[i], made[i] = "", str(letter), True
        return out, made, not_board

    def _by_split(
        self,
        feats: np.ndarray,
        shifted: np.ndarray,
        flat: np.ndarray,
        letters: list[str],
        why: np.ndarray,
        visible: np.ndarray,
        own_piece: np.ndarray | None = None,
    ) -> tuple[list[str], np.ndarray, np.ndarray]:
        """Read the pieces of one picture by splitting them in two by lightness, within each parity
        of the lattice; say which places were so read (`why` "margin", "pair" or "far" changed in
        place to "") and which places read surely the split confirms.

        Between two kinds of pieces (light and dark), only the order of their lightness holds
        from board to board: light pieces are lighter than dark ones in the same light. On one
        square colour a piece shows in the lightness percentile away from the square's own: the
        darkest part of the disc on the lighter squares (the 20th percentile), the lightest on
        the darker ones (the 80th); which parity is lighter, the picture's flat places say. The
        places of a parity that the flatness surely reads as a piece (not empty, `_flat_piece`)
        are split in two where the two groups lie the furthest apart (1-D 2-means); the split
        holds only when the groups' means lie further apart than the open-set distance of one
        dimension in their pooled spread (the rule by which `ClassModel.learn_looks` splits a
        label in two looks), and when the learned lightness looks (`_lightness_decision`) read
        the darker group mostly as the darker piece and the lighter as the lighter. A place
        whose looks lean to the piece its group is named (and are not sure of another) reads it,
        sure, when within the open-set distance of its group and nearer it than the other by the
        model's margins. Pictures of one kind of pieces do not split so. `shifted` as in
        `_by_parity`. `own_piece` (`_own_flatness`): places the picture's own flat board finds
        pieces, which join the split; where their looks lean to empty they say nothing of the
        kind, and the group's name is read. Where the percentile does not split clearly (a dark
        piece's highlight varies with its shape), the disc's median lightness (the piece's own
        colour where it covers most of the disc) may: its split is used when it is clear and
        groups the places exactly as the percentile's best split does.
        """
        rows, cols = self.size
        n_places = len(letters)
        made, agrees = np.zeros(n_places, bool), np.zeros(n_places, bool)
        c = self.classes
        proj = np.zeros((4, N_FEATURES))
        proj[0, 0:3] = proj[1, 3:6] = 1 / 3
        proj[2, 6] = proj[3, 7] = 1
        letter_of = np.array([r.letter for r in c.refs])
        kinds = sorted(
            {str(x) for x in letter_of if x != EMPTY}, key=lambda k: float((c.means[letter_of == k] @ proj.T).mean())
        )
        if n_places != rows * cols or len(kinds) != 2:
            return letters, made, agrees
        fdec = self.flat.decide(flat)
        flat_empty = fdec.sure & (np.array(fdec.letters) == EMPTY)
        parity = _parity(n_places, cols)
        x = shifted[0]
        level = [x[flat_empty & (parity == q), 0:3].mean(axis=1) for q in (0, 1)]
        if min(len(v) for v in level) == 0:
            return letters, made, agrees
        lighter = int(np.median(level[1]) > np.median(level[0]))
        piece = (self._flat_piece(flat) | (False if own_piece is None else own_piece)) & visible
        named = np.full(n_places, "", object)
        judged = False
        limit = open_set_distance(1)
        out = list(letters)
        for q in (0, 1):
            idx = np.flatnonzero(piece & (parity == q))
            v = x[idx, 6] if q == lighter else x[idx, 7]
            split = _split_1d(v)
            if split is None:
                continue
            if split[3] <= limit:
                # Not clear in the percentile: the disc's median lightness (the piece's own, where it
                # covers most of the disc) may split the same places clearly.
                median = x[idx, 0:3].mean(axis=1)
                other = _split_1d(median)
                if other is None or other[3] <= limit or not np.array_equal(other[0][1], split[0][1]):
                    continue
                v, split = median, other
            groups, mean, spread, _ = split
            if not judged:  # the learned lightness looks' names, for the pieces only
                named[piece] = self._lightness_decision(feats, shifted[:, piece]).letters
                judged = True
            if any(np.mean(named[idx[g]] == kind) <= 0.5 for g, kind in zip(groups, kinds)):
                continue
            for j, i in enumerate(idx):
                g = int(groups[1][j])
                own, other = abs(v[j] - mean[g]) / spread, abs(v[j] - mean[1 - g]) / spread
                margin = (other - own) / max(other, 1e-9)
                need = c.pair_margins.get((kinds[g], kinds[1 - g]), -np.inf)
                # The looks must lean to the group's name, unless they lean to empty where the
                # picture's own flat board says it is not empty: then they say nothing of its kind.
                unlike = own_piece is not None and own_piece[i] and out[i] == EMPTY
                if own > limit or margin < c.min_margin or margin <= need or (out[i] != kinds[g] and not unlike):
                    continue
                if why[i] in ("margin", "pair", "far"):
                    why[i], made[i], out[i] = "", True, kinds[g]
                elif why[i] == "" and out[i] == kinds[g]:
                    agrees[i] = True
        return out, made, agrees

    def _own_flatness(
        self, flat: np.ndarray, letters: list[str], why: np.ndarray, visible: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """(N,) places the picture's own flat board reads surely empty, and (N,) places it reads as
        pieces: the flatness (`_flatness`) against the empty look of the place's parity in this
        picture.

        The learned flatness looks come from one board: another board's empty squares can be as
        even as the learned ones and yet of another rim (a printed board's squares at its white
        border), and its pieces shaded otherwise, so the learned looks leave them unsure. Within
        one picture the empty places of one parity are one board, alike. Their flatness look
        (`_parity_looks` over the places the learned flatness surely reads empty and the looks
        do not surely read as a piece, leaving out the place read, shrunk to the learned empty
        flatness look) reads a place empty, sure, when within its open-set distance and nearer it
        than every learned piece flatness look by the flatness model's margins; a place beyond
        its open-set distance whose learned flatness is nearest a piece is not the bare board of
        its parity: a piece, of a kind not yet known."""
        rows, cols = self.size
        f = self.flat
        n_places = len(letters)
        own_empty, own_piece = np.zeros(n_places, bool), np.zeros(n_places, bool)
        letter_of = np.array([r.letter for r in f.refs])
        if n_places != rows * cols or not np.any(letter_of == EMPTY) or np.all(letter_of == EMPTY):
            return own_empty, own_piece
        fdec = f.decide(flat)
        flat_letters = np.array(fdec.letters)
        flat_empty = fdec.sure & (flat_letters == EMPTY)
        surely_piece = (why == "") & (np.array(letters) != EMPTY)
        parity = _parity(n_places, cols)
        dist = f.distances(flat)
        pieces = np.flatnonzero(letter_of != EMPTY)
        limit = open_set_distance(N_FLAT)
        for q in (0, 1):
            here = np.flatnonzero(visible & (parity == q))
            population = flat_empty & ~surely_piece & visible & (parity == q)
            if not len(here) or population.sum() < 2:
                continue
            d_empty, enough = self._parity_distances(flat[population], flat[here], population[here], f)
            rival = pieces[dist[here][:, pieces].argmin(axis=1)]
            d_piece = dist[here, rival]
            margin = (d_piece - d_empty) / np.maximum(d_piece, 1e-9)
            need = np.array([f.pair_margins.get((EMPTY, f.refs[k].letter), -np.inf) for k in rival])
            own_piece[here] = enough & (d_empty > limit) & (flat_letters[here] != EMPTY)
            seen_pieces = own_piece & (parity == q)
            if seen_pieces.sum() >= 2:
                # The pieces of this parity in this picture: their own flatness look is the rival.
                d_piece = self._parity_distances(flat[seen_pieces], flat[here], seen_pieces[here], f, True)[0]
                margin = (d_piece - d_empty) / np.maximum(d_piece, 1e-9)
            own_empty[here] = enough & (d_empty <= limit) & (margin >= f.min_margin) & (margin > need)
        return own_empty, own_piece

    def _by_own_board(
        self,
        shifted: np.ndarray,
        flat: np.ndarray,
        letters: list[str],
        why: np.ndarray,
        dist: np.ndarray,
        visible: np.ndarray,
    ) -> tuple[list[str], np.ndarray, np.ndarray]:
        """Read empty the places whose looks and flatness together are those of their parity's bare
        board in this picture; say which places were so read (`why` "margin", "pair" or "far"
        changed in place to "") and which places read empty this reading confirms.

        The looks (`place_features`) and the flatness (`_flatness`) are two readings of one place:
        a place is one thing in both, empty or the same piece. Each alone may leave an empty
        square of another board near a piece (its dark squares as dark as a learned dark piece,
        its edge squares as uneven as a nearly flat learned light piece), but rarely near the same
        piece in both. So each label's distance is that of both readings together (the squared
        Mahalanobis distances added: the two taken as independent given the label): for empty, to
        the place's parity's empty look in this picture in both (`_parity_looks`, over the places
        the flatness surely reads empty and the looks do not surely read as a piece, the place
        left out); for a piece, to its nearest look of that piece in each (the looks following the
        picture, `dist` from `decide_picture`, and the learned flatness looks), or to the look of
        this picture's own pieces of that kind on that parity where it is nearer (two or more read
        surely, their flatness nearest that piece too: another set's pieces, unlike the learned
        ones, and the only fair rival of a look taken from this picture). The place reads empty,
        sure, when within the open-set distance of both readings' features and nearer empty than
        every piece by the model's margins (`min_margin`, and the pair margins of both models).
        Asked are the places the looks leave unsure by "margin" or "pair", those they read surely
        as a piece that the flatness is not sure of (the looks alone: a dark square of another
        board as dark as the learned dark piece), and those read surely empty (which this reading
        may confirm, see `judge`'s "picture"); not a "far" place: the
        learned looks know nothing of it, so a learned piece look is no measure of it. Like
        `_by_parity` this leans on the picture's own places, so it says nothing of whether the
        learned looks explain the picture."""
        rows, cols = self.size
        n_places = len(letters)
        made, agrees = np.zeros(n_places, bool), np.zeros(n_places, bool)
        c, f = self.classes, self.flat
        letter_of = np.array([r.letter for r in c.refs])
        flat_of = np.array([r.letter for r in f.refs])
        kinds = sorted({str(k) for k in letter_of if k != EMPTY})
        if (
            n_places != rows * cols
            or not kinds
            or not np.any(letter_of == EMPTY)
            or not set(kinds) <= {str(k) for k in flat_of}
        ):
            return letters, made, agrees
        fdec = f.decide(flat)
        flat_empty = fdec.sure & (np.array(fdec.letters) == EMPTY)
        read_as = np.array(letters)
        surely_piece = (why == "") & (read_as != EMPTY)
        parity = _parity(n_places, cols)
        fdist = f.distances(flat)
        flat_read = np.array(fdec.letters)
        asked = visible & (
            np.isin(why, ["margin", "pair"])
            | ((why == "") & (read_as == EMPTY))
            | (surely_piece & ~(fdec.sure & (flat_read == read_as)))
        )
        limit = open_set_distance(N_FEATURES + N_FLAT)
        out = list(letters)
        for q in (0, 1):
            here = np.flatnonzero(asked & (parity == q))
            population = flat_empty & ~surely_piece & visible & (parity == q)
            if not len(here) or population.sum() < 2:
                continue
            inside = population[here]
            d_looks, enough = self._parity_distances(shifted[0, population], shifted[:, here], inside)
            d_flat = self._parity_distances(flat[population], flat[here], inside, f)[0]
            d_empty = np.sqrt(d_looks**2 + d_flat**2)
            best_margin = np.full(len(here), np.inf)
            for k in kinds:
                k_looks = dist[here][:, letter_of == k].min(axis=1)
                k_flat = fdist[here][:, flat_of == k].min(axis=1)
                seen = surely_piece & visible & (read_as == k) & (flat_read == k) & (parity == q)
                if seen.sum() >= 2:
                    # This picture's own pieces of this kind on this parity: the nearer rival.
                    k_looks = np.minimum(
                        k_looks, self._parity_distances(shifted[0, seen], shifted[:, here], seen[here], None, True)[0]
                    )
                    k_flat = np.minimum(k_flat, self._parity_distances(flat[seen], flat[here], seen[here], f, True)[0])
                d_k = np.sqrt(k_looks**2 + k_flat**2)
                margin = (d_k - d_empty) / np.maximum(d_k, 1e-9)
                need = max(c.pair_margins.get((EMPTY, k), -np.inf), f.pair_margins.get((EMPTY, k), -np.inf))
                best_margin = np.minimum(best_margin, np.where(margin > need, margin, -np.inf))
            sure = enough & (d_empty <= limit) & (best_margin >= c.min_margin)
            for i in here[sure]:
                if why[i] == "" and read_as[i] == EMPTY:
                    agrees[i] = True
                else:
                    why[i], out[i], made[i] = "", EMPTY, True
        return out, made, agrees

    def _flat_piece(self, flat: np.ndarray) -> np.ndarray:
        """(N,) places the flatness surely reads as some piece rather than empty: within the open-set
        distance of a piece look and nearer it than every empty look by the flatness model's
        margins (whichever piece)."""
        f = self.flat
        dist = f.distances(flat)
        letter_of = np.array([r.letter for r in f.refs])
        if not np.any(letter_of == EMPTY) or np.all(letter_of == EMPTY):
            return np.zeros(len(flat), bool)
        d_empty, d_piece = dist[:, letter_of == EMPTY].min(axis=1), dist[:, letter_of != EMPTY].min(axis=1)
        margin = (d_empty - d_piece) / np.maximum(d_empty, 1e-9)
        need = max([f.pair_margins.get((str(k), EMPTY), -np.inf) for k in set(letter_of) - {EMPTY}])
        return (d_piece <= f.max_distance) & (margin >= f.min_margin) & (margin > need)

    def _parity_distances(
        self,
        population: np.ndarray,
        samples: np.ndarray,
        inside: np.ndarray,
        classes: ClassModel | None = None,
        pieces: bool = False,
    ) -> tuple[np.ndarray, np.ndarray]:
        """(m,) Mahalanobis distance of each of m places to its parity's look in this picture
        (`_parity_looks`, the place left out where it is one of `population`), and (m,) whether
        that look had two places or more. `samples` is (m, F), or (shifts, m, F) for the looks'
        features at every sample position (the nearest counts; the first is the place's own, the
        one left out)."""
        first = samples[0] if samples.ndim == 3 else samples
        mean, inv, enough = self._parity_looks(population, first, inside, classes, pieces)
        y = samples - mean
        d2 = np.einsum("...ni,nij,...nj->...n", y, inv, y)
        return np.sqrt(d2.min(axis=0) if samples.ndim == 3 else d2), enough

    def _parity_looks(
        self,
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
        Returned: (m, F) means, (m, F, F) inverses and (m,) whether two places or more were left.
        `classes`: the looks whose empty look is the prior (the flatness's, `flat`) instead of the
        learned looks of `place_features`; `pieces`: the population is pieces, and the prior the
        learned piece look nearest its mean."""
        c = self.classes if classes is None else classes
        n, dims = population.shape
        centre = population.mean(axis=0)
        empty = np.flatnonzero((np.array([r.letter for r in c.refs]) == EMPTY) != pieces)
        near = self._shaded(centre[None])[0] if classes is None else c.distances(centre[None])[0]
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
        enough = count >= 2
        own = scatters / np.maximum(count - 1, 1)[:, None, None]
        k = count[:, None, None]
        cov = (k * own + dims * prior) / (k + dims) * (1 + 1 / np.maximum(k, 1)) + np.diag(c.floor)
        return mean, np.linalg.inv(cov), enough

    def _with_flatness(
        self, letters: list[str], why: np.ndarray, flat: np.ndarray, not_board: np.ndarray | None = None
    ) -> tuple[list[str], np.ndarray, np.ndarray]:
        """Join the flatness reading (`_flatness`, which does not depend on the board) to the
        looks' reading; say which places only the flatness made sure (as empty) and which the two
        readings agree on: read empty with the flatness nearest an empty look too (sure or not), or
        read surely as a piece that the flatness surely reads as the same piece.

        Where the flatness surely reads a place empty and the looks surely a piece, or the other
        way round, the place is unsure ("flat"). Where only the flatness is sure, and of an empty
        place, the place reads empty: the board shows flat there, whatever its colours, when the
        looks lean to empty too or know nothing of the place (beyond the open-set distance of
        every look: another board). Where the looks lean to a piece, even unsurely, the two
        disagree and the place stays unsure."""
        fdec = self.flat.decide(flat)
        flat_empty = fdec.sure & (np.array(fdec.letters) == EMPTY)
        out = list(letters)
        only_flat = np.zeros(len(out), bool)
        for i in range(len(out)):
            if not fdec.sure[i]:
                continue
            if why[i] == "":
                if flat_empty[i] != (out[i] == EMPTY) and not (not_board is not None and not_board[i]):
                    why[i] = "flat"
            elif flat_empty[i] and (out[i] == EMPTY or why[i] == "far"):
                why[i] = ""
                out[i] = EMPTY
                only_flat[i] = True
        flat_letters, read = np.array(fdec.letters), np.array(out)
        nearest_empty = (flat_letters == EMPTY) & (read == EMPTY)
        same_piece = fdec.sure & (flat_letters != EMPTY) & (flat_letters == read) & (why == "")
        return out, only_flat, nearest_empty | same_piece

    def _between(self, feats: np.ndarray, letters: list[str], best: np.ndarray) -> np.ndarray:
        """(N,) places whose piece stands between them and the next place: each of the two shows
        the label only in its sample moved towards the other (at its own point the look is
        beyond the open-set distance), and both read it. One piece seen from two places; which
        of them it stands on is not known.

        The moved samples absorb a piece a little off its point, or seen displaced at an angle
        (then it is seen from its place only, towards the far side).
        """
        rows, cols = self.size
        feats = np.asarray(feats, np.float64)
        if feats.ndim == 2 or len(feats) != len(SHIFTS):
            return np.zeros(len(letters), bool)
        n = np.arange(len(letters))
        chosen = np.stack([self._shaded(f)[n, best] for f in feats])  # (shifts, N)
        off_point = chosen[0] > self.classes.max_distance
        step = np.rint(SHIFTS[chosen.argmin(axis=0)] / SHIFT).astype(int)  # (N, 2) as (dx, dy)
        r, c = np.divmod(n, cols)
        rr, cc = r + step[:, 1], c + step[:, 0]
        inside = (rr >= 0) & (rr < rows) & (cc >= 0) & (cc < cols)
        other = np.where(inside, rr * cols + cc, n)
        label = np.array(letters, object)
        towards = off_point & (other != n)
        return towards & towards[other] & (other[other] == n) & (label[other] == label)

    def decide(self, feats: np.ndarray) -> tuple[Decision, np.ndarray]:
        """The classifier's decision for every place and the (N, looks) distances it was made on.

        A first reading gives the places read surely; the median offset between them and their
        looks' means is what the light estimate missed (a tone curve, the board's material
        answering differently from the pieces). It is the same for every place, so it is
        removed and the board read again: the classes keep their order under any light.
        """
        dec, dist, _ = self._decide_offset(feats)
        return dec, dist

    def _decide_offset(self, feats: np.ndarray) -> tuple[Decision, np.ndarray, np.ndarray]:
        """`decide`, and the (shifts, N, F) features with the global offset removed."""
        feats = np.asarray(feats, np.float64)
        if feats.ndim == 2:
            feats = feats[None]
        dist, pos = self.distances(feats)
        dec = self.classes.decide_distances(dist)
        n = np.arange(feats.shape[1])
        best = dist.argmin(axis=1)
        if dec.sure.sum() >= 4:
            chosen = feats[pos[n, best], n]
            resid = (chosen - self.classes.means[best])[dec.sure]
            offset = np.median(resid, axis=0)
            per_channel = np.clip((offset[0:3] + offset[3:6]) / 2, -0.3, 0.3)
            full = np.concatenate([per_channel, per_channel, [per_channel.mean()] * 2])
            feats = feats - full
            dist, _ = self.distances(feats)
            dec = self.classes.decide_distances(dist)
        return dec, dist, feats

    def decide_picture(self, feats: np.ndarray) -> tuple[Decision, np.ndarray]:
        """`decide` for the places of one picture, with the looks following that picture.

        One learning photo cannot show how every board, set of pieces and camera renders a
        label: white stones brighter under another camera, a board's squares of more or less
        contrast. Within one picture every place of a label shares that rendering, so the
        looks are moved to the picture (`_followed`) and the picture is read again.
        Rules keep this from inventing readings:

        * only a picture the learned looks already explain (`MIN_EXPLAINED` of its places read
          surely, see `read`) is followed: a picture of another board, whose few sure places
          are chance likenesses, stays as the learned looks read it;
        * only places read surely move a look (`_followed`), so two labels whose looks overlap
          never pull each other's places;
        * a place that only the following made sure must be nearer its look than the half-way
          blend of that look and a look of another label (in its look's metric): a place half
          covered by a neighbouring piece lies between the two and stays unsure;
        * the open-set rule stays with the learned looks, but for a place whose look only the
          following brought near (a white stone brighter than any learned) when it reads so at
          its point, or sampled away from its neighbours of the same reading: one that matches
          only when sampled towards a neighbour read the same may be seeing that neighbour's
          piece, seen off its point from an angle, and stays unsure (`_towards_same`).
        """
        dec0, dist0, feats = self._decide_offset(feats)
        if dec0.sure.sum() < MIN_EXPLAINED * len(dec0.sure):
            return dec0, dist0
        means, dist, pos = self._followed(feats, dec0, dist0)
        dec = self.classes.decide_distances(dist)
        best = dist.argmin(axis=1)
        learned = dist0.min(axis=1)
        known = learned <= self.classes.max_distance
        inv = self.classes.inv
        # Where a place matches only off its point, towards a neighbour read the same, while
        # read at its point it is not surely that label, it may be seeing that neighbour's piece.
        at_point = self.classes.decide_distances(self._distances_to(feats[:1], means)[0])
        towards_same = self._towards_same(dec.letters, pos[np.arange(len(best)), best]) & ~(
            at_point.sure & (np.array(at_point.letters) == np.array(dec.letters))
        )
        for i in np.flatnonzero(dec.sure & ~dec0.sure):
            k = best[i]
            x = feats[pos[i, k], i]
            own = (x - means[k]) @ inv[k] @ (x - means[k])
            halfway = (means[k][None] + means[~self.classes.same[k]]) / 2 - x
            blend = np.any(np.einsum("ki,ij,kj->k", halfway, inv[k], halfway) <= own)
            if blend or (towards_same[i] and not known[i]):
                dec.sure[i] = False
        far = ~known & ~dec.sure
        dec.distance = np.where(far, learned, dec.distance)  # so `judge` names a far place far
        return dec, dist

    def _towards_same(self, letters: list[str], shift: np.ndarray) -> np.ndarray:
        """(N,) whether each place's chosen sample position (index into SHIFTS) lies towards a
        neighbouring place that reads the same label (False for a sample at the point itself,
        and for features that are not one whole lattice)."""
        rows, cols = self.size
        out = np.zeros(len(letters), bool)
        if len(letters) != rows * cols:
            return out
        grid = np.array(letters).reshape(rows, cols)
        step = np.sign(SHIFTS).astype(int)  # (dx, dy) of every sample position
        for i, s in enumerate(shift):
            dx, dy = step[s]
            r, c = divmod(i, cols)
            if (dx or dy) and 0 <= r + dy < rows and 0 <= c + dx < cols:
                out[i] = grid[r + dy, c + dx] == letters[i]
        return out

    def _distances_to(self, feats: np.ndarray, means: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """As `distances` (the same shadow allowance), to looks of the learned spreads centred
        at `means` (looks, F)."""
        d = np.stack([self._shaded(f, means) for f in feats])  # (shifts, N, looks)
        return d.min(axis=0), d.argmin(axis=0)

    def _followed(
        self, feats: np.ndarray, dec: Decision, dist: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The looks' means in this picture, and the (N, looks) distances and sample positions
        of every place to them.

        Per look: the mean of the places read surely as that look (at the sample position that
        fits it best), with the learned mean counted as N_FEATURES places more (the weight
        `ClassModel.learn_looks` gives the pooled spread when it shrinks a look's own); read
        again and repeated until the same places read the same way. Only sure places move a
        look, so two labels whose looks overlap never pull each other's places."""
        learned = self.classes.means
        means = learned
        n = np.arange(feats.shape[1])
        sure, best = dec.sure, dist.argmin(axis=1)
        dist, pos = self._distances_to(feats, means)
        for _ in range(FOLLOW_ROUNDS):
            new = learned.copy()
            for k in range(len(learned)):
                mine = sure & (best == k)
                if mine.any():
                    x = feats[pos[mine, k], n[mine]]
                    new[k] = (x.sum(axis=0) + N_FEATURES * learned[k]) / (mine.sum() + N_FEATURES)
            means = new
            before = (sure, best, pos)
            dist, pos = self._distances_to(feats, means)
            sure, best = self.classes.decide_distances(dist).sure, dist.argmin(axis=1)
            if all(np.array_equal(a, b) for a, b in zip(before, (sure, best, pos))):
                break  # the same places read the same way: the means would not move again
        return means, dist, pos


def _parity(n_places: int, cols: int) -> np.ndarray:
    """(n_places,) 0 or 1: which of the chequered board's two colours each place (row by row) is
    on; on a Go board the two are alike."""
    return np.add(*np.divmod(np.arange(n_places), cols)) % 2


def _two_means_1d(v: np.ndarray) -> float | None:
    """The value that splits `v` in two groups of at least two with the least spread within them
    (the best 1-D 2-means), or None for fewer than four values."""
    if len(v) < 4:
        return None
    o = np.sort(v)
    best = min(range(2, len(o) - 1), key=lambda k: o[:k].var() * k + o[k:].var() * (len(o) - k))
    return float((o[best - 1] + o[best]) / 2)


def _split_1d(v: np.ndarray) -> tuple[list[np.ndarray], list[float], float, float] | None:
    """The best two groups of `v` (`_two_means_1d`): (the lower and the upper group as bools,
    their means, their pooled spread with the floor, how many spreads their means lie apart), or
    None for fewer than four values."""
    cut = _two_means_1d(v)
    if cut is None:
        return None
    groups = [v < cut, v >= cut]
    within = sum(((v[g] - v[g].mean()) ** 2).sum() for g in groups) / (len(v) - 2)
    spread = float(np.sqrt(within + FLOOR**2))
    mean = [float(v[g].mean()) for g in groups]
    return groups, mean, spread, (mean[1] - mean[0]) / spread


def learn(
    samples: list[tuple[np.ndarray, list[list[str]]]], size: tuple[int, int], corners: list[np.ndarray]
) -> LatticeModel:
    """A model from (image, labels) pairs, each with its own lattice corners: the looks of
    every label (`ClassModel.learn_looks`), every place counted once however many of its
    shifted samples are kept, and the margins a reading needs between two labels
    (`_held_out_margins`)."""
    looks, flats, labels, places = [], [], [], []
    first = 0
    for (image, grid), cor in zip(samples, corners):
        seen = describe(image, size, cor)
        flat = [ch for row in grid for ch in row]
        looks.append(seen.feats)  # (shifts, N, F)
        flats.append(seen.flat)
        labels += flat
        places.append(first + np.arange(len(flat)))
        first += len(flat)
    feats = np.concatenate(looks, axis=1).astype(np.float64)  # (shifts, places, F)
    place = np.concatenate(places)
    model = _fit(feats, labels, place, size)
    pairs = _held_out_margins(feats, labels, place, size)
    return LatticeModel(
        model.size,
        ClassModel(model.classes.refs, floor=model.classes.floor, pair_margins=pairs),
        _fit_flat(np.concatenate(flats).astype(np.float64), labels),
    )


def _folds(labels: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """The cross-validation's parts: (N,) the part of every place (each label's places dealt in
    turn, so every part keeps some of every label that has two) and (N,) the places whose label
    has only one place (never held out: it would not be learned at all)."""
    fold = np.zeros(len(labels), int)
    seen: dict[str, int] = {}
    for i, label in enumerate(labels):
        fold[i] = seen.get(label, 0) % FOLDS
        seen[label] = seen.get(label, 0) + 1
    return fold, np.array([seen[label] < 2 for label in labels], bool)


def _widen(pairs: dict[tuple[str, str], float], read: str, truth: str, rival: str, d1: float, d2: float) -> None:
    """Record a held-out place of label `truth` read as `read` with `truth` its nearest rival:
    a reading of `read` against `truth` then needs more than this place's margin."""
    if read != truth and np.isfinite(d2) and rival == truth:
        pairs[(read, truth)] = max(pairs.get((read, truth), 0.0), float((d2 - d1) / max(d2, 1e-9)))


def _fit_flat(flat: np.ndarray, labels: list[str]) -> ClassModel:
    """The looks of every label in the flatness features (`_flatness`), with the margins a reading
    needs between two labels from the same cross-validation as `_held_out_margins`: a white stone
    as even as the board and of its colour reads empty when held out, and so no reading of an
    empty place is sure by less than the margin that stone had."""
    floor = np.full(N_FLAT, FLOOR**2)
    fold, alone = _folds(labels)
    pairs: dict[tuple[str, str], float] = {}
    for k in range(FOLDS):
        out = np.flatnonzero((fold == k) & ~alone)
        keep = (fold != k) | alone
        if not len(out):
            continue
        held = ClassModel(
            ClassModel.learn_looks(flat[keep], [c for c, kept in zip(labels, keep) if kept], floor=floor), floor=floor
        )
        dist = held.distances(flat[out])
        best = dist.argmin(axis=1)
        rival = np.where(held.same[best], np.inf, dist)
        d1, d2 = dist[np.arange(len(out)), best], rival.min(axis=1)
        for j, i in enumerate(out):
            read, truth = held.refs[best[j]].letter, labels[i]
            _widen(pairs, read, truth, held.refs[int(rival[j].argmin())].letter, d1[j], d2[j])
    return ClassModel(ClassModel.learn_looks(flat, labels, floor=floor), floor=floor, pair_margins=pairs)


def _fit(feats: np.ndarray, labels: list[str], place: np.ndarray, size: tuple[int, int]) -> LatticeModel:
    """The looks of (shifts, N, F) labelled place features, every shift a sample of its place."""
    shifts = len(feats)
    x = feats.reshape(-1, feats.shape[2])
    floor = np.full(N_FEATURES, FLOOR**2)
    refs = ClassModel.learn_looks(x, labels * shifts, np.tile(place, shifts), floor)
    return LatticeModel(tuple(size), ClassModel(refs, floor=floor))


def _held_out_margins(
    feats: np.ndarray, labels: list[str], place: np.ndarray, size: tuple[int, int]
) -> dict[tuple[str, str], float]:
    """A cross-validation of the learning pictures: the places are dealt into `FOLDS` parts (each
    label's places in turn, so every part keeps some of every label that has two) and each part
    is read by the model learned without it. Where a place of label B is read as A, the features
    cannot tell A from B everywhere (a dark piece on a dark square can look like the square), and
    a reading of A whose nearest rival is B is then sure only by a wider margin than that
    place's. Returned: (A, B) -> the widest such margin. A label with one place is not held out
    (it would not be learned at all)."""
    fold, alone = _folds(labels)
    out: dict[tuple[str, str], float] = {}
    for k in range(FOLDS):
        out_ = np.flatnonzero((fold == k) & ~alone)
        if not len(out_):
            continue
        keep = (fold != k) | alone
        held = _fit(feats[:, keep], [c for c, kept in zip(labels, keep) if kept], place[keep], size)
        dec, dist = held.decide(feats[:, out_])
        best = dist.argmin(axis=1)
        rival = np.where(held.classes.same[best], np.inf, dist)
        d1, d2 = dist[np.arange(len(out_)), best], rival.min(axis=1)
        for j, i in enumerate(out_):
            read, truth = dec.letters[j], labels[i]
            _widen(out, read, truth, held.classes.refs[int(rival[j].argmin())].letter, d1[j], d2[j])
    return out


def read(model: LatticeModel, image: np.ndarray, corners: np.ndarray) -> tuple[list[list[str]], np.ndarray, np.ndarray]:
    """The label of every place of a picture (row lists), whether it is sure and a confidence
    ((rows, cols) arrays)."""
    rows, cols = model.size
    seen = describe(image, model.size, corners)
    labels, sure, conf = model.read(seen.feats, seen.hidden, seen.flat)
    grid = [labels[r * cols : (r + 1) * cols] for r in range(rows)]
    return grid, sure.reshape(rows, cols), conf.reshape(rows, cols)


__all__ = [
    "CornersError",
    "LatticeModel",
    "MODEL_VERSION",
    "illumination",
    "learn",
    "load_image",
    "parse_labels",
    "parse_size",
    "place_features",
    "read",
]
