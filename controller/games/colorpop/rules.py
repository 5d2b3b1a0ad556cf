"""Colorpop (Gigamic): remove complete groups of one colour; the board falls like SameGame.

Rules: `rules.md` §1. The board is the camera's view of the inclined board: column c is slide
c + 1 from the left, row 0 is the top. Tokens rest at the bottom (high rows); an emptied slide is
moved to the far right.

Places are named for players as a column letter and a row number counted from the top
(``F3`` is column 6, row 3), and slides by their number from the left, starting at 1.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import cache, lru_cache

from controller.errors import ConfigError
from controller.games.base import Engine, GameSetup, Judgement, Result, SetupCheck, no_such_seat
from controller.games.events import EventType, GameEvent
from controller.games.spec import EMPTY, Snapshot
from controller.grid import connected_groups, groups_by_value, neighbours

JOKER = "J"
Board = tuple[tuple[str, ...], ...]
Cell = tuple[int, int]
MAX_SETUP_GROUP = 5


#: The last token of a colour left the board.
CLEARED = EventType("cleared", "colour", "the last {colour} token is gone")


def place_name(cell: Cell) -> str:
    r, c = cell
    return f"{chr(ord('A') + c)}{r + 1}"


def settle(board: Sequence[Sequence[str]]) -> Board:
    """The board after gravity and slide compaction (SameGame's rule).

    Tokens of each column fall to the bottom keeping their order; empty columns go to the right.
    """
    rows = len(board)
    cols = len(board[0])
    columns = []
    for c in range(cols):
        tokens = [board[r][c] for r in range(rows) if board[r][c] != EMPTY]
        if tokens:
            columns.append([EMPTY] * (rows - len(tokens)) + tokens)
    while len(columns) < cols:
        columns.append([EMPTY] * rows)
    return tuple(tuple(columns[c][r] for c in range(cols)) for r in range(rows))


def remove_cells(board: Board, cells: frozenset[Cell]) -> Board:
    grid = [list(row) for row in board]
    for r, c in cells:
        grid[r][c] = EMPTY
    return settle(grid)


def _column(board: Board, c: int) -> list[str]:
    """Tokens of column c, bottom first."""
    return [board[r][c] for r in range(len(board) - 1, -1, -1) if board[r][c] != EMPTY]


@dataclass(frozen=True)
class Move:
    """Removing `cells`, a group of real colour `colour` (None for a group of jokers only)."""

    colour: str | None
    cells: frozenset[Cell]
    counts: tuple[tuple[str, int], ...]


@dataclass(frozen=True)
class ColorpopState:
    board: Board
    to_move: int
    moves_made: int = 0
    #: Per seat, tokens removed by that seat: (letter, count) pairs in the profile's letter order.
    removed: tuple[tuple[tuple[str, int], ...], ...] = ()
    #: Per seat, the secret colour(s), or None while unknown.
    secrets: tuple[tuple[str, ...] | None, ...] = ()
    #: (colour, number of moves made when it was cleared, the removal tallies at that moment).
    cleared: tuple[tuple[str, int, tuple[tuple[tuple[str, int], ...], ...]], ...] = ()
    #: Set when play has stopped: "no-groups" or "instant-win".
    ended: str | None = None


class ColorpopEngine(Engine[ColorpopState, Move]):
    state_type = ColorpopState
    place_name = staticmethod(place_name)

    def __init__(self, setup: GameSetup) -> None:
        super().__init__(setup)
        self.letters = self.profile.letters
        self.colours = tuple(ch for ch in self.letters if ch != JOKER)
        self.joker_only = bool(self.profile.settings.get("joker_only_groups", False))
        tokens = self.profile.get("tokens") or {}
        self.token_counts = {ch: int(tokens.get(ch, 0)) for ch in self.letters}
        self.variant = setup.variant
        self.players = setup.players
        self._check_players()
        self._legal_cache = lru_cache(maxsize=256)(self._compute_legal_moves)

    # -- players and secrets -------------------------------------------------------------
    def _check_players(self) -> None:
        allowed = {"standard": (2, 5), "solo": (1, 1), "two-colours": (2, 2), "teams": (4, 4)}
        lo, hi = allowed[self.variant]
        if not lo <= self.players <= hi:
            span = str(lo) if lo == hi else f"{lo} to {hi}"
            raise ConfigError("players", f"the {self.variant} variant is for {span} players, got {self.players}")
        need = 2 if self.variant == "two-colours" else 1
        secrets = self.setup.secrets
        if secrets is not None:
            for i, s in enumerate(secrets):
                if s is not None and self.variant != "solo" and len(s) != need:
                    raise ConfigError(
                        f"secrets[{i}]", f"each player of the {self.variant} variant has {need} secret colour(s)"
                    )
                for ch in s or ():
                    if ch == JOKER:
                        raise ConfigError(f"secrets[{i}]", "a secret colour cannot be the joker")
            known = [ch for s in secrets if s for ch in s]
            if self.variant != "solo" and len(known) != len(set(known)):
                raise ConfigError("secrets", "two players cannot have the same secret colour")
        if self.variant == "solo" and not self.targets():
            raise ConfigError("targets", "the solo variant needs its target colour(s): targets: [G] for example")

    def targets(self) -> tuple[str, ...]:
        if self.setup.targets:
            return self.setup.targets
        if self.setup.secrets and self.setup.secrets[0]:
            return self.setup.secrets[0]
        return ()

    def _teams(self) -> list[tuple[int, ...]]:
        """The scoring units: a team of seats in the team variant, else each seat alone."""
        if self.variant == "teams":
            return [(0, 2), (1, 3)]
        return [(s,) for s in range(self.players)]

    # -- setup ---------------------------------------------------------------------------
    def check_setup(self, snapshot: Snapshot) -> SetupCheck:
        board = snapshot.cells
        empty = [(r, c) for r, row in enumerate(board) for c, v in enumerate(row) if v == EMPTY]
        if empty:
            return SetupCheck(False, f"the board must be full; {len(empty)} places are empty", tuple(empty))
        counts = Counter(v for row in board for v in row)
        wrong = [
            f"{counts.get(ch, 0)} {self.profile.classes[ch]['name']} instead of {n}"
            for ch, n in self.token_counts.items()
            if counts.get(ch, 0) != n
        ]
        if wrong and self.token_counts and any(self.token_counts.values()):
            return SetupCheck(False, "the tokens are not a complete set: " + ", ".join(wrong))
        big = self._big_groups(board)
        if not big:
            return SetupCheck(True)
        cells = tuple(sorted(set().union(*big)))
        names = ", ".join(
            f"{len(g)} {self.profile.classes[board[min(g)[0]][min(g)[1]]]['name']} at {place_name(min(g))}" for g in big
        )
        flips = self._fewest_reversals(board)
        if flips is None:
            advice = "no set of slides turned end for end makes this board valid: refill the slides"
        else:
            numbers = [str(c + 1) for c in flips]
            listed = numbers[0] if len(numbers) == 1 else ", ".join(numbers[:-1]) + " and " + numbers[-1]
            advice = f"turn slide{'s' if len(numbers) > 1 else ''} {listed}"  # end for end
        return SetupCheck(
            False,
            f"groups of more than {MAX_SETUP_GROUP} tokens of one colour: {names}",
            cells,
            advice,
        )

    def _big_groups(self, board: Board) -> list[set[Cell]]:
        groups = groups_by_value(board, lambda v: v if v not in (EMPTY, JOKER) else None)
        return [g for _, g in groups if len(g) > MAX_SETUP_GROUP]

    def _fewest_reversals(self, board: Board) -> tuple[int, ...] | None:
        cols = len(board[0])
        for k in range(1, cols + 1):
            for flips in itertools.combinations(range(cols), k):
                flipped = [list(row) for row in board]
                rows = len(board)
                for c in flips:
                    for r in range(rows):
                        flipped[r][c] = board[rows - 1 - r][c]
                if not self._big_groups(tuple(tuple(r) for r in flipped)):
                    return flips
        return None

    def start(self, snapshot: Snapshot) -> ColorpopState:
        zero = tuple((ch, 0) for ch in self.letters)
        secrets = self.setup.secrets or tuple(None for _ in range(self.players))
        if self.variant == "solo":
            secrets = (self.targets(),)
        return ColorpopState(
            board=settle(snapshot.cells),
            to_move=self.setup.first,
            removed=tuple(zero for _ in range(self.players)),
            secrets=secrets,
        )

    # -- moves ---------------------------------------------------------------------------
    def to_move(self, state: ColorpopState) -> int | None:
        return None if state.ended else state.to_move

    def legal_moves(self, state: ColorpopState) -> Sequence[Move]:
        if state.ended:
            return ()
        return self._legal_cache(state.board)

    def _compute_legal_moves(self, board: Board) -> tuple[Move, ...]:
        rows, cols = len(board), len(board[0])
        jokers = [(r, c) for r in range(rows) for c in range(cols) if board[r][c] == JOKER]
        moves: list[Move] = []
        all_groups = groups_by_value(board, lambda v: None if v in (EMPTY, JOKER) else v)
        for colour in self.colours:
            comps = [g for k, g in all_groups if k == colour]
            if not comps:
                continue
            comp_of = {cell: i for i, g in enumerate(comps) for cell in g}
            # X-components each joker touches: including that joker forces them into the move.
            joker_touch = {j: {comp_of[nb] for nb in neighbours(j, rows, cols) if nb in comp_of} for j in jokers}
            for g in comps:
                if len(g) >= 2:
                    moves.append(self._move(board, colour, frozenset(g)))
            reach = self._joker_reach(jokers, joker_touch, rows, cols)
            for k in range(1, len(reach) + 1):
                for subset in itertools.combinations(reach, k):
                    forced = set().union(*(joker_touch[j] for j in subset))
                    if not forced:
                        continue
                    cells = set(subset).union(*(comps[i] for i in forced))
                    if len(connected_groups(cells)) == 1:
                        moves.append(self._move(board, colour, frozenset(cells)))
        if self.joker_only and len(jokers) >= 2:
            for k in range(2, len(jokers) + 1):
                for subset in itertools.combinations(jokers, k):
                    if len(connected_groups(subset)) == 1:
                        moves.append(self._move(board, None, frozenset(subset)))
        return tuple(moves)

    def _any_group(self, board: Board) -> bool:
        """Whether some group remains: two touching tokens of one colour, or a joker by a token."""
        rows, cols = len(board), len(board[0])
        for r in range(rows):
            for c in range(cols):
                a = board[r][c]
                if a == EMPTY:
                    continue
                for b in (board[r + 1][c] if r + 1 < rows else EMPTY, board[r][c + 1] if c + 1 < cols else EMPTY):
                    if b == EMPTY:
                        continue
                    if a == b and (a != JOKER or self.joker_only):
                        return True
                    if (a == JOKER) != (b == JOKER):
                        return True
        return False

    @staticmethod
    def _joker_reach(jokers: list[Cell], joker_touch: dict[Cell, set[int]], rows: int, cols: int) -> list[Cell]:
        """Jokers that can belong to a group of this colour: those linked to it through jokers."""
        joker_set = set(jokers)
        reach = {j for j in jokers if joker_touch[j]}
        todo = list(reach)
        while todo:
            j = todo.pop()
            for nb in neighbours(j, rows, cols):
                if nb in joker_set and nb not in reach:
                    reach.add(nb)
                    todo.append(nb)
        return sorted(reach)

    def _move(self, board: Board, colour: str | None, cells: frozenset[Cell]) -> Move:
        counts = Counter(board[r][c] for r, c in cells)
        return Move(colour, cells, tuple(sorted(counts.items())))

    def describe(self, state: ColorpopState, move: Move) -> str:
        """`remove B x5 (2 jokers) at C4`; where another legal move would read the same (the same
        group with other optional jokers), the jokers' places are named too, as SAN names a file."""
        text = self._describe(move)
        if move.colour and dict(move.counts).get(JOKER, 0):
            rivals = [m for m in self.legal_moves(state) if m.cells != move.cells and self._describe(m) == text]
            if rivals:
                jokers = sorted(c for c in move.cells if state.board[c[0]][c[1]] == JOKER)
                where = " and ".join(place_name(c) for c in jokers)
                text = text.replace(" joker)", f" joker at {where})").replace(" jokers)", f" jokers at {where})")
        return text

    def _describe(self, move: Move) -> str:
        jokers = dict(move.counts).get(JOKER, 0)
        extra = f" ({jokers} joker{'s' if jokers > 1 else ''})" if jokers and move.colour else ""
        colour = move.colour or JOKER
        return f"remove {colour} x{len(move.cells)}{extra} at {place_name(min(move.cells))}"

    def apply(self, state: ColorpopState, move: Move) -> tuple[ColorpopState, tuple[GameEvent, ...]]:
        board = remove_cells(state.board, move.cells)
        seat = state.to_move
        gained = dict(move.counts)
        removed = list(state.removed)
        removed[seat] = tuple((ch, n + gained.get(ch, 0)) for ch, n in removed[seat])
        before = Counter(v for row in state.board for v in row)
        after = Counter(v for row in board for v in row)
        newly = [ch for ch in self.colours if before[ch] > 0 and after[ch] == 0]
        moves_made = state.moves_made + 1
        cleared = state.cleared + tuple((ch, moves_made, tuple(removed)) for ch in newly)
        events = tuple(CLEARED(ch) for ch in newly)
        new = replace(
            state,
            board=board,
            to_move=(seat + 1) % self.players,
            moves_made=moves_made,
            removed=tuple(removed),
            cleared=cleared,
        )
        if self._instant_winners(new) is not None or self._solo_success(new):
            new = replace(new, ended="instant-win")
        elif not self._any_group(board):
            new = replace(new, ended="no-groups")
        return new, events

    def adopt(self, state: ColorpopState, snapshot: Snapshot) -> ColorpopState:
        """Go on from a board a person declared right: the tallies stay; a colour no longer on the
        board counts as cleared now; play ends if no group is left."""
        board = settle(snapshot.cells)
        on_board = {v for row in board for v in row}
        known = {ch for ch, _, _ in state.cleared}
        newly = [ch for ch in self.colours if ch not in on_board and ch not in known]
        new = replace(
            state,
            board=board,
            cleared=state.cleared + tuple((ch, state.moves_made, state.removed) for ch in newly),
            ended=None,
        )
        if self._instant_winners(new) is not None or self._solo_success(new):
            return replace(new, ended="instant-win")
        if not self._any_group(board):
            return replace(new, ended="no-groups")
        return new

    # -- judging -------------------------------------------------------------------------
    def expected(self, state: ColorpopState) -> Snapshot:
        return Snapshot(self.setup.game, state.board)

    def judge(self, state: ColorpopState, snapshot: Snapshot) -> Judgement[ColorpopState]:
        seat = self.to_move(state)
        observed = snapshot.cells
        if observed == state.board:
            return Judgement("unchanged", seat)
        settled = settle(observed)
        before = Counter(v for row in state.board for v in row if v != EMPTY)
        after = Counter(v for row in settled for v in row if v != EMPTY)
        if any(after[ch] > before[ch] for ch in after):
            return self._appeared(state, observed, before, after, seat)
        if state.ended:
            return Judgement(
                "illegal",
                seat,
                reason="the game is over: tokens must not be removed any more",
                cells=tuple(Snapshot(self.setup.game, state.board).changed_cells(snapshot)),
            )
        removed = before - after
        removed_counts = tuple(sorted(removed.items()))
        moves = self.legal_moves(state)
        for move in moves:
            if move.counts == removed_counts and remove_cells(state.board, move.cells) == settled:
                if settled != observed:
                    # Right tokens gone, but the board has not finished falling or the empty
                    # slide is not yet at the far right: the move is under way.
                    return Judgement("pending", seat)
                new, events = self.apply(state, move)
                return Judgement("legal", seat, new, self.describe(state, move), events)
        for move in moves:
            counts = dict(move.counts)
            if all(counts.get(ch, 0) >= n for ch, n in removed.items()) and _explains(state.board, settled, move.cells):
                return Judgement("pending", seat)
        return self._explain_illegal(state, settled, observed, removed, seat)

    def _appeared(
        self, state: ColorpopState, observed: Board, before: Counter, after: Counter, seat: int | None
    ) -> Judgement[ColorpopState]:
        changed = tuple(Snapshot(self.setup.game, state.board).changed_cells(Snapshot(self.setup.game, observed)))
        more = [ch for ch in after if after[ch] > before[ch]]
        names = " and ".join(self.profile.classes[ch]["name"] for ch in more)
        if sum(after.values()) <= sum(before.values()):
            # Nothing a player can do makes a token change colour: blame the reading.
            return Judgement(
                "illegal",
                seat,
                reason=f"the reading is doubtful: more {names} tokens are seen than were on the board; "
                "check the places shown for glare or a token out of line",
                cells=changed,
                doubtful=True,
            )
        return Judgement(
            "illegal",
            seat,
            reason=f"tokens were put on the board ({names}); tokens are only ever removed",
            cells=changed,
        )

    def _explain_illegal(
        self, state: ColorpopState, settled: Board, observed: Board, removed: Counter, seat: int | None
    ) -> Judgement[ColorpopState]:
        board = state.board
        gone = _removed_cells(board, settled)
        cells = (
            tuple(sorted(gone))
            if gone
            else tuple(Snapshot(self.setup.game, board).changed_cells(Snapshot(self.setup.game, observed)))
        )
        real = [ch for ch in removed if ch != JOKER]
        total = sum(removed.values())
        if gone is None:
            reason = "tokens changed places: the board cannot come from removing tokens"
            return Judgement("illegal", seat, reason=reason, cells=cells, doubtful=True)
        if total == 1:
            (ch,) = removed
            reason = f"a single {self.profile.classes[ch]['name']} token was removed; a lone token can never be removed"
        elif len(real) > 1:
            names = " and ".join(self.profile.classes[ch]["name"] for ch in real)
            reason = f"tokens of several colours were removed ({names}); a move removes one colour, with jokers"
            for colour in real:
                part = {cell for cell in gone if board[cell[0]][cell[1]] == colour}
                missing = self._left_behind(board, part, colour)
                if missing:
                    name = self.profile.classes[colour]["name"]
                    at = place_name(min(part))
                    reason = f"the group of {name} tokens at {at} was not removed completely, " + reason
                    cells = tuple(sorted(gone | missing))
                    break
        elif not real:
            reason = "only jokers were removed; a group needs at least one coloured token"
        elif len(connected_groups(gone)) > 1:
            reason = f"the removed {self.profile.classes[real[0]]['name']} tokens were not one connected group"
        else:
            colour = real[0]
            missing = self._left_behind(board, gone, colour)
            name = self.profile.classes[colour]["name"]
            at = place_name(min(gone))
            if missing:
                cells = tuple(sorted(gone | missing))
                reason = f"the group of {name} tokens at {at} was not removed completely"
            else:
                reason = f"the {name} tokens removed at {at} are not a group that may be removed"
        if state.ended:
            reason = "the game is over: tokens must not be removed any more"
        return Judgement("illegal", seat, reason=reason, cells=cells)

    def _left_behind(self, board: Board, gone: set[Cell], colour: str) -> set[Cell]:
        rows, cols = len(board), len(board[0])
        return {
            nb
            for cell in gone
            for nb in neighbours(cell, rows, cols)
            if nb not in gone and board[nb[0]][nb[1]] == colour
        }

    # -- end -----------------------------------------------------------------------------
    def is_over(self, state: ColorpopState) -> bool:
        return state.ended is not None

    def check_reveal(self, state: ColorpopState, seat: int, colours: tuple[str, ...]) -> str | None:
        """Secret colours are one token each (`rules.md` §1): no two players share one, a player
        has as many as the variant gives, and once the result is given with a colour it stays."""
        if self.variant == "solo":
            return "the solo game has target colours, not secret colours: there is nothing to reveal"
        if not 0 <= seat < self.players:
            return no_such_seat(seat, self.players)
        for ch in colours:
            if ch not in self.colours:
                return f"{ch!r} is not a colour of this board; the colours are {' '.join(self.colours)}"
        need = 2 if self.variant == "two-colours" else 1
        if len(colours) != need or len(set(colours)) != len(colours):
            many = "two different colours" if need == 2 else "one colour"
            return f"each player of the {self.variant} variant has {many}; got {' '.join(colours)}"
        for other, theirs in enumerate(state.secrets):
            if other != seat and theirs is not None:
                for ch in colours:
                    if ch in theirs:
                        return (
                            f"{self.profile.classes[ch]['name']} is already the secret colour of "
                            f"{self.seat_name(other)}: each player has a colour of their own"
                        )
        known = state.secrets[seat]
        if known is not None and tuple(known) != tuple(colours) and self.result(state).winners is not None:
            return (
                f"the result was already given with {self.seat_name(seat)}'s secret colour {' '.join(known)}; "
                "it cannot be changed now. If it was told wrongly, start a new game; this one stays in the "
                "journal as it was judged"
            )
        return None

    def reveal(self, state: ColorpopState, seat: int, colours: tuple[str, ...]) -> ColorpopState:
        if not 0 <= seat < self.players:
            raise ConfigError("seat", no_such_seat(seat, self.players))
        for ch in colours:
            if ch not in self.colours:
                raise ConfigError("colour", f"{ch!r} is not a colour of this board")
        secrets = list(state.secrets)
        secrets[seat] = tuple(colours)
        new = replace(state, secrets=tuple(secrets))
        if new.ended is None and self._instant_winners(new) is not None:
            new = replace(new, ended="instant-win")
        return new

    def _solo_success(self, state: ColorpopState) -> bool:
        if self.variant != "solo":
            return False
        on_board = {v for row in state.board for v in row}
        return not any(ch in on_board for ch in self.targets())

    def _unit_colours(self, state: ColorpopState, unit: tuple[int, ...]) -> tuple[str, ...] | None:
        colours: list[str] = []
        for seat in unit:
            if state.secrets[seat] is None:
                return None
            colours.extend(state.secrets[seat])
        return tuple(colours)

    def _instant_winners(self, state: ColorpopState) -> tuple[tuple[int, ...], ...] | None:
        """Scoring units whose colours were all cleared at the earliest such moment, or None."""
        if self.variant == "solo":
            return None
        cleared_at = {ch: n for ch, n, _ in state.cleared}
        best: tuple[int, list[tuple[int, ...]]] | None = None
        for unit in self._teams():
            colours = self._unit_colours(state, unit)
            if not colours or any(ch not in cleared_at for ch in colours):
                continue
            when = max(cleared_at[ch] for ch in colours)
            if best is None or when < best[0]:
                best = (when, [unit])
            elif when == best[0]:
                best[1].append(unit)
        return None if best is None else tuple(best[1])

    def _own_removed(
        self, tallies: tuple[tuple[tuple[str, int], ...], ...], unit: tuple[int, ...], colours: tuple[str, ...]
    ) -> int:
        return sum(n for seat in unit for ch, n in tallies[seat] if ch in colours)

    def result(self, state: ColorpopState) -> Result:
        on_board = Counter(v for row in state.board for v in row)
        if self.variant == "solo":
            left = sum(on_board[ch] for ch in self.targets())
            success = left == 0
            finished = success or state.ended is not None
            names = " and ".join(self.profile.classes[ch]["name"] for ch in self.targets())
            reason = (
                f"success: every {names} token was cleared"
                if success
                else f"failure: {left} target token{'s' if left != 1 else ''} left and no group to remove"
            )
            if not finished:
                return Result(False, None, (left,))
            return Result(True, (0,) if success else (), (left,), reason)
        scores = tuple(
            None if colours is None else sum(on_board[ch] for ch in colours)
            for colours in (self._unit_colours(state, (s,)) for s in range(self.players))
        )
        if state.ended is None:
            return Result(False, None, scores)
        instant = self._instant_winners(state)
        if instant is not None:
            when = max(n for ch, n, _ in state.cleared if ch in self._unit_colours(state, instant[0]))
            tallies = next(t for ch, n, t in state.cleared if n == when)
            winners = self._rank(state, list(instant), tallies, by_left=False)
            return Result(True, winners, scores, self._reason(state, winners, "cleared all of their colour"))
        units = self._teams()
        if any(self._unit_colours(state, u) is None for u in units):
            return Result(
                True,
                None,
                scores,
                "no group is left; reveal the secret colours to rank the players",
            )
        winners = self._rank(state, units, state.removed, by_left=True)
        return Result(True, winners, scores, self._reason(state, winners, "fewest tokens of their colour left"))

    def _rank(
        self,
        state: ColorpopState,
        units: list[tuple[int, ...]],
        tallies: tuple[tuple[tuple[str, int], ...], ...],
        by_left: bool,
    ) -> tuple[int, ...]:
        on_board = Counter(v for row in state.board for v in row)

        def key(unit: tuple[int, ...]) -> tuple[int, int]:
            colours = self._unit_colours(state, unit) or ()
            left = sum(on_board[ch] for ch in colours) if by_left else 0
            return (left, self._own_removed(tallies, unit, colours))

        best = min(key(u) for u in units)
        return tuple(sorted(seat for u in units if key(u) == best for seat in u))

    def _reason(self, state: ColorpopState, winners: tuple[int, ...], how: str) -> str:
        seats = " and ".join(self.seat_name(s) for s in winners)
        if self.variant == "teams":
            return f"the team of {seats} wins: {how}"
        shared = " (a shared win)" if len(winners) > 1 else ""
        return f"{seats} win{'s' if len(winners) == 1 else ''}{shared}: {how}"


# --------------------------------------------------------------------------- alignment
# Which cells were removed, given the board before and the settled board after? Columns keep
# their order and each column's tokens keep theirs, so this is a small alignment problem.


def _explains(before: Board, after: Board, allowed: frozenset[Cell] | None) -> bool:
    return _removed_cells(before, after, allowed) is not None


def _removed_cells(before: Board, after: Board, allowed: frozenset[Cell] | None = None) -> set[Cell] | None:
    """Cells whose removal (then settling) turns `before` into `after`, or None if none do.

    Only cells in `allowed` may be removed when it is given. Among several answers, one is chosen.
    """
    rows = len(before)
    cols = len(before[0])
    src = [_column(before, c) for c in range(cols)]
    dst = [col for col in (_column(after, c) for c in range(cols)) if col]
    positions = [[rows - 1 - i for i in range(len(src[c]))] for c in range(cols)]

    def deletable(c: int, i: int) -> bool:
        return allowed is None or (positions[c][i], c) in allowed

    # col_match[c][k]: removed rows if source column c can become destination column k.
    memo: dict[tuple[int, int], set[Cell] | None] = {}

    def col_match(c: int, k: int) -> set[Cell] | None:
        if (c, k) not in memo:
            memo[(c, k)] = _match_column(src[c], dst[k], lambda i, c=c: deletable(c, i), positions[c], c)
        return memo[(c, k)]

    def clear_column(c: int) -> set[Cell] | None:
        if all(deletable(c, i) for i in range(len(src[c]))):
            return {(positions[c][i], c) for i in range(len(src[c]))}
        return None

    # Align source columns to destination columns in order.
    @cache
    def align(c: int, k: int) -> tuple[Cell, ...] | None:
        if c == cols:
            return () if k == len(dst) else None
        options = []
        # Emptying a whole slide is tried first: it explains a change with fewer, larger gaps,
        # which is what a hand removing one group usually leaves.
        cleared = clear_column(c)
        if cleared is not None:
            rest = align(c + 1, k)
            if rest is not None:
                options.append(tuple(cleared) + rest)
        if not options and k < len(dst):
            m = col_match(c, k)
            if m is not None:
                rest = align(c + 1, k + 1)
                if rest is not None:
                    options.append(tuple(m) + rest)
        return options[0] if options else None

    found = align(0, 0)
    return None if found is None else set(found)


def _match_column(src: list[str], dst: list[str], deletable, positions: list[int], col: int) -> set[Cell] | None:
    """Delete cells of `src` (bottom first) to obtain `dst`; which ones, or None."""
    n, m = len(src), len(dst)
    if m > n:
        return None
    # ok[i][j]: src[i:] can become dst[j:]
    ok = [[False] * (m + 1) for _ in range(n + 1)]
    ok[n][m] = True
    for i in range(n - 1, -1, -1):
        for j in range(m, -1, -1):
            can = deletable(i) and ok[i + 1][j]
            if not can and j < m and src[i] == dst[j]:
                can = ok[i + 1][j + 1]
            ok[i][j] = can
    if not ok[0][0]:
        return None
    gone: set[Cell] = set()
    i = j = 0
    while i < n:
        if j < m and src[i] == dst[j] and ok[i + 1][j + 1]:
            j += 1
        else:
            gone.add((positions[i], col))
        i += 1
    return gone


def check_tokens(data: dict, source: str) -> None:
    classes = set(data["classes"])
    for letter in data.get("tokens", {}):
        if letter not in classes:
            raise ConfigError(f"tokens.{letter}", "this letter is not one of the profile's classes", source)


def setup_board(engine: ColorpopEngine, rng) -> Snapshot:
    """Players shuffle the profile's tokens into the slides until the setup is a valid one."""
    tokens = engine.setup.profile.get("tokens") or {}
    bag = [letter for letter, n in tokens.items() for _ in range(int(n))]
    for _ in range(500):
        rng.shuffle(bag)
        cells = tuple(tuple(bag[r * 10 : r * 10 + 10]) for r in range(10))
        board = Snapshot(engine.setup.game, cells)
        if engine.check_setup(board).ok:
            return board
    raise RuntimeError("no valid Colorpop setup found")


def partial_boards(engine: ColorpopEngine, state: ColorpopState, before: Snapshot, after: Snapshot, move: Move):
    """A group of three or more is taken out token by token, the ones above falling after each."""
    cells = sorted(move.cells)
    if len(cells) >= 3:
        for k in range(1, len(cells)):
            yield before.with_cells(remove_cells(before.cells, frozenset(cells[:k])))
