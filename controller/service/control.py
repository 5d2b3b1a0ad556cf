"""The local control interface: a Unix socket speaking one JSON object per line.

`referee status`, `new-game`, `reveal` and `end` connect, send ``{"command": NAME, ...}`` and read
one answer: ``{"ok": true, ...}`` or ``{"ok": false, "error": "a sentence"}``. The server only
queues the command for the loop's thread (`RefereeLoop.submit`), so the game is never touched from
two threads. The socket is created with mode 0660: only its owner and group may steer the game.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import threading
from pathlib import Path
from typing import Any

from controller.errors import RefereeError

COMMANDS = ("status", "new-game", "reveal", "end")
ANSWER_TIMEOUT = 10.0
MAX_REQUEST = 64 * 1024


class ControlServer:
    """Accepts control connections in a background thread and forwards them to the loop."""

    def __init__(self, path: str | Path, submit, timeout: float = ANSWER_TIMEOUT) -> None:
        self.path = Path(path)
        self.submit = submit
        self.timeout = timeout
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.sock = self._bind()

    def _bind(self) -> socket.socket:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise RefereeError(f"cannot create the folder of the control socket {self.path}: {exc.strerror}") from None
        if self.path.exists():
            probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                probe.connect(str(self.path))
            except OSError:
                self.path.unlink()  # left over from a service that died: safe to replace
            else:
                probe.close()
                raise RefereeError(
                    f"another referee is already running with the control socket {self.path}; stop it first"
                )
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.bind(str(self.path))
            os.chmod(self.path, 0o660)
            sock.listen(4)
        except OSError as exc:
            sock.close()
            raise RefereeError(f"cannot open the control socket {self.path}: {exc.strerror}") from None
        sock.settimeout(0.2)
        return sock

    def start(self) -> None:
        self._thread = threading.Thread(target=self._serve, name="referee-control", daemon=True)
        self._thread.start()

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2)
        self.sock.close()
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            with conn:
                conn.settimeout(self.timeout)
                try:
                    answer = self.answer(_read_line(conn))
                except (OSError, ValueError) as exc:
                    answer = {"ok": False, "error": f"bad request: {exc}"}
                with contextlib.suppress(OSError):
                    conn.sendall((json.dumps(answer) + "\n").encode("utf-8"))

    def answer(self, line: bytes) -> dict[str, Any]:
        """The answer to one request line (also used directly by tests)."""
        try:
            request = json.loads(line.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError):
            return {"ok": False, "error": "the request is not a JSON object"}
        if not isinstance(request, dict) or request.get("command") not in COMMANDS:
            return {"ok": False, "error": f"unknown command; the commands are {', '.join(COMMANDS)}"}
        args = {k: v for k, v in request.items() if k != "command"}
        future = self.submit(request["command"], **args)
        try:
            return future.result(timeout=self.timeout)
        except RefereeError as exc:
            return {"ok": False, "error": str(exc)}
        except TimeoutError:
            return {"ok": False, "error": "the referee did not answer in time; is it stuck? see its log"}
        except Exception as exc:  # a bug in a command: say so rather than hang up
            return {"ok": False, "error": f"the command failed: {exc}"}


def _read_line(conn: socket.socket) -> bytes:
    data = b""
    while not data.endswith(b"\n"):
        chunk = conn.recv(4096)
        if not chunk:
            break
        data += chunk
        if len(data) > MAX_REQUEST:
            raise ValueError("request too long")
    return data.strip()


def request(path: str | Path, command: str, timeout: float = ANSWER_TIMEOUT + 2, **args: Any) -> dict[str, Any]:
    """Send one command to a running referee and return its answer (raises RefereeError if none)."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(timeout)
    try:
        sock.connect(str(path))
    except FileNotFoundError:
        raise RefereeError(
            f"no referee is running (no control socket at {path}); start it with `referee run` "
            "or check control_socket in config.yaml"
        ) from None
    except OSError as exc:
        raise RefereeError(f"cannot reach the referee at {path}: {exc.strerror or exc}") from None
    try:
        with sock:
            sock.sendall((json.dumps({"command": command, **args}) + "\n").encode("utf-8"))
            line = _read_line(sock)
    except OSError as exc:
        raise RefereeError(f"the referee at {path} did not answer: {exc.strerror or exc}") from None
    if not line:
        raise RefereeError(f"the referee at {path} closed the connection without answering")
    answer = json.loads(line.decode("utf-8"))
    if not answer.get("ok"):
        raise RefereeError(answer.get("error", "the referee refused the command"))
    return answer


def socket_path(args) -> Path:
    """The control socket a command should talk to: --socket, else the one in --config's file."""
    if getattr(args, "socket", None):
        return Path(args.socket)
    from controller.service.config import DEFAULT_SOCKET

    config_file = Path(getattr(args, "config", None) or "config.yaml")
    if not config_file.exists():
        return Path(DEFAULT_SOCKET)
    import yaml

    try:
        data = yaml.safe_load(config_file.read_text("utf-8")) or {}
    except (OSError, yaml.YAMLError) as exc:
        raise RefereeError(f"cannot read the config file {config_file}: {exc}") from None
    value = data.get("control_socket", DEFAULT_SOCKET) if isinstance(data, dict) else DEFAULT_SOCKET
    path = Path(os.path.expanduser(str(value)))
    return path if path.is_absolute() else config_file.parent / path


def add_socket_arguments(parser) -> None:
    parser.add_argument("--config", default="config.yaml", help="the referee's config file (default: config.yaml)")
    parser.add_argument("--socket", help="the control socket (default: control_socket from the config file)")
