"""The camera hands over the newest frame, not a queue of old ones (issue 25).

A reader that falls behind (a judgement slower than a frame period, as on a Pi) must not be handed
the frames the camera took while it was busy: every queued frame at 30 fps adds 33 ms to a verdict.
`V4l2Driver` below is the boundary a USB camera presents to OpenCV's V4L2 back end, on a simulated
clock: the camera fills a free buffer every frame period and drops the frame when none is free;
a read hands over the oldest filled buffer (waiting for one if none is ready) and gives it back.
OpenCV asks the driver for 4 buffers unless `CAP_PROP_BUFFERSIZE` says otherwise.
"""

from __future__ import annotations

from collections import deque

import cv2
import numpy as np
from test_camera_settings import FakePicamera2

from controller.vision import sources
from controller.vision.sources import PI_BUFFERS, PiCamera, UsbCamera

PERIOD = 1 / 30


class Clock:
    def __init__(self) -> None:
        self.now = 0.0


class V4l2Driver:
    """cv2.VideoCapture over a V4L2 driver's buffer queue; each frame's pixel (0, 0) is its number."""

    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        self.buffers = 4  # OpenCV's V4L2 default
        self.filled: deque[int] = deque()
        self.next_frame = 0  # the number of the next frame the sensor completes, at next_frame * PERIOD

    def isOpened(self) -> bool:  # noqa: N802 - OpenCV's name
        return True

    def set(self, prop: int, value: float) -> bool:
        if prop == cv2.CAP_PROP_BUFFERSIZE:
            self.buffers = int(value)
        return True

    def get(self, prop: int) -> float:
        return float(self.buffers) if prop == cv2.CAP_PROP_BUFFERSIZE else 0.0

    def _capture_until_now(self) -> None:
        while self.next_frame * PERIOD <= self.clock.now + 1e-9:
            if len(self.filled) < self.buffers:
                self.filled.append(self.next_frame)
            self.next_frame += 1  # no free buffer: the frame is dropped

    def read(self):
        self._capture_until_now()
        if not self.filled:  # wait for the sensor's next frame
            self.clock.now = self.next_frame * PERIOD
            self._capture_until_now()
        number = self.filled.popleft()
        frame = np.zeros((4, 4, 3), np.uint8)
        frame[0, 0, 0] = number % 256
        return True, frame

    def release(self) -> None:
        pass


def frame_ages(buffers_asked: int | None, work: float, frames: int = 60) -> list[float]:
    """Seconds between each frame's capture and its read, for a reader spending `work` per frame."""
    clock = Clock()
    driver = V4l2Driver(clock)
    camera = UsbCamera(0, 4, 4, 30, lock=False, capture=lambda device: driver)
    if buffers_asked is not None:
        driver.buffers = buffers_asked
    ages = []
    for _ in range(frames):
        frame = camera.read()
        captured = int(frame[0, 0, 0]) * PERIOD
        ages.append(clock.now - captured)
        clock.now += work
    return ages


def test_a_usb_camera_that_is_read_slowly_hands_over_fresh_frames():
    # 50 ms per frame: slower than the camera's 33 ms, as a judgement on a Pi 4 can be.
    ages = frame_ages(None, work=0.050)
    assert max(ages[10:]) <= PERIOD + 1e-9  # at most one frame period old, however long it runs
    queued = frame_ages(4, work=0.050)  # what OpenCV's default of four buffers would do
    assert min(queued[10:]) > 3 * PERIOD  # ... frames three to four periods old, for good


def test_after_one_slow_judgement_one_frame_at_most_is_old():
    clock = Clock()
    driver = V4l2Driver(clock)
    camera = UsbCamera(0, 4, 4, 30, lock=False, capture=lambda device: driver)
    for _ in range(5):
        camera.read()
        clock.now += 0.005
    clock.now += 0.200  # one judgement of 200 ms
    stale = 0
    for _ in range(5):
        frame = camera.read()
        if clock.now - int(frame[0, 0, 0]) * PERIOD > PERIOD + 1e-9:
            stale += 1
        clock.now += 0.005
    assert stale == 1  # the one frame the single buffer held; the next is new


def test_a_usb_camera_is_opened_on_the_v4l2_back_end(monkeypatch):
    opened = []

    class Capture:
        def __init__(self, *args) -> None:
            opened.append(args)

        def isOpened(self) -> bool:  # noqa: N802 - OpenCV's name
            return False

        def release(self) -> None:
            pass

    monkeypatch.setattr(sources.sys, "platform", "linux")
    monkeypatch.setattr(sources.cv2, "VideoCapture", Capture)
    UsbCamera("/dev/v4l/by-id/usb-cam-video-index0", 640, 480, 30)
    assert opened == [("/dev/v4l/by-id/usb-cam-video-index0", cv2.CAP_V4L2)]


def test_the_camera_module_hands_over_its_newest_frame_at_the_configured_rate():
    camera = PiCamera(64, 48, lock=False, picamera_class=FakePicamera2, fps=25)
    options = camera.cam.options
    # picamera2 keeps only its latest completed request with queue=True and more than one buffer
    # (Picamera2.configure: _max_queue_len = 1), and capture_array hands over that one.
    assert options["queue"] is True and options["buffer_count"] == PI_BUFFERS > 1
    assert options["controls"]["FrameDurationLimits"] == (40000, 40000)


def test_the_config_s_frame_rate_reaches_the_camera_module(monkeypatch):
    made = []
    monkeypatch.setattr(sources, "PiCamera", lambda *args, **kwargs: made.append((args, kwargs)))
    sources.open_frame_source({"source": "picamera", "fps": 15})
    assert made[0][1]["fps"] == 15
