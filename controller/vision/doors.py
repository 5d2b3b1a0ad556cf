"""Flipop doors: which wings each of the 16 posts holds, or `?` when unsure.

A wing is a bar from its post along a cell edge, so each post is read from its four half-edges
(N, E, S, W): a thin strip on the edge line, from just off the post to just short of the edge's
middle. Balls sit at cell centres, a good gap away from every edge line, so the strip never sees
them. Each strip's robust colour (the darker half of its unclipped pixels: a highlight on the
metal or glare does not count) is compared with the bare board next to the post (small patches
on the four diagonals, where neither wings nor balls ever are): the difference, in the reader's
shading-tolerant colour features, is classified present or absent with a margin.

A post's reading is kept only when all four half-edges are sure and together make a door the
post can have (its profile start shape at one of its four turns); anything else is `?`.
Defaults come from the standard edition's colours (`looks`); `calibration/vision_glyphs.py`
learns a real copy's from a picture of the start position.

A second cue reads the wings' shape (`bar_cues`): a wing is bare steel, neutral in colour, and
seen from above it is a line about as thin as its plate (2 mm) on the edge line, with the coloured
floor again on both sides. A cast shadow darkens the floor and, lit only by the other lights of
the room, moves its colour somewhat towards theirs, but over a broad patch with soft edges (a
post's shadow is wider than the post and its edge blurs with distance), never into a thin neutral
line. Under a low lamp the post's shadow lies along a half-edge and has a wing's colour there, so
the colour reading leaves those posts `?`; the thin neutral lines of the wings that are there still
tell the door when they leave one turn of the post's shape. The shape cue is looked for only on the
posts the colour leaves `?` (on the 3D and flat renders, 1,473 posts read by both never disagreed,
and it costs more than the colour reading); where the floor is too near neutral for a line to stand
out, it says nothing.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass

import cv2
import numpy as np

from controller.errors import ConfigError
from controller.games import registry
from controller.games.spec import DOORS_ADDON, LineReader
from controller.language import _
from controller.snapshot import EMPTY, parse_snapshot
from controller.vision import looks
from controller.vision.classify import ClassModel, ClassRef
from controller.vision.features import SATURATED, colour_features, masked_median
from controller.vision.light import local_white

WINGS = "NESW"
STEP = {"N": (0.0, -1.0), "E": (1.0, 0.0), "S": (0.0, 1.0), "W": (-1.0, 0.0)}
CLOCKWISE = {"N": "E", "E": "S", "S": "W", "W": "N"}
ALONG = np.linspace(0.14, 0.40, 9)  # pitches from the post along a half-edge
ACROSS = np.array([-0.015, 0.0, 0.015])  # pitches either side of the edge line
DIAG = 0.16  # the bare-board patches sit this far from the post on both axes
DIAG_SPREAD = np.array([-0.03, 0.0, 0.03])
#: Most of a strip that glare may hide. Steel and bare groove differ so much that the robust
#: colour of a few unclipped samples (a sixth of the 27) still tells them apart with the
#: classifier's margin; every door `?` on hard renders came from glare hiding 41-81% of one
#: half-edge, whose guess was right each time.
MAX_HIDDEN = 0.85
GLARE_OVER_WHITE = 1.12
#: Default spread of a half-edge's feature difference (log brightness, two chromaticities).
DEFAULT_SIGMA = (0.2, 0.04, 0.05)
PRESENT, ABSENT = "1", "0"

#: The shape cue (see the module's docstring): profiles across each half-edge, in pitches.
BAR_ACROSS_STEP = 0.01
BAR_ACROSS = np.arange(-20, 21) * BAR_ACROSS_STEP
#: The wing's line is looked for this near the edge line: a wing turned off square by a few
#: degrees, or a pose a little off, moves it by up to about 0.02 pitch.
BAR_CENTRE = 0.04
#: Both sides of a wing's line this far from it show the floor: the plate is 2 mm (0.05 pitch)
#: thick. A camera seeing the plate's side face sees a broader line there: the cue stays silent.
BAR_FLANK = 0.08
#: Samples at least this far off the edge line give the floor's colour.
BAR_FLOOR_FROM = 0.10
#: A floor whose colour is nearer neutral than this (log chromaticity from the paper white's)
#: leaves no room for a neutral line to stand out: no shape cue.
BAR_MIN_FLOOR_CHROMA = 0.15
#: A wing: its line is at least this far from the floor's colour towards neutral (1 = neutral),
#: more than on both flanks. Steel lines measured 0.2-1.2 on 3D renders, cast shadows at most 0.2.
WING_BAR = 0.4
#: Bare: nothing on the edge line even this far towards neutral (steel lines are 0.5 or more).
BARE_PEAK = 0.2


def posts(rows: int = 5, cols: int = 5) -> np.ndarray:
    """Board points (x, y) of the posts, row-major: post (i, j) is at (j + 0.5, i + 0.5)."""
    ii, jj = np.mgrid[0 : rows - 1, 0 : cols - 1]
    return np.stack([jj.ravel() + 0.5, ii.ravel() + 0.5], axis=1).astype(np.float64)


def post_of(k: int, cols: int) -> tuple[int, int]:
    """Post `k` of a door line (row-major, as `posts` orders them) as (i, j): the corner shared by the
    places (i, j), (i, j + 1), (i + 1, j) and (i + 1, j + 1) of a board `cols` places wide."""
    return divmod(k, cols - 1)


def _strip_offsets() -> np.ndarray:
    """(4 wings, S, 2) board offsets of every strip sample from its post."""
    out = []
    for w in WINGS:
        dx, dy = STEP[w]
        pts = [(t * dx - s * dy, t * dy + s * dx) for t in ALONG for s in ACROSS]
        out.append(pts)
    return np.array(out, np.float64)


def _ref_offsets() -> np.ndarray:
    """(R, 2) board offsets of the bare-board samples around a post."""
    pts = []
    for sx in (-1, 1):
        for sy in (-1, 1):
            for u in DIAG_SPREAD:
                for v in DIAG_SPREAD:
                    pts.append((sx * DIAG + u, sy * DIAG + v))
    return np.array(pts, np.float64)


STRIPS = _strip_offsets()
REFS = _ref_offsets()


def turns(door: str) -> frozenset[str]:
    """Every orientation a door of this shape can show (in N E S W order)."""
    out = set()
    for _turn in range(4):
        out.add("".join(w for w in WINGS if w in door))
        door = "".join(CLOCKWISE[w] for w in door)
    return frozenset(out)


def unknown_door(game: str) -> str | None:
    """The token of a door not read: the one the game's `doors` line declares (`ExtraLine.unknown`)."""
    line = registry.get(game).extra_line("doors")
    return line.unknown if line is not None else None


