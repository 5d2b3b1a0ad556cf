"""Random legal play through the `Engine` interface: the one copy the tests, benches and examples share.

Why one copy: property tests, `bench/rules_cases_*.py` and the example writers all need "play
random legal moves from here", and each had its own loop. The loops here take the caller's
`random.Random` and draw from it exactly as those loops did (one `rng.choice` over the legal
moves per move, nothing else), so benches and example records built from a seed stay the same.

Starting boards come from `simulation.world.starting_board`, the simulated players' own setup
(each game declares how its pieces are set up; this module knows no game).
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from controller.games.base import Engine, GameSetup
from controller.games.events import GameEvent
from controller.games.registry import engine_for
from controller.snapshot import Snapshot
from simulation.world import starting_board

__all__ = ["Played", "new_game", "random_move", "random_moves", "random_position", "starting_board"]


@dataclass(frozen=True)
class Played:
    """One move of a random game: the state it was made in, the move, and what it led to."""

    before: Any
    move: Any
    after: Any
    events: tuple[GameEvent, ...]


def random_move(engine: Engine, state: Any, rng: random.Random) -> Any | None:
    """A legal move chosen at random (one `rng.choice`), or None when the game is over or the
    seat to move has none."""
    if engine.is_over(state):
        return None
    moves = list(engine.legal_moves(state))
    return rng.choice(moves) if moves else None


def random_moves(engine: Engine, state: Any, rng: random.Random, limit: int | None = None) -> Iterator[Played]:
    """Random legal moves from `state` until the game ends, no move is left or `limit` moves were made."""
    made = 0
    while limit is None or made < limit:
        move = random_move(engine, state, rng)
        if move is None:
            return
        after, events = engine.apply(state, move)
        yield Played(state, move, after, tuple(events))
        state = after
        made += 1


def random_position(engine: Engine, state: Any, rng: random.Random, limit: int | None = None) -> Any:
    """The state reached from `state` by random legal moves (see `random_moves`)."""
    for played in random_moves(engine, state, rng, limit):
        state = played.after
    return state


def new_game(setup: GameSetup, rng: random.Random) -> tuple[Engine, Snapshot, Any]:
    """An engine for `setup`, a starting board as players set it up, and the state it starts in."""
    engine = engine_for(setup)
    board = starting_board(setup, rng)
    return engine, board, engine.start(board)
