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

from controller.errors import RefereeError, os_words, sentence
from controller.files import load_yaml
from controller.language import DEFAULT, LANGUAGES, _, choose, literal, said_all
from controller.service.config import (
    SYSTEM_SOCKET,
    control_socket_setting,
    default_control_socket,
    private_fallback_folder,
)

#: Each command and the arguments it takes (besides "command" and "id").
#: The answer to a client when every slot is taken.
BUSY = _("the referee is busy with other commands; try again in a moment")

COMMANDS: dict[str, tuple[str, ...]] = {
    "status": (),
    "new-game": (),
    "reveal": ("seat", "colours"),
    "end": (),
    "accept": (),  # "this board is right, go on from it"
    "hint": ("language", "tiles"),  # the coach's move for the person to move (journalled as a hint); their tiles
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
            raise RefereeError(
                _("cannot open the control socket {path}: {why}", path=str(self.path), why=os_words(exc))
            ) from None
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
                _reply(conn, {"ok": False, "error": BUSY})
                continue
            try:
                threading.Thread(target=self._handle, args=(conn,), name="referee-control-client", daemon=True).start()
            except RuntimeError:  # no thread could be started
                self._slots.release()
                _reply(conn, {"ok": False, "error": BUSY})

    def _handle(self, conn: socket.socket) -> None:
        try:
            conn.settimeout(self.request_timeout)
            try:
                answer = self.answer(read_line(conn))
            except TimeoutError:
                answer = {
                    "ok": False,
                    "error": _("no complete request line came within {seconds} s", seconds=self.request_timeout),
                }
            except BadRequest as exc:
                answer = {"ok": False, "error": sentence(exc)}
            except OSError:
                return  # the client went away: nobody to answer
            _reply(conn, answer)
        finally:
            self._slots.release()

    def answer(self, line: bytes) -> dict[str, Any]:
        """The answer to one request line, its sentences in the `language` the request asks for
        (English when it asks for none); never raises (also used directly by tests)."""
        return said_all(self._answer(line), requested_language(line))

    def _answer(self, line: bytes) -> dict[str, Any]:
        try:
            command, args, request_id = parse_request(line)
            return self._run(command, args, request_id)
        except BadRequest as exc:
            return {"ok": False, "error": sentence(exc)}
        except Exception as exc:  # a bug here must not stop the server: say so and keep serving
            log.exception("control request failed")
            error = _("the referee could not handle the request ({kind}); see its log", kind=type(exc).__name__)
            return {"ok": False, "error": error}

    def _run(self, command: str, args: dict[str, Any], request_id: str | None) -> dict[str, Any]:
        if request_id is None:
            return self._wait(self.submit(command, **args), None)
        what = json.dumps([command, args], sort_keys=True)
        with self._recent_lock:
            known = self._recent.get(request_id)
            if known is not None:
                if known[1] != what:
                    raise BadRequest(
                        _("the id {id} was already used for another command; use a new id", id=repr(request_id))
                    )
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
                "error": _(
                    "the referee did not take up the command within {seconds} s, so it was withdrawn and not "
                    "carried out; is the referee stuck? see its log",
                    seconds=self.timeout,
                ),
            }
        except concurrent.futures.TimeoutError:
            return {
                "ok": False,
                "error": _(
                    "the referee started the command but has not finished it; ask again with the same id to get "
                    "its answer"
                ),
            }
        except RefereeError as exc:
            return {"ok": False, "error": sentence(exc)}
        except Exception as exc:  # a bug in a command: say so rather than hang up
            return {"ok": False, "error": _("the command failed: {why}", why=str(exc))}
        if not isinstance(answer, dict):
            return {"ok": False, "error": _("the command gave no answer")}
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
    example = literal('{"command": "status"}')
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError:
        raise BadRequest(
            _("the request is not UTF-8 text; send one JSON object on one line, such as {example}", example=example)
        ) from None
    not_json = _(
        "the request is not a JSON object; send one JSON object on one line, such as {example}", example=example
    )
    try:
        request = json.loads(text)
    except (ValueError, RecursionError):
        raise BadRequest(not_json) from None
    if not isinstance(request, dict):
        raise BadRequest(not_json)
    command = request.get("command")
    if not isinstance(command, str) or command not in COMMANDS:
        raise BadRequest(_("unknown command; the commands are {commands}", commands=literal(", ".join(COMMANDS))))
    request_id = request.get("id")
    if request_id is not None and (not isinstance(request_id, str) or not 0 < len(request_id) <= MAX_ID):
        raise BadRequest(_("the id must be a text of 1 to {n} characters", n=MAX_ID))
    allowed = COMMANDS[command]
    # `language`: the one the answer's sentences are said in (`requested_language`), for every command;
    # also an argument of the commands that take it (the hint is journalled and said in it)
    args = {
        k: v for k, v in request.items() if k not in ("command", "id") and (k != "language" or "language" in allowed)
    }
    for key in args:
        if key not in allowed:
            if allowed:
                raise BadRequest(
                    _(
                        "the {command} command takes only {keys}; {key} is not one of them",
                        command=command,
                        keys=literal(", ".join(allowed)),
                        key=_short(key),
                    )
                )
            raise BadRequest(
                _(
                    "the {command} command takes no arguments; {key} is not one of them",
                    command=command,
                    key=_short(key),
                )
            )
    if command == "reveal":
        seat, colours = args.get("seat"), args.get("colours")
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < 100:
            raise BadRequest(_("reveal needs a seat number"))
        if (
            not isinstance(colours, list)
            or not 0 < len(colours) <= 10
            or not all(isinstance(c, str) and 0 < len(c) <= 10 for c in colours)
        ):
            raise BadRequest(_("reveal needs a list of one or more colour letters"))
    if command == "hint" and args.get("language") not in (None, *LANGUAGES):
        raise BadRequest(
            _("the hint command's language is one of {languages}", languages=literal(", ".join(LANGUAGES)))
        )
    tiles = args.get("tiles")
    if command == "hint" and tiles is not None and (not isinstance(tiles, str) or len(tiles) > 200):
        raise BadRequest(_("the hint command's tiles are a text such as {example}", example=literal("R3 RA G1")))
    return command, args, request_id


