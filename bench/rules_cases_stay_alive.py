"""Stay Alive benchmark cases: random mid-game positions and a snapshot to judge for each.

The snapshots mix what the referee meets in play: legal placements and slide moves (some with a
stuck marble), unchanged boards, two slides moved, a slide moved two notches, a banned slide, a
marble gone from a closed point, and a marble placed on an open point.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from controller.games.base import GameSetup  # noqa: E402
from controller.games.stay_alive.rules import SlideMove, StayAliveEngine, StayAliveState  # noqa: E402
from controller.profile import default_profile  # noqa: E402
from controller.snapshot import EMPTY, Snapshot  # noqa: E402
from simulation.random_play import random_position, starting_board  # noqa: E402


def _with_slide(snap: Snapshot, slide: int, position: str) -> Snapshot:
    key, index = ("orange", slide) if slide < 7 else ("white", slide - 7)
    positions = list(snap.line(key) or ())
    positions[index] = position
    return snap.with_line(key, positions)


def _case_snapshot(engine: StayAliveEngine, state: StayAliveState, rng: random.Random) -> Snapshot:
    moves = engine.legal_moves(state)
    kind = rng.random()
    if kind < 0.5 or state.placing:
        move = rng.choice(moves)
        after, _ = engine.apply(state, move)
        snap = engine.expected(after)
        if state.placing and kind > 0.8:
            # a marble put on an open point and seen there (illegal)
            opened = engine.holes.open_points(state.orange, state.white)
            spots = [p for p in opened if state.board[p[0]][p[1]] == EMPTY]
            if spots and state.to_move is not None:
                r, c = rng.choice(spots)
                cells = [list(row) for row in engine.expected(state).cells]
                cells[r][c] = engine.seats[state.to_move]
                return engine.expected(state).with_cells(cells)
        if isinstance(move, SlideMove) and kind < 0.15:
            # a marble that should have fallen is still seen
            before = engine.expected(state)
            cells = [list(row) for row in snap.cells]
            for r in range(7):
                for c in range(7):
                    if before.cells[r][c] != EMPTY and cells[r][c] == EMPTY:
                        cells[r][c] = before.cells[r][c]
                        return snap.with_cells(cells)
        return snap
    before = engine.expected(state)
    if kind < 0.6:
        return before
    positions = engine.positions(state)
    if kind < 0.7:
        a, b = rng.sample(range(14), 2)
        snap = _with_slide(before, a, "B" if positions[a] != "B" else "A")
        return _with_slide(snap, b, "B" if positions[b] != "B" else "C")
    if kind < 0.8:
        ends = [s for s in range(14) if positions[s] in "AC"]
        if ends:
            s = rng.choice(ends)
            return _with_slide(before, s, "C" if positions[s] == "A" else "A")
    if kind < 0.9 and state.recent:
        s = state.recent[-1]
        return _with_slide(before, s, "B" if positions[s] != "B" else "A")
    marbles = [(r, c) for r in range(7) for c in range(7) if state.board[r][c] != EMPTY]
    cells = [list(row) for row in before.cells]
    r, c = rng.choice(marbles)
    cells[r][c] = EMPTY
    return before.with_cells(cells)


def cases(count: int, seed: int) -> list[tuple[StayAliveEngine, StayAliveState, Snapshot]]:
    rng = random.Random(seed)
    engines = [StayAliveEngine(GameSetup("stay-alive", default_profile("stay-alive"), players=n)) for n in (2, 3, 4)]
    out: list = []
    while len(out) < count:
        engine = rng.choice(engines)
        state = engine.start(starting_board(engine.setup, rng))
        state = random_position(engine, state, rng, rng.randrange(0, engine.total + 60))
        if engine.is_over(state):
            continue
        out.append((engine, state, _case_snapshot(engine, state, rng)))
    return out
