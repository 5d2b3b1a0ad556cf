"""Write the Colorpop example records (deterministic from their seeds).

    python examples/make_colorpop_examples.py

Each record is a whole game, setup to end, played by random legal moves, with a pending
partial removal, an illegal move and the board put back, as happens at a real table.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from controller.games.base import GameSetup  # noqa: E402
from controller.games.colorpop.rules import ColorpopEngine, remove_cells  # noqa: E402
from controller.profile import default_profile  # noqa: E402
from controller.record import Action, dump_record  # noqa: E402
from controller.snapshot import Snapshot  # noqa: E402
from simulation.random_play import random_move  # noqa: E402

HERE = Path(__file__).resolve().parent


def valid_board(engine: ColorpopEngine, rng: random.Random) -> Snapshot:
    """A full set shuffled into the slides, a fresh set per try until the setup is valid. Not
    `starting_board` (which shuffles one set again and again): the records were written this way."""
    while True:
        tokens = [ch for ch in "GYOBP" for _ in range(19)] + ["J"] * 5
        rng.shuffle(tokens)
        snap = Snapshot("colorpop", tuple(tuple(tokens[r * 10 : (r + 1) * 10]) for r in range(10)))
        if engine.check_setup(snap).ok:
            return snap


def play(setup: GameSetup, seed: int) -> tuple[Snapshot, list]:
    rng = random.Random(seed)
    engine = ColorpopEngine(setup)
    board = valid_board(engine, rng)
    state = engine.start(board)
    entries: list[Snapshot | Action] = []
    move_number = 0
    while (move := random_move(engine, state, rng)) is not None:
        move_number += 1
        if move_number == 2 and len(move.cells) >= 3:
            # Part of the group first: the referee waits (pending), then the rest.
            part = frozenset(sorted(move.cells)[:1])
            entries.append(Snapshot("colorpop", remove_cells(state.board, part)))
        if move_number == 4:
            # A lone token pulled out by mistake, then put back.
            moves = engine.legal_moves(state)
            lone = next(
                (r, c)
                for r in range(10)
                for c in range(10)
                if state.board[r][c] != "." and not any((r, c) in m.cells for m in moves)
            )
            entries.append(Snapshot("colorpop", remove_cells(state.board, frozenset({lone}))))
            entries.append(Snapshot("colorpop", state.board))
        state, _ = engine.apply(state, move)
        entries.append(Snapshot("colorpop", state.board))
    return board, entries


def main() -> None:
    profile = default_profile("colorpop")
    standard = GameSetup(
        "colorpop",
        profile,
        variant="standard",
        players=3,
        first=0,
        secrets=(("G",), ("B",), ("P",)),
    )
    board, entries = play(standard, seed=11)
    (HERE / "colorpop-standard.yaml").write_text(
        "# A three-player Colorpop game: a pending partial removal (index 2), a lone token pulled\n"
        "# out by mistake (illegal) and put back (restored), and the game played to its end.\n"
        + dump_record(standard, board, entries)
    )
    solo = GameSetup("colorpop", profile, variant="solo", players=1, targets=("O", "Y"))
    board, entries = play(solo, seed=5)
    (HERE / "colorpop-solo.yaml").write_text(
        "# A solo Colorpop game with two target colours.\n" + dump_record(solo, board, entries)
    )


if __name__ == "__main__":
    main()
