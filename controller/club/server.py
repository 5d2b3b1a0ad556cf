"""`referee club`: every table of the club, live, and the standings, on one read-only page.

Two halves on their own threads: `ClubListener` subscribes to `<prefix>/+/#` on the broker (paho's
thread checks each message, one worker thread applies them in batches to the `ClubStore`), and
`ClubWeb` serves the page, the JSON and the CSV with aiohttp and pushes what changed to open pages
over Server-Sent Events (at most a few times a second each; nothing is rendered for a page nobody
has open). The page has no form and no button: the club only reads.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import logging
import queue
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from aiohttp import web

from controller import words
from controller.club.config import DEFAULT_PREFIX, read_password
from controller.club.page import PAGE, page_in
from controller.club.payloads import LEAVES, MAX_ACKED, BadPayload, Message, ack_payload, encode, parse_message
from controller.club.reach import why_unreachable
from controller.club.store import Changes, ClubStore
from controller.errors import RefereeError
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
from controller.language import DEFAULT, _, said

#: Messages applied in one transaction, at most.
BATCH = 2000
#: Seconds the store waits after a message for others to apply with it: one commit for a burst
#: (tables' messages come in threes), at the price of that much latency.
GATHER = 0.02
#: An open page gets at most one update per this many seconds (changes in between are merged).
PUSH_INTERVAL = 0.25


def _inline_hashes(tag: str) -> str:
    """The CSP sources of the page's own inline `<tag>` blocks: their SHA-256, nothing else runs."""
    blocks = re.findall(rf"<{tag}>(.*?)</{tag}>", PAGE, re.S)
    return " ".join(f"'sha256-{base64.b64encode(hashlib.sha256(b.encode()).digest()).decode()}'" for b in blocks)


