"""Stage one of every reading, *load*: a camera frame or a picture file checked and given as
contiguous 8-bit BGR, or a sentence saying why it cannot be read."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from controller.errors import RefereeError
from controller.language import Text, _

#: The smallest picture the referee reads (a frame smaller than this is a camera fault).
MIN_FRAME_SIDE = 16


def frame_problem(frame, size: tuple[int, int] | None = None) -> Text | None:
    """Why a frame is not a picture the referee can read (None: it is one).

    Grey pictures are refused rather than read as grey pieces: every game's pieces differ by
    colour, so a grey frame would only give a false verdict. `size` (rows, columns) is the size of
    the camera's first frame: a later frame of another size means the camera changed its mode.
    """
    if not isinstance(frame, np.ndarray):
        return _("a {kind} instead of a picture", kind=type(frame).__name__)
    if frame.size == 0 or frame.ndim < 2:
        return _("an empty picture ({size})", size="x".join(str(n) for n in frame.shape[:2][::-1]))
    if frame.ndim == 2 or (frame.ndim == 3 and frame.shape[2] == 1):
        return _("a grey (black and white) picture; the referee needs a colour camera")
    if frame.ndim != 3 or frame.shape[2] not in (3, 4):
        return _("a picture with {n} colour channels", n=str(frame.shape[2] if frame.ndim == 3 else frame.ndim))
    if frame.dtype != np.uint8:
        return _("a picture of {kind} values, not 8-bit", kind=str(frame.dtype))
    height, width = frame.shape[:2]
    if min(height, width) < MIN_FRAME_SIDE:
        return _("a picture of only {size} pixels", size=f"{width}x{height}")
    if size is not None and (height, width) != tuple(size):
        return _(
            "the picture size changed from {before} to {now}", before=f"{size[1]}x{size[0]}", now=f"{width}x{height}"
        )
    return None


def as_bgr(frame) -> np.ndarray:
    """Check a frame is a colour picture and give it as contiguous 3-channel 8-bit BGR."""
    problem = frame_problem(frame)
    if problem is not None:
        raise RefereeError(_("the frame cannot be read: {problem}", problem=problem))
    if frame.shape[2] == 4:
        frame = frame[..., :3]
    return np.ascontiguousarray(frame)


def load_image(path: str | Path) -> np.ndarray:
    """A picture file as BGR, or a sentence naming why it cannot be read."""
    if Path(path).is_dir():
        raise RefereeError(
            _("{path} is a folder, not a picture: give the picture file itself (a .png or .jpg)", path=str(path))
        )
    if not Path(path).is_file():
        raise RefereeError(_("the image {path} does not exist", path=str(path)))
    img = cv2.imread(str(path), cv2.IMREAD_COLOR)
    if img is None:
        raise RefereeError(_("cannot read the image {path}: not a picture OpenCV understands", path=str(path)))
    return img
