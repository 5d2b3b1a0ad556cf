"""Blockers! board geometry: where each glyph may go, cell names, and the no-split test.

Kept apart from the engine so that a copy with a different symbol map is only a profile change:
everything here is computed once from the profile's `symbols` and `regions`.
"""

from __future__ import annotations

from collections.abc import Sequence

from controller.errors import FormatError
from controller.language import Named, _, as_text, listed

Cell = tuple[int, int]

SIZE = 9
ROW_LETTERS = "ABCDEFGHI"
DIGITS = "123456789"
SYMBOL_LETTERS = "abcdefghi"
WILD = "*"
UNREAD = "?"
EMPTY = "."
#: The 28 tiles of one colour, by glyph: nine digits, nine letters, nine symbols, the wild tile.
ALL_GLYPHS: frozenset[str] = frozenset(DIGITS + ROW_LETTERS + SYMBOL_LETTERS + WILD)
ALL_CELLS: tuple[Cell, ...] = tuple((r, c) for r in range(SIZE) for c in range(SIZE))
_STEPS = ((-1, 0), (1, 0), (0, -1), (0, 1))


def cell_name(cell: Cell) -> str:
    """A cell as players name it: row letter then column number (C7 = row C, column 7)."""
    return f"{ROW_LETTERS[cell[0]]}{cell[1] + 1}"


def cell_list(cells: Sequence[Cell]) -> str:
    return listed(cell_name(c) for c in cells)


class BoardMap:
    """Where each glyph may be placed on one physical board (from its profile)."""

    def __init__(self, symbols: Sequence[str], regions: Sequence[str]) -> None:
        self.symbols = tuple(symbols)
        #: The region (band, column of regions) that bears each symbol letter.
        self.region_of: dict[str, tuple[int, int]] = {}
        for band, letters in enumerate(regions):
            for pos, letter in enumerate(letters):
                self.region_of[letter] = (band, pos)
        cells_for: dict[str, frozenset[Cell]] = {}
        for i, digit in enumerate(DIGITS):
            cells_for[digit] = frozenset((r, i) for r in range(SIZE))
        for i, letter in enumerate(ROW_LETTERS):
            cells_for[letter] = frozenset((i, c) for c in range(SIZE))
        for letter, (band, pos) in self.region_of.items():
            cells_for[letter] = frozenset((3 * band + dr, 3 * pos + dc) for dr in range(3) for dc in range(3))
        cells_for[WILD] = frozenset(ALL_CELLS)
        #: Every cell each glyph may go to, and (sorted, for deterministic scans) as a tuple.
        self.cells_for = cells_for
        self.cells_in_order = {g: tuple(sorted(cs)) for g, cs in cells_for.items()}
        #: The four glyphs that fit each cell: its column digit, row letter, region symbol, wild.
        self.fits: dict[Cell, frozenset[str]] = {
            (r, c): frozenset((DIGITS[c], ROW_LETTERS[r], self.symbol_at((r, c)), WILD)) for r, c in ALL_CELLS
        }

    def symbol_at(self, cell: Cell) -> str:
        band, pos = cell[0] // 3, cell[1] // 3
        for letter, where in self.region_of.items():
            if where == (band, pos):
                return letter
        raise ValueError(f"no region covers {cell_name(cell)}")

    def symbol_name(self, letter: str) -> Named:
        """A symbol as the profile names it (`moon`), said in the players' language where the catalogue knows it."""
        return Named(self.symbols[SYMBOL_LETTERS.index(letter)], "symbol")

    def region_text(self, letter: str) -> str:
        band, pos = self.region_of[letter]
        rows = ROW_LETTERS[3 * band] + "-" + ROW_LETTERS[3 * band + 2]
        return _(
            "the {symbol} region (rows {rows}, columns {columns})",
            symbol=self.symbol_name(letter),
            rows=rows,
            columns="-".join((str(3 * pos + 1), str(3 * pos + 3))),
        )

    def place_text(self, glyph: str) -> str:
        """Where a glyph may go, in words: 'column 7', 'row C', 'the moon region (...)'."""
        if glyph in DIGITS:
            return _("column {column}", column=glyph)
        if glyph in ROW_LETTERS:
            return _("row {row}", row=glyph)
        if glyph in SYMBOL_LETTERS:
            return self.region_text(glyph)
        return _("any cell")

    def glyph_text(self, glyph: str) -> str:
        """A glyph as players call it: '7', 'C', 'moon', 'wild'."""
        if glyph in SYMBOL_LETTERS:
            return as_text(self.symbol_name(glyph))
        if glyph == WILD:
            return _("wild")
        return glyph


def same_colour_neighbours(board: Sequence[Sequence[str]], cell: Cell, colour: str) -> list[Cell]:
    r, c = cell
    out = []
    for dr, dc in _STEPS:
        nr, nc = r + dr, c + dc
        if 0 <= nr < SIZE and 0 <= nc < SIZE:
            v = board[nr][nc]
            if v != EMPTY and v[0] == colour:
                out.append((nr, nc))
    return out


