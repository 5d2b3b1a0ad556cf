"""What a computer player knows of Flipop besides its rules (`controller.ai.knowledge`).

Nothing is hidden. Random play rarely ends a game (doors send balls back and forth), so the
search cuts its playouts short and judges where they stopped: a seat is ahead by the balls it
has taken off the board, then by how far its balls on the board have come towards its exit row
(white starts on row 4 and leaves through row 0, black the other way, as the profile's exits say).

The doors often lock the balls in a cycle of forced moves (each seat has one legal move, and they
lead back to the same position): play could go on for ever without a ball leaving, so such a
position is judged as the players' end by agreement would end it (`settled`), fewer balls winning.
Without this the search rated a lock on equal balls as good as its progress looked and walked
into it, and games ran to the benchmark's 200-ply cut. For the same reason a line of the search
that comes back to a position it passed through (`repeats`) is judged as that end by agreement:
the search otherwise went round a circle of its own choosing whose positions its evaluation liked.
"""

from __future__ import annotations

import math
from typing import Any

from controller.ai.knowledge import GameKnowledge
from controller.language import _, _n

#: A ball out is worth this many rows of progress.
BALL = 10.0
#: Progress (in rows) that makes a position clearly won.
SCALE = 3.0
#: The longest cycle of forced moves looked for (plies; the doors' cycles seen in play are 8).
LOCK_PLIES = 16


class FlipopKnowledge(GameKnowledge):
    effort = 0.6
    # An iteration lists and makes about 30 moves (one to five moves a position).
    work_per_iteration = 40.0
    playout_depth = 4
    repeats = True

    def progress(self, engine: Any, state: Any) -> list[float]:
        """Per seat: BALL per ball out, plus for each ball on the board how near it is to the
        nearest of its exits (an exit held by a ball counts two steps farther: it must leave first)."""
        balls = state.lines[0].balls
        size = len(balls)
        out = []
        for colour in engine.colours:
            exits = engine.exits[colour]
            total = 0.0
            on_board = 0
            for r, row in enumerate(balls):
                for c, v in enumerate(row):
                    if v != colour:
                        continue
                    on_board += 1
                    nearest = min(abs(r - er) + abs(c - ec) + (2 if balls[er][ec] != "." else 0) for er, ec in exits)
                    total += max(0.0, size + 1 - nearest) / 2
            out.append(BALL * (engine.ball_counts[colour] - on_board) + total)
        return out

    def locked(self, engine: Any, state: Any) -> bool:
        """Whether the doors lock the balls in a cycle of forced moves: from `state`, each seat in
        turn has exactly one legal move (or must pass) and the moves lead back to `state`. Nothing
        can then bring a ball out any more, which is when the rules let the players end the game by
        agreement; playing on (as a search would) only goes round the cycle."""
        current = state
        for _ply in range(LOCK_PLIES):
            moves = engine.legal_moves(current)
            if len(moves) != 1:
                return False
            current = engine.apply(current, moves[0])[0]
            if engine.is_over(current):
                return False
            if current == state:
                return True
        return False

    def settled(self, engine: Any, state: Any) -> tuple[float, ...] | None:
        """A locked position ends by agreement: fewer balls on the board wins, equal is a draw."""
        if engine.is_over(state) or not self.locked(engine, state):
            return None
        return self.repeated(engine, state)

    def repeated(self, engine: Any, state: Any) -> tuple[float, ...]:
        """Going round in a circle is worth what ending by agreement would give: fewer balls on the
        board wins, equal is a draw. So the search leaves a circle its evaluation likes (balls
        near their exit that never get out) unless it is ahead in balls."""
        balls = state.lines[0].balls
        first, second = (sum(row.count(colour) for row in balls) for colour in engine.colours)
        if first == second:
            return (0.5, 0.5)
        return (1.0, 0.0) if first < second else (0.0, 1.0)

    def evaluate(self, engine: Any, state: Any) -> tuple[float, ...]:
        mine, theirs = self.progress(engine, state)
        lead = (mine - theirs) / SCALE
        first = 1.0 / (1.0 + math.exp(-lead))
        return (first, 1.0 - first)

    def explain(self, engine: Any, state: Any, move: Any, seat: int, private: Any = None) -> Any:
        after, events = engine.apply(state, move)
        exits = sum(1 for e in events if e.startswith("exit"))
        if exits:
            return _n(
                "it takes {n} ball off through the exit", "it takes {n} balls off through the exit", exits, n=exits
            )
        before = self.progress(engine, state)
        now = self.progress(engine, after)
        gained = now[seat] - before[seat]
        lost = now[1 - seat] - before[1 - seat]
        if lost < 0:
            return _("it pushes the other colour's balls back towards their home row")
        if gained > 0:
            return _("it brings your balls closer to their exit")
        return _("it keeps the doors from opening a way for the other colour")


KNOWLEDGE = FlipopKnowledge()
