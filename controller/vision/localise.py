"""Stage *localise*: where the board is in the frame, as a board-to-image homography.

A copy with the ArUco markers of rig.md: the homography of the last frame is kept while a cheap
border test (`MarkerCheck`) says it still fits every marker; otherwise the markers are detected
again (`MarkerLocaliser`). A marker the detector missed (in a shadow) is looked for near where the
three others put it (the missed-marker search); one that fails only because a lamp's reflection
lies on it does not hide the board. A copy without markers gives its four lattice corners once
(`--corners` or the profile's `corners:`) and nothing is looked for.
"""

from __future__ import annotations

import copy

import cv2
import numpy as np

from controller.vision import hands
from controller.vision.geometry import (
    MARKERS_HIDDEN,
    LatticeGeometry,
    MarkerCheck,
    MarkerLocaliser,
    homography_from_corners,
    project,
)

COVERED = hands.HAND + " (it covers a corner marker)"


class Localiser:
    """Keeps the board's homography `h` between frames (None until the markers were found)."""

    #: How far (pitches) a marker the detector missed may lie from where the other three put it: a
    #: homography fitted to three markers extrapolates to the fourth with an error of a few pixels
    #: (0.12 pitch measured in a 960x540 picture), more than the 0.07 pitch the border test samples
    #: either side of the border (`MarkerCheck`).
    MISSED_MARKER_SHIFT = 0.15
    #: Steps (pitches) between the places the border test tries within that reach.
    MISSED_MARKER_STEP = 0.05

    def __init__(self, geom: LatticeGeometry, corners: np.ndarray | None = None) -> None:
        self.geom = geom
        self.fixed = corners is not None
        self.h: np.ndarray | None = (
            homography_from_corners(geom, np.asarray(corners, np.float64)) if self.fixed else None
        )
        self.detector = None if self.fixed else MarkerLocaliser(geom)
        self.check = MarkerCheck(geom)
        self._near: list[tuple[MarkerCheck, np.ndarray]] | None = None  # `_shifted_checks`, made when first needed

    def invalidate(self) -> None:
        """Forget the homography (the camera was moved); fixed corners stay."""
        if not self.fixed:
            self.h = None

    def locate(self, frame: np.ndarray) -> tuple[str | None, bool]:
        """Make sure the homography fits this frame; (problem, whether it was re-fitted)."""
        if self.detector is None:  # fixed corners: nothing to locate
            return None, False
        if self.h is not None:
            ok = self.check.markers_ok(frame[:, :, 1], self.h)  # green is grey enough
            if all(ok):
                return None, False
        else:
            ok = [False] * 4
        loc = self.detector.detect(frame)
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
                    return COVERED, True
            return None, True
        if self.h is not None and sum(ok) >= 2:
            return COVERED, False
        return MARKERS_HIDDEN, False

    def _lamp_on_markers(self, gray: np.ndarray, ok: list[bool]) -> bool:
        """Whether the markers that fail the border test are only lit by a lamp's reflection: where
        their black border fails, it is clipped or brighter than the white paper around the markers
        that fit. No diffuse surface (a hand, a sleeve, a cup) under the same light is brighter than
        white paper, only a mirror-like reflection (the hand check's rule, `hands.py`). The board is
        then read: the places under the reflection are unsure, not hidden by a hand."""
        if not any(ok) or self.h is None:
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
        if self.h is None:
            return None
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
