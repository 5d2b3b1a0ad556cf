"""Checkers for YAML mappings (board profiles, config.yaml): each says what is wrong and where.

A schema is a small tree of checkers; each takes (value, key path) and raises ConfigError naming
the full key path, so a person editing a file is told exactly which key to fix.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from controller.errors import ConfigError

Checker = Callable[[Any, str], None]


def kind_of(value: Any) -> str:
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
            raise ConfigError(path, f"expected a whole number, got {kind_of(value)} ({value!r})")
        if (lo is not None and value < lo) or (hi is not None and value > hi):
            raise ConfigError(path, f"expected a whole number from {lo} to {hi}, got {value}")

    return check


def number(lo: float | None = None, hi: float | None = None) -> Checker:
    def check(value: Any, path: str) -> None:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ConfigError(path, f"expected a number, got {kind_of(value)} ({value!r})")
        if (lo is not None and value < lo) or (hi is not None and value > hi):
            raise ConfigError(path, f"expected a number from {lo} to {hi}, got {value}")

    return check


def text(pattern: Callable[[str], bool] | None = None, what: str = "text") -> Checker:
    def check(value: Any, path: str) -> None:
        if not isinstance(value, str):
            raise ConfigError(path, f"expected {what}, got {kind_of(value)} ({value!r})")
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
            raise ConfigError(path, f"expected a list, got {kind_of(value)} ({value!r})")
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
            raise ConfigError(path, f"expected a mapping of keys, got {kind_of(value)} ({value!r})")
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
