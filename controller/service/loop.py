"""The referee loop: frames and switch states in, verdicts, lights and journal entries out.

`RefereeLoop.tick()` does one frame's work and is driven from outside with an injectable clock,
so tests and the demo run it faster than real time and deterministically; `run_realtime` drives
it from the wall clock for `referee run`.

What one tick does (`rules.md` §5):
1. run the commands queued by the control socket and the button (in this thread, so the game is
   only ever touched here);
2. look: the sensor says whether a frame came, whether the picture moved, and gives a new board
   reading once the picture is still; the switches give the slide positions (Stay Alive);
3. faults: no usable frame for `frame_timeout` seconds, the same bit-identical picture for as
   long (a frozen camera), or the slide switches silent or contradictory, show the fault pattern
   and stop judging until they are fresh again. A journal that cannot be written, or was moved
   aside or written again, shows the fault pattern too but judging goes on: the verdicts wait in
   memory (see `controller.service.journal`);
4. judge a reading that differs from the last judged board, through the `Referee` (and
   `GameSession`, which journals it before the lights show it), as soon as the picture is still
   (two identical pictures, the motion gate's word) and nothing moved for `settle_time` (none
   by default) when the referee would call it legal, setup-ok, restored or pending: a hand that
   has left a legal board is done, and a half-made move is said at once (amber). A board that
   looks illegal (or an invalid setup) may be a move still being made, the hand gone off the
   board for a moment (a Blockers! captured tile set aside, a Flipop door turned after its
   ball): it is called only once it stayed unchanged for `patience`, on a picture read again at
   that moment, so red never lights while a legal move is being made. An unreadable reading
   (hand, glare, an unsure place) is never judged; amber blinks and the log says why once it
   lasted as long.
   After a slide moved (Stay Alive), only a picture read after the move is judged, and physics
   may still change the board by itself: a marble drops through the hole its slide opened a
   moment later, too small a change for the motion gate. For the game's `physics_window` (the
   rig's longest drop, plus the camera's own lateness) every picture is read while the board
   looks illegal, so the move is confirmed as soon as the camera shows the marbles gone.
"""

from __future__ import annotations

import copy
import logging
import queue
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Protocol

from controller import words
from controller.ai import knowledge_for
from controller.ai.levels import HINT_LEVEL
from controller.ai.table import rack_missing, think, told_tiles, warm
from controller.errors import RefereeError
from controller.games import registry
from controller.games.base import ActionNotAllowed
from controller.language import _, listed, said
from controller.record import COMPUTER_MOVE, COMPUTER_RACK, HINT
from controller.referee import Outlook, Verdict, VerdictKind
from controller.service.events import (
    HISTORY,
    BoardRead,
    BoardReadable,
    BoardUnreadable,
    Event,
    EventBus,
    FaultCleared,
    FaultRaised,
    GameOpened,
    GameOver,
    JournalEventsSubscriber,
    LightsSubscriber,
    LogSubscriber,
    Revealed,
    Said,
    Scene,
    SlidesSeen,
    StateShown,
    Table,
    VerdictGiven,
)
from controller.service.pictures import PRUNE_EVERY, PictureSettings, encode
from controller.service.session import GameSession
from controller.snapshot import Snapshot, tells_nothing_new
from controller.words import verdict_line

CAMERA_LOST = _("the camera is not sending pictures: check its cable")
CAMERA_FROZEN = _("camera picture frozen: the same picture over and over; check the camera and its cable")
#: Seconds a journal notice (a damaged journal moved aside, a deleted one written again) stays
#: on the fault lights, unless a new game is started first.
JOURNAL_NOTICE_SECONDS = 60.0
#: Clock arithmetic slack, so a board still for exactly the settle time is judged on that frame.
SETTLE_EPSILON = 1e-6
SWITCHES_LOST = _("the slide switches are not answering: check the USB cable of the switch board")


def _all_known(positions: tuple[str | None, ...] | None) -> tuple[str, ...] | None:
    """Every slide's position as the switches tell it, or None while one is unknown."""
    if positions is None or any(p is None for p in positions):
        return None
    return tuple(p for p in positions if p is not None)


class FeedbackLike(Protocol):
    """What the loop needs of `controller.hardware.feedback.Feedback`."""

    def turn(self, seat: int | None) -> None: ...
    def legal(self) -> None: ...
    def illegal(self) -> None: ...
    def board_ok(self) -> None: ...
    def pending(self) -> None: ...
    def unreadable(self) -> None: ...
    def clear_pending(self) -> None: ...
    def winner(self, seats: list[int]) -> None: ...
    def fault(self, message: str) -> None: ...
    def fault_cleared(self) -> None: ...


class SwitchesLike(Protocol):
    def latest(self) -> Any: ...
    def healthy(self) -> bool: ...


@dataclass(frozen=True)
class Sight:
    """What the camera gave this tick.

    `frame`: a picture arrived. `moving`: it differs from the previous one. `new_reading`: the
    picture became still and was read; `snapshot` is then the board (None when it could not be
    read, with `problem` saying why). A board read but for a few unsure places gives its `cells`
    ("?" where unsure), the `lines` its add-ons read (Flipop's doors) and each unsure place's
    `candidates` (the letters its look does not rule out), so the rules may find the one legal board
    that fits; `unsure` the places read unsurely and `partial` the board as read with those as `?`
    (for the live page).
    """

    frame: bool
    moving: bool = False
    new_reading: bool = False
    snapshot: Snapshot | None = None
    problem: str | None = None
    cells: tuple[tuple[str, ...], ...] | None = None
    lines: dict[str, tuple[str, ...] | None] | None = None
    candidates: dict[tuple[int, int], str] | None = None
    unsure: tuple[tuple[int, int], ...] = ()
    partial: Snapshot | None = None


class Sensor(Protocol):
    def sense(self) -> Sight: ...

    def read_next(self) -> None:
        """Read the next picture that is still, even if it looks like the last one read.

        A change the picture barely shows (a marble dropping through its hole is a few pixels of
        the motion gate's small image) must still be read once the loop knows the board changed.
        """


