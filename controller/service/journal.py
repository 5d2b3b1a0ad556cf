"""The service's journal: a SQLite database (WAL) of every game, settled snapshot and verdict.

Why: a power cut must not lose a game. Each judged snapshot, action and reveal is committed with
its verdict before the lights show it, so after a restart the game is replayed through a fresh
`Referee` (which is deterministic) and must give back every stored verdict; play then resumes at
the same state and turn. A verdict the lights showed is always in the journal; a snapshot judged
but not yet committed when the power went is simply judged again after the restart.

A game is one setup (the config's game keys) and its entries. `new-game` closes the current game
(its last entry is the `new-game` action) and opens a new one with the same setup, so every game
exports as one record.
"""

from __future__ import annotations

import json
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from controller.errors import RefereeError

SCHEMA = """
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
    action's name) or 'reveal' (payload: JSON {seat, colours}); `verdict` is its verdict JSON."""

    game_id: int
    seq: int
    kind: str
    payload: str
    verdict: dict[str, Any]
    at: float


class Journal:
    """One SQLite file in WAL mode; every write is its own committed transaction."""

    def __init__(self, path: str | Path, wall_clock=time.time) -> None:
        self.path = Path(path)
        self._now = wall_clock
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.db = sqlite3.connect(str(self.path), isolation_level=None, check_same_thread=False)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=FULL")  # a committed verdict survives a power cut
            self.db.executescript(SCHEMA)
        except (OSError, sqlite3.Error) as exc:
            raise RefereeError(f"cannot open the journal {self.path}: {exc}") from None

    def close(self) -> None:
        self.db.close()

    # --- games ------------------------------------------------------------------------------
    def new_game(self, setup: dict[str, Any]) -> int:
        cur = self.db.execute(
            "INSERT INTO games (setup, started_at) VALUES (?, ?)", (json.dumps(setup, sort_keys=True), self._now())
        )
        return int(cur.lastrowid)

    def close_game(self, game_id: int, why: str) -> None:
        self.db.execute(
            "UPDATE games SET closed_at = ?, closed_why = ? WHERE id = ? AND closed_at IS NULL",
            (self._now(), why, game_id),
        )

    def game(self, game_id: int) -> GameRow:
        row = self.db.execute(
            "SELECT id, setup, started_at, closed_at, closed_why FROM games WHERE id = ?", (game_id,)
        ).fetchone()
        if row is None:
            raise RefereeError(f"the journal {self.path} has no game {game_id}")
        return GameRow(row[0], json.loads(row[1]), row[2], row[3], row[4])

    def latest_game(self) -> GameRow | None:
        row = self.db.execute("SELECT MAX(id) FROM games").fetchone()
        return None if row[0] is None else self.game(row[0])

    def games(self) -> list[GameRow]:
        ids = [r[0] for r in self.db.execute("SELECT id FROM games ORDER BY id")]
        return [self.game(i) for i in ids]

    # --- entries ----------------------------------------------------------------------------
    def append(self, game_id: int, kind: str, payload: str, verdict: dict[str, Any]) -> int:
        """Commit one entry; returns its sequence number (0 for a game's first entry)."""
        with self.db:  # BEGIN ... COMMIT, so seq is unique even with two writers
            self.db.execute("BEGIN IMMEDIATE")
            row = self.db.execute("SELECT COALESCE(MAX(seq) + 1, 0) FROM entries WHERE game_id = ?", (game_id,))
            seq = int(row.fetchone()[0])
            self.db.execute(
                "INSERT INTO entries (game_id, seq, kind, payload, verdict, at) VALUES (?, ?, ?, ?, ?, ?)",
                (game_id, seq, kind, payload, json.dumps(verdict, sort_keys=True), self._now()),
            )
            self.db.execute("COMMIT")
        return seq

    def entries(self, game_id: int) -> list[Entry]:
        rows = self.db.execute(
            "SELECT game_id, seq, kind, payload, verdict, at FROM entries WHERE game_id = ? ORDER BY seq", (game_id,)
        )
        return [Entry(r[0], r[1], r[2], r[3], json.loads(r[4]), r[5]) for r in rows]

    # --- events (faults, unreadable boards): for people reading the journal, never replayed ------
    def event(self, game_id: int | None, kind: str, message: str) -> None:
        self.db.execute(
            "INSERT INTO events (game_id, at, kind, message) VALUES (?, ?, ?, ?)", (game_id, self._now(), kind, message)
        )

    def events(self, game_id: int | None = None) -> list[tuple[float, str, str]]:
        if game_id is None:
            rows = self.db.execute("SELECT at, kind, message FROM events ORDER BY id")
        else:
            rows = self.db.execute("SELECT at, kind, message FROM events WHERE game_id = ? ORDER BY id", (game_id,))
        return [tuple(r) for r in rows]  # type: ignore[misc]
