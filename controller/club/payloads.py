"""The MQTT payloads of `docs/mqtt.md`, version 1: built by the tables, checked by the club.

Why one module for both ends: the club must refuse exactly what a table would never send, so the
builders and the checks sit side by side and change together (a new field bumps `SCHEMA`).
Every payload is one JSON object (`online` is the bare JSON `true` or `false`), at most
`MAX_BYTES` long.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from controller.club.config import NAME
from controller.language import DEFAULT, Colour, Text, _, from_json, listed, said, to_json
from controller.record import COMPUTER_MOVE, HINT
from controller.referee import Verdict, VerdictKind
from controller.service.events import Table
from controller.service.journal import JOURNAL_ID
from controller.words import seat_words, verdict_line

if TYPE_CHECKING:
    from controller.games.events import GameEvent

#: The payloads' version: `"v": 1` in every object.
SCHEMA = 1
#: Larger payloads are refused by the club (a table's largest, a state with a Blockers! board,
#: is under 2 KB).
MAX_BYTES = 64 * 1024
#: Seats a game may name, at most (every game has fewer), and the longest name (as config.yaml allows).
MAX_SEATS = 16
MAX_NAME = 60
#: The longest computer level a first entry may name (the referee's are short words).
MAX_LEVEL = 30
#: Entries one acknowledgement names, at most (a batch of the club's; the rest go in the next one).
MAX_ACKED = 500
LEAVES = ("state", "verdict", "result", "online")
VERDICT_WORDS = tuple(k.value for k in VerdictKind) + ("reveal",)


class BadPayload(ValueError):
    """A message the club ignores; the text says why, for its one log line."""


@dataclass(frozen=True)
class Message:
    """A checked message: which table, which leaf (state, verdict, result, online), its body."""

    table: str
    leaf: str
    body: Any
    #: The payload as received (stored as it is: no second encoding).
    text: str = ""
    #: When the club's MQTT thread received it (time.time()), for the club's own share of latency.
    received: float | None = None

    @property
    def journal(self) -> str:
        """The table's journal the message speaks of ('' for a journal from before journal ids)."""
        return (self.body.get("journal") if isinstance(self.body, dict) else None) or ""


def encode(body: Any) -> bytes:
    return json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


# --- what tables send -------------------------------------------------------------------------
def _journal_key(journal: str | None) -> dict[str, str]:
    """The `journal` key: the journal's id, or nothing for a game of a journal from before ids."""
    return {"journal": journal} if journal else {}


