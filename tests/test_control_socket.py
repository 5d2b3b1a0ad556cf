"""The control socket: every input answered, clients served side by side, retries never applied twice,
and the socket kept in a private folder."""

from __future__ import annotations

import json
import os
import queue
import socket
import stat
import threading
import time
from argparse import Namespace
from concurrent.futures import Future
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.errors import RefereeError
from controller.service import config as service_config
from controller.service.control import COMMANDS, MAX_REQUEST, ControlServer, request, socket_path
from simulation.world import StubRig


class FakeLoop:
    """Runs submitted commands on its own thread, as `RefereeLoop` does: a Future per command,
    skipped when cancelled before the loop takes it up. `paused` stands for a stuck loop."""

    def __init__(self) -> None:
        self.commands: queue.SimpleQueue = queue.SimpleQueue()
        self.applied: list[tuple[str, dict]] = []
        self.running = threading.Event()
        self.running.set()
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._work, daemon=True)
        self.thread.start()

    def submit(self, name: str, **args) -> Future:  # the same signature as RefereeLoop.submit
        future: Future = Future()
        self.commands.put((name, args, future))
        return future

    def _work(self) -> None:
        while not self.stop.is_set():
            try:
                name, args, future = self.commands.get(timeout=0.05)
            except queue.Empty:
                continue
            while not self.running.wait(0.05):  # stuck: the command waits in the queue
                if self.stop.is_set():
                    return
            if not future.set_running_or_notify_cancel():
                continue
            self.applied.append((name, args))
            if name == "end":
                future.set_exception(RefereeError("the game cannot be ended by agreement: not in this game"))
            else:
                future.set_result({"ok": True, "command": name, "count": len(self.applied)})


@pytest.fixture
def served(tmp_path):
    loop = FakeLoop()
    server = ControlServer(tmp_path / "ctl.sock", loop.submit, timeout=2.0, request_timeout=0.5)
    server.start()
    yield server, loop
    server.close()
    loop.stop.set()


