"""The local control interface: a Unix socket speaking one JSON object per line.

`referee status`, `new-game`, `reveal`, `end`, `accept` and `hint` connect, send ``{"command": NAME, "id": ID, ...}``
and read one answer: ``{"ok": true, ...}`` or ``{"ok": false, "error": "a sentence"}``. Every
request gets an answer, whatever its bytes, and no request can stop the server.

Why it is built this way:
- The server only queues a command for the loop's thread (`RefereeLoop.submit`, which returns a
  Future), so the game is never touched from two threads. (`hint` first has the coach think on
  the connection's thread, reading the position as the page's hint does, so judging goes on.)
- Each connection has its own thread and its own time limits, so a slow or silent client never
  holds up another (at most `MAX_CLIENTS` at once; more are told the referee is busy).
- A command the loop has not started when the answer is due is withdrawn (its Future cancelled):
  "timed out" then really means "not done". A command carries an id; a retry with the same id is
  answered from the recent results (or waits for the same command), so it is never applied twice.
- The socket lives in a private runtime folder (`config.default_control_socket`) with mode 0660;
  a file at its path that is not a referee's stale socket is left alone and named in a sentence.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import json
import logging
import os
import socket
import stat
import threading
import time
import uuid
from collections import OrderedDict
from pathlib import Path
from typing import Any

from controller.errors import RefereeError
from controller.files import load_yaml
from controller.language import LANGUAGES, _
from controller.service.config import (
    SYSTEM_SOCKET,
    control_socket_setting,
    default_control_socket,
    private_fallback_folder,
)

#: Each command and the arguments it takes (besides "command" and "id").
COMMANDS: dict[str, tuple[str, ...]] = {
    "status": (),
    "new-game": (),
    "reveal": ("seat", "colours"),
    "end": (),
    "accept": (),  # "this board is right, go on from it"
    "hint": ("language",),  # the coach's move for the person to move (journalled as a hint)
}
ANSWER_TIMEOUT = 10.0  # seconds the loop has to run a command
REQUEST_TIMEOUT = 5.0  # seconds a client has to send its request line
MAX_REQUEST = 16 * 1024  # bytes of one request line
MAX_CLIENTS = 8  # connections served at once
RECENT_RESULTS = 64  # commands remembered by id, so a retry is answered without running again
MAX_ID = 100  # characters of a request id
SOCKET_MODE = 0o660

log = logging.getLogger("referee.control")


class BadRequest(Exception):
    """A request the server answers with a sentence instead of running it."""


class ControlServer:
    """Accepts control connections (one thread each) and forwards their commands to the loop."""

    def __init__(
        self,
        path: str | Path,
        submit,
        timeout: float = ANSWER_TIMEOUT,
        request_timeout: float = REQUEST_TIMEOUT,
        max_clients: int = MAX_CLIENTS,
    ) -> None:
        self.path = Path(path)
        self.submit = submit
        self.timeout = timeout
        self.request_timeout = request_timeout
        self._slots = threading.BoundedSemaphore(max_clients)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._recent: OrderedDict[str, tuple[str, str, concurrent.futures.Future]] = OrderedDict()
        self._recent_lock = threading.Lock()
        self.sock = self._bind()

    # --- the socket file ----------------------------------------------------------------------
    def _bind(self) -> socket.socket:
        prepare_folder(self.path.parent)
        clear_stale_socket(self.path)
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.bind(str(self.path))
            os.chmod(self.path, SOCKET_MODE)
            sock.listen(16)
        except OSError as exc:
            sock.close()
            raise RefereeError(f"cannot open the control socket {self.path}: {exc.strerror or exc}") from None
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
        with contextlib.suppress(OSError):
            if stat.S_ISSOCK(os.lstat(self.path).st_mode):
                self.path.unlink()

    # --- serving ------------------------------------------------------------------------------
    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except TimeoutError:
                continue
            except OSError:
                if self._stop.is_set():
                    return
                time.sleep(0.05)  # e.g. out of file descriptors: keep serving once it passes
                continue
            if not self._slots.acquire(blocking=False):
                _reply(conn, {"ok": False, "error": "the referee is busy with other commands; try again in a moment"})
                continue
            try:
                threading.Thread(target=self._handle, args=(conn,), name="referee-control-client", daemon=True).start()
            except RuntimeError:  # no thread could be started
                self._slots.release()
                _reply(conn, {"ok": False, "error": "the referee is busy with other commands; try again in a moment"})

    def _handle(self, conn: socket.socket) -> None:
        try:
            conn.settimeout(self.request_timeout)
            try:
                answer = self.answer(read_line(conn))
            except TimeoutError:
                answer = {"ok": False, "error": f"no complete request line came within {self.request_timeout:g} s"}
            except BadRequest as exc:
                answer = {"ok": False, "error": str(exc)}
            except OSError:
                return  # the client went away: nobody to answer
            _reply(conn, answer)
        finally:
            self._slots.release()

    def answer(self, line: bytes) -> dict[str, Any]:
        """The answer to one request line; never raises (also used directly by tests)."""
        try:
            command, args, request_id = parse_request(line)
            return self._run(command, args, request_id)
        except BadRequest as exc:
            return {"ok": False, "error": str(exc)}
        except Exception as exc:  # a bug here must not stop the server: say so and keep serving
            log.exception("control request failed")
            error = f"the referee could not handle the request ({type(exc).__name__}); see its log"
            return {"ok": False, "error": error}

    def _run(self, command: str, args: dict[str, Any], request_id: str | None) -> dict[str, Any]:
        if request_id is None:
            return self._wait(self.submit(command, **args), None)
        what = json.dumps([command, args], sort_keys=True)
        with self._recent_lock:
            known = self._recent.get(request_id)
            if known is not None:
                if known[1] != what:
                    raise BadRequest(f"the id {request_id!r} was already used for another command; use a new id")
                future = known[2]
            else:
                future = self.submit(command, **args)
                self._recent[request_id] = (command, what, future)
                while len(self._recent) > RECENT_RESULTS:
                    self._recent.popitem(last=False)
        return self._wait(future, request_id)

    def _wait(self, future: concurrent.futures.Future, request_id: str | None) -> dict[str, Any]:
        try:
            try:
                answer = future.result(timeout=self.timeout)
            except concurrent.futures.TimeoutError:
                if future.cancel():  # the loop had not taken it up: it will never run
                    raise concurrent.futures.CancelledError from None
                answer = future.result(timeout=self.timeout)  # started: it ends within one frame
        except concurrent.futures.CancelledError:
            self._forget(request_id, future)
            return {
                "ok": False,
                "error": f"the referee did not take up the command within {self.timeout:g} s, "
                "so it was withdrawn and not carried out; is the referee stuck? see its log",
            }
        except concurrent.futures.TimeoutError:
            return {
                "ok": False,
                "error": "the referee started the command but has not finished it; "
                "ask again with the same id to get its answer",
            }
        except RefereeError as exc:
            return {"ok": False, "error": str(exc)}
        except Exception as exc:  # a bug in a command: say so rather than hang up
            return {"ok": False, "error": f"the command failed: {exc}"}
        if not isinstance(answer, dict):
            return {"ok": False, "error": "the command gave no answer"}
        return answer

    def _forget(self, request_id: str | None, future: concurrent.futures.Future) -> None:
        """A withdrawn command was not carried out: a retry with its id must run it afresh."""
        if request_id is None:
            return
        with self._recent_lock:
            known = self._recent.get(request_id)
            if known is not None and known[2] is future:
                del self._recent[request_id]


def parse_request(line: bytes) -> tuple[str, dict[str, Any], str | None]:
    """(command, its arguments, id) of a request line, or BadRequest with a sentence saying what is wrong."""
    example = 'send one JSON object on one line, such as {"command": "status"}'
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError:
        raise BadRequest(f"the request is not UTF-8 text; {example}") from None
    try:
        request = json.loads(text)
    except (ValueError, RecursionError):
        raise BadRequest(f"the request is not a JSON object; {example}") from None
    if not isinstance(request, dict):
        raise BadRequest(f"the request is not a JSON object; {example}")
    command = request.get("command")
    if not isinstance(command, str) or command not in COMMANDS:
        raise BadRequest(f"unknown command; the commands are {', '.join(COMMANDS)}")
    request_id = request.get("id")
    if request_id is not None and (not isinstance(request_id, str) or not 0 < len(request_id) <= MAX_ID):
        raise BadRequest(f"the id must be a text of 1 to {MAX_ID} characters")
    allowed = COMMANDS[command]
    args = {k: v for k, v in request.items() if k not in ("command", "id")}
    for key in args:
        if key not in allowed:
            takes = f"takes only {', '.join(allowed)}" if allowed else "takes no arguments"
            raise BadRequest(f"the {command} command {takes}; {_short(key)} is not one of them")
    if command == "reveal":
        seat, colours = args.get("seat"), args.get("colours")
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < 100:
            raise BadRequest("reveal needs a seat number")
        if (
            not isinstance(colours, list)
            or not 0 < len(colours) <= 10
            or not all(isinstance(c, str) and 0 < len(c) <= 10 for c in colours)
        ):
            raise BadRequest("reveal needs a list of one or more colour letters")
    if command == "hint" and args.get("language") not in (None, *LANGUAGES):
        raise BadRequest(f"the hint command's language is one of {', '.join(LANGUAGES)}")
    return command, args, request_id


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def read_line(conn: socket.socket, limit: int = MAX_REQUEST) -> bytes:
    """One line from the socket (up to `limit` bytes), without its newline."""
    data = b""
    while b"\n" not in data:
        chunk = conn.recv(4096)
        if not chunk:
            break
        data += chunk
        if len(data) > limit:
            raise BadRequest(f"the request is longer than {limit} bytes")
    return data.split(b"\n", 1)[0].strip()


def _reply(conn: socket.socket, answer: dict[str, Any]) -> None:
    """Send one answer line and hang up; a client that went away is no error of ours."""
    try:
        text = json.dumps(answer)
    except (TypeError, ValueError):
        text = json.dumps({"ok": False, "error": "the referee's answer could not be written as JSON; see its log"})
    with conn, contextlib.suppress(OSError):
        conn.settimeout(REQUEST_TIMEOUT)
        conn.sendall((text + "\n").encode("utf-8"))


# --- the socket's folder and path -------------------------------------------------------------
def check_socket_path(path: Path) -> None:
    """Fail now, with a sentence, if the server could not take `path` (e.g. a referee already runs).

    `referee run` calls it before opening the journal, so a second referee stops before it
    touches the first one's journal.
    """
    prepare_folder(path.parent)
    clear_stale_socket(path)


def prepare_folder(folder: Path) -> None:
    """Create the socket's folder if missing; the per-user fallback folder must be ours and private."""

    private = folder == private_fallback_folder()
    try:
        if not folder.is_dir():
            folder.mkdir(mode=0o700 if private else 0o750, parents=True)
    except OSError as exc:
        raise RefereeError(f"cannot create the folder of the control socket {folder}: {exc.strerror or exc}") from None
    if private:
        info = os.lstat(folder)
        if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid() or info.st_mode & 0o077:
            raise RefereeError(
                f"the folder {folder} for the control socket is not a private folder of this user "
                f"(owner uid {info.st_uid}, mode {stat.filemode(info.st_mode)}); remove it, or set "
                "control_socket in config.yaml"
            )


