"""Random mid-game Flipop positions and snapshots to judge, for rules_bench.

Games from the default start layout are played at random to a random depth; each case is then a
legal move's board (doors fully read, partly unread or not read at all), a ball still standing in
the exit it just reached (pending), or an illegal change (a ball slid by hand, a door turned by
hand, a legal move's board with one ball out of place). The engine's cache of legal moves is
emptied before timing, so every judgement works its moves out from scratch.
"""

from __future__ import annotations

import random

from controller.games.base import GameSetup
from controller.games.flipop import rules as flipop
from controller.games.flipop.rules import FlipopEngine
from controller.profile import default_profile
from controller.snapshot import EMPTY, Snapshot, parse_snapshot
from simulation.random_play import random_position


def _move_ball(snapshot: Snapshot, rng: random.Random) -> Snapshot:
    cells = [list(r) for r in snapshot.cells]
    full = [(r, c) for r in range(5) for c in range(5) if cells[r][c] != EMPTY]
    empty = [(r, c) for r in range(5) for c in range(5) if cells[r][c] == EMPTY]
    (r0, c0), (r1, c1) = rng.choice(full), rng.choice(empty)
    cells[r1][c1], cells[r0][c0] = cells[r0][c0], EMPTY
    return snapshot.with_cells(cells)


def _shown(snapshot: Snapshot, rng: random.Random) -> Snapshot:
    """The board as the camera might report it: doors read, partly unread, or not read."""
    roll = rng.random()
    if roll < 0.2:
        return Snapshot("flipop", snapshot.cells)
    seen = snapshot.line("doors")
    if roll < 0.4 and seen is not None:
        doors = tuple("?" if rng.random() < 0.3 else d for d in seen)
        return Snapshot("flipop", snapshot.cells, {"doors": doors})
    return snapshot


def cases(count: int, seed: int) -> list:
    rng = random.Random(seed)
    profile = default_profile("flipop")
    engine = FlipopEngine(GameSetup("flipop", profile))
    start = engine.start(parse_snapshot("flipop", profile.get("start")))
    out: list = []
    while len(out) < count:
        state = random_position(engine, start, rng, rng.randrange(0, 40))
        if engine.is_over(state):
            continue
        moves = engine.legal_moves(state)
        after, events = engine.apply(state, rng.choice(moves))
        result = engine.expected(after)
        kind = rng.random()
        if kind < 0.5:
            out.append((engine, state, _shown(result, rng)))
        elif kind < 0.6:
            exits = [e for e in events if e.startswith("exit:")]
            if exits:
                r, c = (int(x) for x in exits[0][5:].split(","))
                cells = [list(row) for row in result.cells]
                cells[r][c] = "W" if r == 0 else "B"
                out.append((engine, state, result.with_cells(cells)))
            else:
                out.append((engine, state, result))
        elif kind < 0.75:
            out.append((engine, state, _move_ball(engine.expected(state), rng)))
        elif kind < 0.85:
            before = engine.expected(state)
            doors = list(before.line("doors") or ())
            post = rng.randrange(16)
            doors[post] = {"N": "E", "E": "S", "S": "W", "W": "N", "NS": "EW", "EW": "NS"}.get(doors[post], "?")
            out.append((engine, state, Snapshot("flipop", before.cells, {"doors": doors})))
        else:
            out.append((engine, state, _move_ball(result, rng)))
    flipop._options_cached.cache_clear()
    return out
