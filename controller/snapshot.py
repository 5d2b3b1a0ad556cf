"""Board snapshots: what the sensors saw when the board settled (`notation.md` §1).

One `Snapshot` type serves all four games so vision, the engines, the journal and the tests
share it. An empty place is always ``"."`` in memory (Blockers! prints it as ``..``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from controller.errors import FormatError

EMPTY = "."
GAMES = ("colorpop", "blockers", "flipop", "stay-alive")

#: Lattice size of each game (rows, cols).
SHAPES: dict[str, tuple[int, int]] = {
    "colorpop": (10, 10),
    "blockers": (9, 9),
    "flipop": (5, 5),
    "stay-alive": (7, 7),
}

#: Letters a snapshot may hold when the profile does not say otherwise.
DEFAULT_LETTERS: dict[str, str] = {
    "colorpop": "GYOBPJ",
    "blockers": "RGBYV",
    "flipop": "WB",
    "stay-alive": "RGBY",
}

BLOCKERS_GLYPHS = "123456789ABCDEFGHIabcdefghi*?"
WING_ORDER = "NESW"
UNKNOWN_DOOR = "?"
SLIDE_POSITIONS = "ABC"
FLIPOP_POSTS = 16


def canonical_door(token: str) -> str:
    """A door's wings in N E S W order, so ``EW`` and ``WE`` compare equal."""
    if token == UNKNOWN_DOOR:
        return token
    return "".join(d for d in WING_ORDER if d in token)


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
        return [
            (r, c)
            for r in range(self.rows)
            for c in range(self.cols)
            if self.cells[r][c] != other.cells[r][c]
        ]

    def to_text(self) -> str:
        return format_snapshot(self)

    def tells_nothing_new(self, previous: Snapshot) -> bool:
        """True when this reading differs from `previous` only where it knows less.

        A glyph or a door that was read before and shows as ``?`` now (glare, a passing shadow),
        or doors not read at all, is not a change on the board.
        """
        if (self.game, self.orange, self.white) != (previous.game, previous.orange, previous.white):
            return False
        if self.cells != previous.cells:
            for row, old_row in zip(self.cells, previous.cells):
                for new, old in zip(row, old_row):
                    if new != old and not (
                        self.game == "blockers" and new[-1:] == "?" and old != EMPTY and new[0] == old[0]
                    ):
                        return False
        if self.doors is None or self.doors == previous.doors:
            return True
        if previous.doors is None:
            return False
        return all(new in (old, UNKNOWN_DOOR) for new, old in zip(self.doors, previous.doors))


def _meaningful_lines(text: str) -> list[tuple[int, str]]:
    out = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        out.append((number, line))
    return out