def shapes_from_profile(profile) -> list[frozenset[str]]:
    """Per post, the door orientations its shape allows (from the profile's start doors)."""
    start = profile.get("start")
    doors = parse_snapshot(profile.game, start).line("doors") if start else None
    if not doors or unknown_door(profile.game) in doors:
        raise ConfigError("start", _("door reading needs the start position's doors line"))
    return [turns(d) for d in doors]


def _f(rgb: tuple[int, int, int]) -> np.ndarray:
    bgr = np.array(rgb[::-1], np.float64) / np.array(looks.PAPER[::-1], np.float64)
    return colour_features(bgr[None, :])[0]


def default_model(floor: tuple[int, int, int] | None = None) -> ClassModel:
    """References from the standard edition's look: a steel bar or the bare groove against the
    wooden floor (`floor`, RGB: the empty look of the game's places; by default that of the first
    game whose reader reads doors). A strip is a few pixels wide, so the camera's blur mixes some
    floor into it; the means assume a part of each (most of the bar, half of the thin groove)."""
    if floor is None:
        with_doors = registry.with_capability(lambda spec: spec.reads(DOORS_ADDON))
        floor = looks.pieces(with_doors[0].name)[EMPTY]
    wood = _f(floor)
    cov = np.diag(np.array(DEFAULT_SIGMA) ** 2)
    metal = 0.8 * (_f(looks.METAL) - wood)
    groove = 0.5 * (_f(looks.GROOVE) - wood)
    return ClassModel([ClassRef("wing", PRESENT, metal, cov.copy()), ClassRef("bare", ABSENT, groove, cov.copy())])


