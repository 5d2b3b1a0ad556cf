"""Stopping a long-running command (`run`, `club`) on Ctrl-C or SIGTERM, safely.

A Python signal handler runs in the main thread between two bytecodes, possibly while that very
thread is inside `threading.Event.wait()` holding the event's (non-reentrant) lock: a handler
that calls `Event.set()` then waits for a lock its own thread holds, and the service hangs for
ever (seen once in about 40 stops). So the handler here only notes which signal came (one
attribute assignment, no lock), and the signal's number also reaches a pipe through
`signal.set_wakeup_fd` (written by the interpreter's C-level handler, async-signal-safe), which a
small thread reads to set the event from outside the main thread.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from types import FrameType

#: The exit code after Ctrl-C, as shells give it (128 + SIGINT); SIGTERM (systemd's stop) is 0.
INTERRUPTED = 130


class StopOnSignals:
    """Within `with StopOnSignals(stop) as signals:`, SIGINT and SIGTERM set `stop`.

    `signals.exit_code` is 130 after Ctrl-C (SIGINT) and 0 otherwise, as the README promises.
    Outside the main thread (a test running a command in a thread) nothing is installed: only the
    main thread receives signals.
    """

    SIGNALS = (signal.SIGINT, signal.SIGTERM)

    def __init__(self, stop: threading.Event) -> None:
        self.stop = stop
        #: The first stop signal received (None: none yet).
        self.received: int | None = None
        self._old_handlers: dict[int, object] = {}
        self._old_fd: int | None = None
        self._pipe: tuple[int, int] | None = None
        self._watcher: threading.Thread | None = None

    @property
    def exit_code(self) -> int:
        return INTERRUPTED if self.received == signal.SIGINT else 0

    def _note(self, signum: int, frame: FrameType | None) -> None:
        """The Python-level handler: no lock taken here (see the module's docstring)."""
        if self.received is None:
            self.received = signum

    def _watch(self, read_fd: int) -> None:
        while True:
            try:
                data = os.read(read_fd, 64)
            except InterruptedError:
                continue
            except OSError:
                return
            if not data:  # the write end was closed: the `with` block is over
                return
            if any(byte in self.SIGNALS for byte in data):
                if self.received is None:  # the Python handler may not have run yet
                    self.received = next(b for b in data if b in self.SIGNALS)
                self.stop.set()

    def __enter__(self) -> StopOnSignals:
        if threading.current_thread() is not threading.main_thread():
            return self
        read_fd, write_fd = os.pipe()
        os.set_blocking(write_fd, False)  # the C handler must never block on a full pipe
        self._pipe = (read_fd, write_fd)
        self._watcher = threading.Thread(target=self._watch, args=(read_fd,), name="stop-signals", daemon=True)
        self._watcher.start()
        self._old_fd = signal.set_wakeup_fd(write_fd, warn_on_full_buffer=False)
        for sig in self.SIGNALS:
            self._old_handlers[sig] = signal.signal(sig, self._note)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._pipe is None:
            return
        for sig, handler in self._old_handlers.items():
            with contextlib.suppress(TypeError, ValueError):
                signal.signal(sig, handler)  # type: ignore[arg-type]
        signal.set_wakeup_fd(self._old_fd if self._old_fd is not None else -1)
        read_fd, write_fd = self._pipe
        os.close(write_fd)
        if self._watcher is not None:
            self._watcher.join(1.0)
        os.close(read_fd)
        self._pipe = None
