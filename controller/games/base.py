"""The common shape of a rules engine.

An engine is pure Python with no I/O. It knows one game's rules: whether a setup is valid, the
legal moves from a state, what a move does, and how a settled snapshot compares with the last
legal state. The `Referee` (controller/referee.py) drives any engine the same way, so the
behaviour of `rules.md` §5 (pending, illegal, restored, unchanged) is written once.

States are immutable values: replaying the same snapshots always gives equal states, which is
what lets the service recover after a power cut by replaying its journal.
"""

from __future__ import annotations

import dataclasses
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, Literal, TypeVar

from controller.errors import FormatError, RefereeError
from controller.games.events import GameEvent
from controller.games.position import parse_position, position_text
from controller.games.spec import Snapshot, default_place_name
from controller.language import Colour, Text, _, listed

if TYPE_CHECKING:
    from controller.games.rulebook import Rule

if TYPE_CHECKING:
    from controller.profile import Profile


def join_and(names: Sequence[str]) -> str:
    """`A`, `A and B`, `A, B and C`: how a sentence lists places or players ("" for none)."""
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]


def no_such_seat(seat: int, players: int) -> Text:
    """A seat number out of range, counted from 1 as players count (`seat` counted from 0)."""
    return _("there is no player {number}: the players are numbered 1 to {players}", number=seat + 1, players=players)


S = TypeVar("S")
M = TypeVar("M")
Cell = tuple[int, int]


@dataclass(frozen=True)
class GameSetup:
    """Who plays and how: everything of a game record except the boards themselves."""

    game: str
    profile: Profile
    variant: str = "standard"
    players: int = 2
    first: int = 0
    #: Per seat: blockers a colour letter (two-player: a list of two), stay-alive a marble
    #: colour, flipop a ball colour; None where the game has no seat colours (colorpop).
    seats: tuple[Any, ...] | None = None
    #: Colorpop: each seat's secret colour(s), a tuple of letters per seat, or None if unknown.
    secrets: tuple[tuple[str, ...] | None, ...] | None = None
    #: Colorpop solo: the colours to clear.
    targets: tuple[str, ...] | None = None


@dataclass(frozen=True)
class SetupCheck:
    ok: bool
    reason: str = ""
    cells: tuple[Cell, ...] = ()
    advice: str | None = None
    #: The rule of the rule book the board breaks (`controller.games.rulebook`).
    rule: Rule | None = None


JudgementKind = Literal["legal", "illegal", "pending", "unchanged"]


@dataclass(frozen=True)
class Judgement(Generic[S]):
    """How an observed snapshot relates to the last legal state.

    For ``legal``, `state` is the state after the move (and any automatic passes, whose events
    are in `events`). ``unchanged`` means the snapshot shows the last legal state itself; its
    `state`, when given, is that same position with what the sensors newly told about it.
    `doubtful` marks an illegal snapshot that no physical action could have produced (a token
    that changed colour in place): the referee then blames the reading, not a player.
    """

    kind: JudgementKind
    seat: int | None = None
    state: S | None = None
    move: str = ""
    events: tuple[GameEvent, ...] = ()
    reason: str = ""
    cells: tuple[Cell, ...] = ()
    doubtful: bool = False
    #: For ``illegal``: the rule of the rule book the move breaks (None: the reading is doubted, or no
    #: rule says it).
    rule: Rule | None = None
    #: Places where the rules expect the board to change still by itself (a Stay Alive marble that
    #: should fall through its open point, still seen): the service looks a moment longer.
    settling: tuple[Cell, ...] = ()


@dataclass(frozen=True)
class Result:
    finished: bool
    winners: tuple[int, ...] | None = None
    scores: tuple[Any, ...] = ()
    reason: str = ""

    def to_json(self) -> dict:
        out: dict[str, Any] = {"finished": self.finished}
        if self.finished and self.winners is not None:
            out["winners"] = list(self.winners)
        out["scores"] = list(self.scores)
        if self.reason:
            out["reason"] = self.reason
        return out


class ActionNotAllowed(RefereeError):
    """An action (end by agreement, ...) that this game or this moment does not offer."""


class Engine(ABC, Generic[S, M]):
    """One game's rules. Subclasses implement the abstract methods; the game's `GameSpec` names
    the subclass, and the game's name is the setup's (`self.setup.game`)."""

    #: A place as players of this game name it (default: column letter, row from the top: ``F3``);
    #: a function of the place alone, so calibration's sentences name places without an engine.
    place_name = staticmethod(default_place_name)
    #: What players call one piece of this game ("token", "marble"), in sentences such as corrections.
    piece_noun: str = "piece"
    #: The type of this engine's states (an immutable dataclass): its position notation follows it.
    state_type: type | None = None

    def __init__(self, setup: GameSetup) -> None:
        self.setup = setup
        self.profile = setup.profile

    # -- setup ---------------------------------------------------------------------------
    @abstractmethod
    def check_setup(self, snapshot: Snapshot) -> SetupCheck:
        """Whether `snapshot` is a valid starting board, with advice when it is not."""

    @abstractmethod
    def start(self, snapshot: Snapshot) -> S:
        """The first state of a game whose starting board (already checked) is `snapshot`."""

    # -- play ----------------------------------------------------------------------------
    @abstractmethod
    def to_move(self, state: S) -> int | None:
        """The seat whose move is expected, None when the game is over."""

    @abstractmethod
    def legal_moves(self, state: S) -> Sequence[M]:
        """Every legal move of the seat to move."""

    @abstractmethod
    def apply(self, state: S, move: M) -> tuple[S, tuple[GameEvent, ...]]:
        """The state after `move` (and any automatic passes), with the events it caused."""

    @abstractmethod
    def describe(self, state: S, move: M) -> str:
        """A short text for `move` in the game's own terms (`notation.md` §3)."""

    def parse_move(self, state: S, text: str) -> M:
        """The legal move of the seat to move that `describe` writes as `text` (its move notation).

        As a chess move in SAN is read against its position, a move text is read against the state:
        the legal move whose description it is. FormatError when no legal move is written so.
        """
        wanted = " ".join(text.split())
        for move in self.legal_moves(state):
            if self.describe(state, move) == wanted:
                return move
        raise FormatError(_("{move} is not a legal move here", move=repr(text)), _("move"))

    def position_text(self, state: S) -> str:
        """The state as text (`controller.games.position`), as FEN writes a chess position."""
        return position_text(self.setup.game, state)

    def parse_position(self, text: str) -> S:
        """The state a position text describes (tests build positions this way)."""
        if self.state_type is None:
            raise FormatError(_("{game} has no position notation", game=self.setup.game), _("position"))
        return parse_position(self.setup.game, self.state_type, text)

    @abstractmethod
    def expected(self, state: S) -> Snapshot:
        """What the sensors should see in `state`."""

    @abstractmethod
    def judge(self, state: S, snapshot: Snapshot) -> Judgement[S]:
        """Compare a settled snapshot with the last legal state (`rules.md` §5)."""

    # -- words for players ------------------------------------------------------------------
    def axis_labels(self, rows: int, cols: int) -> tuple[list[str], list[str]]:
        """The labels along the board's edges as players count them (the page draws them): by default
        rows numbered from 1 from the top and columns lettered from A, as `place_name` names places."""
        return [str(r + 1) for r in range(rows)], [chr(ord("A") + c) for c in range(cols)]

    def move_words(self, move: str) -> str:
        """A move's text (`describe`, the notation of `notation.md` §3) as players say it: by default the
        same, the notation being in the game's own terms already (Colorpop's `remove B x4 at F3`)."""
        return move

    def places_text(self, cells: Sequence[Cell]) -> str:
        return listed(self.place_name(c) for c in cells)

    def seat_name(self, seat: int) -> Text:
        """A seat as players count them: ``player 2``, with its colour where seats have one (``player 2 (red)``)."""
        name = _("player {number}", number=seat + 1)
        colours = self.seat_colours_of(seat)
        if colours:
            return _("{player} ({colours})", player=name, colours=listed(self.colour(c) for c in colours))
        return name

    def colour(self, letter: str, count: int | None = None) -> Colour:
        """A piece colour's name (the profile's), said alone (`count` None) or of `count` of the game's pieces
        (`3 green tokens`: French makes it agree, `3 jetons verts`)."""
        name = str(self.profile.classes.get(letter, {}).get("name", letter))
        if count is None:
            return Colour(name)
        return Colour(name, self.piece_noun, count)

    def seat_colours_of(self, seat: int) -> tuple[str, ...]:
        """The colour letters a seat plays (none for games whose seats have no colour)."""
        seats = self.setup.seats
        if seats is None or not 0 <= seat < len(seats):
            return ()
        return seats[seat] if isinstance(seats[seat], tuple) else (seats[seat],)

    # -- end -----------------------------------------------------------------------------
    @abstractmethod
    def is_over(self, state: S) -> bool: ...

    @abstractmethod
    def result(self, state: S) -> Result: ...

    def winners(self, state: S) -> tuple[int, ...] | None:
        """The seats that won a finished game (None while it goes on), without the sentence that
        `result` words: a computer player's search asks it thousands of times a move. A game whose
        sentence is costly to build gives its winners directly."""
        return self.result(state).winners

    def action(self, state: S, name: str) -> tuple[S, tuple[GameEvent, ...]]:
        """Apply a player's action other than a move (e.g. Flipop's end by agreement)."""
        raise ActionNotAllowed(_("{action} is not an action of {game}", action=name, game=self.setup.game))

    def adopt(self, state: S, snapshot: Snapshot) -> S:
        """The game going on from `snapshot`, which a person declared right ("this board is right,
        go on from it"): the same seat to move, and what the board does not show (tallies, phase)
        kept. A game whose state is a dataclass with a `board` of snapshot cells needs nothing more."""
        if dataclasses.is_dataclass(state) and any(f.name == "board" for f in dataclasses.fields(state)):
            return dataclasses.replace(state, board=snapshot.cells)  # type: ignore[type-var]
        raise ActionNotAllowed(_("{game} cannot go on from a board set by hand", game=self.setup.game))

    def check_reveal(self, state: S, seat: int, colours: tuple[str, ...]) -> str | None:
        """Why telling this secret now is refused (a sentence), or None. Checked when a person
        tells it, not when a journal is replayed (what was accepted then stays accepted)."""
        return _("{game} has no secret colours to reveal", game=self.setup.game)

    def reveal(self, state: S, seat: int, colours: tuple[str, ...]) -> S:
        """Tell the engine a seat's secret (Colorpop); other games have none."""
        raise ActionNotAllowed(_("{game} has no secret colours to reveal", game=self.setup.game))

    # -- racks: tiles a person draws for a computer seat and tells the referee (Blockers!) --------
    #: The glyphs of a colour's tiles, in the order a page offers them to tap (none: no racks).
    rack_glyphs: str = ""

    def tile_symbol(self, glyph: str) -> str | None:
        """The name a board profile gives a symbol glyph (Blockers!: `moon`), for its picture; None."""
        return None

    def rack_colours(self, seat: int) -> tuple[str, ...]:
        """The colours whose hidden rack `seat` holds (Blockers!: its colour or two); none elsewhere."""
        return ()

    def check_rack(self, state: S, tiles: str) -> tuple[str, tuple[str, ...]]:
        """A rack told to the referee (`R3 RA Ra`: tiles of one colour, `notation.md` §1's cells),
        checked against the position: (its colour, its glyphs). Raises ActionNotAllowed with the
        sentence why when a tile cannot be on that rack (no such tile, already placed, too many)."""
        raise ActionNotAllowed(_("{game} has no racks", game=self.setup.game))

    def rack_words(self, tiles: str) -> Any:
        """A rack told to the referee (`B3 BA`) as players say it (Blockers!: `blue tile 3, blue tile A`)."""
        return tiles

    def rack_held(self, state: S, colour: str, told: Sequence[str]) -> tuple[tuple[str, ...], int]:
        """Of the glyphs `told` for `colour`'s rack, those still on it in `state` (not placed since),
        and how many tiles are missing from a full rack (the tiles to draw)."""
        return (), 0

    def tiles_for_place(self, state: S, move: str) -> tuple[str, ...]:
        """The tiles (`R7 RA`) the seat to move may have on its rack that could make `move` (in its
        notation) in its place: the same colour, put on the same place, each still unplayed. The coach
        names them when it does not know a person's rack (Blockers!); none in a game without racks."""
        return ()

    def hint_words(self, move: str, tiles: str) -> Any:
        """A hint that names `move`'s place and the `tiles` (`R7 RA`) that could go there, whichever
        the player holds, as players say it; the move's own words in a game without racks."""
        return self.move_words(move)
