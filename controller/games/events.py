"""What happened in a move besides the move itself (`notation.md` §3 `events`), as typed values.

Each game declares the events its moves may cause (`EventType`: the kind, what its detail is, and
the sentence players read), beside its rules; the two every game may have (a seat out, a seat
passing) are declared here. A `GameEvent` *is* its notation text (`fell:3,4`), a `str`, so verdict
lines, the journal and records need no conversion; and it carries its parts typed (`kind`,
`cell`, `seat`, `colour`), so no code parses the text back. `GameEvent.parse` reads the text form
against the event types of a game.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal

from controller.errors import FormatError
from controller.language import N_, _

Cell = tuple[int, int]
#: What follows the colon in an event's text: a place `r,c`, a seat from 0, a colour letter, nothing.
Detail = Literal["cell", "seat", "colour", ""]


@dataclass(frozen=True)
class EventType:
    """One kind of event a game declares: `kind` is its name in the notation, `words` the sentence
    players read (a catalogue message, marked `N_`), with `{place}`, `{seat}` or `{colour}` standing
    for its detail in words."""

    kind: str
    detail: Detail
    words: str
    #: The event says what the camera could not tell yet, not what happened on the board (a
    #: Blockers! glyph unread): a player's intended move never has it.
    about_reading: bool = False

    def __call__(self, detail: Any = None) -> GameEvent:
        """The event of this kind about `detail` (a place, a seat or a colour letter)."""
        return GameEvent(self.kind, **({self.detail: detail} if self.detail else {}))


ELIMINATED = EventType("eliminated", "seat", N_("{seat} is out"))
PASS = EventType("pass", "seat", N_("{seat} has no move and passes"))
#: The events every game may have, besides its own.
COMMON_EVENTS = (ELIMINATED, PASS)


class GameEvent(str):
    """One event: its text is `kind` or `kind:detail`; `cell`, `seat` or `colour` hold the detail."""

    kind: str
    cell: Cell | None
    seat: int | None
    colour: str | None

    def __new__(
        cls, kind: str, *, cell: Cell | None = None, seat: int | None = None, colour: str | None = None
    ) -> GameEvent:
        if cell is not None:
            detail = f"{cell[0]},{cell[1]}"
        elif seat is not None:
            detail = str(seat)
        elif colour is not None:
            detail = colour
        else:
            detail = ""
        self = super().__new__(cls, f"{kind}:{detail}" if detail else kind)
        self.kind, self.cell, self.seat, self.colour = kind, cell, seat, colour
        return self

    def __reduce__(self) -> tuple[Any, ...]:  # pickled (multiprocessing benches) as its constructor call
        return (_rebuild, (self.kind, self.cell, self.seat, self.colour))

    @classmethod
    def eliminated(cls, seat: int) -> GameEvent:
        return ELIMINATED(seat)

    @classmethod
    def passed(cls, seat: int) -> GameEvent:
        return PASS(seat)

    @classmethod
    def parse(cls, text: str, types: Iterable[EventType]) -> GameEvent:
        """The event a notation text names (`fell:3,4`), among `types`; FormatError for anything else."""
        name, _colon, detail = str(text).partition(":")
        known = {t.kind: t for t in types}
        kind = known.get(name)
        if kind is None:
            raise FormatError(
                _("unknown event {event}; events are {events}", event=repr(text), events=", ".join(known)), _("event")
            )
        try:
            if kind.detail == "cell":
                r, c = (int(v) for v in detail.split(","))
                return cls(kind.kind, cell=(r, c))
            if kind.detail == "seat":
                return cls(kind.kind, seat=int(detail))
        except ValueError:
            raise FormatError(
                _("bad event {event}: expected {kind}:DETAIL", event=repr(text), kind=kind.kind), _("event")
            ) from None
        return cls(kind.kind, colour=detail or None)


def _rebuild(kind: str, cell: Cell | None, seat: int | None, colour: str | None) -> GameEvent:
    return GameEvent(kind, cell=cell, seat=seat, colour=colour)
