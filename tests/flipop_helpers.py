"""Shared by the Flipop bench tests: boards of random games to check the dead-board proofs on."""

from __future__ import annotations

import random


def random_boards(engine, games: int, every: int, plies: int) -> list:
    """Boards of `games` random games (seeds 0, 1, ...), every `every` plies before ply `plies`
    (live openings, dead or locked endings), each board once, in the order met."""
    out = []
    start = engine.start(engine.start_board)
    for seed in range(games):
        rng = random.Random(seed)
        state = start
        for ply in range(plies):
            if engine.is_over(state):
                break
            if ply % every == 0:
                (line,) = state.lines
                out.append((line.balls, line.doors))
            moves = engine.legal_moves(state)
            state = engine.apply(state, moves[rng.randrange(len(moves))])[0]
    return list(dict.fromkeys(out))
