"""The club's memory: every table's live state, every verdict once, every result, and the standings.

Why SQLite: the club keeps results across restarts and can be asked for a CSV at the end of the
day; one file, no server. Messages are applied in batches (one transaction each) by one thread,
so a busy evening of 50 tables costs a few commits a second, not one per message.

A verdict is kept once per (table, game_id, seq), whatever the broker delivers twice (a table
sends again what was not acknowledged when its connection broke): that is how "nothing twice"
holds at the club. Players are known by the names their table's config gives its seats, so one
person's results add up across tables and games.
"""

from __future__ import annotations

import collections
import csv
import io
import json
import logging
import sqlite3
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from controller.club.payloads import Message, verdict_words
from controller.errors import RefereeError

SCHEMA = """
CREATE TABLE IF NOT EXISTS tables (
    name TEXT PRIMARY KEY,
    state TEXT,
    online INTEGER,
    last_verdict TEXT,
    seen REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS verdicts (
    table_name TEXT NOT NULL,
    game_id INTEGER NOT NULL,
    seq INTEGER NOT NULL,
    body TEXT NOT NULL,
    received REAL NOT NULL,
    PRIMARY KEY (table_name, game_id, seq)
);
CREATE TABLE IF NOT EXISTS results (
    table_name TEXT NOT NULL,
    game_id INTEGER NOT NULL,
    seq INTEGER NOT NULL,
    body TEXT NOT NULL,
    received REAL NOT NULL,
    PRIMARY KEY (table_name, game_id)
);
"""

#: Latencies kept for /api/stats (the most recent ones).
LATENCY_WINDOW = 20000


@dataclass(frozen=True)
class Points:
    """Points per result: a game with one winner is a win for them and a loss for the others;
    several winners (a draw, a shared win) is a draw for each of them; no winner is a loss for all."""

    win: float = 1.0
    draw: float = 0.5
    loss: float = 0.0

    @classmethod
    def parse(cls, text: str) -> Points:
        values = {"win": cls.win, "draw": cls.draw, "loss": cls.loss}
        for part in text.split(","):
            key, sep, value = part.partition("=")
            key = key.strip()
            if not sep or key not in values:
                raise RefereeError(f"--points: expected win=N,draw=N,loss=N (any of them), got {text!r}")
            try:
                values[key] = float(value)
            except ValueError:
                raise RefereeError(f"--points: {key} should be a number, got {value!r}") from None
        return cls(**values)


@dataclass
class Standing:
    name: str
    played: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    points: float = 0.0
    tables: set[str] = field(default_factory=set)

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "played": self.played,
            "wins": self.wins,
            "draws": self.draws,
            "losses": self.losses,
            "points": self.points,
            "tables": sorted(self.tables),
        }


@dataclass
class Changes:
    """What one batch changed: the page is told only about these."""

    tables: set[str] = field(default_factory=set)
    standings: bool = False


def percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


