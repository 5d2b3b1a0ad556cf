"""The Pi side talking to the simulated Pico through a real pseudo-terminal."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from types import SimpleNamespace

import pytest

from controller.errors import ConfigError
from controller.hardware.config import validate_switches
from controller.hardware.switches import SerialSwitches, SlideState, SwitchSource
from controller.service.devices import RealDevices
from firmware_bridge import link
from firmware_bridge.protocol import MsgType, StateReason, encode_frame, encode_state
from simulation.devices import SimulatedDevices
from simulation.pico import SimulatedPico

HEARTBEAT = 0.25
TIMEOUT = 0.6


@pytest.fixture()
def rig(tmp_path) -> Iterator[tuple[SerialSwitches, SimulatedPico, list[SlideState]]]:
    """A plugged-in simulated Pico and a started SerialSwitches recording what it reports."""
    reports: list[SlideState] = []
    pico = SimulatedPico(tmp_path / "ttyPICO")
    pico.plug()
    source = SerialSwitches(
        pico.port,
        heartbeat_timeout=TIMEOUT,
        heartbeat_interval=HEARTBEAT,
        debounce_ms=20,
        listener=reports.append,
        reconnect_interval=0.05,
    )
    source.start()
    assert source.wait_for_positions("B" * 14, 2.0)
    yield source, pico, reports
    source.close()
    pico.close()
    assert pico.crash is None


def summary(reports: list[SlideState]) -> list[tuple[str, bool]]:
    return [("".join(p or "X" for p in s.positions), s.link_ok) for s in reports]


def slides_heard(reports: list[SlideState]) -> list[tuple[str, bool]]:
    """`summary` without the repeats that only a change of `trouble` made."""
    heard = summary(reports)
    return [item for i, item in enumerate(heard) if i == 0 or item != heard[i - 1]]


def test_moves_bounce_and_faults_arrive_as_slide_states(rig) -> None:
    source, pico, reports = rig
    assert isinstance(source, SwitchSource)
    pico.set_slide(0, "A", bounce_ms=8)
    assert source.wait_for_positions("ABBBBBBBBBBBBB", 2.0)
    pico.set_slide(12, "C", bounce_ms=8)
    state = source.wait_for_positions("ABBBBBBBBBBBCB", 2.0)
    assert state is not None and state.reason == "change"
    pico.set_switches(5, True, True)
    faulty = source.wait_for(lambda s: s.faults == (5,), 2.0)
    assert faulty is not None and faulty.positions[5] is None
    assert source.healthy()
    # Bounce never shows as a flicker: only real positions were reported.
    assert summary(reports) == [
        ("B" * 14, True),
        ("ABBBBBBBBBBBBB", True),
        ("ABBBBBBBBBBBCB", True),
        ("ABBBBXBBBBBBCB", True),
    ]


@pytest.mark.slow
def test_heartbeats_keep_a_quiet_link_healthy_and_ping_is_answered(rig) -> None:
    source, pico, reports = rig
    first = source.wait_for(lambda s: s.reason == "heartbeat", 2 * HEARTBEAT + 0.5)
    assert first is not None
    later = source.wait_for(lambda s: s.count >= first.count + 2, 3 * HEARTBEAT + 0.5)
    assert later is not None and later.reason == "heartbeat"
    assert 1.5 * HEARTBEAT <= later.received_at - first.received_at <= 2.5 * HEARTBEAT
    assert source.link.ping()
    deadline = time.monotonic() + 2.0
    while source.stats().last_pong_rtt is None and time.monotonic() < deadline:
        time.sleep(0.01)
    assert source.stats().last_pong_rtt is not None
    assert source.stats().missed_frames == 0
    assert summary(reports) == [("B" * 14, True)]


def test_garbage_and_lost_bytes_are_survived(rig) -> None:
    source, pico, reports = rig
    pico.inject_garbage(b"\xa5\x5a\x01\x07\x20" + bytes(range(50)))  # a fake header, then junk
    pico.inject_garbage(length=64)
    pico.set_slide(3, "C")
    assert source.wait_for_positions("BBBCBBBBBBBBBB", 2.0)
    pico.drop_bytes(9)  # the next frame arrives cut short
    pico.set_slide(3, "B")  # ... so this change is lost, and the next heartbeat repairs it
    assert source.wait_for_positions("B" * 14, 3 * HEARTBEAT + 0.5)
    stats = source.stats()
    assert stats.crc_errors + stats.length_errors >= 1
    assert stats.missed_frames >= 1
    assert stats.discarded_bytes > 0
    # The garbage is named (a report of its own when no move came first); only real positions were heard.
    assert slides_heard(reports) == [("B" * 14, True), ("BBBCBBBBBBBBBB", True), ("B" * 14, True)]
    assert reports[0].trouble is None and reports[-1].trouble == link.SOME_GARBLED


def test_unplug_and_replug_mid_game(rig) -> None:
    source, pico, reports = rig
    pico.set_positions("ABCABCABCABCAB")
    assert source.wait_for_positions("ABCABCABCABCAB", 2.0)
    pico.unplug()
    lost = source.wait_for(lambda s: not s.link_ok, TIMEOUT + 1.0)
    assert lost is not None and lost.positions == tuple("ABCABCABCABCAB")  # kept, flagged stale
    assert not source.healthy()
    pico.set_slide(4, "C")  # moved while the cable was out
    time.sleep(0.1)
    pico.replug()
    replugged_at = time.monotonic()
    back = source.wait_for_positions("ABCACCABCABCAB", 2.0)
    assert back is not None
    assert time.monotonic() - replugged_at <= 2 * HEARTBEAT
    assert source.healthy()
    assert source.stats().connects == 2
    assert summary(reports) == [
        ("B" * 14, True),
        ("ABCABCABCABCAB", True),
        ("ABCABCABCABCAB", False),
        ("ABCACCABCABCAB", True),
    ]


@pytest.mark.slow
def test_a_silent_microcontroller_is_a_lost_link_without_invented_positions(rig) -> None:
    source, pico, reports = rig
    pico._powered.clear()  # the program stops (a hang) but the port stays open
    lost = source.wait_for(lambda s: not s.link_ok, TIMEOUT + 1.0)
    assert lost is not None and lost.trouble == link.SILENT
    assert source.stats().connected
    assert summary(reports) == [("B" * 14, True), ("B" * 14, False)]


def test_serial_source_waits_for_a_device_plugged_in_later(tmp_path) -> None:
    config = validate_switches({"source": "serial", "port": str(tmp_path / "ttyLATE")})
    source = RealDevices().open_switches(SimpleNamespace(uses_switches=True, switches=config))
    assert isinstance(source, SerialSwitches) and source.simulator is None
    source.start()
    try:
        time.sleep(0.1)
        assert source.latest() is None and not source.healthy()
        with SimulatedPico(tmp_path / "ttyLATE") as pico:
            pico.set_slide(7, "A")
            assert source.wait_for_positions("BBBBBBBABBBBBB", 3.0)
    finally:
        source.close()


def test_open_switches_simulated_and_none_and_clean_shutdown() -> None:
    before = set(threading.enumerate())
    none = SimpleNamespace(uses_switches=True, switches=validate_switches({"source": "none"}))
    assert RealDevices().open_switches(none) is None
    config = validate_switches({"source": "simulated", "heartbeat_interval": HEARTBEAT, "heartbeat_timeout": TIMEOUT})
    with pytest.raises(ConfigError, match="simulated"):  # real devices never open a simulated board
        RealDevices().open_switches(SimpleNamespace(uses_switches=True, switches=config))
    source = SimulatedDevices(lambda pico: None).open_switches(SimpleNamespace(uses_switches=True, switches=config))
    assert source is not None and source.simulator is not None
    source.start()
    source.simulator.set_slide(1, "C")
    assert source.wait_for_positions("BCBBBBBBBBBBBB", 2.0)
    port = source.simulator.port
    source.close()
    time.sleep(0.05)
    leftover = [t for t in set(threading.enumerate()) - before if t.is_alive()]
    assert leftover == []
    import os

    assert not os.path.exists(port)


# --- faults on the line, each named in a player's words ------------------------------------------
def copy_of(state: SlideState, debounce_ms: int = 20, heartbeat_ms: int = round(HEARTBEAT * 1000)) -> bytes:
    """The frame that carried `state`, byte for byte (as a line that repeats frames would repeat it)."""
    codes = "".join(p or "X" for p in state.positions)
    payload = encode_state(codes, state.uptime_ms, StateReason[state.reason.upper()], debounce_ms, heartbeat_ms)
    return encode_frame(MsgType.STATE, state.seq, payload)


def test_late_and_repeated_copies_never_roll_the_slides_back(rig) -> None:
    """A -> B -> A -> B was heard when an old frame came late; now the copy is dropped."""
    source, pico, reports = rig
    pico.set_slide(2, "A")
    a_state = source.wait_for_positions("BBABBBBBBBBBBB", 2.0)
    pico.set_slide(2, "C")
    c_state = source.wait_for_positions("BBCBBBBBBBBBBB", 2.0)
    assert a_state is not None and c_state is not None
    pico.inject_garbage(copy_of(a_state) + copy_of(c_state) * 3)  # a late copy, and repeats of the newest
    # The copies themselves are never published; the next real state names them.
    later = source.wait_for(lambda s: s.trouble == link.SOME_OLD, 2 * HEARTBEAT + 0.5)
    assert later is not None and later.positions == c_state.positions and later.count > c_state.count
    stats = source.stats()
    assert stats.stale_frames == 4
    assert stats.missed_frames == 0  # a repeat once counted 255 missed frames
    assert slides_heard(reports) == [("B" * 14, True), ("BBABBBBBBBBBBB", True), ("BBCBBBBBBBBBBB", True)]
    assert source.healthy()


def test_a_state_with_impossible_settings_is_garbage_not_news(rig) -> None:
    source, pico, reports = rig
    first = source.latest()
    assert first is not None
    # Right CRC, right letters, and a 23 s heartbeat: once delivered from random garbage.
    bogus = encode_state("C" * 14, first.uptime_ms + 10, StateReason.CHANGE, 20, 23000)
    pico.inject_garbage(encode_frame(MsgType.STATE, (first.seq + 1) % 256, bogus))
    later = source.wait_for(lambda s: s.trouble == link.SOME_GARBLED, 2 * HEARTBEAT + 0.5)
    assert later is not None and later.positions == ("B",) * 14
    assert source.stats().payload_errors == 1
    assert all(p == "B" * 14 for p, _ in summary(reports))


@pytest.mark.slow
def test_a_restart_with_the_cable_in_is_a_fresh_start(rig) -> None:
    """The Pico's uptime goes back; its frames look old until the link counts as lost, then the
    next one is taken afresh, the restart is named, and the Pi's settings are sent again."""
    source, pico, reports = rig
    pico.set_slide(9, "C")
    # Up long enough that a restart, found only after the heartbeat timeout, shows the uptime back.
    before = source.wait_for(lambda s: s.positions[9] == "C" and s.uptime_ms > 1000 * TIMEOUT + 800, 3.0)
    assert before is not None
    pico.restart()
    pico.set_slide(9, "A")  # moved while it restarted
    after = source.wait_for(lambda s: s.link_ok and s.positions[9] == "A", TIMEOUT + 2.0)
    assert after is not None and after.uptime_ms < before.uptime_ms
    assert after.trouble == link.RESTARTED
    # It restarted with its default 1 s heartbeat; the Pi sent its own again, so four more states
    # come within 2 s (at 1 s apart they would take 3 s).
    assert source.wait_for(lambda s: s.count >= after.count + 4, 2.0) is not None
    stats = source.stats()
    assert (stats.restarts, stats.connects) == (1, 1)
    assert source.healthy()
    assert (summary(reports)[-2][1], summary(reports)[-1]) == (False, ("BBBBBBBBBABBBB", True))


@pytest.mark.slow
def test_the_trouble_is_named_when_the_link_is_lost(rig) -> None:
    source, pico, reports = rig
    assert source.trouble() is None
    pico._powered.clear()  # the program stops; only garbage comes
    deadline = time.monotonic() + TIMEOUT + 1.0
    while source.healthy() and time.monotonic() < deadline:
        pico.inject_garbage(b"\xa5\x5a\x01\x00\x18" + bytes(8))
        time.sleep(0.05)
    lost = source.wait_for(lambda s: not s.link_ok, 1.0)
    assert lost is not None and lost.trouble == link.GARBLED
    pico.unplug()
    deadline = time.monotonic() + 2.0
    while source.trouble() != link.UNPLUGGED and time.monotonic() < deadline:
        time.sleep(0.01)
    assert source.trouble() == link.UNPLUGGED
