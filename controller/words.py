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
from controller.games.base import Engine, Result
from controller.games.events import EventType, GameEvent
from controller.games.registry import find_rule
from controller.language import DEFAULT, N_, Named, Text, _, listed, literal, said
from controller.record import COMPUTER_MOVE, COMPUTER_RACK, HINT
from controller.referee import NOT_THE_COMPUTERS_MOVE, Verdict, VerdictKind

Cell = tuple[int, int]


def game_name(game: str) -> Any:
    """A game's name as people know it in their language (Stay Alive is *Pièges* in French); an
    unknown game as it is named."""
    return Named(registry.get(game).title, "game") if registry.known(game) else game


def seat_words(engine: Engine | None, seat: int) -> Text:
    return engine.seat_name(seat) if engine is not None else _("player {number}", number=seat + 1)


def places_words(engine: Engine | None, cells: Sequence[Cell]) -> str:
    if engine is None:
        return listed((_("row {row} column {column}", row=r + 1, column=c + 1) for r, c in cells), conjunction=None)
    return engine.places_text(list(cells))


def _event_types(engine: Engine | None) -> list[EventType]:
    """The events the engine's game declares; without an engine, every known game's."""
    if engine is not None and registry.known(engine.setup.game):
        return list(registry.get(engine.setup.game).event_types)
    return [t for game in registry.names() for t in registry.get(game).event_types]


def with_resolved(line: Any, cells: Sequence[Cell], engine: Engine | None) -> Any:
    """A verdict's line, with what it adds when the camera was unsure of some places and only one
    legal board fitted what it saw (`line` as it is for a verdict read surely)."""
    if not cells:
        return line
    return _(
        "{said} (the camera was unsure of {places}; only one legal board fits what it saw)",
        said=line,
        places=places_words(engine, cells),
    )


def with_reading_remark(line: Any, events: Sequence[str], engine: Engine | None, remark: Any) -> Any:
    """A verdict's line, with why the camera left something unread (`remark`: a glyph under a
    coloured lamp or a reflection, the reader's words) where the verdict says something was (an
    event of its game `about_reading`); `line` as it is otherwise."""
    if remark is None:
        return line
    about = {t.kind for t in _event_types(engine) if t.about_reading}
    if not any(getattr(e, "kind", str(e).split(":")[0]) in about for e in events):
        return line
    return _("{said}; {why}", said=line, why=remark)


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
    colour: Any = parsed.colour or ""
    if engine is not None and colour:
        colour = engine.colour(colour, 1)
    return Text(
        words,
        {
            "place": places_words(engine, [parsed.cell]) if parsed.cell is not None else "",
            "seat": seat_words(engine, parsed.seat) if parsed.seat is not None else "",
            "colour": colour,
        },
    )


def _events(engine: Engine | None, events: Sequence[str]) -> str:
    return listed((event_words(engine, e) for e in events), separator=";")


