"""Per-game board reading: a frame in, a snapshot (or a clear reason why not) out.

Per frame the reader (1) checks that the cached homography still fits the markers, re-detecting
them only when it does not, (2) rectifies the board once into a small image, (3) takes robust
colour statistics of every place and of the frame's white marker paper (so lighting gradients
and colour casts cancel), (4) classifies each place with a confidence, and (5) looks at the band
of board frame around the lattice for an arm reaching in. A hand, hidden markers or any unsure
place give no snapshot.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field

import cv2
import numpy as np

from controller.errors import ConfigError, RefereeError
from controller.games import registry
from controller.games.spec import DOORS_ADDON, GLYPHS_ADDON
from controller.snapshot import EMPTY, Snapshot
from controller.vision import hands, looks
from controller.vision.classify import ClassModel, ClassRef
from controller.vision.doors import DoorSampler, model_from_settings, read_doors, shapes_from_profile
from controller.vision.features import (
    PatchSampler,
    Rectifier,
    bilinear_weights,
    colour_features,
    ring_offsets,
)
from controller.vision.geometry import (
    MARKERS_HIDDEN,
    LatticeGeometry,
    MarkerCheck,
    MarkerLocaliser,
    homography_from_corners,
    project,
)
from controller.vision.glyphs import GlyphMemory, GlyphModel, read_glyphs

HAND = "a hand or an object is over the board"
#: Rectified pixels per pitch. 12 would make a Blockers! cold read about 7% cheaper (a smaller
#: warp and patches) but reads differently: every colour confidence moves and the paper white it
#: gives the glyph reader changes 2 of 13,622 glyphs' sureness (bench/reading_replay.py).
PPP = 16
MIN_USED = 0.66  # least fraction of a patch that must be free of glare

#: Default spread of each class in feature space (log brightness, two chromaticities).
DEFAULT_SIGMA = (0.22, 0.03, 0.03)

VISION_KEYS = {"version", "classes", "sure", "hand_check", "white", "glyphs", "doors"}


def _white_norm(rgb: tuple[int, int, int]) -> np.ndarray:
    return np.array([rgb[2], rgb[1], rgb[0]], np.float64) / np.array(looks.PAPER[::-1])


def default_model(game: str, letters: str) -> ClassModel:
    """References derived from the standard edition's colours (what the renderer draws)."""
    pal = looks.pieces(game)
    refs = []
    cov = np.diag(np.array(DEFAULT_SIGMA) ** 2)
    for key, rgb in pal.items():
        if key not in letters and not key.startswith(".") and key != "open":
            continue
        letter = EMPTY if key.startswith(".") or key == "open" else key
        mean = colour_features(_white_norm(rgb)[None, :])[0]
        refs.append(ClassRef(key, letter, mean, cov.copy(), key == "open"))
    return ClassModel(refs)


def vision_settings(profile) -> dict:
    """The profile's `vision:` mapping, checked (unknown keys rejected with their path)."""
    data = profile.get("vision") or {}
    if not isinstance(data, dict):
        raise ConfigError("vision", "expected a mapping")
    for key in data:
        if key not in VISION_KEYS:
            raise ConfigError(f"vision.{key}", f"unknown key; known keys: {', '.join(sorted(VISION_KEYS))}")
    if "hand_check" in data and not isinstance(data["hand_check"], bool):
        raise ConfigError("vision.hand_check", "expected true or false")
    if "glyphs" in data:
        from controller.vision.glyphs import check_settings

        check_settings(data["glyphs"])
    if "white" in data:
        w = data["white"]
        if not (
            isinstance(w, list)
            and len(w) == 3
            and all(isinstance(v, (int, float)) and not isinstance(v, bool) and 0 < v <= 255 for v in w)
        ):
            raise ConfigError("vision.white", "expected three numbers 1-255 (B, G, R of white paper)")
    return data


def model_for(profile) -> ClassModel:
    data = vision_settings(profile)
    if "classes" in data:
        model = ClassModel.from_yaml(data)
        letters = set(profile.letters) | {EMPTY}
        for ref in model.refs:
            if ref.letter not in letters:
                raise ConfigError(
                    f"vision.classes.{ref.key}.letter",
                    f"{ref.letter!r} is not one of this game's classes ({' '.join(sorted(letters))})",
                )
        return model
    return default_model(profile.game, profile.letters)


@dataclass
class Reading:
    """What one frame showed. `snapshot` is None unless every place was read surely."""

    snapshot: Snapshot | None
    unsure: list[tuple[int, int]]
    confidence: np.ndarray
    open_points: set[tuple[int, int]] = field(default_factory=set)
    problem: str | None = None
    cells: list[list[str]] | None = None
    relocalised: bool = False
    doors: tuple[str, ...] | None = None


