"""Frame sources, one interface for every camera and for the simulated one.

`open_frame_source(config)` picks the source named in `config.yaml`'s `camera:` section. A
source's `read()` returns a BGR frame or None when no frame is available right now (a camera
unplugged, the end of a video); it never raises on a transient failure, and a lost USB camera
is reopened by the source itself.
"""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path
from typing import Any, Protocol

import cv2
import numpy as np

from controller.errors import ConfigError, HardwareError

SOURCES = ("renderer", "picamera", "usb", "video", "images")
IMAGE_SUFFIXES = {".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp"}
KEYS = {"source", "device", "path", "width", "height", "fps", "loop", "seed", "preset"}


class FrameSource(Protocol):
    def read(self) -> np.ndarray | None: ...

    def close(self) -> None: ...


def validate_camera(section: Any) -> dict:
    """Check `config.yaml`'s `camera:` section; returns it with defaults filled in."""
    if section is None:
        section = {}
    if not isinstance(section, dict):
        raise ConfigError("camera", "expected a mapping (source, device, path, width, height, fps)")
    for key in section:
        if key not in KEYS:
            raise ConfigError(f"camera.{key}", f"unknown key; known keys: {', '.join(sorted(KEYS))}")
    out = {"source": "renderer", "device": 0, "width": 1280, "height": 720, "fps": 30,
           "loop": False, "seed": 0, "preset": "clean"}
    out.update(section)
    if out["source"] not in SOURCES:
        raise ConfigError("camera.source", f"expected one of {', '.join(SOURCES)}, got {out['source']!r}")
    for key, lo, hi in (("width", 16, 10000), ("height", 16, 10000), ("fps", 1, 240)):
        v = out[key]
        if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
            raise ConfigError(f"camera.{key}", f"expected a whole number from {lo} to {hi}, got {v!r}")
    dev = out["device"]
    if isinstance(dev, bool) or not isinstance(dev, (int, str)):
        raise ConfigError("camera.device", f"expected a device number or a path like /dev/video0, got {dev!r}")
    if not isinstance(out["loop"], bool):
        raise ConfigError("camera.loop", "expected true or false")
    if isinstance(out["seed"], bool) or not isinstance(out["seed"], int):
        raise ConfigError("camera.seed", "expected a whole number")
    if out["preset"] not in ("clean", "hard"):
        raise ConfigError("camera.preset", f"expected clean or hard, got {out['preset']!r}")
    if out["source"] in ("video", "images"):
        path = out.get("path")
        if not isinstance(path, str) or not path:
            raise ConfigError("camera.path", f"the {out['source']} source needs a path")
        if not Path(path).exists():
            raise ConfigError("camera.path", f"{path} does not exist")
    return out


class UsbCamera:
    """A V4L2/USB camera through OpenCV; reopens itself (at most once a second) when lost."""

    def __init__(self, device: int | str, width: int, height: int, fps: int) -> None:
        self.device, self.width, self.height, self.fps = device, width, height, fps
        self.cap: cv2.VideoCapture | None = None
        self._next_try = 0.0
        self._open()

    def _open(self) -> None:
        self._next_try = time.monotonic() + 1.0
        cap = cv2.VideoCapture(self.device)
        if not cap.isOpened():
            cap.release()
            self.cap = None
            return
        cap.set(cv2.CAP_PROP_FRAME_WIDTH, self.width)
        cap.set(cv2.CAP_PROP_FRAME_HEIGHT, self.height)
        cap.set(cv2.CAP_PROP_FPS, self.fps)
        cap.set(cv2.CAP_PROP_BUFFERSIZE, 1)
        self.cap = cap

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
        return frame

    def close(self) -> None:
        if self.cap is not None:
            self.cap.release()
            self.cap = None


class PiCamera:
    """The Pi camera module through picamera2 (from the OS packages, imported only here)."""

    def __init__(self, width: int, height: int) -> None:
        try:
            from picamera2 import Picamera2  # type: ignore[import-not-found]
        except ImportError:
            raise HardwareError(
                "the Pi camera needs picamera2, which comes with Raspberry Pi OS "
                "(sudo apt install python3-picamera2); on other machines use source: usb"
            ) from None
        self.size = (width, height)
        self._cls = Picamera2
        self.cam = None
        self._start()

    def _start(self) -> None:
        try:
            cam = self._cls()
            cfg = cam.create_video_configuration(main={"size": self.size, "format": "RGB888"})
            cam.configure(cfg)
            cam.start()
            self.cam = cam
        except Exception:  # the camera library raises many kinds; none should stop the referee
            self.cam = None

    def read(self) -> np.ndarray | None:
        if self.cam is None:
            self._start()
            if self.cam is None:
                return None
        try:
            # picamera2's "RGB888" is laid out B, G, R in memory: OpenCV's order already.
            return np.ascontiguousarray(self.cam.capture_array("main")[:, :, :3])
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


class VideoFile:
    def __init__(self, path: str, loop: bool) -> None:
        self.path, self.loop = path, loop
        self.cap = cv2.VideoCapture(path)
        if not self.cap.isOpened():
            raise HardwareError(f"cannot open the video {path}")

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
        files = [p] if p.is_file() else sorted(
            f for f in p.iterdir() if f.suffix.lower() in IMAGE_SUFFIXES)
        if not files:
            raise HardwareError(f"no images ({', '.join(sorted(IMAGE_SUFFIXES))}) in {path}")
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


class RendererSource:
    """The simulated camera: draws `world.current_scene()` on every read."""

    def __init__(self, world, width: int, height: int, seed: int, preset: str) -> None:
        if world is None or not hasattr(world, "current_scene"):
            raise ConfigError("camera.source", "the renderer source needs a simulated world")
        self.world, self.size, self.seed, self.preset = world, (width, height), seed, preset
        self.frame = 0

    def read(self) -> np.ndarray | None:
        from controller.profile import default_profile
        from controller.vision.render import Scene, render_snapshot

        snapshot, scene = self.world.current_scene()
        if snapshot is None:
            return None
        profile = getattr(self.world, "profile", None) or default_profile(snapshot.game)
        self.frame += 1
        if scene is None:
            scene = Scene(frame=self.frame)
        elif scene.frame == 0:
            scene = replace(scene, frame=self.frame)
        return render_snapshot(snapshot, profile, seed=self.seed, preset=self.preset,
                               scene=scene, size=self.size)

    def close(self) -> None:
        self.world = None


def open_frame_source(camera_config: dict, world=None) -> FrameSource:
    """The frame source `camera_config` (config.yaml's `camera:` section) asks for."""
    c = validate_camera(camera_config)
    src = c["source"]
    if src == "renderer":
        return RendererSource(world, c["width"], c["height"], c["seed"], c["preset"])
    if src == "usb":
        return UsbCamera(c["device"], c["width"], c["height"], c["fps"])
    if src == "picamera":
        return PiCamera(c["width"], c["height"])
    if src == "video":
        return VideoFile(c["path"], c["loop"])
    return ImageFolder(c["path"], c["loop"])
