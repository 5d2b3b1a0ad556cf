"""Board profiles (`notation.md` §4): everything that differs from one physical copy to another.

The referee ships one default profile per game (`controller/profiles/<game>.yaml`). A user's
profile file, and a game record's `profile:` entry, replace the default's values key by key.
Every key is validated here, and a wrong one is reported with its full key path.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import yaml

from controller.errors import ConfigError, RefereeError
from controller.snapshot import GAMES, SHAPES

# --------------------------------------------------------------------------- schema
# A schema is a small tree of checkers; each takes (value, key path) and raises ConfigError.

Checker = Callable[[Any, str], None]


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, int):
        return "a whole number"
    if isinstance(value, float):
        return "a number"
    if isinstance(value, str):
        return "text"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    if value is None:
        return "nothing"
    return type(value).__name__


def integer(lo: int | None = None, hi: int | None = None) -> Checker:
    def check(value: Any, path: str) -> None:
        if isinstance(value, bool) or not isinstance(value, int):
            raise ConfigError(path, f"expected a whole number, got {_kind(value)} ({value!r})")
        if (lo is not None and value < lo) or (hi is not None and value > hi):
            raise ConfigError(path, f"expected a whole number from {lo} to {hi}, got {value}")

    return check


def number(lo: float | None = None, hi: float | None = None) -> Checker:
    def check(value: Any, path: str) -> None:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ConfigError(path, f"expected a number, got {_kind(value)} ({value!r})")
        if (lo is not None and value < lo) or (hi is not None and value > hi):
            raise ConfigError(path, f"expected a number from {lo} to {hi}, got {value}")

    return check


def text(pattern: Callable[[str], bool] | None = None, what: str = "text") -> Checker:
    def check(value: Any, path: str) -> None:
        if not isinstance(value, str):
            raise ConfigError(path, f"expected {what}, got {_kind(value)} ({value!r})")
        if pattern is not None and not pattern(value):
            raise ConfigError(path, f"expected {what}, got {value!r}")

    return check


def one_of(*choices: Any) -> Checker:
    def check(value: Any, path: str) -> None:
        if value not in choices:
            listed = ", ".join(str(c) for c in choices)
            raise ConfigError(path, f"expected one of {listed}, got {value!r}")

    return check


def flag() -> Checker:
    return one_of(True, False)


def list_of(item: Checker, length: int | None = None, min_len: int = 0) -> Checker:
    def check(value: Any, path: str) -> None:
        if not isinstance(value, list):
            raise ConfigError(path, f"expected a list, got {_kind(value)} ({value!r})")
        if length is not None and len(value) != length:
            raise ConfigError(path, f"expected a list of {length} items, got {len(value)}")
        if len(value) < min_len:
            raise ConfigError(path, f"expected at least {min_len} items, got {len(value)}")
        for i, v in enumerate(value):
            item(v, f"{path}[{i}]")

    return check


def mapping(
    fields: dict[str, Checker] | None = None,
    required: tuple[str, ...] = (),
    keys: Checker | None = None,
    values: Checker | None = None,
) -> Checker:
    """A mapping with named `fields`, or with free keys checked by `keys`/`values`."""

    def check(value: Any, path: str) -> None:
        if not isinstance(value, dict):
            raise ConfigError(path, f"expected a mapping of keys, got {_kind(value)} ({value!r})")
        for key, v in value.items():
            sub = f"{path}.{key}" if path else str(key)
            if fields is not None:
                if key not in fields:
                    known = ", ".join(fields)
                    raise ConfigError(sub, f"unknown key; known keys here are: {known}")
                fields[key](v, sub)
            else:
                if keys is not None:
                    keys(key, sub)
                if values is not None:
                    values(v, sub)
        for key in required:
            if key not in value:
                raise ConfigError(f"{path}.{key}" if path else key, "this key is required")

    return check


def anything() -> Checker:
    return lambda value, path: None


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
    rows, cols = SHAPES[game]
    return mapping(
        {
            "rows": one_of(rows),
            "cols": one_of(cols),
            "pitch_mm": number(1, 500),
            "markers": _MARKERS,
        },
        required=("rows", "cols", "pitch_mm", "markers"),
    )


def _letter(value: Any, path: str) -> None:
    if not (isinstance(value, str) and len(value) == 1 and value.isalpha() and value.isupper()):
        raise ConfigError(path, f"expected a single capital letter, got {value!r}")


_CLASSES = mapping(keys=_letter, values=mapping({"name": text()}, required=("name",)))


def _symbol_regions(value: Any, path: str) -> None:
    list_of(text(lambda s: len(s) == 3, "three symbol letters a-i"), length=3)(value, path)
    letters = "".join(value)
    if sorted(letters) != list("abcdefghi"):
        raise ConfigError(
            path, f"the nine regions must use each symbol letter a-i exactly once, got {letters!r}"
        )


def _hole_string(value: Any, path: str) -> None:
    text(lambda s: len(s) == 7 and set(s) <= {"0", "1"}, "seven characters 0 or 1")(value, path)


_SLIDE_HOLES = mapping({p: _hole_string for p in "ABC"}, required=("A", "B", "C"))
_CELL = list_of(integer(0, 9), length=2)

_SETTINGS: dict[str, dict[str, Checker]] = {
    "colorpop": {"joker_only_groups": flag()},
    "blockers": {},
    "flipop": {},
    "stay-alive": {"two_player_rule": one_of("own_twice", "lift_ban")},
}

_GAME_KEYS: dict[str, dict[str, Checker]] = {
    "colorpop": {"tokens": mapping(keys=_letter, values=integer(0, 100))},
    "blockers": {
        "symbols": list_of(text(), length=9),
        "regions": _symbol_regions,
    },
    "flipop": {
        "start": text(),
        "exits": mapping({"W": list_of(_CELL, min_len=1), "B": list_of(_CELL, min_len=1)}),
    },
    "stay-alive": {
        "holes": mapping(
            {"orange": list_of(_SLIDE_HOLES, length=7), "white": list_of(_SLIDE_HOLES, length=7)},
            required=("orange", "white"),
        ),
        "marbles_per_player": integer(1, 12),
    },
}


#: Exposure, gain and white balance locked at calibration (`controller/vision/sources.py`), per
#: kind of camera, in each interface's own units.
_CAMERA = mapping({
    "picamera": mapping({
        "exposure_time": integer(1, 10_000_000),  # microseconds
        "analogue_gain": number(1, 64),
        "colour_gains": list_of(number(0.01, 32), length=2),  # red, blue
    }),
    "usb": mapping({
        "exposure": number(0, 1_000_000),  # the V4L2 driver's units (usually 100 microseconds)
        "gain": number(0, 100_000),
        "wb_temperature": number(1000, 20000),  # kelvin
    }),
})


def schema_for(game: str) -> Checker:
    fields: dict[str, Checker] = {
        "game": one_of(game),
        "geometry": _geometry(game),
        "classes": _CLASSES,
        "settings": mapping(_SETTINGS[game]),
        # Learned vision references; owned and validated by controller.vision.
        "vision": mapping(keys=text()),
        "camera": _CAMERA,
    }
    fields.update(_GAME_KEYS[game])
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
            raise ConfigError("profile", f"expected a mapping of profile keys, got {_kind(overrides)}")
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
        raise ConfigError("game", "a profile is a mapping of keys", source)
    game = data.get("game")
    if game not in GAMES:
        raise ConfigError("game", f"expected one of {', '.join(GAMES)}, got {game!r}", source)
    try:
        schema_for(game)(data, "")
    except ConfigError as exc:
        raise ConfigError(exc.key, str(exc).split(": ", 1)[-1], source) from None
    _check_consistency(game, data, source)
    return Profile(game=game, data=data, source=source)


def _check_consistency(game: str, data: dict, source: str) -> None:
    """Checks that span several keys (a token count for an unknown class, and so on)."""
    classes = set(data["classes"])
    if game == "colorpop" and "tokens" in data:
        for letter in data["tokens"]:
            if letter not in classes:
                raise ConfigError(f"tokens.{letter}", "this letter is not one of the profile's classes", source)
    if game == "blockers" and "symbols" in data and len(set(data["symbols"])) != 9:
        raise ConfigError("symbols", "the nine symbol names must all differ", source)


_cache: dict[str, dict] = {}


def _default_data(game: str) -> dict:
    if game not in _cache:
        text_ = resources.files("controller.profiles").joinpath(f"{game}.yaml").read_text("utf-8")
        _cache[game] = yaml.safe_load(text_)
    return copy.deepcopy(_cache[game])


def default_profile(game: str) -> Profile:
    if game not in GAMES:
        raise RefereeError(f"unknown game {game!r}; expected one of {', '.join(GAMES)}")
    return make_profile(_default_data(game), source=f"default {game} profile")


def load_profile(path: str | Path) -> Profile:
    """A user's profile: the default for its game with the file's keys replacing the default's."""
    path = Path(path)
    try:
        raw = yaml.safe_load(path.read_text("utf-8"))
    except OSError as exc:
        raise RefereeError(f"cannot read the profile {path}: {exc.strerror}") from None
    except yaml.YAMLError as exc:
        raise RefereeError(f"the profile {path} is not valid YAML: {exc}") from None
    if not isinstance(raw, dict) or "game" not in raw:
        raise ConfigError("game", "a profile must say which game it describes", str(path))
    if raw["game"] not in GAMES:
        raise ConfigError("game", f"expected one of {', '.join(GAMES)}, got {raw['game']!r}", str(path))
    return default_profile(raw["game"]).with_overrides(
        {k: v for k, v in raw.items() if k != "game"}, source=str(path)
    )


def save_profile(profile: Profile, path: str | Path) -> None:
    Path(path).write_text(yaml.safe_dump(profile.data, sort_keys=False), "utf-8")
