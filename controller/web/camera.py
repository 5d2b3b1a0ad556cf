"""The camera picture with what the referee makes of it drawn over it, as a JPEG.

Made only when a page asks (`GET /camera.jpg`), from the frame and reading the `CameraSensor`
already keeps a reference to, and at most `MAX_RATE` times a second whoever asks: a second page,
or a page asking faster, gets the last picture again. Nothing is done per camera frame.
"""

from __future__ import annotations

import threading
import time
from typing import Any

import cv2
import numpy as np

from controller.vision.geometry import project
from controller.vision.reader import as_bgr

#: Most pictures encoded per second, however many pages ask.
MAX_RATE = 5.0
#: Shortest time between two encodings: a tenth below 1/MAX_RATE, so a page asking exactly 5
#: times a second (its timer a little early or late) gets a new picture each time.
MIN_INTERVAL = 0.9 / MAX_RATE
#: Width the picture is scaled down to before drawing (a phone screen; a quarter of the pixels of 1280).
WIDTH = 640
QUALITY = 70

GREEN = (80, 200, 80)
AMBER = (0, 170, 255)
RED = (40, 40, 230)
WHITE = (255, 255, 255)
BLACK = (0, 0, 0)


def scaled_jpeg(frame: np.ndarray, width: int, quality: int) -> bytes | None:
    """`frame` scaled down to at most `width` pixels wide (area averaging), as JPEG: what a phone's
    page is sent. None when OpenCV cannot encode it."""
    scale = min(1.0, width / frame.shape[1])
    if scale < 1:
        frame = cv2.resize(frame, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    ok, data = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, quality])
    return data.tobytes() if ok else None


def overlay(frame: np.ndarray, reader: Any, reading: Any, illegal_cells: list[tuple[int, int]]) -> np.ndarray:
    """A scaled copy of `frame` with the lattice points, each place's reading, unsure and illegal places."""
    frame = as_bgr(frame)
    scale = min(1.0, WIDTH / frame.shape[1])
    picture = cv2.resize(frame, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA) if scale < 1 else frame.copy()
    h = getattr(reader, "h", None)
    geom = getattr(reader, "geom", None)
    if h is None or geom is None:
        return picture
    points = project(h, geom.points()) * scale
    cols = geom.cols
    unsure = {tuple(c) for c in (reading.unsure if reading is not None else [])}
    cells = reading.cells if reading is not None else None
    pitch = float(np.linalg.norm(points[1] - points[0])) if len(points) > 1 else 10.0
    radius = max(3, int(pitch * 0.42))
    illegal = {tuple(c) for c in illegal_cells}
    for i, (x, y) in enumerate(points):
        r, c = divmod(i, cols)
        centre = (int(round(x)), int(round(y)))
        if (r, c) in illegal:
            cv2.circle(picture, centre, radius + 2, RED, 3, cv2.LINE_AA)
        elif (r, c) in unsure:
            cv2.circle(picture, centre, radius, AMBER, 2, cv2.LINE_AA)
        cv2.circle(picture, centre, 2, GREEN, -1, cv2.LINE_AA)
        if cells is not None and cells[r][c] not in (".", ""):
            label = cells[r][c]
            size = max(0.3, pitch / 45)
            org = (centre[0] + 3, centre[1] - 3)
            cv2.putText(picture, label, org, cv2.FONT_HERSHEY_SIMPLEX, size, BLACK, 3, cv2.LINE_AA)
            cv2.putText(picture, label, org, cv2.FONT_HERSHEY_SIMPLEX, size, WHITE, 1, cv2.LINE_AA)
    return picture


class CameraPictures:
    """Encodes the overlay picture on request, at most `MAX_RATE` a second (thread-safe)."""

    def __init__(self, sensor: Any, clock=time.monotonic) -> None:
        self.sensor = sensor
        self.clock = clock
        self._lock = threading.Lock()
        self._last: tuple[float, bytes] | None = None
        #: Pictures encoded and CPU seconds spent on them (the bench reads these).
        self.encoded = 0
        self.cpu = 0.0

    def available(self) -> bool:
        return getattr(self.sensor, "latest_frame", None) is not None

    def jpeg(self, illegal_cells: list[tuple[int, int]]) -> bytes | None:
        """The latest picture with its overlay (None when no picture came yet)."""
        with self._lock:
            now = self.clock()
            if self._last is not None and now - self._last[0] < MIN_INTERVAL:
                return self._last[1]
            frame = getattr(self.sensor, "latest_frame", None)
            if frame is None:
                return None
            started = time.thread_time()
            picture = overlay(
                np.asarray(frame),
                getattr(self.sensor, "reader", None),
                getattr(self.sensor, "latest_reading", None),
                illegal_cells,
            )
            ok, data = cv2.imencode(".jpg", picture, [cv2.IMWRITE_JPEG_QUALITY, QUALITY])
            self.cpu += time.thread_time() - started
            if not ok:
                return None
            self.encoded += 1
            self._last = (now, data.tobytes())
            return self._last[1]
