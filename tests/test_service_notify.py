"""systemd notifications: READY and WATCHDOG only while pictures are fresh (issue 9).

The real `Service.run` is driven in real time with a datagram socket standing in for systemd's
$NOTIFY_SOCKET, and the simulated camera is unplugged half-way. Each phase waits for what it
expects (with a generous limit) rather than for a fixed time, so a loaded machine is only slower.
"""

from __future__ import annotations

import os
import random
import socket
import threading
import time

import pytest

from controller.assembly import assemble
from controller.service.config import config_from_mapping
from controller.service.notify import Notifier
from simulation.devices import SimulatedDevices
from simulation.world import SimWorld, starting_board

pytestmark = pytest.mark.slow  # every test here takes seconds


def receive_until(sock: socket.socket, done, limit: float) -> list[str]:
    """Messages until `done(messages)` holds or `limit` seconds pass."""
    out: list[str] = []
    end = time.monotonic() + limit
    while not done(out) and time.monotonic() < end:
        sock.settimeout(max(0.01, end - time.monotonic()))
        try:
            out.append(sock.recv(4096).decode())
        except TimeoutError:
            break
    return out


def receive_all(sock: socket.socket, seconds: float) -> list[str]:
    """Every message of the next `seconds`."""
    return receive_until(sock, lambda got: False, seconds)


def watchdogs(messages: list[str]) -> int:
    return sum(m == "WATCHDOG=1" for m in messages)


def test_ready_and_watchdog_only_while_frames_are_fresh(tmp_path, monkeypatch):
    address = str(tmp_path / "notify.sock")
    systemd = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    systemd.bind(address)
    monkeypatch.setenv("WATCHDOG_USEC", "200000")  # pings every 0.1 s
    monkeypatch.setenv("WATCHDOG_PID", str(os.getpid()))
    config = config_from_mapping(
        {
            "game": "flipop",
            "journal": str(tmp_path / "journal.sqlite"),
            "frame_timeout": 0.3,
            "camera": {"source": "renderer", "fps": 20},
            "switches": {"source": "none"},
            "gpio": {"backend": "mock"},
        },
        base=tmp_path,
    )
    board = starting_board(config.setup, random.Random(0))
    devices = SimulatedDevices(lambda pico: SimWorld(config.setup, board, pico=pico))
    service = assemble(config, devices=devices, control=False)
    stop = threading.Event()
    runner = threading.Thread(target=service.run, args=(stop, Notifier(address)), daemon=True)
    try:
        runner.start()
        fresh = receive_until(systemd, lambda got: watchdogs(got) >= 5, 30.0)
        service.world.set_camera(False)
        going_blind = receive_until(
            systemd, lambda got: any(m.startswith("STATUS=waiting") for m in got), 30.0
        )  # past the frame timeout
        blind = receive_all(systemd, 1.0)
        service.world.set_camera(True)
        back = receive_until(systemd, lambda got: watchdogs(got) >= 3, 30.0)
    finally:
        stop.set()
        runner.join(5)
        service.close()
        systemd.close()
    assert sum(m.startswith("READY=1") for m in fresh) == 1
    assert watchdogs(fresh) >= 5
    assert any(m.startswith("STATUS=waiting") and "camera" in m for m in going_blind)
    assert watchdogs(blind) == 0  # once it says it is waiting for the camera, no more pings
    assert watchdogs(back) >= 3
    assert not any(m.startswith("READY=1") for m in blind + back)