def requested_language(line: bytes) -> str:
    """The language a request asks its answer in (its `language`), English when it asks for none of ours."""
    with contextlib.suppress(UnicodeDecodeError, ValueError, RecursionError):
        request = json.loads(line.decode("utf-8"))
        if isinstance(request, dict):
            return choose(request.get("language")) or DEFAULT
    return DEFAULT


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
            raise BadRequest(_("the request is longer than {n} bytes", n=literal(str(limit))))
    return data.split(b"\n", 1)[0].strip()


def _reply(conn: socket.socket, answer: dict[str, Any]) -> None:
    """Send one answer line and hang up; a client that went away is no error of ours."""
    try:
        text = json.dumps(answer)
    except (TypeError, ValueError):
        text = json.dumps(
            {"ok": False, "error": str(_("the referee's answer could not be written as JSON; see its log"))}
        )
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
        raise RefereeError(
            _("cannot create the folder of the control socket {path}: {why}", path=str(folder), why=os_words(exc))
        ) from None
    if private:
        info = os.lstat(folder)
        if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid() or info.st_mode & 0o077:
            raise RefereeError(
                _(
                    "the folder {path} for the control socket is not a private folder of this user (owner uid {uid}, "
                    "mode {mode}); remove it, or set control_socket in config.yaml",
                    path=str(folder),
                    uid=literal(str(info.st_uid)),
                    mode=stat.filemode(info.st_mode),
                )
            )


