"""Board profiles (`notation.md` §4): everything that differs from one physical copy to another.

The referee ships one default profile per game (`controller/profiles/<game>.yaml`). A user's
profile file, and a game record's `profile:` entry, replace the default's values key by key.
Every key is validated here, and a wrong one is reported with its full key path.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import numpy as np
import yaml
from pydantic import ValidationInfo, create_model, model_validator

from controller.errors import ConfigError, RefereeError
from controller.errors import sentence as error_sentence
from controller.files import load_yaml, parse_yaml, read_text
from controller.games import registry
from controller.games.spec import GameSpec
from controller.language import _
from controller.schema import (
    Letter,
    ProfileSection,
    a_mapping,
    checked,
    expected_one_of,
    items,
    kind_of,
    number,
    one_of,
    sentence,
    text,
    validate,
    whole,
)

# --------------------------------------------------------------------------- the keys of every profile

#: The ArUco dictionaries OpenCV knows that a copy's markers may come from.
DICTIONARIES = ("4X4_50", "4X4_100", "4X4_250", "5X5_50", "5X5_100", "6X6_50")


class Markers(ProfileSection):
    """The four ArUco markers around the board (`rig.md`): their dictionary, ids, size and offset in pitches."""

    dictionary: Annotated[str, one_of(*DICTIONARIES)]
    ids: Annotated[list[Annotated[int, whole(0, 999)]], items(length=4)]
    size: Annotated[float, number(0.1, 10)]
    offset: Annotated[float, number(0, 10)]


def _shape(axis: int) -> Any:
    """The game's own number of rows (`axis` 0) or columns (1): a profile cannot change the board's size."""

    def check(value: Any, info: ValidationInfo) -> Any:
        shape = (info.context or {}).get("shape")
        if shape is not None and (isinstance(value, bool) or value != shape[axis]):
            raise sentence(expected_one_of((shape[axis],), value))
        return value

    return checked(check)


class Geometry(ProfileSection):
    rows: Annotated[int, _shape(0)]
    cols: Annotated[int, _shape(1)]
    pitch_mm: Annotated[float, number(1, 500)]
    markers: Markers


class PieceClass(ProfileSection):
    name: Annotated[str, text()]


class Picamera(ProfileSection):
    """Exposure, gain and white balance locked at calibration (`controller/vision/sources.py`) on a Pi camera."""

    exposure_time: Annotated[int | None, whole(1, 10_000_000)] = None  # microseconds
    analogue_gain: Annotated[float | None, number(1, 64)] = None
    colour_gains: Annotated[list[Annotated[float, number(0.01, 32)]] | None, items(length=2)] = None  # red, blue


class Usb(ProfileSection):
    """The same on a USB camera, in the V4L2 driver's units."""

    exposure: Annotated[float | None, number(0, 1_000_000)] = None  # usually 100 microseconds
    gain: Annotated[float | None, number(0, 100_000)] = None
    wb_temperature: Annotated[float | None, number(1000, 20000)] = None  # kelvin


class CameraSettings(ProfileSection):
    """The camera's settings locked at calibration, per kind of camera."""

    picamera: Picamera | None = None
    usb: Usb | None = None


#: A copy without the ArUco markers: the lattice's four corner points in the camera's picture, in pixels,
#: top-left, top-right, bottom-right, bottom-left (what `referee read --corners` takes), fixed once.
Corners = Annotated[
    list[Annotated[list[Annotated[float, number(-100_000, 100_000)]], items(length=2)]], items(length=4)
]


class BoardProfile(ProfileSection):
    """The keys every game's profile has (`notation.md` §4); a game adds its own (`GameSpec.profile_keys`)
    and its settings (`GameSpec.settings`), and checks what spans several keys (`GameSpec.check_profile`)."""

    game: str
    geometry: Geometry
    classes: Annotated[dict[Letter, PieceClass], a_mapping()]
    settings: ProfileSection
    #: Learned vision references; owned and validated by controller.vision.
    vision: Annotated[dict[Annotated[str, text()], Any], a_mapping()] = {}
    camera: CameraSettings | None = None
    corners: Corners | None = None

    @model_validator(mode="after")
    def _across_keys(self) -> BoardProfile:
        if self.corners is not None:
            from controller.vision.geometry import CornersError, check_corners  # OpenCV only when corners are given

            try:
                check_corners(np.array(self.corners, np.float64))
            except CornersError as exc:
                raise sentence(error_sentence(exc), key="corners") from None
        check = registry.get(self.game).check_profile
        if check is not None:
            check(self)
        return self


_models: dict[str, tuple[GameSpec, type[BoardProfile]]] = {}


def model_for(game: str) -> type[BoardProfile]:
    """The model of `game`'s profiles: every profile's keys, the game's settings and its own keys."""
    spec = registry.get(game)
    known = _models.get(game)
    if known is not None and known[0] is spec:
        return known[1]
    settings = create_model(  # type: ignore[call-overload]
        f"{spec.name}.settings", __base__=ProfileSection, **{k: (t, None) for k, t in spec.settings.items()}
    )
    game_keys = {key: (kind, None) for key, kind in spec.profile_keys.items()}
    model = create_model(  # type: ignore[call-overload]
        f"{spec.name}.profile",
        __base__=BoardProfile,
        game=(Annotated[str, one_of(game)], ...),
        settings=(settings, ...),
        **game_keys,
    )
    _models[game] = (spec, model)
    return model


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
    game = _which_game(data, source, _("a profile is a mapping of keys"))
    validate(model_for(game), data, source, context={"shape": registry.get(game).shape})
    return Profile(game=game, data=data, source=source)


def _which_game(data: Any, source: str, missing: Any) -> str:
    """The game a profile describes (its model depends on it); `missing` says a profile that names none."""
    if not isinstance(data, dict) or "game" not in data:
        raise ConfigError("game", missing, source)
    if not registry.known(data["game"]):
        said = _("expected one of {value}, got {game}", value=", ".join(registry.names()), game=repr(data["game"]))
        raise ConfigError("game", said, source)
    return data["game"]


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
    game = _which_game(raw, str(path), _("a profile must say which game it describes"))
    return default_profile(game).with_overrides({k: v for k, v in raw.items() if k != "game"}, source=str(path))


def save_profile(profile: Profile, path: str | Path) -> None:
    Path(path).write_text(yaml.safe_dump(profile.data, sort_keys=False), "utf-8")
