"""Framing of the slide-switch link, shared by the Pi side and the tests.

The wire format is described in `PROTOCOL.md`. In short, every message is a frame::

    0xA5 0x5A | type | seq | length | payload (length bytes) | CRC-16 (big-endian)

with the CRC-16/CCITT-FALSE computed over ``type .. payload``. The microcontroller's program
(`pico/main.py`) cannot import this package, so it carries its own copy of `crc16` and of the
frame encoder; `tests/test_firmware_protocol.py` checks that both copies agree.

The parser never trusts a byte it has not checked: it looks for the start marker, waits for the
whole frame, and on a bad length or CRC drops only the first marker byte and scans on, so a real
frame hidden behind garbage or a truncated frame is still found.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum

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
    length_errors: int = 0
    discarded_bytes: int = 0


@dataclass
class FrameParser:
    """Incremental frame parser: feed it whatever bytes arrived, get back the good frames."""

    stats: ParserStats = field(default_factory=ParserStats)
    _buffer: bytearray = field(default_factory=bytearray)

    def reset(self) -> None:
        """Forget any half-received frame (after a reconnect)."""
        self._buffer.clear()

    def feed(self, data: bytes | bytearray) -> list[Frame]:
        self._buffer.extend(data)
        frames: list[Frame] = []
        buf = self._buffer
        while True:
            start = buf.find(START)
            if start < 0:
                # Keep a trailing first marker byte: its partner may be in the next read.
                keep = 1 if buf.endswith(START[:1]) else 0
                self.stats.discarded_bytes += len(buf) - keep
                del buf[: len(buf) - keep]
                return frames
            if start:
                self.stats.discarded_bytes += start
                del buf[:start]
            if len(buf) < HEADER_LEN:
                return frames
            length = buf[4]
            if length > MAX_PAYLOAD:
                self.stats.length_errors += 1
                self._drop_marker()
                continue
            total = HEADER_LEN + length + CRC_LEN
            if len(buf) < total:
                return frames
            received_crc = (buf[total - 2] << 8) | buf[total - 1]
            if crc16(memoryview(buf)[2 : total - 2]) != received_crc:
                self.stats.crc_errors += 1
                self._drop_marker()
                continue
            frames.append(Frame(buf[2], buf[3], bytes(buf[HEADER_LEN : total - 2])))
            self.stats.frames += 1
            del buf[:total]

    def _drop_marker(self) -> None:
        """Give up on the candidate at the buffer's start; the next scan starts one byte on."""
        self.stats.discarded_bytes += 1
        del self._buffer[:1]


@dataclass
class SequenceTracker:
    """Counts frames lost between two received ones, from the 8-bit sequence numbers."""

    last: int | None = None
    missed: int = 0

    def reset(self) -> None:
        """Start afresh: after a reconnect the microcontroller counts from 0 again."""
        self.last = None

    def observe(self, seq: int) -> int:
        """Record `seq`; return how many frames went missing just before it."""
        gap = 0 if self.last is None else (seq - self.last - 1) & 0xFF
        self.last = seq
        self.missed += gap
        return gap


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
    return StatePayload(
        positions=tuple(positions),
        faults=tuple(faults),
        uptime_ms=int.from_bytes(payload[16:20], "big"),
        reason=reason,
        debounce_ms=payload[21],
        heartbeat_ms=int.from_bytes(payload[22:24], "big"),
    )


def encode_config(debounce_ms: int, heartbeat_ms: int) -> bytes:
    """CONFIG payload: debounce (1 byte, ms) and heartbeat period (2 bytes, ms)."""
    return bytes((debounce_ms & 0xFF,)) + (heartbeat_ms & 0xFFFF).to_bytes(2, "big")