class CameraSensor:
    """A frame source, vision's motion gate and board reader: reads only still pictures."""

    def __init__(self, source: Any, reader: Any, gate: Any) -> None:
        self.source = source
        self.reader = reader
        self.gate = gate
        self._had_frame = True
        self._read_wanted = False
        #: CPU seconds spent in the gate and the reader (not in the source), for the bench.
        self.cpu = 0.0

    def sense(self) -> Sight:
        frame = self.source.read()
        if frame is None:
            self._had_frame = False
            return Sight(frame=False)
        self.latest_frame = frame  # for the live page, which encodes it only when asked
        started = time.thread_time()
        try:
            if not self._had_frame:  # back after a gap: the camera may have been moved
                self._had_frame = True
                self.gate.reset()
                self.reader.invalidate()
            result = self.gate.update(frame)
            moving = result.state == "moving" and result.motion > self.gate.min_fraction
            # 'idle' is a still picture the gate has read before; when a read is wanted it is read again
            wanted_now = self._read_wanted and result.state == "idle"
            if result.state != "still" and not wanted_now:
                return Sight(frame=True, moving=moving)
            self._read_wanted = False
            reading = self.reader.read(frame)
            self.latest_reading = reading
            self.read_frame = frame  # the picture behind a verdict on this reading
            unsure = reading.snapshot is None and bool(getattr(reading, "candidates", None)) and reading.cells
            return Sight(
                frame=True,
                moving=False,
                new_reading=True,
                snapshot=reading.snapshot,
                problem=reading.problem,
                cells=tuple(tuple(row) for row in reading.cells) if unsure else None,
                lines=dict(reading.lines) if unsure else None,
                candidates=dict(reading.candidates) if unsure else None,
                unsure=tuple((int(r), int(c)) for r, c in getattr(reading, "unsure", ())),
                partial=partial_board(reading, getattr(self.reader, "game", "")),
            )
        finally:
            self.cpu += time.thread_time() - started

    def read_next(self) -> None:
        """Read the next still picture: this frame if the gate finds it still, else once it settles."""
        self._read_wanted = True

    def picture(self, ppp: float) -> Any:
        """The board of the picture last read, straightened (`BoardReader.picture`); None if none."""
        frame = getattr(self, "read_frame", None)
        picture = getattr(self.reader, "picture", None)
        return picture(frame, ppp) if frame is not None and picture is not None else None

    def confirm(self, snapshot: Snapshot) -> None:
        self.reader.confirm(snapshot)


def partial_board(reading: Any, game: str) -> Snapshot | None:
    """A reading unsure of some places as a board with those places as `?` (what the live page shows
    and corrects from); None when it was sure (its snapshot) or read no places at all."""
    if reading.snapshot is not None or getattr(reading, "cells", None) is None:
        return None
    return Snapshot(game, tuple(tuple(row) for row in reading.cells), getattr(reading, "lines", None) or {})


@dataclass
class Command:
    name: str
    args: dict[str, Any]
    future: Future


#: How late a camera's pictures may reach the loop (seconds): a USB or Pi camera hands over a
#: picture one to three frame times after taking it. Added to a game's physics window, since the
#: switches tell a slide's move at once and the camera shows its consequences that much later.
CAMERA_LAG = 0.1
#: The verdicts given as soon as the board is still: what a legal move (or a half-made one, or the
#: board put back) looks like. Anything else waits for the patience time.
AT_ONCE = frozenset(
    {VerdictKind.SETUP_OK, VerdictKind.LEGAL, VerdictKind.PENDING, VerdictKind.RESTORED, VerdictKind.UNCHANGED}
)


@dataclass(frozen=True)
class Settings:
    """The loop's timing (config.yaml's keys of the same names).

    `settle_time`: seconds nothing may move, on the picture or the switches, before a board that
    the referee would call legal is judged, beyond the two identical pictures the motion gate needs.
    `patience`: seconds an illegal-looking (or unreadable) board must stay unchanged before the
    referee says so. `physics_window`: seconds after a slide moved during which the board may still
    change by itself (the game's `GameSpec.physics_window`); `camera_lag` is added to it.
    """

    settle_time: float = 0.0
    frame_timeout: float = 2.0
    patience: float = 1.5
    physics_window: float = 0.0
    camera_lag: float = CAMERA_LAG
    #: A reading with unsure places is judged when exactly one legal board fits it (`Referee.resolve`).
    resolve_doubt: bool = True


