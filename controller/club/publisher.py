"""`referee run` publishing its table to the club's MQTT broker (topics and payloads: docs/mqtt.md).

Why the journal and not the events: a verdict must reach the club even when the broker was away
when it was given, or the referee restarted meanwhile. So the loop's events only *wake* the
publisher; what it sends is read from the journal, after the last entry the club acknowledged
(`JournalFeed`), in journal order, and that mark moves only when the *club* says it has stored the
entry (its message on `<prefix>/<table>/ack`), never on the broker's PUBACK: a broker that crashes
with messages queued loses nothing, because what the club has not stored is sent again: after a
reconnect, when the club asks (it saw a gap, or it came back), and when no acknowledgement came
for a while (after `RESEND_AFTER` seconds, the wait doubling up to `RESEND_MAX`). Every entry goes
with its journal's id, and the club keeps each (table, journal, game_id, seq) once: a journal moved
aside and started afresh at game 1 brings new games, not copies of the old journal's. A game's
result is worked out by replaying its entries through a `Referee` (the rules are deterministic)
and travels with the verdict of the entry that ended the game (and on the retained `result`
topic), so it too is never lost.

Everything runs off the referee loop's thread: a pump thread of its own plus paho's network
thread. A broker that hangs or refuses slows neither judging nor the lights.
"""

from __future__ import annotations

import collections
import logging
import threading
import time
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt

from controller import words
from controller.club.config import MqttConfig
from controller.club.journal_feed import JournalFeed, Point
from controller.club.payloads import (
    BadPayload,
    computer_seats,
    encode,
    parse_ack,
    result_payload,
    state_payload,
    verdict_payload,
)
from controller.club.reach import why_unreachable
from controller.errors import RefereeError
from controller.record import setup_from_mapping
from controller.referee import same_verdict
from controller.service.events import Event, Table
from controller.service.journal import Entry
from controller.service.session import GameSession
from controller.snapshot import format_snapshot

#: Entries sent but not yet acknowledged by the club, at most (the rest wait in the journal).
MAX_UNACKED = 100
#: Seconds without a word from the club before what it has not stored is sent again (the wait
#: doubles at each try up to `RESEND_MAX`, and is back to this once the club answers).
RESEND_AFTER = 20.0
RESEND_MAX = 600.0
#: The pump looks at the journal this often even without an event (an event may have been dropped).
POLL_SECONDS = 2.0
RECONNECT_MIN, RECONNECT_MAX = 1, 30


class GameFollower:
    """One game replayed from its journal entries, to know its result after each entry."""

    def __init__(self, game_id: int, keys: dict[str, Any]) -> None:
        self.game_id = game_id
        self.keys = keys
        self.session = GameSession(None, game_id, keys, setup_from_mapping(keys, f"journal game {game_id}"))  # type: ignore[arg-type]
        self.seq = -1
        #: The verdict of the last entry applied, as the rules gave it (its reason a catalogue sentence).
        self.judged: dict[str, Any] | None = None

    @classmethod
    def load(cls, feed: JournalFeed, game_id: int, upto: int) -> GameFollower:
        keys = feed.setup(game_id)
        if keys is None:
            raise RefereeError(f"the journal has no game {game_id}")
        follower = cls(game_id, keys)
        for entry in feed.game_entries(game_id, upto):
            follower.apply(entry)
        return follower

    def apply(self, entry: Entry) -> None:
        got = self.session._apply(entry)  # the journal's own replay step, without writing
        if not same_verdict(entry.verdict, got):
            raise RefereeError(f"game {self.game_id} entry {entry.seq} replays differently (rules code changed?)")
        self.seq = entry.seq
        self.judged = got

    @property
    def over(self) -> bool:
        return self.session.referee.over

    def result(self) -> dict[str, Any] | None:
        referee = self.session.referee
        return referee.result().to_json() if referee.started else None


