"""Grid helpers shared by every game: neighbours and orthogonally connected groups."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from functools import lru_cache

Cell = tuple[int, int]

#: Unit steps by compass direction; rows grow downwards (towards the bottom of the image).
STEPS: dict[str, Cell] = {"N": (-1, 0), "E": (0, 1), "S": (1, 0), "W": (0, -1)}
OPPOSITE = {"N": "S", "S": "N", "E": "W", "W": "E"}


def neighbours(cell: Cell, rows: int, cols: int) -> list[Cell]:
    """Orthogonal neighbours of `cell` that lie on a rows x cols board."""
    r, c = cell
    out = []
    for dr, dc in STEPS.values():
        nr, nc = r + dr, c + dc
        if 0 <= nr < rows and 0 <= nc < cols:
            out.append((nr, nc))
    return out


def flood(start: Cell, member: Callable[[Cell], bool], rows: int, cols: int) -> set[Cell]:
    """The orthogonally connected set of cells reachable from `start` through `member` cells."""
    if not member(start):
        return set()
    seen = {start}
    todo = [start]
    while todo:
        cell = todo.pop()
        for nb in neighbours(cell, rows, cols):
            if nb not in seen and member(nb):
                seen.add(nb)
                todo.append(nb)
    return seen


def connected_groups(cells: Iterable[Cell]) -> list[set[Cell]]:
    """Split a set of cells into its orthogonally connected parts."""
    remaining = set(cells)
    groups = []
    while remaining:
        start = remaining.pop()
        group = {start}
        todo = [start]
        while todo:
            r, c = todo.pop()
            for dr, dc in STEPS.values():
                nb = (r + dr, c + dc)
                if nb in remaining:
                    remaining.discard(nb)
                    group.add(nb)
                    todo.append(nb)
        groups.append(group)
    return groups


def groups_by_value(grid: Sequence[Sequence[str]], key: Callable[[str], str | None]) -> list[tuple[str, set[Cell]]]:
    """Maximal connected groups of cells whose `key` is equal (cells with key None are skipped).

    Each cell's key is computed once and the flood walks flat indices: the computer player lists
    Colorpop's groups thousands of times a move (`controller.ai`), so this is kept tight.
    """
    rows, cols = len(grid), len(grid[0]) if grid else 0
    keys = [key(v) for row in grid for v in row]
    seen = [k is None for k in keys]
    around, cells = _flat_grid(rows, cols)
    out: list[tuple[str, set[Cell]]] = []
    for start, k in enumerate(keys):
        if seen[start] or k is None:  # a key of None is never grouped (seen from the start)
            continue
        seen[start] = True
        group = [start]
        for i in group:  # grows while it is walked
            for j in around[i]:
                if not seen[j] and keys[j] == k:
                    seen[j] = True
                    group.append(j)
        out.append((k, {cells[i] for i in group}))
    return out


@lru_cache(maxsize=16)
def _flat_grid(rows: int, cols: int) -> tuple[tuple[tuple[int, ...], ...], tuple[Cell, ...]]:
    """Per flat index (r * cols + c): its orthogonal neighbours' indices, and its cell."""
    size = rows * cols

    def next_to(i: int) -> tuple[int, ...]:
        steps = ((i - cols, i >= cols), (i + cols, i + cols < size), (i - 1, i % cols), (i + 1, (i + 1) % cols))
        return tuple(j for j, ok in steps if ok)

    around = tuple(next_to(i) for i in range(size))
    return around, tuple(divmod(i, cols) for i in range(size))


def splits_group(group: set[Cell], removed: Cell) -> bool:
    """True when taking `removed` out of the connected `group` leaves it in several pieces."""
    rest = group - {removed}
    return len(connected_groups(rest)) > 1
