"""Write the Blockers! example records: a three-player game and a two-player (expert) game.

Each game is played by simulated players with real racks (5 tiles, one drawn after each
placement), who capture only when no rack tile fits an empty cell, as the rules ask. Along the
way the records show what the referee does with a physical change: a glyph the camera could not
read (and a later reading of it), a capture made in two steps (pending, then legal) when the game
has one, a tile lifted and put back (pending, unchanged), a tile put in the wrong place (illegal),
the board put back (restored) and an unchanged board.
Deterministic from the seed:

    python examples/make_blockers_examples.py
"""

from __future__ import annotations

import random
import sys
from dataclasses import replace
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from controller.games.base import GameSetup  # noqa: E402
from controller.games.blockers.board import ALL_GLYPHS, same_colour_neighbours  # noqa: E402
from controller.games.blockers.rules import BlockersEngine, BlockersState, Placement  # noqa: E402
from controller.profile import default_profile  # noqa: E402
from controller.record import dump_record  # noqa: E402
from controller.snapshot import Snapshot, empty_snapshot  # noqa: E402

GAMES = {
    "blockers-3-players.yaml": ("standard", ("R", "G", "B"), 20240601),
    "blockers-two-player.yaml": ("two-player", (("R", "G"), ("B", "Y")), 20240602),
}


def _with(snapshot: Snapshot, cell: tuple[int, int], value: str) -> Snapshot:
    rows = [list(r) for r in snapshot.cells]
    rows[cell[0]][cell[1]] = value
    return snapshot.with_cells(rows)


class Players:
    """Each colour's bag and hidden rack."""

    def __init__(self, colours: tuple[str, ...], rng: random.Random) -> None:
        self.rng = rng
        self.bags = {c: rng.sample(sorted(ALL_GLYPHS), len(ALL_GLYPHS)) for c in colours}
        self.racks = {c: [self.bags[c].pop() for _ in range(5)] for c in colours}

    def choose(self, engine: BlockersEngine, state: BlockersState) -> Placement:
        moves = engine.legal_moves(state)
        from_rack = [m for m in moves if m.glyph in self.racks[m.colour]]
        onto_empty = [m for m in from_rack if state.board[m.cell[0]][m.cell[1]] == "."]
        # the wild tile is kept for when nothing else fits
        plain = [m for m in onto_empty if m.glyph != "*"] or onto_empty or from_rack or moves
        # fewer groups score better: prefer cells touching the player's own tiles of that colour
        touching = [m for m in plain if same_colour_neighbours(state.board, m.cell, m.colour)]
        move = self.rng.choice(touching if touching and self.rng.random() < 0.7 else plain)
        rack = self.racks[move.colour]
        if move.glyph in rack:
            rack.remove(move.glyph)
        else:  # the rack held nothing playable: the player trades for a tile that fits
            rack.pop()
        if self.bags[move.colour]:
            rack.append(self.bags[move.colour].pop())
        return move


def play(variant: str, seats: tuple, seed: int) -> tuple[GameSetup, list[Snapshot]]:
    """The snapshots of one game. `truth` is the board as it really is; `seen` is the referee's
    state, which does not know the unread glyph until the camera reads it."""
    rng = random.Random(seed)
    setup = GameSetup(
        "blockers", default_profile("blockers"), variant=variant, players=len(seats), first=1, seats=seats
    )
    engine = BlockersEngine(setup)
    players = Players(engine.colours, rng)
    truth = seen = engine.start(empty_snapshot("blockers"))
    entries: list[Snapshot] = []
    unread_cell = None
    shown_pending = False
    turn = 0
    while not engine.is_over(seen):
        turn += 1
        truth = replace(truth, to_move=seen.to_move)
        move = players.choose(engine, truth)
        before = engine.expected(truth)
        old = truth.board[move.cell[0]][move.cell[1]]
        truth, _ = engine.apply(truth, move)
        snapshot = engine.expected(truth)
        if turn == 6:
            # the camera cannot read this tile's glyph; it reads it three moves later
            unread_cell = move.cell
        if unread_cell is not None and turn < 9:
            tile = snapshot.cells[unread_cell[0]][unread_cell[1]]
            snapshot = _with(snapshot, unread_cell, tile[0] + "?")
            before = _with(before, unread_cell, tile[0] + "?") if turn > 6 else before
        if old != "." and not shown_pending:
            shown_pending = True  # the captured tile is lifted first, then the new one put down
            entries.append(_with(before, move.cell, "."))
        if turn == 12:
            # a tile in the wrong place, then taken back
            wrong = next(
                (r, c)
                for r in range(9)
                for c in range(9)
                if before.cells[r][c] == "." and (r, c) not in engine.map.cells_for[move.glyph]
            )
            entries.append(_with(before, wrong, move.tile))
            entries.append(before)
        if turn == 20:
            entries.append(before)  # a hand hovered; the board settled as it was
        if turn == 30:
            # a player lifts a tile they could capture (pending), then changes their mind
            lift = next(m.cell for m in engine.legal_moves(seen) if seen.board[m.cell[0]][m.cell[1]] != ".")
            entries.append(_with(before, lift, "."))
            entries.append(before)
        judgement = engine.judge(seen, snapshot)
        assert judgement.kind == "legal", judgement
        seen = judgement.state
        entries.append(snapshot)
    assert seen == truth, "the referee ends knowing every tile"
    return setup, entries


def main() -> int:
    for name, (variant, seats, seed) in GAMES.items():
        setup, entries = play(variant, seats, seed)
        text = dump_record(setup, empty_snapshot("blockers"), entries)
        header = (
            f"# Blockers! example ({variant}, {len(seats)} players), written by "
            "examples/make_blockers_examples.py.\n"
            "# `referee replay` judges it: an unread glyph read later, a tile in the wrong place\n"
            "# (illegal) put back (restored), an unchanged board, a tile lifted and put back\n"
            "# (pending), captures made in two steps where the game has them, then the result.\n"
        )
        (HERE / name).write_text(header + text, "utf-8")
        print(f"wrote {name}: {len(entries)} observations")
    return 0


if __name__ == "__main__":
    sys.exit(main())
