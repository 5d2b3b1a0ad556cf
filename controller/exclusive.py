"""One referee per journal and per camera: an exclusive lock, and a sentence naming the other process.

Why: two referees on one journal (the service, and a `referee run` started by hand with the same
config; their control sockets may differ) both judge and both write, and the verdicts of one are
lost in the other's game. So a referee holds an exclusive `flock` on `<journal>.lock` beside the
journal from before it opens the journal (a second one must not even move a "damaged" file aside)
until it stops; and whatever opens a real camera (`referee run`, `aim`, `setup`, `calibrate
--camera`) holds that camera's lock until it closes it (`vision.sources.open_frame_source`).
The lock files hold who took them (process id, command line, since when), so a refusal names the
other process; the kernel lets go of the lock when that process ends, even by kill -9 or a power
cut, so a stale file never stops anyone. A USB camera is locked by its device node itself, which
every program opening it shares whatever its folders or sandbox.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from controller.errors import RefereeError
from controller.language import Text, _, listed, literal
from controller.words import journal_folder_missing

#: Where the lock files of devices go (Debian's /run/lock is for everyone, sticky; else the temp folder).
DEVICE_LOCKS = Path("/run/lock")


class Held:
    """An exclusive lock held until `release()` (or the process's end)."""

    def __init__(self, path: Path, fd: int) -> None:
        self.path = path
        self.fd: int | None = fd

    def release(self) -> None:
        if self.fd is not None:
            with contextlib.suppress(OSError):
                fcntl.flock(self.fd, fcntl.LOCK_UN)
            os.close(self.fd)
            self.fd = None


def _command_of(pid: int) -> str:
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return ""
    words = [w.decode("utf-8", "replace") for w in raw.split(b"\0") if w]
    if len(words) > 1 and Path(words[0]).name.startswith("python"):  # the interpreter of a console script
        words = words[1:]
    if words[:2] == ["-m", "controller.cli"]:  # `python -m controller.cli run ...` is `referee run ...`
        words = ["referee"] + words[2:]
    elif words and not words[0].startswith("-"):
        words[0] = Path(words[0]).name  # /opt/referee/.venv/bin/referee -> referee
    return " ".join(words)[:200]


def describe_holder(path: Path) -> Text:
    """Who holds the lock at `path`, in words: `process 1234 (referee run --config ...) of user pi,
    running since 2026-05-01 19:42`."""
    try:
        info = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError):
        return _("another process")
    if not isinstance(info, dict) or not isinstance(info.get("pid"), int):
        return _("another process")
    pid = info["pid"]
    command = _command_of(pid) or str(info.get("command") or "")
    since = info.get("since")
    when = time.strftime("%Y-%m-%d %H:%M", time.localtime(since)) if isinstance(since, (int, float)) else None
    text = _process(pid, command)
    if info.get("user"):
        text = _("{process} of user {user}", process=text, user=str(info["user"]))
    if when:
        text = _("{process}, running since {when}", process=text, when=when)
    return text


def _process(pid: int, command: str) -> Text:
    """`process 1234 (referee run ...)`, or `process 1234` when its command line is unknown."""
    if command:
        return _("process {pid} ({command})", pid=str(pid), command=literal(command))
    return _("process {pid}", pid=str(pid))


def _cannot(verb: str, what: Any, where: Path, exc: OSError) -> Text:
    why = exc.strerror or str(exc)
    if verb == "open":
        return _("cannot open {what} ({path}: {why})", what=what, path=str(where), why=why)
    return _("cannot lock {what} ({path}: {why})", what=what, path=str(where), why=why)


def _in_use(what: Any, who: Any, advice: Any) -> Text:
    return _("{what} is already in use by {who}; {advice}", what=what, who=who, advice=advice)


def hold(path: Path, what: Any, advice: Any) -> Held:
    """Take the exclusive lock at `path` (created if missing) or raise a RefereeError naming its holder.

    `what` is what the lock guards (`the journal /var/lib/referee/journal.sqlite`), `advice` what
    to do when another process has it.
    """
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    except PermissionError:  # another user's lock file: locking needs only to open it
        try:
            fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
        except OSError as exc:
            raise RefereeError(_cannot("lock", what, path, exc)) from None
    except OSError as exc:
        raise RefereeError(_cannot("lock", what, path, exc)) from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise RefereeError(_in_use(what, describe_holder(path), advice)) from None
    except OSError as exc:
        os.close(fd)
        raise RefereeError(_cannot("lock", what, path, exc)) from None
    info: dict[str, Any] = {"pid": os.getpid(), "command": " ".join(sys.argv)[:200], "since": round(time.time())}
    with contextlib.suppress(KeyError, ImportError):
        import pwd

        info["user"] = pwd.getpwuid(os.getuid()).pw_name
    with contextlib.suppress(OSError):  # a read-only lock file still locks; who holds it is then unsaid
        os.ftruncate(fd, 0)
        os.pwrite(fd, (json.dumps(info) + "\n").encode(), 0)
    return Held(path, fd)


