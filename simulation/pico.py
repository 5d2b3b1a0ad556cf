"""A simulated Pico: the real MicroPython program, run under CPython behind a pseudo-terminal.

`SimulatedPico` loads `firmware_bridge/pico/main.py` with stand-ins for the MicroPython modules it imports
(`machine`, `time`, `sys`, `select`, `micropython`) and runs its `main()` in a daemon thread. The
program's USB serial port is the master side of a pty; the slave side is reachable through a
symlink whose path (`port`) never changes, like `/dev/serial/by-id/...` for a real Pico. The Pi
side therefore opens `port` with pyserial exactly as it opens a real device.

The stand-in `machine.Pin` wires the program's row and column pins to a model of the 28
microswitches, so moving a slide (`set_slide`) changes what the program's matrix scan reads. Test
hooks mimic the real world's trouble: switch bounce, garbage on the line, lost bytes, and
unplugging (the program stops, the pty and the symlink vanish) and plugging back (a fresh boot),
and a restart with the cable in (a soft reset: the program boots again behind the same port).
"""

from __future__ import annotations

import builtins
import contextlib
import errno
import logging
import os
import random
import select as real_select
import shutil
import tempfile
import threading
import time
import tty
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

from firmware_bridge.protocol import POSITIONS, SLIDE_COUNT

log = logging.getLogger(__name__)

FIRMWARE_PATH = Path(__file__).resolve().parent.parent / "firmware_bridge" / "pico" / "main.py"
SWITCH_COUNT = 2 * SLIDE_COUNT

#: The only modules the program may import; anything else would not exist on a Pico.
MICROPYTHON_MODULES = ("machine", "time", "utime", "sys", "select", "uselect", "micropython")

_TICKS_PERIOD = 1 << 30  # MicroPython's ticks_ms wraps at 2**30 on the RP2040
_TICKS_HALF = _TICKS_PERIOD // 2


class PowerOff(BaseException):
    """Raised inside the program's thread when the simulated Pico loses power."""


