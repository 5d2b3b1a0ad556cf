"""A text notation for any game's mid-game state, as FEN is for chess.

Why: tests (and people reporting a bug) write a position as text instead of building engine
states by hand or setting private attributes. The notation is a small YAML mapping: `game`, then
each field of the engine's immutable state, with the board written as rows of cells
(`R . . B`, Blockers! cells `R5 .. ..`). It is derived from the state's type hints, so a new
field of a state is in the notation with no further code, and `parse_position` checks the
text against the same hints, naming the field that is wrong.

    game: stay-alive
    orange: [A, B, C, A, B, C, A]
    ...
    board: |
      . . R . . . .
      ...
    to_move: 1
"""

from __future__ import annotations

import dataclasses
import types
from collections.abc import Callable
from typing import Any, Union, get_args, get_origin, get_type_hints

import yaml

from controller.errors import FormatError
from controller.files import parse_yaml

_EMPTY_CELL = "."


def _is_board(hint: Any) -> bool:
    """tuple[tuple[str, ...], ...]: a grid of cells."""
    if get_origin(hint) is not tuple:
        return False
    args = get_args(hint)
    if len(args) != 2 or args[1] is not Ellipsis:
        return False
    inner = args[0]
    return get_origin(inner) is tuple and get_args(inner) == (str, Ellipsis)


def _to_plain(value: Any, hint: Any) -> Any:
    if _is_board(hint) and isinstance(value, tuple):
        width = max((len(c) for row in value for c in row), default=1)
        empty = _EMPTY_CELL * width
        return "".join(" ".join(empty if c == _EMPTY_CELL else c for c in row) + "\n" for row in value)
    if dataclasses.is_dataclass(value):
        hints = get_type_hints(type(value))
        return {f.name: _to_plain(getattr(value, f.name), hints[f.name]) for f in dataclasses.fields(value)}
    if isinstance(value, tuple) and hasattr(value, "_fields"):  # a NamedTuple
        hints = get_type_hints(type(value))
        return {name: _to_plain(getattr(value, name), hints.get(name, Any)) for name in value._fields}
    if isinstance(value, frozenset | set):
        return sorted(_to_plain(v, Any) for v in value)
    if isinstance(value, tuple | list):
        args = get_args(hint)
        if len(args) == 2 and args[1] is Ellipsis:
            return [_to_plain(v, args[0]) for v in value]
        if args and len(args) == len(value):
            return [_to_plain(v, a) for v, a in zip(value, args)]
        return [_to_plain(v, Any) for v in value]
    return value


def _from_plain(value: Any, hint: Any, path: str) -> Any:
    """`value` as YAML holds it, made the `hint` type's value: each kind of hint has its reader below."""
    if hint is Any:
        return value
    for matches, read in _READERS:
        if matches(hint):
            return read(value, hint, path)
    raise FormatError(f"{path}: cannot read a value of type {hint}", "position")


def _from_union(value: Any, hint: Any, path: str) -> Any:
    options = get_args(hint)
    if value is None and type(None) in options:
        return None
    errors = []
    for option in options:
        if option is type(None):
            continue
        try:
            return _from_plain(value, option, path)
        except FormatError as exc:
            errors.append(str(exc))
    raise FormatError(f"{path}: none of the expected forms fit ({'; '.join(errors)})", "position")


def _from_board(value: Any, hint: Any, path: str) -> tuple[tuple[str, ...], ...]:
    if not isinstance(value, str):
        raise FormatError(f"{path}: expected the board as rows of cells", "position")
    return tuple(
        tuple(_EMPTY_CELL if set(c) == {"."} else c for c in line.split())
        for line in value.splitlines()
        if line.strip()
    )


def _mapping(value: Any, path: str) -> dict:
    if not isinstance(value, dict):
        raise FormatError(f"{path}: expected a mapping", "position")
    return value


def _from_dataclass(value: Any, hint: Any, path: str) -> Any:
    hints = get_type_hints(hint)
    names = {f.name for f in dataclasses.fields(hint)}
    unknown = set(_mapping(value, path)) - names
    if unknown:
        raise FormatError(f"{path}: unknown keys {sorted(unknown)}; known: {sorted(names)}", "position")
    return hint(**{k: _from_plain(v, hints[k], f"{path}.{k}" if path else k) for k, v in value.items()})


