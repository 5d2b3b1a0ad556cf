"""The live page's HTTP server: the page, its JSON API, the camera picture and a WebSocket.

Why aiohttp: one mature async package gives the HTTP server, WebSockets and static files, with
wheels for the Pi's aarch64 and nothing else to install (Starlette would need uvicorn and more).
It runs in a thread of its own with its own asyncio loop, so the referee's loop never waits on
a page; everything that changes the game goes through `RefereeLoop.submit`, run on the loop's
thread like the control socket's commands. What the page shows it hears on the loop's event bus
(`controller/web/view.py`), never reads from the loop: each event wakes the pusher, which sends
the open pages the new state (several events heard meanwhile make one push).

Safety: every request passes the guard of `controller/guard.py` first (its `Host` one of this
table's names or addresses, its `Origin` this page, the live socket included; connections capped
per client and in all; header, idle and body timeouts). Reading needs nothing more; every changing
request needs the PIN in the `X-Referee-PIN` header (401 without it, 403 when wrong, 429 while the
client's address must wait after repeated wrong ones: only that address), a JSON body, and, when
the browser says where it comes from (`Origin`, `Sec-Fetch-Site`), this very page: a custom
header and a JSON body cannot be sent cross-site without a CORS preflight, which is never
answered, and no cookie is used, so another site cannot act for a visitor. Nothing from a
request names a file or reaches a shell: the game keys are checked by the same validator as a
game record, and a board profile cannot be chosen from the page.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import socket
import threading
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any

from aiohttp import WSMsgType, web

from controller import words
from controller.ai.levels import HINT_LEVEL
from controller.ai.table import check_coach, computer_levels, legal_moves, move_cells, think, told_tiles
from controller.errors import RefereeError
from controller.games.base import ActionNotAllowed, no_such_seat
from controller.games.registry import engine_for
from controller.guard import (
    TABLE_LANGUAGE,
    ConnectionLimits,
    HostAllowList,
    guard_middleware,
    language_of,
    quiet_loop_errors,
    runner_for,
    serve,
)
from controller.hardware.lights_test import lights_test_patterns
from controller.hardware.switch_test import SwitchTest, default_slide_name
from controller.language import DEFAULT, LANGUAGES, NAMES, Text, _, literal, page_messages, said
from controller.record import setup_from_mapping
from controller.service.events import Scene
from controller.service.journal import Journal
from controller.service.session import SecretsNeeded, export_record, resolved_places
from controller.snapshot import parse_snapshot
from controller.web.aim_api import AimSetup
from controller.web.camera import CameraPictures
from controller.web.holes_api import HolesSetup
from controller.web.http import (
    NO_STORE,
    PIN_GUARD,
    BadRequest,
    PinGuard,
    answer_refusals,
    controls,
)
from controller.web.setup_api import ROUTES as CALIBRATION
from controller.web.setup_api import CalibrationRoutes
from controller.web.view import (
    LiveView,
    axes,
    board_json,
    judged_again,
    keys_shown,
    lines_shown,
    palette,
    picture_url,
    place_names,
    rule_json,
    verdict_words,
)

log = logging.getLogger("referee.web")
PUSHER = web.AppKey("pusher", asyncio.Task)
CHANGED = web.AppKey("changed", asyncio.Event)

#: Game keys a new game may set from the page (never `profile`: that names a file).
NEW_GAME_KEYS = ("game", "variant", "players", "seats", "first", "secrets", "targets", "computer", "coach")
#: Longest wait for the referee's loop to run a command (seconds).
ANSWER_TIMEOUT = 10.0
#: Games listed by /api/games at most (the most recent first; `?before=ID` lists older ones).
GAMES_LISTED = 100
#: A game's number in a path or query: digits only, short enough for SQLite.
GAME_NUMBER = re.compile(r"[0-9]{1,15}")
STATIC = Path(str(resources.files("controller.web") / "static"))
SECURITY_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'self'; img-src 'self' data:; connect-src 'self'; style-src 'self'; script-src 'self'; "
        "frame-ancestors 'none'"
    ),
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}


def error_words(exc: BaseException) -> Any:
    """A refusal's sentence, as a `Text` where the error carries one (said in the reader's language)."""
    message = getattr(exc, "message", None)
    if isinstance(message, Text):
        key = getattr(exc, "key", None)
        return _("key '{key}': {message}", key=key, message=message) if key else message
    if exc.args and isinstance(exc.args[0], Text):
        return exc.args[0]
    return str(exc)


class WebApp:
    """The routes, for one referee loop. `build()` gives the aiohttp application."""

    def __init__(
        self,
        loop: Any,
        *,
        sensor: Any = None,
        switches: Any = None,
        pin: str | None = None,
        journal_path: Path | None = None,
        feedback: Any = None,
        config_path: Path | None = None,
        names: Sequence[str] = (),
        hosts: Sequence[str] = (),
        language: str = DEFAULT,
    ) -> None:
        self.loop = loop
        #: The table's language (config.yaml's `language:`): the page's when the browser asks for none of ours.
        self.language = language
        self.sensor = sensor
        self.switches = switches
        #: The service's lights and buzzer (`controller.hardware.feedback.Feedback`), for the lights test.
        self.feedback = feedback
        #: The config file the referee was started with (the guided calibration switches its profile).
        self.config_path = config_path
        #: The PIN the controls need, and each address's wrong tries (`controller.web.http.PinGuard`).
        self.guard = PinGuard(pin)
        #: On the simulated rig only (`referee run` with the shipped config): the simulated people who
        #: set the board for each calibration step and keep the simulated players' hands off meanwhile
        #: (`simulation.setup_person.TableHands`); None with a real camera, where a person does it.
        self.table_hands: Any = None
        #: What the page shows, kept from the loop's events (`names`: config.yaml's `mqtt: names:`,
        #: as the club shows them, seat by seat); it catches up as it subscribes.
        self.view = LiveView(loop.bus, names=names)
        self.pictures = CameraPictures(sensor)
        self.journal_path = journal_path or self.view.scene.journal
        #: The live pages, each with the language it asked for.
        self.sockets: dict[web.WebSocketResponse, str] = {}
        #: The names and addresses requests may use for this table (config.yaml's `web.hosts` added).
        self.hosts = HostAllowList(hosts)
        engine = self.view.scene.engine
        self.switch_test = SwitchTest(getattr(engine, "slide_name", default_slide_name))
        self._switch_lock = threading.Lock()

    @property
    def pin(self) -> str:
        return self.guard.pin

    # --- the application -------------------------------------------------------------------------
    def build(self) -> web.Application:
        """The application: the network guard, the refusals in words, and each route module's table."""
        app = web.Application(
            middlewares=[guard_middleware(self.hosts, SECURITY_HEADERS), answer_refusals], client_max_size=64 * 1024
        )
        app[PIN_GUARD] = self.guard
        app[TABLE_LANGUAGE] = self.language
        app.add_routes(self.routes())
        app.add_routes(AimSetup(self).routes())  # the aim drawn, a copy's corners (aim_api.py)
        app.add_routes(HolesSetup(self).routes())  # Stay Alive's holes, guided (holes_api.py)
        calibration = CalibrationRoutes(self)  # calibrate from the live camera (setup_api.py)
        app[CALIBRATION] = calibration
        app.add_routes(calibration.routes())
        app.on_startup.append(self._start_pusher)
        app.on_shutdown.append(self._close_sockets)
        return app

    def routes(self) -> list[web.AbstractRouteDef]:
        """The page, the game, the journal, the lights and the switches."""
        return [
            web.get("/", self.index),
            web.static("/static/", STATIC, follow_symlinks=False),
            web.get("/ws", self.websocket),
            web.get("/api/state", self.state),
            web.get("/api/messages", self.messages),
            web.get("/camera.jpg", self.camera),
            web.get("/api/record", self.record),
            web.get("/api/games", self.games),
            web.get("/api/games/{id}", self.game),
            web.get("/api/games/{id}/pictures/{index}.jpg", self.verdict_picture),
            web.post("/api/new-game", self.new_game),
            web.post("/api/reveal", self.reveal),
            web.post("/api/end", self.end),
            web.post("/api/accept-board", self.accept_board),
            web.post("/api/hint", self.hint),
            web.post("/api/rack", self.rack),
            web.get("/api/moves", self.moves),
            web.get("/api/lights-test", self.lights_patterns),
            web.post("/api/lights-test", self.lights_test),
            web.get("/api/switches", self.switch_report),
        ]

    def language_of(self, request: web.Request) -> str:
        """The language a request is answered in: its `lang=` (the page's switch), else the browser's
        `Accept-Language`, else the table's."""
        return language_of(request, self.language)

    # --- pages and reading -----------------------------------------------------------------------
    async def index(self, request: web.Request) -> web.StreamResponse:
        return web.FileResponse(STATIC / "index.html", headers=NO_STORE)

    async def state(self, request: web.Request) -> web.Response:
        return web.json_response(self.view.state(self.language_of(request)), headers=NO_STORE)

    async def messages(self, request: web.Request) -> web.Response:
        """The page's catalogue in the language it should speak (`lang=`, else the browser's, else the
        table's), with the languages it may switch to."""
        code = self.language_of(request)
        data = {
            **page_messages(code),
            "languages": [{"code": c, "name": NAMES[c]} for c in LANGUAGES],
            "table": self.language,
        }
        return web.json_response(data, headers=NO_STORE)

    async def camera(self, request: web.Request) -> web.Response:
        if not self.pictures.available():
            raise BadRequest(404, _("no picture from the camera yet"))
        cells = [(r, c) for r, c in self.view.illegal_cells()]
        data = await asyncio.get_running_loop().run_in_executor(None, self.pictures.jpeg, cells)
        if data is None:
            raise BadRequest(404, _("no picture from the camera yet"))
        return web.Response(body=data, content_type="image/jpeg", headers=NO_STORE)

    def _with_journal(self, fn):
        """Run `fn` on a read-only connection of its own to the journal (the loop's file now: it may have
        been moved aside); a visitor's reading never writes, and never checks the whole file."""
        path = self.view.scene.journal or self.journal_path
        journal = Journal(path, read_only=True, checked=False)
        try:
            return fn(journal)
        finally:
            journal.close()

    async def _in_journal(self, fn):
        return await asyncio.get_running_loop().run_in_executor(None, self._with_journal, fn)

    def _game_id(self, text: str | None) -> int | None:
        if text is None or text == "":
            return None
        if not GAME_NUMBER.fullmatch(text):
            raise BadRequest(400, _("a game is named by its number in the journal, not {text}", text=repr(text[:40])))
        return int(text)

    async def record(self, request: web.Request) -> web.Response:
        asked = self._game_id(request.query.get("game"))

        def export(journal: Journal) -> tuple[int | None, str]:
            latest = journal.latest_game()
            game_id = asked if asked is not None else (latest.id if latest is not None else None)
            if game_id is None:
                return None, export_record(journal)  # refused in words: the journal holds no game yet
            # the page is open to anyone on the network: a game not over is given without its secrets
            # (also before the page has heard from the referee, just after a restart)
            hidden = journal.game(game_id).open and not self.view.finished(game_id)
            return game_id, export_record(journal, game_id, withhold_secrets=hidden)

        try:
            game_id, text = await self._in_journal(export)
        except SecretsNeeded as exc:
            raise BadRequest(409, str(exc)) from None
        except RefereeError as exc:
            raise BadRequest(404, str(exc)) from None
        name = f"game-{game_id}.yaml"
        return web.Response(
            text=text,
            content_type="application/yaml",
            headers={"Content-Disposition": f'attachment; filename="{name}"', "Cache-Control": "no-store"},
        )

    async def games(self, request: web.Request) -> web.Response:
        """The journal's games, newest first, at most `GAMES_LISTED` (`?before=ID`: older ones): one
        summary query, whatever the journal's size."""
        before = self._game_id(request.query.get("before"))
        lang = self.language_of(request)

        def listing(journal: Journal) -> list[dict[str, Any]]:
            return [
                {
                    "id": row.id,
                    "game": row.setup.get("game"),
                    "title": said(words.game_name(str(row.setup.get("game"))), lang),
                    "keys": keys_shown(row.setup, row.closed_at is not None),
                    "started_at": row.started_at,
                    "closed_at": row.closed_at,
                    "closed_why": row.closed_why,
                    "entries": count,
                }
                for row, count in journal.summaries(GAMES_LISTED, before)
            ]

        return web.json_response({"games": await self._in_journal(listing)}, headers=NO_STORE)

    async def game(self, request: web.Request) -> web.Response:
        game_id = self._game_id(request.match_info["id"])
        if game_id is None:  # the route's {id} is never empty
            raise BadRequest(404, _("a game is named by its number in the journal"))

        lang = self.language_of(request)

        def steps(journal: Journal) -> dict[str, Any]:
            row = journal.game(game_id)
            setup = setup_from_mapping(row.setup, source=f"journal game {game_id}")
            entries = journal.entries(game_id)
            judged = judged_again(journal, game_id, row.setup, setup, entries)
            engine = judged.referee.engine if judged is not None else engine_for(setup)
            out = []
            board = None
            pictured = journal.pictured(game_id)
            for i, entry in enumerate(entries):
                if entry.kind == "snapshot":
                    board = board_json(parse_snapshot(setup.game, entry.payload, letters=setup.profile.letters))
                # the verdict judged again carries its words (said in any language); the stored one is English
                verdict = judged.verdicts[i] if judged is not None else entry.verdict
                index = entry.verdict.get("index")
                out.append(
                    {
                        "seq": entry.seq,
                        "kind": entry.kind,
                        "at": entry.at,
                        "verdict": entry.verdict,
                        "line": said(
                            words.with_resolved(
                                verdict_words(verdict, engine, setup.first),
                                resolved_places(entry.payload) if entry.kind == "snapshot" else (),
                                engine,
                            ),
                            lang,
                        ),
                        "rule": rule_json(entry.verdict, lang),
                        "board": board,
                        "picture": picture_url(game_id, index) if index in pictured else None,
                    }
                )
            return {
                "id": game_id,
                "game": setup.game,
                "palette": palette(setup.game, setup.profile, lang),
                "place_names": place_names(engine, setup.profile.rows, setup.profile.cols, lang),
                "axes": axes(engine, setup.profile.rows, setup.profile.cols),
                "lines": lines_shown(setup.game, setup.profile.rows, setup.profile.cols, lang),
                "steps": out,
            }

        try:
            data = await self._in_journal(steps)
        except RefereeError as exc:
            raise BadRequest(404, str(exc)) from None
        return web.json_response(data, headers=NO_STORE)

    async def verdict_picture(self, request: web.Request) -> web.Response:
        """The picture behind a verdict: the board as the camera saw it when judging (JPEG)."""
        game_id = self._game_id(request.match_info["id"])
        index = request.match_info["index"]
        if not GAME_NUMBER.fullmatch(index):
            raise BadRequest(400, _("a verdict is named by its number, not {value}", value=repr(index[:40])))
        data = await self._in_journal(lambda journal: journal.picture(game_id, int(index)))
        if data is None:
            raise BadRequest(
                404,
                _(
                    "no picture is kept for verdict {index} of game {game}",
                    index=literal(index),
                    game=literal(str(game_id)),
                ),
            )
        # a verdict's picture never changes: the browser may keep it
        return web.Response(body=data, content_type="image/jpeg", headers={"Cache-Control": "max-age=86400"})

    # --- the WebSocket: the page is pushed the state on each event the view heard ---------------------
    async def websocket(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse(heartbeat=20)
        await ws.prepare(request)
        lang = self.language_of(request)
        self.sockets[ws] = lang
        try:
            await ws.send_json({"type": "state", "state": self.view.state(lang)})
            async for message in ws:  # the page sends nothing; this waits for it to go
                if message.type == WSMsgType.ERROR:
                    break
        finally:
            self.sockets.pop(ws, None)
        return ws

    async def _start_pusher(self, app: web.Application) -> None:
        aloop = asyncio.get_running_loop()
        changed = app[CHANGED] = asyncio.Event()

        def wake() -> None:  # the view hears events on the bus's thread; the pusher runs on this loop
            with contextlib.suppress(RuntimeError):  # this loop has just closed: nobody to push to
                aloop.call_soon_threadsafe(changed.set)

        self.view.on_change = wake
        app[PUSHER] = aloop.create_task(self._pusher(changed))

    async def _pusher(self, changed: asyncio.Event) -> None:
        """On each event the view heard, while a page is connected: send it the new state. Events
        heard while a state is being made or sent make one push after it, never a backlog."""
        while True:
            await changed.wait()
            changed.clear()
            if not self.sockets:
                continue
            try:
                messages: dict[str, dict[str, Any]] = {}  # the state made once per language the pages speak
                for ws, lang in list(self.sockets.items()):
                    if lang not in messages:
                        messages[lang] = {"type": "state", "state": self.view.state(lang)}
                    try:
                        await ws.send_json(messages[lang])
                    except (ConnectionError, RuntimeError):
                        self.sockets.pop(ws, None)
            except Exception:  # a bug in the page's state must not stop the pushes for good
                log.exception("the live page's state could not be made")

    async def _close_sockets(self, app: web.Application) -> None:
        self.view.on_change = None
        app[PUSHER].cancel()
        for ws in list(self.sockets):
            await ws.close()

    # --- controls --------------------------------------------------------------------------------
    async def _submit(self, request: web.Request, name: str, **args: Any) -> web.Response:
        future = self.loop.submit(name, **args)
        try:
            answer = await asyncio.wait_for(asyncio.wrap_future(future), ANSWER_TIMEOUT)
        except asyncio.TimeoutError:
            raise BadRequest(503, _("the referee did not answer in time; try again")) from None
        except RefereeError as exc:
            raise BadRequest(409, error_words(exc)) from None
        lang = self.language_of(request)
        return web.json_response({k: said(v, lang) if isinstance(v, Text) else v for k, v in answer.items()})

    @controls
    async def new_game(self, request: web.Request, body: dict[str, Any]) -> web.Response:
        unknown = [k for k in body if k not in NEW_GAME_KEYS]
        if unknown:
            raise BadRequest(
                400,
                _(
                    "{key} is not a key of a new game; the keys are {keys}",
                    key=repr(unknown[0]),
                    keys=", ".join(NEW_GAME_KEYS),
                ),
            )
        current = self.view.scene
        game = body.get("game", current.setup.game)
        if game != current.setup.game:
            raise BadRequest(
                400,
                _(
                    "this referee watches a {game} board; to referee {other}, set 'game: {other}' in its config file "
                    "and restart it",
                    game=current.setup.game,
                    other=str(game),
                ),
            )
        keys = new_game_keys(current.keys, body)
        keys["game"] = game
        first, players = keys.get("first"), keys.get("players", current.setup.players)
        numbers = not isinstance(first, bool) and isinstance(players, int) and players > 0
        if isinstance(first, int) and numbers and not 0 <= first < players:  # the page counts from 1: say it so
            raise BadRequest(400, _("who starts: {why}", why=no_such_seat(first, players)))
        try:
            setup = setup_from_mapping(keys, "new game")
            computer_levels(keys, setup.players, "new game", engine_for(setup))
            check_coach(keys, "new game")
        except RefereeError as exc:
            raise BadRequest(400, error_words(exc)) from None
        return await self._submit(request, "new-game", keys=keys, setup=setup)

    @controls
    async def reveal(self, request: web.Request, body: dict[str, Any]) -> web.Response:
        seat, colours = body.get("seat"), body.get("colours")
        setup = self.view.scene.setup
        if isinstance(seat, bool) or not isinstance(seat, int):
            raise BadRequest(400, _("'seat' should be a seat number (0 is the first player)"))
        if not 0 <= seat < setup.players:
            raise BadRequest(400, no_such_seat(seat, setup.players))
        letters = setup.profile.letters
        if (
            not isinstance(colours, list)
            or not colours
            or any(not isinstance(c, str) or len(c) != 1 or c not in letters for c in colours)
        ):
            raise BadRequest(
                400, _("'colours' should be a list of colour letters from {letters}", letters=" ".join(letters))
            )
        return await self._submit(request, "reveal", seat=seat, colours=colours)

    @controls
    async def end(self, request: web.Request, body: dict[str, Any]) -> web.Response:
        return await self._submit(request, "end")

    @controls
    async def accept_board(self, request: web.Request, body: dict[str, Any]) -> web.Response:
        """ "This board is right, go on from it" (the PIN): the way out of any false "illegal"."""
        return await self._submit(request, "accept")

    # --- the coach (issue 29) -------------------------------------------------------------------------
    def _coached(self) -> tuple[Scene, Any]:
        """The game as last heard and the position the coach may look at, or the sentence why not."""
        scene = self.view.scene
        if not scene.coach:
            raise BadRequest(409, words.NO_COACH)
        state, engine = scene.state, scene.engine
        if state is None or engine.is_over(state) or engine.to_move(state) is None:
            raise BadRequest(409, words.NO_MOVE_TO_HELP)
        return scene, state

    @controls
    async def hint(self, request: web.Request, body: dict[str, Any]) -> web.Response:
        """The strong level's move for the player to move, with why; journalled as a hint (the PIN).
        Blockers!: `{"tiles": "R3 RA G1"}`, the tiles the person holds, tapped on the page for a hint from
        them (used for this hint only, never journalled); without them the hint names a place and every
        tile of theirs that could go there."""
        scene, state = self._coached()
        engine, seed = scene.engine, scene.seed
        tiles = body.get("tiles") or ""
        if not isinstance(tiles, str) or len(tiles) > 200:
            raise BadRequest(400, _("'tiles' should be your tiles, e.g. \"R3 RA G1\": tap the tiles you hold"))
        seat = engine.to_move(state)
        try:
            told = told_tiles(engine, state, seat, tiles) if seat is not None else {}
        except ActionNotAllowed as exc:
            raise BadRequest(400, exc.args[0] if exc.args else str(exc)) from None
        thought = await asyncio.get_running_loop().run_in_executor(
            None, lambda: think(engine, state, HINT_LEVEL, seed, computer=False, racks=told)
        )
        if thought is None:
            raise BadRequest(409, words.NO_MOVE_TO_HELP)
        return await self._submit(
            request,
            "hint",
            move=thought.move,
            why=thought.why,
            index=scene.next_index,
            game_id=scene.game_id,
            tiles=thought.tiles,
        )

    @controls
    async def rack(self, request: web.Request, body: dict[str, Any]) -> web.Response:
        """The tiles a person drew for a computer seat's rack (Blockers!), tapped on the page (the PIN):
        `{"tiles": "B3 BA Ba B* B7"}`, one colour's whole rack; journalled, and the computer plays from it."""
        tiles = body.get("tiles")
        if not isinstance(tiles, str) or not tiles.strip():
            raise BadRequest(400, _("'tiles' should be the rack's tiles, e.g. \"B3 BA Ba\": tap the tiles drawn"))
        return await self._submit(request, "rack", tiles=tiles)

    async def moves(self, request: web.Request) -> web.Response:
        """Every legal move of the player to move, in words, with the places each changes."""
        scene, state = self._coached()
        engine = scene.engine
        lang = self.language_of(request)
        listed = [
            {
                "move": m,
                "words": said(engine.move_words(m), lang),
                "cells": [list(c) for c in move_cells(engine, state, m)],
            }
            for m in legal_moves(engine, state)
        ]
        return web.json_response({"ok": True, "moves": listed}, headers={"Cache-Control": "no-store"})

    # --- setting up a copy: lights and buzzer, switches (issue 17; the aim: aim_api.py) ---------------
    def _patterns(self) -> dict[str, tuple[str, Any]]:
        if self.feedback is None:
            raise BadRequest(404, _("this referee has no lights or buzzer to test"))
        return lights_test_patterns(self.feedback)

    async def lights_patterns(self, request: web.Request) -> web.Response:
        lang = self.language_of(request)
        patterns = [{"pattern": name, "label": said(label, lang)} for name, (label, _a) in self._patterns().items()]
        return web.json_response({"patterns": patterns}, headers=NO_STORE)

    @controls
    async def lights_test(self, request: web.Request, body: dict[str, Any]) -> web.Response:
        """Run one `referee lights-test` step on the service's lights and buzzer; the next verdict sets them again."""
        patterns = self._patterns()
        name = body.get("pattern")
        if not isinstance(name, str) or name not in patterns:
            raise BadRequest(400, _("'pattern' should be one of {patterns}", patterns=", ".join(patterns)))
        label, action = patterns[name]
        await asyncio.get_running_loop().run_in_executor(None, action)
        return web.json_response(
            {"ok": True, "message": said(_("{step}: done", step=label), self.language_of(request))}
        )

    async def switch_report(self, request: web.Request) -> web.Response:
        """Each slide's position now and what it did since the switch test started (`?start=1` starts it again:
        the test's own bookkeeping, nothing of the game)."""
        if self.switches is None:
            raise BadRequest(404, _("this referee has no slide switches"))
        with self._switch_lock:
            if request.query.get("start") == "1":
                self.switch_test.start()
            state = self.switches.latest()
            self.switch_test.observe(state)
            report = self.switch_test.report(state)
        report["link_ok"] = report["link_ok"] and bool(self.switches.healthy())
        return web.json_response(report, headers=NO_STORE)

    def close(self) -> None:
        """Nothing held between requests; kept so a server can close what it serves."""


def new_game_keys(current: dict[str, Any], asked: dict[str, Any]) -> dict[str, Any]:
    """The keys of a new game from the page: the current game's (the configured players, seats and
    secrets), changed by what the request gives (null: drop that key). Seats, secrets and targets
    are for one number of players and one variant: when the request changes those, they are kept
    only if the request gives them again."""
    keys = {k: v for k, v in current.items() if k != "profile"}
    changes_table = any(k in asked and asked[k] != current.get(k) for k in ("players", "variant"))
    if changes_table:
        for key in ("seats", "secrets", "targets", "first", "computer"):
            keys.pop(key, None)
    for key, value in asked.items():
        if value is None:
            keys.pop(key, None)
        else:
            keys[key] = value
    return keys


class WebServer:
    """`WebApp` served on `host:port` from a thread of its own (`referee run`)."""

    def __init__(
        self, web_app: WebApp, host: str, port: int, limits: ConnectionLimits | None = None, ssl_context: Any = None
    ) -> None:
        self.web_app = web_app
        self.limits = limits
        #: HTTPS (config.yaml `web.https`; `controller/web/https.py`), or None: plain HTTP.
        self.ssl_context = ssl_context
        self.host = host
        self.port = port
        self.error: str | None = None
        self._ready = threading.Event()
        self._aloop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self.thread = threading.Thread(target=self._run, name="web", daemon=True)

    def start(self, timeout: float = 10.0) -> bool:
        """Serve; False (with `error` saying why) when the port cannot be had."""
        self.thread.start()
        self._ready.wait(timeout)
        return self.error is None and self._ready.is_set()

    @property
    def url(self) -> str:
        host = socket.gethostname() if self.host in ("0.0.0.0", "::", "") else self.host
        return f"{'https' if self.ssl_context is not None else 'http'}://{host}:{self.port}/"

    def _run(self) -> None:
        asyncio.run(self._main())

    async def _main(self) -> None:
        self._aloop = asyncio.get_running_loop()
        quiet_loop_errors(self._aloop, log)
        self._stop = asyncio.Event()
        runner = runner_for(self.web_app.build())
        await runner.setup()
        limits = self.limits or ConnectionLimits(name="the live page")
        try:
            listening = await serve(runner, self.host, self.port, limits, ssl_context=self.ssl_context)
        except OSError as exc:
            self.error = f"the live page cannot listen on {self.host}:{self.port}: {exc.strerror or exc}"
            self._ready.set()
            await runner.cleanup()
            return
        if self.port == 0:
            self.port = listening.sockets[0].getsockname()[1]
        self._ready.set()
        await self._stop.wait()
        listening.close()
        await runner.cleanup()

    def close(self) -> None:
        if self._aloop is not None and self._stop is not None and self.thread.is_alive():
            self._aloop.call_soon_threadsafe(self._stop.set)
            self.thread.join(5)
        self.web_app.close()
