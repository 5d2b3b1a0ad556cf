"""One way to check every YAML mapping a person writes (config.yaml, profiles, records, the club): each
mistake is named by its full key path and said in a sentence.

The sections are pydantic models (`Section`: unknown keys forbidden, frozen), as Frigate declares its
config: one declaration per key, with its default, its type and its check. Pydantic's own messages
("Input should be a valid integer") are not what a hobbyist reads, so every check a section declares
says its sentence itself (`sentence`), and `validate` turns the first problem into a `ConfigError`
naming the key path (``gpio.pins.red``, ``mqtt.tls.ca_file``, ``seats[2]``).

A key's check is a validator run before pydantic's (`checked`; `whole`, `number`, `text`, `one_of`,
`items`, `a_mapping` and the types `Letter` and `Place` for the common ones), so a list's items and a
mapping's values are checked by pydantic itself and their errors carry their place
(``geometry.markers.ids[3]``). Board profiles' sections (`ProfileSection`) and what calibration
learned (`LearnedSection`) say their unknown keys in their own words.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Annotated, Any, ClassVar, TypeVar

from pydantic import BaseModel, BeforeValidator, ConfigDict, ValidationError, ValidationInfo, model_validator
from pydantic_core import PydanticCustomError

from controller.errors import ConfigError
from controller.language import N_, Text, _, _n, literal


def kind_of(value: Any) -> Any:
    """What kind of value a person wrote, in words (`a whole number`, `text`)."""
    if isinstance(value, bool):
        return _("true/false")
    if isinstance(value, int):
        return _("a whole number")
    if isinstance(value, float):
        return _("a number")
    if isinstance(value, str):
        return _("text")
    if isinstance(value, list):
        return _("a list")
    if isinstance(value, dict):
        return _("a mapping")
    if value is None:
        return _("nothing")
    return type(value).__name__


def _written(value: Any) -> Text:
    """A value as the person wrote it (its Python form: `'loud'`, `2.5`), said the same in every language."""
    return literal(repr(value))


# --------------------------------------------------------------------------- sections as pydantic models

#: The error type of every sentence a section says itself.
SENTENCE = "referee"


def expected_one_of(choices: Any, value: Any) -> Text:
    return _(
        "expected one of {choices}, got {value}",
        choices=literal(", ".join(str(c) for c in choices)),
        value=_written(value),
    )


def sentence(text: Any, key: str | int | None = None) -> PydanticCustomError:
    """The error a check raises: `text` is what the person reads; `key`, when given, is the key
    below the checked value that is wrong (an unknown key, a pin clashing inside a section)."""
    context: dict[str, Any] = {"sentence": text}
    if key is not None:
        context["key"] = key
    return PydanticCustomError(SENTENCE, "{sentence}", context)


class Section(BaseModel):
    """A mapping of named keys: unknown keys refused with the section's own sentence, nothing is
    converted silently (``"yes"`` is not true, ``2.0`` is not a whole number), values frozen."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    #: How an unknown key is refused here; `{known}` lists this section's keys.
    unknown_key: ClassVar[str] = N_("is not a known setting; the settings are {known}")
    #: How a value that is not a mapping is refused here; `{value}` is what was given.
    not_a_mapping: ClassVar[str] = N_("expected a section of 'name: value' settings, got {value}")
    #: Keys refused with a sentence of their own (a password written where only its file belongs).
    refused: ClassVar[dict[str, str]] = {}
    #: An empty section in YAML (`camera:`) is the defaults.
    empty_is_defaults: ClassVar[bool] = True

    @model_validator(mode="before")
    @classmethod
    def _a_mapping_of_known_keys(cls, data: Any) -> Any:
        if data is None and cls.empty_is_defaults:
            return {}
        if isinstance(data, BaseModel):
            return data
        if not isinstance(data, dict):
            raise sentence(Text(cls.not_a_mapping, {"value": _written(data), "kind": kind_of(data)}))
        for key, why in cls.refused.items():
            if key in data:
                raise sentence(Text(why), key=key)
        known = cls.known_keys()
        for key in data:
            if key not in known:
                raise sentence(Text(cls.unknown_key, {"known": literal(", ".join(known))}), key=str(key))
        return cls.prepare(dict(data))

    @classmethod
    def prepare(cls, data: dict[str, Any]) -> dict[str, Any]:
        """The section's keys before each is checked: a section whose defaults depend on each
        other fills them in here (the broker's port follows TLS)."""
        return data

    @classmethod
    def known_keys(cls) -> tuple[str, ...]:
        """The keys a person may write in this section, in the order they are declared."""
        return tuple(field.alias or name for name, field in cls.model_fields.items())


