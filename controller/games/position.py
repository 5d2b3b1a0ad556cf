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
    origin = get_origin(hint)
    if hint is Any:
        return value
    if origin in (Union, types.UnionType):
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
    if _is_board(hint):
        if not isinstance(value, str):
            raise FormatError(f"{path}: expected the board as rows of cells", "position")
        rows = []
        for line in value.splitlines():
            if line.strip():
                rows.append(tuple(_EMPTY_CELL if set(c) == {"."} else c for c in line.split()))
        return tuple(rows)
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        if not isinstance(value, dict):
            raise FormatError(f"{path}: expected a mapping", "position")
        hints = get_type_hints(hint)
        names = {f.name for f in dataclasses.fields(hint)}
        unknown = set(value) - names
        if unknown:
            raise FormatError(f"{path}: unknown keys {sorted(unknown)}; known: {sorted(names)}", "position")
        return hint(**{k: _from_plain(v, hints[k], f"{path}.{k}" if path else k) for k, v in value.items()})
    if isinstance(hint, type) and issubclass(hint, tuple) and hasattr(hint, "_fields"):
        if not isinstance(value, dict):
            raise FormatError(f"{path}: expected a mapping", "position")
        hints = get_type_hints(hint)
        return hint(**{k: _from_plain(v, hints.get(k, Any), f"{path}.{k}") for k, v in value.items()})
    if origin in (frozenset, set):
        (item,) = get_args(hint) or (Any,)
        if not isinstance(value, list):
            raise FormatError(f"{path}: expected a list", "position")
        return frozenset(_from_plain(v, item, f"{path}[]") for v in value)
    if origin is tuple:
        args = get_args(hint)
        if not isinstance(value, list):
            raise FormatError(f"{path}: expected a list", "position")
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_from_plain(v, args[0], f"{path}[{i}]") for i, v in enumerate(value))
        if len(args) != len(value):
            raise FormatError(f"{path}: expected {len(args)} items, got {len(value)}", "position")
        return tuple(_from_plain(v, a, f"{path}[{i}]") for i, (v, a) in enumerate(zip(value, args)))
    if hint in (int, str, bool, float):
        if hint is float and isinstance(value, int) and not isinstance(value, bool):
            return float(value)
        if not isinstance(value, hint) or (hint is int and isinstance(value, bool)):
            raise FormatError(f"{path}: expected {hint.__name__}, got {value!r}", "position")
        return value
    if value is None and hint is type(None):
        return None
    raise FormatError(f"{path}: cannot read a value of type {hint}", "position")


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
