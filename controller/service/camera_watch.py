"""A frame source with its faults named: exceptions, odd frames and a frozen picture.

Why: a camera fails in more ways than "no frame". A driver raises, a pipeline hands over a 0x0
or grey frame, or goes on delivering the very same buffer forever (the picture looks fine and
the referee would wait for a move that never shows). `CameraWatch` sits between the frame source
and the loop's sensor: whatever the source does, `read()` returns a usable BGR frame or None, and
`problem` / `frozen_for()` tell the loop's fault check why pictures are missing or stale.

Frozen means bit-identical: a real camera's sensor noise makes consecutive pictures differ, so
identical ones mean the camera or its driver stopped. Each frame is compared on a sparse sample
first (a few kilobytes, nearly free on a Pi) and in full only when the sample is identical.
Sources that say when they have a new picture (the simulated camera's `frame_number()`, which
advances every frame even when a still scene is drawn identically) are judged by that number;
recordings (video files, image folders) are never frozen, as repeating a picture is what they do.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import numpy as np

from controller.language import _
from controller.vision.reader import frame_problem
from controller.vision.sources import ImageFolder, VideoFile

log = logging.getLogger("referee.camera")

#: Every how many pixels (in each direction) the quick frozen-picture sample takes one.
SAMPLE_STEP = 16


class CameraWatch:
    """Wraps a frame source (`read()`, `close()`); `clock` is the loop's clock."""

    def __init__(self, source: Any, clock: Callable[[], float]) -> None:
        self.source = source
        self.clock = clock
        #: Why the last pictures could not be used (an exception, an odd frame); None once a good one came.
        self.problem: str | None = None
        self.size: tuple[int, int] | None = None
        self.counted = callable(getattr(source, "frame_number", None))
        self.recorded = isinstance(source, ImageFolder | VideoFile)
        self._last_number: Any = None
        self._sample: np.ndarray | None = None
        self._frame: np.ndarray | None = None
        #: Clock time of the last good frame that differed from the one before (None: no frame yet).
        self.new_picture_at: float | None = None
        self.failures = 0

    def read(self) -> np.ndarray | None:
        try:
            frame = self.source.read()
        except Exception as exc:  # a driver's failure is a fault to show, never the end of the referee
            self.failures += 1
            problem = _("the camera failed ({why})", why=": ".join((type(exc).__name__, str(exc))))
            if problem != self.problem:
                log.warning("%s", problem, exc_info=log.isEnabledFor(logging.DEBUG))
            self.problem = problem
            return None
        if frame is None:
            return None
        odd = frame_problem(frame, self.size)
        if odd is not None:
            self.problem = _("the camera sends odd pictures: {why}", why=odd)
            return None
        if frame.shape[2] == 4:
            frame = np.ascontiguousarray(frame[..., :3])
        if self.size is None:
            self.size = frame.shape[:2]
        self.problem = None
        if self._is_new(frame):
            self.new_picture_at = self.clock()
        return frame

    def _is_new(self, frame: np.ndarray) -> bool:
        if self.recorded:
            return True
        if self.counted:
            number = self.source.frame_number()
            new = number != self._last_number
            self._last_number = number
            return new
        sample = frame[::SAMPLE_STEP, ::SAMPLE_STEP].copy()
        previous, previous_frame = self._sample, self._frame
        self._sample, self._frame = sample, frame
        if previous is None or previous.shape != sample.shape or not np.array_equal(previous, sample):
            return True
        if previous_frame is None or previous_frame is frame:
            return False  # the same buffer handed over again, unchanged where sampled
        return not np.array_equal(previous_frame, frame)

    def frozen_for(self, now: float) -> float:
        """Seconds the picture has been bit-identical (0 before the first frame)."""
        return 0.0 if self.new_picture_at is None else now - self.new_picture_at

    def close(self) -> None:
        self.source.close()

    def __getattr__(self, name: str) -> Any:  # the wrapped source's other attributes (renders, ...)
        return getattr(self.__dict__.get("source"), name)
