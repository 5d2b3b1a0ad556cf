"""The profile's `vision:` settings, checked, and the colour classes a game's reader starts from:
learned ones from the profile (`referee calibrate`), else the standard edition's (`looks`)."""

from __future__ import annotations

import numpy as np

from controller.errors import ConfigError
from controller.language import _
from controller.snapshot import EMPTY
from controller.vision import looks
from controller.vision.classify import ClassModel, ClassRef
from controller.vision.features import colour_features
from controller.vision.glyphs import check_settings

#: Default spread of each class in feature space (log brightness, two chromaticities).
DEFAULT_SIGMA = (0.22, 0.03, 0.03)

VISION_KEYS = {"version", "classes", "sure", "hand_check", "white", "glyphs", "doors"}


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


def vision_settings(profile) -> dict:
    """The profile's `vision:` mapping, checked (unknown keys rejected with their path)."""
    data = profile.get("vision") or {}
    if not isinstance(data, dict):
        raise ConfigError("vision", "expected a mapping")
    for key in data:
        if key not in VISION_KEYS:
            raise ConfigError(
                f"vision.{key}", _("unknown key; known keys: {value}", value=", ".join(sorted(VISION_KEYS)))
            )
    if "hand_check" in data and not isinstance(data["hand_check"], bool):
        raise ConfigError("vision.hand_check", _("expected true or false"))
    if "glyphs" in data:
        check_settings(data["glyphs"])
    if "white" in data:
        w = data["white"]
        if not (
            isinstance(w, list)
            and len(w) == 3
            and all(isinstance(v, (int, float)) and not isinstance(v, bool) and 0 < v <= 255 for v in w)
        ):
            raise ConfigError("vision.white", _("expected three numbers 1-255 (B, G, R of white paper)"))
    return data


def model_for(profile) -> ClassModel:
    """The colour classes of the profile's copy (its learned `vision.classes`, else the defaults)."""
    data = vision_settings(profile)
    if "classes" in data:
        model = ClassModel.from_yaml(data)
        letters = set(profile.letters) | {EMPTY}
        for ref in model.refs:
            if ref.letter not in letters:
                raise ConfigError(
                    f"vision.classes.{ref.key}.letter",
                    _(
                        "{letter} is not one of this game's classes ({value})",
                        letter=repr(ref.letter),
                        value=" ".join(sorted(letters)),
                    ),
                )
        return model
    return default_model(profile.game, profile.letters)
