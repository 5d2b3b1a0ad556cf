"""Motion gating: read a frame only once the picture has been still for a few frames.

Each frame is shrunk to a tiny grey image (area averaging, which also averages sensor noise away)
and compared with the previous one. While pixels change the gate says `moving`; after
`settle` still frames it says `still` once (read now), then `idle` (nothing new: skip), so a Pi
watching an unchanged board spends well under a millisecond per frame. A slow drift that never
trips the frame-to-frame test is caught by comparing with the frame that was last read.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

MOVING, STILL, IDLE = "moving", "still", "idle"


@dataclass(frozen=True)
class GateResult:
    state: str  # 'moving', 'still' (read this frame) or 'idle' (still and already read)
    motion: float  # fraction of the small image that changed since the previous frame

    @property
    def read_now(self) -> bool:
        return self.state == STILL


class MotionGate:
    """Cheap still-picture detector on a downscaled grey copy of each frame."""

    def __init__(self, settle: int = 3, threshold: float = 6.0, min_fraction: float = 0.002, width: int = 80) -> None:
        self.settle = settle
        self.threshold = threshold
        self.min_fraction = min_fraction
        self.width = width
        self._prev: np.ndarray | None = None
        self._read: np.ndarray | None = None
        self._still = 0

    def reset(self) -> None:
        """Forget history: the next still period is read again."""
        self._prev = None
        self._read = None
        self._still = 0

    def _small(self, frame: np.ndarray) -> np.ndarray:
        h, w = frame.shape[:2]
        step = max(1, w // (self.width * 4))
        view = frame[::step, ::step]  # a strided view first: far less to average
        height = max(1, round(self.width * h / w))
        small = cv2.resize(view, (self.width, height), interpolation=cv2.INTER_AREA)
        if small.ndim == 3:
            small = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)
        return small.astype(np.int16)

    def _changed(self, a: np.ndarray, b: np.ndarray) -> float:
        return float(np.count_nonzero(np.abs(a - b) > self.threshold)) / a.size

    def update(self, frame: np.ndarray) -> GateResult:
        small = self._small(frame)
        prev, self._prev = self._prev, small
        if prev is None or prev.shape != small.shape:
            self._still = 0
            return GateResult(MOVING, 1.0)
        motion = self._changed(prev, small)
        if motion > self.min_fraction:
            self._still = 0
            return GateResult(MOVING, motion)
        self._still += 1
        if self._still < self.settle:
            return GateResult(MOVING, motion)
        if self._still == self.settle or (
            self._read is not None and self._changed(self._read, small) > self.min_fraction
        ):
            self._read = small
            self._still = self.settle
            return GateResult(STILL, motion)
        return GateResult(IDLE, motion)
