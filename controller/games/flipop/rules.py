"""Flipop rules engine (`rules.md` §3): whose turn it is, passes, the end, and judging snapshots.

The door physics (how a push turns doors and ripples through them) lives in `doors.py`;
this module drives it. A state may hold several *candidate lines*: when legal moves give the
balls the camera saw but leave the doors differently and the doors were not read, the referee
keeps every candidate until a later observation tells them apart (`rules.md` §5).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import Any

from controller.errors import ConfigError, FormatError
from controller.errors import sentence as error_sentence
from controller.games.base import ActionNotAllowed, Engine, GameSetup, Judgement, Result, SetupCheck
from controller.games.events import EventType, GameEvent
from controller.games.flipop import doors as doors_model
from controller.games.flipop.doors import OPPOSITE, POSTS, SIZE, UNKNOWN_DOOR, Cell, Problem, PushOutcome
from controller.games.rulebook import Rule
from controller.games.spec import (
    EMPTY,
    ON_POSTS,
    CellFormat,
    ExtraLine,
    LineShown,
    Snapshot,
    post_words,
    read_snapshot,
)
from controller.language import N_, Text, _, _n, _p, listed
from controller.schema import sentence

Balls = tuple[tuple[str, ...], ...]
Doors = tuple[str, ...]
#: A move: the ball's cell and the direction it is pushed.
FlipopMove = tuple[Cell, str]


@dataclass(frozen=True)
class Line:
    """One fully known position: balls, doors, whose turn, and the push-back ban.

    `banned` holds (cell, direction) pairs: the ball in that cell may not start a push that way
    (it was just displaced the opposite way by the opponent). `to_move` is None once no seat can
    move (the game ended blocked).
    """

    balls: Balls
    doors: Doors
    to_move: int | None
    banned: frozenset[tuple[Cell, str]] = frozenset()

    @cached_property
    def playing(self) -> bool:
        """Whether play goes on in this line: a seat to move and both colours still on the board.
        Worked out once per line (whose turn it is and whether the game is over are asked all the time)."""
        return self.to_move is not None and not _a_colour_gone(self.balls)

    def __hash__(self) -> int:
        """Worked out once per line: a computer player's search looks positions up all the time."""
        known = self.__dict__.get("_hash")
        if known is None:
            known = hash((self.balls, self.doors, self.to_move, self.banned))
            object.__setattr__(self, "_hash", known)
        return known

    def __getstate__(self) -> dict[str, Any]:
        """Pickled without the remembered hash (another process hashes strings differently)."""
        return {key: value for key, value in self.__dict__.items() if key != "_hash"}

    def sort_key(self) -> tuple:
        return (self.balls, self.doors, -1 if self.to_move is None else self.to_move, sorted(self.banned))


@dataclass(frozen=True)
class FlipopState:
    """The last legal state: every candidate line (usually one), and whether play was ended."""

    lines: tuple[Line, ...]
    agreed_end: bool = False


class _Option:
    """One legal move from one line. The line it leads to and its events (whether the next seat must
    pass) are worked out when first asked: a move list is asked for far more often than its moves
    are made (a computer player's search lists every move of a position and makes one)."""

    __slots__ = ("move", "seat", "colour", "outcome", "before", "engine", "_settled")

    def __init__(
        self, move: FlipopMove, seat: int, colour: str, outcome: PushOutcome, before: Line, engine: FlipopEngine
    ) -> None:
        self.move = move
        self.seat = seat
        self.colour = colour
        self.outcome = outcome
        self.before = before
        self.engine = engine
        self._settled: tuple[Line, tuple[GameEvent, ...]] | None = None

    @property
    def text(self) -> str:
        """The move in the notation (`W (4,2) N`)."""
        (r, c), direction = self.move
        return f"{self.colour} ({r},{c}) {direction}"

    def _settle(self) -> tuple[Line, tuple[GameEvent, ...]]:
        if self._settled is None:
            self._settled = self.engine._after_move(self.before, self.seat, self.outcome)
        return self._settled

    @property
    def after(self) -> Line:
        return self._settle()[0]

    @property
    def events(self) -> tuple[GameEvent, ...]:
        return self._settle()[1]


def _cell_text(cell: Cell) -> Text:
    """A cell as players name it: (row,column), each counted from 1 from the top left (`docs/rules.md` §6;
    French writes coordinates `(5 ; 3)`, the comma being its decimal mark). The move notation (`W (4,2) N`,
    `notation.md`) counts from 0 and is written by `describe`."""
    return _("({row},{column})", row=str(cell[0] + 1), column=str(cell[1] + 1))


