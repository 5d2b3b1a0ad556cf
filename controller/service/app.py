"""The referee's core from `config.yaml`: journal, devices, loop, lights, button and control socket.

`Service` is what `referee run` starts (through the composition root, `controller.assembly`, which
adds the live page and the club's publisher as listeners of its events) and what `referee demo`
and the tests build too, so the demo exercises the very code that runs on the Pi; only the frame
source's world, the clock and the switch simulator differ. Nothing here knows the page or the club.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from controller.exclusive import lock_journal
from controller.games import registry
from controller.hardware.button import Button
from controller.hardware.feedback import Feedback
from controller.language import _
from controller.service.camera_watch import CameraWatch
from controller.service.config import ServiceConfig
from controller.service.control import ControlServer
from controller.service.devices import Devices, RealDevices
from controller.service.loop import CameraSensor, RefereeLoop, Settings, run_realtime
from controller.service.notify import Notifier
from controller.service.session import open_journal
from controller.vision.gating import MotionGate
from controller.vision.reader import BoardReader

#: Frames of stillness the motion gate wants before the reader looks: one, so a picture is read
#: when it is the same as the one before (two identical pictures, the least that tells a hand has
#: gone); the loop's settle time and patience do the rest, counted from the last frame that moved.
GATE_STILL_FRAMES = 1


class Service:
    """One referee: everything `referee run` needs, built from a checked config."""

    def __init__(
        self,
        config: ServiceConfig,
        *,
        devices: Devices | None = None,
        clock: Callable[[], float] = time.monotonic,
        on_line: Callable[[str], None] | None = None,
        light_listener: Callable[[str], None] | None = None,
        feedback_tempo: float = 1.0,
        control: bool = True,
        log: logging.Logger | None = None,
    ) -> None:
        self.config = config
        self.log = log or logging.getLogger("referee")
        self.closers: list[Callable[[], None]] = []
        try:
            # one referee per journal, before the journal is even opened (or moved aside); the camera
            # holds its own lock (controller/exclusive.py, opened by vision.sources)
            self.closers.append(lock_journal(config.journal).release)
            opened = open_journal(config.journal, config.game_keys, config.setup)
            self.journal = opened.journal
            self.closers.append(self.journal.close)
            if opened.moved_aside is not None:  # shown on the fault lights and logged once, by the loop
                self.journal.notices.append(opened.moved_aside)
            session, how = opened.session, opened.how
            devices = devices or RealDevices()
            self.switches = devices.open_switches(config)
            if self.switches is not None:
                self.closers.append(self.switches.close)
            source = devices.open_camera(config, session)
            self.closers.append(source.close)
            #: The simulated world, when the devices are simulated (None on real hardware).
            self.world: Any = devices.world
            self.source = source
            self.camera = CameraWatch(source, clock)
            self.sensor = CameraSensor(
                self.camera, BoardReader(config.setup.profile), MotionGate(settle=GATE_STILL_FRAMES)
            )
            self.feedback = Feedback.from_config(config.gpio, listener=light_listener, tempo=feedback_tempo)
            self.closers.append(self.feedback.close)
            if self.switches is not None:
                self.switches.start()
            self.loop = RefereeLoop(
                session,
                self.sensor,
                self.feedback,
                switches=self.switches,
                settings=Settings(
                    settle_time=config.settle_time,
                    frame_timeout=config.frame_timeout,
                    patience=config.patience,
                    physics_window=registry.get(config.setup.game).physics_window,
                    resolve_doubt=config.resolve_doubt,
                ),
                clock=clock,
                log=self.log,
                on_line=on_line,
                opened=_("{how} (journal {path})", how=how, path=str(config.journal)),
                camera=self.camera,
                language=config.language,
                think_in_background=True,
                pictures=config.pictures,
            )
            pictures = config.pictures
            self.journal.prune_pictures(pictures.max_age, pictures.max_bytes)
            self.closers.append(self.loop.bus.close)  # threaded listeners finish what they were given
            self.button = Button.from_config(
                config.gpio,
                on_press=lambda: self.loop.submit("new-game"),
                on_hold=lambda: self.loop.submit("end"),
            )
            self.closers.append(self.button.close)
            self.control: ControlServer | None = None
            if control:
                self.control = ControlServer(config.control_socket, self.submit)
                self.closers.append(self.control.close)
                self.control.start()
            #: The club's publisher and the live page, when the composition root (`controller.assembly`)
            #: adds them; their closing is among the service's.
            self.publisher: Any = None
            self.web: Any = None
            #: The table's voice (`controller.service.voice.Voice`), when config.yaml's `voice:` enables it.
            self.voice: Any = None
        except BaseException:
            self.close()
            raise

    def submit(self, name: str, **args: Any):
        return self.loop.submit(name, **args)

    def close(self) -> None:
        """Release every device (in reverse order of opening); safe to call twice."""
        while self.closers:
            closer = self.closers.pop()
            try:
                closer()
            except Exception:  # closing must go on for the other devices
                self.log.exception("while closing")

    def run(self, stop: threading.Event, notifier: Notifier | None = None) -> None:
        """Tick in real time until `stop`; tell systemd we are ready and alive while fresh."""
        notifier = notifier or Notifier()
        interval = notifier.watchdog_interval()
        last_ping = 0.0
        last_status = ""

        def on_tick() -> None:
            nonlocal last_ping, last_status
            loop = self.loop
            if self.world is not None:
                self.world.advance_frame()
            if loop.fresh:
                status = f"refereeing {loop.game}, game {loop.session.game_id}, {loop.session.next_index} verdicts"
                if loop.faults:  # the journal's faults and notices: refereeing goes on, but say so
                    status += "; " + "; ".join(loop.faults)
                if not notifier.ready_sent:
                    notifier.ready(status)
                now = time.monotonic()
                if interval is not None and now - last_ping >= interval:
                    notifier.watchdog()
                    last_ping = now
            else:
                status = "waiting: " + ("; ".join(loop.faults) or "no picture yet")
            if status != last_status and notifier.enabled:
                notifier.status(status)
                last_status = status

        try:
            run_realtime(self.loop, float(self.config.camera.get("fps", 30)), stop, on_tick)
        finally:
            notifier.stopping()


__all__ = ["Service"]
