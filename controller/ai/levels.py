"""The computer's levels, from a beginner a child can beat to the strongest that fits the time.

A level is the one search (`controller.ai.search`) given more or less to think with: iterations
(scaled by each game's `effort`, so a level takes about the same time in every game) and, for the
beginner, a choice among the moves it looked at in proportion to how much it liked them rather
than always the best. Every level also stops at a wall-clock limit, so a slow machine (a Pi is
three to four times slower than the development machine) plays weaker rather than late.
`bench/ai_bench.py` measures each level against a random and a greedy player and the level below.
"""

from __future__ import annotations

from controller.ai.players import SearchPlayer, search_player
from controller.ai.search import SearchSettings

LEVELS: dict[str, SearchSettings] = {
    "beginner": SearchSettings(iterations=30, temperature=1.0, seconds=2.0),
    "club": SearchSettings(iterations=200, seconds=3.0),
    "strong": SearchSettings(iterations=800, seconds=4.0),
}
#: The level a computer seat plays when none is named, and the one the coach's hint asks.
DEFAULT_LEVEL = "club"
HINT_LEVEL = "strong"


def level_names() -> tuple[str, ...]:
    """Weakest first."""
    return tuple(LEVELS)


def player(game: str, level: str) -> SearchPlayer:
    """The search of `level` for `game` (a KeyError for an unknown level: callers check names)."""
    return search_player(game, level, LEVELS[level])
