"""Frame sources, one interface for every camera and for the simulated one.

`open_frame_source(config)` picks the source named in `config.yaml`'s `camera:` section. A
source's `read()` returns a BGR frame or None when no frame is available right now (a camera
unplugged, the end of a video); it never raises on a transient failure, and a lost USB camera
is reopened by the source itself.

Exposure, gain and white balance (`rig.md`): with `camera: {lock: true}` (the default) a real
camera's automatic exposure and white balance are switched off. The values come from the
profile's `camera:` key when calibration stored them (so play sees the colours calibration saw);
otherwise the camera's own automatic choice is taken after `SETTLE_FRAMES` frames and held for
the rest of the session. `lock: false` leaves (and sets) them automatic.

The newest frame, never a queue of old ones: a reader that falls behind (a slow judgement on a Pi)
must not be handed frames the camera took while it was busy, each 33 ms older at 30 fps. A USB
camera gets one driver buffer (`CAP_PROP_BUFFERSIZE` 1 on OpenCV's V4L2 back end, asked for by name
on Linux: other back ends ignore it; OpenCV's default is 4), so a frame is at most one frame period
older than the read that follows a slow one. picamera2 keeps only its latest completed request when
a configuration has `queue=True` and more than one buffer, and hands that one over; `PI_BUFFERS`
buffers let the sensor fill one while the reader holds another.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, ClassVar, Protocol

import cv2
import numpy as np
from pydantic import BeforeValidator, model_validator

from controller.errors import ConfigError, HardwareError
from controller.exclusive import HeldSource, lock_camera
from controller.language import N_, _
from controller.schema import Section, checked, choice, sentence, validate

SOURCES = ("renderer", "picamera", "usb", "video", "images")
IMAGE_SUFFIXES = {".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp"}
#: Frames the camera's automatic exposure and white balance get to settle before they are locked.
SETTLE_FRAMES = 30
#: V4L2's exposure modes as OpenCV's V4L2 backend passes them (V4L2_EXPOSURE_MANUAL, _APERTURE_PRIORITY).
V4L2_MANUAL_EXPOSURE, V4L2_AUTO_EXPOSURE = 1, 3
#: picamera2 buffers for the camera module: the newest completed one is held for the reader, one is
#: being filled, the others spare (picamera2's preview default; its video default of 6 is for encoders).
PI_BUFFERS = 4


class FrameSource(Protocol):
    def read(self) -> np.ndarray | None: ...

    def close(self) -> None: ...


def _whole(low: int, high: int) -> BeforeValidator:
    def check(value: Any) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise sentence(
                _("expected a whole number from {low} to {high}, got {value}", low=low, high=high, value=repr(value))
            )
        return value

    return checked(check)


def _device(value: Any) -> int | str:
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise sentence(_("expected a device number or a path like /dev/video0, got {value}", value=repr(value)))
    return value


def _flag(value: Any) -> bool:
    if not isinstance(value, bool):
        raise sentence(_("expected true or false"))
    return value


def _seed(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise sentence(_("expected a whole number"))
    return value


def _preset(value: Any) -> str:
    if value not in ("clean", "hard"):
        raise sentence(_("expected clean or hard, got {value}", value=repr(value)))
    return str(value)


class CameraSection(Section):
    """`config.yaml`'s `camera:` section: which camera, at what size and rate (`rig.md`)."""

    unknown_key: ClassVar[str] = N_("unknown key; known keys: {known}")
    not_a_mapping: ClassVar[str] = N_("expected a mapping (source, device, path, width, height, fps)")

    source: Annotated[str, choice(*SOURCES)] = "renderer"
    device: Annotated[int | str, checked(_device)] = 0
    #: A video file or a folder of pictures (`video`, `images`).
    path: str | None = None
    width: Annotated[int, _whole(16, 10000)] = 1280
    height: Annotated[int, _whole(16, 10000)] = 720
    fps: Annotated[int, _whole(1, 240)] = 30
    #: A video or a folder of pictures starts again at its end.
    loop: Annotated[bool, checked(_flag)] = False
    #: The simulated camera's pose, lighting and noise (`renderer`).
    seed: Annotated[int, checked(_seed)] = 0
    preset: Annotated[str, checked(_preset)] = "clean"
    #: Exposure and white balance locked (see the module's docstring).
    lock: Annotated[bool, checked(_flag)] = True

    @model_validator(mode="after")
    def _recordings_need_a_path(self) -> CameraSection:
        if self.source in ("video", "images"):
            if not isinstance(self.path, str) or not self.path:
                raise sentence(_("the {source} source needs a path", source=self.source), key="path")
            if not Path(self.path).exists():
                raise sentence(_("{path} does not exist", path=str(self.path)), key="path")
        return self


