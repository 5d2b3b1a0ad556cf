"""The Pi side of the slide-switch link: a pyserial port read by a daemon thread.

`PicoLink` opens the port, tells the microcontroller its debounce and heartbeat settings, asks
for the current state, and then hands every checked STATE to a callback. It keeps its own
watch on the link:

* a STATE must arrive at least every `heartbeat_timeout` seconds, otherwise the link counts as
  lost (the callback `on_link(False)` fires) and the Pi keeps asking with GET_STATE;
* when the port fails (the Pico was unplugged) it is closed and reopened every
  `reconnect_interval` seconds until the device is back; no state is invented meanwhile;
* duplicated and late frames are dropped (`SequenceTracker`), so positions never roll back; when
  the link is lost the tracker starts afresh, which is how a Pico that restarted is taken back;
* a STATE reporting other settings than the Pi's (a Pico that restarted keeps its defaults) is
  answered with the CONFIG again;
* sequence-number gaps, bad CRCs, impossible headers, nonsense payloads and stale frames are
  counted in `stats()`, and `trouble()` names the link's current problem in a player's words.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace

import serial

from firmware_bridge.protocol import (
    FROM_PICO,
    SETTINGS_RANGES,
    Frame,
    FrameParser,
    MsgType,
    ProtocolError,
    SequenceTracker,
    StatePayload,
    decode_state,
    encode_config,
    encode_frame,
    settings_in_range,
)

log = logging.getLogger(__name__)

StateCallback = Callable[[int, StatePayload, float], None]
LinkCallback = Callable[[bool], None]

# What `trouble()` says, in words for the players at the table.
UNPLUGGED = "the switch board is not connected: check its USB cable"
SILENT = "the switch board has stopped answering: unplug its USB cable and plug it back in"
GARBLED = "the switch board's messages arrive garbled: check its USB cable and keep it away from power leads"
OUT_OF_ORDER = "the switch board's messages arrive out of order: its slides are being read again"
RESTARTED = "the switch board restarted by itself; its slides were read again"
SOME_GARBLED = "some messages from the switch board arrived garbled and were ignored: check its USB cable"
SOME_OLD = "old messages from the switch board arrived again and were ignored"
#: Seconds a trouble the link got over is still named.
TROUBLE_MEMORY = 10.0


@dataclass(frozen=True)
class LinkStats:
    """A snapshot of the link's health counters."""

    connected: bool = False  # the serial port is open
    alive: bool = False  # a STATE arrived within the heartbeat timeout
    connects: int = 0  # successful opens of the port (1 + reconnects)
    frames: int = 0
    states: int = 0
    crc_errors: int = 0
    length_errors: int = 0  # headers with a type or length the Pico never sends
    payload_errors: int = 0  # CRC right, content impossible (values out of range, unknown PONG)
    discarded_bytes: int = 0
    missed_frames: int = 0  # sequence numbers skipped and never heard (a late arrival is not missed)
    stale_frames: int = 0  # duplicates and late copies, dropped
    restarts: int = 0  # the Pico was found to have restarted (its uptime went back)
    last_pong_rtt: float | None = None  # seconds, from the last PING answered


