"""One stream of typed events out of the referee loop, and the subscribers that listen to it.

Why: the loop decides; everything else (lights and buzzer, the log, the journal's fault lines, the
live web page, MQTT) only reacts. The loop `emit`s one event per thing that happened and never
calls an output directly, so a new output is a new subscriber and nothing in the loop changes.

Two kinds of subscriber:
* **inline** ones run on the loop's thread, in the order they subscribed, before `emit` returns.
  They are the referee's own fast outputs whose order matters to the players: the journal's
  event lines, the lights and buzzer, the log. A failing inline subscriber is logged and skipped;
  it never stops judging.
* **threaded** ones (the default) each get a queue and a thread of their own, so a slow or
  failing one (a web page, a broker that hangs) never delays judging, the lights or the others.
  Its queue is bounded: when it falls `QUEUE_LIMIT` events behind, the oldest are dropped and
  counted (outputs that must not miss anything, like MQTT verdicts, read the journal instead).

Every event carries a `Table`: what the lights should show at that moment (turn, illegal,
pending, faults, ...), and a `Scene`: the game as a page shows it (its setup, the engine's state,
the newest verdicts), values the loop will not change afterwards. A listener on another thread
(the live page) keeps them as its own state and never reads the loop's live objects; one that
joins late is given the latest event of each kind first (`subscribe(..., catch_up=True)`).
"""

from __future__ import annotations

import collections
import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from controller.games.base import Engine, GameSetup, Result
from controller.language import DEFAULT, _, said
from controller.referee import AwaitedMove, Verdict, VerdictKind
from controller.snapshot import Snapshot

log = logging.getLogger("referee.events")

#: Events a threaded subscriber may fall behind before the oldest are dropped.
QUEUE_LIMIT = 1000
#: The newest verdicts a `Scene` carries (what the live page's history shows; the whole game is in
#: the journal).
HISTORY = 60


@dataclass(frozen=True)
class Table:
    """The referee's state as the players should see it, at the time of an event."""

    game: str
    game_id: int
    started: bool = False
    over: bool = False
    to_move: int | None = None
    winners: tuple[int, ...] | None = None
    illegal: bool = False
    pending: bool = False
    unreadable: str | None = None
    faults: tuple[str, ...] = ()


@dataclass(frozen=True)
class Scene:
    """The game as the live page shows it, at the time of an event.

    Values only, none of which the loop changes afterwards: the engine's state is an immutable
    value (each move makes a new one), the keys and verdicts are copies. So a listener on another
    thread may keep a scene as long as it likes without a lock.
    """

    setup: GameSetup
    #: The game keys it was started with (a copy, never changed; `profile` included).
    keys: dict[str, Any]
    engine: Engine
    #: The engine's state (None before a setup board was accepted).
    state: Any
    #: The newest `HISTORY` verdicts as stored (JSON, notation.md), oldest first, and how many there are.
    verdicts: tuple[dict[str, Any], ...]
    verdict_count: int
    #: The last board judged, whatever its verdict.
    last_snapshot: Snapshot | None
    #: The stored verdict of the illegal move the board is in now (None when it is not illegal).
    illegal: dict[str, Any] | None
    #: Why judging is paused (the page calibrating the copy), or None.
    paused: str | None
    #: The journal's file now (it may have been moved aside and a new one started).
    journal: Path | None
    #: The journal's number of the game, the index its next verdict will have, and the seed of its
    #: computer seats' and coach's searches (the same whenever the game is resumed).
    game_id: int = 0
    next_index: int = 0
    seed: str = ""
    #: The computer's seats and their levels (a copy), and whether the coach may be asked.
    computer: dict[int, str] = field(default_factory=dict)
    coach: bool = True
    #: The move a computer seat chose and a person is to make on the board (None: none awaited).
    awaited: AwaitedMove | None = None
    #: The racks told for computer seats (Blockers!): colour -> tiles as last tapped (`Referee.racks`).
    racks: dict[str, tuple[str, ...]] = field(default_factory=dict)
    #: Of the verdicts carried: the indexes with a picture kept, and the places the rules completed.
    pictured: frozenset[int] = frozenset()
    resolved: dict[int, tuple[tuple[int, int], ...]] = field(default_factory=dict)


@dataclass(frozen=True)
class Event:
    """Something the referee did or saw; `at` is the loop's clock (monotonic seconds)."""

    at: float
    table: Table
    #: The game as a page shows it (None from emitters that have no game, such as some tests).
    scene: Scene | None = None


@dataclass(frozen=True)
class GameOpened(Event):
    """A game is being refereed: at start (new or resumed from the journal) or after `new-game`."""

    how: str = ""


@dataclass(frozen=True)
class BoardRead(Event):
    """The camera's picture became still and was read (`snapshot` None: unreadable, see `problem`).

    Emitted for every still picture, judged or not, so a live view can show what is seen.
    """

    snapshot: Snapshot | None = None
    problem: str | None = None
    #: The places read unsurely, and the board as read with them as `?` (None when nothing was read).
    unsure: tuple[tuple[int, int], ...] = ()
    partial: Snapshot | None = None