def send_raw(path: Path, data: bytes, timeout: float = 5.0) -> dict:
    """Send raw bytes (then end the request) and return the parsed answer line."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(timeout)
        sock.connect(str(path))
        try:
            sock.sendall(data)
            sock.shutdown(socket.SHUT_WR)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the server answered a too-long request early and hung up
        answer = b""
        while not answer.endswith(b"\n"):
            chunk = sock.recv(4096)
            if not chunk:
                break
            answer += chunk
    return json.loads(answer)


def assert_sentence(answer: dict) -> None:
    assert answer["ok"] is False
    assert isinstance(answer["error"], str) and " " in answer["error"] and len(answer["error"]) > 15


def still_serving(server: ControlServer) -> None:
    assert request(server.path, "status", timeout=5)["command"] == "status"


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.binary(max_size=3000))
@pytest.mark.slow
def test_any_bytes_get_an_answer(served, data):
    server, _ = served
    answer = send_raw(server.path, data)
    assert isinstance(answer, dict) and "ok" in answer
    if not answer["ok"]:
        assert_sentence(answer)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20,
)
requests = st.one_of(
    json_values,
    st.builds(
        lambda command, extra: {"command": command, **extra},
        st.sampled_from([*COMMANDS, "dance", ""]),
        st.dictionaries(st.sampled_from(["id", "seat", "colours", "name", "command"]), json_values, max_size=3),
    ),
)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(value=requests)
@pytest.mark.slow
def test_any_json_gets_an_answer_and_only_well_formed_commands_run(served, value):
    server, loop = served
    before = len(loop.applied)
    answer = send_raw(server.path, (json.dumps(value) + "\n").encode())
    assert "ok" in answer
    if not answer["ok"]:
        assert_sentence(answer)
    ran = loop.applied[before:]
    for name, args in ran:  # whatever ran had exactly the arguments its command takes
        assert set(args) <= set(COMMANDS[name])


def test_hostile_requests_and_the_server_stays_up(served):
    server, _ = served
    nested = b"[" * 30_000
    assert "longer than" in send_raw(server.path, nested)["error"]
    assert "not a JSON object" in send_raw(server.path, b"[" * (MAX_REQUEST - 10) + b"\n")["error"]
    extra = send_raw(server.path, b'{"command": "status", "name": "x"}\n')
    assert "status command takes no arguments" in extra["error"] and "'name'" in extra["error"]
    assert (
        "reveal needs a seat"
        in send_raw(server.path, b'{"command": "reveal", "seat": true, "colours": ["G"]}\n')["error"]
    )
    assert "UTF-8" in send_raw(server.path, b"\xff\xfe\n")["error"]
    assert "unknown command" in send_raw(server.path, b'{"command": ["status"]}\n')["error"]
    still_serving(server)


@pytest.mark.slow
def test_a_silent_client_holds_up_nobody(served):
    server, _ = served
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as silent:
        silent.connect(str(server.path))
        start = time.monotonic()
        still_serving(server)
        assert time.monotonic() - start < 0.4  # answered while the silent client still waits
        silent.settimeout(3)
        answer = json.loads(silent.recv(4096))
    assert "no complete request line came within 0.5 s" in answer["error"]


def test_more_clients_than_slots_are_told_the_referee_is_busy(tmp_path):
    loop = FakeLoop()
    server = ControlServer(tmp_path / "ctl.sock", loop.submit, request_timeout=2.0, max_clients=1)
    server.start()
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as silent:
            silent.connect(str(server.path))
            time.sleep(0.1)
            assert "busy" in send_raw(server.path, b'{"command": "status"}\n')["error"]
    finally:
        server.close()
        loop.stop.set()


def test_a_retry_with_the_same_id_is_answered_not_applied_again(served):
    server, loop = served
    first = request(server.path, "new-game", request_id="game-1")
    again = request(server.path, "new-game", request_id="game-1")
    assert first == again
    assert [name for name, _ in loop.applied] == ["new-game"]
    request(server.path, "new-game")  # a new id: a new command
    assert [name for name, _ in loop.applied] == ["new-game", "new-game"]
    with pytest.raises(RefereeError, match="already used for another command"):
        request(server.path, "status", request_id="game-1")
    with pytest.raises(RefereeError, match="cannot be ended"):  # a refusal is remembered too
        request(server.path, "end", request_id="end-1")
    with pytest.raises(RefereeError, match="cannot be ended"):
        request(server.path, "end", request_id="end-1")
    assert [name for name, _ in loop.applied].count("end") == 1


@pytest.mark.slow
def test_a_command_not_taken_up_in_time_is_withdrawn_and_never_runs(tmp_path):
    loop = FakeLoop()
    loop.running.clear()  # the loop is stuck
    server = ControlServer(tmp_path / "ctl.sock", loop.submit, timeout=0.3)
    server.start()
    try:
        with pytest.raises(RefereeError, match="withdrawn and not carried out"):
            request(server.path, "new-game", request_id="n1")
        loop.running.set()  # the loop comes back
        time.sleep(0.3)
        assert loop.applied == []  # the withdrawn command did not run later
        answer = request(server.path, "new-game", request_id="n1")  # the retry runs it, once
        assert answer["ok"] and [name for name, _ in loop.applied] == ["new-game"]
    finally:
        server.close()
        loop.stop.set()


def test_the_real_loop_answers_an_extra_key_and_keeps_serving(tmp_path):
    flipop = {"game": "flipop", "players": 2}
    rig = StubRig(flipop, tmp_path / "j.sqlite", seed=1, troubles=False, max_moves=2)
    rig.driver.run(rig.player.steps())
    stop = threading.Event()

    def tick() -> None:
        while not stop.is_set():
            rig.driver.run_frames(1)
            time.sleep(0.002)

    server = ControlServer(tmp_path / "ctl.sock", rig.loop.submit, timeout=5)
    server.start()
    ticker = threading.Thread(target=tick, daemon=True)
    ticker.start()
    try:
        assert "takes no arguments" in send_raw(server.path, b'{"command": "status", "name": "x"}\n')["error"]
        assert (
            "takes only seat, colours"
            in send_raw(server.path, b'{"command": "reveal", "seat": 0, "colours": ["G"], "name": "x"}\n')["error"]
        )
        assert request(server.path, "status")["game"] == "flipop"
    finally:
        stop.set()
        ticker.join(2)
        server.close()


# --- where the socket lives -----------------------------------------------------------------
def test_default_socket_is_in_a_private_runtime_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("RUNTIME_DIRECTORY", str(tmp_path / "run"))
    assert service_config.default_control_socket() == tmp_path / "run" / "control.sock"
    monkeypatch.delenv("RUNTIME_DIRECTORY")
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path / "xdg"))
    assert service_config.default_control_socket() == tmp_path / "xdg" / "referee" / "control.sock"
    monkeypatch.delenv("XDG_RUNTIME_DIR")
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    path = service_config.default_control_socket()
    assert path == tmp_path / f"referee-{os.getuid()}" / "control.sock"
    loop = FakeLoop()
    server = ControlServer(path, loop.submit)
    try:
        assert stat.S_IMODE(os.stat(path.parent).st_mode) == 0o700
        assert stat.S_IMODE(os.stat(path).st_mode) == 0o660
    finally:
        server.close()
        loop.stop.set()
    assert not path.exists()
    os.chmod(path.parent, 0o777)  # someone opened up the folder: no socket there
    with pytest.raises(RefereeError, match="not a private folder"):
        ControlServer(path, loop.submit)


def test_config_without_control_socket_uses_the_default(tmp_path, monkeypatch):
    monkeypatch.delenv("RUNTIME_DIRECTORY", raising=False)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    keys = {"game": "flipop", "players": 2, "camera": {"source": "renderer"}, "gpio": {"backend": "mock"}}
    for extra in ({}, {"control_socket": None}):
        config = service_config.config_from_mapping({**keys, **extra}, base=tmp_path)
        assert config.control_socket == tmp_path / "referee" / "control.sock"


def test_a_foreign_file_at_the_path_is_named_and_left_alone(tmp_path):
    loop = FakeLoop()
    path = tmp_path / "ctl.sock"
    path.write_text("my notes")
    with pytest.raises(RefereeError, match="not a socket; the referee leaves it alone"):
        ControlServer(path, loop.submit)
    assert path.read_text() == "my notes"
    path.unlink()
    first = ControlServer(path, loop.submit)
    first.start()
    try:
        with pytest.raises(RefereeError, match="another referee is already running"):
            ControlServer(path, loop.submit)
    finally:  # it dies without cleaning up: its socket file stays
        first._stop.set()
        first._thread.join(2)  # a socket closed while another thread waits in accept() still listens
        first.sock.close()
    second = ControlServer(path, loop.submit)  # a stale socket of our own is replaced
    second.close()
    loop.stop.set()


@pytest.mark.skipif(os.getuid() != 0, reason="making a file of another user needs root")
def test_a_socket_of_another_user_is_left_alone(tmp_path):
    path = tmp_path / "ctl.sock"
    other = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    other.bind(str(path))
    other.close()  # not listening: a stale socket, but not ours
    os.chown(path, 12345, 12345)
    with pytest.raises(RefereeError, match="socket of another user"):
        ControlServer(path, FakeLoop().submit)
    assert path.exists()


def test_clients_find_the_socket_and_name_what_is_wrong(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("RUNTIME_DIRECTORY", raising=False)
    with pytest.raises(RefereeError, match="cannot read the config file missing.yaml"):
        socket_path(Namespace(config="missing.yaml", socket=None))
    (tmp_path / "c.yaml").write_text("game: flipop\ncontrol_socket: sub/ctl.sock\n")
    assert socket_path(Namespace(config=str(tmp_path / "c.yaml"), socket=None)) == tmp_path / "sub" / "ctl.sock"
    (tmp_path / "bin.yaml").write_bytes(b"\x9b\xff\x00")
    with pytest.raises(RefereeError, match="not a text file"):
        socket_path(Namespace(config="bin.yaml", socket=None))
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path / "xdg"))
    assert socket_path(Namespace(config=None, socket=None)) == tmp_path / "xdg" / "referee" / "control.sock"
    (tmp_path / "notes.txt").write_text("x")
    with pytest.raises(RefereeError, match="not a referee's control socket"):
        request(tmp_path / "notes.txt", "status")
    with pytest.raises(RefereeError, match="no referee is running"):
        request(tmp_path / "none.sock", "status")


def test_the_client_retries_a_dropped_connection_with_the_same_id(tmp_path):
    path = tmp_path / "flaky.sock"
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(str(path))
    listener.listen(2)
    seen = []

    def flaky_referee() -> None:
        for attempt in range(2):
            conn, _ = listener.accept()
            with conn:
                seen.append(json.loads(conn.recv(4096)))
                if attempt == 1:  # the first connection drops without an answer
                    conn.sendall(b'{"ok": true, "game_id": 7}\n')

    server = threading.Thread(target=flaky_referee, daemon=True)
    server.start()
    try:
        assert request(path, "new-game", timeout=5)["game_id"] == 7
    finally:
        server.join(5)
        listener.close()
    assert len(seen) == 2 and seen[0] == seen[1] and seen[0]["command"] == "new-game" and seen[0]["id"]
