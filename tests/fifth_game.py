"""A fifth game defined only inside the test suite: noughts and crosses on a 3x3 lattice.

It exists to prove that a game is one module: it declares a `GameSpec` and an `Engine` here, and
the referee's formats, records and simulated service take it without an edit anywhere else.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from controller.games.base import Engine, Judgement, Result, SetupCheck
from controller.games.spec import GameSpec
from controller.snapshot import EMPTY, Snapshot

NAME = "noughts"
LINES = (
    [((r, 0), (r, 1), (r, 2)) for r in range(3)]
    + [((0, c), (1, c), (2, c)) for c in range(3)]
    + [((0, 0), (1, 1), (2, 2)), ((0, 2), (1, 1), (2, 0))]
)


@dataclass(frozen=True)
class NoughtsState:
    board: tuple[tuple[str, ...], ...]
    to_move: int


class NoughtsEngine(Engine[NoughtsState, tuple[int, int]]):
    state_type = NoughtsState
    letters = "XO"

    def seat_colours_of(self, seat: int) -> tuple[str, ...]:
        return (self.letters[seat],)

    def check_setup(self, snapshot: Snapshot) -> SetupCheck:
        taken = [(r, c) for r in range(3) for c in range(3) if snapshot.cells[r][c] != EMPTY]
        if taken:
            return SetupCheck(False, "the board must start empty", tuple(taken))
        return SetupCheck(True)

    def start(self, snapshot: Snapshot) -> NoughtsState:
        return NoughtsState(snapshot.cells, self.setup.first)

    def to_move(self, state: NoughtsState) -> int | None:
        return None if self.is_over(state) else state.to_move

    def legal_moves(self, state: NoughtsState) -> Sequence[tuple[int, int]]:
        if self.is_over(state):
            return []
        return [(r, c) for r in range(3) for c in range(3) if state.board[r][c] == EMPTY]

    def apply(self, state: NoughtsState, move: tuple[int, int]) -> tuple[NoughtsState, tuple[str, ...]]:
        rows = [list(row) for row in state.board]
        rows[move[0]][move[1]] = self.letters[state.to_move]
        return NoughtsState(tuple(tuple(r) for r in rows), 1 - state.to_move), ()

    def describe(self, state: NoughtsState, move: tuple[int, int]) -> str:
        return f"{self.letters[state.to_move]} on {self.place_name(move)}"

    def expected(self, state: NoughtsState) -> Snapshot:
        return Snapshot(NAME, state.board)

    def judge(self, state: NoughtsState, snapshot: Snapshot) -> Judgement[NoughtsState]:
        if snapshot.cells == state.board:
            return Judgement("unchanged")
        seat = state.to_move
        for move in self.legal_moves(state):
            after, events = self.apply(state, move)
            if after.board == snapshot.cells:
                return Judgement("legal", seat, after, self.describe(state, move), events)
        changed = tuple((r, c) for r in range(3) for c in range(3) if snapshot.cells[r][c] != state.board[r][c])
        return Judgement("illegal", seat, reason="only one piece of the player to move may be added", cells=changed)

    def _winner(self, state: NoughtsState) -> int | None:
        for line in LINES:
            marks = {state.board[r][c] for r, c in line}
            if len(marks) == 1 and EMPTY not in marks:
                return self.letters.index(marks.pop())
        return None

    def is_over(self, state: NoughtsState) -> bool:
        full = all(cell != EMPTY for row in state.board for cell in row)
        return full or self._winner(state) is not None

    def result(self, state: NoughtsState) -> Result:
        winner = self._winner(state)
        if winner is not None:
            return Result(True, (winner,), (), f"{self.seat_name(winner)} has three in a row")
        if self.is_over(state):
            return Result(True, (0, 1), (), "a draw: the board is full")
        return Result(False, None, (), "game in progress")


SPEC = GameSpec(
    name=NAME,
    title="Noughts and crosses",
    shape=(3, 3),
    letters="XO",
    engine=NoughtsEngine,
    default_profile={
        "game": NAME,
        "geometry": {
            "rows": 3,
            "cols": 3,
            "pitch_mm": 40,
            "markers": {"dictionary": "4X4_50", "ids": [0, 1, 2, 3], "size": 1.0, "offset": 1.5},
        },
        "classes": {"X": {"name": "cross"}, "O": {"name": "nought"}},
        "settings": {},
    },
    demo={"game": NAME, "players": 2},
)
