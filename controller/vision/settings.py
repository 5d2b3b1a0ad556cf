"""The profile's `vision:` settings, checked, and the colour classes a game's reader starts from:
learned ones from the profile (`referee calibrate`), else the standard edition's (`looks`)."""

from __future__ import annotations

from typing import Annotated, Any, ClassVar

import numpy as np

from controller.language import N_, _
from controller.schema import ProfileSection, checked, sentence, validate
from controller.snapshot import EMPTY
from controller.vision import looks
from controller.vision.classify import ClassModel, ClassRef
from controller.vision.features import colour_features
from controller.vision.glyph_model import GlyphSettings

#: Default spread of each class in feature space (log brightness, two chromaticities).
DEFAULT_SIGMA = (0.22, 0.03, 0.03)


def _white_norm(rgb: tuple[int, int, int]) -> np.ndarray:
    return np.array([rgb[2], rgb[1], rgb[0]], np.float64) / np.array(looks.PAPER[::-1])


def default_model(game: str, letters: str) -> ClassModel:
    """References derived from the standard edition's colours (what the renderer draws)."""
    pal = looks.pieces(game)
    refs = []
    cov = np.diag(np.array(DEFAULT_SIGMA) ** 2)
    for key, rgb in pal.items():
        if key not in letters and not key.startswith(".") and key != "open":
            continue
        letter = EMPTY if key.startswith(".") or key == "open" else key
        mean = colour_features(_white_norm(rgb)[None, :])[0]
        refs.append(ClassRef(key, letter, mean, cov.copy(), key == "open"))
    return ClassModel(refs)


def _flag(value: Any) -> bool:
    if not isinstance(value, bool):
        raise sentence(_("expected true or false"))
    return value


def _three(value: Any, top: float, wrong: Any) -> list:
    """Three numbers above 0 and at most `top` (a colour B, G, R), else the sentence `wrong`."""
    if not (
        isinstance(value, list)
        and len(value) == 3
        and all(isinstance(v, (int, float)) and not isinstance(v, bool) and 0 < v <= top for v in value)
    ):
        raise sentence(wrong)
    return value


def _white(value: Any) -> list:
    return _three(value, 255, _("expected three numbers 1-255 (B, G, R of white paper)"))


def _frame(value: Any) -> list:
    return _three(value, 2, _("expected three numbers above 0 and at most 2 (B, G, R of the frame, paper white 1)"))


class VisionSettings(ProfileSection):
    """A profile's `vision:` (what `referee calibrate` learned of this copy); the colour classes and
    the doors are checked where they are read (`model_for`, `controller.vision.doors`)."""

    unknown_key: ClassVar[str] = N_("unknown key; known keys: {known}")
    not_a_mapping: ClassVar[str] = N_("expected a mapping")

    classes: Any = None
    doors: Any = None
    #: null: none learned (the drawn glyphs), as when absent.
    glyphs: GlyphSettings | None = None
    hand_check: Annotated[bool, checked(_flag)] = True
    sure: Any = None
    version: Any = None
    #: B, G, R of white paper under this copy's light.
    white: Annotated[list[float] | None, checked(_white)] = None
    #: B, G, R of the board's frame relative to the paper under the light the copy was calibrated in.
    frame: Annotated[list[float] | None, checked(_frame)] = None


def vision_settings(profile) -> dict:
    """The profile's `vision:` mapping, checked (unknown keys rejected with their path)."""
    data = profile.get("vision") or {}
    validate(VisionSettings, data, prefix="vision")
    return data


def frame_colour(profile) -> np.ndarray | None:
    """The board frame's colour relative to the paper white (B, G, R) under the light the copy was
    calibrated in: the profile's `vision.frame` (calibration measures it), else the standard
    edition's for a copy read with the standard edition's looks, else None (not known)."""
    data = vision_settings(profile)
    if data.get("frame") is not None:
        return np.array(data["frame"], np.float64)
    if "classes" in data:
        return None
    return _white_norm(looks.FRAME[profile.game])


def model_for(profile) -> ClassModel:
    """The colour classes of the profile's copy (its learned `vision.classes`, else the defaults)."""
    data = vision_settings(profile)
    if "classes" in data:
        return ClassModel.from_yaml(data, letters=set(profile.letters) | {EMPTY})
    return default_model(profile.game, profile.letters)
