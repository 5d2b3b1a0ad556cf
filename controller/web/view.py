"""What the live page shows, as JSON: built from what the page heard on the event bus.

As picochess's web display and Frigate's dispatcher do, the page listens: `LiveView` is a bus
subscriber that keeps, as its own state, the last `Scene` and `Table` the loop's events carried
(values the loop never changes afterwards), the last board read and what the slide switches said.
It never reads the loop, its session or the camera sensor; changes go through `RefereeLoop.submit`.
Each event it hears calls `on_change`, which the server turns into a push to the open pages.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any

from controller import corrections, words
from controller.ai.table import move_cells
from controller.errors import RefereeError
from controller.games import registry
from controller.games.registry import find_rule
from controller.games.spec import ABOVE_COLUMNS, BESIDE_ROWS
from controller.language import DEFAULT, Colour, Named, Text, _, language, said
from controller.record import HINT
from controller.referee import VerdictKind, same_verdict
from controller.service.events import BoardRead, Event, EventBus, GameOpened, Scene, SlidesSeen, Table, VerdictGiven
from controller.service.session import GameSession
from controller.snapshot import Snapshot, format_snapshot
from controller.vision import looks
from controller.words import stored_verdict_line as verdict_words


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


def lines_shown(game: str, rows: int, cols: int, lang: str = DEFAULT) -> list[dict[str, Any]]:
    """How the page draws the game's lines besides the grid, as the game declares them (`ExtraLine.shown`):
    per line its key, its kind (`spec.AS_VALUE`, `spec.ON_POSTS`, `spec.BESIDE_ROWS`,
    `spec.ABOVE_COLUMNS`), its label and its tokens' words in `lang`, its unknown token, and for a
    slider its colour, notches and the name of each (one per row or column of a `rows` x `cols` board).
    A line the game does not declare shown is left out."""
    out = []
    for line in registry.get(game).extra_lines if registry.known(game) else ():
        shown = line.shown
        if shown is None:
            continue
        words = {token: said(Text(text), lang) for token, text in shown.words.items()}
        if line.unknown is not None and line.unknown not in words:
            words[line.unknown] = said(_("not read"), lang)
        sliders = shown.kind in (BESIDE_ROWS, ABOVE_COLUMNS)  # a slider's label names one: see names
        label = said(Text(shown.label), lang) if shown.label and not sliders else ""
        item: dict[str, Any] = {"key": line.key, "kind": shown.kind, "label": label, "words": words}
        item["unknown"] = line.unknown
        if sliders:
            count = rows if shown.kind == BESIDE_ROWS else cols
            item["names"] = [said(Text(shown.label, {"number": str(i + 1)}), lang) for i in range(count)]
            item.update(colour=shown.colour, notches=shown.notches)
        out.append(item)
    return out


def keys_shown(keys: dict[str, Any], over: bool) -> dict[str, Any]:
    """A game's keys as the page may show them: never the profile (long, and the table's own), and the
    secret colours only once the game is over (the page is open to anyone on the network: a player's
    phone must not show the others' secrets the referee was told for the final ranking)."""
    hidden = {"profile"} if over else {"profile", "secrets"}
    return {k: v for k, v in keys.items() if k not in hidden}


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

    Per event it only keeps a few references under its lock (the scene, the table, the board seen,
    the illegal board), so it costs nothing measurable; `state()` does the work, when a page asks
    or is pushed. It catches up at once when it subscribes (the latest event of each kind), so a
    page opened after the game began sees it whole.
    """

    def __init__(self, bus: EventBus, names: Sequence[str] = (), on_change: Callable[[], None] | None = None) -> None:
        self.names = tuple(names)
        #: Called after each event heard (from the bus's thread): the server wakes its pusher.
        self.on_change = on_change
        self._lock = threading.Lock()
        self._scene: Scene | None = None
        self._table: Table | None = None
        #: The snapshot of the first illegal verdict of the current illegal run (the plan's base).
        self.illegal_seen: Snapshot | None = None
        #: The latest board read surely by the camera (None: nothing read yet).
        self.seen: Snapshot | None = None
        #: The latest reading's problem, unsure places and board with them as `?` (None: it was sure).
        self.problem: str | None = None
        self.unsure: tuple[tuple[int, int], ...] = ()
        self.partial: Snapshot | None = None
        #: What the slide switches said last (None: this referee has none, or they said nothing yet).
        self.slides: SlidesSeen | None = None
        #: Grows with every event heard.
        self.version = 0
        bus.subscribe(self, name="web", catch_up=True)

    # --- the event stream (a threaded bus subscriber) -----------------------------------------
    def __call__(self, event: Event) -> None:
        with self._lock:
            self.version += 1
            self._table = event.table
            if event.scene is not None:
                self._scene = event.scene
            if isinstance(event, VerdictGiven):
                kind = event.verdict.verdict
                if kind == VerdictKind.ILLEGAL:
                    if self.illegal_seen is None and event.snapshot is not None:
                        self.illegal_seen = event.snapshot
                elif kind != VerdictKind.PENDING or not event.table.illegal:
                    self.illegal_seen = None
            elif isinstance(event, BoardRead):
                self.problem = event.problem
                self.unsure = event.unsure
                self.partial = event.partial
                if event.snapshot is not None:
                    self.seen = event.snapshot
            elif isinstance(event, SlidesSeen):
                self.slides = event
            elif isinstance(event, GameOpened):
                self.illegal_seen = None if not event.table.illegal else self.illegal_seen
        if self.on_change is not None:
            self.on_change()

    @property
    def scene(self) -> Scene:
        """The game as last heard (the page's routes read the setup, keys and engine here)."""
        with self._lock:
            scene = self._scene
        if scene is None:
            raise RuntimeError("the live page has heard nothing from the referee yet")
        return scene

    @property
    def game_id(self) -> int:
        """The journal's number of the game being refereed, as last heard."""
        with self._lock:
            table = self._table
        if table is None:
            raise RuntimeError("the live page has heard nothing from the referee yet")
        return table.game_id

    def finished(self, game_id: int) -> bool:
        """Whether `game_id` is the game being refereed and is over, as last heard (its secret colours
        may be shown although the journal keeps it open until the next game)."""
        with self._lock:
            table = self._table
        return table is not None and table.game_id == game_id and bool(table.over)

    # --- what the page is sent ------------------------------------------------------------------
    def state(self, lang: str = DEFAULT) -> dict[str, Any]:
        """The table now, every sentence said in `lang` (the page's language)."""
        lang = language(lang).code
        with self._lock:
            scene, table, version = self._scene, self._table, self.version
        if scene is None or table is None:
            raise RuntimeError("the live page has heard nothing from the referee yet")
        engine = scene.engine
        setup = scene.setup
        spec = registry.get(setup.game)
        game_state = scene.state
        expected = engine.expected(game_state) if game_state is not None else None
        result = engine.result(game_state).to_json() if game_state is not None else None
        stored = scene.verdicts

        def named(text: Any) -> str:
            return self._named(text, lang)

        def say(text: Any) -> str:
            return said(text, lang)

        pictured = scene.pictured
        resolved = scene.resolved
        verdicts = [
            {
                "json": v,
                "line": named(
                    words.with_resolved(
                        verdict_words(v, engine, setup.first), resolved.get(v.get("index", -1), ()), engine
                    )
                ),
                "rule": rule_json(v, lang),
                "picture": picture_url(scene.game_id, v["index"]) if v.get("index") in pictured else None,
            }
            for v in stored
        ]
        seats = [{"seat": s, "name": named(engine.seat_name(s))} for s in range(setup.players)]
        out: dict[str, Any] = {
            "game": setup.game,
            "title": say(words.game_name(setup.game)),
            # what the game declares the page offers: its variants for a new game, the secrets'
            # reveal (Colorpop), the end by agreement (Flipop)
            "variants": list(spec.variants),
            "can_reveal": bool(spec.secret_colours),
            "ends_by_agreement": spec.ends_by_agreement,
            "game_id": table.game_id,
            "variant": setup.variant,
            "players": setup.players,
            "first": setup.first,
            "seats": seats,
            "language": lang,
            "keys": keys_shown(scene.keys, bool(table.over)),
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
            "verdict_count": scene.verdict_count,
            "palette": palette(setup.game, setup.profile, lang),
            "place_names": place_names(engine, setup.profile.rows, setup.profile.cols, lang),
            # the symbols a board profile names (Blockers!: glyph `a` is the moon), for the tiles' pictures
            "symbols": {g: engine.tile_symbol(g) for g in engine.rack_glyphs if engine.tile_symbol(g)},
            "axes": axes(engine, setup.profile.rows, setup.profile.cols),
            "lines": lines_shown(setup.game, setup.profile.rows, setup.profile.cols, lang),
            "reading": self._reading(engine, lang),
            "slides": self._slides(),
            "version": version,
        }
        last = stored[-1] if stored else {}
        out["paused"] = say(scene.paused) if scene.paused is not None else None
        out["doubtful"] = bool(table.illegal and scene.illegal is not None and scene.illegal.get("doubtful"))
        out["result_line"] = named(words.result_line(result))
        # "this board is right, go on from it": offered whenever the referee refuses the board
        out["can_accept"] = bool(
            table.illegal or table.pending or (not table.started and last.get("verdict") == "setup-invalid")
        )
        out["correction"] = self._correction(scene, expected, table.illegal, lang)
        out["illegal_cells"] = [list(c) for c in self.illegal_cells()]
        out["computer"] = self._computer(scene, table, lang)
        return out

    def _computer(self, scene: Scene, table: Table, lang: str = DEFAULT) -> dict[str, Any]:
        """The computer's seats, the move it wants made on the board (drawn and in words), and the
        coach: on or off, and the last hint while the board has not changed since it was given."""
        engine, game_state, stored = scene.engine, scene.state, scene.verdicts
        seats = dict(scene.computer)
        awaited = scene.awaited
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
                "tiles": last.get("tiles", ""),
                "words": said(words.hint_move_words(engine, last.get("move", ""), last.get("tiles", "")), lang),
                "cells": [list(c) for c in move_cells(engine, game_state, last.get("move", ""))],
            }
        racks = self._racks(scene, table, lang)
        thinking = thinking and not any(r["missing"] and r["seat"] == table.to_move for r in racks)
        return {
            "seats": [{"seat": seat, "level": level} for seat, level in sorted(seats.items())],
            "move": move,
            "thinking": thinking,
            "racks": racks,
            "coach": scene.coach,
            "hint": hint,
            "own_tiles": self._own_tiles(scene, table, lang),
        }

    def _own_tiles(self, scene: Scene, table: Table, lang: str = DEFAULT) -> list[dict[str, Any]]:
        """The person to move's tiles the page offers to tap for the coach (Blockers!): per colour of
        theirs, every tile, each said whether it may still be on their rack; tapped, they go with the
        hint asked (`POST /api/hint {"tiles": ...}`), never to the journal."""
        engine, state, seat = scene.engine, scene.state, table.to_move
        if state is None or table.over or not scene.coach or seat is None or seat in scene.computer:
            return []
        return [
            {
                "seat": seat,
                "name": self._named(engine.seat_name(seat), lang),
                "colour": colour,
                "colour_name": said(engine.colour(colour, 2), lang),
                "tiles": self._tile_choices(scene, colour, lang),
            }
            for colour in engine.rack_colours(seat)
        ]

    def _tile_choices(self, scene: Scene, colour: str, lang: str = DEFAULT) -> list[dict[str, Any]]:
        """Every tile of `colour` for the page to tap: its words, its symbol's name (the profile's), and
        whether it can still be in the pile or on a rack (not placed, not captured)."""
        engine, state = scene.engine, scene.state
        tiles = []
        for glyph in engine.rack_glyphs:
            symbol = engine.tile_symbol(glyph)
            try:
                engine.check_rack(state, colour + glyph)
                possible = True
            except RefereeError:
                possible = False
            tiles.append(
                {
                    "glyph": glyph,
                    "words": said(engine.rack_words(colour + glyph), lang),
                    "symbol": symbol,
                    # what the tile shows, in words under its picture: a symbol's name, else its glyph
                    "caption": said(Named(symbol, "symbol"), lang) if symbol else glyph,
                    "possible": possible,
                }
            )
        return tiles

    def _racks(self, scene: Scene, table: Table, lang: str = DEFAULT) -> list[dict[str, Any]]:
        """The racks of the computer's seats a person draws for (Blockers!): per colour, the tiles on it
        as tapped, how many are still to draw, and every tile of the colour for the page to tap, each with
        its words, its symbol's name (the profile's) and whether it can still be in the pile or on the rack."""
        engine, state = scene.engine, scene.state
        if state is None or table.over:
            return []
        out = []
        for seat in sorted(scene.computer):
            for colour in engine.rack_colours(seat):
                told = scene.racks.get(colour, ())
                held, missing = engine.rack_held(state, colour, told)
                tiles = self._tile_choices(scene, colour, lang)
                out.append(
                    {
                        "seat": seat,
                        "name": self._named(engine.seat_name(seat), lang),
                        "colour": colour,
                        "colour_name": said(engine.colour(colour, 2), lang),
                        "held": list(held),
                        "missing": missing,
                        "tiles": tiles,
                    }
                )
        return out

    def _named(self, text: Any, lang: str = DEFAULT) -> str:
        """`text` said in `lang`, with the players' names where the config gives them (`mqtt: names:`), as
        the club shows them."""
        return words.with_names(text, self.names, lang)

    def illegal_cells(self) -> list[tuple[int, int]]:
        """The places of the illegal move the board is in now (none when it is not illegal)."""
        with self._lock:
            scene = self._scene
        if scene is None or scene.illegal is None:
            return []
        return [tuple(c) for c in scene.illegal.get("cells", [])]

    def _reading(self, engine: Any, lang: str = DEFAULT) -> dict[str, Any]:
        with self._lock:
            seen, problem, unsure = self.seen, self.problem, self.unsure
        return {
            "snapshot": format_snapshot(seen) if seen is not None else None,
            "unsure": [said(engine.place_name(c), lang) for c in unsure],
            "unsure_cells": [list(c) for c in unsure],
            "problem": said(problem, lang) if problem is not None else None,
        }

    def _slides(self) -> dict[str, Any] | None:
        with self._lock:
            slides = self.slides
        if slides is None:
            return None
        positions = list(slides.positions)
        return {
            "orange": positions[:7],
            "white": positions[7:],
            "link_ok": bool(slides.link_ok and slides.healthy),
            "faults": list(slides.faults),
        }

    def _seen_now(self, game: str) -> Snapshot | None:
        """The board the camera sees now, unsure places as `?`, with the slides as switched."""
        with self._lock:
            seen, partial, slides = self.seen, self.partial, self.slides
        if partial is not None:  # read, but unsure of some places: they show as `?` and are not corrected
            seen = partial
        merge = registry.get(game).with_switches
        slid = slides is not None and slides.link_ok and slides.positions and None not in slides.positions
        if seen is not None and merge is not None and slides is not None and slid:
            seen = merge(seen, tuple(p for p in slides.positions if p is not None))  # none is None
        return seen

    def _correction(
        self, scene: Scene, legal: Snapshot | None, illegal: bool, lang: str = DEFAULT
    ) -> dict[str, Any] | None:
        with self._lock:
            first = self.illegal_seen
        if first is None:  # the illegal verdict's event is still on its way: the board it judged
            first = scene.last_snapshot
        if not illegal or legal is None or first is None:
            return None
        seen = self._seen_now(scene.setup.game)
        progress = corrections.progress(scene.engine, legal, first, seen)
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