def group_of(board: Sequence[Sequence[str]], cell: Cell) -> set[Cell]:
    """The maximal orthogonally connected set of same-colour tiles holding `cell`."""
    colour = board[cell[0]][cell[1]][0]
    seen = {cell}
    todo = [cell]
    while todo:
        for nb in same_colour_neighbours(board, todo.pop(), colour):
            if nb not in seen:
                seen.add(nb)
                todo.append(nb)
    return seen


def capture_splits(board: Sequence[Sequence[str]], cell: Cell) -> bool:
    """True when taking the tile at `cell` off leaves the rest of its group in several pieces.

    A lone tile or an end of a line (at most one same-colour neighbour) never splits; otherwise
    the neighbours must all stay connected to each other without `cell`.
    """
    colour = board[cell[0]][cell[1]][0]
    nbs = same_colour_neighbours(board, cell, colour)
    if len(nbs) <= 1:
        return False
    targets = set(nbs[1:])
    seen = {cell, nbs[0]}
    todo = [nbs[0]]
    while todo and targets:
        for nb in same_colour_neighbours(board, todo.pop(), colour):
            if nb not in seen:
                seen.add(nb)
                targets.discard(nb)
                todo.append(nb)
    return bool(targets)


#: Each place's orthogonal neighbours, places numbered row by row (r * SIZE + c).
_AROUND = tuple(
    tuple((r + dr) * SIZE + c + dc for dr, dc in _STEPS if 0 <= r + dr < SIZE and 0 <= c + dc < SIZE)
    for r in range(SIZE)
    for c in range(SIZE)
)


def cut_cells(board: Sequence[Sequence[str]]) -> frozenset[Cell]:
    """Every tile whose capture would split its group (`capture_splits` true), found for the whole
    board in one walk (the cut vertices of each colour's groups, Hopcroft and Tarjan): a computer's
    search asks it of every tile of a glyph in its rack, on boards it has never seen."""
    colour = [v[0] if v != EMPTY else "" for row in board for v in row]
    order = [-1] * (SIZE * SIZE)
    low = [0] * (SIZE * SIZE)
    cuts: set[Cell] = set()
    count = 0
    for root in range(SIZE * SIZE):
        if not colour[root] or order[root] >= 0:
            continue
        order[root] = low[root] = count
        count += 1
        root_children = 0
        stack = [(root, root, iter(_AROUND[root]))]
        while stack:
            node, parent, todo = stack[-1]
            for nb in todo:
                if colour[nb] != colour[node]:
                    continue
                if order[nb] < 0:
                    order[nb] = low[nb] = count
                    count += 1
                    root_children += node == root
                    stack.append((nb, node, iter(_AROUND[nb])))
                    break
                if nb != parent and order[nb] < low[node]:
                    low[node] = order[nb]
            else:
                stack.pop()
                if node != root:
                    if low[node] < low[parent]:
                        low[parent] = low[node]
                    if parent != root and low[node] >= order[parent]:
                        cuts.add(divmod(parent, SIZE))
        if root_children > 1:
            cuts.add(divmod(root, SIZE))
    return frozenset(cuts)


def count_groups(board: Sequence[Sequence[str]], colour: str) -> int:
    """How many groups (lone tiles included) of `colour` lie on the board."""
    seen: set[Cell] = set()
    groups = 0
    for r in range(SIZE):
        for c in range(SIZE):
            v = board[r][c]
            if v != EMPTY and v[0] == colour and (r, c) not in seen:
                groups += 1
                seen |= group_of(board, (r, c))
    return groups


#: What the second character of a snapshot cell may be: a glyph, `*` the wild tile, `?` unread.
GLYPHS = "123456789ABCDEFGHIabcdefghi*?"
UNREAD = "?"


def parse_row(line: str, cols: int, colours: str, at: str) -> list[str]:
    """One snapshot row of two-character cells (`R5`, `..`) separated by single spaces."""
    tokens = line.split()
    if len(tokens) != cols:
        raise FormatError(
            _(
                "expected {cols} cells of two characters separated by spaces, found {found}",
                cols=str(cols),
                found=str(len(tokens)),
            ),
            at,
        )
    cells = []
    for tok in tokens:
        if tok == "..":
            cells.append(".")
            continue
        if len(tok) != 2 or tok[0] not in colours or tok[1] not in GLYPHS:
            raise FormatError(
                _(
                    "bad cell {cell}: expected '..' or a colour ({colours}) followed by a glyph (1-9, A-I, a-i, * "
                    "or ?)",
                    cell=repr(tok),
                    colours=" ".join(colours),
                ),
                at,
            )
        cells.append(tok)
    return cells


def knows_less(new: str, old: str) -> bool:
    """A tile read again with its glyph unread (`R?` where `R5` was) is the same tile."""
    return new[-1:] == UNREAD and old != "." and new[:1] == old[:1]
