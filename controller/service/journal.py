"""The service's journal: a SQLite database (WAL) of every game, settled snapshot and verdict.

Why: a power cut must not lose a game. Each judged snapshot, action and reveal is committed with
its verdict before the lights show it, so after a restart the game is replayed through a fresh
`Referee` (which is deterministic) and must give back every stored verdict; play then resumes at
the same state and turn. A verdict the lights showed is always in the journal; a snapshot judged
but not yet committed when the power went is simply judged again after the restart.

A game is one setup (the config's game keys) and its entries. `new-game` closes the current game
(its last entry is the `new-game` action) and opens a new one with the same setup, so every game
exports as one record.

What goes wrong with a file on a small computer, and what the journal does about it:
* **Damaged or foreign at open** (a garbled page, a file cut short, a 0-byte file, another
  program's database): `Journal` refuses it with `JournalDamaged`; the service moves it aside
  (`quarantine`, kept under a dated name) and starts a fresh journal, and says so.
* **A write fails** (disk full, read-only file, I/O error): nothing is lost from memory. The
  game's rows are remembered here (`_games`) and every write waits in `_pending` until it is
  committed; later writes and `tick()` (every few seconds) try again, in order. `problem` names
  the failure in words for the fault lights.
* **Deleted or replaced while running**: every write and `tick()` compare the file's device and
  inode with the ones opened; a missing file is written again from memory (the open game and any
  game not yet fully written), a replaced one is first moved aside.
Export and replay open journals read-only (`read_only=True`, SQLite's `mode=ro`): they never create
tables or change a byte.

**Which journal.** Every journal carries a random id (`journal_id`, made once, when the file is
created, and kept when it is written again from memory). Game numbers restart at 1 in a fresh
journal, so a club that follows the table (`controller/club`) tells games apart by (table, journal
id, game), and the games of a journal moved aside keep counting beside the new journal's. A journal
written before ids existed is given one the first time a referee opens it for writing, durably; its
games from before (up to the latest, which may still be going on) were published without an id, so
they keep being published without one (`id_from_game`: the first game that carries the id).
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import re
import secrets
import sqlite3
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

from controller.errors import RefereeError, os_words, sentence
from controller.language import _, _n, listed
from controller.words import journal_folder_missing

log = logging.getLogger("referee.journal")

#: `PRAGMA user_version` of a referee journal. 0 is a journal from before the version was set:
#: accepted when its tables are right. 2 added the verdicts' pictures: a version 0 or 1 journal
#: gets the table when it is opened for writing, and is read without pictures otherwise.
SCHEMA_VERSION = 2
#: Seconds between tries to write a journal that could not be written, and between checks that
#: the file is still the one opened.
RETRY_SECONDS = 5.0
#: Event lines (faults, unreadable boards) kept waiting at most while the journal cannot be
#: written; games and verdicts are never dropped.
PENDING_EVENTS_LIMIT = 1000

#: The picture behind a verdict: a small JPEG of the rectified board as the camera saw it when
#: judging (`controller.service.pictures`), keyed by the verdict's index in its game.
PICTURES_TABLE = """
CREATE TABLE IF NOT EXISTS pictures (
    game_id INTEGER NOT NULL,
    verdict INTEGER NOT NULL,
    jpeg BLOB NOT NULL,
    at REAL NOT NULL,
    PRIMARY KEY (game_id, verdict)
);
"""

SCHEMA = (
    """
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY,
    setup TEXT NOT NULL,
    started_at REAL NOT NULL,
    closed_at REAL,
    closed_why TEXT
);
CREATE TABLE IF NOT EXISTS entries (
    game_id INTEGER NOT NULL REFERENCES games(id),
    seq INTEGER NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('snapshot', 'action', 'reveal')),
    payload TEXT NOT NULL,
    verdict TEXT NOT NULL,
    at REAL NOT NULL,
    PRIMARY KEY (game_id, seq)
);
CREATE TABLE IF NOT EXISTS events (
    id INTEGER PRIMARY KEY,
    game_id INTEGER,
    at REAL NOT NULL,
    kind TEXT NOT NULL,
    message TEXT NOT NULL
);
"""
    + PICTURES_TABLE
)

#: The journal's id (one row): made with the file; `first_game` is the first game published with it
#: (a journal from before ids were kept got its id later: its older games were published without).
ID_SCHEMA = """
CREATE TABLE IF NOT EXISTS journal_id (
    id TEXT NOT NULL,
    first_game INTEGER NOT NULL,
    made_at REAL NOT NULL
);
"""
#: What a journal id looks like (on the wire too: docs/mqtt.md).
JOURNAL_ID = re.compile(r"[0-9A-Za-z_-]{1,64}")


def new_journal_id() -> str:
    """A random journal id: 128 bits, so two journals of one table never share one."""
    return secrets.token_hex(16)


#: A journal id that is not one (raised as SQLite's own DatabaseError: the journal is damaged).
ID_GARBLED = _("the journal's id is garbled")


def read_journal_id(db: sqlite3.Connection) -> tuple[str, int] | None:
    """(id, first game published with it) of the journal open on `db`, or None when it has none
    (written before journal ids existed, or not a journal). A garbled id raises sqlite3.DatabaseError."""
    if not db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'journal_id'").fetchone():
        return None
    try:
        row = db.execute("SELECT id, first_game FROM journal_id ORDER BY rowid LIMIT 1").fetchone()
    except sqlite3.OperationalError:  # its columns are not a journal id's
        raise sqlite3.DatabaseError(ID_GARBLED) from None
    if row is None:
        return None
    if not isinstance(row[0], str) or not JOURNAL_ID.fullmatch(row[0]) or not isinstance(row[1], int):
        raise sqlite3.DatabaseError(ID_GARBLED)
    return row[0], row[1]


#: The columns of each table, as a referee journal has them.
TABLES = {
    "games": ["id", "setup", "started_at", "closed_at", "closed_why"],
    "entries": ["game_id", "seq", "kind", "payload", "verdict", "at"],
    "events": ["id", "game_id", "at", "kind", "message"],
    "pictures": ["game_id", "verdict", "jpeg", "at"],
}
#: Tables a journal of an older version may lack.
ADDED_LATER = {"pictures"}
#: SQL that writes a picture (kept waiting with the entry it belongs to).
INSERT_PICTURE = "INSERT OR REPLACE INTO pictures (game_id, verdict, jpeg, at) VALUES (?, ?, ?, ?)"


class JournalDamaged(RefereeError):
    """The file cannot be used as a referee journal; `why` says what is wrong with it."""

    def __init__(self, path: Path, why: Any) -> None:
        super().__init__(_("the journal {path} cannot be used: {why}", path=str(path), why=why))
        self.path = path
        self.why = why


@dataclass(frozen=True)
class GameRow:
    id: int
    setup: dict[str, Any]
    started_at: float
    closed_at: float | None
    closed_why: str | None

    @property
    def open(self) -> bool:
        return self.closed_at is None


@dataclass(frozen=True)
class Entry:
    """One journalled step: `kind` 'snapshot' (payload: snapshot text), 'action' (payload: the
    action's name; `accept-board` is followed, after a newline, by the text of the board a person
    declared right) or 'reveal' (payload: JSON {seat, colours}); `verdict` is its verdict JSON."""

    game_id: int
    seq: int
    kind: str
    payload: str
    verdict: dict[str, Any]
    at: float


@dataclass
class _Game:
    """A game as this process knows it, so it can be written again if the file goes."""

    id: int
    setup: str
    started_at: float
    closed_at: float | None = None
    closed_why: str | None = None
    entries: list[tuple[int, str, str, str, float]] = field(default_factory=list)  # seq, kind, payload, verdict, at
    pictures: list[tuple[int, bytes, float]] = field(default_factory=list)  # verdict index, jpeg, at


def why_not_written(exc: BaseException) -> Any:
    """A failed write in words a player or owner understands."""
    name = getattr(exc, "sqlite_errorname", "") or ""
    text = str(exc)
    if name.startswith("SQLITE_FULL") or "disk is full" in text or getattr(exc, "errno", None) == 28:
        return _("the disk is full")
    if name.startswith("SQLITE_READONLY") or "readonly" in text or isinstance(exc, PermissionError):
        return READ_ONLY
    if name.startswith("SQLITE_BUSY") or "locked" in text:
        return _("another program holds it locked")
    if name.startswith("SQLITE_IOERR") or "I/O" in text or isinstance(exc, OSError):
        return _("the disk reports an error")
    return text


READ_ONLY = _("the file is read-only (check its permissions and the disk)")


def _damaged(exc: BaseException) -> Any:
    return _("it is damaged (SQLite says: {why})", why=sentence(exc))


def _garbled(seq: int, game_id: int) -> Any:
    return _("entry {seq} of game {number} is garbled", seq=str(seq), number=str(game_id))


def _damaged_name(path: Path, label: str, wall_clock=time.time) -> Path:
    stamp = time.strftime("%Y-%m-%dT%H-%M-%S", time.localtime(wall_clock()))
    aside = path.with_name(f"{path.name}.{label}-{stamp}")
    n = 2
    while aside.exists():
        aside = path.with_name(f"{path.name}.{label}-{stamp}-{n}")
        n += 1
    return aside


def quarantine(path: str | Path, label: str = "damaged", wall_clock=time.time) -> Path:
    """Move a journal (and its write-ahead log) aside under a dated name; returns the new name.

    The WAL file goes with it because it may hold committed verdicts not yet copied into the
    main file; SQLite opens the two together under the new name.
    """
    path = Path(path)
    aside = _damaged_name(path, label, wall_clock)
    os.replace(path, aside)
    for suffix in ("-wal", "-shm"):
        extra = Path(f"{path}{suffix}")
        if extra.exists():
            try:
                if suffix == "-wal":
                    os.replace(extra, Path(f"{aside}{suffix}"))
                else:
                    extra.unlink()  # the shared-memory index is rebuilt from the WAL
            except OSError:
                log.warning("could not move %s aside", extra)
    return aside


class Journal:
    """One SQLite file in WAL mode; every write is committed, or kept in memory until it can be.

    `read_only`: open an existing journal without ever writing (export, replay); a missing file
    or one that is not a referee journal raises a `RefereeError` with a sentence. `checked=False`
    (read-only only) skips SQLite's whole-file `quick_check`, whose time grows with the journal: the
    live page's readings of a journal its referee has open and checked.
    """

    def __init__(
        self, path: str | Path, wall_clock=time.time, *, read_only: bool = False, checked: bool = True
    ) -> None:
        self.path = Path(path)
        self._now = wall_clock
        self.read_only = read_only
        self.checked = checked or not read_only
        self.db: sqlite3.Connection | None = None
        self._games: dict[int, _Game] = {}
        self._pending: list[tuple[str, tuple]] = []
        self._last_game_id = 0
        self._identity: tuple[int, int] | None = None
        #: Why the journal cannot be written now (None: it can), in words for the fault lights.
        self.problem: str | None = None
        #: Things that happened to the file worth showing the players for a while (moved aside,
        #: written again); the loop takes them with `take_notices()`.
        self.notices: list[str] = []
        self._last_try: float | None = None
        #: The journal's id (None: a journal from before ids, opened read-only) and the first game
        #: published with it (module docstring, "Which journal").
        self.id: str | None = None
        self.id_from_game = 1
        #: The journal has the pictures table (a read-only journal of an older referee may not).
        self.has_pictures = True
        existed = self.path.exists()
        if read_only and not existed:
            raise RefereeError(_("there is no journal at {path}", path=str(self.path)))
        if existed and not self.path.is_file():
            raise RefereeError(_("the journal {path} is not a file", path=str(self.path)))
        if not read_only and not existed and not self.path.parent.is_dir():
            # A typo in `journal:` must not quietly start game 1 in a new folder, the old games unseen.

            raise RefereeError(journal_folder_missing(self.path))
        try:
            if existed and self.path.stat().st_size == 0:
                raise JournalDamaged(self.path, _("the file is empty (0 bytes)"))
            # A file is checked before the WAL mode is set: a file that is not a journal stays untouched.
            self.db = self._connect(wal=not existed)
            if existed:
                self._check()
                if not read_only:
                    self._set_wal(self.db)
            else:
                self.id = new_journal_id()
                self._create(self.db, self.id, self.id_from_game, self._now())
            row = self.db.execute("SELECT MAX(id) FROM games").fetchone()
            self._last_game_id = int(row[0] or 0)
            self._identity = self._stat()
            if existed:
                self._read_or_give_id()
        except sqlite3.DatabaseError as exc:
            self._close_quietly()
            if "not a database" in str(exc):
                raise JournalDamaged(self.path, _("it is not a referee journal (not an SQLite database)")) from None
            if _is_damage(exc):
                raise JournalDamaged(self.path, _damaged(exc)) from None
            raise RefereeError(_("cannot open the journal {path}: {why}", path=str(self.path), why=str(exc))) from None
        except OSError as exc:
            self._close_quietly()
            raise RefereeError(
                _("cannot open the journal {path}: {why}", path=str(self.path), why=os_words(exc))
            ) from None
        except RefereeError:
            self._close_quietly()
            raise

    # --- opening ----------------------------------------------------------------------------
    def _connect(self, wal: bool = True) -> sqlite3.Connection:
        if self.read_only:
            uri = f"file:{quote(str(self.path.resolve()))}?mode=ro"
            if not Path(f"{self.path}-wal").exists():
                # No write-ahead log beside it: no referee has it open, and `immutable` reads it
                # without creating the -wal and -shm files a WAL database otherwise gets even when read.
                uri += "&immutable=1"
            return sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=False)
        db = sqlite3.connect(str(self.path), isolation_level=None, check_same_thread=False)
        if wal:
            self._set_wal(db)
        return db

    @staticmethod
    def _set_wal(db: sqlite3.Connection) -> None:
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=FULL")  # a committed verdict survives a power cut

    @staticmethod
    def _create(db: sqlite3.Connection, journal_id: str, first_game: int, made_at: float) -> None:
        """The tables and the journal's id, in one transaction (a reader never sees one without the other)."""
        db.execute("BEGIN IMMEDIATE")
        try:
            for statement in (SCHEMA + ID_SCHEMA).split(";"):
                if statement.strip():
                    db.execute(statement)
            db.execute(
                "INSERT INTO journal_id (id, first_game, made_at) VALUES (?, ?, ?)", (journal_id, first_game, made_at)
            )
            db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            db.execute("COMMIT")
        except BaseException:
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise

    def _read_or_give_id(self) -> None:
        """Read the journal's id; a journal from before ids gets one now (not when read-only), durably.

        Its games so far were published without an id (the latest may still be going on and resume),
        so the id is carried from the next game on. If the file cannot be written now, the id waits
        in memory with the other writes and is committed with the first one that succeeds.
        """
        assert self.db is not None
        found = read_journal_id(self.db)
        if found is not None:
            self.id, self.id_from_game = found
            return
        if self.read_only:
            return
        self.id, self.id_from_game = new_journal_id(), self._last_game_id + 1
        self._pending[:0] = [
            (ID_SCHEMA.strip().rstrip(";"), ()),
            (
                "INSERT INTO journal_id (id, first_game, made_at) VALUES (?, ?, ?)",
                (self.id, self.id_from_game, self._now()),
            ),
        ]
        if self.flush():
            log.info(
                "the journal %s was given the id %s (games from %d on carry it)", self.path, self.id, self.id_from_game
            )

    def _check(self) -> None:
        """Refuse a file that is damaged or not a referee journal (raises JournalDamaged)."""
        assert self.db is not None
        result = [r[0] for r in self.db.execute("PRAGMA quick_check").fetchall()] if self.checked else ["ok"]
        if result != ["ok"]:
            first = str(result[0]).replace("\n", " ").removeprefix("*** in database main *** ")
            raise JournalDamaged(self.path, _("it is damaged ({why})", why=first))
        version = int(self.db.execute("PRAGMA user_version").fetchone()[0])
        tables = {
            name: [c[1] for c in self.db.execute(f"PRAGMA table_info({name})")]
            for (name,) in self.db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        }
        if not tables:
            raise JournalDamaged(self.path, _("it is an empty database, not a referee journal"))
        if version > SCHEMA_VERSION:
            raise JournalDamaged(
                self.path, _("it was written by a newer referee (journal version {version})", version=str(version))
            )
        wrong = [
            name
            for name, columns in TABLES.items()
            if tables.get(name) != columns and not (name in ADDED_LATER and name not in tables)
        ]
        if wrong or version not in (0, 1, SCHEMA_VERSION):
            raise JournalDamaged(
                self.path, _("it is not a referee journal (its tables are {tables})", tables=", ".join(sorted(tables)))
            )
        self.has_pictures = "pictures" in tables
        if version < SCHEMA_VERSION and not self.read_only:
            with contextlib.suppress(sqlite3.Error):  # a read-only journal of an older referee: still readable
                self.db.executescript(PICTURES_TABLE)
                self.db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
                self.has_pictures = True

    def _stat(self) -> tuple[int, int] | None:
        try:
            st = os.stat(self.path)
        except OSError:
            return None
        return st.st_dev, st.st_ino

    def _close_quietly(self) -> None:
        if self.db is not None:
            with contextlib.suppress(sqlite3.Error):
                self.db.close()
            self.db = None

    def close(self) -> None:
        """Try once more to write what waits, then close."""
        if not self.read_only and self._pending:
            self.flush()
        if self._pending:
            log.error(
                "the journal %s could not be written before stopping: %d entries are lost (%s)",
                self.path,
                len(self._pending),
                self.problem,
            )
        self._close_quietly()

    # --- reading ----------------------------------------------------------------------------
    def _read(self, sql: str, params: tuple = ()) -> list[tuple]:
        if self.db is None:
            self.db = self._connect()
        try:
            return self.db.execute(sql, params).fetchall()
        except sqlite3.DatabaseError as exc:
            if "decode" in str(exc):  # bytes that are not text where the journal wrote text
                raise JournalDamaged(self.path, _("a row is garbled (its text is not text)")) from None
            raise JournalDamaged(self.path, _damaged(exc)) from None

    def game(self, game_id: int) -> GameRow:
        rows = self._read("SELECT id, setup, started_at, closed_at, closed_why FROM games WHERE id = ?", (game_id,))
        if not rows:
            raise RefereeError(_("the journal {path} has no game {number}", path=str(self.path), number=str(game_id)))
        row = rows[0]
        try:
            setup = json.loads(row[1])
        except (TypeError, ValueError):
            raise JournalDamaged(self.path, _("the setup of game {number} is garbled", number=str(game_id))) from None
        return GameRow(row[0], setup, row[2], row[3], row[4])

    def latest_game(self) -> GameRow | None:
        row = self._read("SELECT MAX(id) FROM games")[0]
        return None if row[0] is None else self.game(row[0])

    def games(self) -> list[GameRow]:
        return [self.game(r[0]) for r in self._read("SELECT id FROM games ORDER BY id")]

    def summaries(self, limit: int, before: int | None = None) -> list[tuple[GameRow, int]]:
        """The latest `limit` games (before game `before`, when given), newest first, each with its
        number of entries: one query over the games and the entries' key, not every entry."""
        rows = self._read(
            "SELECT id, (SELECT COUNT(*) FROM entries WHERE entries.game_id = games.id) FROM games "
            "WHERE id < ? ORDER BY id DESC LIMIT ?",
            (before if before is not None else 2**62, limit),
        )
        return [(self.game(r[0]), int(r[1])) for r in rows]

    def entries(self, game_id: int) -> list[Entry]:
        rows = self._read(
            "SELECT game_id, seq, kind, payload, verdict, at FROM entries WHERE game_id = ? ORDER BY seq", (game_id,)
        )
        out = []
        for r in rows:
            try:
                verdict = json.loads(r[4])
            except (TypeError, ValueError):
                raise JournalDamaged(self.path, _garbled(r[1], game_id)) from None
            if not isinstance(verdict, dict) or not isinstance(r[3], str):
                raise JournalDamaged(self.path, _garbled(r[1], game_id))
            out.append(Entry(r[0], r[1], r[2], r[3], verdict, r[5]))
        if [e.seq for e in out] != list(range(len(out))):
            raise JournalDamaged(self.path, _("game {number} has entries missing", number=str(game_id)))
        return out

    def resume(self, game_id: int) -> list[Entry]:
        """A game's entries, remembered from now on so they can be written again if the file goes."""
        row = self.game(game_id)
        entries = self.entries(game_id)
        self._games[game_id] = _Game(
            game_id,
            json.dumps(row.setup, sort_keys=True),
            row.started_at,
            row.closed_at,
            row.closed_why,
            [(e.seq, e.kind, e.payload, json.dumps(e.verdict, sort_keys=True), e.at) for e in entries],
        )
        if self.has_pictures:
            rows = self._read("SELECT verdict, jpeg, at FROM pictures WHERE game_id = ? ORDER BY verdict", (game_id,))
            self._games[game_id].pictures = [(int(r[0]), bytes(r[1]), float(r[2])) for r in rows]
        return entries

    def events(self, game_id: int | None = None) -> list[tuple[float, str, str]]:
        if game_id is None:
            rows = self._read("SELECT at, kind, message FROM events ORDER BY id")
        else:
            rows = self._read("SELECT at, kind, message FROM events WHERE game_id = ? ORDER BY id", (game_id,))
        return [tuple(r) for r in rows]

    # --- writing ----------------------------------------------------------------------------
    def new_game(self, setup: dict[str, Any]) -> int:
        """Open a game; its number is given here, so it is known even before it is written."""
        self._last_game_id = max([self._last_game_id, *self._games]) + 1
        game = _Game(self._last_game_id, json.dumps(setup, sort_keys=True), self._now())
        self._games[game.id] = game
        self._write(
            "INSERT INTO games (id, setup, started_at) VALUES (?, ?, ?)", (game.id, game.setup, game.started_at)
        )
        return game.id

    def close_game(self, game_id: int, why: str) -> None:
        at = self._now()
        game = self._games.get(game_id)
        if game is not None and game.closed_at is None:
            game.closed_at, game.closed_why = at, why
        self._write(
            "UPDATE games SET closed_at = ?, closed_why = ? WHERE id = ? AND closed_at IS NULL", (at, why, game_id)
        )

    def append(
        self, game_id: int, kind: str, payload: str, verdict: dict[str, Any], picture: bytes | None = None
    ) -> int:
        """Commit one entry (or keep it until it can be); returns its sequence number (0 first).

        `picture`: the JPEG behind the verdict, committed in the same transaction (keyed by the
        verdict's `index`)."""
        game = self._games.get(game_id)
        if game is None:
            self.resume(game_id)
            game = self._games[game_id]
        seq = len(game.entries)
        at = self._now()
        row = (seq, kind, payload, json.dumps(verdict, sort_keys=True), at)
        game.entries.append(row)
        statements: list[tuple[str, tuple]] = [
            (
                "INSERT INTO entries (game_id, seq, kind, payload, verdict, at) VALUES (?, ?, ?, ?, ?, ?)",
                (game_id, *row),
            )
        ]
        index = verdict.get("index")
        if picture is not None and isinstance(index, int):
            game.pictures.append((index, picture, at))
            statements.append((INSERT_PICTURE, (game_id, index, picture, at)))
        self._write_all(statements)
        return seq

    # --- pictures ---------------------------------------------------------------------------
    def picture(self, game_id: int, index: int) -> bytes | None:
        """The JPEG behind verdict `index` of game `game_id` (None: none kept, or pruned)."""
        if not self.has_pictures:
            return None
        rows = self._read("SELECT jpeg FROM pictures WHERE game_id = ? AND verdict = ?", (game_id, index))
        return bytes(rows[0][0]) if rows else None

    def pictured(self, game_id: int) -> set[int]:
        """The verdict indices of game `game_id` that have a picture."""
        if not self.has_pictures:
            return set()
        return {int(r[0]) for r in self._read("SELECT verdict FROM pictures WHERE game_id = ?", (game_id,))}

    def prune_pictures(self, max_age: float | None, max_bytes: int | None) -> int:
        """Delete pictures older than `max_age` seconds, then the oldest until all of them take at
        most `max_bytes`; returns how many were deleted. Verdicts are never deleted."""
        if self.read_only or not self.has_pictures or not self.flush():
            return 0
        assert self.db is not None
        try:
            deleted = 0
            if max_age is not None:
                deleted += self.db.execute("DELETE FROM pictures WHERE at < ?", (self._now() - max_age,)).rowcount
            if max_bytes is not None:
                total = int(self.db.execute("SELECT COALESCE(SUM(LENGTH(jpeg)), 0) FROM pictures").fetchone()[0])
                if total > max_bytes:
                    doomed, freed = [], 0
                    for game_id, index, size in self.db.execute(
                        "SELECT game_id, verdict, LENGTH(jpeg) FROM pictures ORDER BY at, game_id, verdict"
                    ):
                        if total - freed <= max_bytes:
                            break
                        doomed.append((game_id, index))
                        freed += int(size)
                    self.db.executemany("DELETE FROM pictures WHERE game_id = ? AND verdict = ?", doomed)
                    deleted += len(doomed)
        except sqlite3.Error as exc:
            log.warning("the journal's old pictures could not be pruned: %s", exc)
            return 0
        if deleted:
            kept = {(g, i) for g, i in self.db.execute("SELECT game_id, verdict FROM pictures")}
            for game in self._games.values():
                game.pictures = [p for p in game.pictures if (game.id, p[0]) in kept]
        return deleted

    def event(self, game_id: int | None, kind: str, message: str) -> None:
        """A line for people reading the journal (faults, unreadable boards); never replayed."""
        self._write(
            "INSERT INTO events (game_id, at, kind, message) VALUES (?, ?, ?, ?)", (game_id, self._now(), kind, message)
        )

    @property
    def waiting(self) -> int:
        """Writes kept in memory because the journal could not be written."""
        return len(self._pending)

    def _write(self, sql: str, params: tuple) -> None:
        self._write_all([(sql, params)])

    def _write_all(self, statements: list[tuple[str, tuple]]) -> None:
        """Statements committed together (or kept together until they can be)."""
        if self.read_only:
            raise RefereeError(_("the journal {path} was opened read-only", path=str(self.path)))
        self._pending.extend(statements)
        if self.problem is not None and any(sql.startswith("INSERT INTO events") for sql, _ in statements):
            self._drop_old_events()
        self.flush()

    def _drop_old_events(self) -> None:
        events = [i for i, (sql, _) in enumerate(self._pending) if sql.startswith("INSERT INTO events")]
        for i in reversed(events[: max(0, len(events) - PENDING_EVENTS_LIMIT)]):
            del self._pending[i]

    def tick(self, now: float) -> None:
        """Called often by the loop (`now`: its clock): every `RETRY_SECONDS` check that the file
        is still there and try again to write what waits. Cheap otherwise."""
        if self.read_only or (self._last_try is not None and now - self._last_try < RETRY_SECONDS):
            return
        self._last_try = now
        self.flush()

    def flush(self) -> bool:
        """Write everything that waits, in order, in one transaction; True when nothing waits."""
        self._check_file()
        if not self._pending:
            return True
        try:
            if self.db is None:
                self.db = self._connect()
            self.db.execute("BEGIN IMMEDIATE")
            for sql, params in self._pending:
                self.db.execute(sql, params)
            self.db.execute("COMMIT")
        except (sqlite3.Error, OSError) as exc:
            self._failed(exc)
            return False
        written = len(self._pending)
        self._pending.clear()
        if self.problem is not None:
            log.warning("the journal %s is written again: %d waiting writes were committed", self.path, written)
            self.problem = None
        self._forget_written_games()
        return True

    def _failed(self, exc: BaseException) -> None:
        if self.db is not None:
            try:
                if self.db.in_transaction:
                    self.db.execute("ROLLBACK")
            except sqlite3.Error:
                pass  # the write failed already; the failure below is what is reported
        why = why_not_written(exc)
        if why is READ_ONLY:
            self._close_quietly()  # a connection opened read-only stays so: open it again next time
        problem = _("the journal cannot be written: {why}", why=why)
        if problem != self.problem:
            log.warning(
                "%s (%s: %s); the verdicts are kept in memory and written once it works again",
                problem,
                self.path,
                exc,
            )
        self.problem = problem

    def _forget_written_games(self) -> None:
        """Closed games that are fully written need not be remembered (memory stays small)."""
        closed = [g for g in self._games.values() if g.closed_at is not None]
        for game in closed:
            del self._games[game.id]

    # --- the file going away --------------------------------------------------------------
    def _check_file(self) -> None:
        if self.read_only or self._identity is None:
            return
        now = self._stat()
        if now == self._identity:
            return
        if now is None:
            what = _("the journal {path} was deleted while running", path=str(self.path))
        else:
            # The write-ahead log at the path is ours (SQLite leaves it when the file under it is
            # replaced) and would be applied to the other file: drop it, memory has its rows.
            self._close_quietly()
            self._remove_wal()
            try:
                aside = quarantine(self.path, "replaced", self._now)
            except OSError as exc:
                log.error("the journal %s was replaced and could not be moved aside: %s", self.path, exc)
                self._identity = None  # leave that file alone; writes wait in memory
                self.problem = _("the journal cannot be written: {why}", why=_("the file was replaced by another one"))
                return
            what = _(
                "the journal {path} was replaced by another file while running (the other file is now kept as {aside})",
                path=str(self.path),
                aside=str(aside),
            )
        self._rewrite(what)

    def _rewrite(self, what: Any) -> None:
        """Write a new file from memory: every remembered game and its entries, then what waits."""
        self._close_quietly()
        self._remove_wal()  # left over from the old file: not for the new one
        events = [(sql, p) for sql, p in self._pending if sql.startswith("INSERT INTO events")]
        rows: list[tuple[str, tuple]] = []
        for game in sorted(self._games.values(), key=lambda g: g.id):
            rows.append(
                (
                    "INSERT INTO games (id, setup, started_at, closed_at, closed_why) VALUES (?, ?, ?, ?, ?)",
                    (game.id, game.setup, game.started_at, game.closed_at, game.closed_why),
                )
            )
            rows.extend(
                (
                    "INSERT INTO entries (game_id, seq, kind, payload, verdict, at) VALUES (?, ?, ?, ?, ?, ?)",
                    (game.id, *entry),
                )
                for entry in game.entries
            )
            rows.extend((INSERT_PICTURE, (game.id, *picture)) for picture in game.pictures)
        self._pending = rows + events
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.db = self._connect()
            # The same journal, written again: the same id (its games' numbers go on, nothing restarts).
            self._create(self.db, self.id or new_journal_id(), self.id_from_game, self._now())
        except (sqlite3.Error, OSError) as exc:
            self._close_quietly()
            self._failed(exc)
        self._identity = self._stat()
        entries = sum(len(g.entries) for g in self._games.values())
        games = [str(g) for g in sorted(self._games)]
        notice = _n(
            "{what}; it was written again from memory (games: {games}, {n} entry)",
            "{what}; it was written again from memory (games: {games}, {n} entries)",
            entries,
            what=what,
            games=listed(games, None) if games else _("none"),
        )
        self.notices.append(notice)  # the loop shows it as a fault and logs it

    def _remove_wal(self) -> None:
        for suffix in ("-wal", "-shm"):
            with contextlib.suppress(OSError):
                Path(f"{self.path}{suffix}").unlink()

    def take_notices(self) -> list[str]:
        out, self.notices = self.notices, []
        return out


def _is_damage(exc: sqlite3.DatabaseError) -> bool:
    """A file SQLite cannot read as a database (as opposed to one it cannot open or lock)."""
    name = getattr(exc, "sqlite_errorname", "") or ""
    if name.startswith(("SQLITE_CORRUPT", "SQLITE_NOTADB")):
        return True
    text = str(exc)
    return "malformed" in text or "not a database" in text or type(exc) is sqlite3.DatabaseError
