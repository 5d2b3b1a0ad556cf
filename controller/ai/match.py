"""Whole games between players, every seat knowing only what it may: the benchmark's and the
tests' table. Pure (no I/O); the hidden information is dealt from the `rng` handed in.
"""

from __future__ import annotations

import contextlib
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from controller.ai import knowledge_for
from controller.ai.players import Player
from controller.games import registry
from controller.games.base import ActionNotAllowed, GameSetup
from controller.games.registry import engine_for
from controller.snapshot import empty_snapshot

#: Plies after which a game that cannot end by itself is ended (Flipop: by agreement; else a draw).
#: A game whose end is already fixed (`GameKnowledge.settled`) is ended by agreement at once.
MAX_PLIES = 200


@dataclass
class GameOutcome:
    winners: tuple[int, ...]
    plies: int
    #: Per seat, the processor seconds each of its moves took to choose (one core).
    think: list[list[float]] = field(default_factory=list)
    cut_short: bool = False
    #: Ended by agreement once the game's knowledge saw its end fixed (`GameKnowledge.settled`:
    #: Flipop's doors locked in forced moves), as players would end it.
    settled: bool = False


def start(setup: GameSetup, rng: random.Random) -> tuple[Any, Any]:
    """A game's engine and first state, from a starting board players would set up."""
    engine = engine_for(setup)
    spec = registry.get(setup.game)
    board = spec.play.setup_board(engine, rng) if spec.play.setup_board else empty_snapshot(setup.game)
    return engine, engine.start(board)


def play(setup: GameSetup, players: Sequence[Player], rng: random.Random, max_plies: int = MAX_PLIES) -> GameOutcome:
    """One whole game; `players[s]` plays seat s."""
    knowledge = knowledge_for(setup.game)
    engine, state = start(setup, rng)
    hidden = knowledge.deal(engine, state, rng)
    state = knowledge.resolve(engine, state, hidden)
    for seat, player in enumerate(players):  # as a computer seat is prepared while the board is set up
        warm = getattr(player, "warm", None)
        if warm is not None:
            warm(engine, knowledge.observe(engine, state, seat), seat, knowledge.private(engine, hidden, seat))
    think: list[list[float]] = [[] for _ in players]
    plies = 0
    cut = settled = False
    while not engine.is_over(state):
        seat = engine.to_move(state)
        if seat is None:
            break
        settled = knowledge.settled(engine, state) is not None
        if settled or plies >= max_plies:
            cut = not settled
            with contextlib.suppress(ActionNotAllowed):
                state = engine.action(state, "end-by-agreement")[0]
            break
        view = knowledge.observe(engine, state, seat)
        private = knowledge.private(engine, hidden, seat)
        cpu = time.process_time()
        choice = players[seat].choose(engine, view, seat, private, rng)
        think[seat].append(time.process_time() - cpu)
        hidden = knowledge.after_move(engine, state, choice.move, hidden, rng)
        state = engine.apply(state, choice.move)[0]
        plies += 1
    winners = engine.result(state).winners if engine.is_over(state) else None
    return GameOutcome(tuple(winners) if winners else tuple(range(len(players))), plies, think, cut, settled)
