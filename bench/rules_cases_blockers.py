"""Random mid-game Blockers! positions and snapshots to judge, for rules_bench.

Games of every seating (3, 4, 5 players and the two-player variant) are played at random to a
random depth, some placements shown with an unread glyph; each case is then a legal placement or
capture, a lifted capturable tile (pending), or an illegal change (wrong place, split capture,
own-colour capture, duplicate tile, two cells changed).
"""

from __future__ import annotations

import random

from controller.games.base import GameSetup
from controller.games.blockers.board import capture_splits
from controller.games.blockers.rules import BlockersEngine
from controller.profile import default_profile
from controller.snapshot import Snapshot, empty_snapshot
from simulation.random_play import random_move

SEATINGS = (
    ("standard", ("R", "G", "B")),
    ("standard", ("R", "G", "B", "Y")),
    ("standard", ("R", "G", "B", "Y", "V")),
    ("two-player", (("R", "G"), ("B", "Y"))),
)


def _with(snapshot: Snapshot, changes: dict) -> Snapshot:
    rows = [list(r) for r in snapshot.cells]
    for (r, c), value in changes.items():
        rows[r][c] = value
    return snapshot.with_cells(rows)


def cases(count: int, seed: int) -> list:
    rng = random.Random(seed)
    profile = default_profile("blockers")
    engines = [BlockersEngine(GameSetup("blockers", profile, variant=v, players=len(s), seats=s)) for v, s in SEATINGS]
    out: list = []
    while len(out) < count:
        engine = rng.choice(engines)
        state = engine.start(empty_snapshot("blockers"))
        for _ in range(rng.randrange(0, 24 * len(engine.colours))):
            move = random_move(engine, state, rng)
            if move is None:
                break
            after, _ = engine.apply(state, move)
            shown = engine.expected(after)
            if rng.random() < 0.05:
                shown = _with(shown, {move.cell: move.colour + "?"})
            judged = engine.judge(state, shown).state
            if judged is None:  # a reading the rules could not take as a move: this walk ends here
                break
            state = judged
        if engine.is_over(state):
            continue
        moves = engine.legal_moves(state)
        move = rng.choice(moves)
        board = state.board
        shown = engine.expected(state)
        kind = rng.random()
        if kind < 0.55:
            snapshot = engine.expected(engine.apply(state, move)[0])
        elif kind < 0.7:
            captures = [m for m in moves if board[m.cell[0]][m.cell[1]] != "."]
            if not captures:
                continue
            snapshot = _with(shown, {rng.choice(captures).cell: "."})
        elif kind < 0.8:
            wrong = [
                (r, c)
                for r in range(9)
                for c in range(9)
                if board[r][c] == "." and (r, c) not in engine.map.cells_for[move.glyph]
            ]
            if not wrong:
                continue
            snapshot = _with(shown, {rng.choice(wrong): move.tile})
        elif kind < 0.9:
            blocked = [
                (r, c)
                for r in range(9)
                for c in range(9)
                if board[r][c] != "."
                and (board[r][c][0] == move.colour or capture_splits(board, (r, c)))
                and move.glyph in engine.map.fits[(r, c)]
            ]
            if not blocked:
                continue
            snapshot = _with(shown, {rng.choice(blocked): move.tile})
        else:
            other = rng.choice(moves)
            if other.cell == move.cell:
                continue
            snapshot = _with(shown, {move.cell: move.tile, other.cell: other.tile})
        out.append((engine, state, snapshot))
    return out
