"""Exposure, gain and white balance locked (rig.md), against fakes of picamera2 and OpenCV."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from calibration.camera import learn_camera_settings
from controller.errors import ConfigError, RefereeError
from controller.profile import default_profile, load_profile, save_profile
from controller.vision import sources
from controller.vision.sources import SETTLE_FRAMES, PiCamera, UsbCamera, validate_camera


class FakePicamera2:
    """picamera2's Picamera2 as far as the source uses it; automatic loops pick fixed values."""

    instances: list[FakePicamera2] = []

    def __init__(self) -> None:
        self.controls: dict = {}
        self.calls: list[dict] = []
        FakePicamera2.instances.append(self)

    def create_video_configuration(self, main, **options):
        self.options = options
        return {"main": main}

    def configure(self, cfg) -> None:
        self.size = cfg["main"]["size"]

    def start(self) -> None:
        pass

    def set_controls(self, controls: dict) -> None:
        self.calls.append(dict(controls))
        self.controls.update(controls)

    def capture_metadata(self) -> dict:
        if self.controls.get("AeEnable", True):
            return {"ExposureTime": 12345, "AnalogueGain": 2.5, "ColourGains": (1.8, 1.4)}
        return {
            "ExposureTime": self.controls["ExposureTime"],
            "AnalogueGain": self.controls["AnalogueGain"],
            "ColourGains": self.controls["ColourGains"],
        }

    def capture_array(self, name: str) -> np.ndarray:
        w, h = self.size
        return np.zeros((h, w, 4), np.uint8)

    def stop(self) -> None:
        pass

    def close(self) -> None:
        pass


class FakeCapture:
    """cv2.VideoCapture with set/get; the driver's automatic exposure chose 157, gain 32, 4600 K."""

    def __init__(self, device, api=None) -> None:
        self.props = {
            cv2.CAP_PROP_EXPOSURE: 157.0,
            cv2.CAP_PROP_GAIN: 32.0,
            cv2.CAP_PROP_WB_TEMPERATURE: 4600.0,
            cv2.CAP_PROP_AUTO_EXPOSURE: 3.0,
            cv2.CAP_PROP_AUTO_WB: 1.0,
        }
        self.sets: list[tuple[int, float]] = []

    def isOpened(self) -> bool:  # noqa: N802 - OpenCV's name
        return True

    def set(self, prop: int, value: float) -> bool:
        self.sets.append((prop, value))
        self.props[prop] = float(value)
        return True

    def get(self, prop: int) -> float:
        return self.props.get(prop, 0.0)

    def read(self):
        return True, np.zeros((8, 8, 3), np.uint8)

    def release(self) -> None:
        pass


def test_picamera_locks_after_settling_and_stores_in_the_profile(tmp_path) -> None:
    cam = PiCamera(64, 48, lock=True, picamera_class=FakePicamera2)
    assert cam.cam.controls == {"AeEnable": True, "AwbEnable": True}  # settling first
    profile = learn_camera_settings(default_profile("colorpop"), cam)
    assert cam.cam.controls == {
        "AeEnable": False,
        "AwbEnable": False,
        "ExposureTime": 12345,
        "AnalogueGain": 2.5,
        "ColourGains": (1.8, 1.4),
    }
    path = tmp_path / "p.yaml"
    save_profile(profile, path)
    stored = load_profile(path).get("camera")
    assert stored == {"picamera": {"exposure_time": 12345, "analogue_gain": 2.5, "colour_gains": [1.8, 1.4]}}
    # Opened again with the stored values: locked from the first frame, nothing left to settle.
    again = PiCamera(64, 48, lock=True, locked=stored["picamera"], picamera_class=FakePicamera2)
    assert again.cam.calls == [
        {"AeEnable": False, "AwbEnable": False, "ExposureTime": 12345, "AnalogueGain": 2.5, "ColourGains": (1.8, 1.4)}
    ]
    for _ in range(SETTLE_FRAMES + 2):
        again.read()
    assert len(again.cam.calls) == 1


