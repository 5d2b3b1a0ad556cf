"""Random mid-game Colorpop positions (jokers included) and snapshots to judge, for rules_bench."""

from __future__ import annotations

import random

from controller.games.base import GameSetup
from controller.games.colorpop.rules import ColorpopEngine, remove_cells
from controller.profile import default_profile
from controller.snapshot import Snapshot
from simulation.random_play import random_position


def cases(count: int, seed: int) -> list:
    rng = random.Random(seed)
    profile = default_profile("colorpop")
    out: list = []
    while len(out) < count:
        engine = ColorpopEngine(GameSetup("colorpop", profile, players=3))
        tokens = [ch for ch in "GYOBP" for _ in range(19)] + ["J"] * 5
        rng.shuffle(tokens)
        start = Snapshot("colorpop", tuple(tuple(tokens[r * 10 : (r + 1) * 10]) for r in range(10)))
        state = random_position(engine, engine.start(start), rng, rng.randrange(0, 15))
        moves = engine.legal_moves(state)
        if not moves:
            continue
        move = rng.choice(moves)
        kind = rng.random()
        cells = set(move.cells)
        if kind < 0.6 or len(cells) < 3:
            board = remove_cells(state.board, move.cells)  # a legal move
        elif kind < 0.8:
            cells.discard(next(iter(cells)))  # part of a group: pending
            board = remove_cells(state.board, frozenset(cells))
        else:  # a group plus a stray token: illegal
            r, c = rng.randrange(10), rng.randrange(10)
            cells.add((r, c))
            board = remove_cells(state.board, frozenset(cells))
        out.append((engine, state, Snapshot("colorpop", board)))
    return out
