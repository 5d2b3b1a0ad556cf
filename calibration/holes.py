"""Deriving a Stay Alive copy's hole pattern from nine observations of its grid.

Set every orange slide to position p and every white slide to position q, and note which points
are open (the camera, or an eye, sees through them). Doing this for the nine pairs (p, q) in
{A, B, C} x {A, B, C} tells everything the rules need, because a point (r, c) depends only on
its own two slides: it is open exactly when orange slide r has a hole under column c at ITS
position and white slide c has a hole over row r at ITS position. So per point the nine
observations form a 3x3 matrix M[p][q] = o[p] AND w[q], with o, w two 0/1 vectors of length 3:
a rank-one boolean matrix. From M:
- if some entry is open, o[p] = "row p of M has an open entry" and w[q] likewise, uniquely;
- if nothing is ever open, only "o = 0 or w = 0" is known. Which slide lacks the hole cannot be
  seen and does not matter to the rules: the derived pattern gives neither slide a hole there;
- if M is not such an outer product, no hole pattern explains the observations: the point is
  reported (a misread grid, or a slide not fully in position).

Grid text format (`referee holes derive --grids FILE`): nine blocks, each a header line
``orange P white Q`` (P, Q one of A B C) followed by 7 lines of 7 cells, ``o`` for an open
point, ``.`` for a closed one (spaces between cells optional). Blank lines and lines starting with
``#`` are ignored; the blocks may come in any order but each pair exactly once::

    orange A white A
    o . . o . . o
    . . . . . . .
    ...
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from controller.errors import FormatError
from controller.games.stay_alive.holes import POSITIONS, SIZE, HolePattern, per_position
from controller.games.stay_alive.rules import point_name
from controller.language import Text, _, _n, listed, literal

Cell = tuple[int, int]
#: One observation: per row, per column, True when the point is open.
Grid = tuple[tuple[bool, ...], ...]
#: The nine observations, keyed by (orange position, white position) letters.
Grids = dict[tuple[str, str], Grid]
#: A point's nine observations, M[p][q] with p, q indexes into POSITIONS.
Matrix = tuple[tuple[bool, bool, bool], ...]

OPEN, CLOSED = "o", "."
_HEADER = re.compile(r"^orange\s+([ABC])\s+white\s+([ABC])$", re.IGNORECASE)
PAIRS = tuple((p, q) for p in POSITIONS for q in POSITIONS)


def parse_grids(text: str, where: str = "grids") -> Grids:
    """Read the nine observation grids from their text form (format in the module docstring)."""
    grids: dict[tuple[str, str], list[tuple[bool, ...]]] = {}
    header_line: dict[tuple[str, str], int] = {}
    current: tuple[str, str] | None = None
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        at = f"{where}, line {number}"
        if not line or line.startswith("#"):
            continue
        header = _HEADER.match(line)
        if header:
            if current is not None and len(grids[current]) != SIZE:
                raise FormatError(_rows_wrong(current, len(grids[current])), at)
            current = (header.group(1).upper(), header.group(2).upper())
            if current in grids:
                raise FormatError(
                    _(
                        "a second block for orange {orange} white {white} (the first is at line {line})",
                        orange=current[0],
                        white=current[1],
                        line=literal(str(header_line[current])),
                    ),
                    at,
                )
            grids[current] = []
            header_line[current] = number
            continue
        if current is None:
            raise FormatError(_("expected a header 'orange P white Q' before the grid rows"), at)
        cells = [ch for ch in line if not ch.isspace()]
        if len(cells) != SIZE or any(ch.lower() not in (OPEN, CLOSED) for ch in cells):
            raise FormatError(
                _("expected {n} cells, each 'o' (open) or '.' (closed); got {line}", n=SIZE, line=repr(line)), at
            )
        if len(grids[current]) == SIZE:
            raise FormatError(
                _(
                    "the block 'orange {orange} white {white}' has more than {n} rows",
                    orange=current[0],
                    white=current[1],
                    n=SIZE,
                ),
                at,
            )
        grids[current].append(tuple(ch.lower() == OPEN for ch in cells))
    if current is not None and len(grids[current]) != SIZE:
        raise FormatError(_rows_wrong(current, len(grids[current])), where)
    missing = [_("orange {orange} white {white}", orange=p, white=q) for p, q in PAIRS if (p, q) not in grids]
    if missing:
        raise FormatError(_("missing observation blocks: {blocks}", blocks=listed(missing, conjunction=None)), where)
    return {pair: tuple(rows) for pair, rows in grids.items()}


def _rows_wrong(block: tuple[str, str], rows: int) -> Text:
    return _n(
        "the block 'orange {orange} white {white}' has {n} row, expected {size}",
        "the block 'orange {orange} white {white}' has {n} rows, expected {size}",
        rows,
        orange=block[0],
        white=block[1],
        size=SIZE,
    )


def format_grids(grids: Grids) -> str:
    """The text form of nine observation grids (what `parse_grids` reads)."""
    lines = []
    for p, q in PAIRS:
        lines.append(f"orange {p} white {q}")
        for row in grids[(p, q)]:
            lines.append(" ".join(OPEN if cell else CLOSED for cell in row))
        lines.append("")
    return "\n".join(lines)


def observe(pattern: HolePattern) -> Grids:
    """The nine grids a copy with this hole pattern shows (all orange at p, all white at q)."""
    out: Grids = {}
    for p, q in PAIRS:
        opened = pattern.open_points((p,) * SIZE, (q,) * SIZE)
        out[(p, q)] = tuple(tuple((r, c) in opened for c in range(SIZE)) for r in range(SIZE))
    return out


def point_matrix(grids: Grids, cell: Cell) -> Matrix:
    r, c = cell
    return tuple(per_position(grids[(p, q)][r][c] for q in POSITIONS) for p in POSITIONS)


def factor(matrix: Matrix) -> tuple[tuple[bool, ...], tuple[bool, ...], bool]:
    """The smallest (orange, white) hole vectors covering `matrix`, and whether they reproduce it."""
    orange = tuple(any(row) for row in matrix)
    white = tuple(any(matrix[p][q] for p in range(3)) for q in range(3))
    exact = all(matrix[p][q] == (orange[p] and white[q]) for p in range(3) for q in range(3))
    return orange, white, exact


@dataclass(frozen=True)
class Derivation:
    """A derived hole pattern and what the observations could not tell or could not explain."""

    pattern: HolePattern
    #: Points never seen open: no slide is given a hole there (which one lacks it is unknowable).
    never_open: tuple[Cell, ...]
    #: Points whose nine observations no hole pattern explains, with their 3x3 matrix.
    inconsistent: tuple[tuple[Cell, Matrix], ...]

    @property
    def ok(self) -> bool:
        return not self.inconsistent


def derive(grids: Grids) -> Derivation:
    """The hole pattern that reproduces the nine grids, point by point."""
    orange = [[0, 0, 0] for _ in range(SIZE)]  # per row, per position: mask over columns
    white = [[0, 0, 0] for _ in range(SIZE)]  # per column, per position: mask over rows
    never_open: list[Cell] = []
    inconsistent: list[tuple[Cell, Matrix]] = []
    for r in range(SIZE):
        for c in range(SIZE):
            matrix = point_matrix(grids, (r, c))
            o, w, exact = factor(matrix)
            if not exact:
                inconsistent.append(((r, c), matrix))
            if not any(o):
                never_open.append((r, c))
            for p in range(3):
                if o[p]:
                    orange[r][p] |= 1 << c
                if w[p]:
                    white[c][p] |= 1 << r
    pattern = HolePattern(
        orange=tuple(per_position(s) for s in orange),
        white=tuple(per_position(s) for s in white),
    )
    return Derivation(pattern, tuple(never_open), tuple(inconsistent))


def _matrix_text(matrix: Matrix) -> str:
    rows = []
    for p, row in zip(POSITIONS, matrix):
        seen = listed(
            [_("white {white} {seen}", white=q, seen=OPEN if v else CLOSED) for q, v in zip(POSITIONS, row)],
            conjunction=" ",
        )
        rows.append(_("orange {orange}: {seen}", orange=p, seen=seen))
    return listed(rows, separator=";") if len(rows) > 1 else rows[0]


def report(derivation: Derivation) -> str:
    """What the derivation found, in sentences for the person calibrating the copy (one per line)."""
    lines: list[Text] = []
    if derivation.inconsistent:
        lines.append(
            _n(
                "{n} point shows observations that no hole pattern can explain (a point opens exactly when both "
                "its slides have a hole, so its open settings must form a full rectangle of orange and white "
                "positions). Check these grids again:",
                "{n} points show observations that no hole pattern can explain (a point opens exactly when both "
                "its slides have a hole, so its open settings must form a full rectangle of orange and white "
                "positions). Check these grids again:",
                len(derivation.inconsistent),
            )
        )
        for (r, c), matrix in derivation.inconsistent:
            lines.append(
                _(
                    "  point {point} (orange slide {orange}, white slide {white}): {seen}",
                    point=point_name((r, c)),
                    orange=r + 1,
                    white=c + 1,
                    seen=_matrix_text(matrix),
                )
            )
    else:
        lines.append(_("All nine observations are explained by one hole pattern."))
    if derivation.never_open:
        points = listed([point_name(cell) for cell in derivation.never_open], conjunction=None)
        lines.append(
            _n(
                "{n} point never opened: {points}. For it the pattern gives neither slide a hole; which slide "
                "really lacks it cannot be seen, and it does not matter: that point never opens in any setting.",
                "{n} points never opened: {points}. For them the pattern gives neither slide a hole; which slide "
                "really lacks it cannot be seen, and it does not matter: those points never open in any setting.",
                len(derivation.never_open),
                points=points,
            )
        )
    lines.append(
        _(
            "Every other hole is determined: the pattern predicts, for every point and every pair of positions of "
            "its two slides, exactly what the grids showed."
        )
    )
    return listed(lines, conjunction="\n") if len(lines) > 1 else lines[0]


def holes_yaml(pattern: HolePattern) -> str:
    """The profile's `holes:` key for this pattern, one line per slide as the default profile writes it."""
    mapping = pattern.to_mapping()
    lines = ["holes:"]
    for layer, what in (("orange", "row"), ("white", "column")):
        lines.append(f"  {layer}:")
        for i, slide in enumerate(mapping[layer]):
            lines.append(f'    - {{A: "{slide["A"]}", B: "{slide["B"]}", C: "{slide["C"]}"}}   # {what} {i}')
    return "\n".join(lines) + "\n"
