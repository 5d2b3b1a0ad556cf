"""Stay Alive's hole model: which marble points are open for given slide positions.

Under the 7x7 grid lie 7 orange slides (one per row) and 7 white slides (one per column); each
has three positions A, B, C and, per position, a set of holes. Point (r, c) is open when orange
slide r has a hole under column c at its position AND white slide c has a hole under row r at its
position (`rules.md` §4). The pattern is profile data (`holes:` in the profile, one string of
seven 0/1 characters per slide and position), so this module only turns that data into answers.

It is deliberately small and pure: the rules engine, the board renderer, the simulated world and
the hole calibration all import it, so they can never disagree about which points are open.

Points are numbered as bits ``r * 7 + c`` in an int mask, which keeps the engine's per-move work
to a handful of integer operations.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from controller.errors import FormatError
from controller.language import _

SIZE = 7
POSITIONS = "ABC"
Point = tuple[int, int]


T = TypeVar("T")


def per_position(values: Iterable[T]) -> tuple[T, T, T]:
    """One value for each of a slide's positions (A, B, C)."""
    a, b, c = values
    return a, b, c


def bit(row: int, col: int) -> int:
    """The mask bit of point (row, col)."""
    return 1 << (row * SIZE + col)


def mask_points(mask: int) -> frozenset[Point]:
    """The points whose bits are set in `mask`."""
    return frozenset(divmod(i, SIZE) for i in range(SIZE * SIZE) if mask >> i & 1)


def points_mask(points: Sequence[Point] | frozenset[Point]) -> int:
    out = 0
    for r, c in points:
        out |= bit(r, c)
    return out


def _bits_of(holes: str) -> int:
    """A hole string ("0100101", index i = 1 means a hole at place i) as a 7-bit mask."""
    return sum(1 << i for i, ch in enumerate(holes) if ch == "1")


def _string_of(bits: int) -> str:
    return "".join("1" if bits >> i & 1 else "0" for i in range(SIZE))


@dataclass(frozen=True)
class HolePattern:
    """Every slide's holes, per position.

    `orange[r][p]` is a 7-bit mask over columns (bit c: orange slide r at position p has a hole
    under column c); `white[c][q]` a 7-bit mask over rows. p and q index ``POSITIONS``.
    """

    orange: tuple[tuple[int, int, int], ...]
    white: tuple[tuple[int, int, int], ...]

    def __post_init__(self) -> None:
        # Spread every slide's holes onto the 49-point mask once, so `open_mask` is 14 lookups.
        orange_spread = tuple(tuple(self.orange[r][p] << (r * SIZE) for p in range(3)) for r in range(SIZE))
        white_spread = tuple(
            tuple(sum(bit(r, c) for r in range(SIZE) if self.white[c][q] >> r & 1) for q in range(3))
            for c in range(SIZE)
        )
        object.__setattr__(self, "_orange_spread", orange_spread)
        object.__setattr__(self, "_white_spread", white_spread)

    # -- reading and writing the profile form ------------------------------------------------
    @classmethod
    def from_mapping(cls, holes: Mapping[str, Any]) -> HolePattern:
        """From the profile's `holes:` value (already validated by controller.profile)."""
        orange = tuple(per_position(_bits_of(slide[p]) for p in POSITIONS) for slide in holes["orange"])
        white = tuple(per_position(_bits_of(slide[q]) for q in POSITIONS) for slide in holes["white"])
        return cls(orange=orange, white=white)

    def to_mapping(self) -> dict[str, list[dict[str, str]]]:
        """The profile's `holes:` value for this pattern."""
        return {
            "orange": [{p: _string_of(s[i]) for i, p in enumerate(POSITIONS)} for s in self.orange],
            "white": [{q: _string_of(s[i]) for i, q in enumerate(POSITIONS)} for s in self.white],
        }

    # -- questions the rules ask -------------------------------------------------------------
    def open_mask(self, orange: Sequence[str], white: Sequence[str]) -> int:
        """Open points as a mask, for slide positions given as letters (row/column order)."""
        spread_o: tuple = self._orange_spread  # type: ignore[attr-defined]
        spread_w: tuple = self._white_spread  # type: ignore[attr-defined]
        under_orange = 0
        under_white = 0
        for i in range(SIZE):
            under_orange |= spread_o[i][POSITIONS.index(orange[i])]
            under_white |= spread_w[i][POSITIONS.index(white[i])]
        return under_orange & under_white

    def open_points(self, orange: Sequence[str], white: Sequence[str]) -> frozenset[Point]:
        return mask_points(self.open_mask(orange, white))

    def white_showing(self, orange: Sequence[str], white: Sequence[str]) -> frozenset[Point]:
        """Closed points where the (upper) orange slide has a hole, so the white slide shows."""
        spread_o: tuple = self._orange_spread  # type: ignore[attr-defined]
        under_orange = 0
        for i in range(SIZE):
            under_orange |= spread_o[i][POSITIONS.index(orange[i])]
        return mask_points(under_orange & ~self.open_mask(orange, white))

    def point_open(self, row: int, col: int, orange_pos: str, white_pos: str) -> bool:
        """Whether (row, col) is open with its own two slides at these positions.

        Only orange slide `row` and white slide `col` matter for a point, which is why nine
        observations per point (3 x 3 positions) tell everything the rules need.
        """
        o = self.orange[row][POSITIONS.index(orange_pos)] >> col & 1
        w = self.white[col][POSITIONS.index(white_pos)] >> row & 1
        return bool(o and w)


