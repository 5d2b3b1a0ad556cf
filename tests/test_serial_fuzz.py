"""Both frame parsers and the stale/duplicate rule under hypothesis.

The parsers are the Pi's (`protocol.FrameParser`) and the Pico's (`FrameReader`, run from the
MicroPython source itself); each is fed the frames of its own direction (the Pi reads what the
Pico sends, `FROM_PICO`; the Pico reads what the Pi sends, `TO_PICO`), cut into random chunks as
a serial port delivers them. The sequence tracker is checked against an oracle that knows the
order in which frames were sent.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable, Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from firmware_bridge.protocol import (
    FROM_PICO,
    MAX_FRAME,
    START,
    TO_PICO,
    UPTIME_MODULUS,
    Frame,
    FrameParser,
    FrameShapes,
    SequenceTracker,
    crc16,
)
from simulation.pico import firmware_helpers

pytestmark = pytest.mark.slow  # every test here takes seconds

FUZZ = settings(max_examples=60, deadline=None, derandomize=True)
PICO = firmware_helpers()

chunk_sizes = st.lists(st.integers(1, 40), min_size=1, max_size=6)


def pieces(stream: bytes, sizes: list[int]) -> Iterator[bytes]:
    """`stream` cut into consecutive pieces of the given sizes (repeated as needed)."""
    at = index = 0
    while at < len(stream):
        size = sizes[index % len(sizes)]
        yield stream[at : at + size]
        at += size
        index += 1


class PiSide:
    name = "pi"
    shapes: FrameShapes = FROM_PICO

    def __init__(self) -> None:
        self.parser = FrameParser(shapes=FROM_PICO)

    def feed(self, data: bytes) -> list[Frame]:
        return self.parser.feed(data)

    def buffered(self) -> int:
        return len(self.parser._buffer)


class PicoSide:
    name = "pico"
    shapes: FrameShapes = TO_PICO

    def __init__(self) -> None:
        self.reader = PICO["FrameReader"]()

    def feed(self, data: bytes) -> list[Frame]:
        return [Frame(*f) for f in self.reader.feed(data)]

    def buffered(self) -> int:
        return len(self.reader.buf)


SIDES = pytest.mark.parametrize("side", [PiSide, PicoSide], ids=["pi", "pico"])


def read_all(side: Callable[[], PiSide | PicoSide], stream: bytes, sizes: list[int]) -> list[Frame]:
    reader = side()
    return [frame for piece in pieces(stream, sizes) for frame in reader.feed(piece)]


def message(shapes: FrameShapes, min_payload: int = 0) -> st.SearchStrategy[tuple[int, bytes]]:
    """(type, payload) of a frame this direction carries."""
    kinds = sorted((t, max(lo, min_payload), hi) for t, (lo, hi) in shapes.items() if hi >= min_payload)
    longest = max(hi for _, _, hi in kinds)
    # Drawn as one type and bytes cut or padded to fit it: a flatmap per frame is ten times slower.
    return st.tuples(st.sampled_from(kinds), st.binary(max_size=longest)).map(
        lambda drawn: (drawn[0][0], drawn[1][: drawn[0][2]].ljust(drawn[0][1], b"\0"))
    )


def numbered(messages: list[tuple[int, bytes]], first_seq: int = 0) -> list[Frame]:
    """Frames as a sender numbers them: one sequence number after the other."""
    return [Frame(t, (first_seq + i) % 256, payload) for i, (t, payload) in enumerate(messages)]


def is_in_order_within(got: list[Frame], sent: list[Frame]) -> bool:
    """Every frame that came out was sent, in the order sent."""
    remaining = iter(sent)
    return all(any(frame == candidate for candidate in remaining) for frame in got)


# --- arbitrary bytes ----------------------------------------------------------------------------
@SIDES
@FUZZ
@given(data=st.binary(max_size=400), sizes=chunk_sizes)
def test_arbitrary_bytes_never_raise_and_never_make_a_frame(side, data: bytes, sizes: list[int]) -> None:
    reader = side()
    got = [frame for piece in pieces(data, sizes) for frame in reader.feed(piece)]
    assert got == []
    assert reader.buffered() <= MAX_FRAME


@SIDES
@FUZZ
@given(data=st.lists(st.sampled_from([0xA5, 0x5A, 0x01, 0x02, 0x81, 0x82, 0x83, 0x00, 0x18, 0x03]), max_size=300))
def test_bytes_that_look_like_headers_never_raise(side, data: list[int]) -> None:
    """Bytes drawn from markers, types and lengths make many false starts; all are survived."""
    reader = side()
    for byte in data:
        for frame in reader.feed(bytes((byte,))):
            assert frame.type in side.shapes  # only a shape the direction carries (a lucky CRC)
    assert reader.buffered() <= MAX_FRAME


# --- good frames among garbage and damage -------------------------------------------------------
damage_strategy = st.one_of(
    st.just(("intact",)),
    st.tuples(st.just("cut"), st.floats(0.0, 0.99)),  # the end of the frame is lost
    st.tuples(st.just("flip"), st.floats(0.0, 0.99), st.integers(1, 255)),
    st.tuples(st.just("drop"), st.floats(0.0, 0.99)),  # one byte lost
)


def damage(encoded: bytes, how: tuple) -> bytes:
    if how[0] == "intact":
        return encoded
    at = int(how[1] * len(encoded))
    if how[0] == "cut":
        return encoded[:at]
    if how[0] == "flip":
        return encoded[:at] + bytes((encoded[at] ^ how[2],)) + encoded[at + 1 :]
    return encoded[:at] + encoded[at + 1 :]


@SIDES
@FUZZ
@given(data=st.data(), sizes=chunk_sizes)
def test_good_frames_among_garbage_and_damaged_frames_all_come_out_in_order(side, data, sizes: list[int]) -> None:
    """Garbage between frames, frames cut short, corrupted or missing a byte: every intact frame
    comes out, in order, and nothing comes out that was not sent (a damaged frame may come out
    only when the bytes after it happen to restore it exactly)."""
    items = data.draw(st.lists(st.tuples(message(side.shapes), damage_strategy, st.binary(max_size=12)), max_size=12))
    sent = numbered([m for m, _, _ in items])
    hows = [how for _, how, _ in items]
    garbage = [g for _, _, g in items]
    tail = numbered(data.draw(st.lists(message(side.shapes), min_size=2, max_size=2)), len(sent))
    stream = b"".join(g + damage(f.encode(), how) for g, f, how in zip(garbage, sent, hows))
    # Bytes that follow settle a header still waiting for its length (as the next frame would).
    stream += b"".join(f.encode() for f in tail)

    got = read_all(side, stream, sizes)
    intact = [f for f, how in zip(sent, hows) if how[0] == "intact"] + tail
    assert is_in_order_within(got, sent + tail)
    assert is_in_order_within(intact, got)


@SIDES
@FUZZ
@given(data=st.data(), sizes=chunk_sizes)
def test_a_cut_frame_never_hides_the_good_frames_after_it(side, data, sizes: list[int]) -> None:
    before, cut, *after = numbered(data.draw(st.lists(message(side.shapes), min_size=3, max_size=6)))
    encoded = cut.encode()
    kept = data.draw(st.integers(1, len(encoded) - 1))
    stream = before.encode() + encoded[:kept] + b"".join(f.encode() for f in after)
    got = read_all(side, stream, sizes)
    assert is_in_order_within(got, [before, cut, *after])
    assert [f for f in got if f != cut] == [before, *after]


@functools.cache
def _crc_of_two_bytes_inverse() -> dict[int, int]:
    """v -> the 16-bit value x with crc16(x, init=0) == v (a bijection)."""
    return {crc16(x.to_bytes(2, "big"), 0): x for x in range(1 << 16)}


def frame_with_crc(msg_type: int, seq: int, head: bytes, crc: int) -> Frame:
    """A frame whose payload is `head` plus the two bytes that make its CRC `crc`.

    CRC-16 without a final xor is linear: appending x to data whose CRC register is r gives
    crc16(r ^ x, init=0), so x follows from the inverse of that two-byte map.
    """
    register = crc16(bytes((msg_type, seq, len(head) + 2)) + head)
    last_two = register ^ _crc_of_two_bytes_inverse()[crc]
    frame = Frame(msg_type, seq, head + last_two.to_bytes(2, "big"))
    assert int.from_bytes(frame.encode()[-2:], "big") == crc
    return frame


@SIDES
@FUZZ
@given(data=st.data(), missing=st.sampled_from([1, 2]), sizes=chunk_sizes)
def test_a_frame_cut_by_exactly_the_bytes_the_next_frame_starts_with(side, data, missing: int, sizes) -> None:
    """The worst cut: the lost bytes are the next frame's start marker, so the cut frame is made
    whole again by it (and is right). The next frame is still found (issue 14's case)."""
    msg_type, payload = data.draw(message(side.shapes, min_payload=2))
    crc = int.from_bytes(START, "big") if missing == 2 else data.draw(st.integers(0, 255)) << 8 | START[0]
    cut = frame_with_crc(msg_type, 7, payload[:-2], crc)
    after = numbered(data.draw(st.lists(message(side.shapes), min_size=1, max_size=4)), 8)
    stream = cut.encode()[:-missing] + b"".join(f.encode() for f in after)
    assert read_all(side, stream, sizes) == [cut, *after]


@FUZZ
@given(data=st.data(), sizes=chunk_sizes)
def test_both_parsers_agree_on_any_stream(data, sizes: list[int]) -> None:
    """The Pico's reader and the Pi's parser, given the same frame shapes, find the same frames."""
    shapes = data.draw(st.sampled_from([FROM_PICO, TO_PICO]))
    items = data.draw(st.lists(st.tuples(message(shapes), damage_strategy, st.binary(max_size=8)), max_size=8))
    frames = numbered([m for m, _, _ in items])
    hows = [how for _, how, _ in items]
    noise = [n for _, _, n in items]
    stream = b"".join(n + damage(f.encode(), how) for n, f, how in zip(noise, frames, hows))
    pi = FrameParser(shapes=shapes)
    pico = PICO["FrameReader"](dict(shapes))
    for piece in pieces(stream, sizes):
        assert pi.feed(piece) == [Frame(*f) for f in pico.feed(piece)]


# --- duplicates, reordering and loss ------------------------------------------------------------
@FUZZ
@given(
    first_seq=st.integers(0, 255),
    first_uptime=st.integers(0, UPTIME_MODULUS - 1),
    frames=st.lists(st.tuples(st.integers(0, 1500), st.booleans()), min_size=1, max_size=300),
    seed=st.integers(0, 2**32 - 1),
    loss=st.floats(0.0, 0.3),
    copies=st.floats(0.0, 0.3),
    window=st.integers(0, 12),
)
def test_duplicates_reordering_and_loss_never_roll_back_nor_miscount(
    first_seq: int, first_uptime: int, frames: list, seed: int, loss: float, copies: float, window: int
) -> None:
    """A Pico run (STATEs with their uptimes, other frames between) over a channel that loses,
    repeats and reorders frames (each arrives up to `window` frames late). Against an oracle that
    knows the sending order: a STATE is delivered exactly when it is newer than every STATE
    delivered before it; the missed count is at every moment the number of frames sent before the
    newest one heard that have not arrived (so a late one takes itself back off, a copy adds nothing)."""
    uptime, sent = first_uptime, []
    for index, (gap_ms, is_state) in enumerate(frames):
        uptime = (uptime + gap_ms) % UPTIME_MODULUS
        sent.append(((first_seq + index) % 256, uptime if is_state or index == 0 else None))
    rng = random.Random(seed)
    arrivals: list[tuple[float, int]] = [(0, 0)]  # the first frame arrives first: it sets the baseline
    for index in range(1, len(sent)):
        if rng.random() < loss:
            continue
        for _ in range(2 if rng.random() < copies else 1):
            arrivals.append((index + rng.randint(0, window) + rng.random(), index))
    arrivals.sort()

    tracker = SequenceTracker()
    heard: set[int] = set()
    newest_state, dropped = -1, 0
    for _, index in arrivals:
        seq, state_uptime = sent[index]
        news = tracker.observe(seq, state_uptime)
        if state_uptime is None:
            assert news == (index not in heard)
        else:
            assert news == (index > newest_state)  # never an older state over a newer one
            newest_state = max(newest_state, index)
        dropped += not news
        heard.add(index)
        assert tracker.missed == max(heard) + 1 - len(heard)
    assert tracker.stale == dropped


@FUZZ
@given(
    old_run=st.lists(st.integers(0, 1500), min_size=1, max_size=20),
    new_run=st.lists(st.integers(0, 1500), min_size=1, max_size=20),
    old_start=st.integers(0, 10**7),
    new_start=st.integers(0, 10**7),
    first_new_seq=st.integers(0, 255),
)
def test_after_a_reset_the_next_state_is_a_fresh_start(
    old_run: list[int], new_run: list[int], old_start: int, new_start: int, first_new_seq: int
) -> None:
    """The link resets the tracker when it is lost; the microcontroller's new run is then taken
    whatever its numbers, and counted as a restart exactly when its uptime went back."""
    tracker = SequenceTracker()
    uptime = old_start
    for seq, gap in enumerate(old_run):
        uptime += gap
        assert tracker.observe(seq, uptime)
    tracker.reset()
    new_uptime = new_start
    for offset, gap in enumerate(new_run):
        new_uptime += gap
        assert tracker.observe((first_new_seq + offset) % 256, new_uptime)
        assert not tracker.observe((first_new_seq + offset) % 256, new_uptime)  # its copy
    assert tracker.restarts == (1 if new_start + new_run[0] < uptime else 0)
    assert tracker.missed == 0
