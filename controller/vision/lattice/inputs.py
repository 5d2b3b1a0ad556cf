"""Stage *load* of the lattice reader: the lattice's size and a picture's labels as a person
writes them (`referee lattice learn --size 9x9 --labels FILE`)."""

from __future__ import annotations

from controller.errors import FormatError, RefereeError
from controller.language import _


def parse_size(text: str) -> tuple[int, int]:
    """``"RxC"`` -> (R, C)."""
    parts = text.lower().replace("×", "x").split("x")
    try:
        if len(parts) != 2:
            raise ValueError
        r, c = int(parts[0]), int(parts[1])
    except ValueError:
        raise RefereeError(_("--size must look like 9x9 (rows x columns); got {text}", text=repr(text))) from None
    if not (2 <= r <= 100 and 2 <= c <= 100):
        raise RefereeError(_("--size: a lattice has 2 to 100 rows and columns; got {text}", text=repr(text)))
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
            raise FormatError(
                _("expected {cols} labels, found {found} in {line}", cols=cols, found=len(cells), line=repr(line)),
                _("{file}, line {number}", file=str(where), number=str(number)),
            )
        grid.append(cells)
    if len(grid) != rows:
        raise FormatError(
            _(
                "expected {rows} lines of labels for a {size} lattice, found {found}",
                rows=rows,
                size=f"{rows}x{cols}",
                found=len(grid),
            ),
            where,
        )
    return grid
