"""Stage one of every reading, *load*: a camera frame or a picture file checked and given as
contiguous 8-bit BGR, or a sentence saying why it cannot be read."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from controller.errors import RefereeError

#: The smallest picture the referee reads (a frame smaller than this is a camera fault).
MIN_FRAME_SIDE = 16


def frame_problem(frame, size: tuple[int, int] | None = None) -> str | None:
    """Why a frame is not a picture the referee can read (None: it is one).

    Grey pictures are refused rather than read as grey pieces: every game's pieces differ by
    colour, so a grey frame would only give a false verdict. `size` (rows, columns) is the size of
    the camera's first frame: a later frame of another size means the camera changed its mode.
    """
    if not isinstance(frame, np.ndarray):
        return f"a {type(frame).__name__} instead of a picture"
    if frame.size == 0 or frame.ndim < 2:
        return "an empty picture (" + "x".join(str(n) for n in frame.shape[:2][::-1]) + ")"
    if frame.ndim == 2 or (frame.ndim == 3 and frame.shape[2] == 1):
        return "a grey (black and white) picture; the referee needs a colour camera"
    if frame.ndim != 3 or frame.shape[2] not in (3, 4):
        return f"a picture with {frame.shape[2] if frame.ndim == 3 else frame.ndim} colour channels"
    if frame.dtype != np.uint8:
        return f"a picture of {frame.dtype} values, not 8-bit"
    height, width = frame.shape[:2]
    if min(height, width) < MIN_FRAME_SIDE:
        return f"a picture of only {width}x{height} pixels"
    if size is not None and (height, width) != tuple(size):
        return f"the picture size changed from {size[1]}x{size[0]} to {width}x{height}"
    return None


def as_bgr(frame) -> np.ndarray:
    """Check a frame is a colour picture and give it as contiguous 3-channel 8-bit BGR."""
    problem = frame_problem(frame)
    if problem is not None:
        raise RefereeError(f"the frame cannot be read: {problem}")
    if frame.shape[2] == 4:
        frame = frame[..., :3]
    return np.ascontiguousarray(frame)


def load_image(path: str | Path) -> np.ndarray:
    """A picture file as BGR, or a sentence naming why it cannot be read."""
    if Path(path).is_dir():
        raise RefereeError(f"{path} is a folder, not a picture: give the picture file itself (a .png or .jpg)")
    if not Path(path).is_file():
        raise RefereeError(f"the image {path} does not exist")
    img = cv2.imread(str(path), cv2.IMREAD_COLOR)
    if img is None:
        raise RefereeError(f"cannot read the image {path}: not a picture OpenCV understands")
    return img
