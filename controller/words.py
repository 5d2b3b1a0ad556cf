"""What the referee says to people: one way of naming seats, places and verdicts everywhere.

The log, the demo, the web page and the club page all word a verdict through `verdict_line`, so a
player reads the same sentence wherever they look. Seats are counted from 1 as players count
them (the machine formats of `notation.md` keep counting from 0), places are named as each game
names them (`Engine.place_name`: Colorpop `F3`, Blockers! `C7`, ...).
"""

from __future__ import annotations

from collections.abc import Sequence

from controller.errors import FormatError
from controller.games.base import Engine
from controller.games.events import EventKind, GameEvent
from controller.referee import Verdict, VerdictKind

Cell = tuple[int, int]


def seat_words(engine: Engine | None, seat: int) -> str:
    return engine.seat_name(seat) if engine is not None else f"player {seat + 1}"


def places_words(engine: Engine | None, cells: Sequence[Cell]) -> str:
    if engine is None:
        return ", ".join(f"row {r + 1} column {c + 1}" for r, c in cells)
    return engine.places_text(list(cells))


def event_words(engine: Engine | None, event: str) -> str:
    """What happened besides the move, in words: `fell:3,4` -> `the marble on point 3,4 fell`."""
    try:
        parsed = GameEvent.parse(event)
    except FormatError:
        return str(event)
    place = places_words(engine, [parsed.cell]) if parsed.cell is not None else ""
    seat = seat_words(engine, parsed.seat) if parsed.seat is not None else ""
    colour = parsed.colour or ""
    if engine is not None and colour:
        colour = str(engine.profile.classes.get(colour, {}).get("name", colour))
    kind = parsed.kind
    if kind == EventKind.CLEARED:
        return f"the last {colour} token is gone"
    if kind == EventKind.FELL:
        return f"the marble on {place} fell"
    if kind == EventKind.EXPECTED_FALL_MISSING:
        return f"the marble on {place} should have fallen but is still seen"
    if kind == EventKind.EXIT:
        return f"the ball on {place} left through its exit"
    if kind == EventKind.ELIMINATED:
        return f"{seat} is out"
    if kind == EventKind.PASS:
        return f"{seat} has no move and passes"
    if kind == EventKind.GLYPH_UNREAD:
        return f"the glyph of the tile on {place} could not be read yet"
    return str(event)


def verdict_line(verdict: Verdict, engine: Engine | None = None, to_move: int | None = None) -> str:
    """One sentence a person reads, for any verdict."""
    who = f"{seat_words(engine, verdict.seat)}: " if verdict.seat is not None else ""
    kind = verdict.verdict
    cells = list(verdict.cells)
    if kind == VerdictKind.LEGAL:
        text = f"{who}legal move, {verdict.move}"
        if verdict.events:
            text += f" ({'; '.join(event_words(engine, e) for e in verdict.events)})"
        return text
    if kind == VerdictKind.ILLEGAL and verdict.doubtful:
        where = places_words(engine, cells) or "the board"
        return (
            f"the reading is doubtful at {where}: {verdict.reason}; no player is blamed, "
            "check the pieces there and the camera's view"
        )
    if kind == VerdictKind.ILLEGAL:
        where = f" (look at {places_words(engine, cells)})" if cells else ""
        return f"{who}illegal move, {verdict.reason}{where}; put the board back"
    if kind == VerdictKind.PENDING:
        return f"{who}move under way, waiting for it to be finished"
    if kind == VerdictKind.RESTORED:
        return "board put back to the last legal position"
    if kind == VerdictKind.UNCHANGED:
        return "board back to the last legal position, no move"
    if kind == VerdictKind.SETUP_OK:
        begins = f"; {seat_words(engine, to_move)} begins" if to_move is not None else ""
        return "starting board accepted" + begins
    if kind == VerdictKind.SETUP_INVALID:
        where = f" (look at {places_words(engine, cells)})" if cells else ""
        return f"starting board not valid: {verdict.reason}{where}" + (f"; {verdict.advice}" if verdict.advice else "")
    if kind == VerdictKind.ACTION:
        said = f" ({'; '.join(event_words(engine, e) for e in verdict.events)})" if verdict.events else ""
        return f"action {verdict.action}{said}"
    return str(kind)
