"""The catalogue: which games the referee knows, as an explicit list of their packages.

Why a list (as OpenSpiel's `games/__init__.py` is): a game is one package that declares
everything it adds in its `SPEC` (`controller.games.spec.GameSpec`); adding one is a package and
one line here. Everything outside the game packages (snapshots, records, profiles, the service,
vision, the simulation) asks this catalogue for a game's facts by name, never compares the name.

A game defined elsewhere (the test suite's) is added for a while with `registered(spec)`, which
puts the catalogue back as it was afterwards.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, TypeGuard

from controller.errors import RefereeError
from controller.games import blockers, colorpop, flipop, stay_alive
from controller.games.spec import GameSpec
from controller.language import _

if TYPE_CHECKING:
    from controller.games.base import Engine, GameSetup
    from controller.games.rulebook import Rule

#: The built-in games, in the order the referee lists them.
BUILT_IN: tuple[GameSpec, ...] = (colorpop.SPEC, blockers.SPEC, flipop.SPEC, stay_alive.SPEC)

_games: dict[str, GameSpec] = {spec.name: spec for spec in BUILT_IN}
_lock = threading.RLock()


@contextmanager
def registered(spec: GameSpec) -> Iterator[GameSpec]:
    """`spec` known while the block runs (a game defined outside the catalogue, e.g. in tests);
    the catalogue is as it was afterwards, even when the block fails."""
    with _lock:
        before = _games.get(spec.name)
        _games[spec.name] = spec
    try:
        yield spec
    finally:
        with _lock:
            if before is None:
                _games.pop(spec.name, None)
            else:
                _games[spec.name] = before


def names() -> tuple[str, ...]:
    """Every known game's name, built-in games first."""
    return tuple(_games)


def get(name: str) -> GameSpec:
    """The description of game `name`; a RefereeError naming the known games if there is none."""
    spec = _games.get(name)
    if spec is None:
        raise RefereeError(_("unknown game {name}; expected one of {value}", name=repr(name), value=", ".join(_games)))
    return spec


def with_capability(test: Callable[[GameSpec], bool]) -> tuple[GameSpec, ...]:
    """Every known game for which `test` holds, built-in games first (e.g. those taking a picture)."""
    return tuple(spec for spec in map(get, names()) if test(spec))


def known(name: Any) -> TypeGuard[str]:
    """Whether `name` is the name of a game in the catalogue."""
    return isinstance(name, str) and name in _games


def find_rule(rule_id: Any) -> Rule | None:
    """The rule of this identifier among every known game's (None for an unknown one: an older journal's)."""
    if not isinstance(rule_id, str):
        return None
    game = rule_id.partition(".")[0]
    for name in [game] if known(game) else names():
        for rule in get(name).rules:
            if rule.id == rule_id:
                return rule
    return None


def engine_for(setup: GameSetup) -> Engine:
    """The engine of `setup.game`, checked against the setup (seats, variant, players)."""
    return get(setup.game).engine(setup)
