"""The table's voice: the verdicts, whose turn it is and the winner said aloud (config.yaml's `voice:`).

A subscriber of the loop's event stream like the lights, but one that must never hold them up: saying a
sentence takes seconds, judging a board milliseconds. So the subscriber only notes the event (inline, on
the loop's thread: a few microseconds) in a queue of its own, and a thread of its own says the lines one
after the other. It keeps only the newest few lines and drops a line that waited too long: after three
quick moves the players want to hear about the last one, not the first, and a voice that falls behind the
game is worse than none. What was dropped is counted (`dropped`).
"""

from __future__ import annotations

import collections
import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from controller.errors import HardwareError
from controller.language import _, said
from controller.record import COMPUTER_MOVE
from controller.referee import VerdictKind
from controller.service.events import Event, FaultRaised, GameOver, Revealed, VerdictGiven
from controller.words import result_line

log = logging.getLogger("referee.voice")

#: What the voice may say (config.yaml's `voice: events:`).
EVENTS = ("illegal", "legal", "turn", "winner", "faults")
DEFAULT_EVENTS = ("illegal", "turn", "winner")
#: Lines waiting at most (the newest are kept), and the longest a line may wait before it is stale.
KEEP = 3
MAX_AGE = 8.0


class Voice:
    """Says chosen events through a speaker (`controller.hardware.speaker.EspeakSpeaker` or a stand-in)."""

    def __init__(
        self,
        speaker: Any,
        language: str,
        events: tuple[str, ...] = DEFAULT_EVENTS,
        *,
        engine_of: Callable[[], Any] | None = None,
        keep: int = KEEP,
        max_age: float = MAX_AGE,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.speaker = speaker
        self.language = language
        self.events = frozenset(events)
        #: The engine of the game being refereed (for seat names), asked when a line is made.
        self.engine_of = engine_of
        self.keep = keep
        self.max_age = max_age
        self.clock = clock
        self._queue: collections.deque[tuple[float, Event]] = collections.deque()
        self._ready = threading.Condition()
        self._closed = False
        self._busy = False
        #: Lines dropped because newer ones came or they waited too long.
        self.dropped = 0
        #: Every line said, in the voice's language (the tests and the demo read them).
        self.said: list[str] = []
        self._trouble: str | None = None
        self._thread = threading.Thread(target=self._run, name="voice", daemon=True)
        self._thread.start()

    # --- the event stream (an inline subscriber: it only queues) ----------------------------------
    def __call__(self, event: Event) -> None:
        if not self._wanted(event):
            return
        with self._ready:
            self._queue.append((self.clock(), event))
            while len(self._queue) > self.keep:
                self._queue.popleft()
                self.dropped += 1
            self._ready.notify()

    def _wanted(self, event: Event) -> bool:
        if isinstance(event, VerdictGiven):
            kind = event.verdict.verdict
            if kind in (VerdictKind.ILLEGAL, VerdictKind.SETUP_INVALID):
                return "illegal" in self.events
            if kind in (VerdictKind.LEGAL, VerdictKind.SETUP_OK):
                return bool({"legal", "turn"} & self.events) and (
                    "legal" in self.events or event.table.to_move is not None
                )
            # a computer seat's move is what the person at the table is to do now: said as the turn is
            return kind == VerdictKind.ACTION and event.verdict.action == COMPUTER_MOVE and "turn" in self.events
        if isinstance(event, GameOver | Revealed):
            return "winner" in self.events
        if isinstance(event, FaultRaised):
            return "faults" in self.events
        return False

    # --- what is said -------------------------------------------------------------------------------
    def lines(self, event: Event) -> list[Any]:
        """The sentences an event is said in (`Text`s: said in the voice's language when spoken)."""
        out: list[Any] = []
        if isinstance(event, VerdictGiven):
            kind = event.verdict.verdict
            if kind in (VerdictKind.LEGAL, VerdictKind.SETUP_OK):
                if "legal" in self.events:
                    out.append(event.line)
                to_move = event.table.to_move
                engine = self.engine_of() if self.engine_of is not None else None
                if "turn" in self.events and to_move is not None and not event.table.over and engine is not None:
                    out.append(_("{player} to move", player=engine.seat_name(to_move)))
            else:
                out.append(event.line)
        elif isinstance(event, GameOver):
            out.append(event.line)
        elif isinstance(event, Revealed) and event.result is not None and event.result.winners is not None:
            out.append(result_line(event.result))
        elif isinstance(event, FaultRaised):
            out.append(_("fault: {fault}", fault=event.message))
        return [line for line in out if line]

    # --- the voice's own thread -----------------------------------------------------------------------
    def _run(self) -> None:
        while True:
            with self._ready:
                while not self._queue and not self._closed:
                    self._busy = False
                    self._ready.notify_all()
                    self._ready.wait()
                if self._closed and not self._queue:
                    self._busy = False
                    self._ready.notify_all()
                    return
                noted, event = self._queue.popleft()
                self._busy = True
            if self.clock() - noted > self.max_age:  # stale: the game has moved on
                self.dropped += 1
                continue
            try:
                text = ". ".join(said(line, self.language) for line in self.lines(event))
                if text:
                    self.speaker.say(text)
                    self.said.append(text)
                    self._trouble = None
            except HardwareError as exc:
                if str(exc) != self._trouble:  # said once, not for every line
                    self._trouble = str(exc)
                    log.warning("%s", said(exc.args[0], self.language) if exc.args else exc)
            except Exception:  # the voice's bug must not stop the referee
                log.exception("the voice failed on %s", type(event).__name__)

    def drain(self, timeout: float = 30.0) -> bool:
        """Wait until every queued line is said or dropped (tests, shutdown)."""
        deadline = time.monotonic() + timeout
        with self._ready:
            while self._queue or self._busy:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._ready.wait(left)
        return True

    def close(self, timeout: float = 5.0) -> None:
        with self._ready:
            self._closed = True
            self._ready.notify_all()
        self._thread.join(timeout)
