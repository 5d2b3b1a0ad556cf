"""Write the Flipop example record(s) in examples/ (deterministic; run from the repository root).

    python examples/make_flipop_examples.py

`flipop-standard.yaml`: a game on the default start layout. It opens with a scripted line that
brings a white ball to an exit (shown first still standing in the exit: pending), takes an illegal
slide by hand and its restoration, plays on with seeded random moves that favour chains, reads no
doors on some boards, and ends by agreement.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from controller.games.base import GameSetup  # noqa: E402
from controller.games.flipop.doors import push  # noqa: E402
from controller.games.flipop.rules import FlipopEngine  # noqa: E402
from controller.profile import default_profile  # noqa: E402
from controller.record import Action, dump_record  # noqa: E402
from controller.snapshot import EMPTY, Snapshot, parse_snapshot  # noqa: E402

HERE = Path(__file__).resolve().parent

#: An opening found by search on the default layout: white's ball from (4,1) reaches exit (0,1).
OPENING = [
    ((4, 1), "N"),
    ((0, 2), "S"),
    ((3, 1), "W"),
    ((0, 1), "E"),
    ((4, 0), "N"),
    ((0, 3), "S"),
    ((2, 0), "N"),
    ((1, 2), "E"),
    ((1, 0), "E"),
    ((0, 4), "S"),
    ((1, 1), "N"),
]


def balls_moved(engine: FlipopEngine, board: Snapshot, move: tuple) -> int:
    """How many balls a push moves (2 or more: a chain)."""
    result = push(board.cells, board.line("doors") or (), move[0], move[1], engine.exits)
    return len({cell for cell, _ in result.displaced}) + len(result.exits)


def standard_game(seed: int = 17) -> str:
    rng = random.Random(seed)
    profile = default_profile("flipop")
    setup = GameSetup("flipop", profile, seats=("W", "B"))
    engine = FlipopEngine(setup)
    board = parse_snapshot("flipop", profile.get("start"))
    state = engine.start(board)
    entries: list = []

    def show(snapshot: Snapshot, read_doors: bool) -> Snapshot:
        return snapshot if read_doors else Snapshot("flipop", snapshot.cells)

    for number, move in enumerate(OPENING):
        after, events = engine.apply(state, move)
        shown = engine.expected(after)
        if any(e.startswith("exit:") for e in events):
            # The ball is seen in its exit before the player lifts it off: pending.
            r, c = (int(x) for x in events[0][5:].split(","))
            cells = [list(row) for row in shown.cells]
            cells[r][c] = "W"
            entries.append(shown.with_cells(cells))
        if number == 3:
            # A white ball slid by hand with no door (illegal), then put back (restored).
            before = engine.expected(state)
            cells = [list(row) for row in before.cells]
            cells[4][4], cells[3][4] = EMPTY, "W"
            entries.append(before.with_cells(cells))
            entries.append(before)
        entries.append(show(shown, read_doors=number % 3 != 2))
        state = after

    # Play on: moves that set off chains are preferred, so the record shows some.
    for number in range(30):
        if engine.is_over(state):
            break
        moves = list(engine.legal_moves(state))
        rng.shuffle(moves)
        scored = []
        for move in moves:
            scored.append((balls_moved(engine, engine.expected(state), move), move))
        scored.sort(key=lambda t: -t[0])
        move = scored[0][1] if scored[0][0] > 1 and rng.random() < 0.7 else rng.choice(moves)
        state, _ = engine.apply(state, move)
        entries.append(show(engine.expected(state), read_doors=number % 4 != 1))
    if not engine.is_over(state):
        entries.append(Action("end-by-agreement"))
    return dump_record(setup, board, entries)


def main() -> int:
    (HERE / "flipop-standard.yaml").write_text(standard_game(), "utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