class ProfileSection(Section):
    """A section of a board profile (`controller.profile`): its keys are all needed unless they
    have a default, and a mistake is said in the profiles' own words."""

    unknown_key: ClassVar[str] = N_("unknown key; known keys here are: {known}")
    not_a_mapping: ClassVar[str] = N_("expected a mapping of keys, got {kind} ({value})")
    empty_is_defaults: ClassVar[bool] = False


class LearnedSection(ProfileSection):
    """A section of a profile that `referee calibrate` writes (what it learned of a copy): rarely
    written by hand, so an unknown key is said shortly."""

    unknown_key: ClassVar[str] = N_("unknown key; known: {known}")


S = TypeVar("S", bound=BaseModel)


def located(location: tuple[str | int, ...], data: Any) -> tuple[str | int, ...]:
    """Pydantic's location of an error, as the person wrote it: a number is a key where the value
    there is a mapping (``tokens.1``), a place in a list where it is a list (``ids[3]``); a mapping's
    key itself (pydantic's ``[key]``) is named by the key."""
    found: list[str | int] = []
    node = data
    for part in location:
        if part == "[key]":
            continue
        if isinstance(node, dict):
            found.append(str(part))
            node = node.get(part)
        elif isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node):
            found.append(part)
            node = node[part]
        else:
            found.append(part)
            node = None
    return tuple(found)


def key_path(location: tuple[str | int, ...], prefix: str = "") -> str:
    """`('gpio', 'pins', 'seat_leds', 2)` -> ``gpio.pins.seat_leds[2]``."""
    path = prefix
    for part in location:
        if isinstance(part, int):
            path += f"[{part}]"
        else:
            path = f"{path}.{part}" if path else str(part)
    return path


def _generic_sentence(error: Mapping[str, Any]) -> Any:
    """Pydantic's own checks (a key left out, a value of another kind), in the project's words."""
    kind, value = error["type"], error.get("input")
    what = {"kind": kind_of(value), "value": _written(value)}
    if kind == "missing":
        return _("this key is required")
    if kind == "bool_type":
        return _("expected true or false, got {value}", value=_written(value))
    if kind in ("int_type", "int_parsing", "int_from_float"):
        return _("expected a whole number, got {kind} ({value})", **what)
    if kind in ("float_type", "float_parsing"):
        return _("expected a number, got {kind} ({value})", **what)
    if kind == "string_type":
        return _("expected text, got {kind} ({value})", **what)
    if kind in ("list_type", "tuple_type"):
        return _("expected a list, got {kind} ({value})", **what)
    if kind in ("dict_type", "model_type", "model_attributes_type"):
        return _("expected a mapping of keys, got {kind} ({value})", **what)
    if kind == "extra_forbidden":
        return _("is not a known setting")
    return str(error["msg"])


def _with_section(message: Any, path: str) -> Any:
    """`{section}` in a sentence: the path of the section that said it (a `Text`'s argument, or in plain text)."""
    if isinstance(message, Text):
        args = {
            k: (literal(str(v).replace("{section}", path)) if isinstance(v, str) and "{section}" in v else v)
            for k, v in message.args.items()
        }
        return Text(message.msgid, args, plural=message.plural, n=message.n, context=message.context)
    return str(message).replace("{section}", path)


def validate(
    model: type[S], data: Any, source: str | None = None, prefix: str = "", context: dict[str, Any] | None = None
) -> S:
    """`data` checked as a `model`; the first problem as a ConfigError naming its full key path.

    `prefix` is the section's own key when it is checked alone (``gpio``); `source` the file
    named in front of the sentence; `context` what checks need besides the value (the folder
    relative paths start from, the number of players).
    """
    try:
        return model.model_validate(data, context=context)
    except ValidationError as exc:
        error = exc.errors(include_url=False)[0]
        location = located(tuple(error["loc"]), data)
        extra = (error.get("ctx") or {}).get("key")
        if extra is not None:
            location += (extra,)
        if error["type"] == SENTENCE:  # `{section}` in a sentence: the path of the section that said it
            message = _with_section(error["ctx"]["sentence"], key_path(located(tuple(error["loc"]), data), prefix))
        else:
            message = _generic_sentence(error)
        raise ConfigError(key_path(location, prefix), message, source) from None


def checked(check: Callable[..., Any]) -> BeforeValidator:
    """A key's own check (value -> the value kept), run before pydantic's: it words its own refusal."""
    return BeforeValidator(check)


def folder_of(info: ValidationInfo) -> Path:
    """The folder relative paths are read from (the file's own; the working folder without one)."""
    context = info.context or {}
    return Path(context.get("base") or Path.cwd())


def file_path(value: Any, info: ValidationInfo) -> Path:
    """A file's path, `~` expanded, relative to the folder of the file that names it."""
    if isinstance(value, Path):
        return value
    if not isinstance(value, str) or not value.strip():
        raise sentence(_("expected a file path, got {value}", value=_written(value)))
    path = Path(os.path.expanduser(value))
    return path if path.is_absolute() else folder_of(info) / path