def validate_camera(section: Any) -> dict:
    """Check `config.yaml`'s `camera:` section; returns it with defaults filled in."""
    return validate(CameraSection, section, prefix="camera").model_dump(exclude_none=True)


class UsbCamera:
    """A V4L2/USB camera through OpenCV; reopens itself (at most once a second) when lost.

    `locked` holds stored settings (exposure, gain, wb_temperature in the driver's own units);
    `capture` makes the OpenCV capture (a fake in tests)."""

    def __init__(
        self,
        device: int | str,
        width: int,
        height: int,
        fps: int,
        lock: bool = True,
        locked: dict | None = None,
        capture: Callable[[int | str], Any] | None = None,
    ) -> None:
        self.device, self.width, self.height, self.fps = device, width, height, fps
        self.lock, self.locked = lock, dict(locked) if locked else None
        self._capture = capture or open_v4l2
        self.cap: Any = None
        self._next_try = 0.0
        self._frames = 0
        self._open()

    def _open(self) -> None:
        self._next_try = time.monotonic() + 1.0
        cap = self._capture(self.device)
        if not cap.isOpened():
            cap.release()
            self.cap = None
            return
        cap.set(cv2.CAP_PROP_FRAME_WIDTH, self.width)
        cap.set(cv2.CAP_PROP_FRAME_HEIGHT, self.height)
        cap.set(cv2.CAP_PROP_FPS, self.fps)
        cap.set(cv2.CAP_PROP_BUFFERSIZE, 1)
        self.cap = cap
        if self.lock and self.locked:
            self._apply(self.locked)
        else:  # automatic: to stay so, or to settle before being locked
            cap.set(cv2.CAP_PROP_AUTO_EXPOSURE, V4L2_AUTO_EXPOSURE)
            cap.set(cv2.CAP_PROP_AUTO_WB, 1)

    def _apply(self, values: dict) -> None:
        """Automatic exposure and white balance off, then the stored values (V4L2 controls
        persist on the device, so they are always set, never assumed)."""
        self.cap.set(cv2.CAP_PROP_AUTO_EXPOSURE, V4L2_MANUAL_EXPOSURE)
        self.cap.set(cv2.CAP_PROP_AUTO_WB, 0)
        for key, prop in (
            ("exposure", cv2.CAP_PROP_EXPOSURE),
            ("gain", cv2.CAP_PROP_GAIN),
            ("wb_temperature", cv2.CAP_PROP_WB_TEMPERATURE),
        ):
            if key in values:
                self.cap.set(prop, float(values[key]))

    def _lock_current(self) -> None:
        """Take the values the automatic controls settled on and hold them."""
        values = {
            "exposure": float(self.cap.get(cv2.CAP_PROP_EXPOSURE)),
            "gain": float(self.cap.get(cv2.CAP_PROP_GAIN)),
            "wb_temperature": float(self.cap.get(cv2.CAP_PROP_WB_TEMPERATURE)),
        }
        # OpenCV answers 0 (or -1) for a control the driver does not have: leave that one alone.
        self.locked = {k: v for k, v in values.items() if v > 0}
        self._apply(self.locked)

    def camera_settings(self) -> dict | None:
        """The locked values, as the profile's `camera:` key stores them (None until locked)."""
        return {"usb": dict(self.locked)} if self.lock and self.locked else None

    def read(self) -> np.ndarray | None:
        if self.cap is None:
            if time.monotonic() >= self._next_try:
                self._open()
            if self.cap is None:
                return None
        try:
            ok, frame = self.cap.read()
        except cv2.error:
            ok, frame = False, None
        if not ok or frame is None:
            self.cap.release()
            self.cap = None
            return None
        self._frames += 1
        if self.lock and self.locked is None and self._frames >= SETTLE_FRAMES:
            self._lock_current()
        return frame

    def close(self) -> None:
        if self.cap is not None:
            self.cap.release()
            self.cap = None


