"""Camera settings at calibration: let a real camera's automatic exposure, gain and white balance
settle on the board, then store the values it chose in the profile's `camera:` key, so that play
sees the colours calibration learned (`rig.md`: locked after calibration)."""

from __future__ import annotations

from controller.errors import RefereeError
from controller.language import _, _n
from controller.vision.sources import SETTLE_FRAMES


def learn_camera_settings(profile, source, frames: int = SETTLE_FRAMES + 1):
    """The profile with the values `source` locked after `frames` frames (a source opened with
    `lock: true` and no stored values locks them itself once its automatic loops settled)."""
    got = 0
    for _frame in range(frames * 3):  # a camera may drop a few frames while it starts
        if source.read() is not None:
            got += 1
            if got >= frames:
                break
    settings = source.camera_settings() if hasattr(source, "camera_settings") else None
    if settings is None:
        if got < frames:
            raise RefereeError(
                _n(
                    "the camera gave {n} picture of the {frames} needed to settle its exposure and white balance: "
                    "check its cable",
                    "the camera gave {n} pictures of the {frames} needed to settle its exposure and white balance: "
                    "check its cable",
                    got,
                    frames=frames,
                )
            )
        raise RefereeError(
            _("this camera source has no exposure or white balance to lock (only picamera and usb cameras have)")
        )
    return with_settings(profile, settings)


def with_settings(profile, settings: dict):
    """The profile with a camera's locked values (`{"usb": {...}}` or `{"picamera": {...}}`) in its
    `camera:` key, keeping what else that key holds."""
    camera = dict(profile.get("camera") or {})
    camera.update(settings)
    return profile.with_overrides({"camera": camera}, source=profile.source)