#: The club page's headers: only its own inline script and style run, it talks only to itself.
SECURITY_HEADERS = {
    "Content-Security-Policy": (
        f"default-src 'none'; script-src {_inline_hashes('script')}; style-src {_inline_hashes('style')}; "
        "connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    ),
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}


@dataclass(frozen=True)
class BrokerAddress:
    host: str
    port: int = 1883
    prefix: str = DEFAULT_PREFIX
    username: str | None = None
    password_file: Path | None = None
    ca_file: Path | None = None
    #: None: the user name when there is one (a broker that binds client ids to user names gives
    #: the club its own user's id anyway), else `referee-club`.
    client_id: str | None = None

    def __repr__(self) -> str:  # never the credentials
        return f"BrokerAddress({self.host}:{self.port}, prefix={self.prefix!r})"


def _safe(text: str, limit: int = 80) -> str:
    """A topic from an unknown client, fit for one log line."""
    return repr(text[:limit] + ("..." if len(text) > limit else ""))


class ClubListener:
    """Subscribes to every table and feeds the store; `on_changes` hears what each batch changed."""

    def __init__(self, broker: BrokerAddress, store: ClubStore, on_changes=None, log: logging.Logger | None = None):
        self.broker = broker
        self.store = store
        self.on_changes = on_changes
        self.log = log or logging.getLogger("referee.club")
        self.queue: queue.SimpleQueue[Message | None] = queue.SimpleQueue()
        self.connected = threading.Event()
        #: Why the broker cannot be reached now, in words (None: connected, or not tried yet).
        self.problem: Any = None
        self.client: mqtt.Client | None = None
        self._worker: threading.Thread | None = None

    def start(self) -> ClubListener:
        b = self.broker
        # A persistent session: the broker keeps the club's QoS 1 messages while the club is away.
        client_id = b.client_id or b.username or "referee-club"
        client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=client_id, clean_session=False)
        if b.username is not None:
            client.username_pw_set(b.username, read_password(b.password_file))
        if b.ca_file is not None:
            client.tls_set(ca_certs=str(b.ca_file))
        client.reconnect_delay_set(1, 30)
        client.on_connect = self._on_connect
        client.on_connect_fail = self._on_connect_fail
        client.on_disconnect = self._on_disconnect
        client.on_message = self._on_message
        self.client = client
        self._worker = threading.Thread(target=self._apply_loop, name="club-store", daemon=True)
        self._worker.start()
        client.connect_async(b.host, b.port, keepalive=30)
        client.loop_start()
        return self

    def stop(self) -> None:
        if self.client is not None:
            self.client.disconnect()
            self.client.loop_stop()
        self.queue.put(None)
        if self._worker is not None:
            self._worker.join(5.0)

    def _address(self) -> str:
        return f"{self.broker.host}:{self.broker.port}"

    def _trouble(self, problem: Any) -> None:
        if problem != self.problem:
            self.log.warning("%s", problem)
        self.problem = problem

    def _on_connect_fail(self, client, userdata) -> None:
        why = why_unreachable(self.broker.host, self.broker.port)
        self._trouble(words.club_broker_unreachable(self.broker.host, self.broker.port, why))

    def _on_connect(self, client, userdata, flags, reason_code, properties) -> None:
        if reason_code.is_failure:
            self._trouble(
                _(
                    "the broker {broker} refused the club ({reason}): check --username and --password-file, "
                    "and the broker's access rules",
                    broker=self._address(),
                    reason=str(reason_code),
                )
            )
            return
        self.problem = None
        self.store.new_session()  # every table heard from is asked for what the club has not stored
        client.subscribe([(f"{self.broker.prefix}/+/{leaf}", 1) for leaf in LEAVES])
        self.connected.set()
        self.log.info("listening to %s/+/# on %s:%d", self.broker.prefix, self.broker.host, self.broker.port)

    def _on_disconnect(self, client, userdata, flags, reason_code, properties) -> None:
        self.connected.clear()
        if not reason_code.is_failure:
            return
        self.problem = _("lost the broker {broker}; trying again", broker=self._address())
        self.log.warning("lost the broker %s:%d (%s); reconnecting", self.broker.host, self.broker.port, reason_code)

    def _on_message(self, client, userdata, msg) -> None:
        try:
            received = time.time()
            self.queue.put(replace(parse_message(msg.topic, msg.payload, self.broker.prefix), received=received))
        except BadPayload as exc:
            self.store.counts["ignored"] += 1
            self.log.warning("ignored a message on %s: %s", _safe(msg.topic), exc)
        except Exception as exc:  # paho's thread must survive anything a client sends
            self.store.counts["ignored"] += 1
            self.log.warning("ignored a message on %s: could not read it (%s)", _safe(msg.topic), type(exc).__name__)

    def _apply_loop(self) -> None:
        while True:
            first = self.queue.get()
            if first is None:
                return
            batch = [first]
            stop = False
            gather_until = time.monotonic() + GATHER
            while len(batch) < BATCH:
                try:
                    item = self.queue.get(timeout=max(0.0, gather_until - time.monotonic()))
                except queue.Empty:
                    break
                if item is None:
                    stop = True
                    break
                batch.append(item)
            try:
                changes = self.store.apply(batch)
                self._tell_tables(changes)
                if self.on_changes is not None and (changes.tables or changes.standings):
                    self.on_changes(changes)
            except Exception:  # one bad batch must not stop the club
                self.log.exception("could not store %d messages", len(batch))
            if stop:
                return

    def _tell_tables(self, changes: Changes) -> None:
        """Each table hears which of its entries the club now holds (its mark may move past them),
        and whether to send again what the club has not acknowledged; after the batch's commit."""
        client = self.client
        if client is None:
            return
        now = time.time()
        # One message per journal (an acknowledgement names the journal its entries are of); the
        # request to send again, for the whole table, rides on the first.
        by_table: dict[str, list[tuple[str, list[tuple[int, int]]]]] = {table: [] for table in changes.resend}
        for (table, journal), stored in sorted(changes.acks.items()):
            by_table.setdefault(table, []).append((journal, stored))
        for table, journals in sorted(by_table.items()):
            resend = table in changes.resend
            for journal, stored in journals or [("", [])]:
                for start in range(0, max(1, len(stored)), MAX_ACKED):
                    body = ack_payload(table, stored[start : start + MAX_ACKED], resend, now, journal)
                    client.publish(f"{self.broker.prefix}/{table}/ack", encode(body), qos=1)
                    resend = False


