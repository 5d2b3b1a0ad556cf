"""Framing, CRC and STATE payloads; the Pico's copies agree with protocol.py; worked examples of
the parser's recovery and of the stale/duplicate rule (the fuzzing is in test_serial_fuzz.py)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from firmware_bridge.protocol import (
    DEBOUNCE_RANGE_MS,
    FROM_PICO,
    HEARTBEAT_RANGE_MS,
    MAX_PAYLOAD,
    START,
    TO_PICO,
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
    settings_in_range,
)
from simulation.pico import firmware_helpers

FUZZ = settings(max_examples=200, deadline=None, derandomize=True)
PICO = firmware_helpers()


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
@pytest.mark.slow
def test_pico_frames_are_the_pi_frames(msg_type: int, seq: int, payload: bytes) -> None:
    assert PICO["encode_frame"](msg_type, seq, payload) == encode_frame(msg_type, seq, payload)


def test_pico_reads_the_frames_the_pi_sends_and_nothing_else() -> None:
    assert PICO["RX_SHAPES"] == dict(TO_PICO)
    assert (PICO["DEBOUNCE_MIN_MS"], PICO["DEBOUNCE_MAX_MS"]) == DEBOUNCE_RANGE_MS
    assert (PICO["HEARTBEAT_MIN_MS"], PICO["HEARTBEAT_MAX_MS"]) == HEARTBEAT_RANGE_MS
    assert (PICO["DEBOUNCE_MS"], PICO["HEARTBEAT_MS"]) == (30, 1000)
    assert settings_in_range(PICO["DEBOUNCE_MS"], PICO["HEARTBEAT_MS"])


@FUZZ
@given(st.integers(0, 300), st.integers(0, 70000))
def test_pico_and_pi_agree_on_the_settings_ranges(debounce: int, heartbeat: int) -> None:
    assert PICO["settings_in_range"](debounce, heartbeat) == settings_in_range(debounce, heartbeat)


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
        encode_state("A" * 14, 0, 0, 19, 1000),  # debounce below 20 ms
        encode_state("A" * 14, 0, 0, 51, 1000),  # debounce above 50 ms
        encode_state("A" * 14, 0, 0, 30, 49),  # heartbeat below 50 ms
        encode_state("A" * 14, 0, 0, 30, 23000),  # the 23 s heartbeat random garbage once delivered
    ],
)
def test_nonsense_state_payloads_are_rejected(payload: bytes) -> None:
    with pytest.raises(ProtocolError):
        decode_state(payload)


def test_settings_at_the_ends_of_their_ranges_are_accepted() -> None:
    for debounce in DEBOUNCE_RANGE_MS:
        for heartbeat in HEARTBEAT_RANGE_MS:
            state = decode_state(encode_state("B" * 14, 0, 0, debounce, heartbeat))
            assert (state.debounce_ms, state.heartbeat_ms) == (debounce, heartbeat)


# --- the parser ---------------------------------------------------------------------------------
def state_frame(seq: int, codes: str = "B" * 14, uptime_ms: int = 1000) -> Frame:
    return Frame(MsgType.STATE, seq, encode_state(codes, uptime_ms, StateReason.HEARTBEAT, 30, 1000))


def test_parser_finds_frames_split_anywhere() -> None:
    frames = [Frame(MsgType.STATE, i, bytes([i]) * i) for i in range(10)]
    stream = b"".join(f.encode() for f in frames)
    for chunk in (1, 2, 3, 7, len(stream)):
        parser = FrameParser(shapes=None)
        got = [f for i in range(0, len(stream), chunk) for f in parser.feed(stream[i : i + chunk])]
        assert got == frames
        assert parser.stats.discarded_bytes == 0


def test_parser_recovers_from_a_fake_start_marker_with_a_long_length() -> None:
    good = Frame(MsgType.PONG, 1, b"token")
    parser = FrameParser()
    # A fake STATE header swallows the good frame; the CRC then fails and the parser rescans from
    # just after the fake marker, finding the good frame inside.
    got = parser.feed(START + bytes((MsgType.STATE, 0, 24)) + good.encode() + bytes(40))
    assert got == [good]
    assert parser.stats.crc_errors == 1


def test_headers_the_direction_never_carries_are_dropped_at_once() -> None:
    parser = FrameParser(shapes=FROM_PICO)
    for header in (
        bytes((MsgType.PING, 0, 2)),
        bytes((MsgType.STATE, 0, 23)),
        bytes((MsgType.PONG, 0, 9)),
        b"\x07\x00\x00",
    ):
        assert parser.feed(START + header) == []  # no waiting for the rest of an impossible frame
    assert parser.stats.length_errors == 4
    good = state_frame(5)
    assert parser.feed(good.encode()) == [good]


def test_a_frame_missing_its_last_byte_does_not_hide_the_next_one() -> None:
    """The case from issue 14: `a55a820703b4ed8438` is a GET_STATE-type frame whose CRC 0x38A5 lost
    its last byte; the next frame's first byte, 0xA5, completes it."""
    cut = bytes.fromhex("a55a820703b4ed8438")
    first, second = state_frame(8, "A" * 14), state_frame(9, "C" * 14, 1100)
    stream = cut + first.encode() + second.encode()
    assert FrameParser().feed(stream) == [first, second]  # a Pi-to-Pico type is impossible here
    # Even a parser that accepts the completed frame (it is what was sent) finds the next one.
    assert FrameParser(shapes=None).feed(stream) == [Frame(0x82, 7, bytes.fromhex("b4ed84")), first, second]
    assert [Frame(*f) for f in PICO["FrameReader"](dict(FROM_PICO)).feed(stream)] == [first, second]


