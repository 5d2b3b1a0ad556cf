"""The vocabulary every game is declared in, and the board snapshot the formats carry.

Why a module of its own: the formats (snapshots, records, profiles), the service, vision and the
simulation read a game's facts through these types and never through the game's name, and the
games are written in them. Which games exist is another question, answered by the catalogue
(`controller.games.registry`), which lists the game packages; nothing here imports a game.

A game package (`controller/games/<game>/`) declares `SPEC = GameSpec(...)`: its shape and piece
letters, its rules engine class, its snapshot lines besides the grid (`ExtraLine`), its events and
their words (`EventType`), its profile keys and default profile, how its standard edition looks
to the camera and which reader add-ons read it (`VisionSpec`), and how players handle its pieces
at a table (`PlaySpec`, for the simulated rig).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from controller.errors import FormatError
from controller.games.events import COMMON_EVENTS, EventType
from controller.language import Text, _

if TYPE_CHECKING:
    from controller.games.base import Engine
    from controller.games.rulebook import Rule

EMPTY = "."

Rgb = tuple[int, int, int]
Cell = tuple[int, int]
Cells = tuple[tuple[str, ...], ...]
#: A snapshot's lines besides the grid: (key, tokens) pairs, in key order.
Lines = tuple[tuple[str, tuple[str, ...]], ...]


def split_cells(line: str) -> list[str]:
    """Cells of a one-character-per-place line; spaces between cells are optional."""
    return [ch for ch in line if not ch.isspace()]


def default_place_name(cell: Cell) -> str:
    """Column letter, row from the top (`F3`), as `Engine.place_name` names places by default."""
    row, col = cell
    return f"{chr(ord('A') + col)}{row + 1}"


def post_words(post: Cell, place_name: Callable[[Cell], str]) -> Text:
    """Post (i, j), the corner shared by places (i, j) to (i + 1, j + 1), as players name it: by those
    places in the game's own notation. Why one function: the rules' reasons, the corrections, the page
    and calibration's sentences all name a post the same way, never by the door line's index (which
    `notation.md` counts from 0)."""
    i, j = post
    return _(
        "post {post} (the corner of cells {first} to {last})",
        post=place_name((i, j)),
        first=place_name((i, j)),
        last=place_name((i + 1, j + 1)),
    )


@dataclass(frozen=True, init=False)
class Snapshot:
    """One settled observation of a board (`notation.md` §1), for every game.

    `cells` holds one text per place (``"."`` empty). `lines` holds the game's lines besides the
    grid by their key (Flipop's ``doors``, Stay Alive's ``orange`` and ``white``): the formats
    carry them as the game declares them (`ExtraLine`), without knowing what they mean. A line
    that was not read is absent.
    """

    game: str
    cells: Cells
    lines: Lines

    def __init__(
        self, game: str, cells: Cells, lines: Mapping[str, Sequence[str] | None] | Iterable[tuple[str, Any]] = ()
    ) -> None:
        items = lines.items() if isinstance(lines, Mapping) else lines
        kept = tuple(sorted((str(key), tuple(tokens)) for key, tokens in items if tokens is not None))
        object.__setattr__(self, "game", game)
        object.__setattr__(self, "cells", cells)
        object.__setattr__(self, "lines", kept)

    @property
    def rows(self) -> int:
        return len(self.cells)

    @property
    def cols(self) -> int:
        return len(self.cells[0]) if self.cells else 0

    def at(self, row: int, col: int) -> str:
        return self.cells[row][col]

    def line(self, key: str) -> tuple[str, ...] | None:
        """The tokens of the line `key` (``doors``), or None when it was not read."""
        for name, tokens in self.lines:
            if name == key:
                return tokens
        return None

    def with_line(self, key: str, tokens: Sequence[str] | None) -> Snapshot:
        """This snapshot with the line `key` set to `tokens` (None: not read)."""
        others = {name: value for name, value in self.lines if name != key}
        return Snapshot(self.game, self.cells, {**others, key: tokens})

    def with_cells(self, cells: Iterable[Iterable[str]]) -> Snapshot:
        return replace(self, cells=tuple(tuple(r) for r in cells))

    def changed_cells(self, other: Snapshot) -> list[Cell]:
        """Places whose content differs between two snapshots of the same board."""
        return [(r, c) for r in range(self.rows) for c in range(self.cols) if self.cells[r][c] != other.cells[r][c]]


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
    #: time): not a change on the board, and not something to correct.
    knows_less: Callable[[str, str], bool] | None = None

    def parse(self, line: str, cols: int, letters: str, where: str) -> list[str]:
        if self.parse_row is not None:
            return self.parse_row(line, cols, letters, where)
        cells = split_cells(line)
        if len(cells) != cols:
            raise FormatError(
                _("expected {cols} cells, found {n} in {line}", cols=cols, n=len(cells), line=repr(line)), where
            )
        for ch in cells:
            if ch != EMPTY and ch not in letters:
                raise FormatError(
                    _("unknown cell {ch}; expected one of {value} or '.'", ch=repr(ch), value=" ".join(letters)), where
                )
        return cells

    def format(self, row: tuple[str, ...]) -> str:
        return " ".join(self.empty_text if c == EMPTY else c for c in row)

    def same_piece(self, legal: str, seen: str) -> bool:
        """`seen` shows the piece of `legal`, or only knows less of it."""
        return legal == seen or (self.knows_less is not None and self.knows_less(seen, legal))


#: How the live page draws a snapshot line (`LineShown.kind`): its tokens as a labelled value under
#: the board ("Light: bright"); one token per post between four places (row-major), each drawn as a
#: post with an arm towards every compass letter N E S W the token holds (Flipop's doors); one token
#: per row, drawn as a slider in the margin left of it, or per column, above it, showing its
#: `notches` with the one it is at filled (Stay Alive's slides; the row and column labels then go to
#: the far sides).
AS_VALUE, ON_POSTS, BESIDE_ROWS, ABOVE_COLUMNS = "value", "posts", "rows", "columns"


@dataclass(frozen=True)
class LineShown:
    """How the live page draws one of the game's snapshot lines (`ExtraLine.shown`).

    Why a declaration: the page knows how to draw a few kinds of line (`AS_VALUE`, `ON_POSTS`,
    `BESIDE_ROWS`, `ABOVE_COLUMNS`), not which game has which line; a game picks a kind for its line
    and gives its words, so a new game's line is drawn with no edit to the page.
    """

    kind: str
    #: What the line is called (a catalogue message, marked `N_`): for `AS_VALUE` the line ("light");
    #: for a slider one of them, `{number}` counted from 1 ("orange slide {number}").
    label: str = ""
    #: Per token, its words (catalogue messages, marked `N_`); a token not listed is shown as
    #: written, and the line's `unknown` token, unless listed, as "not read".
    words: Mapping[str, str] = field(default_factory=dict)
    #: A slider's colour on the page (CSS) and its notches, the one nearest the grid first.
    colour: str = ""
    notches: str = ""


@dataclass(frozen=True)
class ExtraLine:
    """A snapshot line besides the grid, `key: tokens` (Flipop's `doors:`, Stay Alive's `orange:`).

    `parse(rest, rows, cols, where)` reads the tokens after the colon; `unknown` is the token a
    sensor writes where it could not tell (a reading that has it where an earlier one had a value
    only knows less).
    """

    key: str
    parse: Callable[[str, int, int, str], tuple[str, ...]]
    before_grid: bool = False
    required: bool = False
    unknown: str | None = None
    #: Printed after "key:" so that lines line up ("white:  C C B ...").
    pad: str = " "
    #: The tokens of a fresh board (an empty snapshot), or None.
    default: Callable[[int, int], tuple[str, ...]] | None = None
    #: How players set one token back after an illegal move: (index, the legal token) -> the
    #: sentence ("slide orange 3 back to B"); None: the line is not corrected by hand.
    set_back: Callable[[int, str], str] | None = None
    #: The kind of such a correction ("slide", "door"), as the page and the journal name it.
    correction: str = "line"
    #: The slide switches report this line, not the camera (Stay Alive's slide positions).
    from_switches: bool = False
    #: How the live page draws it (`LineShown`); None: the page does not draw it.
    shown: LineShown | None = None

    def text(self, tokens: Sequence[str]) -> str:
        return f"{self.key}:{self.pad}" + " ".join(tokens)


def _meaningful_lines(text: str) -> list[tuple[int, str]]:
    out = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        out.append((number, line))
    return out


def read_snapshot(
    text: str,
    *,
    game: str,
    shape: tuple[int, int],
    letters: str,
    cells: CellFormat,
    extra_lines: Sequence[ExtraLine],
    where: str = "snapshot",
) -> Snapshot:
    """A snapshot from its text form (`notation.md` §1), as a game writes its cells and lines.

    `where` prefixes error messages so a person knows which snapshot of a record is wrong.
    """
    rows, cols = shape
    lines: dict[str, tuple[str, ...]] = {}
    grid: list[tuple[str, ...]] = []
    for number, line in _meaningful_lines(text):
        at = f"{where}, line {number}"
        key = line.partition(":")[0].strip().lower() if ":" in line else None
        extra = next((x for x in extra_lines if x.key == key), None)
        if extra is not None:
            if extra.key in lines:
                raise FormatError(_("a second '{key}:' line", key=extra.key), at)
            lines[extra.key] = extra.parse(line.partition(":")[2], rows, cols, at)
            continue
        after = next((x for x in extra_lines if not x.before_grid and x.key in lines), None)
        if after is not None:
            raise FormatError(_("board rows must come before the '{key}:' line", key=after.key), at)
        grid.append(tuple(cells.parse(line, cols, letters, at)))
    if len(grid) != rows:
        raise FormatError(
            _("a {game} snapshot has {rows} board rows, found {n}", game=game, rows=rows, n=len(grid)), where
        )
    for extra in extra_lines:
        if extra.required and extra.key not in lines:
            raise FormatError(_("a {game} snapshot needs its '{key}:' line", game=game, key=extra.key), where)
    return Snapshot(game, tuple(grid), lines)


def write_snapshot(snap: Snapshot, cells: CellFormat, extra_lines: Sequence[ExtraLine]) -> str:
    """The text form of a snapshot, as `notation.md` writes it (ends with a newline)."""
    before: list[str] = []
    after: list[str] = []
    for extra in extra_lines:
        value = snap.line(extra.key)
        if value is not None:
            (before if extra.before_grid else after).append(extra.text(value))
    return "\n".join(before + [cells.format(row) for row in snap.cells] + after) + "\n"


#: Reader add-ons (`VisionSpec.addons`): each piece carries a printed glyph read after its colour
#: (Blockers!); door wings on posts between the cells, read as the snapshot's door line (Flipop).
GLYPHS_ADDON, DOORS_ADDON = "glyphs", "doors"
#: Calibration pictures (`VisionSpec.calibration`, `referee calibrate`): the empty board
#: (`--empty`); one piece of each colour on the top row (`--pieces`, with --empty); the full
#: setup of known counts per colour, the profile's `tokens` (`--setup`, with --empty); the
#: profile's start position (`--setup`).
EMPTY_BOARD, ONE_OF_EACH, FULL_SETUP, START_POSITION = "empty", "pieces", "setup-counts", "start"


@dataclass(frozen=True)
class LineReader:
    """A reader add-on that reads one of the game's snapshot lines (`ExtraLine`) from the picture.

    Why a hook: the board reader knows colours and places, not what a game adds to its board (door
    wings on posts, a lamp's light); the game declares it here and the reader calls it, so a new
    game's line needs no edit in vision. `make(reader)` is called once per board reader with the
    `controller.vision.reader.BoardReader` (its profile, geometry and light) and returns
    `read(frame, white)`: the line's tokens from a BGR frame whose board was found (`white`: the
    paper's white, `light.PaperLight.white`), the line's `unknown` token where unsure, or None when
    it could not be read at all.
    """

    line: str
    make: Callable[[Any], Callable[[Any, Any], tuple[str, ...] | None]]


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
    #: Reader add-ons of the vision package: `GLYPHS_ADDON`, `DOORS_ADDON`.
    addons: frozenset[str] = frozenset()
    #: Reader add-ons the game brings itself, each reading one of its snapshot lines (`LineReader`).
    line_readers: tuple[LineReader, ...] = ()
    #: The calibration pictures `referee calibrate` takes for this game (see `EMPTY_BOARD` ...).
    calibration: tuple[str, ...] = (EMPTY_BOARD, ONE_OF_EACH)
    #: Which drawing of the board the simulated camera uses (`simulation/artwork.py`); "" the plain one.
    artwork: str = ""
    #: The pieces' bodies, per piece letter (`Solid`); a letter not listed is flat, on the markers' plane.
    solids: Mapping[str, Solid] = field(default_factory=dict)
    #: Per reader class key of an empty look, the height (pitches) of the surface it shows relative to
    #: the markers' plane: below it for a slot's floor or a slide seen through a hole (default 0).
    floors: Mapping[str, float] = field(default_factory=dict)
    #: Per reader class key of an empty look seen through a hole, the height (pitches) of the hole's
    #: middle: what shows through it is centred on the ray through that middle, whatever depth it lies
    #: at, so the reader samples there (`controller/vision/tops.py`); default: the look's floor.
    openings: Mapping[str, float] = field(default_factory=dict)
    #: Height (pitches) of the door wings standing on the posts (`DOORS_ADDON`): a wing seen from a
    #: slant spans from its foot to its top, and the reader looks for it halfway up.
    door_height: float = 0.0
    #: Which look (a class key of `pieces`) each place of a labelled picture shows when empty, from
    #: the snapshot's own lines (profile, snapshot) -> row-major keys, or None where they do not say
    #: (Stay Alive: the slides' positions and the copy's holes). Without it, or where it says None,
    #: calibration finds each empty place's look in the picture's own groups.
    empty_looks: Callable[[Any, Any], list[str] | None] | None = None


@dataclass(frozen=True)
class PlaySpec:
    """How players handle the pieces at a table: what the simulated players do besides legal moves.

    Every hook is optional; without it the simulated rig sets up the empty board, shows a move
    half made by lifting changed pieces one at a time and scatters pieces for random positions.
    Pure functions of their arguments (the random generators are handed in): no I/O.
    """

    #: (engine, random.Random) -> a starting board as players set it up.
    setup_board: Callable[[Any, Any], Snapshot] | None = None
    #: (engine, state, board before, board after, move) -> boards seen while the move is half made.
    partial_boards: Callable[[Any, Any, Snapshot, Snapshot, Any], Iterator[Snapshot]] | None = None
    #: Pieces rest at the bottom of their column (Colorpop's slides): random positions fill columns from the bottom.
    falls_to_bottom: bool = False
    #: (profile, numpy Generator) -> random extra lines ({line key: tokens}) and the places no
    #: piece can rest on with them (Stay Alive: slide positions and the open points).
    random_lines: Callable[[Any, Any], tuple[dict[str, tuple[str, ...]], frozenset[Cell]]] | None = None
    #: (profile, seed) -> lines ({line key: tokens}) as play could leave them, for a position made up
    #: without them (Flipop: the start's doors turned at random); None: the lines stay as they are.
    played_lines: Callable[[Any, int], dict[str, tuple[str, ...]]] | None = None


@dataclass(frozen=True)
class GameSpec:
    """Everything the referee needs to know about a game, besides its rules (which `engine` holds)."""

    name: str
    #: The game's name as players write it ("Stay Alive").
    title: str
    shape: tuple[int, int]
    #: Piece letters when the profile does not say otherwise.
    letters: str
    #: The rules engine (a subclass of `controller.games.base.Engine`).
    engine: type[Engine]
    variants: tuple[str, ...] = ("standard",)
    #: Players when a record does not say, per variant (default 2).
    players: Mapping[str, int] = field(default_factory=dict)
    cells: CellFormat = CellFormat()
    extra_lines: tuple[ExtraLine, ...] = ()
    #: What may happen in a move besides the move itself, with its words (besides `COMMON_EVENTS`).
    events: tuple[EventType, ...] = ()
    #: The profile's `settings:` (the rule book's settings) and the game's other profile keys, each
    #: with its type and check as pydantic takes them (`Annotated[str, one_of("own_twice", "lift_ban")]`,
    #: the checks in `controller.schema`); none is required.
    settings: Mapping[str, Any] = field(default_factory=dict)
    profile_keys: Mapping[str, Any] = field(default_factory=dict)
    #: (the checked profile: its keys as attributes) -> None; raises `controller.schema.sentence(...,
    #: key=...)` for what spans several keys (a token count for a letter that is not a class).
    check_profile: Callable[[Any], None] | None = None
    #: The default profile: a YAML file (beside the game's package), or a mapping.
    default_profile: Path | Mapping[str, Any] | None = None
    #: Slide switches report part of the board (Stay Alive): (camera's snapshot, the switch board's
    #: positions in its order) -> the whole snapshot. None: the game has no switches.
    with_switches: Callable[[Snapshot, tuple[str, ...]], Snapshot] | None = None
    #: Seconds after the switches report a change during which the board may still change by itself
    #: (Stay Alive: a marble dropping through the hole its slide opened); 0 for none.
    physics_window: float = 0.0
    #: The colours a seat's secret may be (Colorpop: learned at the end, `referee reveal`); "" for none.
    secret_colours: str = ""
    #: Players may end the game by agreement (Flipop), which the button's hold does.
    ends_by_agreement: bool = False
    #: The rules of its rule book a move can break (`controller.games.rulebook`), named on illegal verdicts.
    rules: tuple[Rule, ...] = ()
    #: The game keys the demo plays with (`referee demo`).
    demo: Mapping[str, Any] = field(default_factory=dict)
    vision: VisionSpec = field(default_factory=VisionSpec)
    play: PlaySpec = field(default_factory=PlaySpec)
    #: "module:name" of what a computer player knows of the game besides its rules (a
    #: `controller.ai.knowledge.GameKnowledge`: evaluation, hidden information), imported when the
    #: computer first plays it; "": nothing more than the rules.
    ai: str = ""

    @property
    def place_name(self) -> Callable[[Cell], str]:
        """A place as the game's notation writes it (the engine's, needing no engine: calibration's sentences)."""
        return self.engine.place_name

    @property
    def piece_noun(self) -> str:
        """What players call one piece ("token", "marble"): the engine's."""
        return self.engine.piece_noun

    @property
    def uses_switches(self) -> bool:
        """The service needs the switch board for this game."""
        return self.with_switches is not None

    def reads(self, addon: str) -> bool:
        """The reader reads this add-on (`GLYPHS_ADDON`, `DOORS_ADDON`) for the game."""
        return addon in self.vision.addons

    def calibrates(self, picture: str) -> bool:
        """`referee calibrate` takes this kind of picture (`EMPTY_BOARD` ...) for the game."""
        return picture in self.vision.calibration

    def default_players(self, variant: str) -> int:
        return int(self.players.get(variant, 2))

    def extra_line(self, key: str) -> ExtraLine | None:
        return next((line for line in self.extra_lines if line.key == key), None)

    @property
    def event_types(self) -> tuple[EventType, ...]:
        """Every event a move of this game may cause: the game's own and the common ones."""
        return self.events + COMMON_EVENTS

    # -- the game's snapshots as text (`controller.snapshot` finds the game by its name) ----------
    def parse_snapshot(
        self, text: str, *, letters: str | None = None, shape: tuple[int, int] | None = None, where: str = "snapshot"
    ) -> Snapshot:
        """A snapshot of this game; `letters` are those the board profile allows (default: the game's)."""
        return read_snapshot(
            text,
            game=self.name,
            shape=shape or self.shape,
            letters=letters if letters is not None else self.letters,
            cells=self.cells,
            extra_lines=self.extra_lines,
            where=where,
        )

    def format_snapshot(self, snap: Snapshot) -> str:
        return write_snapshot(snap, self.cells, self.extra_lines)

    def empty_snapshot(self, shape: tuple[int, int] | None = None) -> Snapshot:
        """A board with no piece, its lines at a fresh board's tokens."""
        rows, cols = shape or self.shape
        cells = tuple(tuple(EMPTY for _ in range(cols)) for _ in range(rows))
        return Snapshot(self.name, cells, {x.key: x.default(rows, cols) for x in self.extra_lines if x.default})

    def with_required_lines(self, text: str, shape: tuple[int, int] | None = None) -> str:
        """`text` with the required lines it lacks put in front, at their fresh board's tokens.

        For a snapshot whose required lines no camera sees (Stay Alive's slide positions come from
        the switches): the pictures `referee calibrate` learns from may be labelled by their cells alone.
        """
        rows, cols = shape or self.shape
        keys = {line.partition(":")[0].strip().lower() for _, line in _meaningful_lines(text) if ":" in line}
        missing = [x for x in self.extra_lines if x.required and x.default is not None and x.key not in keys]
        head, tail = (
            "".join(x.text(x.default(rows, cols)) + "\n" for x in missing if x.default and x.before_grid == before)
            for before in (True, False)
        )
        return head + text + ("\n" if tail and not text.endswith("\n") else "") + tail

    def tells_nothing_new(self, new: Snapshot, old: Snapshot) -> bool:
        """True when the reading `new` differs from `old` only where it knows less.

        A cell or a line's token that was read before and shows as unknown now (a glyph unread
        this time, a door under glare), or an optional line not read at all, is not a change on
        the board. What counts as knowing less is the game's to say.
        """
        if new.game != old.game:
            return False
        if new.cells != old.cells:
            for row, old_row in zip(new.cells, old.cells):
                for now, before in zip(row, old_row):
                    if not self.cells.same_piece(before, now):
                        return False
        for line in self.extra_lines:
            now_tokens, before_tokens = new.line(line.key), old.line(line.key)
            if now_tokens == before_tokens or (now_tokens is None and not line.required):
                continue
            if before_tokens is None or now_tokens is None or line.unknown is None:
                return False
            if not all(now in (before, line.unknown) for now, before in zip(now_tokens, before_tokens)):
                return False
        return True
