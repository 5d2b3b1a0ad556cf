"""Board snapshots: what the sensors saw when the board settled (`notation.md` §1), by game name.

One `Snapshot` type serves every game so vision, the engines, the journal and the tests share
it (`controller.games.spec`). How a game's snapshot is written (its cells and its lines besides
the grid, such as Flipop's `doors:`) is described by the game itself; these functions find the
game in the catalogue by the name a record or a command gives, so nothing here knows any game.
"""

from __future__ import annotations

from controller.errors import FormatError
from controller.games import registry
from controller.games.spec import EMPTY, Snapshot
from controller.language import _

__all__ = [
    "EMPTY",
    "Snapshot",
    "empty_snapshot",
    "format_snapshot",
    "parse_snapshot",
    "tells_nothing_new",
    "with_required_lines",
]


def parse_snapshot(
    game: str,
    text: str,
    *,
    letters: str | None = None,
    shape: tuple[int, int] | None = None,
    where: str = "snapshot",
) -> Snapshot:
    """Read a snapshot of `game` from its text form.

    `letters` are the piece letters the board profile allows (defaults per game); `where`
    prefixes error messages so a person knows which snapshot of a record is wrong.
    """
    if not registry.known(game):
        raise FormatError(
            _("unknown game {game}; expected one of {games}", game=repr(game), games=", ".join(registry.names())), where
        )
    return registry.get(game).parse_snapshot(text, letters=letters, shape=shape, where=where)


def format_snapshot(snap: Snapshot) -> str:
    """The text form of a snapshot, as `notation.md` writes it (ends with a newline)."""
    return registry.get(snap.game).format_snapshot(snap)


def with_required_lines(game: str, text: str, shape: tuple[int, int] | None = None) -> str:
    """`text` with the required lines it lacks, at a fresh board's tokens (`GameSpec.with_required_lines`)."""
    return registry.get(game).with_required_lines(text, shape)


def empty_snapshot(game: str, shape: tuple[int, int] | None = None) -> Snapshot:
    return registry.get(game).empty_snapshot(shape)


def tells_nothing_new(new: Snapshot, old: Snapshot) -> bool:
    """The reading `new` differs from `old` only where it knows less (`GameSpec.tells_nothing_new`)."""
    return new.game == old.game and registry.get(new.game).tells_nothing_new(new, old)