def verdict_line(verdict: Verdict, engine: Engine | None = None, to_move: int | None = None) -> Text:
    """One sentence a person reads, for any verdict (a `Text`: `said(line, "fr")` says it in French)."""
    who = seat_words(engine, verdict.seat) if verdict.seat is not None else None

    def by_seat(text: Text) -> Text:
        return _("{player}: {said}", player=who, said=text) if who is not None else text

    kind = verdict.verdict
    cells = list(verdict.cells)
    if kind == VerdictKind.LEGAL:
        text = _("legal move, {move}", move=engine.move_words(verdict.move) if engine is not None else verdict.move)
        if verdict.events:
            text = _("{said} ({events})", said=text, events=_events(engine, verdict.events))
        return by_seat(text)
    if kind == VerdictKind.ILLEGAL and verdict.doubtful:
        return _(
            "the reading is doubtful at {where}: {reason}; no player is blamed, "
            "check the pieces there and the camera's view ({hint})",
            where=places_words(engine, cells) or _("the board"),
            reason=verdict.reason,
            hint=ACCEPT_HINT,
        )
    if kind == VerdictKind.ILLEGAL and verdict.reason == NOT_THE_COMPUTERS_MOVE:
        return _(
            "that is not the computer's move: put the board back, then make its move: {move}",
            move=engine.move_words(verdict.move) if engine is not None else verdict.move,
        )
    if kind == VerdictKind.ILLEGAL:
        if cells:
            text = _(
                "illegal move, {reason} (look at {places}); put the board back",
                reason=verdict.reason,
                places=places_words(engine, cells),
            )
        else:
            text = _("illegal move, {reason}; put the board back", reason=verdict.reason)
        return by_seat(text)
    if kind == VerdictKind.PENDING:
        return by_seat(_("move under way, waiting for it to be finished"))
    if kind == VerdictKind.RESTORED:
        return _("board put back to the last legal position")
    if kind == VerdictKind.UNCHANGED:
        return _("board back to the last legal position, no move")
    if kind == VerdictKind.SETUP_OK:
        if to_move is not None:
            return _("starting board accepted; {player} begins", player=seat_words(engine, to_move))
        return _("starting board accepted")
    if kind == VerdictKind.SETUP_INVALID:
        if cells:
            text = _(
                "starting board not valid: {reason} (look at {places})",
                reason=verdict.reason,
                places=places_words(engine, cells),
            )
        else:
            text = _("starting board not valid: {reason}", reason=verdict.reason)
        return _("{said}; {advice}", said=text, advice=verdict.advice) if verdict.advice else text
    if kind == VerdictKind.ACTION and verdict.action in (COMPUTER_MOVE, HINT):
        if engine is not None:
            move = hint_move_words(engine, verdict.move, verdict.tiles)
        elif verdict.tiles:  # the club (no engine): the tiles named, in notation, as the choice they were
            move = _("{tiles} where {move} puts its tile, whichever they hold", tiles=verdict.tiles, move=verdict.move)
        else:
            move = verdict.move
        if verdict.action == HINT:
            return _("hint for {player}: {move}", player=who, move=move)
        return computer_awaits(who, move)
    if kind == VerdictKind.ACTION and verdict.action == COMPUTER_RACK:
        tiles = engine.rack_words(verdict.tiles) if engine is not None else verdict.tiles
        return _("tiles drawn for the computer ({player}): {tiles}", player=who, tiles=tiles)
    if kind == VerdictKind.ACTION:
        action = verdict.action or ""
        text = Text(ACTION_WORDS[action]) if action in ACTION_WORDS else _("action {name}", name=action)
        return _("{said} ({events})", said=text, events=_events(engine, verdict.events)) if verdict.events else text
    return literal(str(kind))


def rule_line(verdict: Verdict) -> Text | None:
    """The rule an illegal verdict breaks, as the short line the page can open: "rule: ... (rules §1 A move)"."""
    return verdict.rule.line() if verdict.rule is not None else None


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
        tiles=data.get("tiles", ""),
        doubtful=bool(data.get("doubtful", False)),
        rule=find_rule(data.get("rule")),
    )


def stored_verdict_line(data: dict[str, Any], engine: Any, first: int | None) -> Text:
    """The sentence of `verdict_line` for a stored verdict (`notation.md` §3 JSON; reveals worded here)."""
    verdict = verdict_from_json(data)
    if verdict is None:
        if data.get("verdict") == "reveal":
            player = engine.seat_name(int(data["seat"])) if engine is not None else seat_words(None, int(data["seat"]))
            return _("{player} revealed {colours}", player=player, colours=" ".join(data.get("colours", [])))
        return literal(str(data))
    return verdict_line(verdict, engine, first if verdict.verdict == VerdictKind.SETUP_OK else None)


# --- actions ------------------------------------------------------------------------------------
#: How the log, the page and the club word each action a person takes on the referee.
ACTION_WORDS = {
    "new-game": N_("new game: this game is closed and kept in the journal"),
    "end-by-agreement": N_("the players ended the game by agreement"),
    "accept-board": N_("a person declared the board right: play goes on from it as it stands"),
}
#: The answer to "this board is right, go on from it" (`referee accept`, the page's button).
ACCEPTED = _("the board as it stands is taken as right; play goes on from it")
ACCEPT_NOTHING_SEEN = _("no board has been read yet: set the board up in front of the camera, then try again")
ACCEPT_NOTHING_TO_DO = _("the board already is the referee's: there is nothing to accept")
#: Said wherever a board is refused, so a table is never stuck: the way out when the referee is wrong.
ACCEPT_HINT = _("if the board is right, say so: 'This board is right' on the live page or `referee accept`")


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
    reason = data.get("reason") or ""
    winners = data.get("winners")
    if winners is None:
        return _("no winner yet: {reason}", reason=reason) if reason else _("no winner yet")
    if reason:
        return _("game over: {reason}", reason=reason)
    if not winners:
        return _("game over: nobody won")
    return _("game over: {players} won", players=listed(seat_words(None, s) for s in winners))


# --- seats --------------------------------------------------------------------------------------
def with_names(text: str, names: Sequence[str], language: Any = DEFAULT) -> str:
    """`text` said in `language`, with each `player N` the seat's name (`player 2 (red)` -> `Bob (red)`),
    for a table whose players gave their names (config.yaml's `mqtt: names:`, as the club shows them)."""
    shown = said(text, language)
    if not names:
        return shown
    import re

    word = re.escape(said(_("player {number}", number=0), language)).replace("0", r"(\d+)")

    def name(match: re.Match[str]) -> str:
        seat = int(match.group(1))
        return names[seat - 1] if 1 <= seat <= len(names) else match.group(0)

    return re.sub(rf"\b{word}\b", name, shown)


