"""The games the referee knows, each described once by the game's own module.

Why: everything outside a game's module (snapshots, records, profiles, the service, the demo)
asks the registry for a game's facts instead of comparing its name, so a fifth game is one new
module that declares a `GameSpec` and calls nothing else (the test suite defines one).

A game module declares `SPEC = GameSpec(...)`; the built-in games' modules are listed in
`BUILT_IN` and imported the first time any game is looked up (not at import time: the game
modules themselves import the snapshot and profile modules, which look games up at run time).
`register()` adds a game defined elsewhere.
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from controller.errors import FormatError, RefereeError

#: Modules of the built-in games, in the order the referee lists them.
BUILT_IN = (
    "controller.games.colorpop",
    "controller.games.blockers",
    "controller.games.flipop",
    "controller.games.stay_alive",
)

EMPTY = "."


def split_cells(line: str) -> list[str]:
    """Cells of a one-character-per-place line; spaces between cells are optional."""
    return [ch for ch in line if not ch.isspace()]


@dataclass(frozen=True)
class CellFormat:
    """How one grid row of a snapshot is written (`notation.md` §1).

    The default: one character per place, spaces optional, `.` empty. A game whose cells are
    longer (Blockers!: colour then glyph) gives its own `parse_row` and `empty_text`.
    """

    #: (line, cols, letters, where) -> the row's cells, in memory (an empty place is ".").
    parse_row: Callable[[str, int, str, str], list[str]] | None = None
    #: How an empty place is printed.
    empty_text: str = EMPTY
    #: A new reading of a cell that only knows less than the old one (a glyph unread this
    #: time): not a change on the board.
    knows_less: Callable[[str, str], bool] | None = None

    def parse(self, line: str, cols: int, letters: str, where: str) -> list[str]:
        if self.parse_row is not None:
            return self.parse_row(line, cols, letters, where)
        cells = split_cells(line)
        if len(cells) != cols:
            raise FormatError(f"expected {cols} cells, found {len(cells)} in {line!r}", where)
        for ch in cells:
            if ch != EMPTY and ch not in letters:
                raise FormatError(f"unknown cell {ch!r}; expected one of {' '.join(letters)} or '.'", where)
        return cells

    def format(self, row: tuple[str, ...]) -> str:
        return " ".join(self.empty_text if c == EMPTY else c for c in row)


@dataclass(frozen=True)
class ExtraLine:
    """A snapshot line besides the grid, `key: tokens` (Flipop's `doors:`, Stay Alive's `orange:`).

    `field` names the `Snapshot` attribute that holds its tokens. `parse(rest, rows, cols,
    where)` reads the tokens after the colon; `unknown` is the token a sensor writes where it
    could not tell (a reading that has it where an earlier one had a value only knows less).
    """

    key: str
    field: str
    parse: Callable[[str, int, int, str], tuple[str, ...]]
    before_grid: bool = False
    required: bool = False
    unknown: str | None = None
    #: Printed after "key:" so that lines line up ("white:  C C B ...").
    pad: str = " "
    #: The tokens of a fresh board (an empty snapshot), or None.
    default: Callable[[int, int], tuple[str, ...]] | None = None


@dataclass(frozen=True)
class GameSpec:
    """Everything the referee needs to know about a game, besides its rules."""

    name: str
    #: The game's name as players write it ("Stay Alive").
    title: str
    shape: tuple[int, int]
    #: Piece letters when the profile does not say otherwise.
    letters: str
    #: "module:Class" of the rules engine (imported when first needed).
    engine: str
    variants: tuple[str, ...] = ("standard",)
    #: Players when a record does not say, per variant (default 2).
    players: Mapping[str, int] = field(default_factory=dict)
    cells: CellFormat = CellFormat()
    extra_lines: tuple[ExtraLine, ...] = ()
    #: Checkers of the profile's `settings:` (the rule book's settings) and of its other keys.
    settings: Mapping[str, Callable[[Any, str], None]] = field(default_factory=dict)
    profile_keys: Mapping[str, Callable[[Any, str], None]] = field(default_factory=dict)
    #: (profile data, source) -> None; raises ConfigError for what spans several keys.
    check_profile: Callable[[dict, str], None] | None = None
    #: The default profile: (package, file name) of a YAML resource, or a mapping.
    default_profile: tuple[str, str] | Mapping[str, Any] | None = None
    #: Slide switches report part of the board (Stay Alive): (camera's snapshot, the switch board's
    #: positions in its order) -> the whole snapshot. None: the game has no switches.
    with_switches: Callable[[Any, tuple[str, ...]], Any] | None = None
    #: The colours a seat's secret may be (Colorpop: learned at the end, `referee reveal`); "" for none.
    secret_colours: str = ""
    #: Players may end the game by agreement (Flipop), which the button's hold does.
    ends_by_agreement: bool = False
    #: The game keys the demo plays with (`referee demo`).
    demo: Mapping[str, Any] = field(default_factory=dict)

    @property
    def uses_switches(self) -> bool:
        """The service needs the switch board for this game."""
        return self.with_switches is not None

    def default_players(self, variant: str) -> int:
        return int(self.players.get(variant, 2))

    def engine_class(self) -> type:
        module_name, _, class_name = self.engine.partition(":")
        return getattr(importlib.import_module(module_name), class_name)


_games: dict[str, GameSpec] = {}
_lock = threading.RLock()
_loaded = False


def _load_built_in() -> None:
    global _loaded
    with _lock:
        if _loaded:
            return
        _loaded = True
        for module_name in BUILT_IN:
            module = importlib.import_module(module_name)
            spec = module.SPEC
            _games.setdefault(spec.name, spec)


def register(spec: GameSpec) -> GameSpec:
    """Add a game (one defined outside the built-in modules, e.g. in a test suite)."""
    _load_built_in()
    with _lock:
        _games[spec.name] = spec
    return spec


def unregister(name: str) -> None:
    with _lock:
        _games.pop(name, None)


def names() -> tuple[str, ...]:
    """Every known game's name, built-in games first."""
    _load_built_in()
    return tuple(_games)


def get(name: str) -> GameSpec:
    """The description of game `name`; a RefereeError naming the known games if there is none."""
    _load_built_in()
    spec = _games.get(name)
    if spec is None:
        raise RefereeError(f"unknown game {name!r}; expected one of {', '.join(_games)}")
    return spec


def known(name: Any) -> bool:
    _load_built_in()
    return isinstance(name, str) and name in _games