class ClubStore:
    """SQLite plus the live view in memory; `apply` runs on one thread, reads from any."""

    def __init__(
        self, path: str | Path, points: Points | None = None, log: logging.Logger | None = None, wall_clock=time.time
    ) -> None:
        self.path = Path(path)
        self.points = points or Points()
        self.log = log or logging.getLogger("referee.club")
        self.wall = wall_clock
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.db = sqlite3.connect(str(self.path), isolation_level=None, check_same_thread=False)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=NORMAL")
            self.db.executescript(SCHEMA)
        except (OSError, sqlite3.Error) as exc:
            raise RefereeError(f"cannot open the club's database {self.path}: {exc}") from None
        self._lock = threading.Lock()
        self.tables: dict[str, dict[str, Any]] = {}
        self.results: dict[tuple[str, int], dict[str, Any]] = {}
        self._last_seq: dict[tuple[str, int], int] = {}
        self._standings: list[dict[str, Any]] | None = None
        self.counts = collections.Counter()
        self.verdict_latency: collections.deque[float] = collections.deque(maxlen=LATENCY_WINDOW)
        self.standings_latency: collections.deque[float] = collections.deque(maxlen=LATENCY_WINDOW)
        #: From the club's receiving a message to its update: the club's own share.
        self.club_latency: collections.deque[float] = collections.deque(maxlen=LATENCY_WINDOW)
        self._load()

    def close(self) -> None:
        self.db.close()

    def _load(self) -> None:
        rows = self.db.execute("SELECT name, state, online, last_verdict, seen FROM tables")
        for name, state, online, last, seen in rows:
            self.tables[name] = {
                "state": json.loads(state) if state else None,
                "state_text": state,
                "online": None if online is None else bool(online),
                "last_verdict": json.loads(last) if last else None,
                "last_text": last,
                "seen": seen,
            }
        for table, game_id, _seq, body in self.db.execute("SELECT table_name, game_id, seq, body FROM results"):
            self.results[(table, game_id)] = json.loads(body)
        for table, game_id, seq in self.db.execute(
            "SELECT table_name, game_id, MAX(seq) FROM verdicts GROUP BY table_name, game_id"
        ):
            self._last_seq[(table, game_id)] = seq

    # --- applying messages ------------------------------------------------------------------------
    def apply(self, messages: list[Message]) -> Changes:
        """Apply a batch of checked messages in one transaction."""
        changes = Changes()
        now = self.wall()
        standings_sent: list[float] = []
        with self._lock:
            self.db.execute("BEGIN")
            try:
                for message in messages:
                    self.counts["messages"] += 1
                    handler = getattr(self, f"_{message.leaf}")
                    try:
                        if handler(message, now, changes, standings_sent):
                            changes.tables.add(message.table)
                    except (sqlite3.Error, ValueError, TypeError, KeyError, OverflowError) as exc:
                        self.counts["ignored"] += 1  # one odd message; the batch's others are kept
                        self.log.warning(
                            "ignored a message from table %r: could not store it (%s)", message.table[:80], exc
                        )
                for name in changes.tables:
                    self._save_table(name, now)
                self.db.execute("COMMIT")
            except BaseException:
                self.db.execute("ROLLBACK")
                raise
            if changes.standings:
                self._standings = None
        done = self.wall()
        for message in messages:  # from the table's publication to the update being visible here
            sent = message.body.get("sent") if isinstance(message.body, dict) else None
            if message.leaf == "verdict" and isinstance(sent, (int, float)):
                self.verdict_latency.append(done - sent)
            if message.received is not None:
                self.club_latency.append(done - message.received)
        self.standings_latency.extend(done - s for s in standings_sent)
        return changes

    def _table(self, name: str) -> dict[str, Any]:
        return self.tables.setdefault(name, {"state": None, "online": None, "last_verdict": None, "seen": None})

    def _save_table(self, name: str, now: float) -> None:
        t = self.tables[name]
        t["seen"] = now
        self.db.execute(
            "INSERT INTO tables (name, state, online, last_verdict, seen) VALUES (?, ?, ?, ?, ?) "
            "ON CONFLICT(name) DO UPDATE SET state = excluded.state, online = excluded.online, "
            "last_verdict = excluded.last_verdict, seen = excluded.seen",
            (
                name,
                t.get("state_text"),
                None if t["online"] is None else int(t["online"]),
                t.get("last_text"),
                now,
            ),
        )

    def _online(self, message: Message, now: float, changes: Changes, standings_sent: list) -> bool:
        table = self._table(message.table)
        table["online"] = message.body
        return True

    def _state(self, message: Message, now: float, changes: Changes, standings_sent: list) -> bool:
        table = self._table(message.table)
        table["state"], table["state_text"] = message.body, message.text
        return True

    def _verdict(self, message: Message, now: float, changes: Changes, standings_sent: list) -> bool:
        body = message.body
        key = (message.table, body["game_id"])
        cur = self.db.execute(
            "INSERT OR IGNORE INTO verdicts (table_name, game_id, seq, body, received) VALUES (?, ?, ?, ?, ?)",
            (message.table, body["game_id"], body["seq"], message.text, now),
        )
        if cur.rowcount == 0:
            self.counts["duplicates"] += 1
            return False
        self.counts["verdicts"] += 1
        last = self._last_seq.get(key)
        if last is not None and body["seq"] > last + 1:
            self.counts["gaps"] += 1
            self.log.warning(
                "table %s game %d: verdicts %d to %d never arrived",
                message.table,
                body["game_id"],
                last + 1,
                body["seq"] - 1,
            )
        if last is None or body["seq"] > last:
            self._last_seq[key] = body["seq"]
        table = self._table(message.table)
        current = table["last_verdict"]
        if current is None or (body["game_id"], body["seq"]) >= (current["game_id"], current["seq"]):
            table["last_verdict"], table["last_text"] = body, message.text  # in words when asked
            return True
        return False

    def _result(self, message: Message, now: float, changes: Changes, standings_sent: list) -> bool:
        body = message.body
        key = (message.table, body["game_id"])
        old = self.results.get(key)
        if old is not None and old["seq"] >= body["seq"]:
            self.counts["duplicates"] += 1
            return False
        self.db.execute(
            "INSERT OR REPLACE INTO results (table_name, game_id, seq, body, received) VALUES (?, ?, ?, ?, ?)",
            (message.table, body["game_id"], body["seq"], message.text, now),
        )
        self.results[key] = body
        self.counts["results"] += 1
        changes.standings = True
        if isinstance(body.get("sent"), (int, float)):
            standings_sent.append(body["sent"])
        return False

    # --- reading ------------------------------------------------------------------------------------
    def standings(self) -> list[dict[str, Any]]:
        with self._lock:
            if self._standings is None:
                self._standings = self._compute_standings()
            return self._standings

    def _compute_standings(self) -> list[dict[str, Any]]:
        players: dict[str, Standing] = {}
        p = self.points
        for (table, _game_id), body in sorted(self.results.items()):
            result = body["result"]
            if not result.get("finished"):
                continue
            winners = set(result.get("winners") or [])
            for seat, name in enumerate(body["names"]):
                s = players.setdefault(name, Standing(name))
                s.played += 1
                s.tables.add(table)
                if seat in winners and len(winners) == 1:
                    s.wins += 1
                    s.points += p.win
                elif seat in winners:
                    s.draws += 1
                    s.points += p.draw
                else:
                    s.losses += 1
                    s.points += p.loss
        ranked = sorted(players.values(), key=lambda s: (-s.points, -s.wins, s.played, s.name))
        return [{"rank": i + 1, **s.to_json()} for i, s in enumerate(ranked)]

    def standings_csv(self) -> str:
        out = io.StringIO()
        writer = csv.writer(out)
        writer.writerow(["rank", "name", "played", "wins", "draws", "losses", "points", "tables"])
        for s in self.standings():
            writer.writerow(
                [
                    s["rank"],
                    spreadsheet_text(s["name"]),
                    s["played"],
                    s["wins"],
                    s["draws"],
                    s["losses"],
                    f"{s['points']:g}",
                    spreadsheet_text(" ".join(s["tables"])),
                ]
            )
        return out.getvalue()

    def table_view(self, name: str) -> dict[str, Any]:
        """One table as the page shows it, in words."""
        with self._lock:
            t = self.tables.get(name) or {}
            state = dict(t.get("state") or {})
            last = t.get("last_verdict")
            online = t.get("online")
        names = state.get("names") or []
        turn = state.get("turn")
        winners = state.get("winners") or []
        view: dict[str, Any] = {
            "table": name,
            "online": online,
            "game": state.get("game"),
            "variant": state.get("variant"),
            "game_id": state.get("game_id"),
            "names": names,
            "turn": turn,
            "turn_words": _seat_words(turn, names) if isinstance(turn, int) and not state.get("over") else None,
            "over": bool(state.get("over")),
            "winners_words": ", ".join(_seat_words(w, names) for w in winners) if winners else None,
            "scores": state.get("scores"),
            "faults": state.get("faults") or [],
            "illegal": bool(state.get("illegal")),
            "pending": bool(state.get("pending")),
            "unreadable": state.get("unreadable"),
            "snapshot": state.get("snapshot"),
            "last_verdict": verdict_words(last, names) if last else None,
            "last_verdict_seq": [last["game_id"], last["seq"]] if last else None,
        }
        return view

    def table_names(self) -> list[str]:
        with self._lock:
            return sorted(self.tables)

    def verdicts_of(self, table: str, game_id: int) -> list[int]:
        """The seqs kept for one game (tests: none missing, none twice)."""
        with self._lock:
            rows = self.db.execute(
                "SELECT seq FROM verdicts WHERE table_name = ? AND game_id = ? ORDER BY seq", (table, game_id)
            ).fetchall()
        return [r[0] for r in rows]

    def stats(self) -> dict[str, Any]:
        verdict = list(self.verdict_latency)
        standings = list(self.standings_latency)
        club = list(self.club_latency)

        def ms(values: list[float], q: float) -> float | None:
            v = percentile(values, q)
            return None if v is None else round(v * 1000, 1)

        return {
            **{k: self.counts.get(k, 0) for k in ("messages", "verdicts", "results", "duplicates", "ignored", "gaps")},
            "verdict_latency_ms": {"p50": ms(verdict, 0.5), "p99": ms(verdict, 0.99), "n": len(verdict)},
            "standings_latency_ms": {"p50": ms(standings, 0.5), "p99": ms(standings, 0.99), "n": len(standings)},
            "club_latency_ms": {"p50": ms(club, 0.5), "p99": ms(club, 0.99), "n": len(club)},
        }


#: What a spreadsheet takes for the start of a formula in a cell.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r", "\n")


def spreadsheet_text(text: str) -> str:
    """A cell of text a spreadsheet shows as text: one starting like a formula gets a leading `'`
    (the usual escape: `=HYPERLINK(...)` as a player's name stays a name, never a live formula)."""
    return "'" + text if text.startswith(FORMULA_STARTS) else text


def _seat_words(seat: int, names: list[str]) -> str:
    """A seat as players count it (from 1), with the player's name when known."""
    if 0 <= seat < len(names):
        return names[seat]
    return f"seat {seat + 1}"
