"""The rules engines, one module per game; `registry` says which games there are."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from controller.games.base import Engine, GameSetup


def engine_for(setup: GameSetup) -> Engine:
    """The engine of `setup.game`, checked against the setup (seats, variant, players)."""
    from controller.games import registry

    return registry.get(setup.game).engine_class()(setup)