def test_a_state_missing_its_last_byte_does_not_hide_the_next_one() -> None:
    cut = next(f for f in (state_frame(7, "A" * 14, uptime) for uptime in range(1000)) if f.encode()[-1] == START[0])
    follow = [state_frame(8, "C" * 14, 2000), state_frame(9, "B" * 14, 2100)]
    stream = cut.encode()[:-1] + b"".join(f.encode() for f in follow)
    # The cut frame is made whole by the byte it lost, so it is right; the next is still found.
    assert FrameParser().feed(stream) == [cut, *follow]
    assert [Frame(*f) for f in PICO["FrameReader"](dict(FROM_PICO)).feed(stream)] == [cut, *follow]


@pytest.mark.parametrize(
    ("shapes", "long", "short"),
    [
        (FROM_PICO, state_frame(3), Frame(MsgType.PONG, 4, b"")),
        (TO_PICO, Frame(MsgType.PING, 3, b"12345678"), Frame(MsgType.GET_STATE, 4, b"")),
    ],
    ids=["pi", "pico"],
)
@pytest.mark.parametrize("kept", [5, 6, 7])
def test_a_short_frame_after_a_cut_long_one_comes_out_at_once(shapes, long: Frame, short: Frame, kept: int) -> None:
    """The cut frame's header promises more bytes than follow; the short good frame inside that
    length is delivered when its own last byte arrives, not when the next frame does."""
    stream = long.encode()[:kept] + short.encode()
    assert len(stream) < len(long.encode())
    assert FrameParser(shapes=shapes).feed(stream) == [short]
    assert [Frame(*f) for f in PICO["FrameReader"](dict(shapes)).feed(stream)] == [short]


# --- the stale and duplicate rule ----------------------------------------------------------------
def test_sequence_gaps_are_counted_across_the_wrap() -> None:
    tracker = SequenceTracker()
    assert [tracker.observe(s) for s in (254, 255, 0, 1)] == [True] * 4
    assert tracker.observe(4)
    assert tracker.missed == 2
    tracker.reset()
    assert tracker.observe(0)  # after a reconnect the count restarts without a false gap
    assert tracker.missed == 2


def test_a_late_copy_of_an_older_state_is_dropped() -> None:
    """A -> B -> A(late copy) -> B used to be heard; the copy is older, so it is dropped."""
    tracker = SequenceTracker()
    assert tracker.observe(10, uptime_ms=5000)  # A
    assert tracker.observe(11, uptime_ms=5100)  # B
    assert not tracker.observe(10, uptime_ms=5000)  # the late copy of A
    assert tracker.observe(12, uptime_ms=6100)
    assert (tracker.missed, tracker.stale) == (0, 1)


def test_duplicates_and_reordering_leave_the_missed_count_right() -> None:
    tracker = SequenceTracker()
    news = [tracker.observe(seq, uptime_ms=100 * seq) for seq in (1, 2, 2, 4, 3, 5, 5, 1)]
    assert news == [True, True, False, True, False, True, False, False]
    assert tracker.missed == 0  # 3 came late, nothing was lost (once 255 "missed" per duplicate)
    assert tracker.stale == 4
    assert tracker.observe(9, uptime_ms=900)
    assert tracker.missed == 3


def test_two_states_in_the_same_millisecond_are_ordered_by_sequence_number() -> None:
    tracker = SequenceTracker()
    assert tracker.observe(255, uptime_ms=700)
    assert tracker.observe(0, uptime_ms=700)  # later: the sequence number wrapped
    assert not tracker.observe(255, uptime_ms=700)
    assert not tracker.observe(0, uptime_ms=700)


def test_uptime_wrapping_after_49_days_is_not_a_step_back() -> None:
    tracker = SequenceTracker()
    assert tracker.observe(1, uptime_ms=2**32 - 500)
    assert tracker.observe(2, uptime_ms=500)
    assert not tracker.observe(1, uptime_ms=2**32 - 500)
    assert tracker.restarts == 0


def test_a_restart_is_a_fresh_start_once_the_tracker_is_reset() -> None:
    tracker = SequenceTracker()
    for seq in range(1, 6):
        assert tracker.observe(seq, uptime_ms=60_000 + 1000 * seq)
    # The microcontroller restarts: its frames look old until the link counts as lost ...
    assert not tracker.observe(0, uptime_ms=0)
    assert not tracker.observe(1, uptime_ms=1000)
    tracker.reset()
    # ... then the next one starts afresh, and the restart is recognised by the uptime going back.
    assert tracker.observe(2, uptime_ms=2000)
    assert tracker.observe(3, uptime_ms=3000)
    assert tracker.restarts == 1
    assert tracker.missed == 0