def switch_indexes(slide: int) -> tuple[int, int]:
    """Matrix indexes (row * 7 + column) of a slide's A-switch and C-switch; see WIRING.md."""
    base = (slide // 7) * 14 + slide % 7
    return base, base + 7


def switches_for(position: str) -> tuple[bool, bool]:
    """(A-switch closed, C-switch closed) for a slide position."""
    return position == "A", position == "C"


class SwitchBoard:
    """The 28 microswitches; a switch inside its bounce window reads at random."""

    def __init__(self, seed: int = 0, clock: Callable[[], float] = time.monotonic) -> None:
        self._closed = [False] * SWITCH_COUNT  # all slides at B
        self._bounce_until = [0.0] * SWITCH_COUNT
        self._random = random.Random(seed)
        self._clock = clock
        self._lock = threading.Lock()

    def set_switch(self, index: int, closed: bool, bounce_ms: float = 0.0) -> None:
        with self._lock:
            if bounce_ms > 0 and self._closed[index] != closed:
                self._bounce_until[index] = self._clock() + bounce_ms / 1000.0
            self._closed[index] = closed

    def bounce(self, index: int, bounce_ms: float) -> None:
        """Make a switch chatter for a while without changing where it ends up."""
        with self._lock:
            self._bounce_until[index] = self._clock() + bounce_ms / 1000.0

    def is_closed(self, index: int) -> bool:
        with self._lock:
            if self._clock() < self._bounce_until[index]:
                return self._random.random() < 0.5
            return self._closed[index]

    def settled(self, index: int) -> bool:
        with self._lock:
            return self._closed[index]


def load_firmware(stand_ins: dict[str, Any], path: Path = FIRMWARE_PATH) -> dict[str, Any]:
    """Execute the program's source with `stand_ins` as its MicroPython modules.

    Imports of anything outside MICROPYTHON_MODULES fail, as they would on the Pico. The module
    is not run as `__main__`, so `main()` is left for the caller to start.
    """

    def _import(
        name: str,
        globals_: dict[str, Any] | None = None,
        locals_: dict[str, Any] | None = None,
        fromlist: tuple[str, ...] = (),
        level: int = 0,
    ) -> Any:
        if level == 0 and name in stand_ins:
            return stand_ins[name]
        raise ImportError(f"module {name!r} is not available in the simulated MicroPython")

    namespace: dict[str, Any] = {
        "__name__": "pico_main",
        "__file__": str(path),
        "__builtins__": {**vars(builtins), "__import__": _import},
    }
    exec(compile(path.read_text(encoding="utf-8"), str(path), "exec"), namespace)
    return namespace


def firmware_helpers(path: Path = FIRMWARE_PATH) -> dict[str, Any]:
    """The program's functions and classes (its parser, CRC, encoder), with inert stand-in modules:
    for tests that call them directly without a switch board or a serial port."""
    return load_firmware(
        {
            "machine": machine_module(SwitchBoard(), lambda: None),
            "time": micropython_time(lambda: 0.0, lambda: None),
            "sys": object(),
            "select": object(),
            "micropython": micropython_module(),
        },
        path,
    )


def micropython_time(clock: Callable[[], float], check: Callable[[], None]) -> types.ModuleType:
    """A stand-in `time` module with MicroPython's ticks functions on top of `clock`."""
    module = types.ModuleType("time")

    def ticks_ms() -> int:
        check()
        return int(clock() * 1000) % _TICKS_PERIOD

    def ticks_diff(later: int, earlier: int) -> int:
        return ((later - earlier + _TICKS_HALF) % _TICKS_PERIOD) - _TICKS_HALF

    def ticks_add(ticks: int, delta: int) -> int:
        return (ticks + delta) % _TICKS_PERIOD

    def sleep_ms(ms: float) -> None:
        check()
        time.sleep(ms / 1000.0)

    def sleep_us(us: float) -> None:
        check()  # microsecond settling delays are not worth a real sleep under CPython

    module.ticks_ms = ticks_ms  # type: ignore[attr-defined]
    module.ticks_diff = ticks_diff  # type: ignore[attr-defined]
    module.ticks_add = ticks_add  # type: ignore[attr-defined]
    module.sleep_ms = sleep_ms  # type: ignore[attr-defined]
    module.sleep_us = sleep_us  # type: ignore[attr-defined]
    module.sleep = lambda s: sleep_ms(s * 1000)  # type: ignore[attr-defined]
    return module


def micropython_module() -> types.ModuleType:
    module = types.ModuleType("micropython")
    module.const = lambda value: value  # type: ignore[attr-defined]
    module.kbd_intr = lambda char: None  # type: ignore[attr-defined]
    return module


def machine_module(board: SwitchBoard, check: Callable[[], None]) -> types.ModuleType:
    """A stand-in `machine` whose Pin objects behave like the diode matrix on `board`.

    Row pins are the program's outputs; a column pin reads 0 when some row pin is driven low
    and that row's switch in this column is closed (the diode passes), else 1 (the pull-up).
    The wiring is learned from the program's ROW_PINS / COL_PINS via `wire()`.
    """
    module = types.ModuleType("machine")
    pins: dict[int, Pin] = {}
    wiring: dict[str, tuple[int, ...]] = {"rows": (), "cols": ()}

    class Pin:
        IN = 0
        OUT = 1
        PULL_UP = 1
        PULL_DOWN = 2

        def __init__(self, pin_id: int, mode: int = -1, pull: int = -1, *, value: int | None = None):
            self.id = pin_id
            self.mode = mode
            self.pull = pull
            self.level = 1 if value is None else int(bool(value))
            pins[pin_id] = self

        def value(self, level: int | None = None) -> int | None:
            check()
            if level is not None:
                self.level = int(bool(level))
                return None
            if self.mode == Pin.OUT or self.id not in wiring["cols"]:
                return self.level
            column = wiring["cols"].index(self.id)
            for row, row_pin in enumerate(wiring["rows"]):
                driver = pins.get(row_pin)
                driven_low = driver is not None and driver.mode == Pin.OUT and driver.level == 0
                if driven_low and board.is_closed(row * len(wiring["cols"]) + column):
                    return 0
            return 1 if self.pull == Pin.PULL_UP else 0

    def wire(rows: tuple[int, ...], cols: tuple[int, ...]) -> None:
        wiring["rows"] = tuple(rows)
        wiring["cols"] = tuple(cols)

    module.Pin = Pin  # type: ignore[attr-defined]
    module.wire = wire  # type: ignore[attr-defined]
    return module


class _UsbSerial:
    """The program's view of USB serial: sys.stdin / sys.stdout with `.buffer`, and poll()."""

    def __init__(self, pico: SimulatedPico) -> None:
        self._pico = pico
        self.buffer = self

    def read(self, size: int = 1) -> bytes:
        return self._pico._device_read(size)

    def write(self, data: bytes) -> int:
        return self._pico._device_write(bytes(data))


class _Poller:
    def __init__(self, pico: SimulatedPico) -> None:
        self._pico = pico

    def register(self, stream: object, mask: int = 1) -> None:
        """The program registers stdin once; the stand-in always polls the pty."""

    def poll(self, timeout_ms: int = -1) -> list[tuple[object, int]]:
        return [(None, 1)] if self._pico._device_wait(timeout_ms) else []


class SimulatedPico:
    """The real firmware on a pseudo-terminal, with hooks for bounce, garbage, loss and unplug."""

    def __init__(
        self,
        port: str | os.PathLike[str] | None = None,
        *,
        seed: int = 0,
        firmware_path: Path = FIRMWARE_PATH,
    ) -> None:
        self._own_dir = None if port else tempfile.mkdtemp(prefix="referee-pico-")
        self.port = str(port) if port else os.path.join(self._own_dir or "", "ttyPICO0")
        self.board = SwitchBoard(seed)
        self.boots = 0
        self.crash: BaseException | None = None
        self._random = random.Random(seed + 1)
        self._firmware_path = firmware_path
        self._write_lock = threading.Lock()
        self._drop_next = 0
        self._powered = threading.Event()
        self._thread: threading.Thread | None = None
        self._master: int | None = None
        self._slave: int | None = None

    # --- power and cable ----------------------------------------------------------------------
    @property
    def plugged(self) -> bool:
        return self._master is not None

    def plug(self) -> None:
        """Connect and power up: a new pty behind `port`, and the program boots from scratch."""
        if self.plugged:
            return
        master, slave = os.openpty()
        tty.setraw(slave)  # no echo, no line editing, until the Pi side opens and sets it too
        os.set_blocking(master, False)
        self._master, self._slave = master, slave
        temporary = f"{self.port}.new"
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        os.symlink(os.ttyname(slave), temporary)
        os.replace(temporary, self.port)
        self._powered.set()
        self.boots += 1
        self._thread = threading.Thread(target=self._run, name="simulated-pico", daemon=True)
        self._thread.start()

    replug = plug

    def restart(self) -> None:
        """Reset the program with the cable in (MicroPython's soft reset keeps the USB port open):
        it boots again, counting uptime and sequence numbers from 0, with its default settings."""
        if not self.plugged:
            return
        self._powered.clear()
        if self._thread is not None:
            self._thread.join(timeout=2.0)
        self._powered.set()
        self.boots += 1
        self._thread = threading.Thread(target=self._run, name="simulated-pico", daemon=True)
        self._thread.start()

    def unplug(self) -> None:
        """Pull the cable: the program stops, the port disappears, the Pi's reads fail."""
        if not self.plugged:
            return
        self._powered.clear()
        if self._thread is not None:
            self._thread.join(timeout=2.0)
            self._thread = None
        with self._write_lock:
            for fd in (self._master, self._slave):
                if fd is not None:
                    os.close(fd)
            self._master = self._slave = None
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.port)

    def close(self) -> None:
        self.unplug()
        if self._own_dir:
            shutil.rmtree(self._own_dir, ignore_errors=True)

    def __enter__(self) -> SimulatedPico:
        self.plug()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- the player's hands -------------------------------------------------------------------
    def set_slide(self, index: int, position: str, bounce_ms: float = 0.0) -> None:
        """Move slide `index` (0-6 orange rows, 7-13 white columns) to 'A', 'B' or 'C'."""
        if not 0 <= index < SLIDE_COUNT:
            raise ValueError(f"slide index {index} is not 0-{SLIDE_COUNT - 1}")
        if position not in POSITIONS:
            raise ValueError(f"slide position {position!r} is not one of A, B, C")
        self.set_switches(index, *switches_for(position), bounce_ms=bounce_ms)

    def set_switches(self, index: int, a_closed: bool, c_closed: bool, bounce_ms: float = 0.0) -> None:
        """Set a slide's two switches directly; both closed makes the contradiction of a fault."""
        a_switch, c_switch = switch_indexes(index)
        self.board.set_switch(a_switch, a_closed, bounce_ms)
        self.board.set_switch(c_switch, c_closed, bounce_ms)

    def set_positions(self, positions: str) -> None:
        """Set all 14 slides at once from a string such as 'ABCABCABCABCAB'."""
        if len(positions) != SLIDE_COUNT:
            raise ValueError(f"need {SLIDE_COUNT} positions, got {len(positions)}")
        for index, position in enumerate(positions):
            self.set_slide(index, position)

    def positions(self) -> tuple[str | None, ...]:
        """Where the slides really are (None for a slide with both switches closed)."""
        result: list[str | None] = []
        for index in range(SLIDE_COUNT):
            a_switch, c_switch = switch_indexes(index)
            a_closed, c_closed = self.board.settled(a_switch), self.board.settled(c_switch)
            if a_closed and c_closed:
                result.append(None)
            else:
                result.append("A" if a_closed else "C" if c_closed else "B")
        return tuple(result)

    def bounce(self, index: int, bounce_ms: float) -> None:
        """Make both switches of a slide chatter for `bounce_ms` without moving it."""
        for switch in switch_indexes(index):
            self.board.bounce(switch, bounce_ms)

    # --- trouble on the line ------------------------------------------------------------------
    def inject_garbage(self, data: bytes | None = None, length: int = 16) -> bytes:
        """Put bytes on the line between two frames (random ones unless given)."""
        if data is None:
            data = bytes(self._random.randrange(256) for _ in range(length))
        with self._write_lock:
            self._raw_write(data)
        return data

    def drop_bytes(self, count: int) -> None:
        """Lose the next `count` bytes the program sends (a frame arrives cut short)."""
        with self._write_lock:
            self._drop_next += count

    # --- the program's side of the pty --------------------------------------------------------
    def _check_power(self) -> None:
        if not self._powered.is_set():
            raise PowerOff

    def _device_write(self, data: bytes) -> int:
        self._check_power()
        with self._write_lock:
            if self._drop_next:
                dropped = min(self._drop_next, len(data))
                self._drop_next -= dropped
                data = data[dropped:]
            self._raw_write(data)
        return len(data)

    def _raw_write(self, data: bytes) -> None:
        """Write to the pty master; bytes nobody reads are lost, as on a real USB port."""
        if self._master is None:
            return
        view = memoryview(data)
        while view:
            try:
                written = os.write(self._master, view)
            except BlockingIOError:
                return
            except OSError as exc:
                if exc.errno == errno.EIO:
                    return
                raise
            view = view[written:]

    def _device_wait(self, timeout_ms: int) -> bool:
        self._check_power()
        master = self._master
        if master is None:
            raise PowerOff
        timeout = None if timeout_ms < 0 else timeout_ms / 1000.0
        readable, _, _ = real_select.select([master], [], [], timeout)
        self._check_power()
        return bool(readable)

    def _device_read(self, size: int) -> bytes:
        self._check_power()
        try:
            return os.read(self._master, size) if self._master is not None else b""
        except (BlockingIOError, OSError):
            return b""

    def _stand_ins(self) -> dict[str, Any]:
        usb = _UsbSerial(self)
        sys_module = types.ModuleType("sys")
        sys_module.stdin = usb  # type: ignore[attr-defined]
        sys_module.stdout = usb  # type: ignore[attr-defined]
        select_module = types.ModuleType("select")
        select_module.POLLIN = 1  # type: ignore[attr-defined]
        select_module.poll = lambda: _Poller(self)  # type: ignore[attr-defined]
        time_module = micropython_time(time.monotonic, self._check_power)
        return {
            "machine": machine_module(self.board, self._check_power),
            "time": time_module,
            "utime": time_module,
            "sys": sys_module,
            "select": select_module,
            "uselect": select_module,
            "micropython": micropython_module(),
        }

    def _run(self) -> None:
        try:
            stand_ins = self._stand_ins()
            program = load_firmware(stand_ins, self._firmware_path)
            stand_ins["machine"].wire(program["ROW_PINS"], program["COL_PINS"])
            program["main"]()
        except PowerOff:  # unplugged: the program stops as a real Pico loses power
            pass
        except Exception as exc:  # the program crashed: keep it for the tests to see
            self.crash = exc
            log.exception("simulated Pico program crashed")