def clear_stale_socket(path: Path) -> None:
    """Remove a socket left by a referee that died; refuse, with a sentence, anything else at `path`."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return
    except OSError as exc:
        raise RefereeError(f"cannot look at the control socket path {path}: {exc.strerror or exc}") from None
    if not stat.S_ISSOCK(info.st_mode):
        raise RefereeError(
            f"there is already a file at the control socket path {path} and it is not a socket; "
            "the referee leaves it alone: remove it, or set control_socket in config.yaml to another path"
        )
    if _answers(path):
        raise RefereeError(
            f"another referee is already running with the control socket {path}; stop it first, "
            "or set control_socket in config.yaml to another path"
        )
    if info.st_uid != os.getuid():
        raise RefereeError(
            f"the control socket path {path} holds a socket of another user (uid {info.st_uid}); the "
            "referee leaves it alone: ask them to remove it, or set control_socket in config.yaml"
        )
    try:
        path.unlink()  # our own referee died and left it: safe to replace
    except OSError as exc:
        raise RefereeError(f"cannot remove the old control socket {path}: {exc.strerror or exc}") from None


def _answers(path: Path) -> bool:
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    probe.settimeout(1.0)
    try:
        probe.connect(str(path))
    except OSError:
        return False
    finally:
        probe.close()
    return True


# --- the client side --------------------------------------------------------------------------
def request(
    path: str | Path,
    command: str,
    timeout: float = ANSWER_TIMEOUT + 2,
    request_id: str | None = None,
    **args: Any,
) -> dict[str, Any]:
    """Send one command to a running referee and return its answer (raises RefereeError if none).

    The command carries an id (a new one unless given); when the connection breaks before an
    answer comes, it is sent once more with the same id, which the referee never runs twice.
    """
    message = {"command": command, "id": request_id or uuid.uuid4().hex, **args}
    _check_socket_file(Path(path))
    try:
        line = _exchange(path, message, timeout)
    except _Unanswered:
        time.sleep(0.3)
        try:
            line = _exchange(path, message, timeout)
        except _Unanswered as exc:
            raise RefereeError(f"the referee at {path} did not answer: {exc}") from None
    try:
        answer = json.loads(line.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        answer = None
    if not isinstance(answer, dict):
        raise RefereeError(f"the program at {path} did not answer like a referee; is control_socket right?")
    if not answer.get("ok"):
        raise RefereeError(str(answer.get("error") or "the referee refused the command"))
    return answer


class _Unanswered(Exception):
    """The request may have arrived but no answer came back: worth one retry with the same id."""


def _exchange(path: str | Path, message: dict[str, Any], timeout: float) -> bytes:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(timeout)
    with sock:
        try:
            sock.connect(str(path))
        except FileNotFoundError:
            raise RefereeError(
                f"no referee is running (no control socket at {path}); start it with `referee run`, "
                "or give the socket with --socket or control_socket in the config file"
            ) from None
        except ConnectionRefusedError:
            raise RefereeError(
                f"no referee is answering at {path} (the socket is left from one that stopped); "
                "start it with `referee run`"
            ) from None
        except PermissionError:
            raise RefereeError(
                f"you may not use the control socket {path}; ask to be added to the referee's group"
            ) from None
        except OSError as exc:
            raise RefereeError(f"cannot reach the referee at {path}: {exc.strerror or exc}") from None
        try:
            sock.sendall((json.dumps(message) + "\n").encode("utf-8"))
            line = read_line(sock, limit=1024 * 1024)
        except TimeoutError:
            raise RefereeError(f"the referee at {path} did not answer within {timeout:g} s") from None
        except (OSError, BadRequest) as exc:
            raise _Unanswered(str(exc)) from None
    if not line:
        raise _Unanswered("it closed the connection without an answer")
    return line


def _check_socket_file(path: Path) -> None:
    with contextlib.suppress(OSError):
        if not stat.S_ISSOCK(os.stat(path).st_mode):
            raise RefereeError(f"{path} is not a referee's control socket; give the socket with --socket")


def socket_path(args) -> Path:
    """The control socket a command talks to: --socket, else control_socket of the config file.

    `--config` given but missing is an error naming the file; without --config, config.yaml is
    read if it is there, else the default socket (or the systemd service's, when only that exists).
    """

    if getattr(args, "socket", None):
        return Path(args.socket)
    given = getattr(args, "config", None)
    config_file = Path(given or "config.yaml")
    if config_file.exists() or given:
        data = load_yaml(config_file, _("the config file"))
        if not isinstance(data, dict):
            raise RefereeError(f"the config file {config_file} should be a set of 'name: value' settings")
        if data.get("control_socket") is not None:
            return control_socket_setting(data, config_file.parent, str(config_file))
    path = default_control_socket()
    if not path.exists() and SYSTEM_SOCKET.exists():
        return SYSTEM_SOCKET
    return path


def add_socket_arguments(parser) -> None:
    parser.add_argument(
        "--config", help="the referee's config file, for its control_socket (default: config.yaml when present)"
    )
    parser.add_argument(
        "--socket", help="the control socket (default: control_socket of the config file, else the default folder)"
    )