def model_from_settings(settings: dict, floor: tuple[int, int, int] | None = None) -> ClassModel:
    """The profile's learned door references (`vision.doors`), else the defaults on `floor`."""
    data = settings.get("doors")
    if data is None:
        return default_model(floor)
    model = ClassModel.from_yaml(data, path="vision.doors")
    letters = sorted(r.letter for r in model.refs)
    if letters != [ABSENT, PRESENT]:
        raise ConfigError("vision.doors.classes", _("expected two classes, letters '1' (wing) and '0' (bare)"))
    return model


@dataclass
class DoorReading:
    """16 door tokens (`?` where unsure), the per-half-edge features (16, 4, 3) and sureness."""

    doors: tuple[str, ...]
    features: np.ndarray
    present: np.ndarray
    sure: np.ndarray


class DoorSampler:
    """Board points of every strip and bare-board patch; projected once per homography."""

    def __init__(self, rows: int = 5, cols: int = 5) -> None:
        self.posts = posts(rows, cols)
        n = len(self.posts)
        strips = self.posts[:, None, None, :] + STRIPS[None, :, :, :]  # (P, 4, S, 2)
        refs = self.posts[:, None, :] + REFS[None, :, :]  # (P, R, 2)
        self.n_strip = strips.shape[2]
        self.n_ref = refs.shape[1]
        self.points = np.concatenate([strips.reshape(-1, 2), refs.reshape(-1, 2)])
        self.n = n
        self._h: np.ndarray | None = None
        self._map: np.ndarray | None = None
        across = np.array([[-STEP[w][1], STEP[w][0]] for w in WINGS])  # (4, 2): left of each wing
        along = np.array([STEP[w] for w in WINGS])
        self.profile_points = (
            self.posts[:, None, None, None, :]
            + along[None, :, None, None, :] * ALONG[None, None, :, None, None]
            + across[None, :, None, None, :] * BAR_ACROSS[None, None, None, :, None]
        )  # (P, 4, along, across, 2)
        self._bar_h: np.ndarray | None = None
        self._bar_map: np.ndarray | None = None

    def sample(self, frame: np.ndarray, h: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(strip pixels (P, 4, S, 3), bare-board pixels (P, R, 3)) as float32."""
        if self._h is None or not np.array_equal(self._h, h):
            pts = cv2.perspectiveTransform(self.points.reshape(-1, 1, 2), h)
            self._map = pts.reshape(1, -1, 2).astype(np.float32)
            self._h = h.copy()
        m = self._map
        assert m is not None  # projected just above for this homography
        vals = cv2.remap(frame, m[..., 0], m[..., 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)[0].astype(
            np.float32
        )
        k = self.n * 4 * self.n_strip
        return vals[:k].reshape(self.n, 4, self.n_strip, 3), vals[k:].reshape(self.n, self.n_ref, 3)

    def sample_profiles(self, frame: np.ndarray, h: np.ndarray, posts: np.ndarray | None = None) -> np.ndarray:
        """Profiles across every half-edge (P, 4, along, across, 3) as float32: along `ALONG`,
        across `BAR_ACROSS` (for the shape cue); of the posts `posts` (indices) only, when given."""
        if self._bar_h is None or not np.array_equal(self._bar_h, h):
            pts = cv2.perspectiveTransform(self.profile_points.reshape(-1, 1, 2), h)
            self._bar_map = pts.reshape(self.n, 4 * len(ALONG), len(BAR_ACROSS), 2).astype(np.float32)
            self._bar_h = h.copy()
        m = self._bar_map
        assert m is not None  # projected just above for this homography
        if posts is not None:
            m = m[np.asarray(posts, int)]
        m = m.reshape(-1, len(BAR_ACROSS), 2)
        vals = cv2.remap(frame, m[..., 0], m[..., 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        return vals.astype(np.float32).reshape(-1, 4, len(ALONG), len(BAR_ACROSS), 3)


def _hide_glare(vals: np.ndarray, white: np.ndarray | None) -> np.ndarray:
    """Pixels brighter than white paper by a margin are glare: clip them so the robust median
    (which ignores clipped pixels) leaves them out."""
    if white is None:
        return vals
    limit = GLARE_OVER_WHITE * np.asarray(white, np.float32).sum(axis=-1)
    out = vals.copy()
    out[vals.sum(axis=-1) > limit[..., None]] = 255.0
    return out


def door_features(
    sampler: DoorSampler, frame: np.ndarray, h: np.ndarray, white: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """(features (P, 4, 3), fraction of each strip seen (P, 4)). `white` is the paper white at
    each post (P, 3, grey levels) when known; features are in white-normalised colour space."""
    strips, refs = sampler.sample(frame, h)
    p, s = sampler.n, sampler.n_strip
    ws = None if white is None else np.repeat(white[:, None, :], 4, axis=1)
    smed, used = masked_median(_hide_glare(strips, ws).reshape(p * 4, s, 3))
    rmed, _ = masked_median(_hide_glare(refs, white))
    norm = np.asarray(white if white is not None else np.array(looks.PAPER[::-1]) * np.ones((p, 3)), np.float64)
    fs = colour_features(smed / np.repeat(norm, 4, axis=0)).reshape(p, 4, 3)
    fr = colour_features(rmed / norm)
    return fs - fr[:, None, :], used.reshape(p, 4)


def read_doors(
    model: ClassModel,
    shapes: list[frozenset[str]],
    sampler: DoorSampler,
    frame: np.ndarray,
    h: np.ndarray,
    white: np.ndarray | None = None,
    *,
    unknown: str,
) -> DoorReading:
    """Every post's door, or `unknown` (the game's unread door, `unknown_door`) where a half-edge is
    unsure or the wings make no door the post can have.

    The colour of the half-edges decides where it can; only the posts it leaves unread are looked
    at again for the wings' lines (`bar_cues`), so a normally lit board costs no more than colour."""
    feats, used = door_features(sampler, frame, h, white)
    dec = model.decide(feats.reshape(-1, 3))
    present = (np.array(dec.letters) == PRESENT).reshape(sampler.n, 4)
    sure = (dec.sure & (used.reshape(-1) >= 1 - MAX_HIDDEN)).reshape(sampler.n, 4)
    doors = [unknown] * sampler.n
    for k in range(min(sampler.n, len(shapes))):
        token = "".join(w for w, on in zip(WINGS, present[k]) if on)
        if sure[k].all() and token in shapes[k]:
            doors[k] = token
    again = np.array([k for k in range(min(sampler.n, len(shapes))) if doors[k] == unknown], int)
    if len(again):
        wing, bare = bar_cues(sampler.sample_profiles(frame, h, again), None if white is None else white[again])
        for j, k in enumerate(again):
            doors[k] = door_from_lines(shapes[k], wing[j], bare[j]) or unknown
    return DoorReading(tuple(doors), feats, present, sure)