def open_v4l2(device: int | str) -> Any:
    """OpenCV's capture of a USB camera, on the V4L2 back end on Linux (the one that honours
    `CAP_PROP_BUFFERSIZE`; a path such as /dev/v4l/by-id/... would otherwise be tried as a file)."""
    api = cv2.CAP_V4L2 if sys.platform.startswith("linux") else cv2.CAP_ANY
    return cv2.VideoCapture(device, api)


class PiCamera:
    """The Pi camera module through picamera2 (from the OS packages, imported only here).

    `locked` holds stored settings (exposure_time in microseconds, analogue_gain, colour_gains
    red and blue); `picamera_class` replaces picamera2's `Picamera2` (a fake in tests)."""

    def __init__(
        self,
        width: int,
        height: int,
        lock: bool = True,
        locked: dict | None = None,
        picamera_class: Any = None,
        fps: int = 30,
    ) -> None:
        if picamera_class is None:
            try:
                from picamera2 import Picamera2  # type: ignore[import-not-found]
            except ImportError:
                raise HardwareError(
                    _(
                        "the Pi camera needs picamera2, which comes with Raspberry Pi OS (sudo apt install "
                        "python3-picamera2); on other machines use source: usb"
                    )
                ) from None
            picamera_class = Picamera2
        self.size = (width, height)
        self.fps = fps
        self._cls = picamera_class
        self.lock, self.locked = lock, dict(locked) if locked else None
        self.cam: Any = None  # a Picamera2 (the library has no type information)
        self._frames = 0
        self._start()

    def _start(self) -> None:
        try:
            cam = self._cls()
            period = round(1_000_000 / self.fps)  # microseconds: the frame rate config.yaml asks for
            cfg = cam.create_video_configuration(
                main={"size": self.size, "format": "RGB888"},
                buffer_count=PI_BUFFERS,
                queue=True,  # hand over the newest completed frame at once (picamera2 keeps no older one)
                controls={"FrameDurationLimits": (period, period)},
            )
            cam.configure(cfg)
            cam.start()
            if self.lock and self.locked:
                cam.set_controls(_picamera_controls(self.locked))
            else:  # automatic: to stay so, or to settle before being locked
                cam.set_controls({"AeEnable": True, "AwbEnable": True})
            self.cam = cam
        except Exception:  # the camera library raises many kinds; none should stop the referee
            self.cam = None

    def _lock_current(self) -> None:
        """Take the values the automatic controls settled on (the frame metadata) and hold them."""
        md = self.cam.capture_metadata()
        self.locked = {
            "exposure_time": int(md["ExposureTime"]),
            "analogue_gain": float(md["AnalogueGain"]),
            "colour_gains": [float(v) for v in md["ColourGains"]],
        }
        self.cam.set_controls(_picamera_controls(self.locked))

    def camera_settings(self) -> dict | None:
        """The locked values, as the profile's `camera:` key stores them (None until locked)."""
        return {"picamera": dict(self.locked)} if self.lock and self.locked else None

    def read(self) -> np.ndarray | None:
        if self.cam is None:
            self._start()
            if self.cam is None:
                return None
        try:
            # picamera2's "RGB888" is laid out B, G, R in memory: OpenCV's order already.
            frame = np.ascontiguousarray(self.cam.capture_array("main")[:, :, :3])
            self._frames += 1
            if self.lock and self.locked is None and self._frames >= SETTLE_FRAMES:
                self._lock_current()
            return frame
        except Exception:
            self.close()
            return None

    def close(self) -> None:
        if self.cam is not None:
            try:
                self.cam.stop()
                self.cam.close()
            except Exception:  # a camera that vanished cannot be stopped: nothing left to release
                pass
            self.cam = None


