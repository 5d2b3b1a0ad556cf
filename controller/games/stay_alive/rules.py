"""Stay Alive (Pièges, Milton Bradley 1971): move slides to make the others' marbles fall.

Rules: `rules.md` §4. Which points are open for given slide positions is the profile's hole
pattern, read through `controller.games.stay_alive.holes` (the one place that knows it).

Naming for players: slides are called by their index as the snapshot writes them, from 0:
"orange slide 3" is the slide under row 3, "white slide 5" the one under column 5. Points are
"row,col" from 0, as in the `fell:r,c` events. Seats are named by their marble colour.

Decisions where the rule book is silent (documented in the report and the tests):
- A marble the referee says fell but is still seen (a stuck marble) counts as fallen; its place is
  kept as a *ghost*: the marble there may be seen or not from then on without blaming anyone.
- The first seat also makes the first slide move once every marble is placed.
- The two-player rule counts a seat's own last two slide moves even if they were made while more
  than two players remained; it applies whenever exactly two players remain.
- After the game is over, any change to the board or the slides is reported as illegal.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from controller.errors import ConfigError
from controller.games.base import Engine, GameSetup, Judgement, Result, SetupCheck
from controller.games.events import EventType, GameEvent
from controller.games.rulebook import Rule
from controller.games.spec import ABOVE_COLUMNS, BESIDE_ROWS, EMPTY, ExtraLine, LineShown, Snapshot
from controller.games.stay_alive.holes import POSITIONS, SIZE, bit, pattern_of, slides_line
from controller.language import N_, Text, _, _n, listed

Board = tuple[tuple[str, ...], ...]
Cell = tuple[int, int]
SLIDES = 2 * SIZE  # 0..6 orange slides (rows), 7..13 white slides (columns)
#: The positions one notch away from each position.
NOTCHES = {"A": ("B",), "B": ("A", "C"), "C": ("B",)}


def slide_name(slide: int) -> Text:
    """How players hear a slide named, from 1 (`docs/rules.md` §6): "orange slide 3" (the slide of row 3)
    or "white slide 5" (of column 5); `slide` is the index of the switch board's order (from 0)."""
    if slide < SIZE:
        return _("orange slide {number}", number=slide + 1)
    return _("white slide {number}", number=slide - SIZE + 1)


def point_name(cell: Cell) -> Text:
    """A point as players name it, row and column from 1: `4,5` (French writes coordinates `4 ; 5`, the comma
    being its decimal mark). The move notation (`place R at 3,4`, `orange 3 A->B`) and the events (`fell:3,4`)
    count from 0 (`notation.md`)."""
    return _("{row},{column}", row=str(cell[0] + 1), column=str(cell[1] + 1))


_PLACEMENT_TEXT = re.compile(r"place (\w) at (\d+),(\d+)")
_SLIDE_TEXT = re.compile(r"(orange|white) (\d+) ([ABC])->([ABC])")


def place_name(cell: Cell) -> Text:
    """Points as this game's events, reasons and sentences write them (`point 3,4`)."""
    return _("point {point}", point=point_name(cell))


#: The slide positions, read from the switch board: orange slides (one per row), white (one per column).
ORANGE = ExtraLine(
    "orange",
    slides_line("orange", along_rows=True),
    before_grid=True,
    required=True,
    default=lambda rows, cols: ("A",) * rows,
    set_back=lambda i, position: _("put orange slide {number} back to {position}", number=i + 1, position=position),
    correction="slide",
    from_switches=True,
    shown=LineShown(BESIDE_ROWS, N_("orange slide {number}"), colour="#ec7a24", notches=POSITIONS),
)
WHITE = ExtraLine(
    "white",
    slides_line("white", along_rows=False),
    before_grid=True,
    required=True,
    pad="  ",
    default=lambda rows, cols: ("A",) * cols,
    set_back=lambda i, position: _("put white slide {number} back to {position}", number=i + 1, position=position),
    correction="slide",
    from_switches=True,
    shown=LineShown(ABOVE_COLUMNS, N_("white slide {number}"), colour="#e4e4dc", notches=POSITIONS),
)
#: A marble fell through an open point; one that should have fallen is still seen.
FELL = EventType("fell", "cell", N_("the marble on {place} fell"))
EXPECTED_FALL_MISSING = EventType(
    "expected-fall-missing", "cell", N_("the marble on {place} should have fallen but is still seen")
)