def seconds(low: float, high: float) -> BeforeValidator:
    """A number of seconds from `low` to `high` (config.yaml's wording): `Annotated[float, seconds(1, 5)]`."""

    def check(value: Any) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise sentence(_("expected a number of seconds, got {value}", value=_written(value)))
        if not low <= value <= high:
            raise sentence(
                _("expected {low} to {high} seconds, got {value}", low=low, high=high, value=_written(value))
            )
        return float(value)

    return checked(check)


def choice(*choices: str) -> BeforeValidator:
    """One of a few words (``expected one of debug, info, warning, error, got 'loud'``):
    `Annotated[str, choice("debug", "info")]`."""

    def check(value: Any) -> str:
        if value not in choices:
            raise sentence(expected_one_of(choices, value))
        return str(value)

    return checked(check)


# --------------------------------------------------------------------------- the common checks of a key


def _kind_and_value(value: Any) -> dict[str, Any]:
    return {"kind": kind_of(value), "value": _written(value)}


def whole(lo: int | None = None, hi: int | None = None) -> BeforeValidator:
    """A whole number, from `lo` to `hi` when given: `Annotated[int, whole(0, 999)]`."""

    def check(value: Any) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise sentence(_("expected a whole number, got {kind} ({value})", **_kind_and_value(value)))
        if (lo is not None and value < lo) or (hi is not None and value > hi):
            raise sentence(
                _("expected a whole number from {low} to {high}, got {value}", low=lo, high=hi, value=_written(value))
            )
        return value

    return checked(check)


def number(lo: float | None = None, hi: float | None = None) -> BeforeValidator:
    """A number, whole or not, from `lo` to `hi` when given: `Annotated[float, number(1, 500)]`."""

    def check(value: Any) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise sentence(_("expected a number, got {kind} ({value})", **_kind_and_value(value)))
        if (lo is not None and value < lo) or (hi is not None and value > hi):
            raise sentence(
                _("expected a number from {low} to {high}, got {value}", low=lo, high=hi, value=_written(value))
            )
        return value

    return checked(check)


def text(pattern: Callable[[str], bool] | None = None, what: Any = None) -> BeforeValidator:
    """Text (`what` says which, in words: `_("a colour name")`), matching `pattern` when given."""
    wanted = what if what is not None else _("text")

    def check(value: Any) -> str:
        if not isinstance(value, str):
            raise sentence(_("expected {what}, got {kind} ({value})", what=wanted, **_kind_and_value(value)))
        if pattern is not None and not pattern(value):
            raise sentence(_("expected {what}, got {value}", what=wanted, value=_written(value)))
        return value

    return checked(check)


def one_of(*choices: Any) -> BeforeValidator:
    """One of a few values, said as written (``expected one of own_twice, lift_ban, got 'never'``)."""

    def check(value: Any) -> Any:
        if isinstance(value, bool) is not isinstance(choices[0], bool) or value not in choices:
            raise sentence(expected_one_of(choices, value))
        return value

    return checked(check)


def items(length: int | None = None, min_len: int = 0) -> BeforeValidator:
    """A list (of `length` items, or at least `min_len`), its items then checked by their own type:
    `Annotated[list[Annotated[int, whole(0, 999)]], items(4)]`."""

    def check(value: Any) -> list:
        if not isinstance(value, list):
            raise sentence(_("expected a list, got {kind} ({value})", **_kind_and_value(value)))
        if length is not None and len(value) != length:
            raise sentence(
                _n(
                    "expected a list of {n} item, got {got}",
                    "expected a list of {n} items, got {got}",
                    length,
                    got=len(value),
                )
            )
        if len(value) < min_len:
            raise sentence(
                _n(
                    "expected at least {n} item, got {got}",
                    "expected at least {n} items, got {got}",
                    min_len,
                    got=len(value),
                )
            )
        return value

    return checked(check)


def a_mapping() -> BeforeValidator:
    """A mapping whose keys and values are checked by their own types: `Annotated[dict[Letter, int], a_mapping()]`."""

    def check(value: Any) -> dict:
        if not isinstance(value, dict):
            raise sentence(_("expected a mapping of keys, got {kind} ({value})", **_kind_and_value(value)))
        return value

    return checked(check)


def _capital_letter(value: Any) -> str:
    if not (isinstance(value, str) and len(value) == 1 and value.isalpha() and value.isupper()):
        raise sentence(_("expected a single capital letter, got {value}", value=_written(value)))
    return value


#: A class letter used as a key (the profile's classes, token counts, ...).
Letter = Annotated[str, checked(_capital_letter)]
#: A board place written `[row, col]`.
Place = Annotated[list[Annotated[int, whole(0, 99)]], items(length=2)]