def wings_words(wings: str) -> str:
    """A door's wings as players read them, each direction's letter in their language (`N E S W`, `N E S O`)."""
    letters = {"N": _p("compass letter", "N"), "E": _p("compass letter", "E"), "S": _p("compass letter", "S")}
    letters["W"] = _p("compass letter", "W")
    return listed((letters.get(w, w) for w in wings), conjunction=" ")


def _set_door_back(post: int, wings: str) -> Text:
    return _(
        "turn the door on post {post} back so its wings point {wings}",
        post=_cell_text(POSTS[post]),
        wings=wings_words(wings),
    )


#: The snapshot's door line: one token per post, the wings' directions (`notation.md` §1).
DOORS_LINE = ExtraLine(
    "doors",
    doors_model.parse_doors_line,
    unknown=UNKNOWN_DOOR,
    set_back=_set_door_back,
    correction="door",
    shown=LineShown(ON_POSTS),  # the page draws each door's wings on its post
)
#: A ball left the board through its exit.
EXIT = EventType("exit", "cell", N_("the ball on {place} left through its exit"))

# --- the rules a move or a starting board can break (`controller.games.rulebook`) -------------------
START_LAYOUT = Rule(
    "flipop.start-layout",
    N_("the game starts with the balls on their home rows and the doors as the start layout shows"),
    N_("§3 Homes and exits"),
    "Position de départ (fig. 1). Les portes sont placées dans le sens des aiguilles d'une montre.",
)
PUSH_A_DOOR = Rule(
    "flipop.push-a-door",
    N_("a move pushes a ball of one's own colour against a door: the door turns a quarter turn, the ball moves on"),
    N_("§3 A move"),
    "Un coup consiste toujours à pousser une boule de sa couleur contre une porte (simple ou double / fig. 2 et 3) "
    "et de déplacer ainsi sa boule d'une case.",
)
CHAIN = Rule(
    "flipop.chain",
    N_("a ball never pushes another ball: a chain goes on only through a door"),
    N_("§3 A move"),
    "Un mouvement en chaîne n'est possible que s'il y a toujours une porte entre deux boules, car une boule ne peut "
    "jamais pousser une autre boule (fig. 4 : possible, fig. 5 : non autorisé).",
)
STAY_ON_BOARD = Rule(
    "flipop.stay-on-board",
    N_("a ball leaves the board only through one of its exit cells"),
    N_("§3 A move"),
    "Cette sortie doit obligatoirement se faire par l'une des trois cases de sortie (fig. 1).",
)
WING_ON_WING = Rule(
    "flipop.wing-on-wing",
    N_("a door wing may not turn onto an edge that already holds a wing"),
    N_("§3 A move"),
)
NO_PUSH_BACK = Rule(
    "flipop.no-push-back",
    N_("a ball the opponent just pushed may not be pushed straight back at once, except by another ball"),
    N_("§3 A move"),
    "Une boule qui vient d'être poussée ne peut être jouée immédiatement en sens inverse, qu'à l'aide d'une autre "
    "boule de sa couleur non concernée par la poussée de l'adversaire.",
)
TURN = Rule(
    "flipop.turn",
    N_("players move in turn, one move each, each their own colour"),
    N_("§3 A move"),
    "Chaque joueur joue à tour de rôle UN COUP.",
)
DOORS_TURN_BY_PUSH = Rule(
    "flipop.doors-turn-by-push",
    N_("doors turn only when a ball pushes them, a quarter turn"),
    N_("§3 A move"),
    "L'ouverture de la (des) porte(s) se fait d'1/4 de tour et la boule va occuper la case suivante (fig. 2 et 3).",
)
GAME_OVER = Rule(
    "flipop.game-over",
    N_("once the game is over, no ball is pushed any more"),
    N_("§3 End of game"),
    "La partie s'arrête dès l'instant où le premier joueur a sorti ses cinq boules.",
)
RULES = (
    START_LAYOUT,
    PUSH_A_DOOR,
    CHAIN,
    STAY_ON_BOARD,
    WING_ON_WING,
    NO_PUSH_BACK,
    TURN,
    DOORS_TURN_BY_PUSH,
    GAME_OVER,
)
_RULES = {rule.id: rule for rule in RULES}