class RefereeLoop:
    """The service's single game loop; every method but `submit` runs on the loop's thread."""

    def __init__(
        self,
        session: GameSession,
        sensor: Sensor,
        feedback: FeedbackLike | None = None,
        *,
        switches: SwitchesLike | None = None,
        settings: Settings | None = None,
        clock: Callable[[], float] = time.monotonic,
        log: logging.Logger | None = None,
        on_line: Callable[[str], None] | None = None,
        bus: EventBus | None = None,
        opened: str = "",
        camera: Any = None,
        language: str = "en",
        think_in_background: bool = False,
        pictures: PictureSettings | None = None,
    ) -> None:
        self.session = session
        #: The picture kept behind every verdict (`controller.service.pictures`).
        self.pictures = pictures or PictureSettings()
        self._pictures_kept = 0
        self.sensor = sensor
        #: The `CameraWatch` around the frame source, when there is one: why frames are missing, frozen.
        self.camera = camera
        self.switches = switches
        self.settings = settings or Settings()
        self.clock = clock
        self.log = log or logging.getLogger("referee")
        self.game = session.setup.game
        #: Where every output listens: the referee's own outputs are inline subscribers, in this
        #: order (the journal's event lines, the log, then the lights), others are threaded.
        self.bus = bus or EventBus()
        self.bus.subscribe(JournalEventsSubscriber(lambda: self.session.journal), inline=True, name="journal")
        #: The table's language (config.yaml's `language:`): the log's sentences.
        self.language = language
        self.bus.subscribe(LogSubscriber(self.log, on_line, language), inline=True, name="log")
        if feedback is not None:
            self.bus.subscribe(LightsSubscriber(feedback), inline=True, name="lights")
        self.commands: queue.SimpleQueue[Command] = queue.SimpleQueue()
        now = clock()
        self.started_at = now
        self.last_frame_at: float | None = None
        self.last_switches_ok_at: float | None = None
        self.last_motion = now
        self.positions: tuple[str | None, ...] | None = None
        #: What the slide switches said last (positions, link, faults, heartbeat), to tell a change.
        self.slides_said: tuple[Any, ...] | None = None
        self.reading: Sight | None = None
        #: The clock time `reading` was read.
        self.reading_at = now
        #: When a slide last moved (None: not yet): physics may change the board for a while after.
        self.slid_at: float | None = None
        #: The verdict kind the referee would give the board now on show: (board, kind), so a board
        #: waited on is not judged again on every frame.
        self._preview: tuple[tuple[Any, ...], Outlook] | None = None
        #: The last unsure reading's completion by the rules: (its key, the board or None).
        self._resolution: tuple[tuple[Any, ...], Snapshot | None] | None = None
        self.unreadable_said: str | None = None
        self.amber_blinking = False
        self.faults: list[str] = []
        #: The faults that make the devices unfit to judge (not the journal's).
        self.device_faults: list[str] = []
        #: Journal notices on the fault lights, and the clock time each goes off.
        self.notices: dict[str, float] = {}
        #: Why the last `sensor.sense()` raised (None: it did not).
        self.sense_error: str | None = None
        self.sense_error_since = now
        self._cleared_words: dict[str, str] = {}
        #: Other parts of the referee that can be in trouble without stopping the judging (the club's
        #: broker): each gives a fault sentence or None, and the words to say when it clears.
        self.fault_sources: list[tuple[Callable[[], str | None], str]] = []
        #: Every verdict this loop produced, in order (the demo and tests compare them).
        self.verdicts: list[Verdict] = []
        #: Why judging is paused (the live page calibrating the copy: its boards are not moves); None: not.
        self.paused: str | None = None
        self.ticks = 0
        self.stopped = threading.Event()
        #: Computer seats think off this thread (a search takes up to a few seconds and the camera
        #: must be watched meanwhile); False: right away on this one (tests, deterministic runs).
        self.think_in_background = think_in_background
        self._thinker: ThreadPoolExecutor | None = None
        #: The computer's search under way: (game id, verdict index it started at, its future).
        self._thinking: tuple[int, int, Future] | None = None
        #: The game whose computer seats were prepared (`controller.ai.table.warm`).
        self._warmed: int | None = None
        #: (game id, verdict index) at which the log last said the computer waits for its tiles (Blockers!).
        self._tiles_asked: tuple[int, int] | None = None
        #: (game id, seat) of the computer seats whose secret was revealed at the end (or tried to be).
        self._revealed: set[tuple[int, int]] = set()
        self._emit(GameOpened, how=opened)
        if switches is not None:  # what the slides say from the start, for a page that listens
            self._tell_slides(switches.latest())

    # --- events ----------------------------------------------------------------------------------
    def table(self) -> Table:
        """What the players should be shown now."""
        referee = self.session.referee
        over = referee.over
        winners = None
        if over:
            result = referee.result()
            winners = tuple(result.winners) if result.winners else None
        return Table(
            game=self.game,
            game_id=self.session.game_id,
            started=referee.started,
            over=over,
            to_move=referee.to_move(),
            winners=winners,
            illegal=referee.in_illegal,
            pending=referee.in_pending,
            unreadable=self.unreadable_said,
            faults=tuple(self.faults),
        )

    def scene(self) -> Scene:
        """The game as a page shows it now: values the loop will not change (see `Scene`)."""
        session = self.session
        referee = session.referee
        stored = session.verdicts
        shown = tuple(stored[-HISTORY:])
        illegal = None
        if referee.in_illegal:
            illegal = next((v for v in reversed(stored) if v.get("verdict") == "illegal"), None)
        return Scene(
            setup=session.setup,
            keys=copy.deepcopy(session.keys),
            engine=referee.engine,
            state=referee.state,
            verdicts=shown,
            verdict_count=len(stored),
            last_snapshot=session.last_snapshot,
            illegal=illegal,
            paused=self.paused,
            journal=getattr(session.journal, "path", None),
            game_id=session.game_id,
            next_index=session.next_index,
            seed=session.seed,
            computer=dict(session.computer),
            coach=bool(session.coach),
            awaited=referee.awaited,
            racks=dict(referee.racks),
            pictured=frozenset(i for i in (v.get("index") for v in shown) if i in session.pictured),
            resolved={i: session.resolved[i] for i in (v.get("index") for v in shown) if i in session.resolved},
        )

    def _emit(self, kind: type[Event], **fields: Any) -> None:
        self.bus.emit(kind(at=self.clock(), table=self.table(), scene=self.scene(), **fields))

    # --- what other threads may call -----------------------------------------------------------
    def submit(self, name: str, **args: Any) -> Future:
        """Queue a command (status, new-game, reveal, end) for the loop's thread; thread-safe."""
        if name == "hint" and "move" not in args:
            return self._ask_coach(args)
        future: Future = Future()
        self.commands.put(Command(name, args, future))
        return future

    def _ask_coach(self, args: dict[str, Any]) -> Future:
        """`referee hint`: the coach's move for the person to move, chosen on the asking thread
        (judging goes on meanwhile, as for the page's hint), then journalled and said on the
        loop's thread as the page's hint is; the answer also holds the whole hint in a sentence
        (`line`), in the language asked for or the table's."""
        future: Future = Future()
        session = self.session
        referee = session.referee
        game_id, index, state = session.game_id, session.next_index, referee.state
        try:
            if not session.coach:
                raise RefereeError(str(words.NO_COACH))
            seat = referee.to_move()
            if state is None or referee.over or seat is None:
                raise RefereeError(str(words.NO_MOVE_TO_HELP))
            if seat in session.computer:
                raise RefereeError(str(words.NOT_A_PERSONS_TURN))
            # the person's own tiles, told for this hint only (Blockers!): never journalled
            told = told_tiles(referee.engine, state, seat, str(args.get("tiles") or ""))
            thought = think(referee.engine, state, HINT_LEVEL, session.seed, computer=False, racks=told)
            if thought is None:
                raise RefereeError(str(words.NO_MOVE_TO_HELP))
        except RefereeError as exc:
            future.set_exception(exc)
            return future
        language = args.get("language") or self.language
        engine = referee.engine
        said_move = words.hint_move_words(engine, thought.move, thought.tiles) if thought.tiles else thought.move
        line = words.coach_hint(engine.seat_name(thought.seat), said_move, thought.why)
        asked = self.submit(
            "hint", move=thought.move, why=thought.why, index=index, game_id=game_id, tiles=thought.tiles
        )

        def answered(done: Future) -> None:
            if done.exception() is not None:
                future.set_exception(done.exception())
            else:
                future.set_result({**done.result(), "line": said(line, language)})

        asked.add_done_callback(answered)
        return future

    # --- one tick ------------------------------------------------------------------------------
    def tick(self) -> list[Verdict]:
        """One frame's work; returns the verdicts it produced (commands' included)."""
        self.ticks += 1
        produced: list[Verdict] = []
        self._run_commands(produced)
        self._computer_turn(produced)
        now = self.clock()
        if self._physics_open(now) and self._waiting():
            self._read_again()  # a marble's drop may be too small for the motion gate: read every picture
        sight = self._sense(now)
        if sight.frame:
            self.last_frame_at = now
        if sight.moving:
            self._moved(now)
        if sight.new_reading:
            self.reading = sight
            self.reading_at = now
            self._emit(
                BoardRead, snapshot=sight.snapshot, problem=sight.problem, unsure=sight.unsure, partial=sight.partial
            )
        state = self.switches.latest() if self.switches is not None else None
        if self.switches is not None:
            self._tell_slides(state)
        if state is not None and state.link_ok and state.positions != self.positions:
            if self.positions is not None:
                self._slid(now)
            self.positions = state.positions
        if not self._check_faults(now, state):
            return produced
        if not self._settled(now) or self.reading is None or self.paused is not None:
            return produced
        verdict = self._look(self.reading, now)
        if verdict is not None:
            produced.append(verdict)
        return produced

    def _sense(self, now: float) -> Sight:
        """The sensor's sight. A failure of the reader (or of a source without a `CameraWatch`) is
        an unreadable board, never a crash; failing on every frame for `frame_timeout` is a fault."""
        try:
            sight = self.sensor.sense()
        except Exception as exc:
            problem = _("the camera picture cannot be read ({why})", why=": ".join((type(exc).__name__, str(exc))))
            if problem != self.sense_error:
                self.log.warning("%s", problem, exc_info=self.log.isEnabledFor(logging.DEBUG))
            if self.sense_error is None:
                self.sense_error_since = now
            self.sense_error = problem
            return Sight(frame=True, new_reading=True, snapshot=None, problem=problem)
        self.sense_error = None
        return sight

    def _moved(self, now: float) -> None:
        self.last_motion = now
        self.reading = None
        self.unreadable_said = None

    def _tell_slides(self, state: Any) -> None:
        """`SlidesSeen` when what the switches say changed (a few comparisons a tick, nothing more)."""
        healthy = bool(self.switches is not None and self.switches.healthy())
        if state is None:
            said: tuple[Any, ...] = ((), False, (), healthy)
        else:
            said = (tuple(state.positions), bool(state.link_ok), tuple(state.faults or ()), healthy)
        if said != self.slides_said:
            self.slides_said = said
            positions, link_ok, faults, healthy = said
            self._emit(SlidesSeen, positions=positions, link_ok=link_ok, faults=faults, healthy=healthy)

    def _slid(self, now: float) -> None:
        """A slide moved: only a picture read after the move is judged (the gate may see nothing
        change: a slide under marbles and closed points), so the next picture is read at once."""
        self._moved(now)
        self.slid_at = now
        self._read_again()

    def _read_again(self) -> None:
        read_next = getattr(self.sensor, "read_next", None)
        if read_next is not None:  # a sensor without it reads every still picture anyway
            read_next()

    def _settled(self, now: float) -> bool:
        """Nothing moved, in the picture or on the switches, for the settle time."""
        return now - self.last_motion >= self.settings.settle_time - SETTLE_EPSILON

    def _patient(self, now: float) -> bool:
        """Nothing moved for the patience time: the hand is done."""
        return now - self.last_motion >= self.settings.patience - SETTLE_EPSILON

    def _physics_open(self, now: float) -> bool:
        """A slide moved so recently that the board may still change by itself (a marble dropping)."""
        window = self.settings.physics_window
        return window > 0 and self.slid_at is not None and now - self.slid_at < window + self.settings.camera_lag

    def _waiting(self) -> bool:
        """The board on show looks illegal and is being waited on."""
        return self._preview is not None and not self._at_once(self._preview[1])

    @staticmethod
    def _at_once(outlook: Outlook) -> bool:
        """A verdict given as soon as the board is still (nothing left for the hand or physics to do)."""
        return outlook.kind in AT_ONCE and not outlook.settling

    def _check_faults(self, now: float, state: Any) -> bool:
        """Show or clear the fault pattern; True when the devices are fresh enough to judge."""
        faults: list[str] = []
        timeout = self.settings.frame_timeout
        camera_ok = self.last_frame_at is not None
        if now - (self.last_frame_at if self.last_frame_at is not None else self.started_at) > timeout:
            why = getattr(self.camera, "problem", None)
            faults.append(_("{why}: check the camera", why=why) if why else CAMERA_LOST)
            camera_ok = False
        elif self.sense_error is not None and now - self.sense_error_since > timeout:
            faults.append(_("{why}: check the camera", why=self.sense_error))
            camera_ok = False
        elif self.camera is not None and self.camera.frozen_for(now) > timeout:
            faults.append(CAMERA_FROZEN)
            camera_ok = False
        switches_ok = True
        if self.switches is not None:
            if self.switches.healthy():
                self.last_switches_ok_at = now
                if state is not None and state.faults:
                    faults.append(
                        _(
                            "slide {slides} reports both of its switches closed: check the switches and wiring of "
                            "that slide",
                            slides=listed((str(s) for s in state.faults), conjunction=None),
                        )
                    )
                    switches_ok = False
            else:
                switches_ok = False
                since = self.last_switches_ok_at if self.last_switches_ok_at is not None else self.started_at
                if now - since > self.settings.frame_timeout or self.last_switches_ok_at is not None:
                    # the link names what is wrong (unplugged, silent, garbled) where it can tell
                    trouble = getattr(state, "trouble", None) if state is not None else None
                    faults.append(trouble or SWITCHES_LOST)
        self.device_faults = list(faults)
        faults.extend(self._journal_faults(now))
        for source, cleared_words in self.fault_sources:
            message = source()
            if message:
                faults.append(message)
                self._cleared_words[message] = cleared_words
        if faults != self.faults:
            raised = [m for m in faults if m not in self.faults]
            cleared = [m for m in self.faults if m not in faults]
            self.faults = faults
            for message in raised:
                self._emit(FaultRaised, message=message)
            for message in cleared:
                self._emit(FaultCleared, message=message, cleared=self._cleared(message))
        return camera_ok and switches_ok

    def _journal_faults(self, now: float) -> list[str]:
        """The journal's own fault (cannot be written) and its notices still on show."""
        journal = self.session.journal
        journal.tick(now)
        for notice in journal.take_notices():
            self.notices[notice] = now + JOURNAL_NOTICE_SECONDS
            self._cleared_words[notice] = _("the journal notice was shown long enough (it stays in the log)")
        self.notices = {text: until for text, until in self.notices.items() if now < until}
        out = list(self.notices)
        if journal.problem is not None:
            out.append(journal.problem)
            self._cleared_words[journal.problem] = _("the journal is written again; no verdict was lost")
        return out

    def _cleared(self, message: str) -> str:
        if message in self._cleared_words:
            return self._cleared_words.pop(message)
        if message == SWITCHES_LOST or message.startswith("the switch board"):
            return _("the slide switches are answering again")
        if message.startswith("slide "):
            return _("the slide switches read normally again")
        if message == CAMERA_FROZEN:
            return _("the camera's picture is live again")
        return _("pictures are arriving from the camera again")

    @property
    def fresh(self) -> bool:
        """Frames (new ones, not a frozen picture) and switch heartbeats are fresh: the condition for
        systemd's READY and WATCHDOG. A journal fault does not count: the service must go on
        running (and holding the verdicts that wait in memory), not be restarted."""
        return not self.device_faults and self.last_frame_at is not None

    # --- judging -------------------------------------------------------------------------------
    def _look(self, sight: Sight, now: float) -> Verdict | None:
        resolved: tuple[tuple[int, int], ...] = ()
        if sight.snapshot is None:
            snapshot = self._resolved(sight)
            if snapshot is None:
                problem = sight.problem or _("the board could not be read")
                if not self._patient(now):
                    return None  # a hand resting a moment, glare passing by: said only once it lasts
                if self.unreadable_said != problem:
                    self.unreadable_said = problem
                    self.amber_blinking = True
                    self._emit(BoardUnreadable, problem=problem)
                return None
            resolved = tuple(sorted(sight.candidates or {}))
        else:
            snapshot = self._merged(sight.snapshot)
            if snapshot is None:
                return None
        self.unreadable_said = None
        if self.amber_blinking:  # readable again: amber back to what the game says
            self.amber_blinking = False
            self._emit(BoardReadable)
        last = self.session.last_snapshot
        if last is not None and tells_nothing_new(snapshot, last):
            self._preview = None
            return None  # the same board, or the same board with a glyph or door unread this time
        outlook = self._outlook(snapshot)
        if outlook.settling and self._physics_open(now):
            return None  # a marble the slide's move lets fall may still be on its way down
        if outlook.kind not in AT_ONCE:
            # It looks illegal: the hand may only have left the board for a moment, or a marble
            # may still be dropping. Call it once it stayed unchanged for the patience time, on a
            # picture read at that moment (a change too small for the motion gate is seen so).
            if self._physics_open(now) or not self._patient(now):
                return None
            fresh = self.reading_at - self.last_motion >= self.settings.patience - SETTLE_EPSILON
            if not fresh and getattr(self.sensor, "read_next", None) is not None:
                self._read_again()
                return None
        return self._judge(snapshot, resolved)

    def _merged(self, snapshot: Snapshot) -> Snapshot | None:
        """The camera's board with what the slide switches tell (Stay Alive); None while they cannot tell."""
        merge = registry.get(self.game).with_switches
        if merge is None:
            return snapshot
        positions = _all_known(self.positions)
        return None if positions is None else merge(snapshot, positions)

    def _resolved(self, sight: Sight) -> Snapshot | None:
        """A reading unsure of a few places, completed by the rules when exactly one legal board (or
        the last legal board) fits it (`Referee.resolve`); None otherwise. Worked out once per reading."""
        if not self.settings.resolve_doubt or sight.cells is None or not sight.candidates:
            return None
        referee = self.session.referee
        key = (id(sight), id(referee), len(referee.history), self.positions)
        if self._resolution is not None and self._resolution[0] == key:
            return self._resolution[1]
        partial = self._merged(Snapshot(self.game, sight.cells, sight.lines or {}))
        result = referee.resolve(partial, sight.candidates) if partial is not None else None
        self._resolution = (key, result)
        return result

    def _outlook(self, snapshot: Snapshot) -> Outlook:
        """What the referee would say of `snapshot` now (worked out once per board)."""
        referee = self.session.referee
        key = (snapshot, id(referee), len(referee.history))  # a command may have moved the game on
        if self._preview is None or self._preview[0] != key:
            self._preview = (key, referee.preview(snapshot))
        return self._preview[1]

    def _judge(self, snapshot: Snapshot, resolved: tuple[tuple[int, int], ...] = ()) -> Verdict:
        self._preview = None
        verdict = self.session.observe(snapshot, picture=self._board_picture(), resolved=resolved)
        self.verdicts.append(verdict)
        self.amber_blinking = False
        if verdict.verdict in (VerdictKind.SETUP_OK, VerdictKind.LEGAL):
            confirm = getattr(self.sensor, "confirm", None)
            if confirm is not None:
                confirm(snapshot)
        # Why the camera left something of this board unread (a glyph under a coloured lamp), said
        # with the verdict that says it was (the reader's remark on a board it read).
        remark = self.reading.problem if self.reading is not None and self.reading.snapshot is not None else None
        self._verdict_given(verdict, snapshot, remark=remark)
        return verdict

    def _board_picture(self) -> bytes | None:
        """The JPEG of the board judged now, as the camera saw it (None: not kept, or no camera)."""
        settings = self.pictures
        picture = getattr(self.sensor, "picture", None)
        if not settings.keep or picture is None:
            return None
        try:
            data = encode(picture(settings.pixels_per_place), settings.quality)
        except Exception:  # the picture is evidence, not judging: a failure never stops a verdict
            self.log.exception("the picture behind a verdict could not be made")
            return None
        if data is not None:
            self._pictures_kept += 1
            if self._pictures_kept % PRUNE_EVERY == 0:
                self.session.journal.prune_pictures(settings.max_age, settings.max_bytes)
        return data

    def _give(
        self,
        verdict: Verdict,
        snapshot: Snapshot | None,
        produced: list[Verdict] | None,
        session: GameSession | None = None,
    ) -> None:
        """A verdict reached outside the camera's judging (an action, a computer's move, a command):
        kept with the loop's verdicts, handed to the caller collecting this tick's, and told."""
        self.verdicts.append(verdict)
        if produced is not None:
            produced.append(verdict)
        self._verdict_given(verdict, snapshot, session)

    def _verdict_given(
        self, verdict: Verdict, snapshot: Snapshot | None, session: GameSession | None = None, remark: Any = None
    ) -> None:
        session = session or self.session
        referee = session.referee
        line = words.with_resolved(
            verdict_line(verdict, referee.engine, referee.to_move()),
            session.resolved.get(verdict.index, ()) if verdict.index is not None else (),
            referee.engine,
        )
        self._emit(
            VerdictGiven,
            verdict=verdict,
            game_id=session.game_id,
            seq=session.last_seq,
            snapshot=snapshot,
            line=words.with_reading_remark(line, verdict.events, referee.engine, remark),
        )
        if verdict.verdict in (VerdictKind.SETUP_OK, VerdictKind.LEGAL, VerdictKind.ACTION) and referee.over:
            result = referee.result()
            self._emit(GameOver, result=result, line=words.result_line(result))

    # --- the computer's seats ----------------------------------------------------------------------
    def _computer_turn(self, produced: list[Verdict]) -> None:
        """When a computer seat is to move and its move is not chosen yet, choose it (off this thread
        when `think_in_background`); once chosen, journal it and show it: a person makes it on the
        board and the referee checks the board shows exactly it. At the end, a computer's secret
        colour is revealed as a person would reveal theirs."""
        session = self.session
        seats = session.computer
        if not seats:
            return
        if self.think_in_background and self._warmed != session.game_id:
            self._warmed = session.game_id
            if not session.referee.started:  # the board is being set up: the computer gets ready meanwhile
                self._thinker_pool().submit(warm, session.referee.engine, dict(seats), session.seed)
        if self._thinking is None:
            self._start_thinking(session, seats)
        if self._thinking is None or not self._thinking[2].done():
            return
        game_id, index, future = self._thinking
        self._thinking = None
        if game_id != session.game_id or index != session.next_index or self.paused is not None:
            return  # the board or the game changed while it thought: it thinks again from the new state
        try:
            thought = future.result()
        except Exception:  # a bug in a search must not stop the referee
            self.log.exception("the computer could not choose a move")
            return
        if thought is None:
            return
        try:
            verdict = session.act(COMPUTER_MOVE, thought.move)
        except ActionNotAllowed as exc:
            self.log.warning("the computer's move %s was refused: %s", thought.move, exc)
            return
        self._give(verdict, None, produced)
        self._emit(StateShown)

    def _start_thinking(self, session: GameSession, seats: dict[int, str]) -> None:
        referee = session.referee
        if not referee.started or self.paused is not None:
            return
        if referee.over:
            self._reveal_computer_secrets(session, seats)
            return
        seat = referee.to_move()
        if seat not in seats or referee.awaited is not None or referee.in_illegal or referee.in_pending:
            return
        missing = rack_missing(referee.engine, referee.state, seat, referee.racks)
        if missing:  # its rack is not all drawn yet: a person draws the tiles and taps them on the page
            if self._tiles_asked != (session.game_id, session.next_index):
                self._tiles_asked = (session.game_id, session.next_index)
                self._say(words.computer_waits_for_tiles(referee.engine.seat_name(seat), sum(missing.values())))
            return
        engine, state, level, seed = referee.engine, referee.state, seats[seat], session.seed
        racks = dict(referee.racks)
        if self.think_in_background:
            future = self._thinker_pool().submit(think, engine, state, level, seed, racks=racks)
        else:
            future = Future()
            try:
                future.set_result(think(engine, state, level, seed, racks=racks))
            except Exception as exc:
                future.set_exception(exc)
        self._thinking = (session.game_id, session.next_index, future)

    def _thinker_pool(self) -> ThreadPoolExecutor:
        """The computer's one thread: its preparation, then its moves, in turn."""
        if self._thinker is None:
            self._thinker = ThreadPoolExecutor(1, thread_name_prefix="computer")
        return self._thinker

    def _hint(self, args: dict[str, Any], produced: list[Verdict] | None) -> dict[str, Any]:
        """The coach's hint, chosen off this thread (`controller.ai.table.think`) for the position at
        verdict `index`: journalled as a hint (a club can tell a helped game) and shown."""
        session = self.session
        if not session.coach:
            raise RefereeError(str(words.NO_COACH))
        if args.get("index") != session.next_index or args.get("game_id") != session.game_id:
            raise RefereeError(str(words.HINT_TOO_LATE))
        try:
            verdict = session.act(HINT, str(args.get("move") or ""), tiles=str(args.get("tiles") or "") or None)
        except ActionNotAllowed as exc:
            raise RefereeError(str(exc)) from None
        self._give(verdict, None, produced)
        why = args.get("why") or ""
        if why:
            self._say(why)
        self._emit(StateShown)
        # the move's words and why as `Text`s: the page's answer says them in its own language
        move_words = words.hint_move_words(session.referee.engine, verdict.move, verdict.tiles)
        return {"ok": True, "verdict": verdict.to_json(), "move": verdict.move, "words": move_words, "why": why}

    def _rack(self, args: dict[str, Any], produced: list[Verdict] | None) -> dict[str, Any]:
        """The tiles a person drew for a computer seat's rack and tapped on the page (`tiles`, one
        colour's whole rack, `B3 BA Ba`): checked, journalled (`computer-rack`); the computer then
        chooses its move from exactly those tiles."""
        session = self.session
        referee = session.referee
        tiles = args.get("tiles")
        if not isinstance(tiles, str):
            raise RefereeError(_("the rack's tiles are missing: tap the tiles drawn for the computer"))
        colour = tiles.strip()[:1]
        seat = next((s for s in range(referee.engine.setup.players) if colour in referee.engine.rack_colours(s)), None)
        if seat is not None and seat not in session.computer:
            raise RefereeError(
                _(
                    "the {colour} tiles belong to {player}, a person: the referee is told only the computer's racks",
                    colour=referee.engine.colour(colour, 2),
                    player=referee.engine.seat_name(seat),
                )
            )
        verdict = session.act(COMPUTER_RACK, tiles=tiles)  # ActionNotAllowed says why a tile cannot be there
        self._give(verdict, None, produced)
        self._emit(StateShown)
        return {"ok": True, "verdict": verdict.to_json()}

    def _reveal_computer_secrets(self, session: GameSession, seats: dict[int, str]) -> None:
        """A finished game's computer seats show their secret (Colorpop's colour), once."""
        referee = session.referee
        knowledge = knowledge_for(self.game)
        for seat in seats:
            if (session.game_id, seat) in self._revealed:
                continue
            colours = knowledge.table_reveal(referee.engine, referee.state, seat, session.seed)
            if not colours:
                continue
            self._revealed.add((session.game_id, seat))  # tried once: a refusal is said once, not every frame
            try:
                result = session.reveal(seat, tuple(colours))
            except RefereeError as exc:
                self._say(f"the computer's secret colour could not be revealed: {exc}", logging.WARNING)
                continue
            self._say(
                str(
                    words.computer_revealed(referee.engine.seat_name(seat), [referee.engine.colour(c) for c in colours])
                )
            )
            self._emit(Revealed, seat=seat, colours=tuple(colours), result=result)

    def _say(self, text: str, level: int = logging.INFO) -> None:
        self._emit(Said, text=text, level=level)

    # --- commands ------------------------------------------------------------------------------
    def _run_commands(self, produced: list[Verdict]) -> None:
        while True:
            try:
                command = self.commands.get_nowait()
            except queue.Empty:
                return
            if command.future.set_running_or_notify_cancel():
                try:
                    command.future.set_result(self.execute(command.name, command.args, produced))
                except RefereeError as exc:
                    command.future.set_exception(exc)
                except Exception as exc:  # a bug must not stop the referee: report it to the caller
                    self.log.exception("command %s failed", command.name)
                    command.future.set_exception(exc)

    def execute(self, name: str, args: dict[str, Any], produced: list[Verdict] | None = None) -> dict[str, Any]:
        """Run one command now (on the loop's thread) and return its answer."""
        if name == "status":
            return self.status()
        if name == "new-game":
            old = self.session
            # The web page may start it with other game keys (checked there; the same game).
            self.session = old.new_game(args.get("keys"), args.get("setup"))
            for notice in self.notices:  # a new game: the old journal notices have been seen
                self.notices[notice] = self.clock()
            verdict = self._last_action(old)
            self._give(verdict, None, produced, old)
            # The board in front of the camera (the last reading) is judged again, as the new
            # game's setup, once it has been still for the settle time.
            self.last_motion = self.clock()
            self.unreadable_said = None
            self._emit(
                GameOpened,
                how=_(
                    "new game {game}: set up the board (game {old} is in the journal)",
                    game=str(self.session.game_id),
                    old=str(old.game_id),
                ),
            )
            return {"ok": True, "game_id": self.session.game_id, "message": _("new game: set up the board")}
        if name == "end":
            try:
                verdict = self.session.act("end-by-agreement")
            except ActionNotAllowed as exc:
                message = _("the game cannot be ended by agreement: {why}", why=exc.args[0] if exc.args else "")
                self._say(message)
                raise RefereeError(message) from None
            self._give(verdict, None, produced)
            self._emit(StateShown)
            return {"ok": True, "verdict": verdict.to_json(), "result": self.session.referee.result().to_json()}
        if name == "accept":
            return self._accept(produced)
        if name == "pause":
            self.paused = args.get("reason") or _("paused")
            self._say(_("judging paused: {why}", why=self.paused))
            self._emit(StateShown)
            return {"ok": True, "message": _("judging paused: {why}", why=self.paused)}
        if name == "resume":
            if self.paused is not None:
                self.paused = None
                self.last_motion = self.clock()  # the board is looked at afresh once it is still
                self._say(_("judging resumed"))
                self._emit(StateShown)
            return {"ok": True, "message": _("judging resumed")}
        if name == "hint":
            return self._hint(args, produced)
        if name == "rack":
            return self._rack(args, produced)
        if name == "reveal":
            seat = args.get("seat")
            colours = args.get("colours")
            if not isinstance(seat, int) or not isinstance(colours, list) or not colours:
                raise RefereeError(_("reveal needs a seat number and at least one colour letter"))
            result = self.session.reveal(seat, tuple(str(c) for c in colours))
            self._say(
                _(
                    "{player} revealed {colours}",
                    player=self.session.referee.engine.seat_name(seat),
                    colours=" ".join(str(c) for c in colours),
                )
            )
            self._emit(Revealed, seat=seat, colours=tuple(str(c) for c in colours), result=result)
            return {"ok": True, "result": result.to_json()}
        raise RefereeError(
            _(
                "unknown command {name}; the commands are status, new-game, reveal, end, accept, hint, rack",
                name=repr(name),
            )
        )

    def _accept(self, produced: list[Verdict] | None) -> dict[str, Any]:
        """ "This board is right, go on from it": the board the camera sees now (or, while a hand is
        over it, the last board judged) becomes the referee's, whatever the referee thought of it."""
        snapshot = None
        sight = self.reading
        if sight is not None and sight.snapshot is not None and self._settled(self.clock()):
            snapshot = sight.snapshot
            merge = registry.get(self.game).with_switches
            if merge is not None:
                positions = _all_known(self.positions)
                snapshot = None if positions is None else merge(snapshot, positions)
        if snapshot is None:
            snapshot = self.session.last_snapshot
        if snapshot is None:
            raise RefereeError(words.ACCEPT_NOTHING_SEEN)
        referee = self.session.referee
        if self.session.next_index == 0:  # this game's board not judged yet: judge it first (a record starts so)
            first = self._judge(snapshot)
            if produced is not None:
                produced.append(first)
            if referee.started:
                return {"ok": True, "verdict": first.to_json(), "message": words.ACCEPTED}
        expected = referee.expected()
        if (
            referee.started
            and not referee.in_illegal
            and not referee.in_pending
            and expected is not None
            and tells_nothing_new(snapshot, expected)
        ):
            raise RefereeError(words.ACCEPT_NOTHING_TO_DO)
        try:
            verdict = self.session.accept(snapshot)
        except ActionNotAllowed as exc:
            raise RefereeError(str(exc)) from None
        self._give(verdict, snapshot, produced)
        self._emit(StateShown)
        return {"ok": True, "verdict": verdict.to_json(), "message": words.ACCEPTED}

    def _last_action(self, old: GameSession) -> Verdict:
        """The `new-game` verdict just journalled in the old game."""
        return old.referee.history[-1]

    def status(self) -> dict[str, Any]:
        referee = self.session.referee
        last = self.verdicts[-1] if self.verdicts else None
        out: dict[str, Any] = {
            "ok": True,
            "game": self.game,
            "game_id": self.session.game_id,
            "started": referee.started,
            "over": referee.over,
            "to_move": referee.to_move(),
            "verdicts": self.session.next_index,
            "illegal": referee.in_illegal,
            "pending": referee.in_pending,
            "faults": list(self.faults),
            "unreadable": self.unreadable_said,
            "fresh": self.fresh,
            "paused": self.paused,
        }
        stored = self.session.verdicts
        if stored:
            out["last_verdict"] = stored[-1]
        elif last is not None:
            out["last_verdict"] = last.to_json()
        if referee.started:
            out["result"] = referee.result().to_json()
            out["result_line"] = words.result_line(referee.result())
        engine = referee.engine
        to_move = referee.to_move()
        if to_move is not None:
            out["to_move_name"] = engine.seat_name(to_move)
        if last is not None:
            out["last_line"] = verdict_line(last, engine, referee.to_move())
        out.update(self._computer_status())
        return out

    def _computer_status(self) -> dict[str, Any]:
        """What the computer's seat to move is at, for `referee status`: the move it chose that a
        person is to make on the board, or the tiles it waits for (Blockers!), or that it is choosing
        (`computer` as data, `computer_line` in words); nothing when no computer seat is to move."""
        session = self.session
        referee = session.referee
        seat = referee.to_move()
        if not referee.started or referee.over or seat not in session.computer:
            return {}
        engine = referee.engine
        player = engine.seat_name(seat)
        data: dict[str, Any] = {"seat": seat, "level": session.computer[seat], "move": None, "tiles_missing": 0}
        awaited = referee.awaited
        if awaited is not None:
            data["move"] = awaited.move
            line = words.computer_awaits(player, engine.move_words(awaited.move))
        else:
            missing = sum(rack_missing(engine, referee.state, seat, referee.racks).values())
            data["tiles_missing"] = missing
            if missing:
                line = words.computer_waits_for_tiles(player, missing)
            elif self.paused is None and not referee.in_illegal and not referee.in_pending:
                line = words.computer_choosing(player)
            else:  # it chooses once the board is back and judging goes on (said above)
                return {"computer": data}
        return {"computer": data, "computer_line": line}


class Ticking(Protocol):
    """What `run_realtime` drives: one step per tick (a `RefereeLoop`, or a bench's timed wrapper)."""

    def tick(self) -> object: ...


def run_realtime(loop: Ticking, fps: float, stop: threading.Event, on_tick: Callable[[], None] | None = None) -> None:
    """Tick at `fps` from the wall clock until `stop` is set (frame sources that block pace it too)."""
    period = 1.0 / fps
    next_at = time.monotonic()
    while not stop.is_set():
        loop.tick()
        if on_tick is not None:
            on_tick()
        next_at += period
        delay = next_at - time.monotonic()
        if delay > 0:
            stop.wait(delay)
        else:
            next_at = time.monotonic()  # fell behind (slow reading): do not try to catch up