@dataclass(frozen=True)
class SlidesSeen(Event):
    """What the slide switches say changed (a slide moved, the link came or went): `positions` as the
    switches give them, `link_ok` and `faults` as reported, `healthy` whether their heartbeat is fresh."""

    positions: tuple[str | None, ...] = ()
    link_ok: bool = False
    faults: tuple[str, ...] = ()
    healthy: bool = False


@dataclass(frozen=True)
class BoardUnreadable(Event):
    """A still board could not be read: no move is judged (amber blinks)."""

    problem: str = ""


@dataclass(frozen=True)
class BoardReadable(Event):
    """The board can be read again after being unreadable."""


@dataclass(frozen=True)
class VerdictGiven(Event):
    """The referee judged a board or an action; it is already committed to the journal.

    `seq` is the journal's sequence number of the entry within game `game_id` (None when the
    journal could not be written: the verdict waits in memory), `snapshot` the board judged
    (None for an action), `line` the sentence the log prints.
    """

    verdict: Verdict = field(default_factory=lambda: Verdict(VerdictKind.UNCHANGED))
    game_id: int = 0
    seq: int | None = None
    snapshot: Snapshot | None = None
    line: str = ""


@dataclass(frozen=True)
class GameOver(Event):
    result: Result = field(default_factory=lambda: Result(finished=True))
    line: str = ""


@dataclass(frozen=True)
class Revealed(Event):
    """A seat's secret colours were told to the referee (Colorpop)."""

    seat: int = 0
    colours: tuple[str, ...] = ()
    result: Result | None = None


@dataclass(frozen=True)
class FaultRaised(Event):
    """A device fault in words a player understands (camera, switches, journal, ...)."""

    message: str = ""


@dataclass(frozen=True)
class FaultCleared(Event):
    message: str = ""
    #: What is fine again, in words.
    cleared: str = ""


@dataclass(frozen=True)
class StateShown(Event):
    """The whole table state to be shown again (after a restart, a new game, an end or a reveal)."""


@dataclass(frozen=True)
class Said(Event):
    """A sentence for the log that no other event carries (a new game's instructions, ...)."""

    text: str = ""
    level: int = logging.INFO


Subscriber = Callable[[Event], None]


class _Worker:
    """A threaded subscriber: its own bounded queue and thread."""

    def __init__(self, subscriber: Subscriber, name: str) -> None:
        self.subscriber = subscriber
        self.name = name
        self.queue: collections.deque[Event | None] = collections.deque()
        self.ready = threading.Condition()
        self.dropped = 0
        self.idle = threading.Event()
        self.idle.set()
        self.thread = threading.Thread(target=self._run, name=f"events-{name}", daemon=True)
        self.thread.start()

    def put(self, event: Event | None) -> None:
        with self.ready:
            if event is not None and len(self.queue) >= QUEUE_LIMIT:
                self.queue.popleft()
                self.dropped += 1
                if self.dropped == 1 or self.dropped % 1000 == 0:
                    log.warning("event listener %s is too slow: %d events dropped", self.name, self.dropped)
            self.queue.append(event)
            self.idle.clear()
            self.ready.notify()

    def _run(self) -> None:
        while True:
            with self.ready:
                while not self.queue:
                    self.idle.set()
                    self.ready.wait()
                event = self.queue.popleft()
            if event is None:
                self.idle.set()
                return
            try:
                self.subscriber(event)
            except Exception:  # a listener's bug must not stop the others or the referee
                log.exception("event listener %s failed on %s", self.name, type(event).__name__)


class EventBus:
    """Fan-out of the loop's events to its subscribers (see the module docstring)."""

    def __init__(self) -> None:
        self._inline: list[tuple[str, Subscriber]] = []
        self._workers: list[_Worker] = []
        self._lock = threading.Lock()
        #: The last event, for subscribers that join late.
        self.last: Event | None = None
        #: The latest event of each kind, in the order they were emitted (for `catch_up`).
        self._latest: dict[type[Event], Event] = {}

    def subscribe(
        self, subscriber: Subscriber, *, inline: bool = False, name: str | None = None, catch_up: bool = False
    ) -> None:
        """`catch_up`: first hear the latest event of each kind, in the order they came, on this very
        thread before `subscribe` returns (a listener that joins late then knows what the others know);
        then every new event, none twice and none missed."""
        label = name or str(getattr(subscriber, "__qualname__", type(subscriber).__name__))
        with self._lock:
            if catch_up:
                for event in list(self._latest.values()):
                    subscriber(event)
            if inline:
                self._inline.append((label, subscriber))
            else:
                self._workers.append(_Worker(subscriber, label))

    def emit(self, event: Event) -> None:
        self.last = event
        for label, subscriber in list(self._inline):
            try:
                subscriber(event)
            except Exception:  # judging goes on: the fault is in one output only
                log.exception("event subscriber %s failed on %s", label, type(event).__name__)
        with self._lock:  # a listener subscribing meanwhile hears this event once: caught up or queued
            self._latest.pop(type(event), None)
            self._latest[type(event)] = event
            workers = list(self._workers)
        for worker in workers:
            worker.put(event)

    def drain(self, timeout: float = 5.0) -> bool:
        """Wait until every threaded subscriber has handled what it was given (tests, shutdown)."""
        ok = True
        for worker in list(self._workers):
            ok = worker.idle.wait(timeout) and ok
        return ok

    def dropped(self) -> dict[str, int]:
        return {w.name: w.dropped for w in self._workers if w.dropped}

    def close(self, timeout: float = 2.0) -> None:
        """Let threaded subscribers finish what they have, then stop their threads."""
        with self._lock:
            workers, self._workers = self._workers, []
        for worker in workers:
            worker.put(None)
        for worker in workers:
            worker.thread.join(timeout)


