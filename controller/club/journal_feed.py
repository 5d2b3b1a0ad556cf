"""What the publisher reads from the journal, and what it has delivered, in the journal's own file.

Why in the journal: a verdict the club has not stored must survive a power cut as surely as the
verdict itself. The journal already holds every entry; this module adds two small tables:
`mqtt_delivered`, with the last (game_id, seq) the club acknowledged per table name, and
`mqtt_names`, the players' names each game was published with (its first entry names them, and
its result must name the same players even if the config changed before the game ended). It uses
its own SQLite connection (WAL lets it read while the referee writes) and touches neither
`journal.py` nor the journal's own tables.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

from controller.service.journal import Entry

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
        self.table = table
        self._lock = threading.Lock()
        self.db = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False, timeout=10.0)
        # A lost acknowledgement only means one more (deduplicated) send: no fsync per delivery.
        self.db.execute("PRAGMA synchronous=NORMAL")
        add_delivery_table(self.db)

    def close(self) -> None:
        with self._lock:
            self.db.close()

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
                return int(row[0]), int(row[1])
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
        self.db.execute(
            "INSERT INTO mqtt_delivered (table_name, game_id, seq, at) VALUES (?, ?, ?, ?) "
            "ON CONFLICT(table_name) DO UPDATE SET game_id = excluded.game_id, seq = excluded.seq, at = excluded.at",
            (self.table, point[0], point[1], time.time()),
        )

    def after(self, point: Point, limit: int) -> list[Entry]:
        """Entries after `point`, in journal order (game by game, then seq)."""
        with self._lock:
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