# --- the rules a move or a starting board can break (`controller.games.rulebook`) -------------------
_PLACING = (
    "Les joueurs placent toutes leurs billes sur la grille, une à la fois et à tour de rôle, en jouant dans le sens "
    "des aiguilles d'une montre."
)
SETUP_EMPTY = Rule(
    "stay-alive.setup-empty",
    N_("the grid is empty before the marbles are placed"),
    N_("§4 Placement phase"),
    "Chaque joueur prend 5 billes de la même couleur et les place dans la case de rangement située à sa droite.",
)
SETUP_CLOSED = Rule(
    "stay-alive.setup-closed",
    N_("the slides are set so that every marble can be placed on a closed point"),
    N_("§4 Setup"),
    "Au début de chaque partie, placez au hasard chacune des 14 glissières dans l'une des trois positions, afin que "
    "le déroulement des parties soit toujours différent.",
)
PLACE_IN_TURN = Rule(
    "stay-alive.place-in-turn",
    N_("players place their marbles one at a time, in turn; a placed marble stays on its point"),
    N_("§4 Placement phase"),
    _PLACING,
)
SLIDES_STILL = Rule(
    "stay-alive.slides-still",
    N_("no slide moves until every marble is placed"),
    N_("§4 Placement phase"),
    "Quand toutes les billes sont placées, le premier joueur doit déplacer une des glissière de son choix",
)
CLOSED_POINT = Rule(
    "stay-alive.closed-point",
    N_("a marble is placed on a closed point: on an open one it falls through"),
    N_("§4 Placement phase"),
)
ONE_NOTCH = Rule(
    "stay-alive.one-notch",
    N_("a turn moves exactly one slide by one notch, never from A straight to C"),
    N_("§4 Movement phase"),
    "le premier joueur doit déplacer une des glissière de son choix - orange ou blanche - d'un seul cran, mais jamais "
    "de la position A à la position C ou vice et versa",
)
NOT_PREVIOUS_SLIDE = Rule(
    "stay-alive.not-previous-slide",
    N_("a player may not move the slide the previous player moved"),
    N_("§4 Movement phase"),
    "Lorsque son tour arrive, un joueur n'a pas le droit de déplacer la glissière manœuvrée par le joueur précédent.",
)
TWICE_ONLY = Rule(
    "stay-alive.twice-only",
    N_("with two players left, a slide may be moved twice in a row, not three times"),
    N_("§4 Movement phase"),
    "Lorsque la partie se joue à 2, ou qu'il ne reste que 2 joueurs en course, chaque joueur a le droit de déplacer "
    "la même glissière deux fois de suite seulement.",
)
ONLY_FALLING = Rule(
    "stay-alive.only-falling",
    N_("marbles leave the grid only by falling through the holes the slides open"),
    N_("§4 Movement phase"),
    "Le mouvement des glissières libère des trappes dans la grille centrale, provoquant la chute des billes et leur "
    "élimination du jeu.",
)
OWN_COLOUR = Rule(
    "stay-alive.own-colour",
    N_("each player plays the marbles of their own colour"),
    N_("§4 Equipment"),
    "Chaque joueur possède 5 billes d'une même couleur et essaie d'en garder au moins une sur la grille plus "
    "longtemps que ses adversaires.",
)
GAME_OVER = Rule(
    "stay-alive.game-over",
    N_("once the last player with marbles is known, the game is over"),
    N_("§4 Elimination and winner"),
    "Le dernier joueur ayant encore une ou plusieurs billes sur la grille a gagné la partie.",
)
RULES = (
    SETUP_EMPTY,
    SETUP_CLOSED,
    PLACE_IN_TURN,
    SLIDES_STILL,
    CLOSED_POINT,
    ONE_NOTCH,
    NOT_PREVIOUS_SLIDE,
    TWICE_ONLY,
    ONLY_FALLING,
    OWN_COLOUR,
    GAME_OVER,
)


def slides(snapshot: Snapshot) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The orange and white slide positions of a snapshot (every Stay Alive snapshot has both lines)."""
    return snapshot.line("orange") or (), snapshot.line("white") or ()


def _points_text(cells: Sequence[Cell]) -> str:
    return listed((point_name(c) for c in cells), conjunction=" ")


@dataclass(frozen=True)
class Placement:
    """Placing the mover's marble on point (row, col) during the placement phase."""

    row: int
    col: int


