"""What the publisher reads from the journal, and what it has delivered, in the journal's own file.

Why in the journal: a verdict the club has not stored must survive a power cut as surely as the
verdict itself. The journal already holds every entry; this module adds two small tables:
`mqtt_delivered`, with the last (game_id, seq) the club acknowledged per table name, and
`mqtt_names`, the players' names each game was published with (its first entry names them, and
its result must name the same players even if the config changed before the game ended). It uses
its own SQLite connection (WAL lets it read while the referee writes) and touches neither
`journal.py` nor the journal's own tables.

Which journal: the journal's id (`journal.py`, "Which journal") goes with every entry sent, so the
club tells a fresh journal's game 1 from the game 1 of the journal it replaced. When the referee
writes its journal again from memory under the same name (the file was deleted or replaced while
running), the feed follows it to the new file, which has the same id, and carries its mark over.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any
from urllib.parse import quote

from controller.errors import RefereeError
from controller.service.journal import Entry, read_journal_id

DELIVERY_SCHEMA = """
CREATE TABLE IF NOT EXISTS mqtt_delivered (
    table_name TEXT PRIMARY KEY,
    game_id INTEGER NOT NULL,
    seq INTEGER NOT NULL,
    at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS mqtt_names (
    table_name TEXT NOT NULL,
    game_id INTEGER NOT NULL,
    names TEXT NOT NULL,
    PRIMARY KEY (table_name, game_id)
);
"""

#: A position in the journal: (game_id, seq) of an entry; seq -1 is "before the game's first entry".
Point = tuple[int, int]


def add_delivery_table(db: sqlite3.Connection) -> None:
    """Create the `mqtt_delivered` table in a journal file (idempotent)."""
    db.executescript(DELIVERY_SCHEMA)


class JournalFeed:
    """The publisher's connection to the journal file; thread-safe (paho's thread marks deliveries)."""

    def __init__(self, path: str | Path, table: str) -> None:
        self.path = Path(path)
        self.table = table
        self._lock = threading.Lock()
        self.db = self._open(create=True)
        self._file = _file_of(self.path)
        #: (id, first game published with it), once read.
        self._id: tuple[str, int] | None = None
        #: The last mark read or written, carried over to a file written again from memory.
        self._mark: Point | None = None

    def _open(self, create: bool = False) -> sqlite3.Connection:
        if create:
            db = sqlite3.connect(str(self.path), isolation_level=None, check_same_thread=False, timeout=10.0)
        else:  # never make an empty file where the referee is about to write its journal again
            uri = f"file:{quote(str(self.path.resolve()))}?mode=rw"
            db = sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=False, timeout=10.0)
        # A lost acknowledgement only means one more (deduplicated) send: no fsync per delivery.
        db.execute("PRAGMA synchronous=NORMAL")
        add_delivery_table(db)
        return db

    def close(self) -> None:
        with self._lock:
            self.db.close()

    def journal_id(self) -> tuple[str, int]:
        """(the journal's id, the first game published with it); games before it (a journal from
        before ids) are published without one. Raises RefereeError while the journal has none yet
        (its referee could not write it so far): nothing is sent until it has."""
        if self._id is None:
            with self._lock:
                found = read_journal_id(self.db)
            if found is None:
                raise RefereeError(f"the journal {self.path} has no id yet")
            self._id = found
        return self._id

    def journal_for(self, game_id: int) -> str | None:
        """The journal id game `game_id` is published with (None: a game from before the journal had one)."""
        journal, first = self.journal_id()
        return journal if game_id >= first else None

    def _follow_file(self) -> None:
        """Called with `_lock` held: when the journal's name now holds another file that is the same
        journal (the referee wrote it again from memory: the same id), read that one from now on."""
        now = _file_of(self.path)
        if now is None or now == self._file or self._id is None:
            return
        try:
            db = self._open()
            same = read_journal_id(db) == self._id
        except sqlite3.Error:
            return  # not readable yet: looked at again next time
        if not same:  # another program's file, not yet moved aside by the referee: not ours
            db.close()
            return
        if (
            self._mark is not None
            and db.execute("SELECT 1 FROM mqtt_delivered WHERE table_name = ?", (self.table,)).fetchone() is None
        ):
            _write_mark(db, self.table, self._mark)
        self.db.close()
        self.db, self._file = db, now

    def delivered(self) -> Point:
        """The last entry the club acknowledged (with all before it); the first time, just before the latest game.

        A journal that was never published starts at its latest game: older games are not sent to
        a club that did not ask for them.
        """
        with self._lock:
            row = self.db.execute(
                "SELECT game_id, seq FROM mqtt_delivered WHERE table_name = ?", (self.table,)
            ).fetchone()
            if row is not None:
                self._mark = int(row[0]), int(row[1])
                return self._mark
            latest = self.db.execute("SELECT MAX(id) FROM games").fetchone()[0]
            point = (int(latest) if latest is not None else 0, -1)
            self._write(point)
            return point

    def names_of(self, game_id: int, names: list[str]) -> list[str]:
        """The players' names game `game_id` was first published with (`names` from now on, if never)."""
        with self._lock:
            row = self.db.execute(
                "SELECT names FROM mqtt_names WHERE table_name = ? AND game_id = ?", (self.table, game_id)
            ).fetchone()
            if row is not None:
                kept = json.loads(row[0])
                if isinstance(kept, list) and all(isinstance(n, str) for n in kept):
                    return kept
            self.db.execute(
                "INSERT OR REPLACE INTO mqtt_names (table_name, game_id, names) VALUES (?, ?, ?)",
                (self.table, game_id, json.dumps(list(names))),
            )
            return list(names)

    def mark(self, point: Point) -> None:
        with self._lock:
            self._write(point)

    def _write(self, point: Point) -> None:
        _write_mark(self.db, self.table, point)
        self._mark = point

    def after(self, point: Point, limit: int) -> list[Entry]:
        """Entries after `point`, in journal order (game by game, then seq)."""
        with self._lock:
            self._follow_file()
            rows = self.db.execute(
                "SELECT game_id, seq, kind, payload, verdict, at FROM entries "
                "WHERE game_id > ? OR (game_id = ? AND seq > ?) ORDER BY game_id, seq LIMIT ?",
                (point[0], point[0], point[1], limit),
            ).fetchall()
        return [Entry(r[0], r[1], r[2], r[3], json.loads(r[4]), r[5]) for r in rows]

    def game_entries(self, game_id: int, upto: int) -> list[Entry]:
        with self._lock:
            rows = self.db.execute(
                "SELECT game_id, seq, kind, payload, verdict, at FROM entries WHERE game_id = ? AND seq <= ? "
                "ORDER BY seq",
                (game_id, upto),
            ).fetchall()
        return [Entry(r[0], r[1], r[2], r[3], json.loads(r[4]), r[5]) for r in rows]

    def setup(self, game_id: int) -> dict[str, Any] | None:
        with self._lock:
            row = self.db.execute("SELECT setup FROM games WHERE id = ?", (game_id,)).fetchone()
        return None if row is None else json.loads(row[0])


def _write_mark(db: sqlite3.Connection, table: str, point: Point) -> None:
    db.execute(
        "INSERT INTO mqtt_delivered (table_name, game_id, seq, at) VALUES (?, ?, ?, ?) "
        "ON CONFLICT(table_name) DO UPDATE SET game_id = excluded.game_id, seq = excluded.seq, at = excluded.at",
        (table, point[0], point[1], time.time()),
    )


def _file_of(path: Path) -> tuple[int, int] | None:
    """The file a name holds now (device, inode), or None when there is none."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino
