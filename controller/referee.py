"""What the referee does with a physical change (`rules.md` §5), for every game.

`Referee` holds the last legal state of one game and turns each settled snapshot or player action
into a `Verdict`. It is the single place where setup, pending, illegal, restored and unchanged
are decided; engines only compare a snapshot with a state. `referee replay` and the live service
both drive it, which is why a journal replayed through it reproduces the live game exactly.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, Any

from controller.errors import FormatError
from controller.games import registry
from controller.games.base import ActionNotAllowed, Engine, Result
from controller.games.events import GameEvent
from controller.games.registry import engine_for
from controller.language import _
from controller.record import COMPUTER_MOVE, COMPUTER_RACK, HINT, Action
from controller.snapshot import EMPTY, Snapshot, tells_nothing_new

if TYPE_CHECKING:
    from controller.games.rulebook import Rule
    from controller.record import GameRecord

Cell = tuple[int, int]

#: The reason of the verdict on a legal move that is not the one a computer seat chose.
NOT_THE_COMPUTERS_MOVE = _("that is not the computer's move")


@dataclass(frozen=True)
class AwaitedMove:
    """A computer seat's chosen move, which a person is to make on the board."""

    seat: int
    #: The move in the game's notation (`Engine.describe`).
    move: str
    #: The board the move leaves (`Engine.expected`).
    board: Snapshot


class VerdictKind(str, Enum):
    """What a verdict says (`notation.md` §3); the value is the word the JSON lines print."""

    SETUP_OK = "setup-ok"
    SETUP_INVALID = "setup-invalid"
    LEGAL = "legal"
    ILLEGAL = "illegal"
    PENDING = "pending"
    RESTORED = "restored"
    UNCHANGED = "unchanged"
    ACTION = "action"

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class Verdict:
    """One line of `notation.md` §3."""

    verdict: VerdictKind
    index: int | None = None
    seat: int | None = None
    move: str = ""
    events: tuple[GameEvent, ...] = ()
    reason: str = ""
    cells: tuple[Cell, ...] = ()
    advice: str | None = None
    action: str | None = None
    doubtful: bool = False
    #: The rule of the rule book an illegal move (or an invalid starting board) breaks.
    rule: Rule | None = None
    #: `computer-rack` only: the tiles told for a computer seat's rack (`B3 BA Ba`).
    tiles: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.verdict, VerdictKind):  # a verdict read back from its JSON word
            object.__setattr__(self, "verdict", VerdictKind(self.verdict))

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if self.index is not None:
            out["index"] = self.index
        out["verdict"] = self.verdict.value
        if self.action:
            out["action"] = self.action
        if self.seat is not None:
            out["seat"] = self.seat
        if self.move:
            out["move"] = self.move
        if self.tiles:
            out["tiles"] = self.tiles
        if self.events:
            out["events"] = list(self.events)
        if self.reason:
            out["reason"] = self.reason
        if self.cells:
            out["cells"] = [list(c) for c in self.cells]
        if self.advice:
            out["advice"] = self.advice
        if self.doubtful:
            out["doubtful"] = True
        if self.rule is not None:
            out["rule"] = self.rule.id
        return out


@dataclass(frozen=True)
class Outlook:
    """What the referee would say of a board, before saying it (`Referee.preview`)."""

    kind: VerdictKind
    #: The rules expect the board to change still by itself (a marble that should fall is still seen).
    settling: bool = False