@dataclass(frozen=True)
class SlideMove:
    """Moving one slide by one notch, `before` -> `after`."""

    slide: int
    before: str
    after: str


Move = Placement | SlideMove


@dataclass(frozen=True)
class StayAliveState:
    orange: tuple[str, ...]
    white: tuple[str, ...]
    #: Marbles still in play (letters); a fallen marble is gone from here even if still seen.
    board: Board
    to_move: int | None
    #: True until every marble has been placed.
    placing: bool = True
    #: Marbles placed so far in the placement phase.
    placed: int = 0
    #: Places of marbles that fell by the rules but were still seen: (row, col, letter).
    ghosts: tuple[tuple[int, int, str], ...] = ()
    #: Eliminated seats, in the order they went out.
    out: tuple[int, ...] = ()
    #: The slides of the last two slide moves, latest last.
    recent: tuple[int, ...] = ()
    #: Per seat, the slides of that seat's last two slide moves, latest last.
    own_recent: tuple[tuple[int, ...], ...] = ()
    winners: tuple[int, ...] | None = None
    end_reason: str = ""


@dataclass
class _Comparison:
    """How a seen board differs from the marbles in play, given which of them should fall."""

    fell: list[Cell]
    stuck: list[Cell]
    kept_ghosts: list[tuple[int, int, str]]
    vanished: list[Cell]
    appeared: list[Cell]
    recoloured: list[Cell]

    @property
    def ok(self) -> bool:
        return not (self.vanished or self.appeared or self.recoloured)


