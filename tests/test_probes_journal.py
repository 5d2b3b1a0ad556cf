"""Probe: two referees on one journal (issue 30). The second `referee run` of the same journal stops
at once with a sentence naming the first process; a lock left by a killed referee stops nobody;
the same for the camera."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml
from mqtt_helpers import free_port

from controller.errors import RefereeError
from controller.exclusive import lock_camera, lock_device, lock_journal

ROOT = Path(__file__).resolve().parent.parent
HOLD = "import sys; from pathlib import Path; from controller.exclusive import {fn}; held = {fn}({arg}); "
HOLD += "print('held', flush=True); sys.stdin.read()"


def _config(folder: Path, journal: Path) -> Path:
    data = {
        "game": "flipop",
        "players": 2,
        "journal": str(journal),
        "control_socket": str(folder / "control.sock"),
        "camera": {"source": "renderer", "width": 320, "height": 240, "fps": 5},
        "switches": {"source": "none"},
        "gpio": {"backend": "mock"},
        "simulation": {"player": False},
        "web": {"host": "127.0.0.1", "port": free_port(), "pin": "480613"},
    }
    path = folder / "config.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


def _holder(fn: str, arg: str) -> subprocess.Popen:
    process = subprocess.Popen(
        [sys.executable, "-c", HOLD.format(fn=fn, arg=arg)], cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE
    )
    assert process.stdout.readline().strip() == b"held"
    return process


@pytest.mark.slow
def test_a_second_referee_on_the_same_journal_stops_naming_the_first(tmp_path):
    journal = tmp_path / "journal.sqlite"
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    first = subprocess.Popen(
        [sys.executable, "-m", "controller.cli", "run", "--config", str(_config(tmp_path / "a", journal))],
        cwd=ROOT,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 60
        while not (tmp_path / "a" / "control.sock").exists():
            assert first.poll() is None and time.monotonic() < deadline, "the first referee did not start"
            time.sleep(0.1)
        second = subprocess.run(
            [sys.executable, "-m", "controller.cli", "run", "--config", str(_config(tmp_path / "b", journal))],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert second.returncode == 2 and "Traceback" not in second.stderr
        assert f"the journal {journal} is already in use by process {first.pid} (" in second.stderr
        assert f"(referee run --config {tmp_path / 'a' / 'config.yaml'})" in second.stderr
        assert "one referee per journal" in second.stderr
    finally:
        first.send_signal(signal.SIGTERM)
        first.wait(20)


def test_a_lock_left_by_a_killed_referee_stops_nobody(tmp_path):
    journal = tmp_path / "journal.sqlite"
    holder = _holder("lock_journal", f"Path({str(journal)!r})")
    with pytest.raises(RefereeError, match=rf"in use by process {holder.pid} \(.*lock_journal"):
        lock_journal(journal)
    os.kill(holder.pid, signal.SIGKILL)
    holder.wait(5)
    assert (tmp_path / "journal.sqlite.lock").exists()  # the file stays; the kernel let go of the lock
    lock_journal(journal).release()


@pytest.mark.slow
def test_a_camera_in_use_is_named_with_its_process(tmp_path):
    node = tmp_path / "video7"  # a stand-in for /dev/video7: flock works on any file
    node.write_bytes(b"")
    holder = _holder("lock_device", f"Path({str(node)!r}), 'the camera', 'stop it'")
    try:
        with pytest.raises(RefereeError, match=rf"the camera {node} is already in use by process {holder.pid} \("):
            lock_device(node, f"the camera {node}", "stop it")
    finally:
        holder.kill()
        holder.wait(5)
    held = lock_camera({"source": "usb", "device": str(node)})
    assert held is not None
    held.release()
    assert lock_camera({"source": "renderer"}) is None and lock_camera({"source": "video", "path": "x"}) is None
    first = lock_camera({"source": "picamera"}, folder=tmp_path, media=[])  # no media nodes: a lock file
    with pytest.raises(RefereeError, match=rf"the Pi camera 0 is already in use by process {os.getpid()}"):
        lock_camera({"source": "picamera"}, folder=tmp_path, media=[])
    first.release()
    nodes = [tmp_path / "media0", tmp_path / "media1"]  # stand-ins for /dev/media0, /dev/media1
    for node in nodes:
        node.write_bytes(b"")
    holder = _holder("lock_device", f"Path({str(nodes[1])!r}), 'the Pi camera', 'stop it'")
    try:
        with pytest.raises(
            RefereeError, match=rf"the Pi camera \({nodes[1]}\) is already in use by process {holder.pid}"
        ):
            lock_camera({"source": "picamera"}, media=nodes)
        lock_device(nodes[0], "media0", "").release()  # the first node was let go again
    finally:
        holder.kill()
        holder.wait(5)
    lock_camera({"source": "picamera"}, media=nodes).release()


def test_a_file_closed_while_the_holders_are_looked_for_does_not_hide_the_holder(tmp_path, monkeypatch):
    """A busy process (this one, with its threads) opens and closes files while /proc is read: a
    descriptor gone between listing and reading its link once hid the whole process, and a camera
    in use was said to be held by "another process" (seen in full test runs)."""
    from controller import exclusive

    node = tmp_path / "video5"
    node.write_bytes(b"")
    held = lock_device(node, f"the camera {node}", "stop it")
    real = os.readlink
    gone = []

    def readlink(path, *args, **kwargs):
        if str(path).startswith(f"/proc/{os.getpid()}/fd/") and not gone:
            gone.append(path)  # the first descriptor listed was closed meanwhile
            raise FileNotFoundError(path)
        return real(path, *args, **kwargs)

    monkeypatch.setattr(exclusive.os, "readlink", readlink)
    try:
        assert os.getpid() in exclusive.processes_using(node) and gone
    finally:
        held.release()


def test_every_command_that_opens_a_camera_holds_its_lock(tmp_path, monkeypatch):
    """`open_frame_source` (referee run, aim, setup, calibrate --camera) locks the camera until closed."""
    from controller.vision import sources

    node = tmp_path / "video3"
    node.write_bytes(b"")
    opened = []

    class FakeCamera:
        def __init__(self, *args):
            opened.append(args)
            self.exposure = 120

        def read(self):
            return None

        def close(self):
            opened.append("closed")

    monkeypatch.setattr(sources, "UsbCamera", FakeCamera)
    camera = sources.open_frame_source({"source": "usb", "device": str(node)})
    assert camera.exposure == 120  # the camera itself behind its lock
    with pytest.raises(RefereeError, match=rf"the camera {node} is already in use by process {os.getpid()}"):
        sources.open_frame_source({"source": "usb", "device": str(node)})
    assert len(opened) == 1  # the second never opened the camera
    camera.close()
    assert opened[-1] == "closed"
    sources.open_frame_source({"source": "usb", "device": str(node)}).close()