def clear_stale_socket(path: Path) -> None:
    """Remove a socket left by a referee that died; refuse, with a sentence, anything else at `path`."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return
    except OSError as exc:
        raise RefereeError(
            _("cannot look at the control socket path {path}: {why}", path=str(path), why=os_words(exc))
        ) from None
    if not stat.S_ISSOCK(info.st_mode):
        raise RefereeError(
            _(
                "there is already a file at the control socket path {path} and it is not a socket; the referee "
                "leaves it alone: remove it, or set control_socket in config.yaml to another path",
                path=str(path),
            )
        )
    if _answers(path):
        raise RefereeError(
            _(
                "another referee is already running with the control socket {path}; stop it first, or set "
                "control_socket in config.yaml to another path",
                path=str(path),
            )
        )
    if info.st_uid != os.getuid():
        raise RefereeError(
            _(
                "the control socket path {path} holds a socket of another user (uid {uid}); the referee leaves it "
                "alone: ask them to remove it, or set control_socket in config.yaml",
                path=str(path),
                uid=literal(str(info.st_uid)),
            )
        )
    try:
        path.unlink()  # our own referee died and left it: safe to replace
    except OSError as exc:
        raise RefereeError(
            _("cannot remove the old control socket {path}: {why}", path=str(path), why=os_words(exc))
        ) from None


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
    language: str | None = None,
    **args: Any,
) -> dict[str, Any]:
    """Send one command to a running referee and return its answer (raises RefereeError if none).

    The command carries an id (a new one unless given); when the connection breaks before an
    answer comes, it is sent once more with the same id, which the referee never runs twice.
    `language`: the one the referee says its answer's sentences in.
    """
    message = {"command": command, "id": request_id or uuid.uuid4().hex, **args}
    if language is not None:
        message["language"] = language
    _check_socket_file(Path(path))
    try:
        line = _exchange(path, message, timeout)
    except _Unanswered:
        time.sleep(0.3)
        try:
            line = _exchange(path, message, timeout)
        except _Unanswered as exc:
            raise RefereeError(_("the referee at {path} did not answer: {why}", path=str(path), why=exc.why)) from None
    try:
        answer = json.loads(line.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        answer = None
    if not isinstance(answer, dict):
        raise RefereeError(
            _("the program at {path} did not answer like a referee; is control_socket right?", path=str(path))
        )
    if not answer.get("ok"):
        error = answer.get("error")
        raise RefereeError(literal(str(error)) if error else _("the referee refused the command"))
    return answer


class _Unanswered(Exception):
    """The request may have arrived but no answer came back: worth one retry with the same id."""

    def __init__(self, why: Any) -> None:
        super().__init__(str(why))
        self.why = why


def _exchange(path: str | Path, message: dict[str, Any], timeout: float) -> bytes:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(timeout)
    with sock:
        try:
            sock.connect(str(path))
        except FileNotFoundError:
            raise RefereeError(
                _(
                    "no referee is running (no control socket at {path}); start it with `referee run`, or give the "
                    "socket with --socket or control_socket in the config file",
                    path=str(path),
                )
            ) from None
        except ConnectionRefusedError:
            raise RefereeError(
                _(
                    "no referee is answering at {path} (the socket is left from one that stopped); start it with "
                    "`referee run`",
                    path=str(path),
                )
            ) from None
        except PermissionError:
            raise RefereeError(
                _("you may not use the control socket {path}; ask to be added to the referee's group", path=str(path))
            ) from None
        except OSError as exc:
            raise RefereeError(
                _("cannot reach the referee at {path}: {why}", path=str(path), why=os_words(exc))
            ) from None
        try:
            sock.sendall((json.dumps(message) + "\n").encode("utf-8"))
            line = read_line(sock, limit=1024 * 1024)
        except TimeoutError:
            raise RefereeError(
                _("the referee at {path} did not answer within {seconds} s", path=str(path), seconds=timeout)
            ) from None
        except OSError as exc:
            raise _Unanswered(os_words(exc)) from None
        except BadRequest as exc:
            raise _Unanswered(sentence(exc)) from None
    if not line:
        raise _Unanswered(_("it closed the connection without an answer"))
    return line


def _check_socket_file(path: Path) -> None:
    with contextlib.suppress(OSError):
        if not stat.S_ISSOCK(os.stat(path).st_mode):
            raise RefereeError(
                _("{path} is not a referee's control socket; give the socket with --socket", path=str(path))
            )


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
            raise RefereeError(
                _("the config file {path} should be a set of 'name: value' settings", path=str(config_file))
            )
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