def lock_journal(journal: Path) -> Held:
    """The journal's lock, `<journal>.lock` beside it."""
    journal = Path(journal)
    if not journal.parent.is_dir():  # the journal refuses a missing folder in its own words
        raise RefereeError(journal_folder_missing(journal))
    return hold(
        journal.with_name(journal.name + ".lock"),
        _("the journal {path}", path=str(journal)),
        _(
            "one referee per journal: stop that one first (`sudo systemctl stop referee` if it is the service), "
            "or give this one another journal in its config file"
        ),
    )


def processes_using(path: Path) -> list[int]:
    """The processes that have `path` open, as far as /proc lets us see."""
    found = []
    target = str(Path(path).resolve())
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fds = list((entry / "fd").iterdir())
        except OSError:  # another user's process, or one that just ended
            continue
        if any(_link(fd) == target for fd in fds):
            found.append(int(entry.name))
    return found


def _link(fd: Path) -> str | None:
    """Where an open file descriptor points; None for one closed since it was listed (a busy
    process, this one included, opens and closes files all the time: one such must not hide it)."""
    try:
        return os.readlink(fd)
    except OSError:
        return None


def lock_device(device: Path, what: Any, advice: Any) -> Held:
    """An exclusive `flock` on a device node itself (a USB camera's /dev/videoN): every program that
    opens the camera sees the same node, whatever its folders or sandbox."""
    try:
        fd = os.open(device, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        raise RefereeError(_cannot("open", what, device, exc)) from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)  # first: this very process's own earlier hold is then the only one it finds
        pids = processes_using(device)
        who = listed([_process(pid, _command_of(pid)) for pid in pids], conjunction=None) or _("another process")
        raise RefereeError(_in_use(what, who, advice)) from None
    except OSError as exc:
        os.close(fd)
        raise RefereeError(_cannot("lock", what, device, exc)) from None
    return Held(device, fd)


class HeldAll:
    """Several locks taken together (every media node of the Pi camera), let go together."""

    def __init__(self, held: list[Held]) -> None:
        self.held = held

    def release(self) -> None:
        for one in self.held:
            one.release()


def lock_camera(
    camera: dict[str, Any], folder: Path | None = None, media: list[Path] | None = None
) -> Held | HeldAll | None:
    """The camera's lock: a USB camera's device node itself; the Pi camera's media nodes
    (/dev/media*: libcamera picks among them, so all of them; `media` in tests), or a lock file in
    /run/lock (or `folder`) where there are none; None for a simulated camera, a video file or pictures."""
    source = camera.get("source")
    advice = _("one program per camera: stop that one first, or set camera.device to another camera")
    if source == "usb":
        device = camera.get("device", 0)
        node = Path(device) if isinstance(device, str) else Path(f"/dev/video{device}")
        if not node.exists():
            return None  # the camera's own opening says it is missing, in its words
        return lock_device(node, _("the camera {device}", device=str(node)), advice)
    if source == "picamera":
        nodes = sorted(Path("/dev").glob("media*")) if media is None else media
        if nodes:
            taken: list[Held] = []
            try:
                for node in nodes:
                    taken.append(lock_device(node, _("the Pi camera ({device})", device=str(node)), advice))
            except RefereeError:
                HeldAll(taken).release()
                raise
            return HeldAll(taken)
        index = camera.get("device", 0) if isinstance(camera.get("device"), int) else 0
        where = folder or (DEVICE_LOCKS if DEVICE_LOCKS.is_dir() and os.access(DEVICE_LOCKS, os.W_OK) else None)
        where = where or Path(tempfile.gettempdir())
        return hold(where / f"referee-picamera{index}.lock", _("the Pi camera {index}", index=str(index)), advice)
    return None


class HeldSource:
    """A camera (`controller.vision.sources`) with its lock, let go when the camera is closed."""

    def __init__(self, source: Any, held: Held | HeldAll) -> None:
        self._source = source
        self._held = held

    def read(self) -> Any:
        return self._source.read()

    def close(self) -> None:
        try:
            self._source.close()
        finally:
            self._held.release()

    def __getattr__(self, name: str) -> Any:  # the camera's own settings and state
        return getattr(self._source, name)
