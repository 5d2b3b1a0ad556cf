"""Players the levels and the benchmark use: the search at a level, and the two yardsticks
(`bench/ai_bench.py`): a uniformly random player and a one-ply greedy player.

Every player has the same interface as the search: `choose(engine, view, seat, private, rng)`,
where `view` is the state as the seat sees it and `private` what it alone knows.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass
from typing import Any, Protocol

from controller.ai import knowledge_for
from controller.ai.knowledge import GameKnowledge
from controller.ai.search import Choice, Search, SearchSettings, players_of, rewards_of


class Player(Protocol):
    name: str

    def choose(self, engine: Any, view: Any, seat: int, private: Any, rng: random.Random) -> Choice: ...


@dataclass
class RandomPlayer:
    """Any legal move, each as likely (as the seat knows them: Blockers! from its own rack)."""

    knowledge: GameKnowledge
    name: str = "random"

    def choose(self, engine: Any, view: Any, seat: int, private: Any, rng: random.Random) -> Choice:
        started = time.perf_counter()
        moves = list(self.knowledge.moves(engine, view, private))
        return Choice(moves[rng.randrange(len(moves))] if moves else None, 0, time.perf_counter() - started)


@dataclass
class GreedyPlayer:
    """One ply: the move whose position the game's evaluation judges best for the mover (the move
    that most improves its own score or least helps an opponent, as the game defines it), averaged
    over a few determinizations where information is hidden; ties broken at random."""

    knowledge: GameKnowledge
    samples: int = 8
    name: str = "greedy"

    def choose(self, engine: Any, view: Any, seat: int, private: Any, rng: random.Random) -> Choice:
        started = time.perf_counter()
        knowledge = self.knowledge
        moves = list(knowledge.moves(engine, view, private))
        if len(moves) <= 1:
            return Choice(moves[0] if moves else None, 0, time.perf_counter() - started)
        players = players_of(engine)
        worlds = []
        for _ in range(self.samples):
            hidden = knowledge.sample(engine, view, seat, private, rng)
            worlds.append(knowledge.resolve(engine, view, hidden))
            if hidden is None:
                break
        scores = []
        for move in moves:
            total = 0.0
            for state in worlds:
                total += rewards_of(engine, engine.apply(state, move)[0], knowledge, players)[seat]
            scores.append(total / len(worlds))
        best = max(scores)
        top = [m for m, s in zip(moves, scores) if s >= best - 1e-9]
        stats = tuple(sorted(((m, len(worlds), s) for m, s in zip(moves, scores)), key=lambda t: -t[2]))
        return Choice(top[rng.randrange(len(top))], len(worlds), time.perf_counter() - started, stats)


@dataclass
class SearchPlayer:
    """The search at one level."""

    search: Search
    name: str

    def choose(self, engine: Any, view: Any, seat: int, private: Any, rng: random.Random) -> Choice:
        return self.search.choose(engine, view, seat, private, rng)

    def warm(self, engine: Any, view: Any, seat: int, private: Any) -> None:
        """Before the game's clock starts: fill the engine's caches (`Search.warm`)."""
        self.search.warm(engine, view, seat, private)


def baseline(game: str, name: str) -> Player:
    """The yardsticks of the benchmark: "random" or "greedy"."""
    knowledge = knowledge_for(game)
    return RandomPlayer(knowledge) if name == "random" else GreedyPlayer(knowledge)


def search_player(game: str, name: str, settings: SearchSettings) -> SearchPlayer:
    return SearchPlayer(Search(knowledge_for(game), settings), name)
