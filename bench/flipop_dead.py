"""Whether a Flipop board is dead (no push of either colour, in any order, can take a ball off any
more), fast enough to try every position at the edge of a solved opening.

`flipop_reach.dead` answers the same question by going through every board the pushes reach,
breadth first, with the rules' full push model and a cache of the origin boards only. `DeadCheck`
goes through the same boards (the same pushes: `doors.legal_push`, the rules engine's own, checked
against the full model by the rules' tests), depth first, and keeps more of what it learns:

- a board proved dead makes every board it reaches dead too (they were all gone through), and all
  of them are kept: a later search stops at any of them;
- when a ball leaves, every board on the path that led there is live, and all of them are kept: a
  later search that reaches one stops at once;
- depth first, a live board usually meets a ball leaving after a few hundred boards, where breadth
  first went through thousands.

Turns and the push-back ban are left out, as in `flipop_reach.dead`, so the boards gone through
include all that play can reach from the board: a board called dead is dead. A search that passes
`limit` boards gives up (None: not proved either way); callers treat that as live.

Before any search, `flipop_bound.Reach` tries to prove the board dead without going through its
boards (a sound over-approximation of where each ball can go: see its docstring); only the boards
it cannot prove dead are searched. It proves most dead boards of random games in about a
millisecond each, where the search went through up to thousands of boards or gave up.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.flipop_bound import Reach  # noqa: E402
from controller.games.flipop import doors as doors_model  # noqa: E402

Board = tuple[tuple[tuple[str, ...], ...], tuple[str, ...]]

#: Boards gone through at most in one search before giving up.
LIMIT = 20_000


class DeadCheck:
    """`check(balls, doors)`: True dead, False live (a ball can leave), None not proved within `limit`."""

    def __init__(self, engine: Any, limit: int = LIMIT, *, bound: bool = True) -> None:
        self.exits = engine.exits
        #: the over-approximation tried first (None: search every board, as before it)
        self.reach = Reach(engine) if bound else None
        #: boards proved dead by `reach` without a search
        self.bounded = 0
        self.colours = tuple(engine.colours)
        self.limit = limit
        self.dead: set[Board] = set()
        self.live: set[Board] = set()
        #: Origins whose search gave up (asked again, they give up again at once).
        self.unknown: set[Board] = set()
        self.pushes = 0

    def following(self, board: Board) -> list[Board] | None:
        """Every board one legal push of either colour leads to (None: a push takes a ball off)."""
        balls, doors = board
        out = []
        for colour in self.colours:
            for cell, direction in doors_model.pushable(balls, doors, colour):
                self.pushes += 1
                result = doors_model.legal_push(balls, doors, cell, direction, self.exits)
                if result is None:
                    continue
                if result.exited:
                    return None
                out.append((result.balls, result.doors))
        return out

    def check(self, balls: tuple[tuple[str, ...], ...], doors: tuple[str, ...]) -> bool | None:
        origin = (balls, doors)
        if origin in self.dead:
            return True
        if origin in self.live:
            return False
        if origin in self.unknown:
            return None
        if self.reach is not None and self.reach.dead(balls, doors):
            self.bounded += 1
            self.dead.add(origin)
            return True
        seen = {origin}
        path: list[Board] = [origin]
        todo: list[list[Board]] = []
        first = self.following(origin)
        if first is None:
            self.live.add(origin)
            return False
        todo.append(first)
        while todo:
            waiting = todo[-1]
            if not waiting:
                todo.pop()
                path.pop()
                continue
            board = waiting.pop()
            if board in seen or board in self.dead:
                continue
            if board in self.live:
                self.live.update(path)
                return False
            seen.add(board)
            if len(seen) > self.limit:
                self.unknown.add(origin)
                return None
            after = self.following(board)
            if after is None:
                self.live.update(path)
                self.live.add(board)
                return False
            path.append(board)
            todo.append(after)
        self.dead.update(seen)
        return True