def _post_text(post: Cell) -> Text:
    """Post (i, j) as players name it: the corner at the bottom right of cell (i+1, j+1), counted from 1."""
    return post_words(post, _cell_text)


DIRECTION_WORDS = {
    "N": N_("north (up)"),
    "E": N_("east (right)"),
    "S": N_("south (down)"),
    "W": N_("west (left)"),
}


def _direction(letter: str) -> Text:
    return Text(DIRECTION_WORDS[letter])


_MOVE_TEXT = re.compile(r"([A-Z]) \((\d+),(\d+)\) ([NESW])")


def _count(balls: Balls, colour: str) -> int:
    return sum(row.count(colour) for row in balls)


def _as_read(seen: Sequence[str] | None, known: Doors) -> Doors:
    """The doors `known`, with those the camera read in `seen` instead (a `?` keeps the known door)."""
    if seen is None:
        return known
    return tuple(d if s == UNKNOWN_DOOR else s for s, d in zip(seen, known))


def doors_match(doors: Doors, seen: Sequence[str] | None) -> bool:
    """Whether observed door tokens agree with known doors (`?` and a missing line match)."""
    if seen is None:
        return True
    return all(s in (UNKNOWN_DOOR, d) for s, d in zip(seen, doors))


class FlipopEngine(Engine[FlipopState, FlipopMove]):
    """Flipop for two seats, each pushing balls of one colour (default seat 0 white)."""

    piece_noun = "ball"

    state_type = FlipopState
    #: Cells as this game's move notation writes them (`W (4,2) N`).
    place_name = staticmethod(_cell_text)

    def seat_colours_of(self, seat: int) -> tuple[str, ...]:
        return (self.colours[seat],) if 0 <= seat < len(self.colours) else ()

    def axis_labels(self, rows: int, cols: int) -> tuple[list[str], list[str]]:
        return [str(r + 1) for r in range(rows)], [str(c + 1) for c in range(cols)]

    def move_words(self, move: str) -> str:
        """`W (4,2) N` (the notation, from 0) as players say it: `the white ball on (5,3) pushed north (up)`."""
        found = _MOVE_TEXT.fullmatch(move)
        if found is None:
            return move
        colour, r, c, direction = found.groups()
        return _(
            "the {colour} ball on {place} pushed {direction}",
            colour=self.colour(colour, 1),
            place=_cell_text((int(r), int(c))),
            direction=_direction(direction),
        )

    def __init__(self, setup: GameSetup) -> None:
        super().__init__(setup)
        if setup.players != 2:
            raise ConfigError("players", _("Flipop is for 2 players, got {players}", players=setup.players))
        seats = setup.seats if setup.seats is not None else ("W", "B")
        if any(not isinstance(s, str) for s in seats) or sorted(seats) != ["B", "W"]:
            raise ConfigError(
                "seats", _("Flipop seats are one ball colour each, W and B; got {seats}", seats=repr(list(seats)))
            )
        self.colours: tuple[str, str] = (seats[0], seats[1])
        # the profile was checked when it was read (`check_profile`): its start and exits are sound
        self.start_board = start_position(self.profile.get("start"))
        self.exits = {colour: frozenset((r, c) for r, c in self.profile.get("exits")[colour]) for colour in "WB"}
        self.shapes = tuple(doors_model.rotations(d) for d in self.start_board.line("doors") or ())
        self.ball_counts = {c: _count(self.start_board.cells, c) for c in "WB"}

    # -- setup ---------------------------------------------------------------------------
    def check_setup(self, snapshot: Snapshot) -> SetupCheck:
        start = self.start_board
        problems: list[Text] = []
        cells: list[Cell] = []
        for r, c in snapshot.changed_cells(start):
            want = start.cells[r][c]
            if want == EMPTY:
                problems.append(_("cell {place} should be empty", place=_cell_text((r, c))))
            else:
                problems.append(
                    _("cell {place} should hold a {colour} ball", place=_cell_text((r, c)), colour=self.colour(want, 1))
                )
            cells.append((r, c))
        seen_doors, start_doors = snapshot.line("doors"), start.line("doors")
        if seen_doors is not None and start_doors is not None:
            for post, seen, want in zip(POSTS, seen_doors, start_doors):
                if seen != UNKNOWN_DOOR and seen != want:
                    problems.append(self._door_should(post, want, seen))
                    cells.extend(c for c in doors_model.post_cells(post) if c not in cells)
        if not problems:
            return SetupCheck(True)
        reason = _("the board differs from the start layout: {problems}", problems=listed(problems, separator=";"))
        return SetupCheck(
            False,
            reason,
            tuple(cells),
            advice=_("set the balls and doors as the start layout shows"),
            rule=START_LAYOUT,
        )

    @staticmethod
    def _door_should(post: Cell, want: str, seen: str) -> Text:
        return _(
            "the door at {post} should show {want}, not {seen}",
            post=_post_text(post),
            want=wings_words(want),
            seen=wings_words(seen),
        )

    def start(self, snapshot: Snapshot) -> FlipopState:
        doors = _as_read(snapshot.line("doors"), self.start_board.line("doors") or ())
        first = Line(snapshot.cells, doors, self.setup.first)
        line, _ = self._settle(first, pass_was_free=False)
        return FlipopState((line,))

    def position(self, snapshot: Snapshot, to_move: int = 0, banned: Sequence[tuple[Cell, str]] = ()) -> FlipopState:
        """A mid-game state from a board whose doors were all read (tests, benches, resuming).

        `banned` lists (cell, direction) pushes the push-back rule forbids the seat to move.
        Automatic passes apply, as they would after a move.
        """
        doors = snapshot.line("doors")
        if doors is None or UNKNOWN_DOOR in doors:
            raise FormatError(_("a Flipop position needs every door read on its 'doors:' line"))
        line = Line(snapshot.cells, doors, to_move, frozenset(banned))
        line, _free = self._settle(line, pass_was_free=False)
        return FlipopState((line,))

    def adopt(self, state: FlipopState, snapshot: Snapshot) -> FlipopState:
        """Go on from a board a person declared right: the same seat to move, no push-back ban; a
        door the camera did not read keeps the shape the referee believed."""
        first = state.lines[0]
        doors = _as_read(snapshot.line("doors"), first.doors)
        seat = first.to_move if first.to_move is not None else self.setup.first
        line, _ = self._settle(Line(snapshot.cells, doors, seat), pass_was_free=False)
        return FlipopState((line,), agreed_end=state.agreed_end)

    # -- play ----------------------------------------------------------------------------
    def _live(self, state: FlipopState) -> list[Line] | tuple[Line, ...]:
        lines = state.lines
        if len(lines) == 1 and not state.agreed_end:  # the usual case, asked all the time
            return lines if lines[0].playing else ()
        if self.is_over(state):
            return []
        return [ln for ln in lines if ln.playing]

    def to_move(self, state: FlipopState) -> int | None:
        live = self._live(state)
        return live[0].to_move if live else None

    def legal_moves(self, state: FlipopState) -> Sequence[FlipopMove]:
        live = self._live(state)
        if len(live) == 1:
            return list(_options_cached(self, live[0])[1])
        seat = live[0].to_move if live else None
        return sorted({move for ln in live if ln.to_move == seat for move in _options_cached(self, ln)[1]})

    def apply(self, state: FlipopState, move: FlipopMove) -> tuple[FlipopState, tuple[GameEvent, ...]]:
        seat = self.to_move(state)
        chosen = [o for ln in self._live(state) if ln.to_move == seat for o in self._options(ln) if o.move == move]
        if not chosen:
            raise ActionNotAllowed(_("{move} is not a legal move now", move=self.describe(state, move)))
        if len(chosen) == 1:
            return FlipopState((chosen[0].after,)), chosen[0].events
        return self._state_from(chosen), chosen[0].events

    def describe(self, state: FlipopState, move: FlipopMove) -> str:
        (r, c), direction = move
        colour = state.lines[0].balls[r][c]
        return f"{colour} ({r},{c}) {direction}"

    def expected(self, state: FlipopState) -> Snapshot:
        first = state.lines[0]
        same = [ln.doors for ln in state.lines if ln.balls == first.balls]
        doors = tuple(d[0] if len(set(d)) == 1 else UNKNOWN_DOOR for d in zip(*same))
        return Snapshot(self.setup.game, first.balls, {"doors": doors})

    def _state_from(self, options: Sequence[_Option]) -> FlipopState:
        lines = sorted({o.after for o in options}, key=Line.sort_key)
        return FlipopState(tuple(lines))

    def _options(self, line: Line) -> tuple[_Option, ...]:
        return _options_cached(self, line)[0]

    def _compute_options(self, line: Line) -> tuple[_Option, ...]:
        """Every legal move of the seat to move in `line`, with what it leads to (asked when needed)."""
        seat = line.to_move
        if seat is None:
            return ()
        colour = self.colours[seat]
        balls, doors, banned = line.balls, line.doors, line.banned
        out = []
        for cell, direction in doors_model.pushable(balls, doors, colour):
            if banned and (cell, direction) in banned:
                continue
            result = doors_model.legal_push(balls, doors, cell, direction, self.exits)
            if result is not None:
                out.append(_Option((cell, direction), seat, colour, result, line, self))
        return tuple(out)

    def _can_move(self, line: Line) -> bool:
        """Whether the seat to move has any legal push: its move list (remembered, as the moves of
        the position a move leads to are asked for next)."""
        return line.to_move is not None and bool(self._options(line))

    def _after_move(self, line: Line, seat: int, result: PushOutcome) -> tuple[Line, tuple[GameEvent, ...]]:
        banned = frozenset(doors_model.shared_push(cell, OPPOSITE[d]) for cell, d in result.displaced)
        nxt = Line(result.balls, result.doors, 1 - seat, banned)
        settled, passes = self._settle(nxt, pass_was_free=False)
        events = tuple(EXIT((r, c)) for r, c in result.exits) + passes
        return settled, events

    def _settle(self, line: Line, pass_was_free: bool) -> tuple[Line, tuple[GameEvent, ...]]:
        """Apply automatic passes: a seat with no legal move passes, which lifts the ban.

        The game ends blocked when a seat cannot move with no ban in force right after the other
        seat also could not (a pass made only because of the ban does not count: once the ban is
        lifted that seat may be able to move again).
        """
        events: list[GameEvent] = []
        for _step in range(4):
            seat = line.to_move
            if seat is None or not line.playing:
                break
            if self._can_move(line):
                break
            free = not line.banned
            if free and pass_was_free:
                line = Line(line.balls, line.doors, None)
                break
            events.append(GameEvent.passed(seat))
            pass_was_free = free
            line = Line(line.balls, line.doors, 1 - seat)
        return line, tuple(events)

    # -- judging -------------------------------------------------------------------------
    def judge(self, state: FlipopState, snapshot: Snapshot) -> Judgement[FlipopState]:
        seat = self.to_move(state)
        odd = self._impossible_reading(snapshot)
        if odd is not None:
            return Judgement("illegal", seat=seat, reason=odd.reason, cells=odd.cells, doubtful=True)
        balls, seen_doors = snapshot.cells, snapshot.line("doors")
        same = [ln for ln in state.lines if ln.balls == balls]
        if same:
            agreeing = tuple(ln for ln in same if doors_match(ln.doors, seen_doors))
            if agreeing:
                # Doors read on a still board rule out the candidates they contradict.
                refined = None if agreeing == state.lines else FlipopState(agreeing, state.agreed_end)
                return Judgement("unchanged", seat=seat, state=refined)
            return self._hand_turned(same[0], snapshot, seat)
        if self.is_over(state):
            changed = tuple(self.expected(state).changed_cells(snapshot))
            return Judgement(
                "illegal", seat=seat, reason=_("the game is over; no more moves"), cells=changed, rule=GAME_OVER
            )

        matches: list[_Option] = []
        door_mismatch: list[_Option] = []
        pending: _Option | None = None
        for line in self._live(state):
            for option in self._candidates(line, balls):
                result = option.outcome
                if result.balls == balls:
                    if doors_match(result.doors, seen_doors):
                        matches.append(option)
                    else:
                        door_mismatch.append(option)
                elif pending is None and self._exit_under_way(result, balls):
                    pending = option
        if matches:
            matches.sort(key=lambda o: (o.text, o.after.sort_key()))
            best = matches[0]
            return Judgement(
                "legal",
                seat=best.seat,
                state=self._state_from(matches),
                move=best.text,
                events=best.events,
            )
        if pending is not None:
            return Judgement("pending", seat=pending.seat)
        if door_mismatch:
            return self._wrong_doors(door_mismatch[0], snapshot)
        return self._explain(state, snapshot)

    def _candidates(self, line: Line, balls: Balls) -> list[_Option]:
        """The legal moves of `line` that could have left `balls`, worked out only as needed.

        Cheap filter first: the pushed ball always ends in the cell in front of it (or has left
        by an exit there), so other pushes are never simulated.
        """
        seat = line.to_move
        if seat is None:
            return []
        colour = self.colours[seat]
        out = []
        for cell, direction in doors_model.pushable(line.balls, line.doors, colour):
            dr, dc = doors_model.STEPS[direction]
            target = (cell[0] + dr, cell[1] + dc)
            if balls[target[0]][target[1]] != colour and target not in self.exits[colour]:
                continue
            if (cell, direction) in line.banned:
                continue
            result = doors_model.legal_push(line.balls, line.doors, cell, direction, self.exits)
            if result is not None:
                # One whose balls differ is not this move (perhaps a move under way: its ball not yet
                # lifted off the exit); the line it leads to is never asked for.
                out.append(_Option((cell, direction), seat, colour, result, line, self))
        return out

    @staticmethod
    def _exit_under_way(result: PushOutcome, balls: Balls) -> bool:
        """The board of a legal move except that balls that left are still in their exit cells."""
        if not result.exits:
            return False
        waiting = dict(zip(result.exits, result.exited))
        for r in range(SIZE):
            for c in range(SIZE):
                want, seen = result.balls[r][c], balls[r][c]
                if want != seen and not (want == EMPTY and waiting.get((r, c)) == seen):
                    return False
        return True

    def _impossible_reading(self, snapshot: Snapshot) -> Problem | None:
        """A snapshot no hand could produce: a door of the wrong shape, more balls than exist."""
        seen_doors = snapshot.line("doors")
        if seen_doors is not None:
            for post, seen, shapes in zip(POSTS, seen_doors, self.shapes):
                if seen != UNKNOWN_DOOR and seen not in shapes:
                    want = len(next(iter(shapes)))
                    if want == 1:
                        reason = _(
                            "the door at {post} reads {seen}, which a single door cannot show",
                            post=_post_text(post),
                            seen=wings_words(seen),
                        )
                    else:
                        reason = _(
                            "the door at {post} reads {seen}, which a door of {wings} wings cannot show",
                            post=_post_text(post),
                            seen=wings_words(seen),
                            wings=want,
                        )
                    return Problem(reason, doors_model.post_cells(post))
            known = tuple(d if d != UNKNOWN_DOOR else "" for d in seen_doors)
            for first, second, edge in doors_model.shared_edges(known):
                return Problem(
                    _(
                        "the doors at posts {first} and {second} read as sharing one edge",
                        first=_cell_text(first),
                        second=_cell_text(second),
                    ),
                    edge,
                )
        for colour in "WB":
            if _count(snapshot.cells, colour) > self.ball_counts[colour]:
                return Problem(
                    _("more {colour} balls are seen than the game has", colour=self.colour(colour, 2)),
                    tuple((r, c) for r in range(SIZE) for c in range(SIZE) if snapshot.cells[r][c] == colour),
                )
        return None

    def _door_differences(self, doors: Doors, seen: Sequence[str]) -> list[tuple[Cell, str, str]]:
        return [(post, want, got) for post, want, got in zip(POSTS, doors, seen) if got != UNKNOWN_DOOR and got != want]

    def _hand_turned(self, line: Line, snapshot: Snapshot, seat: int | None) -> Judgement[FlipopState]:
        diffs = self._door_differences(line.doors, snapshot.line("doors") or ())
        posts = listed((_post_text(p) for p, _w, _g in diffs), conjunction=None)
        cells = tuple(c for p, _w, _g in diffs for c in doors_model.post_cells(p))
        return Judgement(
            "illegal",
            seat=seat,
            reason=_("a door was turned with no ball pushing it: {posts}", posts=posts),
            cells=tuple(dict.fromkeys(cells)),
            rule=DOORS_TURN_BY_PUSH,
        )

    def _wrong_doors(self, option: _Option, snapshot: Snapshot) -> Judgement[FlipopState]:
        diffs = self._door_differences(option.outcome.doors, snapshot.line("doors") or ())
        words = listed((self._door_should(p, want, got) for p, want, got in diffs), separator=";")
        cells = tuple(dict.fromkeys(c for p, _w, _g in diffs for c in doors_model.post_cells(p)))
        return Judgement(
            "illegal",
            seat=option.seat,
            reason=_(
                "the balls moved as for {move}, but the doors do not: {doors}",
                move=self.move_words(option.text),
                doors=words,
            ),
            cells=cells,
            rule=DOORS_TURN_BY_PUSH,
        )

    def _explain(self, state: FlipopState, snapshot: Snapshot) -> Judgement[FlipopState]:
        """Say in words why a changed board matches no legal move."""
        balls = snapshot.cells
        line = self._live(state)[0]
        seat = line.to_move
        assert seat is not None
        changed = tuple(Snapshot(self.setup.game, line.balls).changed_cells(snapshot))
        colour = self.colours[seat]
        # A push of the mover's that the rules forbid, but whose forced result is what we see.
        for cell, direction in doors_model.pushable(line.balls, line.doors, colour):
            text = f"{colour} ({cell[0]},{cell[1]}) {direction}"
            if (cell, direction) in line.banned:
                strict = doors_model.push(line.balls, line.doors, cell, direction, self.exits)
                if isinstance(strict, PushOutcome) and strict.balls == balls:
                    back = OPPOSITE[direction]
                    return Judgement(
                        "illegal",
                        seat=seat,
                        reason=_(
                            "the {colour} ball at {place} was just pushed {back} by the opponent and may not push "
                            "straight back {direction} ({move})",
                            colour=self.colour(colour, 1),
                            place=_cell_text(cell),
                            back=_direction(back),
                            direction=_direction(direction),
                            move=self.move_words(text),
                        ),
                        cells=changed,
                        rule=NO_PUSH_BACK,
                    )
            forced = doors_model.push(line.balls, line.doors, cell, direction, self.exits, lenient=True)
            if isinstance(forced, PushOutcome) and forced.problem is not None and forced.balls == balls:
                return Judgement(
                    "illegal",
                    seat=seat,
                    reason=_("{move} is not allowed: {why}", move=self.move_words(text), why=forced.problem.reason),
                    cells=tuple(dict.fromkeys(forced.problem.cells + changed)),
                    rule=_RULES.get(forced.problem.rule),
                )
        # The other seat moved.
        other = 1 - seat
        other_line = Line(line.balls, line.doors, other)
        for option in self._options(other_line):
            if option.outcome.balls == balls:
                return Judgement(
                    "illegal",
                    seat=seat,
                    reason=_(
                        "it is {player}'s turn, but {colour} moved ({move})",
                        player=self.seat_name(seat),
                        colour=self.colour(self.colours[other]),
                        move=self.move_words(option.text),
                    ),
                    cells=changed,
                    rule=TURN,
                )
        # A ball slid to a neighbouring cell with no door pushed.
        gone = [c for c in changed if line.balls[c[0]][c[1]] != EMPTY and balls[c[0]][c[1]] == EMPTY]
        came = [c for c in changed if balls[c[0]][c[1]] != EMPTY and line.balls[c[0]][c[1]] != balls[c[0]][c[1]]]
        if len(gone) == 1 and len(came) == 1:
            (r0, c0), (r1, c1) = gone[0], came[0]
            if line.balls[r0][c0] == balls[r1][c1]:
                edge = doors_model.edge_between(gone[0], came[0])
                if abs(r0 - r1) + abs(c0 - c1) == 1 and edge not in doors_model.wing_map(line.doors):
                    reason = _(
                        "a ball moved from {start} to {end} with no door between the two cells",
                        start=_cell_text(gone[0]),
                        end=_cell_text(came[0]),
                    )
                else:
                    reason = _(
                        "a ball moved from {start} to {end} in a way no push allows",
                        start=_cell_text(gone[0]),
                        end=_cell_text(came[0]),
                    )
                return Judgement("illegal", seat=seat, reason=reason, cells=(gone[0], came[0]), rule=PUSH_A_DOOR)
        where = listed((_cell_text(c) for c in changed), conjunction=" ")
        return Judgement(
            "illegal",
            seat=seat,
            reason=_(
                "no legal move of {colour} leaves the balls like this (changed: {places})",
                colour=self.colour(colour),
                places=where,
            ),
            cells=changed,
            rule=PUSH_A_DOOR,
        )

    # -- end -----------------------------------------------------------------------------
    def is_over(self, state: FlipopState) -> bool:
        if state.agreed_end:
            return True
        lines = state.lines
        if len(lines) == 1:
            return not lines[0].playing
        return not any(ln.playing for ln in lines)

    def action(self, state: FlipopState, name: str) -> tuple[FlipopState, tuple[GameEvent, ...]]:
        if name != "end-by-agreement":
            return super().action(state, name)
        if self.is_over(state):
            raise ActionNotAllowed(_("the game is already over"))
        return FlipopState(state.lines, agreed_end=True), ()

    def result(self, state: FlipopState) -> Result:
        balls = state.lines[0].balls
        scores = tuple(_count(balls, c) for c in self.colours)
        if not self.is_over(state):
            return Result(False, None, scores)
        emptied = [seat for seat in (0, 1) if scores[seat] == 0]
        if len(emptied) == 1:
            seat = emptied[0]
            other = 1 - seat
            return Result(
                True,
                (seat,),
                scores,
                _n(
                    "{player} wins: all {colour} balls left the board, while {other} still has {n} ball on it",
                    "{player} wins: all {colour} balls left the board, while {other} still has {n} balls on it",
                    scores[other],
                    player=self.seat_name(seat),
                    colour=self.colour(self.colours[seat], 2),
                    other=self.seat_name(other),
                ),
            )
        if state.agreed_end:
            how = _("the players ended the game by agreement")
        elif emptied:
            how = _("the last balls of both colours left in the same move")
        else:
            how = _("neither player can move")
        if scores[0] == scores[1]:
            return Result(
                True,
                (0, 1),
                scores,
                _n(
                    "a draw: {how} with {n} ball each on the board",
                    "a draw: {how} with {n} balls each on the board",
                    scores[0],
                    how=how,
                ),
            )
        winner = 0 if scores[0] < scores[1] else 1
        return Result(
            True,
            (winner,),
            scores,
            _(
                "{player} wins with fewer balls on the board, {mine} against {theirs}: {how}",
                player=self.seat_name(winner),
                mine=scores[winner],
                theirs=scores[1 - winner],
                how=how,
            ),
        )