def _picamera_controls(values: dict) -> dict:
    """picamera2 controls that switch the automatic loops off and set the stored values."""
    controls: dict[str, Any] = {"AeEnable": False, "AwbEnable": False}
    if "exposure_time" in values:
        controls["ExposureTime"] = int(values["exposure_time"])
    if "analogue_gain" in values:
        controls["AnalogueGain"] = float(values["analogue_gain"])
    if "colour_gains" in values:
        controls["ColourGains"] = tuple(float(v) for v in values["colour_gains"])
    return controls


class VideoFile:
    def __init__(self, path: str, loop: bool) -> None:
        self.path, self.loop = path, loop
        self.cap = cv2.VideoCapture(path)
        if not self.cap.isOpened():
            raise HardwareError(_("cannot open the video {path}", path=str(path)))

    def read(self) -> np.ndarray | None:
        ok, frame = self.cap.read()
        if not ok and self.loop:
            self.cap.set(cv2.CAP_PROP_POS_FRAMES, 0)
            ok, frame = self.cap.read()
        return frame if ok else None

    def close(self) -> None:
        self.cap.release()


class ImageFolder:
    """Every image of a folder in name order, one per `read()` (or one image file)."""

    def __init__(self, path: str, loop: bool) -> None:
        p = Path(path)
        files = [p] if p.is_file() else sorted(f for f in p.iterdir() if f.suffix.lower() in IMAGE_SUFFIXES)
        if not files:
            raise HardwareError(
                _("no images ({value}) in {path}", value=", ".join(sorted(IMAGE_SUFFIXES)), path=str(path))
            )
        self.files, self.loop, self.i = files, loop, 0

    def read(self) -> np.ndarray | None:
        if self.i >= len(self.files):
            if not self.loop:
                return None
            self.i = 0
        f = self.files[self.i]
        self.i += 1
        return cv2.imread(str(f), cv2.IMREAD_COLOR)

    def close(self) -> None:
        self.files = []


def open_frame_source(camera_config: dict, locked: dict | None = None) -> FrameSource:
    """The frame source `camera_config` (config.yaml's `camera:` section) asks for; `locked` is
    the profile's `camera:` key (stored exposure, gain and white balance per kind of camera)."""
    c = validate_camera(camera_config)
    locked = locked or {}
    src = c["source"]
    if src in ("usb", "picamera"):  # one program per camera, and a sentence naming the other one
        held = lock_camera(c)
        if held is not None:
            try:
                return HeldSource(_open(c, locked), held)
            except BaseException:
                held.release()
                raise
    return _open(c, locked)


def _open(c: dict, locked: dict) -> FrameSource:
    src = c["source"]
    if src == "renderer":
        raise ConfigError(
            "camera.source",
            _(
                "the renderer is the simulated camera: `referee run` and `referee demo` hand it to the "
                "service (simulation.devices); this function opens real cameras and recordings only"
            ),
        )
    if src == "usb":
        return UsbCamera(c["device"], c["width"], c["height"], c["fps"], c["lock"], locked.get("usb"))
    if src == "picamera":
        return PiCamera(c["width"], c["height"], c["lock"], locked.get("picamera"), fps=c["fps"])
    if src == "video":
        return VideoFile(c["path"], c["loop"])
    return ImageFolder(c["path"], c["loop"])
