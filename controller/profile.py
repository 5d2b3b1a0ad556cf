"""Board profiles (`notation.md` §4): everything that differs from one physical copy to another.

The referee ships one default profile per game (`controller/profiles/<game>.yaml`). A user's
profile file, and a game record's `profile:` entry, replace the default's values key by key.
Every key is validated here, and a wrong one is reported with its full key path.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from controller.errors import ConfigError, RefereeError
from controller.files import load_yaml, parse_yaml, read_text
from controller.games import registry
from controller.language import _
from controller.schema import Checker, integer, kind_of, letter_key, list_of, mapping, number, one_of, text

# --------------------------------------------------------------------------- per-game schemas

_MARKERS = mapping(
    {
        "dictionary": one_of("4X4_50", "4X4_100", "4X4_250", "5X5_50", "5X5_100", "6X6_50"),
        "ids": list_of(integer(0, 999), length=4),
        "size": number(0.1, 10),
        "offset": number(0, 10),
    },
    required=("dictionary", "ids", "size", "offset"),
)


def _geometry(game: str) -> Checker:
    rows, cols = registry.get(game).shape
    return mapping(
        {
            "rows": one_of(rows),
            "cols": one_of(cols),
            "pitch_mm": number(1, 500),
            "markers": _MARKERS,
        },
        required=("rows", "cols", "pitch_mm", "markers"),
    )


_CLASSES = mapping(keys=letter_key, values=mapping({"name": text()}, required=("name",)))


#: Exposure, gain and white balance locked at calibration (`controller/vision/sources.py`), per
#: kind of camera, in each interface's own units.
_CAMERA = mapping(
    {
        "picamera": mapping(
            {
                "exposure_time": integer(1, 10_000_000),  # microseconds
                "analogue_gain": number(1, 64),
                "colour_gains": list_of(number(0.01, 32), length=2),  # red, blue
            }
        ),
        "usb": mapping(
            {
                "exposure": number(0, 1_000_000),  # the V4L2 driver's units (usually 100 microseconds)
                "gain": number(0, 100_000),
                "wb_temperature": number(1000, 20000),  # kelvin
            }
        ),
    }
)


#: A copy without the ArUco markers: the lattice's four corner points in the camera's picture, in pixels,
#: top-left, top-right, bottom-right, bottom-left (what `referee read --corners` takes), fixed once.
_CORNERS = list_of(list_of(number(-100_000, 100_000), length=2), length=4)


def schema_for(game: str) -> Checker:
    spec = registry.get(game)
    fields: dict[str, Checker] = {
        "game": one_of(game),
        "geometry": _geometry(game),
        "classes": _CLASSES,
        "settings": mapping(dict(spec.settings)),
        # Learned vision references; owned and validated by controller.vision.
        "vision": mapping(keys=text()),
        "camera": _CAMERA,
        "corners": _CORNERS,
    }
    fields.update(spec.profile_keys)
    return mapping(fields, required=("game", "geometry", "classes", "settings"))


# --------------------------------------------------------------------------- the profile


@dataclass(frozen=True)
class Profile:
    """One validated board profile; `data` is the whole mapping as YAML would hold it."""

    game: str
    data: dict
    source: str = "default"

    @property
    def geometry(self) -> dict:
        return self.data["geometry"]

    @property
    def rows(self) -> int:
        return int(self.geometry["rows"])

    @property
    def cols(self) -> int:
        return int(self.geometry["cols"])

    @property
    def pitch_mm(self) -> float:
        return float(self.geometry["pitch_mm"])

    @property
    def markers(self) -> dict:
        return self.geometry["markers"]

    @property
    def classes(self) -> dict:
        return self.data["classes"]

    @property
    def letters(self) -> str:
        """Piece letters a snapshot of this copy may hold."""
        return "".join(self.classes)

    @property
    def settings(self) -> dict:
        return self.data.get("settings", {})

    def setting(self, name: str) -> Any:
        return self.settings[name]

    def get(self, key: str, default: Any = None) -> Any:
        return self.data.get(key, default)

    def with_overrides(self, overrides: dict | None, source: str = "profile overrides") -> Profile:
        """This profile with `overrides` replacing whole top-level keys (`notation.md` §4)."""
        if not overrides:
            return self
        if not isinstance(overrides, dict):
            raise ConfigError("profile", _("expected a mapping of profile keys, got {value}", value=kind_of(overrides)))
        merged = copy.deepcopy(self.data)
        for key, value in overrides.items():
            if key == "settings" and isinstance(value, dict):
                # Settings are switches: overriding one must not silently reset the others.
                merged.setdefault("settings", {}).update(copy.deepcopy(value))
            else:
                merged[key] = copy.deepcopy(value)
        return make_profile(merged, source=source)


def make_profile(data: dict, source: str = "profile") -> Profile:
    if not isinstance(data, dict):
        raise ConfigError("game", _("a profile is a mapping of keys"), source)
    game = data.get("game")
    if not registry.known(game):
        raise ConfigError(
            "game", _("expected one of {value}, got {game}", value=", ".join(registry.names()), game=repr(game)), source
        )
    try:
        schema_for(game)(data, "")
    except ConfigError as exc:
        raise ConfigError(exc.key, str(exc).split(": ", 1)[-1], source) from None
    _check_consistency(game, data, source)
    return Profile(game=game, data=data, source=source)


def _check_consistency(game: str, data: dict, source: str) -> None:
    """Checks that span several keys (a token count for an unknown class, and so on): the game's own."""
    if data.get("corners") is not None:
        from controller.vision.geometry import CornersError, check_corners  # OpenCV only when corners are given

        try:
            check_corners(np.array(data["corners"], np.float64))
        except CornersError as exc:
            raise ConfigError("corners", str(exc), source) from None
    check = registry.get(game).check_profile
    if check is not None:
        check(data, source)


_read: dict[Path, dict] = {}


def _default_data(game: str) -> dict:
    """A copy of the default profile `game` ships (its file is read once)."""
    where = registry.get(game).default_profile
    if where is None:
        raise RefereeError(_("the game {game} ships no default profile", game=repr(game)))
    if isinstance(where, Path):
        if where not in _read:
            _read[where] = parse_yaml(read_text(where, _("the default {game} profile", game=game)), str(where))
        return copy.deepcopy(_read[where])
    return copy.deepcopy(dict(where))


def default_profile(game: str) -> Profile:
    registry.get(game)  # a sentence naming the known games if there is no such game
    return make_profile(_default_data(game), source=f"default {game} profile")


def load_profile(path: str | Path) -> Profile:
    """A user's profile: the default for its game with the file's keys replacing the default's."""
    path = Path(path)
    raw = load_yaml(path, _("the profile"))
    if not isinstance(raw, dict) or "game" not in raw:
        raise ConfigError("game", _("a profile must say which game it describes"), str(path))
    if not registry.known(raw["game"]):
        raise ConfigError(
            "game",
            _("expected one of {value}, got {value2}", value=", ".join(registry.names()), value2=repr(raw["game"])),
            str(path),
        )
    return default_profile(raw["game"]).with_overrides({k: v for k, v in raw.items() if k != "game"}, source=str(path))


def save_profile(profile: Profile, path: str | Path) -> None:
    Path(path).write_text(yaml.safe_dump(profile.data, sort_keys=False), "utf-8")