class TablePublisher:
    """Publishes one table's state, verdicts, results and presence; `on_event` is a bus subscriber."""

    def __init__(
        self,
        config: MqttConfig,
        journal_path: str | Path,
        game_keys: dict[str, Any],
        *,
        table: Table | None = None,
        log: logging.Logger | None = None,
        wall_clock=time.time,
    ) -> None:
        self.config = config
        self.journal_path = Path(journal_path)
        self.game_keys = game_keys
        self.log = log or logging.getLogger("referee.mqtt")
        self.wall = wall_clock
        setup = setup_from_mapping(game_keys, "config")
        self.names = config.seat_names(setup.players)
        self._cond = threading.Condition()
        self._table = table
        self._wake = True
        self._stop = False
        self._connected = False
        self._fresh = False
        self._outage_said = False
        self._failing = False
        #: Why the broker cannot be reached now, in words (None: connected, or not tried yet).
        self.problem: str | None = None
        self._lock = threading.Lock()  # guards the unacknowledged entries (paho's thread and the pump)
        #: Entries sent, in journal order, and whether the club has said it stored each.
        self._unacked: collections.OrderedDict[Point, bool] = collections.OrderedDict()
        #: When the club last moved the mark (or the first entry of the window went), and how long to
        #: wait for it before sending again what it has not stored.
        self._last_ack = time.monotonic()
        self._resend_wait = RESEND_AFTER
        self._resend = False
        #: The club's silence was said in the log (once, until it answers again).
        self._silence_said = False
        self._sent: Point | None = None
        self._last_state: bytes | None = None
        self._follower: GameFollower | None = None
        self._broken_game: int | None = None
        #: Entries the club acknowledged since start, and how many times entries were sent again.
        self.acknowledged = 0
        self.resent = 0
        self.feed: JournalFeed | None = None
        self.client: mqtt.Client | None = None
        self._pump: threading.Thread | None = None

    # --- life -----------------------------------------------------------------------------------
    def start(self) -> TablePublisher:
        cfg = self.config
        self.feed = JournalFeed(self.journal_path, cfg.table)
        self.feed.delivered()  # the mark is set now: games judged before the broker is first seen are sent too
        client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=f"referee-{cfg.table}", clean_session=True)
        if cfg.username is not None:
            client.username_pw_set(cfg.username, cfg.password())
        if cfg.tls is not None:
            client.tls_set(
                ca_certs=_str(cfg.tls.ca_file), certfile=_str(cfg.tls.cert_file), keyfile=_str(cfg.tls.key_file)
            )
        client.will_set(cfg.topic("online"), encode(False), qos=1, retain=True)
        client.reconnect_delay_set(RECONNECT_MIN, RECONNECT_MAX)
        client.on_connect = self._on_connect
        client.on_connect_fail = self._on_connect_fail
        client.on_disconnect = self._on_disconnect
        client.on_message = self._on_ack
        self.client = client
        client.connect_async(cfg.host, cfg.port, keepalive=cfg.keepalive)
        client.loop_start()
        self._pump = threading.Thread(target=self._run, name=f"mqtt-{cfg.table}", daemon=True)
        self._pump.start()
        self.log.info("[mqtt] publishing table %s to %s:%d", cfg.table, cfg.host, cfg.port)
        return self

    def close(self, timeout: float = 2.0) -> None:
        """Say the table is offline (a clean stop: the Last Will is for crashes), then disconnect."""
        with self._cond:
            self._stop = True
            self._cond.notify_all()
        if self._pump is not None:
            self._pump.join(timeout)
        client = self.client
        if client is not None:
            if self._connected:
                try:
                    info = client.publish(self.config.topic("online"), encode(False), qos=1, retain=True)
                    info.wait_for_publish(timeout)
                except (RuntimeError, ValueError):
                    pass  # the broker went away meanwhile: the Last Will says the same
            client.disconnect()
            client.loop_stop()
        if self.feed is not None:
            self.feed.close()
            self.feed = None

    # --- the bus ------------------------------------------------------------------------------
    def on_event(self, event: Event) -> None:
        """A threaded bus subscriber: remember the table as the players see it and wake the pump."""
        with self._cond:
            self._table = event.table
            self._wake = True
            self._cond.notify()

    def wait_delivered(self, point: Point, timeout: float = 10.0) -> bool:
        """Wait until the club has acknowledged everything up to `point` (tests, shutdown)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.feed is not None and self.feed.delivered() >= point:
                return True
            time.sleep(0.02)
        return False

    # --- paho's thread ------------------------------------------------------------------------
    def _trouble(self, problem: str) -> None:
        """Say a broker problem once (the log) and keep it for the fault lights until it clears."""
        if problem != self.problem:
            self.log.warning("[mqtt] %s", problem)
        self.problem = problem

    def _on_connect_fail(self, client, userdata) -> None:
        """paho could not connect (at start, or while trying again after a loss): find out why."""
        why = why_unreachable(self.config.host, self.config.port)
        self._trouble(words.broker_unreachable(self.config.host, self.config.port, why))

    def _on_connect(self, client, userdata, flags, reason_code, properties) -> None:
        if reason_code.is_failure:
            self._trouble(words.broker_refused(self.config.host, self.config.port, self.config.table, str(reason_code)))
            return
        self.problem = None
        client.subscribe(self.config.topic("ack"), qos=1)  # the club says what it has stored
        with self._cond:
            self._connected = True
            self._fresh = True
            self._wake = True
            self._cond.notify()
        self.log.info("[mqtt] connected to the broker %s:%d", self.config.host, self.config.port)
        self._outage_said = False

    def _on_disconnect(self, client, userdata, flags, reason_code, properties) -> None:
        with self._cond:
            self._connected = False
        if not self._stop and self.problem is None:
            self.problem = words.broker_lost(self.config.host, self.config.port)
        if not self._stop and not self._outage_said:
            self._outage_said = True
            self.log.warning(
                "[mqtt] lost the broker %s:%d (%s); verdicts wait in the journal and are sent when it is back",
                self.config.host,
                self.config.port,
                reason_code,
            )

    def _on_ack(self, client, userdata, msg) -> None:
        """The club's word: entries it has stored (the mark moves past them), or "send again"."""
        try:
            journal, stored, resend = parse_ack(msg.topic, msg.payload, self.config.topic("ack"))
        except BadPayload as exc:
            self.log.warning("[mqtt] ignored a message on %s: %s", self.config.topic("ack"), exc)
            return
        with self._lock:
            for point in stored:
                if self._unacked.get(point) is False and self._ours(journal, point):
                    self._unacked[point] = True
                    self.acknowledged += 1
            moved = self._mark_acked_front()
            if moved is not None:
                self._last_ack = time.monotonic()
                self._resend_wait = RESEND_AFTER
                if self._silence_said:
                    self._silence_said = False
                    self.log.info("[mqtt] the club acknowledges verdicts again")
        if moved is not None or resend:
            with self._cond:
                self._resend = self._resend or resend
                self._wake = True  # room for more, or everything again
                self._cond.notify()

    def _ours(self, journal: str | None, point: Point) -> bool:
        """An acknowledged entry is this journal's: the club names the journal it speaks of (no name:
        a game from before the journal had an id, or a club from before journal ids)."""
        if journal is None or self.feed is None:
            return journal is None
        try:
            return self.feed.journal_for(point[0]) == journal
        except RefereeError:
            return False

    def _mark_acked_front(self) -> Point | None:
        """Drop the entries the club stored from the front and move the journal's mark past them.

        Called with `_lock` held, so two threads never write the mark out of order.
        """
        done = None
        while self._unacked:
            point, stored = next(iter(self._unacked.items()))
            if not stored:
                break
            self._unacked.popitem(last=False)
            done = point
        if done is not None and self.feed is not None:
            self.feed.mark(done)
        return done

    # --- the pump -------------------------------------------------------------------------------
    def _run(self) -> None:
        while True:
            with self._cond:
                if not self._wake and not self._stop:
                    self._cond.wait(POLL_SECONDS)
                if self._stop:
                    return
                self._wake = False
                connected, fresh, self._fresh = self._connected, self._fresh, False
                resend, self._resend = self._resend, False
                table = self._table
            if not connected:
                continue
            try:
                if fresh:
                    self._reconnected()
                elif resend or self._unanswered():
                    self._send_again()
                self._send_entries()
                self._send_state(table, force=fresh)
                self._failing = False
            except Exception as exc:  # the pump must outlive any one bad entry or a journal hiccup
                if not self._failing:  # one line per trouble, not one every few seconds
                    self._failing = True
                    self.log.warning(
                        "[mqtt] cannot publish from the journal (%s); trying again every %g s", exc, POLL_SECONDS
                    )
                if fresh:
                    with self._cond:
                        self._fresh = True
                with self._cond:
                    self._cond.wait(POLL_SECONDS)
                    self._wake = True

    def _unanswered(self) -> bool:
        """Entries have waited for the club's word longer than the current wait (which then doubles)."""
        with self._lock:
            if not self._unacked or time.monotonic() - self._last_ack < self._resend_wait:
                return False
            self._resend_wait = min(RESEND_MAX, self._resend_wait * 2)
            waiting = len(self._unacked)
        if not self._silence_said:  # once per silence: the club may simply be off tonight
            self._silence_said = True
            self.log.warning(
                "[mqtt] the club has not acknowledged the last %d verdicts; they wait in the journal and go again "
                "(is referee club running, and may it write %s on the broker? docs/mqtt.md section 6)",
                waiting,
                self.config.topic("ack"),
            )
        return True

    def _send_again(self) -> None:
        """Everything after the mark goes again: the club keeps each entry once, and says so again."""
        assert self.feed is not None
        with self._lock:
            self._unacked.clear()
            self._last_ack = time.monotonic()
        self._sent = self.feed.delivered()
        self.resent += 1

    def _reconnected(self) -> None:
        """A new connection: send again everything after the last entry the club stored."""
        assert self.client is not None
        self._send_again()
        self.client.publish(self.config.topic("online"), encode(True), qos=1, retain=True)

    def _send_entries(self) -> None:
        assert self.client is not None and self.feed is not None
        with self._lock:
            room = MAX_UNACKED - len(self._unacked)
        if room <= 0 or self._sent is None:
            return
        for entry in self.feed.after(self._sent, room):
            point = (entry.game_id, entry.seq)
            now = self.wall()
            names = self.feed.names_of(entry.game_id, self.names)
            journal = self.feed.journal_for(entry.game_id)
            result = self._follow(entry)
            follower = self._follower
            judged = follower.judged if follower is not None and (follower.game_id, follower.seq) == point else None
            verdict = verdict_payload(
                self.config.table, entry.game_id, entry.seq, entry.verdict, now, journal, judged=judged
            )
            if entry.seq == 0:  # the game's first entry says whose game it is, and which seats the computer plays
                verdict |= self._first_entry_keys(entry.game_id, names)
            if result is not None:  # the entry that ended the game (or changed its result) carries it
                verdict["result"] = result
            infos = [self.client.publish(self.config.topic("verdict"), encode(verdict), qos=1)]
            if result is not None:
                keys = self._follower.keys if self._follower is not None else self.game_keys
                body = result_payload(self.config.table, entry.game_id, entry.seq, keys, names, result, now, journal)
                infos.append(self.client.publish(self.config.topic("result"), encode(body), qos=1, retain=True))
            if any(info.rc != mqtt.MQTT_ERR_SUCCESS for info in infos):
                return  # the connection went: sent again from the mark after reconnecting
            with self._lock:
                if not self._unacked:
                    self._last_ack = time.monotonic()  # the club's time to answer starts now
                self._unacked[point] = False
            self._sent = point

    def _first_entry_keys(self, game_id: int, names: list[str]) -> dict[str, Any]:
        """What a game's first entry adds (`docs/mqtt.md` 3.2): its players, its game, and the seats
        the computer plays (from the game's journalled keys: a club tells a game against the computer)."""
        follower = self._follower
        keys = follower.keys if follower is not None and follower.game_id == game_id else None
        if keys is None and self.feed is not None:
            keys = self.feed.setup(game_id)
        keys = keys or self.game_keys
        out: dict[str, Any] = {"players": len(names), "names": names, "game": keys.get("game")}
        out["variant"] = keys.get("variant") or "standard"
        computer = computer_seats(keys, len(names))
        if computer is not None:
            out["computer"] = computer
        return out

    def _follow(self, entry: Entry) -> dict[str, Any] | None:
        """Advance the replayed game by this entry; its result (`notation.md` §3) when it ended (or
        changed) the game."""
        if entry.game_id == self._broken_game:
            return None
        follower = self._follower
        try:
            if follower is None or follower.game_id != entry.game_id or follower.seq != entry.seq - 1:
                follower = self._follower = GameFollower.load(self.feed, entry.game_id, entry.seq - 1)  # type: ignore[arg-type]
            was_over = follower.over
            follower.apply(entry)
        except RefereeError as exc:
            self._broken_game, self._follower = entry.game_id, None
            self.log.warning("[mqtt] no result will be published for game %d: %s", entry.game_id, exc)
            return None
        if follower.over and (not was_over or entry.kind == "reveal"):
            return follower.result()
        return None

    def _send_state(self, table: Table | None, force: bool) -> None:
        if table is None:
            return
        assert self.client is not None
        body = self.state_payload(table)
        key = encode({k: v for k, v in body.items() if k != "sent"})
        if not force and key == self._last_state:
            return
        info = self.client.publish(self.config.topic("state"), encode(body), qos=1, retain=True)
        if info.rc == mqtt.MQTT_ERR_SUCCESS:
            self._last_state = key

    def state_payload(self, table: Table) -> dict[str, Any]:
        follower = self._follower
        snapshot = scores = last_seq = None
        if follower is not None and follower.game_id == table.game_id:
            last = follower.session.last_snapshot
            snapshot = format_snapshot(last) if last is not None else None
            result = follower.result()
            scores = result.get("scores") if result else None
            last_seq = follower.seq
        journal = self.feed.journal_for(table.game_id) if self.feed is not None else None
        # the game's own keys (its journal's) when known: a game started from the page may differ from the config
        keys = follower.keys if follower is not None and follower.game_id == table.game_id else self.game_keys
        return state_payload(
            self.config.table, keys, self.names, table, snapshot, scores, last_seq, self.wall(), journal
        )


def _str(path: Path | None) -> str | None:
    return None if path is None else str(path)
