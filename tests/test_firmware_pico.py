"""The MicroPython program itself, run with stand-in modules and an injected clock."""

from __future__ import annotations

import ast

import pytest

from firmware_bridge.protocol import FrameParser, MsgType, StateReason, decode_state, encode_config, encode_frame
from simulation.pico import (
    FIRMWARE_PATH,
    MICROPYTHON_MODULES,
    SimulatedPico,
    SwitchBoard,
    load_firmware,
    machine_module,
    micropython_module,
    micropython_time,
    switch_indexes,
)


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class Bench:
    """The program's Firmware object on a simulated switch board, stepped by hand."""

    def __init__(self, debounce_ms: int = 30, heartbeat_ms: int = 1000) -> None:
        self.clock = FakeClock()
        self.board = SwitchBoard(seed=3, clock=self.clock)
        machine = machine_module(self.board, lambda: None)
        self.time = micropython_time(self.clock, lambda: None)
        self.program = load_firmware(
            {
                "machine": machine,
                "time": self.time,
                "sys": object(),
                "select": object(),
                "micropython": micropython_module(),
            }
        )
        machine.wire(self.program["ROW_PINS"], self.program["COL_PINS"])
        matrix = self.program["SwitchMatrix"](machine.Pin)
        self.sent = bytearray()
        self.firmware = self.program["Firmware"](
            matrix.read, self.sent.extend, self.time.ticks_ms, self.time.ticks_diff, debounce_ms, heartbeat_ms
        )
        self.parser = FrameParser()

    def set_slide(self, index: int, position: str, bounce_ms: float = 0.0) -> None:
        a, c = switch_indexes(index)
        self.board.set_switch(a, position == "A", bounce_ms)
        self.board.set_switch(c, position == "C", bounce_ms)

    def run(self, ms: int) -> list:
        """Tick once per millisecond for `ms` ms; return (time, frame) for every frame sent."""
        out = []
        for _ in range(ms):
            self.clock.now += 0.001
            self.firmware.tick()
            out += [(self.clock.now, f) for f in self.frames()]
        return out

    def frames(self) -> list:
        frames = self.parser.feed(bytes(self.sent))
        self.sent.clear()
        return frames


def states(timed_frames: list) -> list:
    return [decode_state(f.payload) for _, f in timed_frames if f.type == MsgType.STATE]


def test_the_program_uses_only_micropython_features() -> None:
    tree = ast.parse(FIRMWARE_PATH.read_text())
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module]
            assert set(names) <= set(MICROPYTHON_MODULES), names
        assert not isinstance(node, (ast.AnnAssign, ast.JoinedStr)), ast.dump(node)
        if isinstance(node, ast.arg):
            assert node.annotation is None
        if isinstance(node, ast.FunctionDef):
            assert node.returns is None


def test_boot_sends_the_state_at_once() -> None:
    bench = Bench()
    [boot] = [decode_state(f.payload) for f in bench.frames()]
    assert boot.reason == StateReason.BOOT
    assert boot.positions == ("B",) * 14


@pytest.mark.parametrize("index", [0, 6, 7, 13])
@pytest.mark.parametrize("position", ["A", "C"])
def test_matrix_wiring_maps_each_slide(index: int, position: str) -> None:
    bench = Bench()
    bench.frames()
    bench.set_slide(index, position)
    [state] = states(bench.run(40))
    expected = ["B"] * 14
    expected[index] = position
    assert state.positions == tuple(expected)
    assert state.reason == StateReason.CHANGE


def test_contradicting_switches_are_a_fault_not_a_position() -> None:
    bench = Bench()
    bench.frames()
    a, c = switch_indexes(9)
    bench.board.set_switch(a, True)
    bench.board.set_switch(c, True)
    [state] = states(bench.run(40))
    assert state.faults == (9,)
    assert state.positions[9] is None


def test_a_bouncing_move_is_reported_once_after_the_debounce_time() -> None:
    bench = Bench(debounce_ms=30)
    bench.frames()
    moved_at = bench.clock.now
    bench.set_slide(4, "A", bounce_ms=12)
    timed = bench.run(80)
    [state] = states(timed)
    assert state.positions[4] == "A"
    delay_ms = (timed[0][0] - moved_at) * 1000
    assert 30 <= delay_ms <= 12 + 30 + 2