def bar_cues(profiles: np.ndarray, white: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(wing seen (P, 4), bare seen (P, 4)) from the profiles across each half-edge
    (`DoorSampler.sample_profiles`), by the wings' thin neutral lines (the module's docstring).

    Each sample's chromaticity (log red/green, log blue/green, after dividing out the paper white)
    is placed on the line from the floor's (the half-edge's samples off the edge line) to neutral:
    0 at the floor's colour, 1 at neutral. On each profile the most neutral sample near the edge
    line is the line's; it counts by how much more neutral it is than both flanks. The medians
    along the half-edge decide: a wing where the line clearly stands out, bare where the edge line
    holds nothing near neutral. Glare (brighter than the paper) tells no colour and is left out."""
    p, w, n_along, n_across, _ = profiles.shape
    norm = np.asarray(white if white is not None else np.array(looks.PAPER[::-1]) * np.ones((p, 3)), np.float64)
    vals = profiles / norm[:, None, None, None, :]
    limit = GLARE_OVER_WHITE * norm.sum(axis=-1)[:, None, None, None]
    glare = (profiles.sum(axis=-1) > limit) | (profiles.min(axis=-1) >= SATURATED)
    vals = np.maximum(vals, 1e-3)
    chroma = np.stack([np.log(vals[..., 2] / vals[..., 1]), np.log(vals[..., 0] / vals[..., 1])], axis=-1)
    chroma[glare] = np.nan
    off_line = np.abs(BAR_ACROSS) >= BAR_FLOOR_FROM - 1e-9
    with warnings.catch_warnings():  # a half-edge all glare has no floor colour: NaN, no cue
        warnings.simplefilter("ignore", RuntimeWarning)
        return _bar_cues(chroma, off_line, n_along)


def _bar_cues(chroma: np.ndarray, off_line: np.ndarray, n_along: int) -> tuple[np.ndarray, np.ndarray]:
    p, w = chroma.shape[:2]
    floor = np.nanmedian(chroma[:, :, :, off_line].reshape(p, w, -1, 2), axis=2)  # (P, 4, 2)
    size = np.linalg.norm(floor, axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        towards = -floor / size[..., None]
        neutral = np.einsum("pwasc,pwc->pwas", chroma - floor[:, :, None, None, :], towards) / size[:, :, None, None]
    centre = np.flatnonzero(np.abs(BAR_ACROSS) <= BAR_CENTRE + 1e-9)
    flank = int(round(BAR_FLANK / BAR_ACROSS_STEP))
    near = np.where(np.isnan(neutral[..., centre]), -np.inf, neutral[..., centre])
    at = centre[np.argmax(near, axis=-1)]  # (P, 4, along): the line's sample on each profile
    peak = np.take_along_axis(neutral, at[..., None], axis=-1)[..., 0]
    sides = np.maximum(
        np.take_along_axis(neutral, (at - flank)[..., None], axis=-1)[..., 0],
        np.take_along_axis(neutral, (at + flank)[..., None], axis=-1)[..., 0],
    )
    with np.errstate(invalid="ignore"):
        line = np.nanmedian(np.where(np.isfinite(peak), peak - sides, np.nan), axis=-1)
        top = np.nanmedian(np.where(np.isfinite(peak), peak, np.nan), axis=-1)
        seen = (size >= BAR_MIN_FLOOR_CHROMA) & (np.isfinite(peak).sum(axis=-1) * 2 >= n_along)
        return seen & (line >= WING_BAR), seen & (top <= BARE_PEAK)


def door_from_lines(shapes: frozenset[str], wing: np.ndarray, bare: np.ndarray) -> str | None:
    """The one turn of the post's shape that has a wing wherever a wing's line is seen and none
    where the edge line is seen bare, or None (no line seen, or more than one turn fits)."""
    lines = {w for w, on in zip(WINGS, wing) if on}
    empty = {w for w, on in zip(WINGS, bare) if on}
    if not lines:
        return None
    fits = [t for t in shapes if lines <= set(t) and not empty & set(t)]
    return fits[0] if len(fits) == 1 else None


def door_line(reader) -> Callable[[np.ndarray, np.ndarray], tuple[str, ...]]:
    """The door add-on of a board reader (`LineReader.make`): the door tokens (one per post, '?'
    where unsure) of a frame whose board was found, looked for halfway up the wings."""
    model = model_from_settings(reader.settings, floor=looks.pieces(reader.game)[EMPTY])
    shapes = shapes_from_profile(reader.profile)
    sampler = DoorSampler(reader.geom.rows, reader.geom.cols)
    weights = reader.light.weights(sampler.posts)
    unknown = unknown_door(reader.game) or "?"

    def read(frame: np.ndarray, white: np.ndarray) -> tuple[str, ...]:
        h = reader.doors_homography(frame)
        return read_doors(model, shapes, sampler, frame, h, local_white(white, weights), unknown=unknown).doors

    return read


#: The doors on the posts (`DOORS_ADDON`), read as the snapshot's `doors:` line (Flipop's).
DOOR_READER = LineReader("doors", door_line)