class _Page:
    """One open page (in its reader's language): what changed since it was last told, merged."""

    def __init__(self, language: str = DEFAULT) -> None:
        self.language = language
        self.tables: set[str] = set()
        self.standings = False
        self.wake = asyncio.Event()

    def add(self, changes: Changes) -> None:
        self.tables |= changes.tables
        self.standings = self.standings or changes.standings
        self.wake.set()


class ClubWeb:
    """The aiohttp application: page, JSON, CSV and the live stream."""

    def __init__(
        self,
        store: ClubStore,
        log: logging.Logger | None = None,
        hosts: HostAllowList | None = None,
        language: str = DEFAULT,
    ) -> None:
        self.store = store
        #: The club's language (`referee club --language`): a page's when its browser asks for none of ours.
        self.language = language
        #: The broker's trouble in words, or None (set by the server to its listener's).
        self.broker_problem: Callable[[], Any] = lambda: None
        self.log = log or logging.getLogger("referee.club")
        self.pages: set[_Page] = set()
        self.closing = False
        self.loop: asyncio.AbstractEventLoop | None = None
        #: The names and addresses the page answers to (`referee club --host` adds to this machine's own).
        self.hosts = hosts or HostAllowList()
        self.app = web.Application(middlewares=[guard_middleware(self.hosts, SECURITY_HEADERS)])
        self.app[TABLE_LANGUAGE] = language
        self.app.add_routes(
            [
                web.get("/", self.page),
                web.get("/api/tables", self.api_tables),
                web.get("/api/standings", self.api_standings),
                web.get("/api/games", self.api_games),
                web.get("/api/stats", self.api_stats),
                web.get("/api/broker", self.api_broker),
                web.get("/standings.csv", self.standings_csv),
                web.get("/events", self.events),
            ]
        )

    # thread-safe: called by the store's worker
    def changed(self, changes: Changes) -> None:
        if self.loop is not None and self.pages:
            self.loop.call_soon_threadsafe(self._tell, changes)

    def _tell(self, changes: Changes) -> None:
        for page in self.pages:
            page.add(changes)

    def close_streams(self) -> None:
        self.closing = True
        for page in self.pages:
            page.wake.set()

    async def page(self, request: web.Request) -> web.Response:
        """The page in the reader's language (`lang=`, else the browser's, else the club's)."""
        code = language_of(request)
        headers = {"Content-Language": code, "Vary": "Accept-Language"}
        return web.Response(text=page_in(code), content_type="text/html", headers=headers)

    async def api_tables(self, request: web.Request) -> web.Response:
        code = language_of(request)
        return web.json_response([self.store.table_view(n, code) for n in self.store.table_names()])

    async def api_standings(self, request: web.Request) -> web.Response:
        return web.json_response({"points": vars(self.store.points), "standings": self.store.standings()})

    async def api_games(self, request: web.Request) -> web.Response:
        """The latest games the club counted, newest first, marked when helped or against the computer."""
        return web.json_response(self.store.games(language_of(request)))

    async def api_broker(self, request: web.Request) -> web.Response:
        """Whether the club hears the broker: `problem` says why not, in words (null when it does)."""
        problem = self.broker_problem()
        return web.json_response(
            {"problem": said(problem, language_of(request)) if problem else None}, headers={"Cache-Control": "no-store"}
        )

    async def api_stats(self, request: web.Request) -> web.Response:
        return web.json_response(self.store.stats())

    async def standings_csv(self, request: web.Request) -> web.Response:
        """The data file; with `lang=` (the page's link), the file for people in that language."""
        lang = language_of(request) if "lang" in request.query else None
        return web.Response(
            text=self.store.standings_csv(lang),
            content_type="text/csv",
            headers={"Content-Disposition": 'attachment; filename="standings.csv"'},
        )

    async def events(self, request: web.Request) -> web.StreamResponse:
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache"})
        await response.prepare(request)
        page = _Page(language_of(request))
        page.add(Changes(set(self.store.table_names()), True))
        self.pages.add(page)
        try:
            while not self.closing:
                await page.wake.wait()
                page.wake.clear()
                if self.closing:
                    break
                tables, page.tables = page.tables, set()
                standings, page.standings = page.standings, False
                for name in sorted(tables):
                    await _send(response, "table", self.store.table_view(name, page.language))
                if standings:
                    await _send(response, "standings", self.store.standings())
                    await _send(response, "games", self.store.games(page.language))
                await asyncio.sleep(PUSH_INTERVAL)
        except (ConnectionResetError, asyncio.CancelledError):
            pass  # the page was closed: nothing to tell it any more
        finally:
            self.pages.discard(page)
        return response


