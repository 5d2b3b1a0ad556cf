"""The games the referee knows, each described once by the game's own module.

Why: everything outside a game's module (snapshots, records, profiles, the service, the demo)
asks the registry for a game's facts instead of comparing its name, so a fifth game is one new
module that declares a `GameSpec` and calls nothing else (the test suite defines one).

Besides the rules, a game declares how its standard edition looks to the camera and what the
reader must read besides colours (`VisionSpec`), and how players handle its pieces at a table
(`PlaySpec`: setups, half-made moves, random positions, for the simulated rig). The reader, the
calibration, the commands and the simulation dispatch on these facts, never on the game's name.

A game module declares `SPEC = GameSpec(...)`; the built-in games' modules are listed in
`BUILT_IN` and imported the first time any game is looked up (not at import time: the game
modules themselves import the snapshot and profile modules, which look games up at run time).
`register()` adds a game defined elsewhere.
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Callable, Iterator, Mapping
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


Rgb = tuple[int, int, int]
Cell = tuple[int, int]

#: Reader add-ons (`VisionSpec.addons`): each piece carries a printed glyph read after its colour
#: (Blockers!); door wings on posts between the cells, read as the snapshot's door line (Flipop).
GLYPHS, DOORS = "glyphs", "doors"
#: Calibration pictures (`VisionSpec.calibration`, `referee calibrate`): the empty board
#: (`--empty`); one piece of each colour on the top row (`--pieces`, with --empty); the full
#: setup of known counts per colour, the profile's `tokens` (`--setup`, with --empty); the
#: profile's start position (`--setup`).
EMPTY_BOARD, ONE_OF_EACH, FULL_SETUP, START_POSITION = "empty", "pieces", "setup-counts", "start"


#: Shapes of a piece's body (`Solid.shape`).
SPHERE, DISC, TILE = "sphere", "disc", "tile"


@dataclass(frozen=True)
class Solid:
    """A piece's body in three dimensions, in pitches: why the reader cares is that a camera off the
    vertical sees a piece's top away from the place it stands on (as far as its height times the
    slope of the ray), and the 3D renderer builds the piece from it.

    `shape` is `SPHERE` (a ball or marble; `size` its diameter), `DISC` (a round token lying flat;
    `size` its diameter) or `TILE` (a square tile lying flat; `size` its side); `height` its
    thickness (a sphere's is its diameter); `base` the height above the markers' plane of its lowest
    point (a token in a slot rests below the frame, a marble sits in a hole, partly sunk)."""

    shape: str
    size: float
    height: float
    base: float = 0.0

    @property
    def seen_at(self) -> float:
        """The height of the middle of what a camera sees of the piece: a flat piece's top, a
        sphere's centre (its outline is centred on its centre's image, seen from anywhere)."""
        return self.base + (self.height / 2 if self.shape == SPHERE else self.height)


@dataclass(frozen=True)
class VisionSpec:
    """How the game's standard edition looks to the camera, and what the reader reads besides colours.

    Only looks and named reader add-ons: vision stays free of rules. The renderer draws these
    colours and the reader's out-of-the-box class references are derived from the same numbers;
    a real copy that looks different is calibrated (`referee calibrate`).
    """

    #: RGB per reader class key, on the scale where the markers' white paper is `looks.PAPER`: a
    #: piece letter; "." an empty place (".o", ".w": more looks of empty); "open" an open point.
    #: Empty: a default palette for the game's letters (`controller.vision.looks.pieces`).
    pieces: dict[str, Rgb] = field(default_factory=dict)
    #: Colour of the board's frame (the band between the lattice and the markers).
    frame: Rgb = (40, 52, 96)
    #: Patch around each place, (inner, outer) radius in pitches (a ring skips a printed glyph).
    sample: tuple[float, float] = (0.0, 0.28)
    #: Reader add-ons: `GLYPHS`, `DOORS`.
    addons: frozenset[str] = frozenset()
    #: The calibration pictures `referee calibrate` takes for this game (see `EMPTY_BOARD` ...).
    calibration: tuple[str, ...] = (EMPTY_BOARD, ONE_OF_EACH)
    #: Which drawing of the board the simulated camera uses (`simulation/artwork.py`); "" the plain one.
    artwork: str = ""
    #: The pieces' bodies, per piece letter (`Solid`); a letter not listed is flat, on the markers' plane.
    solids: Mapping[str, Solid] = field(default_factory=dict)
    #: Per reader class key of an empty look, the height (pitches) of the surface it shows relative to
    #: the markers' plane: below it for a slot's floor or a slide seen through a hole (default 0).
    floors: Mapping[str, float] = field(default_factory=dict)


@dataclass(frozen=True)
class PlaySpec:
    """How players handle the pieces at a table: what the simulated players do besides legal moves.

    Every hook is optional; without it the simulated rig sets up the empty board, shows a move
    half made by lifting changed pieces one at a time and scatters pieces for random positions.
    Pure functions of their arguments (the random generators are handed in): no I/O.
    """

    #: (engine, random.Random) -> a starting board as players set it up.
    setup_board: Callable[[Any, Any], Any] | None = None
    #: (engine, state, board before, board after, move) -> boards seen while the move is half made.
    partial_boards: Callable[[Any, Any, Any, Any, Any], Iterator[Any]] | None = None
    #: Pieces rest at the bottom of their column (Colorpop's slides): random positions fill columns from the bottom.
    falls_to_bottom: bool = False
    #: (profile, numpy Generator) -> random extra lines ({Snapshot field: tokens}) and the places no
    #: piece can rest on with them (Stay Alive: slide positions and the open points).
    random_lines: Callable[[Any, Any], tuple[dict[str, tuple[str, ...]], frozenset[Cell]]] | None = None


def default_place_name(cell: Cell) -> str:
    """Column letter, row from the top (`F3`), as `Engine.place_name` names places by default."""
    row, col = cell
    return f"{chr(ord('A') + col)}{row + 1}"


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
    #: What players call one piece ("token", "marble"), in sentences such as corrections.
    piece_noun: str = "piece"
    #: The game keys the demo plays with (`referee demo`).
    demo: Mapping[str, Any] = field(default_factory=dict)
    #: A place as the game's notation writes it, without an engine (calibration's sentences).
    place_name: Callable[[Cell], str] = default_place_name
    vision: VisionSpec = field(default_factory=VisionSpec)
    play: PlaySpec = field(default_factory=PlaySpec)
    #: "module:name" of what a computer player knows of the game besides its rules (a
    #: `controller.ai.knowledge.GameKnowledge`: evaluation, hidden information); "": nothing more.
    ai: str = ""

    @property
    def uses_switches(self) -> bool:
        """The service needs the switch board for this game."""
        return self.with_switches is not None

    def reads(self, addon: str) -> bool:
        """The reader reads this add-on (`GLYPHS`, `DOORS`) for the game."""
        return addon in self.vision.addons

    def calibrates(self, picture: str) -> bool:
        """`referee calibrate` takes this kind of picture (`EMPTY_BOARD` ...) for the game."""
        return picture in self.vision.calibration

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


def with_capability(test: Callable[[GameSpec], bool]) -> tuple[GameSpec, ...]:
    """Every known game for which `test` holds, built-in games first (e.g. those taking a picture)."""
    return tuple(spec for spec in map(get, names()) if test(spec))


def known(name: Any) -> bool:
    _load_built_in()
    return isinstance(name, str) and name in _games