class BoardReader:
    """Reads one game's board from frames; keeps the homography between frames.

    `corners` (or, when not given, the profile's `corners:`) fix the lattice in the picture for a copy
    without markers; nothing is then looked for.
    """

    def __init__(self, profile, corners: np.ndarray | None = None) -> None:
        self.profile = profile
        self.game = profile.game
        # What the game's board shows besides colours (its own declaration, `controller.games.spec.VisionSpec`).
        self.vision = registry.get(self.game).vision
        self.reads_glyphs = GLYPHS_ADDON in self.vision.addons
        self.reads_doors = DOORS_ADDON in self.vision.addons
        self.geom = LatticeGeometry.from_profile(profile)
        self.settings = vision_settings(profile)
        self.model = model_for(profile)
        self.hand_check = bool(self.settings.get("hand_check", True))
        g = self.geom
        if corners is None and profile.get("corners") is not None:  # a copy without markers (profile `corners:`)
            corners = np.array(profile.get("corners"), np.float64)
        self.fixed = corners is not None
        self.h: np.ndarray | None = homography_from_corners(g, np.asarray(corners, np.float64)) if self.fixed else None
        self.localiser = None if self.fixed else MarkerLocaliser(g)
        self.check = MarkerCheck(g)
        self._near: list[tuple[MarkerCheck, np.ndarray]] | None = None  # `_shifted_checks`, made when first needed
        margin = g.marker_offset + 0.7 * g.marker_size if not self.fixed else 1.0
        x0, y0, x1, y1 = g.extent(margin)
        self.rect = Rectifier(x0, y0, x1, y1, PPP)
        shape = self.rect.size[::-1]
        r_in, r_out = self.vision.sample
        self.places = PatchSampler(self.rect.to_px(g.points()), ring_offsets(r_in * PPP, r_out * PPP), shape)
        # White marker paper: a square band just outside each marker.
        s = g.marker_size
        band = _square_band(0.56 * s * PPP, 0.64 * s * PPP)
        self.paper = PatchSampler(self.rect.to_px(g.marker_centres()), band, shape)
        self.paper_weights = bilinear_weights(g.points(), g.marker_centres())
        self.ring_pts = _ring_points(g)
        self.ring = PatchSampler(self.rect.to_px(self.ring_pts), ring_offsets(0, 0.18 * PPP), shape)
        self.ring_weights = bilinear_weights(self.ring_pts, g.marker_centres())
        white = self.settings.get("white")
        self.fixed_white = np.array(white, np.float64) / 255 if white else np.array(looks.PAPER[::-1]) / 255
        self._last: tuple[np.ndarray, list[str], np.ndarray] | None = None
        # Shapes: glyphs per tile (Blockers!), doors per post (Flipop); see glyphs.py, doors.py.
        self.glyph_model = GlyphModel.from_profile(self.settings) if self.reads_glyphs else None
        self.glyph_memory = GlyphMemory()
        if self.reads_doors:
            self.door_model = model_from_settings(self.settings, floor=looks.pieces(self.game)[EMPTY])
            self.door_shapes = shapes_from_profile(profile)
            self.door_sampler = DoorSampler(g.rows, g.cols)
            self.post_weights = bilinear_weights(self.door_sampler.posts, g.marker_centres())

    # ---------------------------------------------------------------- localisation

    def invalidate(self) -> None:
        """Forget the homography (the service loop knows the camera was moved)."""
        self.glyph_memory.forget()
        if not self.fixed:
            self.h = None

    def _lamp_on_markers(self, gray: np.ndarray, ok: list[bool]) -> bool:
        """Whether the markers that fail the border test are only lit by a lamp's reflection: where
        their black border fails, it is clipped or brighter than the white paper around the markers
        that fit. No diffuse surface (a hand, a sleeve, a cup) under the same light is brighter than
        white paper, only a mirror-like reflection (the hand check's rule, `hands.py`). The board is
        then read: the places under the reflection are unsure, not hidden by a hand."""
        if not any(ok):
            return False
        vin, vout, _ = self.check.samples(gray, self.h)
        paper = float(np.median(vout[np.array(ok)]))
        for i, fits in enumerate(ok):
            if fits:
                continue
            failing = (vout[i] - vin[i]) <= self.check.MARGIN
            lit = (vin[i] >= hands.SATURATED) | (vin[i] >= hands.OVER_WHITE * paper)
            if not failing.any() or lit[failing].mean() < 0.5:
                return False
        return True

    #: How far (pitches) a marker the detector missed may lie from where the other three put it: a
    #: homography fitted to three markers extrapolates to the fourth with an error of a few pixels
    #: (0.12 pitch measured in a 960x540 picture), more than the 0.07 pitch the border test samples
    #: either side of the border (`MarkerCheck`).
    MISSED_MARKER_SHIFT = 0.15
    #: Steps (pitches) between the places the border test tries within that reach.
    MISSED_MARKER_STEP = 0.05

    def _shifted_checks(self) -> list[tuple[MarkerCheck, np.ndarray]]:
        """Per marker, the border test of every shift within `MISSED_MARKER_SHIFT` (each shift's samples
        taken as if they were a marker of their own, so one projection tests them all) and the shifts."""
        if self._near is None:
            reach = np.arange(-self.MISSED_MARKER_SHIFT, self.MISSED_MARKER_SHIFT + 1e-9, self.MISSED_MARKER_STEP)
            dx, dy = np.meshgrid(reach, reach)
            shifts = np.stack([dx.ravel(), dy.ravel()], axis=1)
            self._near = []
            for marker in range(len(self.check.inner)):
                near = copy.copy(self.check)
                near.inner = self.check.inner[marker][None] + shifts[:, None, :]
                near.outer = self.check.outer[marker][None] + shifts[:, None, :]
                self._near.append((near, shifts))
        return self._near

    def _marker_shift(self, gray: np.ndarray, marker: int) -> np.ndarray | None:
        """Where a marker the detector missed is after all, a little off where the three others put it:
        the shift (a board-coordinate translation, 3x3) within `MISSED_MARKER_SHIFT` at which its black
        border lies inside white paper all round with the most contrast, or None when there is none.

        A shadow darkens the ink and the paper alike and keeps that pattern, though the detector can
        miss the marker in it; a hand, a sleeve or a cup replaces the pattern by a surface with no such
        border at any shift."""
        near, shifts = self._shifted_checks()[marker]
        fits = np.array(near.markers_ok(gray, self.h))
        if not fits.any():
            return None
        vin, vout, _ = near.samples(gray, self.h)
        contrast = np.where(fits, (vout - vin).mean(axis=1), -np.inf)
        dx, dy = shifts[int(contrast.argmax())]
        return np.array([[1.0, 0.0, dx], [0.0, 1.0, dy], [0.0, 0.0, 1.0]])

    def _refit_with(self, shifts: dict[int, np.ndarray]) -> None:
        """Fit the homography again to all four markers, those found by `_marker_shift` where found."""
        board = self.geom.marker_corners()
        image = [project(self.h @ shifts.get(k, np.eye(3)), board[k]) for k in range(len(board))]
        h, _ = cv2.findHomography(board.reshape(-1, 2), np.concatenate(image), 0)
        if h is not None:
            self.h = h

    def localise(self, frame: np.ndarray) -> tuple[str | None, bool]:
        """Make sure the homography fits this frame; (problem, whether it was re-fitted)."""
        if self.fixed:
            return None, False
        if self.h is not None:
            ok = self.check.markers_ok(frame[:, :, 1], self.h)  # green is grey enough
            if all(ok):
                return None, False
        else:
            ok = [False] * 4
        loc = self.localiser.detect(frame)
        if loc is not None:
            self.h = loc.h
            if len(loc.markers_seen) < 4:
                # The detector can miss a marker it sees badly (in a shadow); the border test decides,
                # near where the three others put it.
                gray = frame[:, :, 1]
                ok = self.check.markers_ok(gray, self.h)
                shifts = {i: self._marker_shift(gray, i) for i, fits in enumerate(ok) if not fits}
                found = {i: shift for i, shift in shifts.items() if shift is not None}
                if found:
                    self._refit_with(found)
                    ok = self.check.markers_ok(gray, self.h)
                if not all(ok) and not self._lamp_on_markers(gray, ok):
                    return HAND + " (it covers a corner marker)", True
            return None, True
        if self.h is not None and sum(ok) >= 2:
            return HAND + " (it covers a corner marker)", False
        return MARKERS_HIDDEN, False

    # ---------------------------------------------------------------- reading

    def read(self, frame: np.ndarray) -> Reading:
        frame = as_bgr(frame)
        rows, cols = self.geom.rows, self.geom.cols
        nothing = np.zeros((rows, cols))
        problem, moved = self.localise(frame)
        if self.h is None or (problem is not None and problem == MARKERS_HIDDEN):
            return Reading(None, [], nothing, problem=problem or MARKERS_HIDDEN)
        rect = self.rect.warp(frame, self.h)
        white = self._white(rect)
        med, used = self.places.medians(rect)
        norm = _normalise(med, white, self.paper_weights)
        feats = colour_features(norm)
        dec = self.model.decide(feats)
        # A patch more than a third covered by glare is not trusted, whatever it looks like.
        sure = dec.sure & (used >= MIN_USED)
        conf = np.where(used >= MIN_USED, dec.confidence, 0.0).reshape(rows, cols)
        self._last = (feats, dec.keys, sure)
        if problem is None and self.hand_check and self._arm_seen(rect, white):
            problem = HAND
        if problem is not None:
            return Reading(None, [], conf, problem=problem, relocalised=moved)
        unsure = [divmod(int(i), cols) for i in np.flatnonzero(~sure)]
        open_points = {divmod(int(i), cols) for i in np.flatnonzero(dec.open & sure)}
        cells = [[EMPTY] * cols for _ in range(rows)]
        glyph_of = self._glyphs(frame, dec.letters, sure, white) if self.reads_glyphs else {}
        for i, letter in enumerate(dec.letters):
            r, c = divmod(i, cols)
            if not sure[i]:
                cells[r][c] = "?"
            elif letter != EMPTY and self.reads_glyphs:
                cells[r][c] = letter + glyph_of.get(i, "?")
            else:
                cells[r][c] = letter
        doors = self.read_doors(frame, white) if self.reads_doors else None
        snapshot = None
        if unsure:
            where = ", ".join(f"row {r} column {c}" for r, c in unsure[:6])
            more = f" and {len(unsure) - 6} more" if len(unsure) > 6 else ""
            problem = f"{len(unsure)} place(s) could not be read surely: {where}{more}"
        else:
            snapshot = Snapshot(self.game, tuple(tuple(r) for r in cells), {"doors": doors})
        return Reading(snapshot, unsure, conf, open_points, problem, cells, moved, doors)

    def _local_white(self, white: np.ndarray, weights: np.ndarray) -> np.ndarray:
        """Paper white (grey levels, BGR) at each of a set of points."""
        local = np.tile(white, (len(weights), 1)) if white.ndim == 1 else weights @ white
        return local * 255

    def _glyphs(self, frame: np.ndarray, letters: list[str], sure: np.ndarray, white: np.ndarray) -> dict[int, str]:
        """The glyph (or '?') of every place holding a surely read tile."""
        tiles = [i for i, letter in enumerate(letters) if sure[i] and letter != EMPTY]
        if not tiles:
            return {}
        local = self._local_white(white, self.paper_weights[tiles])
        res = read_glyphs(self.glyph_model, frame, self.h, self.geom.points()[tiles], local, self.glyph_memory)
        return dict(zip(tiles, res.glyphs))

    def read_doors(self, frame: np.ndarray, white: np.ndarray) -> tuple[str, ...]:
        """The door tokens (one per post) of a frame whose homography is known ('?' where unsure)."""
        local = self._local_white(white, self.post_weights)
        return read_doors(self.door_model, self.door_shapes, self.door_sampler, frame, self.h, local).doors

    def _white(self, rect: np.ndarray) -> np.ndarray:
        """Paper white per marker (4, 3), with a covered or glared marker replaced by the others."""
        if self.fixed:
            return self.fixed_white
        med, used = self.paper.medians(rect)
        med = med / 255
        typical = np.median(med, axis=0)
        bad = (used < 0.5) | (np.abs(med / typical - 1) > 0.3).any(axis=1)
        med[bad] = typical
        return np.maximum(med, 0.02)

    def _arm_seen(self, rect: np.ndarray, white: np.ndarray) -> bool:
        """An arm must cross the frame band around the lattice: a run of band patches whose
        colour differs from the band's own, unless it is only a lamp's reflection (hands.py)."""
        med, used = self.ring.medians(rect)
        feats = colour_features(_normalise(med, white, self.ring_weights))
        return hands.arm_seen(feats, used, self.ring.values(rect), self._local_white(white, self.ring_weights))

    # ---------------------------------------------------------------- following the light

    def confirm(self, snapshot: Snapshot) -> None:
        """The service loop confirmed `snapshot` as a legal state: let the references follow
        slow light changes using the places of the last reading that agree with it."""
        if self._last is None or snapshot.game != self.game:
            return
        feats, keys, sure = self._last
        cols = self.geom.cols
        samples: dict[str, list[np.ndarray]] = {}
        letters = {r.key: r.letter for r in self.model.refs}
        for i, key in enumerate(keys):
            r, c = divmod(i, cols)
            if r >= snapshot.rows or c >= snapshot.cols:
                return
            if sure[i] and snapshot.cells[r][c][:1] == letters[key]:
                samples.setdefault(key, []).append(feats[i])
        self.model.follow({k: np.array(v) for k, v in samples.items()})

    def paper_white(self, frame: np.ndarray) -> np.ndarray:
        """Localise and return the paper white (for calibration of shapes); raises when the
        markers are not found."""
        frame = as_bgr(frame)
        problem, _ = self.localise(frame)
        if self.h is None or problem == MARKERS_HIDDEN:
            raise RefereeError(problem or MARKERS_HIDDEN)
        return self._white(self.rect.warp(frame, self.h))

    def features(self, frame: np.ndarray) -> np.ndarray:
        """Per-place features of a frame (for calibration); raises when markers are not found."""
        return self.place_features(frame)[0]

    def place_features(self, frame: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Per-place features of a frame and the glare-free fraction of each place's patch (a place
        below `MIN_USED` is one the reader would not trust); raises when markers are not found."""
        frame = as_bgr(frame)
        problem, _ = self.localise(frame)
        if self.h is None or problem == MARKERS_HIDDEN:
            raise RefereeError(problem or MARKERS_HIDDEN)
        rect = self.rect.warp(frame, self.h)
        white = self._white(rect)
        med, used = self.places.medians(rect)
        norm = _normalise(med, white, self.paper_weights)
        return colour_features(norm), used


#: The smallest picture the referee reads (a frame smaller than this is a camera fault).
MIN_FRAME_SIDE = 16


def frame_problem(frame, size: tuple[int, int] | None = None) -> str | None:
    """Why a frame is not a picture the referee can read (None: it is one).

    Grey pictures are refused rather than read as grey pieces: every game's pieces differ by
    colour, so a grey frame would only give a false verdict. `size` (rows, columns) is the size of
    the camera's first frame: a later frame of another size means the camera changed its mode.
    """
    if not isinstance(frame, np.ndarray):
        return f"a {type(frame).__name__} instead of a picture"
    if frame.size == 0 or frame.ndim < 2:
        return "an empty picture (" + "x".join(str(n) for n in frame.shape[:2][::-1]) + ")"
    if frame.ndim == 2 or (frame.ndim == 3 and frame.shape[2] == 1):
        return "a grey (black and white) picture; the referee needs a colour camera"
    if frame.ndim != 3 or frame.shape[2] not in (3, 4):
        return f"a picture with {frame.shape[2] if frame.ndim == 3 else frame.ndim} colour channels"
    if frame.dtype != np.uint8:
        return f"a picture of {frame.dtype} values, not 8-bit"
    height, width = frame.shape[:2]
    if min(height, width) < MIN_FRAME_SIDE:
        return f"a picture of only {width}x{height} pixels"
    if size is not None and (height, width) != tuple(size):
        return f"the picture size changed from {size[1]}x{size[0]} to {width}x{height}"
    return None


def as_bgr(frame) -> np.ndarray:
    """Check a frame is a colour picture and give it as contiguous 3-channel 8-bit BGR."""
    problem = frame_problem(frame)
    if problem is not None:
        raise RefereeError(f"the frame cannot be read: {problem}")
    if frame.shape[2] == 4:
        frame = frame[..., :3]
    return np.ascontiguousarray(frame)


def _normalise(med: np.ndarray, white: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Patch medians (0-255) divided by the paper white at each patch (white paper -> 1)."""
    local = white if white.ndim == 1 else weights @ white
    return med / 255 / local


def _square_band(r_in: float, r_out: float) -> np.ndarray:
    n = int(np.ceil(r_out))
    dy, dx = np.mgrid[-n : n + 1, -n : n + 1]
    d = np.maximum(np.abs(dx), np.abs(dy))
    keep = (d >= r_in) & (d <= r_out)
    return np.stack([dy[keep], dx[keep]], axis=1)


def _ring_points(g: LatticeGeometry, step: float = 0.5, out: float = 0.85) -> np.ndarray:
    """Points on the frame band around the lattice, in order around the board."""
    xs = np.arange(-0.3, g.cols - 1 + 0.3 + 1e-9, step)
    ys = np.arange(-0.3, g.rows - 1 + 0.3 + 1e-9, step)
    top = [(x, -out) for x in xs]
    right = [(g.cols - 1 + out, y) for y in ys]
    bottom = [(x, g.rows - 1 + out) for x in xs[::-1]]
    left = [(-out, y) for y in ys[::-1]]
    return np.array(top + right + bottom + left, np.float64)
