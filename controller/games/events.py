"""What happened in a move besides the move itself (`notation.md` §3 `events`), as typed values.

A `GameEvent` *is* its notation text (`fell:3,4`), a `str`, so verdict lines, the journal and
records need no conversion; and it carries its parts typed (`kind`, `cell`, `seat`, `colour`),
so no code parses the text back. `GameEvent.parse` reads the text form.
"""

from __future__ import annotations

from enum import Enum

from controller.errors import FormatError

Cell = tuple[int, int]


class EventKind(str, Enum):
    CLEARED = "cleared"  # colorpop: the last token of a colour left the board (detail: the colour)
    FELL = "fell"  # stay-alive: a marble fell through an open point (detail: r,c)
    EXPECTED_FALL_MISSING = "expected-fall-missing"  # stay-alive: a marble that should have fallen is seen
    EXIT = "exit"  # flipop: a ball left through its exit (detail: r,c)
    ELIMINATED = "eliminated"  # a seat is out (detail: the seat)
    PASS = "pass"  # a seat had no legal move and was skipped (detail: the seat)
    GLYPH_UNREAD = "glyph-unread"  # blockers: a tile was placed whose glyph the camera could not read (r,c)

    def __str__(self) -> str:
        return self.value


_CELL_KINDS = {EventKind.FELL, EventKind.EXPECTED_FALL_MISSING, EventKind.EXIT, EventKind.GLYPH_UNREAD}
_SEAT_KINDS = {EventKind.ELIMINATED, EventKind.PASS}


class GameEvent(str):
    """One event: its text is `kind` or `kind:detail`; `cell`, `seat` or `colour` hold the detail."""

    kind: EventKind
    cell: Cell | None
    seat: int | None
    colour: str | None

    def __new__(
        cls, kind: EventKind, *, cell: Cell | None = None, seat: int | None = None, colour: str | None = None
    ) -> GameEvent:
        kind = EventKind(kind)
        if cell is not None:
            detail = f"{cell[0]},{cell[1]}"
        elif seat is not None:
            detail = str(seat)
        elif colour is not None:
            detail = colour
        else:
            detail = ""
        self = super().__new__(cls, f"{kind.value}:{detail}" if detail else kind.value)
        self.kind, self.cell, self.seat, self.colour = kind, cell, seat, colour
        return self

    def __reduce__(self):  # pickled (multiprocessing benches) as its constructor call
        return (_rebuild, (self.kind.value, self.cell, self.seat, self.colour))

    # -- the usual ones ------------------------------------------------------------------------
    @classmethod
    def cleared(cls, colour: str) -> GameEvent:
        return cls(EventKind.CLEARED, colour=colour)

    @classmethod
    def fell(cls, cell: Cell) -> GameEvent:
        return cls(EventKind.FELL, cell=cell)

    @classmethod
    def expected_fall_missing(cls, cell: Cell) -> GameEvent:
        return cls(EventKind.EXPECTED_FALL_MISSING, cell=cell)

    @classmethod
    def exit(cls, cell: Cell) -> GameEvent:
        return cls(EventKind.EXIT, cell=cell)

    @classmethod
    def eliminated(cls, seat: int) -> GameEvent:
        return cls(EventKind.ELIMINATED, seat=seat)

    @classmethod
    def passed(cls, seat: int) -> GameEvent:
        return cls(EventKind.PASS, seat=seat)

    @classmethod
    def glyph_unread(cls, cell: Cell) -> GameEvent:
        return cls(EventKind.GLYPH_UNREAD, cell=cell)

    @classmethod
    def parse(cls, text: str) -> GameEvent:
        """The event a notation text names (`fell:3,4`); FormatError for anything else."""
        name, _, detail = str(text).partition(":")
        try:
            kind = EventKind(name)
        except ValueError:
            known = ", ".join(k.value for k in EventKind)
            raise FormatError(f"unknown event {text!r}; events are {known}", "event") from None
        try:
            if kind in _CELL_KINDS:
                r, c = (int(v) for v in detail.split(","))
                return cls(kind, cell=(r, c))
            if kind in _SEAT_KINDS:
                return cls(kind, seat=int(detail))
        except ValueError:
            raise FormatError(f"bad event {text!r}: expected {kind.value}:DETAIL", "event") from None
        return cls(kind, colour=detail or None)


def _rebuild(kind: str, cell: Cell | None, seat: int | None, colour: str | None) -> GameEvent:
    return GameEvent(EventKind(kind), cell=cell, seat=seat, colour=colour)
