"""`referee run` publishing its table to the club's MQTT broker (topics and payloads: docs/mqtt.md).

Why the journal and not the events: a verdict must reach the club even when the broker was away
when it was given, or the referee restarted meanwhile. So the loop's events only *wake* the
publisher; what it sends is read from the journal, after the last entry the broker acknowledged
(`JournalFeed`), in journal order, and that mark moves only when PUBACK arrives. After a
reconnect it sends again from the mark, so the broker may see an entry twice; the club keeps each
(table, game_id, seq) once. A game's result is worked out by replaying its entries through a
`Referee` (the rules are deterministic), so it too is never lost.

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
from controller.club.payloads import encode, result_payload, state_payload, verdict_payload
from controller.club.reach import why_unreachable
from controller.errors import RefereeError
from controller.record import setup_from_mapping
from controller.referee import same_verdict
from controller.service.events import Event, Table
from controller.service.journal import Entry
from controller.service.session import GameSession

#: Entries sent but not yet acknowledged, at most (the rest wait in the journal).
MAX_UNACKED = 100
#: The pump looks at the journal this often even without an event (an event may have been dropped).
POLL_SECONDS = 2.0
RECONNECT_MIN, RECONNECT_MAX = 1, 30
#: Early acknowledgements remembered, at most (they are matched within microseconds).
EARLY_ACKS = 1000


class GameFollower:
    """One game replayed from its journal entries, to know its result after each entry."""

    def __init__(self, game_id: int, keys: dict[str, Any]) -> None:
        self.game_id = game_id
        self.keys = keys
        self.session = GameSession(None, game_id, keys, setup_from_mapping(keys, f"journal game {game_id}"))  # type: ignore[arg-type]
        self.seq = -1

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
        self._lock = threading.Lock()  # guards the unacknowledged list (paho's thread and the pump)
        self._unacked: collections.deque[tuple[Point, set[int]]] = collections.deque()
        #: Message ids acknowledged before the pump recorded them (insertion-ordered, bounded).
        self._early_acks: dict[int, None] = {}
        self._sent: Point | None = None
        self._last_state: bytes | None = None
        self._follower: GameFollower | None = None
        self._broken_game: int | None = None
        #: Verdicts and results the broker acknowledged since start (tests, status).
        self.acknowledged = 0
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
        client.on_publish = self._on_publish
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
        """Wait until the broker has acknowledged everything up to `point` (tests, shutdown)."""
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

    def _on_publish(self, client, userdata, mid, reason_code, properties) -> None:
        done: Point | None = None
        with self._lock:
            for _, mids in self._unacked:
                if mid in mids:
                    mids.discard(mid)
                    self.acknowledged += 1
                    break
            else:  # PUBACK can beat the pump's bookkeeping of the message it answers
                self._early_acks[mid] = None
                while len(self._early_acks) > EARLY_ACKS:
                    del self._early_acks[next(iter(self._early_acks))]
            done = self._mark_acked_front()
        if done is not None:
            with self._cond:
                self._wake = True  # room for more
                self._cond.notify()

    def _mark_acked_front(self) -> Point | None:
        """Drop the fully acknowledged entries at the front and move the journal's mark past them.

        Called with `_lock` held, so two threads never write the mark out of order.
        """
        done = None
        while self._unacked and not self._unacked[0][1]:
            done = self._unacked.popleft()[0]
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
                table = self._table
            if not connected:
                continue
            try:
                if fresh:
                    self._reconnected()
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

    def _reconnected(self) -> None:
        """A new connection: send again everything after the last acknowledged entry."""
        assert self.client is not None and self.feed is not None
        with self._lock:
            self._unacked.clear()
        self._sent = self.feed.delivered()
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
            mids: set[int] = set()
            infos = [
                self.client.publish(
                    self.config.topic("verdict"),
                    encode(verdict_payload(self.config.table, entry.game_id, entry.seq, entry.verdict, now)),
                    qos=1,
                )
            ]
            result = self._follow(entry)
            if result is not None:
                infos.append(self.client.publish(self.config.topic("result"), encode(result), qos=1, retain=True))
            with self._lock:
                if any(info.rc != mqtt.MQTT_ERR_SUCCESS for info in infos):
                    return  # the connection went: resent from the mark after reconnecting
                for info in infos:
                    if self._early_acks.pop(info.mid, False) is None:
                        self.acknowledged += 1
                    else:
                        mids.add(info.mid)
                self._unacked.append((point, mids))
                self._mark_acked_front()
            self._sent = point

    def _follow(self, entry: Entry) -> dict[str, Any] | None:
        """Advance the replayed game by this entry; the result payload when it ended (or changed) the game."""
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
            result = follower.result()
            assert result is not None
            return result_payload(
                self.config.table, entry.game_id, entry.seq, follower.keys, self.names, result, self.wall()
            )
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
            snapshot = last.to_text() if last is not None else None
            result = follower.result()
            scores = result.get("scores") if result else None
            last_seq = follower.seq
        return state_payload(
            self.config.table, self.game_keys, self.names, table, snapshot, scores, last_seq, self.wall()
        )


def _str(path: Path | None) -> str | None:
    return None if path is None else str(path)