@lru_cache(maxsize=65536)
def _a_colour_gone(balls: Balls) -> bool:
    """Whether one colour has no ball left on the board, remembered (asked for every line at every
    turn, and a computer player's search asks it thousands of times a move)."""
    return any(_count(balls, c) == 0 for c in "WB")


@lru_cache(maxsize=8192)
def _options_cached(engine: FlipopEngine, line: Line) -> tuple[tuple[_Option, ...], tuple[FlipopMove, ...]]:
    """A line's legal moves with their outcomes, and the moves in order, remembered: judging,
    replays and a computer player's search ask for the same lines again and again."""
    options = engine._compute_options(line)
    return options, tuple(sorted(option.move for option in options))


def partial_boards(engine: FlipopEngine, state: FlipopState, before: Snapshot, after: Snapshot, move):
    """A ball that reached its exit, still standing in the exit cell before it is taken off."""
    _, events = engine.apply(state, move)
    exits = engine.profile.get("exits") or {}
    for event in events:
        if event.kind == EXIT.kind and event.cell is not None:
            r, c = event.cell
            colour = next((k for k, cells in exits.items() if [r, c] in cells), None)
            if colour is not None and after.cells[r][c] == EMPTY:
                grid = [list(row) for row in after.cells]
                grid[r][c] = colour
                yield after.with_cells(grid)


