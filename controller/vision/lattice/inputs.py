"""Stage *load* of the lattice reader: the lattice's size and a picture's labels as a person
writes them (`referee lattice learn --size 9x9 --labels FILE`)."""

from __future__ import annotations

from controller.errors import FormatError, RefereeError


def parse_size(text: str) -> tuple[int, int]:
    """``"RxC"`` -> (R, C)."""
    parts = text.lower().replace("×", "x").split("x")
    try:
        if len(parts) != 2:
            raise ValueError
        r, c = int(parts[0]), int(parts[1])
    except ValueError:
        raise RefereeError(f"--size must look like 9x9 (rows x columns); got {text!r}") from None
    if not (2 <= r <= 100 and 2 <= c <= 100):
        raise RefereeError(f"--size: a lattice has 2 to 100 rows and columns; got {text!r}")
    return r, c


def parse_labels(text: str, size: tuple[int, int], where: str = "labels") -> list[list[str]]:
    """R lines of C one-character labels, spaces between them optional; blank lines ignored."""
    rows, cols = size
    grid = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line:
            continue
        tokens = line.split()
        cells = tokens if all(len(t) == 1 for t in tokens) else [ch for ch in line if ch != " "]
        if len(cells) != cols:
            raise FormatError(f"expected {cols} labels, found {len(cells)} in {line!r}", f"{where}, line {number}")
        grid.append(cells)
    if len(grid) != rows:
        raise FormatError(f"expected {rows} lines of labels for a {rows}x{cols} lattice, found {len(grid)}", where)
    return grid