# --- the club's broker (mqtt: in config.yaml) ----------------------------------------------------
def broker_unreachable(host: str, port: int, why: str) -> Text:
    return _(
        "the club's broker {broker} cannot be reached: {why}; the game goes on and its verdicts wait in the "
        "journal until the broker answers. Check 'mqtt: host:' and 'port:' in the config file",
        broker=":".join((host, str(port))),
        why=why,
    )


def broker_refused(host: str, port: int, table: str, reason: str) -> Text:
    return _(
        "the club's broker {broker} refused table {table} ({reason}); the game goes on and its verdicts wait in "
        "the journal until the broker answers. Check 'mqtt: username:' and 'password_file:' in the config file, "
        "and the broker's access rules",
        broker=":".join((host, str(port))),
        table=table,
        reason=reason,
    )


def broker_lost(host: str, port: int) -> Text:
    return _(
        "the club's broker {broker} was lost; the game goes on and its verdicts wait in the journal until the "
        "broker answers",
        broker=":".join((host, str(port))),
    )


def club_broker_unreachable(host: str, port: int, why: str) -> Text:
    return _(
        "the broker {broker} cannot be reached: {why}. The tables' games are not lost (each table keeps "
        "them in its journal); check --broker HOST:PORT",
        broker=":".join((host, str(port))),
        why=why,
    )


BROKER_BACK = _("the club's broker answers again; the verdicts that waited are sent")


# --- pictures ---------------------------------------------------------------------------------
def another_games_board(game: str, other: str) -> str:
    """A picture given as one game's board that reads surely as another's."""
    title, other_title = registry.get(game).title, registry.get(other).title
    return _(
        "this is not a {title} board: it reads as a {other_title} board. Give --game {other} to read it, "
        "or a picture of the {title} board",
        title=title,
        other_title=other_title,
        other=other,
    )


# --- files --------------------------------------------------------------------------------------
def journal_folder_missing(path: Any) -> str:
    """The journal's folder does not exist: most likely a typo in config.yaml's `journal:`."""
    folder = path.parent
    return _(
        "the journal {path} cannot be started: its folder {folder} does not exist. Check the 'journal:' path in "
        "the config file (a typo?); if it is right, create the folder first (mkdir -p {folder}) and start again",
        path=str(path),
        folder=str(folder),
    )


def hint_move_words(engine: Engine, move: str, tiles: str = "") -> Any:
    """A hint's (or a computer's) move as players say it; a hint that names a place and the `tiles`
    that could go there (a person's rack unknown, Blockers!) says them, whichever the person holds."""
    return engine.hint_words(move, tiles) if tiles else engine.move_words(move)


def coach_hint(player: Any, move: Any, why: Any) -> Text:
    """The coach's hint as `referee hint` prints it: the move in the game's notation (or, naming a
    place and the tiles that could go there, in words), and why."""
    if why:
        return _("hint for {player}: {move} ({why})", player=player, move=move, why=why)
    return _("hint for {player}: {move}", player=player, move=move)


NOT_A_PERSONS_TURN = _("it is the computer's turn, not a person's: make the computer's move the referee shows")


def computer_revealed(player: Any, colours: Sequence[Any]) -> Text:
    """A computer seat's secret colour(s), shown at the end of the game as a person reveals theirs."""
    return _("the computer ({player}) reveals its secret colour: {colours}", player=player, colours=listed(colours))


def computer_awaits(player: Any, move: Any) -> Text:
    """The move a computer seat chose, which a person is to make on the board (as its verdict says it)."""
    return _("the computer plays {player}: {move}; make its move on the board", player=player, move=move)


def computer_choosing(player: Any) -> Text:
    """A computer seat to move whose move is not chosen yet (it thinks, off the referee's thread)."""
    return _("the computer ({player}) is choosing its move", player=player)


def computer_waits_for_tiles(player: Any, count: int) -> Text:
    """A computer seat's rack is short (Blockers!): a person draws its tiles and taps them on the page."""
    return _(
        "the computer ({player}) waits for its tiles: draw {count} from its pile and tap them on the page",
        player=player,
        count=count,
    )


NO_COACH = _("this table plays without help: hints and legal moves are off for this game")
HINT_TOO_LATE = _("the board changed while the coach was thinking: ask again")
NO_MOVE_TO_HELP = _("there is no move to help with: the game has not started, or it is over")