class Referee:
    """The last legal state of one game, and the verdicts that move it on."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.state: Any = None
        #: The last observation was illegal, so returning to the last legal state is `restored`.
        self.in_illegal = False
        #: The board is part-way through a move.
        self.in_pending = False
        self.history: list[Verdict] = []
        #: No move was made since the starting board was accepted: the players may still set it up again.
        self.at_setup = False
        #: The result of the game the last `new-game` action closed (None: no game closed yet).
        self.closed_result: Result | None = None
        #: The move a computer seat chose and a person is to make on the board (`computer-move`):
        #: until the board shows exactly it, any other move is refused. None: no move awaited.
        self.awaited: AwaitedMove | None = None
        #: The racks told for computer seats (`computer-rack`: a person drew the tiles and tapped
        #: them), colour -> glyphs as last told; the tiles placed since are off it (`Engine.rack_held`).
        self.racks: dict[str, tuple[str, ...]] = {}

    @property
    def started(self) -> bool:
        return self.state is not None

    @property
    def over(self) -> bool:
        return self.state is not None and self.engine.is_over(self.state)

    def to_move(self) -> int | None:
        return None if self.state is None else self.engine.to_move(self.state)

    def expected(self) -> Snapshot | None:
        return None if self.state is None else self.engine.expected(self.state)

    def observe(self, snapshot: Snapshot, index: int | None = None) -> Verdict:
        """Judge one settled snapshot."""
        verdict = self._observe(snapshot, index)
        self.history.append(verdict)
        return verdict

    def preview(self, snapshot: Snapshot) -> Outlook:
        """What `observe` would say of `snapshot` now, without saying it.

        The service confirms a legal board at once but waits before calling one illegal (the hand
        may only have left the board for a moment mid-move): it asks here which it is."""
        if self.state is None:
            ok = self.engine.check_setup(snapshot).ok
            return Outlook(VerdictKind.SETUP_OK if ok else VerdictKind.SETUP_INVALID)
        judgement = self.engine.judge(self.state, snapshot)
        kind = judgement.kind
        if kind == "illegal" and self.at_setup and self.engine.check_setup(snapshot).ok:
            return Outlook(VerdictKind.SETUP_OK)
        if kind == "unchanged":
            return Outlook(VerdictKind.RESTORED if self.in_illegal else VerdictKind.UNCHANGED)
        verdict = {"legal": VerdictKind.LEGAL, "pending": VerdictKind.PENDING}.get(kind, VerdictKind.ILLEGAL)
        return Outlook(verdict, bool(judgement.settling))

    def resolve(self, seen: Snapshot, candidates: Mapping[Cell, str]) -> Snapshot | None:
        """Doubt resolved by the rules, never guessed.

        `seen` is what the camera read, with "?" at the places it was unsure of, and `candidates`
        the letters each of those may show (its looks rule the others out; "." empty). When exactly
        one board, the last legal one or one that a legal move of the player to move gives, agrees
        with every sure place and with every unsure place's candidates, the reading completed from
        it is returned; None when none fits, or several do (the referee waits for a better look)."""
        if self.state is None or not candidates:
            return None
        engine = self.engine
        spec = registry.get(seen.game)
        found: set[Snapshot] = set()
        boards = [engine.expected(self.state)]
        boards += [engine.expected(engine.apply(self.state, move)[0]) for move in engine.legal_moves(self.state)]
        for board in boards:
            filled = _completed(seen, board, candidates, spec)
            if filled is not None:
                found.add(filled)
                if len(found) > 1:
                    return None
        return next(iter(found), None)

    def _observe(self, snapshot: Snapshot, index: int | None) -> Verdict:
        if self.state is None:
            check = self.engine.check_setup(snapshot)
            if not check.ok:
                return Verdict(
                    VerdictKind.SETUP_INVALID,
                    index,
                    reason=check.reason,
                    cells=check.cells,
                    advice=check.advice,
                    rule=check.rule,
                )
            return self._set_up(snapshot, index)

        judgement = self.engine.judge(self.state, snapshot)
        if judgement.kind == "illegal" and self.at_setup and self.engine.check_setup(snapshot).ok:
            # Before the first move the players may set the board up again (after a new game they
            # lay out a fresh board, which the referee may meet after accepting the old one): a
            # board that is itself a valid start is the game's new starting board, not a move.
            return self._set_up(snapshot, index)
        if judgement.kind == "unchanged":
            if judgement.state is not None:
                # The same position, but the sensors told more about it (a glyph read at last).
                self.state = judgement.state
            restored = self.in_illegal
            self.in_illegal = self.in_pending = False
            return Verdict(VerdictKind.RESTORED if restored else VerdictKind.UNCHANGED, index)
        if judgement.kind == "legal" and self.awaited is not None:
            awaited = self.awaited
            made = self.engine.expected(judgement.state)
            if made != awaited.board and not tells_nothing_new(made, awaited.board):
                # a legal move, but not the one the computer chose: the board goes back
                self.in_illegal = True
                self.in_pending = False
                legal = self.engine.expected(self.state)
                return Verdict(
                    VerdictKind.ILLEGAL,
                    index,
                    seat=awaited.seat,
                    move=awaited.move,
                    reason=NOT_THE_COMPUTERS_MOVE,
                    cells=tuple(legal.changed_cells(snapshot)),
                )
            self.awaited = None
        if judgement.kind == "legal":
            self.state = judgement.state
            self.in_illegal = self.in_pending = self.at_setup = False
            return Verdict(VerdictKind.LEGAL, index, seat=judgement.seat, move=judgement.move, events=judgement.events)
        if judgement.kind == "pending":
            self.in_pending = True
            return Verdict(VerdictKind.PENDING, index, seat=judgement.seat)
        self.in_illegal = True
        self.in_pending = False
        return Verdict(
            VerdictKind.ILLEGAL,
            index,
            # a doubtful reading blames no player: no seat, as the log and the page say
            seat=None if judgement.doubtful else judgement.seat,
            reason=judgement.reason,
            cells=judgement.cells,
            doubtful=judgement.doubtful,
            rule=judgement.rule,
        )

    def _set_up(self, snapshot: Snapshot, index: int | None) -> Verdict:
        self.state = self.engine.start(snapshot)
        self.in_illegal = self.in_pending = False
        self.at_setup = True
        return Verdict(VerdictKind.SETUP_OK, index)

    def act(self, name: str, index: int | None = None, move: str | None = None, tiles: str | None = None) -> Verdict:
        """A player's action on the referee: `new-game`, `end-by-agreement`; or what a computer seat
        chose (`computer-move`) or the coach hinted (`hint`) for the seat to move, with its `move`;
        or the `tiles` a person drew for a computer seat's rack (`computer-rack`)."""
        if name in (COMPUTER_MOVE, HINT):
            verdict = self._choice(name, move or "", index, tiles if name == HINT else None)
        elif name == COMPUTER_RACK:
            verdict = self._rack(tiles or "", index)
        elif name == "new-game":
            if self.state is not None:
                self.closed_result = self.result()
            self.state = None
            self.in_illegal = self.in_pending = False
            self.awaited = None
            self.racks = {}
            verdict = Verdict(VerdictKind.ACTION, index, action=name)
        else:
            if self.state is None:
                raise ActionNotAllowed(_("{action} needs a game in progress", action=name))
            self.state, events = self.engine.action(self.state, name)
            self.at_setup = False
            self.awaited = None
            verdict = Verdict(VerdictKind.ACTION, index, action=name, events=events)
        self.history.append(verdict)
        return verdict

    def _choice(self, name: str, text: str, index: int | None, tiles: str | None = None) -> Verdict:
        """A computer seat's chosen move (awaited on the board from now on) or a coach's hint
        (recorded only): either is a legal move of the seat to move, in the game's notation. A hint
        for a person whose rack the referee does not know names its place and the `tiles` that could
        go there (`Engine.tiles_for_place`; the move is one of them): each must be one of those."""
        if self.state is None or self.engine.is_over(self.state):
            raise ActionNotAllowed(_("{action} needs a game in progress", action=name))
        seat = self.engine.to_move(self.state)
        if seat is None:
            raise ActionNotAllowed(_("{action} needs a seat to move", action=name))
        try:
            move = self.engine.parse_move(self.state, text)
        except FormatError:
            raise ActionNotAllowed(_("{move} is not a legal move of the seat to move", move=repr(text))) from None
        text = self.engine.describe(self.state, move)
        named = tuple((tiles or "").split())
        if named:
            fits = self.engine.tiles_for_place(self.state, text)
            wrong = [t for t in named if t not in fits]
            if wrong or len(set(named)) != len(named):
                raise ActionNotAllowed(
                    _("{tiles} cannot all go where {move} puts its tile", tiles=repr(tiles), move=repr(text))
                )
        if name == COMPUTER_MOVE:
            after = self.engine.apply(self.state, move)[0]
            self.awaited = AwaitedMove(seat, text, self.engine.expected(after))
        verdict = Verdict(VerdictKind.ACTION, index, seat=seat, move=text, action=name, tiles=" ".join(named))
        self.history.append(verdict)
        return verdict

    def _rack(self, tiles: str, index: int | None) -> Verdict:
        """A computer seat's rack as a person drew it (one colour's whole rack, `B3 BA Ba`): checked
        against the position (no tile placed, captured or told twice), kept; a move the seat chose
        from its old rack is dropped: it chooses again from this one."""
        if self.state is None or self.engine.is_over(self.state):
            raise ActionNotAllowed(_("{action} needs a game in progress", action=COMPUTER_RACK))
        colour, glyphs = self.engine.check_rack(self.state, tiles)
        seat = next(s for s in range(self.engine.setup.players) if colour in self.engine.rack_colours(s))
        self.racks[colour] = glyphs
        if self.awaited is not None and self.awaited.seat == seat:
            self.awaited = None
        text = " ".join(colour + g for g in glyphs)
        verdict = Verdict(VerdictKind.ACTION, index, seat=seat, action=COMPUTER_RACK, tiles=text)
        self.history.append(verdict)
        return verdict

    def accept(self, snapshot: Snapshot, index: int | None = None) -> Verdict:
        """A person declared `snapshot` right ("this board is right, go on from it"): play goes on
        from it (before the start: it is the starting board, valid or not). The way out of a false
        "illegal" whatever caused it; journalled as the action `accept-board` with its board."""
        if self.state is None:
            self.state = self.engine.start(snapshot)
            self.at_setup = True
        else:
            self.state = self.engine.adopt(self.state, snapshot)
        self.in_illegal = self.in_pending = False
        self.awaited = None  # the person's board stands: a computer seat to move chooses again
        verdict = Verdict(VerdictKind.ACTION, index, action="accept-board")
        self.history.append(verdict)
        return verdict

    def reveal(self, seat: int, colours: tuple[str, ...]) -> None:
        self.state = self.engine.reveal(self.state, seat, colours)

    def result(self) -> Result:
        if self.state is None:
            return Result(finished=False, reason=_("the game has not started"))
        return self.engine.result(self.state)

    def record_result(self) -> Result:
        """The result a record's last line gives: the game's, or, when the record ends with the
        `new-game` that closed its game (as every exported game but the open one does), the result
        of the game it closed, not the empty one it opened."""
        last = self.history[-1] if self.history else None
        if last is not None and last.action == "new-game" and self.closed_result is not None:
            return self.closed_result
        return self.result()


#: The verdict's words for people: improved from one version to the next (places counted from 1, other
#: languages, the rule broken named), they are not the decision, which a journal replayed must reproduce exactly.
WORDS = ("reason", "advice", "rule")


def _completed(seen: Snapshot, board: Snapshot, candidates: Mapping[Cell, str], spec: Any) -> Snapshot | None:
    """`seen` completed from `board` at its unsure places, when `board` agrees with it: each sure
    place read the same (or read knowing less, a glyph unread), each unsure place one of its
    candidates, each extra line's token the same or unread. None when they disagree."""
    if (seen.rows, seen.cols) != (board.rows, board.cols):
        return None
    for line in spec.extra_lines:
        mine, theirs = seen.line(line.key), board.line(line.key)
        if mine is None or theirs is None:
            continue
        if len(mine) != len(theirs) or any(a != b and a != line.unknown for a, b in zip(mine, theirs)):
            return None
    knows_less = spec.cells.knows_less
    grid = []
    for r, (row, wanted) in enumerate(zip(seen.cells, board.cells)):
        out = list(row)
        for c, (read, cell) in enumerate(zip(row, wanted)):
            allowed = candidates.get((r, c))
            if allowed is not None:
                if (cell[:1] if cell != EMPTY else EMPTY) not in allowed:
                    return None
                out[c] = cell
            elif read != cell and not (knows_less is not None and knows_less(read, cell)):
                return None
        grid.append(tuple(out))
    return seen.with_cells(grid)


def same_verdict(stored: dict[str, Any], got: dict[str, Any]) -> bool:
    """Whether a verdict judged again takes the same decision as a stored one: everything but its words
    (`WORDS`) equal. Journals written before doubtful readings stopped naming a seat still match (the
    seat was never a blame)."""
    if stored == got:
        return True
    stored = {k: v for k, v in stored.items() if k not in WORDS}
    got = {k: v for k, v in got.items() if k not in WORDS}
    if stored.get("doubtful") and "seat" in stored and "seat" not in got:
        stored.pop("seat")
    return stored == got


def judge_record(record: GameRecord) -> Iterator[dict[str, Any]]:
    """The verdict lines of a game record (`notation.md` §3), then its result line.

    `referee replay` prints them; the journal's export checks a record against them.
    """

    referee = Referee(engine_for(record.setup))
    for verdict in judge_steps(referee, record):
        yield verdict.to_json()
    yield {"result": referee.record_result().to_json()}


def referee_at_end(record: GameRecord) -> Referee:
    """A referee that judged the whole record and holds the position at its end (`referee hint RECORD`)."""
    referee = Referee(engine_for(record.setup))
    for _verdict in judge_steps(referee, record):
        pass
    return referee


def judge_steps(referee: Referee, record: GameRecord) -> Iterator[Verdict]:
    """`referee` judges the record's board and every observation after it, one verdict each; once
    exhausted, `referee` holds the position at the record's end (`referee_at_end`)."""
    yield referee.observe(record.board, index=0)
    for index, entry in enumerate(record.observations, start=1):
        if isinstance(entry, Action) and entry.board is not None:
            yield referee.accept(entry.board, index=index)
        elif isinstance(entry, Action):
            yield referee.act(entry.name, index=index, move=entry.move, tiles=entry.tiles)
        else:
            yield referee.observe(entry, index=index)
