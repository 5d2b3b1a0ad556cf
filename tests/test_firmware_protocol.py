"""Framing, CRC and STATE payloads; the parser under fuzzing (random, truncated, corrupted)."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from firmware_bridge import protocol
from firmware_bridge.protocol import (
    MAX_PAYLOAD,
    START,
    Frame,
    FrameParser,
    MsgType,
    ProtocolError,
    SequenceTracker,
    StateReason,
    crc16,
    decode_state,
    encode_frame,
    encode_state,
)
from firmware_bridge.sim import SwitchBoard, load_firmware, machine_module, micropython_module, micropython_time

FUZZ = settings(max_examples=200, deadline=None, derandomize=True)


def pico_program() -> dict:
    """The MicroPython program's namespace (its helpers, not its main loop)."""
    board = SwitchBoard()
    clock = micropython_time(lambda: 0.0, lambda: None)
    return load_firmware(
        {
            "machine": machine_module(board, lambda: None),
            "time": clock,
            "sys": object(),
            "select": object(),
            "micropython": micropython_module(),
        }
    )


PICO = pico_program()


def test_crc_matches_the_published_check_value() -> None:
    assert crc16(b"123456789") == 0x29B1
    assert PICO["crc16"](b"123456789") == 0x29B1
    assert crc16(b"") == 0xFFFF


@FUZZ
@given(st.binary(max_size=64))
def test_pico_and_pi_crc_agree(data: bytes) -> None:
    assert PICO["crc16"](data) == crc16(data)


@FUZZ
@given(st.integers(0, 255), st.integers(0, 255), st.binary(max_size=MAX_PAYLOAD))
def test_pico_frames_are_the_pi_frames(msg_type: int, seq: int, payload: bytes) -> None:
    assert PICO["encode_frame"](msg_type, seq, payload) == encode_frame(msg_type, seq, payload)


def test_frame_layout() -> None:
    frame = encode_frame(MsgType.PING, 7, b"hi")
    assert frame[:2] == START
    assert frame[2:5] == bytes((0x81, 7, 2))
    assert frame[5:7] == b"hi"
    assert int.from_bytes(frame[7:], "big") == crc16(frame[2:7])
    with pytest.raises(ValueError):
        encode_frame(MsgType.PING, 0, bytes(MAX_PAYLOAD + 1))


def test_state_payload_round_trip() -> None:
    payload = encode_state("ABCXABCABCABCA", 123456, StateReason.CHANGE, 30, 1000)
    state = decode_state(payload)
    assert state.positions == ("A", "B", "C", None, "A", "B", "C", "A", "B", "C", "A", "B", "C", "A")
    assert state.faults == (3,)
    assert (state.uptime_ms, state.reason, state.debounce_ms, state.heartbeat_ms) == (
        123456,
        StateReason.CHANGE,
        30,
        1000,
    )


@pytest.mark.parametrize(
    "payload",
    [
        encode_state("A" * 14, 0, 0, 30, 1000)[:-1],  # too short
        b"X" + encode_state("A" * 14, 0, 0, 30, 1000)[1:],  # 'X' without its fault bit
        encode_state("A" * 14, 0, 0, 30, 1000)[:14] + b"\x00\x01" + bytes(8),  # bit without 'X'
        b"D" + encode_state("A" * 14, 0, 0, 30, 1000)[1:],  # no such position
        encode_state("A" * 14, 0, 0, 30, 1000)[:20] + b"\x09" + bytes(3),  # unknown reason
        encode_state("A" * 14, 0, 0, 30, 1000)[:14] + b"\x80\x00" + bytes(8),  # slide 15
    ],
)
def test_nonsense_state_payloads_are_rejected(payload: bytes) -> None:
    with pytest.raises(ProtocolError):
        decode_state(payload)


def test_sequence_gaps_are_counted_across_the_wrap() -> None:
    tracker = SequenceTracker()
    assert [tracker.observe(s) for s in (254, 255, 0, 1)] == [0, 0, 0, 0]
    assert tracker.observe(4) == 2
    tracker.reset()
    assert tracker.observe(0) == 0  # after a reconnect the count restarts without a false gap
    assert tracker.missed == 2


def test_parser_finds_frames_split_anywhere() -> None:
    frames = [Frame(MsgType.STATE, i, bytes([i]) * i) for i in range(10)]
    stream = b"".join(f.encode() for f in frames)
    for chunk in (1, 2, 3, 7, len(stream)):
        parser = FrameParser()
        got = [f for i in range(0, len(stream), chunk) for f in parser.feed(stream[i : i + chunk])]
        assert got == frames


def test_parser_recovers_from_a_fake_start_marker_with_a_long_length() -> None:
    good = Frame(MsgType.STATE, 1, b"payload")
    parser = FrameParser()
    # A fake header announcing 32 bytes swallows the good frame; the CRC then fails and the
    # parser rescans from just after the fake marker, finding the good frame inside.
    got = parser.feed(START + bytes((1, 0, 32)) + good.encode() + bytes(40))
    assert got == [good]
    assert parser.stats.crc_errors >= 1


@FUZZ
@given(st.binary(max_size=400), st.integers(1, 50))
def test_random_bytes_never_crash_and_never_make_a_frame(data: bytes, chunk: int) -> None:
    parser = FrameParser()
    got = [f for i in range(0, len(data), chunk) for f in parser.feed(data[i : i + chunk])]
    assert got == []
    assert len(parser._buffer) <= protocol.MAX_FRAME


frames_strategy = st.builds(
    Frame,
    st.sampled_from([int(t) for t in MsgType]),
    st.integers(0, 255),
    st.binary(max_size=MAX_PAYLOAD),
)
damage_strategy = st.one_of(
    st.just(("intact",)),
    st.tuples(st.just("truncate"), st.floats(0.0, 0.99)),
    st.tuples(st.just("flip"), st.floats(0.0, 0.99), st.integers(1, 255)),
    st.tuples(st.just("drop"), st.floats(0.0, 0.99)),
)


def damage(encoded: bytes, how: tuple) -> bytes:
    if how[0] == "intact":
        return encoded
    at = int(how[1] * len(encoded))
    if how[0] == "truncate":
        return encoded[:at]
    if how[0] == "flip":
        return encoded[:at] + bytes((encoded[at] ^ how[2],)) + encoded[at + 1 :]
    return encoded[:at] + encoded[at + 1 :]


@FUZZ
@given(
    st.lists(st.tuples(frames_strategy, damage_strategy, st.binary(max_size=12)), max_size=12),
    st.integers(0, 2**32),
)
def test_damaged_streams_yield_exactly_the_intact_frames(items: list, seed: int) -> None:
    """Truncated, corrupted and shortened frames and garbage between them: no frame that was
    not sent comes out, and every intact frame does (the parser recovers on the next good one)."""
    stream = bytearray()
    expected = []
    for frame, how, garbage in items:
        stream += garbage + damage(frame.encode(), how)
        if how[0] == "intact":
            expected.append(frame)
    tail = [Frame(MsgType.STATE, 200 + i, bytes(range(20))) for i in range(2)]
    stream += b"".join(f.encode() for f in tail)  # enough bytes to settle any half-read header
    expected += tail

    rng = random.Random(seed)
    parser = FrameParser()
    got, i = [], 0
    while i < len(stream):
        step = rng.randint(1, 40)
        got += parser.feed(bytes(stream[i : i + step]))
        i += step
    assert got == expected

    pico_reader = PICO["FrameReader"]()
    pico_got = [Frame(*f) for f in pico_reader.feed(bytes(stream))]
    assert pico_got == expected  # the Pico's own reader behaves the same
