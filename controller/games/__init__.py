"""The rules engines, one module per game, and the registry that picks one for a setup."""

from __future__ import annotations

import importlib

from controller.games.base import Engine, GameSetup

_MODULES = {
    "colorpop": ("controller.games.colorpop", "ColorpopEngine"),
    "blockers": ("controller.games.blockers", "BlockersEngine"),
    "flipop": ("controller.games.flipop", "FlipopEngine"),
    "stay-alive": ("controller.games.stay_alive", "StayAliveEngine"),
}


def engine_for(setup: GameSetup) -> Engine:
    """The engine of `setup.game`, checked against the setup (seats, variant, players)."""
    module_name, class_name = _MODULES[setup.game]
    engine_class = getattr(importlib.import_module(module_name), class_name)
    return engine_class(setup)
