"""Framing of the slide-switch link, shared by the Pi side and the tests.

The wire format is described in `PROTOCOL.md`. In short, every message is a frame::

    0xA5 0x5A | type | seq | length | payload (length bytes) | CRC-16 (big-endian)

with the CRC-16/CCITT-FALSE computed over ``type .. payload``. The microcontroller's program
(`pico/main.py`) cannot import this package, so it carries its own copy of `crc16` and of the
frame encoder; `tests/test_firmware_protocol.py` checks that both copies agree.

The parser never trusts a byte it has not checked: it looks for the start marker, gives up at
once on a header no sender would write (a type or length the direction does not carry), waits
for the whole frame, and on a bad CRC drops only the first marker byte and scans on, so a real
frame hidden behind garbage or a truncated frame is still found. A frame still waiting for bytes
is given up as soon as a whole good frame begins inside it, so a frame after a cut one is not
held back until more bytes come. `SequenceTracker` then decides which checked frames are news
(the stale and duplicate rule of PROTOCOL.md).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import IntEnum
from types import MappingProxyType

START = b"\xa5\x5a"
HEADER_LEN = 5  # start marker (2), type, seq, length
CRC_LEN = 2
MAX_PAYLOAD = 32
MAX_FRAME = HEADER_LEN + MAX_PAYLOAD + CRC_LEN

SLIDE_COUNT = 14
POSITIONS = ("A", "B", "C")
FAULT_CODE = "X"
STATE_PAYLOAD_LEN = 24
MAX_PING_TOKEN = 8
CONFIG_PAYLOAD_LEN = 3

# The settings the microcontroller accepts (and so reports in every STATE), in ms.
DEBOUNCE_RANGE_MS = (20, 50)
HEARTBEAT_RANGE_MS = (50, 5000)
SETTINGS_RANGES = "debounce {}-{} ms, heartbeat {}-{} ms".format(*DEBOUNCE_RANGE_MS, *HEARTBEAT_RANGE_MS)

SEQ_MODULUS = 1 << 8
UPTIME_MODULUS = 1 << 32  # the uptime wraps after 49.7 days


class MsgType(IntEnum):
    """Message types; the high bit marks messages from the Pi to the microcontroller."""

    STATE = 0x01  # microcontroller -> Pi: full switch state
    PONG = 0x02  # microcontroller -> Pi: answer to PING, echoes its token
    PING = 0x81  # Pi -> microcontroller: are you there?
    GET_STATE = 0x82  # Pi -> microcontroller: send a STATE now
    CONFIG = 0x83  # Pi -> microcontroller: debounce and heartbeat settings


class StateReason(IntEnum):
    """Why the microcontroller sent a STATE frame."""

    HEARTBEAT = 0
    CHANGE = 1
    REQUEST = 2
    BOOT = 3
    CONFIG = 4


#: Message type -> (shortest, longest) payload, for each direction. A header outside its table is
#: impossible: the parser drops it at once rather than wait for bytes that belong to other frames.
FrameShapes = Mapping[int, tuple[int, int]]
FROM_PICO: FrameShapes = MappingProxyType(
    {
        MsgType.STATE: (STATE_PAYLOAD_LEN, STATE_PAYLOAD_LEN),
        MsgType.PONG: (0, MAX_PING_TOKEN),
    }
)
TO_PICO: FrameShapes = MappingProxyType(
    {
        MsgType.PING: (0, MAX_PING_TOKEN),
        MsgType.GET_STATE: (0, 0),
        MsgType.CONFIG: (CONFIG_PAYLOAD_LEN, CONFIG_PAYLOAD_LEN),
    }
)


class ProtocolError(ValueError):
    """A frame whose CRC is right but whose payload does not make sense."""


def _make_crc_table() -> list[int]:
    table = []
    for byte in range(256):
        crc = byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else (crc << 1)
            crc &= 0xFFFF
        table.append(crc)
    return table


_CRC_TABLE = _make_crc_table()


def crc16(data: bytes | bytearray | memoryview, crc: int = 0xFFFF) -> int:
    """CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF, no reflection, no final xor).

    Table driven; the same code runs on the Pico, where `binascii.crc_hqx` is not guaranteed.
    The check value for b"123456789" is 0x29B1.
    """
    for byte in data:
        crc = ((crc << 8) & 0xFFFF) ^ _CRC_TABLE[((crc >> 8) ^ byte) & 0xFF]
    return crc


def encode_frame(msg_type: int, seq: int, payload: bytes = b"") -> bytes:
    """Build one frame; `seq` is taken modulo 256."""
    if len(payload) > MAX_PAYLOAD:
        raise ValueError(f"payload of {len(payload)} bytes is longer than {MAX_PAYLOAD}")
    body = bytes((msg_type & 0xFF, seq & 0xFF, len(payload))) + bytes(payload)
    crc = crc16(body)
    return START + body + bytes((crc >> 8, crc & 0xFF))


@dataclass(frozen=True)
class Frame:
    """One checked frame: its type, sequence number and payload."""

    type: int
    seq: int
    payload: bytes

    def encode(self) -> bytes:
        return encode_frame(self.type, self.seq, self.payload)


@dataclass
class ParserStats:
    """What the parser has seen, for link-health reports."""

    frames: int = 0
    crc_errors: int = 0
    length_errors: int = 0  # headers with a type or length the direction never carries
    discarded_bytes: int = 0


# What FrameParser._check says of a candidate frame other than its size.
_WAIT, _IMPOSSIBLE, _BAD_CRC = -1, -2, -3


@dataclass
class FrameParser:
    """Incremental frame parser: feed it whatever bytes arrived, get back the good frames.

    `shapes` names the frames this direction carries (`FROM_PICO` on the Pi, the default;
    `TO_PICO` is what the microcontroller reads); None accepts any type with 0-32 bytes.
    """

    shapes: FrameShapes | None = field(default_factory=lambda: FROM_PICO)
    stats: ParserStats = field(default_factory=ParserStats)
    _buffer: bytearray = field(default_factory=bytearray)
    # Leading buffer bytes that are the CRC of a frame already delivered (see `feed`).
    _delivered_tail: int = 0

    def reset(self) -> None:
        """Forget any half-received frame (after a reconnect)."""
        self._buffer.clear()
        self._delivered_tail = 0

    def feed(self, data: bytes | bytearray) -> list[Frame]:
        self._buffer.extend(data)
        frames: list[Frame] = []
        buf = self._buffer
        while True:
            start = buf.find(START)
            if start < 0:
                # Keep a trailing first marker byte: its partner may be in the next read.
                keep = 1 if buf.endswith(START[:1]) else 0
                self._discard(len(buf) - keep)
                return frames
            self._discard(start)
            size = self._check(0)
            if size == _WAIT:
                inside = self._good_frame_inside()
                if inside is None:
                    return frames
                # A whole good frame starts within this one's length: this one was cut short.
                self.stats.crc_errors += 1
                self._discard(inside)
                continue
            if size == _IMPOSSIBLE:
                self.stats.length_errors += 1
                self._discard(1)
                continue
            if size == _BAD_CRC:
                self.stats.crc_errors += 1
                self._discard(1)
                continue
            frames.append(Frame(buf[2], buf[3], bytes(buf[HEADER_LEN : size - CRC_LEN])))
            self.stats.frames += 1
            # The CRC stays in the scan: a frame cut short by one or two bytes is completed by the
            # start of the next frame, and is then right (those bytes were the missing ones), but
            # the next frame's start marker is inside it. No marker is otherwise missed this way:
            # a real frame never starts with 0xA5 as its type.
            del buf[: size - CRC_LEN]
            self._delivered_tail = CRC_LEN

    def _check(self, at: int) -> int:
        """The size of the good frame at `at` (a start marker), or _WAIT, _IMPOSSIBLE or _BAD_CRC."""
        buf = self._buffer
        if len(buf) < at + HEADER_LEN:
            return _WAIT
        length = buf[at + 4]
        if not self._possible(buf[at + 2], length):
            return _IMPOSSIBLE
        end = at + HEADER_LEN + length + CRC_LEN
        if len(buf) < end:
            return _WAIT
        if crc16(memoryview(buf)[at + 2 : end - CRC_LEN]) != (buf[end - 2] << 8) | buf[end - 1]:
            return _BAD_CRC
        return end - at

    def _good_frame_inside(self) -> int | None:
        """Where the first whole good frame after the buffer's first byte starts, if any."""
        at = self._buffer.find(START, 1)
        while at > 0:
            if self._check(at) > 0:
                return at
            at = self._buffer.find(START, at + 1)
        return None

    def _possible(self, msg_type: int, length: int) -> bool:
        if self.shapes is None:
            return length <= MAX_PAYLOAD
        shape = self.shapes.get(msg_type)
        return shape is not None and shape[0] <= length <= shape[1]

    def _discard(self, count: int) -> None:
        """Drop `count` bytes from the buffer's start; only bytes of no delivered frame count as discarded."""
        if count <= 0:
            return
        self.stats.discarded_bytes += max(0, count - self._delivered_tail)
        self._delivered_tail = max(0, self._delivered_tail - count)
        del self._buffer[:count]