def verdict_payload(
    table: str,
    game_id: int,
    seq: int,
    verdict: dict[str, Any],
    sent: float,
    journal: str | None = None,
    judged: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """A journal entry's verdict (`notation.md` §3 keys, or a reveal) with where it is: which journal
    (its id), which game of it, which entry of the game. `judged`: the same verdict as the rules gave
    it again (the journal keeps its English), whose reason and advice go as their catalogue messages
    too (`"said"`), so that the club says them in its readers' language."""
    said_too = {}
    if judged is not None:
        said_too = {k: to_json(judged[k]) for k in ("reason", "advice") if isinstance(judged.get(k), Text)}
    return {
        "v": SCHEMA,
        "table": table,
        **_journal_key(journal),
        "game_id": game_id,
        "seq": seq,
        **verdict,
        **({"said": said_too} if said_too else {}),
        "sent": round(sent, 3),
    }


def result_payload(
    table: str,
    game_id: int,
    seq: int,
    setup: dict[str, Any],
    names: list[str],
    result: dict[str, Any],
    sent: float,
    journal: str | None = None,
) -> dict[str, Any]:
    return {
        "v": SCHEMA,
        "table": table,
        **_journal_key(journal),
        "game_id": game_id,
        "seq": seq,
        "game": setup.get("game"),
        "variant": setup.get("variant", "standard"),
        "names": names,
        "result": result,
        "sent": round(sent, 3),
    }


def state_payload(
    table_name: str,
    game_keys: dict[str, Any],
    names: list[str],
    table: Table,
    snapshot: str | None,
    scores: list[Any] | None,
    last_seq: int | None,
    sent: float,
    journal: str | None = None,
) -> dict[str, Any]:
    """The retained state: the table as its players see it (`events.Table`), the board and scores."""
    return {
        "v": SCHEMA,
        "table": table_name,
        **_journal_key(journal),
        "game": table.game,
        "variant": game_keys.get("variant", "standard"),
        "players": len(names),
        "seats": game_keys.get("seats"),
        "names": names,
        "computer": computer_seats(game_keys, len(names)),
        "game_id": table.game_id,
        "started": table.started,
        "over": table.over,
        "turn": table.to_move,
        "winners": list(table.winners) if table.winners else None,
        "illegal": table.illegal,
        "pending": table.pending,
        "unreadable": table.unreadable,
        "faults": list(table.faults),
        # the same sentences as their catalogue messages, so the club says them in its readers' language
        "said": {"unreadable": to_json(table.unreadable), "faults": [to_json(f) for f in table.faults]},
        "snapshot": snapshot,
        "scores": scores,
        "last_seq": last_seq,
        "online": True,
        "sent": round(sent, 3),
    }


# --- what the club accepts --------------------------------------------------------------------
def parse_message(topic: str, payload: bytes, prefix: str = "referee") -> Message:
    """Check one message from the broker; raises BadPayload with a reason for anything else."""
    if len(payload) > MAX_BYTES:
        raise BadPayload(f"{len(payload)} bytes, more than the {MAX_BYTES} a table ever sends")
    levels = topic.split("/")
    base = prefix.split("/")
    if levels[: len(base)] != base or len(levels) != len(base) + 2:
        raise BadPayload(f"not a topic {prefix}/<table>/<{'|'.join(LEAVES)}>")
    table, leaf = levels[-2], levels[-1]
    if not NAME.match(table):
        raise BadPayload("the table's name is not letters, digits, '-', '_' or '.' (at most 64)")
    if leaf not in LEAVES:
        raise BadPayload(f"unknown topic leaf {leaf!r}; the leaves are {', '.join(LEAVES)}")
    try:
        text = payload.decode("utf-8")
        body = json.loads(text, parse_constant=_no_constant)
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise BadPayload(f"not JSON ({exc.__class__.__name__})") from None
    if leaf == "online":
        if not isinstance(body, bool):
            raise BadPayload("expected true or false")
        return Message(table, leaf, body, text)
    if not isinstance(body, dict):
        raise BadPayload("expected a JSON object")
    if body.get("v") != SCHEMA:
        raise BadPayload(f"schema version {body.get('v')!r}, this club reads version {SCHEMA}")
    _CHECKS[leaf](body)
    return Message(table, leaf, body, text)


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _need(body: dict, key: str, kinds: type | tuple[type, ...], optional: bool = False) -> Any:
    if key not in body or body[key] is None:
        if optional:
            return None
        raise BadPayload(f"'{key}' is missing")
    value = body[key]
    if isinstance(value, bool) and bool not in (kinds if isinstance(kinds, tuple) else (kinds,)):
        raise BadPayload(f"'{key}' has the wrong type")
    if not isinstance(value, kinds):
        raise BadPayload(f"'{key}' has the wrong type")
    if isinstance(value, float) and not math.isfinite(value):
        raise BadPayload(f"'{key}' is not a finite number")
    return value


def _count(body: dict, key: str) -> int:
    value = _need(body, key, int)
    if not 0 <= value < 2**53:
        raise BadPayload(f"'{key}' is out of range")
    return value


def _seats(body: dict, key: str) -> None:
    value = _need(body, key, list, optional=True)
    if value is not None and not all(isinstance(w, int) and not isinstance(w, bool) and 0 <= w < 64 for w in value):
        raise BadPayload(f"'{key}' should be seat numbers")


def _strings(body: dict, key: str, optional: bool = False) -> None:
    value = _need(body, key, list, optional)
    if value is not None and not all(isinstance(s, str) for s in value):
        raise BadPayload(f"'{key}' should be a list of texts")


def _journal(body: dict) -> None:
    """`journal`: absent or null (a journal from before ids), else a journal id."""
    value = _need(body, "journal", str, optional=True)
    if value is not None and not JOURNAL_ID.fullmatch(value):
        raise BadPayload("'journal' should be 1 to 64 letters, digits, '-' or '_'")


def _check_state(body: dict) -> None:
    _journal(body)
    _need(body, "game", str)
    _count(body, "game_id")
    turn = _need(body, "turn", int, optional=True)
    if turn is not None and not 0 <= turn < 64:
        raise BadPayload("'turn' is not a seat")
    _seats(body, "winners")
    _strings(body, "faults")
    _strings(body, "names", optional=True)
    if body.get("computer") is not None:
        players = _need(body, "players", int)
        _computer({"computer": body["computer"], "players": players})
    _need(body, "snapshot", str, optional=True)
    _need(body, "scores", list, optional=True)
    for key in ("started", "over", "illegal", "pending"):
        _need(body, key, bool, optional=True)


def _check_verdict(body: dict) -> None:
    _journal(body)
    _count(body, "game_id")
    seq = _count(body, "seq")
    word = _need(body, "verdict", str)
    if word not in VERDICT_WORDS:
        raise BadPayload(f"unknown verdict {word!r}")
    _need(body, "seat", int, optional=True)
    _need(body, "sent", (int, float), optional=True)
    if seq == 0 or "names" in body or "players" in body:  # a game's first entry names its players
        _names(body)
    if "computer" in body:
        _computer(body)
    _need(body, "game", str, optional=True)
    _need(body, "variant", str, optional=True)
    if body.get("action") in (HINT, COMPUTER_MOVE) and not isinstance(body.get("seat"), int):
        raise BadPayload(f"'{body['action']}' names no seat")
    if body.get("result") is not None:
        _result(body["result"])


def _names(body: dict) -> None:
    players = _need(body, "players", int)
    names = _need(body, "names", list)
    if not 1 <= players <= MAX_SEATS or len(names) != players:
        raise BadPayload(f"'names' should name each of the 'players' (1 to {MAX_SEATS}) once")
    if not all(isinstance(n, str) and 0 < len(n) <= MAX_NAME for n in names):
        raise BadPayload(f"'names' should be texts of 1 to {MAX_NAME} characters")


def _computer(body: dict) -> None:
    """`computer` (a game's first entry): per seat, null for a person, else the computer's level."""
    value = _need(body, "computer", list, optional=True)
    if value is None:
        return
    players = body.get("players")
    if not isinstance(players, int) or len(value) != players:
        raise BadPayload("'computer' should have one entry per seat, with 'players'")
    if not all(v is None or (isinstance(v, str) and 0 < len(v) <= MAX_LEVEL) for v in value):
        raise BadPayload(f"'computer' should be null (a person) or a level of 1 to {MAX_LEVEL} characters per seat")


def help_mark(body: dict[str, Any]) -> tuple[str, int] | None:
    """(`hint` or `computer-move`, the seat) for a verdict that shows help or the computer at play, else None."""
    action, seat = body.get("action"), body.get("seat")
    if body.get("verdict") == "action" and action in (HINT, COMPUTER_MOVE) and isinstance(seat, int):
        return str(action), seat
    return None


def computer_seats(keys: dict[str, Any], players: int) -> list[str | None] | None:
    """A game's `computer` key as its first entry sends it (`docs/mqtt.md`): one entry per seat, null
    for a person, else the computer's level; None for a game of people only."""
    value = keys.get("computer")
    if not isinstance(value, list) or len(value) != players:
        return None
    seats = [str(v) if v is not None and v is not False else None for v in value]
    return seats if any(seats) else None


def _result(result: Any) -> None:
    if not isinstance(result, dict):
        raise BadPayload("'result' has the wrong type")
    _need(result, "finished", bool)
    _seats(result, "winners")
    _need(result, "scores", list, optional=True)
    _need(result, "reason", str, optional=True)


def _check_result(body: dict) -> None:
    _journal(body)
    _count(body, "game_id")
    _count(body, "seq")
    _need(body, "game", str)
    _strings(body, "names")
    if not 0 < len(body["names"]) <= MAX_SEATS:
        raise BadPayload(f"'names' should name 1 to {MAX_SEATS} players")
    result = _need(body, "result", dict)
    _result(result)
    winners = result.get("winners")
    if winners and not all(0 <= w < len(body["names"]) for w in winners):
        raise BadPayload("'result.winners' names a seat that 'names' does not have")
    _need(body, "sent", (int, float), optional=True)


_CHECKS = {"state": _check_state, "verdict": _check_verdict, "result": _check_result}


# --- the club's acknowledgements (`<prefix>/<table>/ack`) -------------------------------------
def ack_payload(
    table: str, stored: list[tuple[int, int]], resend: bool, sent: float, journal: str | None = None
) -> dict[str, Any]:
    """The club to one table: the entries of one of its journals it has stored (the table's mark may
    move past them), and whether the table should send again everything the club has not acknowledged."""
    return {
        "v": SCHEMA,
        "table": table,
        **_journal_key(journal),
        "stored": [list(p) for p in stored],
        "resend": resend,
        "sent": round(sent, 3),
    }


def parse_ack(topic: str, payload: bytes, expected_topic: str) -> tuple[str | None, list[tuple[int, int]], bool]:
    """(the journal, the entries stored, send again?) of the club's acknowledgement; the journal is None
    when the acknowledgement names none (entries of a journal from before ids, or a club from before
    journal ids); BadPayload for anything else."""
    if topic != expected_topic:
        raise BadPayload(f"not this table's acknowledgement topic {expected_topic}")
    if len(payload) > MAX_BYTES:
        raise BadPayload(f"{len(payload)} bytes, more than the {MAX_BYTES} the club ever sends")
    try:
        body = json.loads(payload.decode("utf-8"), parse_constant=_no_constant)
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise BadPayload(f"not JSON ({exc.__class__.__name__})") from None
    if not isinstance(body, dict) or body.get("v") != SCHEMA:
        raise BadPayload(f"expected a version {SCHEMA} JSON object")
    stored = _need(body, "stored", list)
    if len(stored) > MAX_ACKED or not all(
        isinstance(p, list)
        and len(p) == 2
        and all(isinstance(n, int) and not isinstance(n, bool) and 0 <= n < 2**53 for n in p)
        for p in stored
    ):
        raise BadPayload("'stored' should be a list of [game_id, seq] pairs")
    resend = _need(body, "resend", bool, optional=True)
    _journal(body)
    return body.get("journal"), [(p[0], p[1]) for p in stored], bool(resend)


# --- words for people -------------------------------------------------------------------------
def _said(body: dict[str, Any], key: str, english: Any) -> Any:
    """A sentence of a table's message, sayable in any language when the table sent its catalogue
    message beside the English (`"said": {key: ...}`); else the English as sent (an older table)."""
    said_too = body.get("said")
    return from_json(said_too.get(key), english) if isinstance(said_too, dict) and key in said_too else english


def state_sentences(state: dict[str, Any]) -> tuple[Any, list[Any]]:
    """A table's state's unreadable board and faults, each sayable in any language when the table sent
    their catalogue messages (`"said"`), else as the table wrote them."""
    faults = [f for f in state.get("faults") or [] if isinstance(f, str)]
    said_too = state.get("said")
    said_faults = said_too.get("faults") if isinstance(said_too, dict) else None
    if isinstance(said_faults, list) and len(said_faults) == len(faults):
        faults = [from_json(data, english) for data, english in zip(said_faults, faults)]
    unreadable = state.get("unreadable")
    return (_said(state, "unreadable", unreadable) if isinstance(unreadable, str) else unreadable), faults


def verdict_words(body: dict[str, Any], names: list[str] | None = None, lang: str = DEFAULT) -> str:
    """The verdict in the referee's own words (`controller.words.verdict_line`) in `lang`, with player
    names when known."""

    word = body.get("verdict")
    seat: Any = body.get("seat")  # whatever the table's JSON holds: checked where used
    who = seat_words(None, seat) if isinstance(seat, int) else None
    try:
        if word == "reveal":
            colours = [Colour(str(c)) for c in body.get("colours", [])]
            line: Any = _("{player} revealed {colours}", player=who, colours=listed(colours, conjunction=" "))
        else:
            verdict = Verdict(
                verdict=VerdictKind(word),
                seat=seat,
                move=str(body.get("move", "")),
                # The events as the table wrote them: verdict_line reads their text (GameEvent.parse).
                events=cast("tuple[GameEvent, ...]", tuple(str(e) for e in body.get("events", []))),
                reason=_said(body, "reason", str(body.get("reason", ""))),
                cells=tuple(tuple(c) for c in body.get("cells", []) if isinstance(c, list) and len(c) == 2),
                advice=_said(body, "advice", body.get("advice")),
                action=body.get("action"),
                doubtful=bool(body.get("doubtful", False)),
                tiles=str(body.get("tiles", "")),
            )
            line = verdict_line(verdict)
        text = said(line, lang)
    except Exception:  # a table's odd but valid payload (or words that changed): its bare word, never a broken page
        return str(word)
    if who is not None and names and 0 <= seat < len(names):
        said_who = said(who, lang)
        if text.startswith(said_who):
            text = names[seat] + text[len(said_who) :]
    return text