# --- the referee's own subscribers ------------------------------------------------------------------
class LightsSubscriber:
    """Drives the lights and buzzer (`controller.hardware.feedback.Feedback` or a stand-in)."""

    def __init__(self, feedback: Any) -> None:
        self.feedback = feedback

    def __call__(self, event: Event) -> None:
        f = self.feedback
        table = event.table
        if isinstance(event, VerdictGiven):
            kind = event.verdict.verdict
            if kind in (VerdictKind.SETUP_OK, VerdictKind.LEGAL):
                f.board_ok()
                if kind == VerdictKind.LEGAL:
                    f.legal()
                self._turn(table)
            elif kind in (VerdictKind.ILLEGAL, VerdictKind.SETUP_INVALID):
                f.illegal()
            elif kind in (VerdictKind.RESTORED, VerdictKind.UNCHANGED):
                f.board_ok()
            self._amber(table)
        elif isinstance(event, BoardUnreadable):
            f.unreadable()
        elif isinstance(event, BoardReadable):
            self._amber(table)
        elif isinstance(event, FaultRaised | FaultCleared):
            if table.faults:
                f.fault("; ".join(table.faults))
            else:
                f.fault_cleared()
        elif isinstance(event, Revealed):
            if table.over:
                self._turn(table)
        elif isinstance(event, StateShown | GameOpened):
            if table.illegal:
                f.illegal()
            else:
                f.board_ok()
            self._amber(table)
            if table.started:
                self._turn(table)
            else:
                f.turn(None)

    def _amber(self, table: Table) -> None:
        if table.pending:
            self.feedback.pending()
        else:
            self.feedback.clear_pending()

    def _turn(self, table: Table) -> None:
        if table.over:
            if table.winners:
                self.feedback.winner(list(table.winners))
            else:
                self.feedback.turn(None)
        else:
            self.feedback.turn(table.to_move)


class LogSubscriber:
    """One readable log line per event worth a line, in the table's language; `on_line` also hears each
    (the demo prints them)."""

    def __init__(
        self, log: logging.Logger, on_line: Callable[[str], None] | None = None, language: str = DEFAULT
    ) -> None:
        self.log = log
        self.on_line = on_line
        self.language = language

    def __call__(self, event: Event) -> None:
        text, level = _log_text(event)
        if text is None:
            return
        line = f"[{event.table.game}] {said(text, self.language)}"
        self.log.log(level, "%s", line)
        if self.on_line is not None:
            self.on_line(line)


def _log_text(event: Event) -> tuple[Any, int]:
    if isinstance(event, VerdictGiven):
        return event.line, logging.INFO
    if isinstance(event, GameOver):
        return event.line, logging.INFO
    if isinstance(event, BoardUnreadable):
        return _("board not read, no move judged: {problem}", problem=event.problem), logging.INFO
    if isinstance(event, FaultRaised):
        return _("fault: {fault}", fault=event.message), logging.WARNING
    if isinstance(event, FaultCleared):
        return _("fault cleared: {what}", what=event.cleared), logging.INFO
    if isinstance(event, Said):
        return event.text, event.level
    if isinstance(event, GameOpened) and event.how:
        return event.how, logging.INFO
    return None, logging.INFO


class JournalEventsSubscriber:
    """Writes faults and unreadable boards to the journal's `events` table, for people reading it."""

    def __init__(self, journal_of: Callable[[], Any]) -> None:
        #: A function, because the journal may be replaced while running (moved aside, rewritten).
        self.journal_of = journal_of

    def __call__(self, event: Event) -> None:
        if isinstance(event, FaultRaised):
            kind, text = "fault", event.message
        elif isinstance(event, FaultCleared):
            kind, text = "fault", f"cleared: {event.cleared}"
        elif isinstance(event, BoardUnreadable):
            kind, text = "unreadable", event.problem
        else:
            return
        self.journal_of().event(event.table.game_id, kind, text)
