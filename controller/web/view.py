"""What the live page shows, as JSON: built from the loop's state on request, never per frame.

Thread safety: the loop's thread owns the game. This module only *reads* it from the web thread:
it takes `loop.session` and the referee's `state` once (engine states are immutable values, so
a state read once stays consistent), and copies lists before walking them. It never calls a
method that changes anything; changes go through `RefereeLoop.submit`.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

from controller import corrections, words
from controller.ai.table import move_cells
from controller.errors import RefereeError
from controller.games import registry
from controller.games.registry import find_rule
from controller.language import DEFAULT, Colour, Text, language, said
from controller.record import HINT
from controller.referee import VerdictKind, same_verdict
from controller.service.events import BoardRead, Event, GameOpened, VerdictGiven
from controller.service.session import GameSession
from controller.snapshot import Snapshot, format_snapshot
from controller.vision import looks
from controller.words import stored_verdict_line as verdict_words

#: Verdicts the page's history shows (the newest last); the whole game is in the journal.
HISTORY = 60


def picture_url(game_id: int, index: int) -> str:
    """Where the page fetches the picture behind a verdict (`/api/games/N/pictures/I.jpg`)."""
    return f"/api/games/{game_id}/pictures/{index}.jpg"


def board_json(snapshot: Snapshot | None) -> dict[str, Any] | None:
    """A snapshot as the page draws it: its text (notation.md §1) and its parts."""
    if snapshot is None:
        return None
    return {
        "text": format_snapshot(snapshot),
        "rows": snapshot.rows,
        "cols": snapshot.cols,
        "cells": [list(row) for row in snapshot.cells],
        # the game's lines besides the grid by their key (Flipop's `doors`, Stay Alive's `orange` and
        # `white`), None where not read
        **{line.key: _listed(snapshot.line(line.key)) for line in registry.get(snapshot.game).extra_lines},
    }


def _listed(tokens: tuple[str, ...] | None) -> list[str] | None:
    return list(tokens) if tokens is not None else None


def palette(game: str, profile: Any, lang: str = DEFAULT) -> dict[str, dict[str, Any]]:
    """Each piece letter's name (the profile's, in `lang`: `said` of one piece and alone) and colour
    (the renderer's standard edition)."""
    colours = looks.PIECES.get(game, {})
    noun = registry.get(game).piece_noun if registry.known(game) else "piece"
    out = {}
    for letter in profile.letters:
        rgb = colours.get(letter, (128, 128, 128))
        name = str(profile.classes.get(letter, {}).get("name", letter))
        the_piece = corrections.THE_PIECE.get(noun, corrections.THE_PIECE["piece"])
        out[letter] = {
            "name": said(Colour(name), lang),
            # the colour of one piece and the piece with its colour: "the pink token", "la bille verte"
            "piece": said(Colour(name, noun, 1), lang),
            "the_piece": said(Text(the_piece, {"colour": Colour(name, noun, 1)}), lang),
            "rgb": list(rgb),
        }
    return out


def place_names(engine: Any, rows: int, cols: int, lang: str = DEFAULT) -> list[list[str]]:
    """Every place as the game names it, for the page's labels."""
    return [[said(engine.place_name((r, c)), lang) for c in range(cols)] for r in range(rows)]


def rule_json(verdict: dict[str, Any], lang: str = DEFAULT) -> dict[str, Any] | None:
    """The rule an illegal verdict breaks (its JSON's `rule`), for the page to open: identifier, the rule in
    `lang`, its section of rules.md and the French rule book's sentence; None when it names none."""
    rule = find_rule(verdict.get("rule"))
    if rule is None:
        return None
    return {**rule.to_json(lambda text: said(text, lang)), "line": said(rule.line(), lang)}


def axes(engine: Any, rows: int, cols: int) -> dict[str, list[str]]:
    """The labels along the board's edges, as players count rows and columns (`Engine.axis_labels`)."""
    row_labels, col_labels = engine.axis_labels(rows, cols)
    return {"rows": row_labels, "cols": col_labels}


def _said_result(result: dict[str, Any] | None, say: Any) -> dict[str, Any] | None:
    """`notation.md` §3's result with its `reason` said for the page."""
    if result is None:
        return None
    return {**result, "reason": say(result["reason"])} if "reason" in result else dict(result)


class LiveView:
    """Listens to the loop's events (on its own bus thread) and answers `state()` for the page.

    Per event it only keeps a few references (the board seen, the illegal board), so it costs
    nothing measurable; `state()` does the work, when a page asks.
    """

    def __init__(self, loop: Any, sensor: Any = None, switches: Any = None, names: Sequence[str] = ()) -> None:
        self.loop = loop
        self.names = tuple(names)
        self.sensor = sensor
        self.switches = switches
        self._lock = threading.Lock()
        #: The snapshot of the first illegal verdict of the current illegal run (the plan's base).
        self.illegal_seen: Snapshot | None = None
        #: The latest board read surely by the camera (None: nothing read yet).
        self.seen: Snapshot | None = None
        self.problem: str | None = None
        #: Grows with every event: the page is pushed a new state when it changed.
        self.version = 0
        session = loop.session
        if session.referee.in_illegal and session.last_snapshot is not None:
            self.illegal_seen = session.last_snapshot

    # --- the event stream (a threaded bus subscriber) -----------------------------------------
    def __call__(self, event: Event) -> None:
        with self._lock:
            self.version += 1
            if isinstance(event, VerdictGiven):
                kind = event.verdict.verdict
                if kind == VerdictKind.ILLEGAL:
                    if self.illegal_seen is None and event.snapshot is not None:
                        self.illegal_seen = event.snapshot
                elif kind != VerdictKind.PENDING or not event.table.illegal:
                    self.illegal_seen = None
            elif isinstance(event, BoardRead):
                self.problem = event.problem
                if event.snapshot is not None:
                    self.seen = event.snapshot
            elif isinstance(event, GameOpened):
                self.illegal_seen = None if not event.table.illegal else self.illegal_seen

    # --- what the page is sent ------------------------------------------------------------------
    def state(self, lang: str = DEFAULT) -> dict[str, Any]:
        """The table now, every sentence said in `lang` (the page's language)."""
        lang = language(lang).code
        loop = self.loop
        session = loop.session
        referee = session.referee
        engine = referee.engine
        setup = session.setup
        game_state = referee.state
        table = loop.table()
        expected = engine.expected(game_state) if game_state is not None else None
        result = engine.result(game_state).to_json() if game_state is not None else None
        stored = list(session.verdicts)
        first_index = max(0, len(stored) - HISTORY)

        def named(text: Any) -> str:
            return self._named(text, lang)

        def say(text: Any) -> str:
            return said(text, lang)

        pictured = set(session.pictured)
        resolved = dict(session.resolved)
        verdicts = [
            {
                "json": v,
                "line": named(
                    words.with_resolved(verdict_words(v, engine, setup.first), resolved.get(v.get("index"), ()), engine)
                ),
                "rule": rule_json(v, lang),
                "picture": picture_url(session.game_id, v["index"]) if v.get("index") in pictured else None,
            }
            for v in stored[first_index:]
        ]
        seats = [{"seat": s, "name": named(engine.seat_name(s))} for s in range(setup.players)]
        out: dict[str, Any] = {
            "language": lang,
            "game": setup.game,
            "game_id": session.game_id,
            "variant": setup.variant,
            "players": setup.players,
            "first": setup.first,
            "seats": seats,
            "keys": {k: v for k, v in session.keys.items() if k != "profile"},
            "started": table.started,
            "over": table.over,
            "to_move": table.to_move,
            "to_move_name": named(engine.seat_name(table.to_move)) if table.to_move is not None else None,
            "illegal": table.illegal,
            "pending": table.pending,
            "unreadable": say(table.unreadable) if table.unreadable is not None else None,
            "faults": [say(f) for f in table.faults],
            "board": board_json(expected),
            "result": _said_result(result, named),
            "winners": [named(engine.seat_name(s)) for s in (table.winners or ())],
            "verdicts": verdicts,
            "verdict_count": len(stored),
            "palette": palette(setup.game, setup.profile, lang),
            "place_names": place_names(engine, setup.profile.rows, setup.profile.cols, lang),
            "axes": axes(engine, setup.profile.rows, setup.profile.cols),
            "reading": self._reading(engine, lang),
            "slides": self._slides(),
            "version": self.version,
        }
        last = stored[-1] if stored else {}
        paused = getattr(loop, "paused", None)
        out["paused"] = say(paused) if paused is not None else None
        out["doubtful"] = bool(table.illegal and self._last_illegal(stored).get("doubtful"))
        out["result_line"] = named(words.result_line(result))
        # "this board is right, go on from it": offered whenever the referee refuses the board
        out["can_accept"] = bool(
            table.illegal or table.pending or (not table.started and last.get("verdict") == "setup-invalid")
        )
        out["correction"] = self._correction(engine, expected, table.illegal, lang)
        out["illegal_cells"] = [list(c) for c in self.illegal_cells()]
        out["computer"] = self._computer(session, engine, game_state, table, stored, lang)
        return out

    def _computer(
        self, session: Any, engine: Any, game_state: Any, table: Any, stored: list[dict[str, Any]], lang: str = DEFAULT
    ) -> dict[str, Any]:
        """The computer's seats, the move it wants made on the board (drawn and in words), and the
        coach: on or off, and the last hint while the board has not changed since it was given."""
        seats = dict(getattr(session, "computer", {}) or {})
        awaited = session.referee.awaited
        move = None
        if awaited is not None and game_state is not None:
            move = {
                "seat": awaited.seat,
                "name": self._named(engine.seat_name(awaited.seat), lang),
                "move": awaited.move,
                "words": said(engine.move_words(awaited.move), lang),
                "cells": [list(c) for c in move_cells(engine, game_state, awaited.move)],
            }
        thinking = bool(
            move is None and table.started and not table.over and table.to_move in seats and not table.illegal
        )
        last = stored[-1] if stored else {}
        hint = None
        if last.get("action") == HINT and game_state is not None:
            hint = {
                "move": last.get("move", ""),
                "words": said(engine.move_words(last.get("move", "")), lang),
                "cells": [list(c) for c in move_cells(engine, game_state, last.get("move", ""))],
            }
        return {
            "seats": [{"seat": seat, "level": level} for seat, level in sorted(seats.items())],
            "move": move,
            "thinking": thinking,
            "coach": bool(getattr(session, "coach", True)),
            "hint": hint,
        }

    def _named(self, text: Any, lang: str = DEFAULT) -> str:
        """`text` said in `lang`, with the players' names where the config gives them (`mqtt: names:`), as
        the club shows them."""
        return words.with_names(text, self.names, lang)

    @staticmethod
    def _last_illegal(stored: list[dict[str, Any]]) -> dict[str, Any]:
        return next((v for v in reversed(stored) if v.get("verdict") == "illegal"), {})

    def illegal_cells(self) -> list[tuple[int, int]]:
        """The places of the illegal move the board is in now (none when it is not illegal)."""
        session = self.loop.session
        if not session.referee.in_illegal:
            return []
        for verdict in reversed(list(session.verdicts)):
            if verdict.get("verdict") == "illegal":
                return [tuple(c) for c in verdict.get("cells", [])]
        return []

    def slides_mark(self) -> Any:
        """What the slide switches say now, to notice a change (None without switches)."""
        if self.switches is None:
            return None
        state = self.switches.latest()
        return None if state is None else (state.positions, state.link_ok, state.faults)

    def _reading(self, engine: Any, lang: str = DEFAULT) -> dict[str, Any]:
        reading = getattr(self.sensor, "latest_reading", None)
        with self._lock:
            seen, problem = self.seen, self.problem
        unsure = [tuple(c) for c in reading.unsure] if reading is not None else []
        snapshot = seen if reading is None or reading.snapshot is None else reading.snapshot
        return {
            "snapshot": format_snapshot(snapshot) if snapshot is not None else None,
            "unsure": [said(engine.place_name(c), lang) for c in unsure],
            "unsure_cells": [list(c) for c in unsure],
            "problem": said(problem, lang) if problem is not None else None,
        }

    def _slides(self) -> dict[str, Any] | None:
        if self.switches is None:
            return None
        state = self.switches.latest()
        positions = list(state.positions) if state is not None else []
        return {
            "orange": positions[:7],
            "white": positions[7:],
            "link_ok": bool(state is not None and state.link_ok and self.switches.healthy()),
            "faults": list(getattr(state, "faults", ()) or ()),
        }

    def _seen_now(self) -> Snapshot | None:
        """The board the camera sees now, unsure places as `?`, with the slides as switched."""
        reading = getattr(self.sensor, "latest_reading", None)
        with self._lock:
            seen = self.seen
        if reading is not None and reading.snapshot is None and reading.cells is not None:
            # read, but unsure of some places: they show as `?` and are not corrected
            seen = Snapshot(self.loop.game, tuple(tuple(row) for row in reading.cells), {"doors": reading.doors})
        merge = registry.get(self.loop.game).with_switches
        if seen is not None and merge is not None and self.switches is not None:
            state = self.switches.latest()
            if state is not None and state.link_ok and None not in state.positions:
                seen = merge(seen, tuple(state.positions))
        return seen

    def _correction(
        self, engine: Any, legal: Snapshot | None, illegal: bool, lang: str = DEFAULT
    ) -> dict[str, Any] | None:
        with self._lock:
            first = self.illegal_seen
        if first is None:  # the illegal verdict's event is still on its way: the board it judged
            first = self.loop.session.last_snapshot
        if not illegal or legal is None or first is None:
            return None
        seen = self._seen_now()
        progress = corrections.progress(engine, legal, first, seen)
        return {
            "legal": board_json(legal),
            "seen": board_json(seen if seen is not None else first),
            "steps": [dict(step, text=said(step["text"], lang)) for step in progress.to_json()],
            "done": progress.done,
        }


class _Judged:
    def __init__(self, referee: Any, verdicts: list[dict[str, Any]]) -> None:
        self.referee = referee
        self.verdicts = verdicts


def judged_again(journal: Any, game_id: int, keys: dict[str, Any], setup: Any, entries: Sequence[Any]) -> Any:
    """A past game's entries judged again (as a resumed game is), so each verdict carries its words and can
    be said in any language (the journal keeps them in English); None when the rules now judge a verdict
    differently (its stored English words are shown then)."""
    session = GameSession(journal, game_id, keys, setup)
    verdicts = []
    try:
        for entry in entries:
            got = session._apply(entry)
            if not same_verdict(entry.verdict, got):
                return None
            verdicts.append(got)
    except (RefereeError, ValueError, KeyError, TypeError):
        return None
    return _Judged(session.referee, verdicts)