class StayAliveEngine(Engine[StayAliveState, Move]):
    """Judges Stay Alive from snapshots of the grid and the fourteen slide positions."""

    piece_noun = "marble"

    state_type = StayAliveState
    place_name = staticmethod(place_name)

    def seat_colours_of(self, seat: int) -> tuple[str, ...]:
        return (self.seats[seat],) if 0 <= seat < len(self.seats) else ()

    def slide_name(self, slide: int) -> Text:
        """A slide switch as players hear it named ("orange slide 3"), for the live page's switch test."""
        return slide_name(slide)

    def axis_labels(self, rows: int, cols: int) -> tuple[list[str], list[str]]:
        return [str(r + 1) for r in range(rows)], [str(c + 1) for c in range(cols)]

    def move_words(self, move: str) -> str:
        """The notation's move (from 0) as players say it: `orange 3 A->B` -> `orange slide 4 A->B`,
        `place R at 3,4` -> `a red marble placed on point 4,5`."""
        placed = _PLACEMENT_TEXT.fullmatch(move)
        if placed is not None:
            colour, r, c = placed.groups()
            return _(
                "a {colour} marble placed on point {point}",
                colour=self.colour(colour, 1),
                point=point_name((int(r), int(c))),
            )
        slid = _SLIDE_TEXT.fullmatch(move)
        if slid is not None:
            layer, index, before, after = slid.groups()
            slide = int(index) + (SIZE if layer == "white" else 0)
            return _("{slide} {before}->{after}", slide=slide_name(slide), before=before, after=after)
        return move

    def __init__(self, setup: GameSetup) -> None:
        super().__init__(setup)
        if setup.variant != "standard":
            raise ConfigError(
                "variant", _("stay-alive has only the standard variant, got {variant}", variant=repr(setup.variant))
            )
        self.players = setup.players
        if not 2 <= self.players <= 4:
            raise ConfigError("players", _("Stay Alive is for 2 to 4 players, got {players}", players=self.players))
        letters = self.profile.letters
        if setup.seats is None:
            if len(letters) < self.players:
                raise ConfigError("seats", _("the profile has only {count} marble colours", count=len(letters)))
            seats = tuple(letters[: self.players])
        else:
            seats = setup.seats
        for i, colour in enumerate(seats):
            if not isinstance(colour, str) or len(colour) != 1:
                raise ConfigError(
                    f"seats[{i}]", _("expected one marble colour letter per seat, got {colour}", colour=repr(colour))
                )
            if seats.index(colour) != i:
                raise ConfigError("seats", _("the marble colour {colour} is given to two seats", colour=colour))
        self.seats: tuple[str, ...] = tuple(seats)
        self.seat_of = {colour: i for i, colour in enumerate(self.seats)}
        self.marbles = int(self.profile.get("marbles_per_player", 5))
        # At most 4 x 12 = 48 marbles (the profile caps marbles_per_player): they fit on 49 points;
        # check_setup makes sure enough points are closed for all of them.
        self.total = self.marbles * self.players
        self.holes = pattern_of(self.profile)
        self.rule = self.profile.settings.get("two_player_rule", "own_twice")

    # -- names -------------------------------------------------------------------------------
    def who(self, seat: int) -> Text:
        return self.seat_name(seat)

    def open_mask(self, orange: Sequence[str], white: Sequence[str]) -> int:
        return self.holes.open_mask(orange, white)

    # -- setup -------------------------------------------------------------------------------
    def check_setup(self, snapshot: Snapshot) -> SetupCheck:
        marbles = [(r, c) for r in range(SIZE) for c in range(SIZE) if snapshot.cells[r][c] != EMPTY]
        if marbles:
            return SetupCheck(
                False,
                _("the grid must be empty before the marbles are placed"),
                tuple(marbles),
                advice=_("take the marbles off the grid"),
                rule=SETUP_EMPTY,
            )
        opened = self.open_mask(*slides(snapshot))
        closed = SIZE * SIZE - opened.bit_count()
        if closed < self.total:
            cells = tuple((r, c) for r in range(SIZE) for c in range(SIZE) if opened & bit(r, c))
            return SetupCheck(
                False,
                _n(
                    "only {n} point is closed but {total} marbles must be placed",
                    "only {n} points are closed but {total} marbles must be placed",
                    closed,
                    total=self.total,
                ),
                cells,
                advice=_("move some slides so that fewer points are open"),
                rule=SETUP_CLOSED,
            )
        return SetupCheck(True)

    def start(self, snapshot: Snapshot) -> StayAliveState:
        orange, white = slides(snapshot)
        return StayAliveState(
            orange=orange,
            white=white,
            board=tuple(tuple(EMPTY for _ in range(SIZE)) for _ in range(SIZE)),
            to_move=self.setup.first,
            own_recent=((),) * self.players,
        )

    def adopt(self, state: StayAliveState, snapshot: Snapshot) -> StayAliveState:
        """Go on from a board a person declared right: slides and marbles as seen, the same seat to
        move; while marbles are still being placed, the marbles seen are the ones placed."""
        board = tuple(tuple(v if v in self.seats else EMPTY for v in row) for row in snapshot.cells)
        orange, white = slides(snapshot)
        new = replace(state, orange=orange, white=white, board=board, ghosts=())
        if state.placing:
            placed = sum(v != EMPTY for row in board for v in row)
            seat = self.setup.first if placed >= self.total else (self.setup.first + placed) % self.players
            new = replace(new, placed=placed, placing=placed < self.total, to_move=seat)
        return new

    # -- play --------------------------------------------------------------------------------
    def to_move(self, state: StayAliveState) -> int | None:
        return state.to_move

    def positions(self, state: StayAliveState) -> tuple[str, ...]:
        """All fourteen slide positions, orange slides first (the slide index order)."""
        return state.orange + state.white

    def banned(self, state: StayAliveState, seat: int) -> dict[int, Text]:
        """Slides `seat` may not move now, each with the reason a player is told."""
        return {slide: reason for slide, (reason, _rule) in self._bans(state, seat).items()}

    def _bans(self, state: StayAliveState, seat: int) -> dict[int, tuple[Text, Rule]]:
        """Slides `seat` may not move now, each with the reason a player is told and the rule."""
        reasons: dict[int, tuple[Text, Rule]] = {}
        for slide, rule in self._banned_slides(state, seat).items():
            if rule is NOT_PREVIOUS_SLIDE:
                reason = _("{slide} was moved by the previous player; move another slide", slide=slide_name(slide))
            elif self.rule == "lift_ban":
                reason = _(
                    "{slide} was moved on each of the last two turns; with two players left no slide may be moved "
                    "three times in a row",
                    slide=slide_name(slide),
                )
            else:
                reason = _(
                    "{player} moved {slide} on their last two turns; with two players left a player may move the "
                    "same slide only twice in a row",
                    player=self.who(seat),
                    slide=slide_name(slide),
                )
            reasons[slide] = (reason, rule)
        return reasons

    def _banned_slides(self, state: StayAliveState, seat: int) -> dict[int, Rule]:
        """Slides `seat` may not move now, each with the rule that bans it (no sentence built: the
        legal moves are listed often, by the computer player's search above all)."""
        two_left = self.players - len(state.out) == 2
        if two_left and self.rule == "lift_ban":
            if len(state.recent) == 2 and state.recent[0] == state.recent[1]:
                return {state.recent[1]: TWICE_ONLY}
            return {}
        rules: dict[int, Rule] = {}
        if state.recent:
            rules[state.recent[-1]] = NOT_PREVIOUS_SLIDE
        own = state.own_recent[seat]
        if two_left and len(own) == 2 and own[0] == own[1]:
            rules.setdefault(own[1], TWICE_ONLY)
        return rules

    def legal_moves(self, state: StayAliveState) -> Sequence[Move]:
        if state.to_move is None:
            return ()
        if state.placing:
            opened = self.open_mask(state.orange, state.white)
            return tuple(
                Placement(r, c)
                for r in range(SIZE)
                for c in range(SIZE)
                if state.board[r][c] == EMPTY and not opened & bit(r, c)
            )
        banned = self._banned_slides(state, state.to_move)
        positions = self.positions(state)
        return tuple(
            SlideMove(slide, positions[slide], after)
            for slide in range(SLIDES)
            if slide not in banned
            for after in NOTCHES[positions[slide]]
        )

    def describe(self, state: StayAliveState, move: Move) -> str:
        if isinstance(move, Placement):
            return f"place {self.seats[state.to_move]} at {move.row},{move.col}"  # type: ignore[index]
        layer, index = ("orange", move.slide) if move.slide < SIZE else ("white", move.slide - SIZE)
        return f"{layer} {index} {move.before}->{move.after}"

    def apply(self, state: StayAliveState, move: Move) -> tuple[StayAliveState, tuple[GameEvent, ...]]:
        if isinstance(move, Placement):
            return self._place(state, move), ()
        falls = self._falls(state, move)
        fell = [(r, c) for r in range(SIZE) for c in range(SIZE) if falls & bit(r, c)]
        # Stuck marbles from earlier moves are assumed still seen: they stay ghosts.
        return self._after_slide(state, move, fell, [], list(state.ghosts))

    def _place(self, state: StayAliveState, move: Placement) -> StayAliveState:
        board = [list(row) for row in state.board]
        board[move.row][move.col] = self.seats[state.to_move]  # type: ignore[index]
        placed = state.placed + 1
        if placed == self.total:
            return replace(state, board=_freeze(board), placed=placed, placing=False, to_move=self.setup.first)
        return replace(state, board=_freeze(board), placed=placed, to_move=(self.setup.first + placed) % self.players)

    def _moved_positions(self, state: StayAliveState, move: SlideMove) -> tuple[tuple[str, ...], tuple[str, ...]]:
        orange, white = list(state.orange), list(state.white)
        if move.slide < SIZE:
            orange[move.slide] = move.after
        else:
            white[move.slide - SIZE] = move.after
        return tuple(orange), tuple(white)

    def _falls(self, state: StayAliveState, move: SlideMove) -> int:
        """Mask of the marbles in play that fall when `move` is made."""
        orange, white = self._moved_positions(state, move)
        return self.open_mask(orange, white) & _marble_mask(state.board)

    def _after_slide(
        self,
        state: StayAliveState,
        move: SlideMove,
        fell: list[Cell],
        stuck: list[Cell],
        kept_ghosts: list[tuple[int, int, str]],
    ) -> tuple[StayAliveState, tuple[GameEvent, ...]]:
        """The state after a slide move whose falling marbles were seen gone (`fell`) or not (`stuck`)."""
        seat: int = state.to_move  # type: ignore[assignment]
        orange, white = self._moved_positions(state, move)
        board = [list(row) for row in state.board]
        ghosts = list(kept_ghosts)
        for r, c in stuck:
            ghosts.append((r, c, board[r][c]))
        for r, c in (*fell, *stuck):
            board[r][c] = EMPTY
        events = [FELL(cell) for cell in fell] + [EXPECTED_FALL_MISSING(cell) for cell in stuck]
        counts = _counts(board)
        alive_before = [s for s in range(self.players) if s not in state.out]
        gone = [s for s in alive_before if counts.get(self.seats[s], 0) == 0]
        alive = [s for s in alive_before if s not in gone]
        winners: tuple[int, ...] | None = None
        reason: str = ""
        if not alive:
            winners = (seat,)
            gone = [s for s in gone if s != seat]
            reason = _(
                "{player} wins: their move took the last marbles of every remaining player", player=self.who(seat)
            )
        elif len(alive) == 1:
            left = counts.get(self.seats[alive[0]], 0)
            reason = _n(
                "{player} wins: the last player with marbles on the grid, {n} marble left",
                "{player} wins: the last player with marbles on the grid, {n} marbles left",
                left,
                player=self.who(alive[0]),
            )
            winners = (alive[0],)
        events += [GameEvent.eliminated(s) for s in gone]
        own = list(state.own_recent)
        own[seat] = (*own[seat], move.slide)[-2:]
        next_seat = None if winners else self._next_alive(seat, alive)
        new = replace(
            state,
            orange=orange,
            white=white,
            board=_freeze(board),
            to_move=next_seat,
            ghosts=tuple(sorted(ghosts)),
            out=state.out + tuple(gone),
            recent=(*state.recent, move.slide)[-2:],
            own_recent=tuple(own),
            winners=winners,
            end_reason=reason,
        )
        return new, tuple(events)

    def _next_alive(self, seat: int, alive: list[int]) -> int:
        for step in range(1, self.players + 1):
            candidate = (seat + step) % self.players
            if candidate in alive:
                return candidate
        raise AssertionError("no seat left to move")  # unreachable: callers pass a non-empty list

    def expected(self, state: StayAliveState) -> Snapshot:
        board = [list(row) for row in state.board]
        for r, c, letter in state.ghosts:
            board[r][c] = letter
        return Snapshot(self.setup.game, _freeze(board), {"orange": state.orange, "white": state.white})

    # -- judging -----------------------------------------------------------------------------
    def judge(self, state: StayAliveState, snapshot: Snapshot) -> Judgement[StayAliveState]:
        seat = state.to_move
        positions = self.positions(state)
        orange, white = slides(snapshot)
        seen = orange + white
        changed = [(s, positions[s], seen[s]) for s in range(SLIDES) if positions[s] != seen[s]]
        if state.winners is not None:
            comparison = self._compare(state, snapshot, 0)
            if not changed and comparison.ok:
                return Judgement("unchanged")
            return Judgement("illegal", reason=_("the game is over; start a new game to play again"), rule=GAME_OVER)
        if state.placing:
            return self._judge_placement(state, snapshot, changed)
        if not changed:
            comparison = self._compare(state, snapshot, 0)
            if comparison.ok:
                return Judgement("unchanged", seat)
            return self._marbles_illegal(seat, comparison, slide_moved=False)
        if len(changed) > 1:
            names = listed((slide_name(s) for s, _b, _a in changed), conjunction=None)
            return Judgement(
                "illegal",
                seat,
                reason=_(
                    "{n} slides moved ({slides}); move exactly one slide by one notch", n=len(changed), slides=names
                ),
                rule=ONE_NOTCH,
            )
        slide, before, after = changed[0]
        if after not in NOTCHES[before]:
            return Judgement(
                "illegal",
                seat,
                reason=_(
                    "{slide} moved two notches ({before} to {after}); a slide moves one notch at a time, never "
                    "straight from A to C",
                    slide=slide_name(slide),
                    before=before,
                    after=after,
                ),
                rule=ONE_NOTCH,
            )
        banned = self._bans(state, seat)  # type: ignore[arg-type]
        if slide in banned:
            reason, rule = banned[slide]
            return Judgement("illegal", seat, reason=reason, rule=rule)
        move = SlideMove(slide, before, after)
        comparison = self._compare(state, snapshot, self._falls(state, move))
        if not comparison.ok:
            return self._marbles_illegal(seat, comparison, slide_moved=True)
        new, events = self._after_slide(state, move, comparison.fell, comparison.stuck, comparison.kept_ghosts)
        settling = tuple(sorted(comparison.stuck))  # may still be dropping: the rig's drop takes a moment
        return Judgement("legal", seat, new, self.describe(state, move), events, settling=settling)

    def _compare(self, state: StayAliveState, snapshot: Snapshot, falls: int) -> _Comparison:
        out = _Comparison([], [], [], [], [], [])
        ghosts = {(r, c): letter for r, c, letter in state.ghosts}
        ghost_rows = {r for r, _ in ghosts}
        for r in range(SIZE):
            in_play, seen = state.board[r], snapshot.cells[r]
            if in_play == seen and not (falls >> (r * SIZE)) & 0x7F and r not in ghost_rows:
                continue
            for c in range(SIZE):
                marble, shown = in_play[c], seen[c]
                if marble != EMPTY:
                    if falls & bit(r, c):
                        if shown == marble:
                            out.stuck.append((r, c))
                        elif shown == EMPTY:
                            out.fell.append((r, c))
                        else:
                            out.recoloured.append((r, c))
                    elif shown == EMPTY:
                        out.vanished.append((r, c))
                    elif shown != marble:
                        out.recoloured.append((r, c))
                    continue
                ghost = ghosts.get((r, c))
                if shown == EMPTY:
                    continue
                if shown == ghost:
                    out.kept_ghosts.append((r, c, ghost))
                elif ghost is not None:
                    out.recoloured.append((r, c))
                else:
                    out.appeared.append((r, c))
        return out

    def _marbles_illegal(self, seat: int | None, found: _Comparison, slide_moved: bool) -> Judgement[StayAliveState]:
        cells = tuple(sorted(found.vanished + found.appeared + found.recoloured))
        if found.vanished and found.appeared:
            reason = _(
                "a marble was moved by hand from {start} to {end}; marbles only leave their point by falling",
                start=_points_text(found.vanished),
                end=_points_text(found.appeared),
            )
        elif found.vanished:
            points = _points_text(found.vanished)
            many = len(found.vanished)
            if slide_moved:
                reason = _n(
                    "the marble at {points} disappeared but its point stayed closed; put it back",
                    "the marbles at {points} disappeared but its point stayed closed for them; put them back",
                    many,
                    points=points,
                )
            else:
                reason = _n(
                    "the marble at {points} disappeared but no slide moved; put it back",
                    "the marbles at {points} disappeared but no slide moved for them; put them back",
                    many,
                    points=points,
                )
        elif found.appeared:
            reason = _(
                "a marble appeared at {points}; every marble is already placed, take it off",
                points=_points_text(found.appeared),
            )
        else:
            return Judgement(
                "illegal",
                seat,
                reason=_("the marble at {points} changed colour", points=_points_text(found.recoloured)),
                cells=cells,
                doubtful=True,
            )
        return Judgement("illegal", seat, reason=reason, cells=cells, rule=ONLY_FALLING)

    def _judge_placement(
        self, state: StayAliveState, snapshot: Snapshot, changed: list[tuple[int, str, str]]
    ) -> Judgement[StayAliveState]:
        seat: int = state.to_move  # type: ignore[assignment]
        if changed:
            names = listed((slide_name(s) for s, _b, _a in changed), conjunction=None)
            return Judgement(
                "illegal",
                seat,
                reason=_n(
                    "slides must stay put until every marble is placed ({slides} moved); put it back",
                    "slides must stay put until every marble is placed ({slides} moved); put them back",
                    len(changed),
                    slides=names,
                ),
                rule=SLIDES_STILL,
            )
        added: list[Cell] = []
        removed: list[Cell] = []
        recoloured: list[Cell] = []
        for r, c in snapshot.changed_cells(self.expected(state)):
            before, now = state.board[r][c], snapshot.cells[r][c]
            if before == EMPTY:
                added.append((r, c))
            elif now == EMPTY:
                removed.append((r, c))
            else:
                recoloured.append((r, c))
        if not (added or removed or recoloured):
            return Judgement("unchanged", seat)
        cells = tuple(sorted(added + removed + recoloured))
        if removed and added:
            return Judgement(
                "illegal",
                seat,
                reason=_(
                    "the marble at {start} was moved to {end}; a placed marble stays where it is",
                    start=_points_text(removed),
                    end=_points_text(added),
                ),
                cells=cells,
                rule=PLACE_IN_TURN,
            )
        if removed:
            return Judgement(
                "illegal",
                seat,
                reason=_("the marble at {points} was taken off the grid; put it back", points=_points_text(removed)),
                cells=cells,
                rule=PLACE_IN_TURN,
            )
        if recoloured and not added:
            return Judgement(
                "illegal",
                seat,
                reason=_("the marble at {points} changed colour", points=_points_text(recoloured)),
                cells=cells,
                doubtful=True,
            )
        if len(added) > 1 or recoloured:
            return Judgement(
                "illegal",
                seat,
                reason=_(
                    "{n} marbles were placed at once ({points}); place one marble per turn",
                    n=len(added),
                    points=_points_text(added),
                ),
                cells=cells,
                rule=PLACE_IN_TURN,
            )
        r, c = added[0]
        colour = snapshot.cells[r][c]
        if colour != self.seats[seat]:
            if colour in self.seat_of:
                reason = _(
                    "it is {player}'s turn to place a marble, not {other}'s",
                    player=self.who(seat),
                    other=self.who(self.seat_of[colour]),
                )
                rule = PLACE_IN_TURN
            else:
                reason = _(
                    "no seat plays the {colour} marbles in this game (letter {letter})",
                    colour=self.colour(colour, 2),
                    letter=colour,
                )
                rule = OWN_COLOUR
            return Judgement("illegal", seat, reason=reason, cells=cells, rule=rule)
        if self.open_mask(state.orange, state.white) & bit(r, c):
            return Judgement(
                "illegal",
                seat,
                reason=_(
                    "point {point} is open, so a marble put there falls through; place it on a closed point",
                    point=point_name((r, c)),
                ),
                cells=cells,
                rule=CLOSED_POINT,
            )
        move = Placement(r, c)
        return Judgement("legal", seat, self._place(state, move), self.describe(state, move))

    # -- end ---------------------------------------------------------------------------------
    def is_over(self, state: StayAliveState) -> bool:
        return state.winners is not None

    def marbles_left(self, state: StayAliveState) -> tuple[int, ...]:
        """Per seat, marbles still in play: on the grid, plus those still to place."""
        counts = _counts(state.board)
        out = []
        for seat, colour in enumerate(self.seats):
            left = counts.get(colour, 0)
            if state.placing:
                offset = (seat - self.setup.first) % self.players
                placed_by_seat = max(0, (state.placed - offset + self.players - 1) // self.players)
                left += self.marbles - placed_by_seat
            out.append(left)
        return tuple(out)

    def result(self, state: StayAliveState) -> Result:
        scores = self.marbles_left(state)
        if state.winners is not None:
            return Result(True, state.winners, scores, state.end_reason)
        if state.placing:
            return Result(False, None, scores, _("the marbles are still being placed"))
        return Result(False, None, scores, _("the game is still going on"))


def _freeze(board: list[list[str]]) -> Board:
    return tuple(tuple(row) for row in board)


def _marble_mask(board: Board) -> int:
    mask = 0
    for r, row in enumerate(board):
        for c, cell in enumerate(row):
            if cell != EMPTY:
                mask |= bit(r, c)
    return mask


def _counts(board: Sequence[Sequence[str]]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for row in board:
        for cell in row:
            if cell != EMPTY:
                counts[cell] = counts.get(cell, 0) + 1
    return counts


__all__ = ["POSITIONS", "Placement", "SlideMove", "StayAliveEngine", "StayAliveState", "slide_name"]


def with_switches(snapshot: Snapshot, positions: tuple[str, ...]) -> Snapshot:
    """The camera's marbles with the slide positions the switch board reports (orange rows first)."""
    return Snapshot(snapshot.game, snapshot.cells, {"orange": positions[:SIZE], "white": positions[SIZE:]})


def setup_board(engine: StayAliveEngine, rng) -> Snapshot:
    """Players push every slide to a random position until no point is open under a start."""
    empty = tuple(tuple(EMPTY for _ in range(SIZE)) for _ in range(SIZE))
    for _attempt in range(500):
        orange = tuple(rng.choice("ABC") for _slide in range(SIZE))
        white = tuple(rng.choice("ABC") for _slide in range(SIZE))
        board = Snapshot(engine.setup.game, empty, {"orange": orange, "white": white})
        if engine.check_setup(board).ok:
            return board
    raise RuntimeError("no valid Stay Alive setup found")


def random_lines(profile, rng) -> tuple[dict[str, tuple[str, ...]], frozenset[Cell]]:
    """Random slide positions, and the points they leave open (no marble rests there; none
    known without the profile's holes)."""
    orange = tuple(str(v) for v in rng.choice(list(POSITIONS), profile.rows))
    white = tuple(str(v) for v in rng.choice(list(POSITIONS), profile.cols))
    holes = profile.get("holes") if profile is not None else None
    open_ = pattern_of(holes).open_points(orange, white) if holes else frozenset()
    return {"orange": orange, "white": white}, open_


#: The rig's longest marble drop: a marble falls through the hole its slide opened within 8 frames
#: at 30 frames a second of the slide's move (the switches report the move at once). The referee
#: keeps looking that long for marbles to fall before it calls a slide move illegal.
MARBLE_DROP_SECONDS = 8 / 30