def _serial_ahead(new: int, old: int, modulus: int) -> int | None:
    """How far `new` is after `old` as serial numbers (RFC 1982): None when it is not after."""
    step = (new - old) % modulus
    return step if 0 < step < modulus // 2 else None


@dataclass
class SequenceTracker:
    """Which checked frames are news, and how many frames were lost, from the 8-bit sequence
    numbers and, for STATE frames, the microcontroller's uptime.

    A STATE is news when it is newer than the newest STATE heard: a later uptime, or the same
    uptime (two frames within a millisecond) and a later sequence number. Anything else is a
    duplicate or a late copy and is dropped, so positions never roll back. A microcontroller that
    restarted counts from 0 again; its frames look old until `reset()` (the Pi calls it when the
    port is opened and when the link is lost), after which the next STATE is a fresh start.

    The missed count is the number of sequence numbers skipped and never heard since the last
    reset; a frame that turns up late takes itself back off that count, a duplicate adds nothing.
    """

    missed: int = 0
    stale: int = 0  # frames dropped as duplicates or late copies
    restarts: int = 0  # fresh starts whose uptime was below the newest before the reset
    _last_seq: int | None = None
    _missing: set[int] = field(default_factory=set)
    _newest: tuple[int, int] | None = None  # (uptime_ms, seq) of the newest STATE
    _uptime_before_reset: int | None = None

    def reset(self) -> None:
        """Start afresh: the next frame is news whatever its numbers (the counts are kept)."""
        if self._newest is not None:
            self._uptime_before_reset = self._newest[0]
        self._last_seq = None
        self._missing.clear()
        self._newest = None

    def observe(self, seq: int, uptime_ms: int | None = None) -> bool:
        """Record a checked frame (`uptime_ms` for a STATE); True when it is news, to be delivered."""
        if uptime_ms is None:
            news = self._count(seq, may_advance=True)
        else:
            news = self._newer_state(seq, uptime_ms)
            counted = self._count(seq, may_advance=news)
            if news:
                if self._newest is None and self._uptime_before_reset is not None:
                    if _serial_ahead(self._uptime_before_reset, uptime_ms, UPTIME_MODULUS) is not None:
                        self.restarts += 1  # the uptime went back
                    self._uptime_before_reset = None
                self._newest = (uptime_ms, seq)
                if not counted:  # newer by its uptime, yet its number looks old: 128 frames or more lost
                    self._last_seq = seq
                    self._missing.clear()
        if not news:
            self.stale += 1
        return news

    def _newer_state(self, seq: int, uptime_ms: int) -> bool:
        if self._newest is None:
            return True
        newest_uptime, newest_seq = self._newest
        if uptime_ms == newest_uptime:
            return _serial_ahead(seq, newest_seq, SEQ_MODULUS) is not None
        return _serial_ahead(uptime_ms, newest_uptime, UPTIME_MODULUS) is not None

    def _count(self, seq: int, *, may_advance: bool) -> bool:
        """Update the missed count; True unless `seq` was heard before (or is too old to tell)."""
        if self._last_seq is None:
            self._last_seq = seq
            return True
        if seq in self._missing:
            self._missing.discard(seq)
            self.missed -= 1
            return True
        ahead = _serial_ahead(seq, self._last_seq, SEQ_MODULUS)
        if ahead is None or not may_advance:
            return False
        self.missed += ahead - 1
        self._missing.update((self._last_seq + skipped) % SEQ_MODULUS for skipped in range(1, ahead))
        self._last_seq = seq
        # A gap more than half the sequence space back can no longer be told from a frame ahead.
        self._missing = {s for s in self._missing if (seq - s) % SEQ_MODULUS < SEQ_MODULUS // 2}
        return True


@dataclass(frozen=True)
class StatePayload:
    """The decoded payload of a STATE frame."""

    positions: tuple[str | None, ...]  # 'A' | 'B' | 'C', None where the slide is faulty
    faults: tuple[int, ...]  # slides whose two switches are both closed
    uptime_ms: int
    reason: StateReason
    debounce_ms: int
    heartbeat_ms: int


def encode_state(
    codes: str,
    uptime_ms: int,
    reason: int,
    debounce_ms: int,
    heartbeat_ms: int,
) -> bytes:
    """STATE payload from 14 position codes ('A', 'B', 'C' or 'X' for a faulty slide)."""
    if len(codes) != SLIDE_COUNT:
        raise ValueError(f"need {SLIDE_COUNT} position codes, got {len(codes)}")
    mask = 0
    for index, code in enumerate(codes):
        if code == FAULT_CODE:
            mask |= 1 << index
    return (
        codes.encode("ascii")
        + mask.to_bytes(2, "big")
        + (uptime_ms & 0xFFFFFFFF).to_bytes(4, "big")
        + bytes((reason, debounce_ms))
        + heartbeat_ms.to_bytes(2, "big")
    )


def decode_state(payload: bytes) -> StatePayload:
    """Check and decode a STATE payload; a CRC-valid but inconsistent one is a ProtocolError."""
    if len(payload) != STATE_PAYLOAD_LEN:
        raise ProtocolError(f"STATE payload has {len(payload)} bytes, expected {STATE_PAYLOAD_LEN}")
    mask = int.from_bytes(payload[14:16], "big")
    if mask >> SLIDE_COUNT:
        raise ProtocolError(f"fault mask {mask:#06x} names slides beyond {SLIDE_COUNT - 1}")
    positions: list[str | None] = []
    faults: list[int] = []
    for index in range(SLIDE_COUNT):
        code = chr(payload[index])
        faulty = bool(mask & (1 << index))
        if code == FAULT_CODE and faulty:
            positions.append(None)
            faults.append(index)
        elif code in POSITIONS and not faulty:
            positions.append(code)
        else:
            raise ProtocolError(f"slide {index}: code {code!r} disagrees with the fault mask")
    try:
        reason = StateReason(payload[20])
    except ValueError as exc:
        raise ProtocolError(f"unknown STATE reason {payload[20]}") from exc
    debounce_ms = payload[21]
    heartbeat_ms = int.from_bytes(payload[22:24], "big")
    if not settings_in_range(debounce_ms, heartbeat_ms):
        raise ProtocolError(f"debounce {debounce_ms} ms, heartbeat {heartbeat_ms} ms: outside {SETTINGS_RANGES}")
    return StatePayload(
        positions=tuple(positions),
        faults=tuple(faults),
        uptime_ms=int.from_bytes(payload[16:20], "big"),
        reason=reason,
        debounce_ms=debounce_ms,
        heartbeat_ms=heartbeat_ms,
    )


def settings_in_range(debounce_ms: int, heartbeat_ms: int) -> bool:
    """The debounce and heartbeat the microcontroller accepts; anything else is garbage."""
    return (
        DEBOUNCE_RANGE_MS[0] <= debounce_ms <= DEBOUNCE_RANGE_MS[1]
        and HEARTBEAT_RANGE_MS[0] <= heartbeat_ms <= HEARTBEAT_RANGE_MS[1]
    )


def encode_config(debounce_ms: int, heartbeat_ms: int) -> bytes:
    """CONFIG payload: debounce (1 byte, ms) and heartbeat period (2 bytes, ms)."""
    return bytes((debounce_ms & 0xFF,)) + (heartbeat_ms & 0xFFFF).to_bytes(2, "big")