def test_bounce_and_glitches_shorter_than_the_debounce_time_are_ignored() -> None:
    bench = Bench(debounce_ms=30)
    bench.frames()
    a, _ = switch_indexes(2)
    bench.board.bounce(a, 15)  # chatter, then back where it was
    assert states(bench.run(60)) == []
    bench.board.set_switch(a, True)  # a 25 ms glitch
    bench.run(25)
    bench.board.set_switch(a, False)
    assert states(bench.run(60)) == []


def test_heartbeat_repeats_the_state_every_period() -> None:
    bench = Bench(heartbeat_ms=200)
    bench.frames()
    timed = bench.run(1000)
    beats = states(timed)
    assert len(beats) == 5
    assert {s.reason for s in beats} == {StateReason.HEARTBEAT}
    assert [f.seq for _, f in timed] == [1, 2, 3, 4, 5]
    assert beats[-1].uptime_ms == 1000


def test_ping_get_state_and_config_are_answered() -> None:
    bench = Bench()
    bench.frames()
    bench.firmware.receive(b"\x00garbage\xa5" + encode_frame(MsgType.PING, 0, b"token"))
    [pong] = bench.frames()
    assert (pong.type, pong.payload) == (MsgType.PONG, b"token")

    bench.firmware.receive(encode_frame(MsgType.GET_STATE, 1, b""))
    assert states([(0, f) for f in bench.frames()])[0].reason == StateReason.REQUEST

    bench.firmware.receive(encode_frame(MsgType.CONFIG, 2, encode_config(45, 300)))
    [config] = states([(0, f) for f in bench.frames()])
    assert (config.reason, config.debounce_ms, config.heartbeat_ms) == (StateReason.CONFIG, 45, 300)

    for debounce, heartbeat in ((5, 300), (51, 300), (45, 49), (45, 5001)):
        bench.firmware.receive(encode_frame(MsgType.CONFIG, 3, encode_config(debounce, heartbeat)))
        assert bench.frames() == []  # out of range: garbage with a lucky CRC, neither applied nor answered
    bench.firmware.receive(encode_frame(MsgType.GET_STATE, 1, b""))
    [kept] = states([(0, f) for f in bench.frames()])
    assert (kept.debounce_ms, kept.heartbeat_ms) == (45, 300)
    assert bench.firmware.reader.bad_frames == 4

    corrupt = bytearray(encode_frame(MsgType.PING, 4, b"x"))
    corrupt[-1] ^= 1
    bench.firmware.receive(bytes(corrupt))
    assert bench.frames() == []


def test_the_simulator_runs_the_real_program_behind_a_pty(tmp_path) -> None:
    """The program's frames, read straight from the pty with pyserial."""
    import serial

    with SimulatedPico(tmp_path / "ttyTEST") as pico:
        port = serial.Serial(pico.port, 115200, timeout=0.05)
        try:
            port.write(encode_frame(MsgType.CONFIG, 0, encode_config(20, 1000)))
            pico.set_slide(13, "C")
            parser = FrameParser()
            seen = []
            for _ in range(100):
                seen += [decode_state(f.payload) for f in parser.feed(port.read(256)) if f.type == MsgType.STATE]
                if seen and seen[-1].positions[13] == "C":
                    break
            assert seen[-1].positions == ("B",) * 13 + ("C",)
            assert pico.crash is None
        finally:
            port.close()
    assert not (tmp_path / "ttyTEST").exists()


def test_eight_ctrl_c_bytes_stop_the_program_but_frames_with_0x03_do_not() -> None:
    bench = Bench()
    bench.frames()
    config = encode_frame(MsgType.CONFIG, 3, bytes((0x03, 0x03, 0x03)))  # seq, length, payload
    assert bench.firmware.receive(config) is True
    assert bench.firmware.receive(b"\x03" * 7 + b"\x00") is True
    assert bench.firmware.receive(b"\x03" * 4) is True
    assert bench.firmware.receive(b"\x03" * 4) is False


def test_the_simulated_program_returns_to_the_repl_on_the_escape(tmp_path) -> None:
    import serial

    with SimulatedPico(tmp_path / "ttyESC") as pico:
        port = serial.Serial(pico.port, 115200, timeout=0.05)
        try:
            port.write(b"\x03" * 8)
            pico._thread.join(2.0)
            assert not pico._thread.is_alive()
            assert pico.crash is None
        finally:
            port.close()