class PicoLink:
    """Reads frames from the microcontroller and keeps the link up by itself."""

    def __init__(
        self,
        port: str,
        baudrate: int = 115200,
        *,
        heartbeat_timeout: float = 2.5,
        debounce_ms: int = 30,
        heartbeat_ms: int = 1000,
        on_state: StateCallback | None = None,
        on_link: LinkCallback | None = None,
        reconnect_interval: float = 0.25,
        read_timeout: float = 0.05,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if not settings_in_range(debounce_ms, heartbeat_ms):
            raise ValueError(f"debounce {debounce_ms} ms, heartbeat {heartbeat_ms} ms: outside {SETTINGS_RANGES}")
        self.port = port
        self.baudrate = baudrate
        self.heartbeat_timeout = heartbeat_timeout
        self.debounce_ms = debounce_ms
        self.heartbeat_ms = heartbeat_ms
        self._on_state = on_state
        self._on_link = on_link
        self._reconnect_interval = reconnect_interval
        self._read_timeout = read_timeout
        self._clock = clock
        self._serial: serial.Serial | None = None
        self._parser = FrameParser(shapes=FROM_PICO)
        self._sequence = SequenceTracker()
        self._stats = LinkStats()
        self._write_lock = threading.Lock()
        self._stats_lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._tx_seq = 0
        self._last_state_at: float | None = None
        self._last_poke_at = 0.0
        self._ping_sent: dict[bytes, float] = {}
        self._pongs_heard: list[bytes] = []  # recent tokens, so a repeated PONG is not garbage
        self._ping_count = 0
        self._outage_logged = False
        self._config_sent_at: float | None = None
        # For `trouble()`: what arrived since the last fresh STATE, and when troubles last happened.
        self._bytes_since_state = 0
        self._garbage_since_state = 0
        self._stale_since_state = 0
        self._garbage_at: float | None = None
        self._stale_at: float | None = None
        self._restart_at: float | None = None
        self._connects_at_reset = 0  # a restart found without a reconnect in between is named

    # --- lifecycle ----------------------------------------------------------------------------
    def start(self) -> None:
        if self._thread is not None:
            return
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name=f"pico-link {self.port}", daemon=True)
        self._thread.start()

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2.0)
            self._thread = None
        self._close_port()

    def stats(self) -> LinkStats:
        with self._stats_lock:
            parser = self._parser.stats
            return replace(
                self._stats,
                crc_errors=parser.crc_errors,
                length_errors=parser.length_errors,
                discarded_bytes=parser.discarded_bytes,
                frames=parser.frames,
                missed_frames=self._sequence.missed,
                stale_frames=self._sequence.stale,
                restarts=self._sequence.restarts,
            )

    def trouble(self) -> str | None:
        """The link's problem now or in the last `TROUBLE_MEMORY` seconds, in a player's words; None if none."""
        now = self._clock()
        with self._stats_lock:
            stats = self._stats
            if not stats.connected:
                return UNPLUGGED
            if not stats.alive:
                if self._garbage_since_state:
                    return GARBLED
                if self._stale_since_state:
                    return OUT_OF_ORDER
                return GARBLED if self._bytes_since_state else SILENT
            for happened_at, message in (
                (self._restart_at, RESTARTED),
                (self._garbage_at, SOME_GARBLED),
                (self._stale_at, SOME_OLD),
            ):
                if happened_at is not None and now - happened_at <= TROUBLE_MEMORY:
                    return message
            return None

    # --- requests to the microcontroller ------------------------------------------------------
    def request_state(self) -> bool:
        """Ask for a STATE now; False when the port is not open."""
        return self._send(MsgType.GET_STATE, b"")

    def ping(self) -> bool:
        """Send a PING; its round trip shows up as `stats().last_pong_rtt`."""
        # A counter and a letter: short runs of equal bytes only, so a PING can never look like
        # the Pico's "eight Ctrl-C bytes" escape.
        self._ping_count = (self._ping_count + 1) & 0xFFFF
        token = self._ping_count.to_bytes(2, "big") + b"P"
        if len(self._ping_sent) > 16:  # unanswered pings from a dead link
            self._ping_sent.clear()
        self._ping_sent[token] = self._clock()
        return self._send(MsgType.PING, token)

    def _send_config(self) -> bool:
        self._config_sent_at = self._clock()
        return self._send(MsgType.CONFIG, encode_config(self.debounce_ms, self.heartbeat_ms))

    def _send(self, msg_type: int, payload: bytes) -> bool:
        with self._write_lock:
            port = self._serial
            if port is None:
                return False
            try:
                port.write(encode_frame(msg_type, self._tx_seq, payload))
            except (serial.SerialException, OSError):
                return False  # the reader thread notices the broken port and reconnects
            self._tx_seq = (self._tx_seq + 1) & 0xFF
            return True

    # --- the reader thread --------------------------------------------------------------------
    def _run(self) -> None:
        while not self._stop.is_set():
            if self._serial is None and not self._open_port():
                self._watch_heartbeat()
                self._stop.wait(self._reconnect_interval)
                continue
            try:
                port = self._serial
                assert port is not None
                data = port.read(port.in_waiting or 1)
            except (serial.SerialException, OSError, TypeError, AttributeError) as exc:
                # TypeError/AttributeError: pyserial after its fd was closed under it.
                log.warning("slide switches: lost %s (%s); will reconnect", self.port, exc)
                self._close_port()
                continue
            if data:
                self._handle_bytes(data)
            self._watch_heartbeat()

    def _open_port(self) -> bool:
        try:
            port = serial.Serial(
                self.port,
                self.baudrate,
                timeout=self._read_timeout,
                write_timeout=0.5,
                exclusive=True,
            )
            port.reset_input_buffer()  # whatever queued up while nobody listened is stale
        except (serial.SerialException, OSError) as exc:
            if not self._outage_logged:
                log.warning("slide switches: cannot open %s (%s); retrying", self.port, exc)
                self._outage_logged = True
            return False
        self._outage_logged = False
        with self._stats_lock:
            self._parser.reset()
            self._sequence.reset()
            self._bytes_since_state = self._garbage_since_state = self._stale_since_state = 0
        with self._write_lock:
            self._serial = port
        with self._stats_lock:
            self._stats = replace(self._stats, connected=True, connects=self._stats.connects + 1)
        log.info("slide switches: connected on %s", self.port)
        self._send_config()
        self._send(MsgType.GET_STATE, b"")
        self._last_poke_at = self._clock()
        return True

    def _close_port(self) -> None:
        with self._write_lock:
            port, self._serial = self._serial, None
        if port is not None:
            with contextlib.suppress(serial.SerialException, OSError):
                port.close()
        self._last_state_at = None
        with self._stats_lock:
            self._stats = replace(self._stats, connected=False)
        self._set_alive(False)

    def _handle_bytes(self, data: bytes) -> None:
        now = self._clock()
        with self._stats_lock:
            parser = self._parser.stats
            errors_before = parser.crc_errors + parser.length_errors
            frames = self._parser.feed(data)
            garbage = parser.crc_errors + parser.length_errors - errors_before
            self._bytes_since_state += len(data)
        if garbage:
            self._note_garbage(now, garbage)
        for frame in frames:
            if frame.type == MsgType.STATE:
                self._handle_state(frame, now)
            elif frame.type == MsgType.PONG:
                self._handle_pong(frame, now)

    def _handle_state(self, frame: Frame, now: float) -> None:
        try:
            state = decode_state(frame.payload)
        except ProtocolError as exc:
            log.warning("slide switches: ignoring a bad STATE (%s)", exc)
            with self._stats_lock:
                self._stats = replace(self._stats, payload_errors=self._stats.payload_errors + 1)
            self._note_garbage(now)
            return
        with self._stats_lock:
            restarts = self._sequence.restarts
            news = self._sequence.observe(frame.seq, state.uptime_ms)
            restarted = self._sequence.restarts > restarts
            if news:
                self._stats = replace(self._stats, states=self._stats.states + 1)
                self._bytes_since_state = self._garbage_since_state = self._stale_since_state = 0
            else:
                self._stale_since_state += 1
                if self._last_state_at is not None:
                    self._stale_at = now
        if not news:
            log.debug("slide switches: dropped an old or repeated STATE (seq %d)", frame.seq)
            return
        if restarted and self._stats.connects == self._connects_at_reset:
            log.warning("slide switches: the microcontroller restarted (its uptime went back)")
            self._restart_at = now
        self._last_state_at = now
        self._set_alive(True)
        wanted = (self.debounce_ms, self.heartbeat_ms)
        resend_due = self._config_sent_at is None or now - self._config_sent_at >= self.heartbeat_timeout
        if (state.debounce_ms, state.heartbeat_ms) != wanted and resend_due:
            log.info(
                "slide switches: the microcontroller runs with debounce %d ms and heartbeat %d ms; sending ours again",
                state.debounce_ms,
                state.heartbeat_ms,
            )
            self._send_config()
        if self._on_state is not None:
            self._on_state(frame.seq, state, now)

    def _handle_pong(self, frame: Frame, now: float) -> None:
        sent = self._ping_sent.pop(frame.payload, None)
        if sent is None and frame.payload not in self._pongs_heard:
            with self._stats_lock:
                self._stats = replace(self._stats, payload_errors=self._stats.payload_errors + 1)
            self._note_garbage(now)  # an answer to no PING: garbage with a lucky CRC
            return
        with self._stats_lock:
            self._sequence.observe(frame.seq)
            if sent is not None:
                self._stats = replace(self._stats, last_pong_rtt=now - sent)
        if sent is not None:
            self._pongs_heard = [*self._pongs_heard[-15:], frame.payload]

    def _note_garbage(self, now: float, count: int = 1) -> None:
        with self._stats_lock:
            self._garbage_since_state += count
            if self._last_state_at is not None:  # before the first STATE it is the tail of a frame cut by opening
                self._garbage_at = now

    def _watch_heartbeat(self) -> None:
        """Declare the link lost when the heartbeat stops, and keep asking for a state."""
        now = self._clock()
        silent = self._last_state_at is None or now - self._last_state_at > self.heartbeat_timeout
        if not silent:
            return
        self._set_alive(False)
        self._last_state_at = None
        if self._serial is not None and now - self._last_poke_at >= self.heartbeat_timeout:
            self._last_poke_at = now
            self.request_state()

    def _set_alive(self, alive: bool) -> None:
        with self._stats_lock:
            changed = self._stats.alive != alive
            if changed:
                self._stats = replace(self._stats, alive=alive)
            if changed and not alive:
                # Whatever comes next is a fresh start: a Pico that restarted counts from 0 again.
                self._sequence.reset()
                self._connects_at_reset = self._stats.connects
        if changed:
            log.info("slide switches: link %s", "up" if alive else "lost")
            if self._on_link is not None:
                self._on_link(alive)
