"""What the referee says to people: one way of naming seats, places and verdicts everywhere.

The log, the demo, the web page and the club page all word a verdict through `verdict_line`, so a
player reads the same sentence wherever they look. Seats are counted from 1 as players count
them (the machine formats of `notation.md` keep counting from 0), places are named as each game
names them (`Engine.place_name`: Colorpop `F3`, Blockers! `C7`, ...).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from controller.errors import FormatError
from controller.games import registry
from controller.games.base import Engine, Result, join_and
from controller.games.events import EventType, GameEvent
from controller.referee import Verdict, VerdictKind

Cell = tuple[int, int]


def seat_words(engine: Engine | None, seat: int) -> str:
    return engine.seat_name(seat) if engine is not None else f"player {seat + 1}"


def places_words(engine: Engine | None, cells: Sequence[Cell]) -> str:
    if engine is None:
        return ", ".join(f"row {r + 1} column {c + 1}" for r, c in cells)
    return engine.places_text(list(cells))


def _event_types(engine: Engine | None) -> list[EventType]:
    """The events the engine's game declares; without an engine, every known game's."""
    if engine is not None and registry.known(engine.setup.game):
        return list(registry.get(engine.setup.game).event_types)
    return [t for game in registry.names() for t in registry.get(game).event_types]


def event_words(engine: Engine | None, event: str) -> str:
    """What happened besides the move, in the words its game declares: `fell:3,4` -> `the marble
    on point 4,5 fell` (the event counts from 0, as `notation.md` does; the words count as players
    do, `Engine.place_name`). Text that is no event of the game is shown as it is."""
    types = _event_types(engine)
    try:
        parsed = GameEvent.parse(event, types)
    except FormatError:
        return str(event)
    words = next(t.words for t in types if t.kind == parsed.kind)
    colour = parsed.colour or ""
    if engine is not None and colour:
        colour = str(engine.profile.classes.get(colour, {}).get("name", colour))
    return words.format(
        place=places_words(engine, [parsed.cell]) if parsed.cell is not None else "",
        seat=seat_words(engine, parsed.seat) if parsed.seat is not None else "",
        colour=colour,
    )


def verdict_line(verdict: Verdict, engine: Engine | None = None, to_move: int | None = None) -> str:
    """One sentence a person reads, for any verdict."""
    who = f"{seat_words(engine, verdict.seat)}: " if verdict.seat is not None else ""
    kind = verdict.verdict
    cells = list(verdict.cells)
    if kind == VerdictKind.LEGAL:
        text = f"{who}legal move, {engine.move_words(verdict.move) if engine is not None else verdict.move}"
        if verdict.events:
            text += f" ({'; '.join(event_words(engine, e) for e in verdict.events)})"
        return text
    if kind == VerdictKind.ILLEGAL and verdict.doubtful:
        where = places_words(engine, cells) or "the board"
        return (
            f"the reading is doubtful at {where}: {verdict.reason}; no player is blamed, "
            f"check the pieces there and the camera's view ({ACCEPT_HINT})"
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
        return ACTION_WORDS.get(verdict.action or "", f"action {verdict.action}") + said
    return str(kind)


def verdict_from_json(data: dict[str, Any]) -> Verdict | None:
    """A stored verdict (notation.md §3) back as a `Verdict`, to word it; None for a reveal line."""
    if data.get("verdict") not in {k.value for k in VerdictKind}:
        return None
    return Verdict(
        VerdictKind(data["verdict"]),
        data.get("index"),
        seat=data.get("seat"),
        move=data.get("move", ""),
        events=tuple(data.get("events", ())),
        reason=data.get("reason", ""),
        cells=tuple(tuple(c) for c in data.get("cells", ())),
        advice=data.get("advice"),
        action=data.get("action"),
        doubtful=bool(data.get("doubtful", False)),
    )


def stored_verdict_line(data: dict[str, Any], engine: Any, first: int | None) -> str:
    """The sentence of `verdict_line` for a stored verdict (`notation.md` §3 JSON; reveals worded here)."""
    verdict = verdict_from_json(data)
    if verdict is None:
        if data.get("verdict") == "reveal":
            return f"{engine.seat_name(int(data['seat']))} revealed {' '.join(data.get('colours', []))}"
        return str(data)
    return verdict_line(verdict, engine, first if verdict.verdict == VerdictKind.SETUP_OK else None)


# --- actions ------------------------------------------------------------------------------------
#: How the log, the page and the club word each action a person takes on the referee.
ACTION_WORDS = {
    "new-game": "new game: this game is closed and kept in the journal",
    "end-by-agreement": "the players ended the game by agreement",
    "accept-board": "a person declared the board right: play goes on from it as it stands",
}
#: The answer to "this board is right, go on from it" (`referee accept`, the page's button).
ACCEPTED = "the board as it stands is taken as right; play goes on from it"
ACCEPT_NOTHING_SEEN = "no board has been read yet: set the board up in front of the camera, then try again"
ACCEPT_NOTHING_TO_DO = "the board already is the referee's: there is nothing to accept"
#: Said wherever a board is refused, so a table is never stuck: the way out when the referee is wrong.
ACCEPT_HINT = "if the board is right, say so: 'This board is right' on the live page or `referee accept`"


# --- results ------------------------------------------------------------------------------------
def result_line(result: Result | dict[str, Any] | None) -> str:
    """A game's result as players read it (the page, the log, `referee status`): nothing while
    play goes on; "no winner yet: ..." when play stopped but the ranking waits for something
    (Colorpop's secret colours); else "game over: " and the engine's sentence, which says who won,
    or that it is a draw (the page writes it with a capital)."""
    if result is None:
        return ""
    data = result.to_json() if isinstance(result, Result) else result
    if not data.get("finished"):
        return ""
    reason = str(data.get("reason") or "")
    winners = data.get("winners")
    if winners is None:
        return f"no winner yet: {reason}" if reason else "no winner yet"
    if reason:
        return f"game over: {reason}"
    if not winners:
        return "game over: nobody won"
    return f"game over: {join_and([f'player {s + 1}' for s in winners])} won"


# --- seats --------------------------------------------------------------------------------------
def with_names(text: str, names: Sequence[str]) -> str:
    """`text` with each `player N` the seat's name (`player 2 (red)` -> `Bob (red)`), for a table
    whose players gave their names (config.yaml's `mqtt: names:`, as the club shows them)."""
    if not names:
        return text
    import re

    def name(match: re.Match[str]) -> str:
        seat = int(match.group(1))
        return names[seat - 1] if 1 <= seat <= len(names) else match.group(0)

    return re.sub(r"\bplayer (\d+)\b", name, text)


# --- the club's broker (mqtt: in config.yaml) ----------------------------------------------------
_BROKER_GOES_ON = "the game goes on and its verdicts wait in the journal until the broker answers"


def broker_unreachable(host: str, port: int, why: str) -> str:
    return (
        f"the club's broker {host}:{port} cannot be reached: {why}; {_BROKER_GOES_ON}. "
        "Check 'mqtt: host:' and 'port:' in the config file"
    )


def broker_refused(host: str, port: int, table: str, reason: str) -> str:
    return (
        f"the club's broker {host}:{port} refused table {table} ({reason}); {_BROKER_GOES_ON}. "
        "Check 'mqtt: username:' and 'password_file:' in the config file, and the broker's access rules"
    )


def broker_lost(host: str, port: int) -> str:
    return f"the club's broker {host}:{port} was lost; {_BROKER_GOES_ON}"


def club_broker_unreachable(host: str, port: int, why: str) -> str:
    return (
        f"the broker {host}:{port} cannot be reached: {why}. The tables' games are not lost (each table keeps "
        "them in its journal); check --broker HOST:PORT"
    )


BROKER_BACK = "the club's broker answers again; the verdicts that waited are sent"


# --- pictures ---------------------------------------------------------------------------------
def another_games_board(game: str, other: str) -> str:
    """A picture given as one game's board that reads surely as another's."""
    title, other_title = registry.get(game).title, registry.get(other).title
    return (
        f"this is not a {title} board: it reads as a {other_title} board. Give --game {other} to read it, "
        f"or a picture of the {title} board"
    )


# --- files --------------------------------------------------------------------------------------
def journal_folder_missing(path: Any) -> str:
    """The journal's folder does not exist: most likely a typo in config.yaml's `journal:`."""
    folder = path.parent
    return (
        f"the journal {path} cannot be started: its folder {folder} does not exist. Check the 'journal:' path in "
        f"the config file (a typo?); if it is right, create the folder first (mkdir -p {folder}) and start again"
    )