def stand_in_pattern() -> HolePattern:
    """The default profile's documented stand-in pattern (no real copy was measured).

    Orange slide r at position p (A=0, B=1, C=2) has a hole under column c when
    ``(r + c + p) % 3 == 0``; white slide c at position q has a hole over row r when
    ``(r + 2c + q) % 3 == 0``. So every point opens for exactly one of its nine (p, q) position
    pairs: every point can open, a random setup opens about 49/9 = 5.4 points, and one notch of
    one slide opens on average under one point of its line.
    """
    orange = tuple(
        tuple(sum(1 << c for c in range(SIZE) if (r + c + p) % 3 == 0) for p in range(3)) for r in range(SIZE)
    )
    white = tuple(
        tuple(sum(1 << r for r in range(SIZE) if (r + 2 * c + q) % 3 == 0) for q in range(3)) for c in range(SIZE)
    )
    return HolePattern(orange=orange, white=white)  # type: ignore[arg-type]


def pattern_of(source: Any) -> HolePattern:
    """A `HolePattern` from a pattern, a Profile, a whole profile mapping or a `holes:` mapping."""
    if isinstance(source, HolePattern):
        return source
    data = getattr(source, "data", source)  # a controller.profile.Profile holds its mapping
    if isinstance(data, Mapping) and "holes" in data:
        data = data["holes"]
    if not isinstance(data, Mapping) or "orange" not in data or "white" not in data:
        raise ValueError("expected a hole pattern, a stay-alive profile or its holes: mapping")
    return HolePattern.from_mapping(data)


def open_points(holes: Any, orange: Sequence[str], white: Sequence[str]) -> frozenset[Point]:
    """The open points for these slide positions; `holes` is anything `pattern_of` accepts."""
    return pattern_of(holes).open_points(orange, white)


# --- the slide lines of a snapshot (`notation.md` §1) ------------------------------------------------
def slides_line(name: str, along_rows: bool):
    """The parser of an `orange:` (one slide per row) or `white:` (one per column) line."""

    def parse(rest: str, rows: int, cols: int, at: str) -> tuple[str, ...]:
        positions = tuple(ch for ch in rest if not ch.isspace())
        size = rows if along_rows else cols
        if len(positions) != size or any(p not in POSITIONS for p in positions):
            raise FormatError(
                _(
                    "'{name}:' needs {size} slide positions, each A, B or C; got {got}",
                    name=name,
                    size=str(size),
                    got=repr(rest.strip()),
                ),
                at,
            )
        return positions

    return parse