# -- the profile's start and exits ---------------------------------------------------------


def start_position(text: str) -> Snapshot:
    """The profile's `start:` as a board (its text as a snapshot with a doors line)."""
    return read_snapshot(
        text,
        game="flipop",
        shape=(SIZE, SIZE),
        letters="WB",
        cells=CellFormat(),
        extra_lines=(DOORS_LINE,),
        where=_("profile start"),
    )


def check_profile(profile: Any) -> None:
    """A Flipop profile's start gives every door, no two wings share an edge, and each colour has
    exits on the board (the checked profile's keys as attributes)."""
    if profile.start is None:
        raise sentence(_("the Flipop profile needs a start position (a snapshot with a doors line)"), key="start")
    try:
        board = start_position(profile.start)
    except FormatError as exc:
        raise sentence(error_sentence(exc), key="start") from None
    doors = board.line("doors")
    if doors is None or UNKNOWN_DOOR in doors:
        raise sentence(_("the start position must give every door on its 'doors:' line (no '?')"), key="start")
    for first, second, edge in doors_model.shared_edges(doors):
        raise sentence(
            _(
                "the doors of posts {first} and {second} both have a wing on the edge between cells {one} and {other}",
                first=_cell_text(first),
                second=_cell_text(second),
                one=_cell_text(edge[0]),
                other=_cell_text(edge[1]),
            ),
            key="start",
        )
    exits = profile.exits
    for colour in "WB":
        cells = getattr(exits, colour, None) if exits is not None else None
        if not cells:
            raise sentence(_("every colour needs at least one exit cell"), key=f"exits.{colour}")
        for r, c in cells:
            if not (0 <= r < SIZE and 0 <= c < SIZE):
                raise sentence(_("exit cell [{r}, {c}] is off the 5x5 board", r=r, c=c), key=f"exits.{colour}")