def _from_named_tuple(value: Any, hint: Any, path: str) -> Any:
    hints = get_type_hints(hint)
    return hint(**{k: _from_plain(v, hints.get(k, Any), f"{path}.{k}") for k, v in _mapping(value, path).items()})


def _list(value: Any, path: str) -> list:
    if not isinstance(value, list):
        raise FormatError(f"{path}: expected a list", "position")
    return value


def _from_set(value: Any, hint: Any, path: str) -> frozenset:
    (item,) = get_args(hint) or (Any,)
    return frozenset(_from_plain(v, item, f"{path}[]") for v in _list(value, path))


def _from_tuple(value: Any, hint: Any, path: str) -> tuple:
    args = get_args(hint)
    items = _list(value, path)
    if len(args) == 2 and args[1] is Ellipsis:
        return tuple(_from_plain(v, args[0], f"{path}[{i}]") for i, v in enumerate(items))
    if len(args) != len(items):
        raise FormatError(f"{path}: expected {len(args)} items, got {len(items)}", "position")
    return tuple(_from_plain(v, a, f"{path}[{i}]") for i, (v, a) in enumerate(zip(items, args)))


def _from_scalar(value: Any, hint: Any, path: str) -> Any:
    if hint is float and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if not isinstance(value, hint) or (hint is int and isinstance(value, bool)):
        raise FormatError(f"{path}: expected {hint.__name__}, got {value!r}", "position")
    return value


def _from_none(value: Any, hint: Any, path: str) -> None:
    if value is not None:
        raise FormatError(f"{path}: cannot read a value of type {hint}", "position")
    return None


#: (does this reader take the hint, the reader), tried in order.
_READERS: tuple[tuple[Callable[[Any], bool], Callable[[Any, Any, str], Any]], ...] = (
    (lambda hint: get_origin(hint) in (Union, types.UnionType), _from_union),
    (_is_board, _from_board),
    (lambda hint: isinstance(hint, type) and dataclasses.is_dataclass(hint), _from_dataclass),
    (lambda hint: isinstance(hint, type) and issubclass(hint, tuple) and hasattr(hint, "_fields"), _from_named_tuple),
    (lambda hint: get_origin(hint) in (frozenset, set), _from_set),
    (lambda hint: get_origin(hint) is tuple, _from_tuple),
    (lambda hint: hint in (int, str, bool, float), _from_scalar),
    (lambda hint: hint is type(None), _from_none),
)


def position_text(game: str, state: Any) -> str:
    """The text of a state (any engine's immutable dataclass)."""
    plain = {"game": game, **_to_plain(state, type(state))}

    class _Dumper(yaml.SafeDumper):
        """Boards as `|` blocks, lists of scalars on one line."""

    def _str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
        style = "|" if "\n" in value else None
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)

    def _list(dumper: yaml.SafeDumper, value: list) -> yaml.SequenceNode:
        flat = all(
            not isinstance(v, dict) and (not isinstance(v, list) or all(not isinstance(w, dict | list) for w in v))
            for v in value
        )
        return dumper.represent_sequence("tag:yaml.org,2002:seq", value, flow_style=flat)

    _Dumper.add_representer(str, _str)
    _Dumper.add_multi_representer(str, _str)  # a sentence for people (`Text`) too, as its English
    _Dumper.add_representer(list, _list)
    return yaml.dump(plain, Dumper=_Dumper, sort_keys=False, allow_unicode=True)


def parse_position(game: str, state_type: type, text: str) -> Any:
    """The state a position text describes; FormatError naming the field for anything wrong."""
    data = parse_yaml(text, "position")
    if not isinstance(data, dict) or data.get("game") != game:
        raise FormatError(f"a {game} position is a mapping that starts with 'game: {game}'", "position")
    data = {k: v for k, v in data.items() if k != "game"}
    return _from_plain(data, state_type, "")


__all__ = ["parse_position", "position_text"]
