"""What a computer player knows of Stay Alive besides its rules (`controller.ai.knowledge`).

Nothing is hidden. A seat is ahead by its marbles still on the grid against the best rival's,
and by how safe they are: a marble that one notch of some slide would drop counts less.
"""

from __future__ import annotations

import math
from typing import Any

from controller.ai.knowledge import GameKnowledge
from controller.games.stay_alive.holes import bit
from controller.games.stay_alive.rules import NOTCHES, SIZE, SLIDES
from controller.language import _, _n

#: How much less a marble counts for each single slide move that would drop it.
DANGER = 0.25
#: Marbles of difference that make a position clearly won.
SCALE = 1.5


class StayAliveKnowledge(GameKnowledge):
    effort = 0.6
    # An iteration lists about 220 moves in mid-game, 420 while marbles are placed on the first moves.
    work_per_iteration = 280.0
    playout_depth = 10

    def standing(self, engine: Any, state: Any) -> list[float]:
        """Per seat: marbles left (those still to place too), less DANGER for each marble on the
        grid that some single notch of a slide would drop."""
        left = list(engine.marbles_left(state))
        masks = [0] * engine.players
        for r, row in enumerate(state.board):
            for c, v in enumerate(row):
                if v in engine.seat_of:
                    masks[engine.seat_of[v]] |= bit(r, c)
        positions = list(state.orange + state.white)
        threatened = 0
        for slide in range(SLIDES):
            before = positions[slide]
            for after in NOTCHES[before]:
                positions[slide] = after
                threatened |= engine.open_mask(positions[:SIZE], positions[SIZE:])
            positions[slide] = before
        for seat, mask in enumerate(masks):
            left[seat] -= DANGER * (threatened & mask).bit_count()
        return left

    def evaluate(self, engine: Any, state: Any) -> tuple[float, ...]:
        standing = self.standing(engine, state)
        values = []
        for seat, own in enumerate(standing):
            if seat in state.out:
                values.append(0.0)
                continue
            rival = max((s for i, s in enumerate(standing) if i != seat and i not in state.out), default=0.0)
            values.append(1.0 / (1.0 + math.exp(-(own - rival) / SCALE)))
        return tuple(values)

    def explain(self, engine: Any, state: Any, move: Any, seat: int, private: Any = None) -> Any:
        after, events = engine.apply(state, move)
        fell = [e for e in events if e.startswith("fell")]
        if state.placing:
            return _("this point stays closed whichever single slide moves next")
        theirs = sum(1 for e in fell if e.cell and state.board[e.cell[0]][e.cell[1]] != engine.seats[seat])
        mine = len(fell) - theirs
        if theirs and not mine:
            return _n(
                "it drops {n} of the others' marbles and none of yours",
                "it drops {n} of the others' marbles and none of yours",
                theirs,
                n=theirs,
            )
        if not fell:
            return _("it drops no marble now and leaves your marbles as safe as they can be")
        return _n(
            "it drops {n} marble, the fewest of yours it can",
            "it drops {n} marbles, the fewest of yours it can",
            len(fell),
            n=len(fell),
        )


KNOWLEDGE = StayAliveKnowledge()
