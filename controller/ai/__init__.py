"""The computer player and coach: one search for every game (`search`), levels (`levels`), and
what each game declares it knows besides its rules (`knowledge`, `GameSpec.ai`)."""

from __future__ import annotations

import importlib
from functools import cache

from controller.ai.knowledge import GameKnowledge
from controller.games import registry


@cache
def knowledge_for(game: str) -> GameKnowledge:
    """The game's declared knowledge (`GameSpec.ai`), or the defaults (perfect information, no evaluation)."""
    name = registry.get(game).ai
    if not name:
        return GameKnowledge()
    module_name, _, attribute = name.partition(":")
    return getattr(importlib.import_module(module_name), attribute)