def test_picamera_left_automatic_when_not_locked() -> None:
    cam = PiCamera(64, 48, lock=False, locked={"exposure_time": 5}, picamera_class=FakePicamera2)
    for _ in range(SETTLE_FRAMES + 2):
        assert cam.read() is not None
    assert cam.cam.calls == [{"AeEnable": True, "AwbEnable": True}] and cam.camera_settings() is None
    with pytest.raises(RefereeError, match="no exposure"):
        learn_camera_settings(default_profile("colorpop"), cam)


def test_usb_camera_locks_after_settling_and_applies_stored_values() -> None:
    cam = UsbCamera(0, 64, 48, 30, lock=True, capture=FakeCapture)
    assert cam.cap.props[cv2.CAP_PROP_AUTO_EXPOSURE] == 3 and cam.cap.props[cv2.CAP_PROP_AUTO_WB] == 1
    profile = learn_camera_settings(default_profile("blockers"), cam)
    assert profile.get("camera") == {"usb": {"exposure": 157.0, "gain": 32.0, "wb_temperature": 4600.0}}
    assert cam.cap.props[cv2.CAP_PROP_AUTO_EXPOSURE] == sources.V4L2_MANUAL_EXPOSURE
    assert cam.cap.props[cv2.CAP_PROP_AUTO_WB] == 0
    stored = {"exposure": 80.0, "gain": 10.0, "wb_temperature": 5000.0}
    again = UsbCamera(0, 64, 48, 30, lock=True, locked=stored, capture=FakeCapture)
    got = {
        p: again.cap.props[p]
        for p in (
            cv2.CAP_PROP_EXPOSURE,
            cv2.CAP_PROP_GAIN,
            cv2.CAP_PROP_WB_TEMPERATURE,
            cv2.CAP_PROP_AUTO_EXPOSURE,
            cv2.CAP_PROP_AUTO_WB,
        )
    }
    assert got == {
        cv2.CAP_PROP_EXPOSURE: 80.0,
        cv2.CAP_PROP_GAIN: 10.0,
        cv2.CAP_PROP_WB_TEMPERATURE: 5000.0,
        cv2.CAP_PROP_AUTO_EXPOSURE: sources.V4L2_MANUAL_EXPOSURE,
        cv2.CAP_PROP_AUTO_WB: 0,
    }
    # The manual mode goes in before the values (a driver ignores exposure while automatic).
    props = [p for p, _ in again.cap.sets]
    assert props.index(cv2.CAP_PROP_AUTO_EXPOSURE) < props.index(cv2.CAP_PROP_EXPOSURE)


def test_usb_camera_left_automatic_when_not_locked() -> None:
    cam = UsbCamera(0, 64, 48, 30, lock=False, locked={"exposure": 80.0}, capture=FakeCapture)
    for _ in range(SETTLE_FRAMES + 2):
        cam.read()
    assert cam.cap.props[cv2.CAP_PROP_AUTO_EXPOSURE] == sources.V4L2_AUTO_EXPOSURE
    assert cam.cap.props[cv2.CAP_PROP_EXPOSURE] == 157.0 and cam.camera_settings() is None


def test_camera_lock_switch_and_profile_key_are_validated() -> None:
    assert validate_camera({})["lock"] is True
    assert validate_camera({"lock": False})["lock"] is False
    with pytest.raises(ConfigError, match="camera.lock"):
        validate_camera({"lock": "yes"})
    p = default_profile("flipop")
    with pytest.raises(ConfigError, match="camera.picamera.analogue_gain"):
        p.with_overrides({"camera": {"picamera": {"analogue_gain": "high"}}})
    with pytest.raises(ConfigError, match="camera.usb.iso"):
        p.with_overrides({"camera": {"usb": {"iso": 100}}})


def test_open_frame_source_passes_the_profiles_values(monkeypatch) -> None:
    monkeypatch.setattr(sources.cv2, "VideoCapture", FakeCapture)
    src = sources.open_frame_source({"source": "usb"}, locked={"usb": {"exposure": 42.0}})
    assert src.cap.props[cv2.CAP_PROP_EXPOSURE] == 42.0 and src.camera_settings() == {"usb": {"exposure": 42.0}}
