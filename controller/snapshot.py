"""Board snapshots: what the sensors saw when the board settled (`notation.md` §1).

One `Snapshot` type serves every game so vision, the engines, the journal and the tests share
it. An empty place is always ``"."`` in memory. How a game's snapshot is written (its cells and
its extra lines, such as Flipop's `doors:`) is described by the game itself
(`controller.games.registry.GameSpec`), so nothing here knows any game by name.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from controller.errors import FormatError
from controller.games import registry

EMPTY = registry.EMPTY

#: Names kept here for the code that imported them from this module; each now lives with its game.
_MOVED = {
    "BLOCKERS_GLYPHS": ("controller.games.blockers_board", "GLYPHS"),
    "WING_ORDER": ("controller.games.flipop_doors", "WING_ORDER"),
    "UNKNOWN_DOOR": ("controller.games.flipop_doors", "UNKNOWN_DOOR"),
    "FLIPOP_POSTS": ("controller.games.flipop_doors", "POST_COUNT"),
    "canonical_door": ("controller.games.flipop_doors", "canonical_door"),
    "SLIDE_POSITIONS": ("controller.games.stay_alive_holes", "POSITIONS"),
}


def __getattr__(name: str) -> Any:
    """`GAMES`, `SHAPES`, `DEFAULT_LETTERS` from the registry (looked up when asked, never cached
    across registrations), and the constants that moved to their games."""
    if name == "GAMES":
        return registry.names()
    if name == "SHAPES":
        return {g: registry.get(g).shape for g in registry.names()}
    if name == "DEFAULT_LETTERS":
        return {g: registry.get(g).letters for g in registry.names()}
    if name in _MOVED:
        import importlib

        module, attr = _MOVED[name]
        return getattr(importlib.import_module(module), attr)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@dataclass(frozen=True)
class Snapshot:
    """One settled observation of a board.

    `doors` is Flipop's 16 door tokens (``None`` when the doors were not read), `orange` and
    `white` are Stay Alive's slide positions; they are ``None`` for games without them.
    """

    game: str
    cells: tuple[tuple[str, ...], ...]
    doors: tuple[str, ...] | None = None
    orange: tuple[str, ...] | None = None
    white: tuple[str, ...] | None = None

    @property
    def rows(self) -> int:
        return len(self.cells)

    @property
    def cols(self) -> int:
        return len(self.cells[0]) if self.cells else 0

    def at(self, row: int, col: int) -> str:
        return self.cells[row][col]

    def with_cells(self, cells: list[list[str]] | tuple[tuple[str, ...], ...]) -> Snapshot:
        return replace(self, cells=tuple(tuple(r) for r in cells))

    def changed_cells(self, other: Snapshot) -> list[tuple[int, int]]:
        """Places whose content differs between two snapshots of the same board."""
        return [(r, c) for r in range(self.rows) for c in range(self.cols) if self.cells[r][c] != other.cells[r][c]]

    def to_text(self) -> str:
        return format_snapshot(self)

    def tells_nothing_new(self, previous: Snapshot) -> bool:
        """True when this reading differs from `previous` only where it knows less.

        A cell or an extra-line token that was read before and shows as unknown now (a glyph
        unread this time, a door under glare), or an optional line not read at all, is not a
        change on the board. What counts as knowing less is the game's to say.
        """
        if self.game != previous.game:
            return False
        spec = registry.get(self.game)
        if self.cells != previous.cells:
            knows_less = spec.cells.knows_less
            for row, old_row in zip(self.cells, previous.cells):
                for new, old in zip(row, old_row):
                    if new != old and not (knows_less is not None and knows_less(new, old)):
                        return False
        for line in spec.extra_lines:
            new_value, old_value = getattr(self, line.field), getattr(previous, line.field)
            if new_value == old_value or (new_value is None and not line.required):
                continue
            if old_value is None or new_value is None or line.unknown is None:
                return False
            if not all(new in (old, line.unknown) for new, old in zip(new_value, old_value)):
                return False
        return True


def _meaningful_lines(text: str) -> list[tuple[int, str]]:
    out = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        out.append((number, line))
    return out


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
        raise FormatError(f"unknown game {game!r}; expected one of {', '.join(registry.names())}", where)
    spec = registry.get(game)
    rows, cols = shape or spec.shape
    allowed = letters if letters is not None else spec.letters
    extras: dict[str, tuple[str, ...]] = {}
    grid: list[list[str]] = []
    for number, line in _meaningful_lines(text):
        at = f"{where}, line {number}"
        key = line.partition(":")[0].strip().lower() if ":" in line else None
        extra = next((x for x in spec.extra_lines if x.key == key), None)
        if extra is not None:
            if extra.field in extras:
                raise FormatError(f"a second '{extra.key}:' line", at)
            extras[extra.field] = extra.parse(line.partition(":")[2], rows, cols, at)
            continue
        if any(not x.before_grid and x.field in extras for x in spec.extra_lines):
            after = next(x for x in spec.extra_lines if not x.before_grid and x.field in extras)
            raise FormatError(f"board rows must come before the '{after.key}:' line", at)
        grid.append(spec.cells.parse(line, cols, allowed, at))
    if len(grid) != rows:
        raise FormatError(f"a {game} snapshot has {rows} board rows, found {len(grid)}", where)
    for extra in spec.extra_lines:
        if extra.required and extra.field not in extras:
            raise FormatError(f"a {game} snapshot needs its '{extra.key}:' line", where)
    return Snapshot(game=game, cells=tuple(tuple(row) for row in grid), **extras)


def format_snapshot(snap: Snapshot) -> str:
    """The text form of a snapshot, as `notation.md` writes it (ends with a newline)."""
    spec = registry.get(snap.game)
    before: list[str] = []
    after: list[str] = []
    for extra in spec.extra_lines:
        value = getattr(snap, extra.field)
        if value is None:
            continue
        (before if extra.before_grid else after).append(f"{extra.key}:{extra.pad}" + " ".join(value))
    lines = before + [spec.cells.format(row) for row in snap.cells] + after
    return "\n".join(lines) + "\n"


def with_required_lines(game: str, text: str, shape: tuple[int, int] | None = None) -> str:
    """`text` with the required lines it lacks put in front, at their fresh board's tokens.

    For a snapshot whose required lines no camera sees (Stay Alive's slide positions come from
    the switches): the pictures `referee calibrate` learns from may be labelled by their cells alone.
    """
    spec = registry.get(game)
    rows, cols = shape or spec.shape
    keys = {line.partition(":")[0].strip().lower() for _, line in _meaningful_lines(text) if ":" in line}
    missing = [x for x in spec.extra_lines if x.required and x.default is not None and x.key not in keys]
    head, tail = (
        "".join(f"{x.key}:{x.pad}" + " ".join(x.default(rows, cols)) + "\n" for x in missing if x.before_grid == before)
        for before in (True, False)
    )
    return head + text + ("\n" if tail and not text.endswith("\n") else "") + tail


def empty_snapshot(game: str, shape: tuple[int, int] | None = None) -> Snapshot:
    spec = registry.get(game)
    rows, cols = shape or spec.shape
    cells = tuple(tuple(EMPTY for _ in range(cols)) for _ in range(rows))
    extras = {x.field: x.default(rows, cols) for x in spec.extra_lines if x.default is not None}
    return Snapshot(game, cells, **extras)