async def _send(response: web.StreamResponse, kind: str, data: Any) -> None:
    await response.write(f"event: {kind}\ndata: {json.dumps(data)}\n\n".encode())


class ClubServer:
    """The listener, the store and the web page together, the web side on a thread of its own."""

    def __init__(
        self,
        broker: BrokerAddress,
        store: ClubStore,
        host: str = "0.0.0.0",
        port: int = 8090,
        log: logging.Logger | None = None,
        hosts: tuple[str, ...] = (),
        language: str = DEFAULT,
    ) -> None:
        self.log = log or logging.getLogger("referee.club")
        self.store = store
        self.web = ClubWeb(store, self.log, HostAllowList(hosts), language)
        self.listener = ClubListener(broker, store, self.web.changed, self.log)
        self.web.broker_problem = lambda: self.listener.problem
        self.host, self.port = host, port
        self._loop = asyncio.new_event_loop()
        self._runner: web.AppRunner | None = None
        self._listening: asyncio.AbstractServer | None = None
        self._thread: threading.Thread | None = None
        self._started = threading.Event()
        self._error: BaseException | None = None

    def start(self) -> ClubServer:
        self._thread = threading.Thread(target=self._serve, name="club-web", daemon=True)
        self._thread.start()
        self._started.wait(10)
        if self._error is not None:
            raise self._error
        self.listener.start()
        return self

    def _serve(self) -> None:
        asyncio.set_event_loop(self._loop)
        quiet_loop_errors(self._loop, self.log)
        self.web.loop = self._loop
        try:
            self._runner = runner_for(self.web.app)
            self._loop.run_until_complete(self._runner.setup())
            limits = ConnectionLimits(name="the club's page")
            self._listening = self._loop.run_until_complete(serve(self._runner, self.host, self.port, limits))
            if self.port == 0:
                self.port = self._listening.sockets[0].getsockname()[1]
        except OSError as exc:
            address = f"{self.host}:{self.port}"
            why = exc.strerror or str(exc)
            self._error = RefereeError(_("cannot serve the club's page on {address}: {why}", address=address, why=why))
            self._started.set()
            return
        self._started.set()
        self._loop.run_forever()

    @property
    def url(self) -> str:
        host = "127.0.0.1" if self.host in ("0.0.0.0", "") else self.host
        return f"http://{host}:{self.port}"

    def stop(self) -> None:
        self.listener.stop()
        if self._runner is not None and self._thread is not None and self._thread.is_alive():
            self._loop.call_soon_threadsafe(self.web.close_streams)
            if self._listening is not None:
                self._loop.call_soon_threadsafe(self._listening.close)
            future = asyncio.run_coroutine_threadsafe(self._runner.cleanup(), self._loop)
            try:
                future.result(10)
            except Exception:  # closing anyway
                self.log.debug("web server cleanup", exc_info=True)
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(5)
        self.store.close()
