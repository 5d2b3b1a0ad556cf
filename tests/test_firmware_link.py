"""The Pi side talking to the simulated Pico through a real pseudo-terminal."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import pytest

from controller.hardware.config import validate_switches
from controller.hardware.switches import SerialSwitches, SlideState, SwitchSource, open_switches
from firmware_bridge.sim import SimulatedPico

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
    assert summary(reports) == [("B" * 14, True), ("BBBCBBBBBBBBBB", True), ("B" * 14, True)]


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


def test_a_silent_microcontroller_is_a_lost_link_without_invented_positions(rig) -> None:
    source, pico, reports = rig
    pico._powered.clear()  # the program stops (a hang) but the port stays open
    assert source.wait_for(lambda s: not s.link_ok, TIMEOUT + 1.0)
    assert source.stats().connected
    assert summary(reports) == [("B" * 14, True), ("B" * 14, False)]


def test_serial_source_waits_for_a_device_plugged_in_later(tmp_path) -> None:
    config = validate_switches({"source": "serial", "port": str(tmp_path / "ttyLATE")})
    source = open_switches(config)
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
    assert open_switches(validate_switches({"source": "none"})) is None
    config = validate_switches({"source": "simulated", "heartbeat_interval": HEARTBEAT, "heartbeat_timeout": TIMEOUT})
    source = open_switches(config)
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