def _split_cells(line: str) -> list[str]:
    """Cells of a one-character-per-place line; spaces between cells are optional."""
    return [ch for ch in line if not ch.isspace()]


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
    if game not in SHAPES:
        raise FormatError(f"unknown game {game!r}; expected one of {', '.join(GAMES)}", where)
    rows, cols = shape or SHAPES[game]
    allowed = letters if letters is not None else DEFAULT_LETTERS[game]
    lines = _meaningful_lines(text)
    doors: tuple[str, ...] | None = None
    orange: tuple[str, ...] | None = None
    white: tuple[str, ...] | None = None
    grid: list[tuple[int, list[str]]] = []

    for number, line in lines:
        at = f"{where}, line {number}"
        lowered = line.lower()
        if game == "flipop" and lowered.startswith("doors:"):
            if doors is not None:
                raise FormatError("a second 'doors:' line", at)
            doors = _parse_doors(line[len("doors:"):], at)
            continue
        if game == "stay-alive" and (lowered.startswith("orange:") or lowered.startswith("white:")):
            name, _, rest = line.partition(":")
            positions = tuple(_split_cells(rest))
            size = rows if name.lower() == "orange" else cols
            if len(positions) != size or any(p not in SLIDE_POSITIONS for p in positions):
                raise FormatError(
                    f"'{name.lower()}:' needs {size} slide positions, each A, B or C; got {rest.strip()!r}",
                    at,
                )
            if name.lower() == "orange":
                if orange is not None:
                    raise FormatError("a second 'orange:' line", at)
                orange = positions
            else:
                if white is not None:
                    raise FormatError("a second 'white:' line", at)
                white = positions
            continue
        if doors is not None:
            raise FormatError("board rows must come before the 'doors:' line", at)
        if game == "blockers":
            cells = _parse_blockers_row(line, cols, allowed, at)
        else:
            cells = _split_cells(line)
            if len(cells) != cols:
                raise FormatError(f"expected {cols} cells, found {len(cells)} in {line!r}", at)
            for ch in cells:
                if ch != EMPTY and ch not in allowed:
                    raise FormatError(
                        f"unknown cell {ch!r}; expected one of {' '.join(allowed)} or '.'", at
                    )
        grid.append((number, cells))

    if len(grid) != rows:
        raise FormatError(f"a {game} snapshot has {rows} board rows, found {len(grid)}", where)
    if game == "stay-alive" and (orange is None or white is None):
        missing = "orange:" if orange is None else "white:"
        raise FormatError(f"a stay-alive snapshot needs its '{missing}' line of slide positions", where)
    return Snapshot(
        game=game,
        cells=tuple(tuple(cells) for _, cells in grid),
        doors=doors,
        orange=orange,
        white=white,
    )


def _parse_blockers_row(line: str, cols: int, colours: str, at: str) -> list[str]:
    tokens = line.split()
    if len(tokens) != cols:
        raise FormatError(
            f"expected {cols} cells of two characters separated by spaces, found {len(tokens)}", at
        )
    cells = []
    for tok in tokens:
        if tok == "..":
            cells.append(EMPTY)
            continue
        if len(tok) != 2 or tok[0] not in colours or tok[1] not in BLOCKERS_GLYPHS:
            raise FormatError(
                f"bad cell {tok!r}: expected '..' or a colour ({' '.join(colours)}) followed by "
                "a glyph (1-9, A-I, a-i, * or ?)",
                at,
            )
        cells.append(tok)
    return cells


_DOOR_TOKEN = re.compile(r"^(\?|[NESW]{1,4})$")


def _parse_doors(rest: str, at: str) -> tuple[str, ...]:
    tokens = rest.split()
    if len(tokens) != FLIPOP_POSTS:
        raise FormatError(f"'doors:' needs {FLIPOP_POSTS} door tokens, found {len(tokens)}", at)
    out = []
    for tok in tokens:
        if not _DOOR_TOKEN.match(tok) or len(set(tok)) != len(tok):
            raise FormatError(
                f"bad door {tok!r}: expected wing letters from N E S W (each at most once) or '?'",
                at,
            )
        out.append(canonical_door(tok))
    return tuple(out)


def format_snapshot(snap: Snapshot) -> str:
    """The text form of a snapshot, as `notation.md` writes it (ends with a newline)."""
    lines: list[str] = []
    if snap.game == "stay-alive":
        lines.append("orange: " + " ".join(snap.orange or ()))
        lines.append("white:  " + " ".join(snap.white or ()))
    for row in snap.cells:
        if snap.game == "blockers":
            lines.append(" ".join(".." if c == EMPTY else c for c in row))
        else:
            lines.append(" ".join(row))
    if snap.game == "flipop" and snap.doors is not None:
        lines.append("doors: " + " ".join(snap.doors))
    return "\n".join(lines) + "\n"


def empty_snapshot(game: str, shape: tuple[int, int] | None = None) -> Snapshot:
    rows, cols = shape or SHAPES[game]
    cells = tuple(tuple(EMPTY for _ in range(cols)) for _ in range(rows))
    if game == "stay-alive":
        return Snapshot(game, cells, orange=("A",) * rows, white=("A",) * cols)
    return Snapshot(game, cells)
