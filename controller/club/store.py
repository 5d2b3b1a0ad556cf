"""The club's memory: every table's live state, every verdict once, every result, and the standings.

Why SQLite: the club keeps results across restarts and can be asked for a CSV at the end of the
day; one file, no server. Messages are applied in batches (one transaction each) by one thread,
so a busy evening of 50 tables costs a few commits a second, not one per message.

A verdict is kept once per (table, journal, game_id, seq), whatever the broker delivers twice (a table
sends again what the club has not acknowledged): that is how "nothing twice" holds at the club,
and the club says, table by table, which entries it has stored (`Changes.acks`, published by the
listener on `<prefix>/<table>/ack`): a table moves its delivery mark only then, so nothing is lost
when the broker is. Players are known by the names their table's config gives its seats, so one
person's results add up across tables and games.

A table's games are told apart by its journal's id too (`journal`): a table whose journal was
moved aside (damaged, or another program's) starts again at game 1 in a fresh journal with a new
id, and those games are new games beside the old journal's, not contradictions of them. Verdicts
that name no journal (a journal from before ids) are kept under the journal ''.

What a table writes is believed only as far as it can be checked (its password sits on its SD
card, so anyone may have it): a game's result counts only when the club holds every verdict of
that game up to the entry that ended it, the result travels with that entry's verdict, and names
the players the game's first verdict named (as many as it has seats; with a roster, only names the
roster gives that table); a later result of a game (a Colorpop reveal) must come with a later entry
of its chain. A verdict never replaces another: a different one for an entry the club holds is a
dispute: a game not counted yet never counts then (which of two chains is the table's?), one
that counted stays (its whole chain was held first). Whatever is refused is logged with the
table's name. Every rule holds per journal: a new journal id brings nothing without its verdicts.
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

from controller.club.payloads import Message, help_mark, state_sentences, verdict_words
from controller.errors import RefereeError
from controller.files import load_yaml
from controller.language import DEFAULT, _, _n, _p, listed, literal, said
from controller.record import COMPUTER_MOVE
from controller.words import game_name, seat_words

#: The club database's version (`PRAGMA user_version`): 0, games keyed by (table, game_id); 1,
#: by (table, journal, game_id). A version 0 database is migrated when opened (`_migrate`).
SCHEMA_VERSION = 1
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
    journal TEXT NOT NULL DEFAULT '',
    game_id INTEGER NOT NULL,
    seq INTEGER NOT NULL,
    body TEXT NOT NULL,
    received REAL NOT NULL,
    PRIMARY KEY (table_name, journal, game_id, seq)
);
CREATE TABLE IF NOT EXISTS results (
    table_name TEXT NOT NULL,
    journal TEXT NOT NULL DEFAULT '',
    game_id INTEGER NOT NULL,
    seq INTEGER NOT NULL,
    body TEXT NOT NULL,
    received REAL NOT NULL,
    PRIMARY KEY (table_name, journal, game_id)
);
CREATE TABLE IF NOT EXISTS games (
    table_name TEXT NOT NULL,
    journal TEXT NOT NULL DEFAULT '',
    game_id INTEGER NOT NULL,
    names TEXT NOT NULL,
    PRIMARY KEY (table_name, journal, game_id)
);
CREATE TABLE IF NOT EXISTS disputes (
    table_name TEXT NOT NULL,
    journal TEXT NOT NULL DEFAULT '',
    game_id INTEGER NOT NULL,
    seq INTEGER NOT NULL,
    why TEXT NOT NULL,
    at REAL NOT NULL,
    PRIMARY KEY (table_name, journal, game_id, seq)
);
"""
#: The tables that gained the `journal` column in version 1, with their other columns in order.
JOURNAL_KEYED = {
    "verdicts": ("game_id", "seq", "body", "received"),
    "results": ("game_id", "seq", "body", "received"),
    "games": ("game_id", "names"),
    "disputes": ("game_id", "seq", "why", "at"),
}

#: One game at the club: (table, journal id or '', game_id).
GameKey = tuple[str, str, int]

#: Latencies kept for /api/stats (the most recent ones).
LATENCY_WINDOW = 20000
#: A verdict further ahead of what the club holds of its game, or a game further ahead of the
#: table's newest, is refused (a table sends at most 100 entries ahead of what the club stored).
MAX_AHEAD = 1000
#: A refusal of one kind from one table is logged at most once per this many seconds (with a count).
REFUSAL_LOG_INTERVAL = 60.0


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
                raise RefereeError(
                    _("--points: expected win=N,draw=N,loss=N (any of them), got {value}", value=repr(text))
                )
            try:
                values[key] = float(value)
            except ValueError:
                raise RefereeError(
                    _("--points: {key} should be a number, got {value}", key=key, value=repr(value))
                ) from None
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
    #: Finished games set apart, not counted above: someone took hints; a seat was the computer's.
    helped: int = 0
    against_computer: int = 0

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "played": self.played,
            "wins": self.wins,
            "draws": self.draws,
            "losses": self.losses,
            "points": self.points,
            "tables": sorted(self.tables),
            "helped": self.helped,
            "against_computer": self.against_computer,
        }


@dataclass
class Changes:
    """What one batch changed: the page is told only about these; the tables are told what was stored."""

    tables: set[str] = field(default_factory=set)
    standings: bool = False
    #: Per table and journal, the entries (game_id, seq) the club now holds: the table may move its
    #: mark past them.
    acks: dict[tuple[str, str], list[tuple[int, int]]] = field(default_factory=dict)
    #: Tables asked to send again what the club has not acknowledged (a gap, or first heard of since
    #: the club connected).
    resend: set[str] = field(default_factory=set)
    #: Games whose verdicts changed in this batch (their results are looked at again).
    games: set[GameKey] = field(default_factory=set)


def percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


class ClubStore:
    """SQLite plus the live view in memory; `apply` runs on one thread, reads from any."""

    def __init__(
        self,
        path: str | Path,
        points: Points | None = None,
        log: logging.Logger | None = None,
        wall_clock=time.time,
        roster: dict[str, set[str]] | None = None,
    ) -> None:
        self.path = Path(path)
        self.points = points or Points()
        #: Which players each table may field (None: any names its games' first verdicts give).
        self.roster = roster
        self.log = log or logging.getLogger("referee.club")
        self.wall = wall_clock
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.db = sqlite3.connect(str(self.path), isolation_level=None, check_same_thread=False)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=NORMAL")
            self._migrate()
            self.db.executescript(SCHEMA)
            self.db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        except (OSError, sqlite3.Error) as exc:
            raise RefereeError(
                _("cannot open the club's database {path}: {why}", path=str(self.path), why=str(exc))
            ) from None
        self._lock = threading.Lock()
        self.tables: dict[str, dict[str, Any]] = {}
        self.results: dict[GameKey, dict[str, Any]] = {}
        self._last_seq: dict[GameKey, int] = {}
        #: Per game: how many of its entries from seq 0 on the club holds without a gap, and the
        #: seqs it holds beyond that.
        self._prefix: dict[GameKey, int] = {}
        self._beyond: dict[GameKey, set[int]] = {}
        #: Per game: results its verdicts carry, by seq, not counted yet (their chain is incomplete).
        self._claims: dict[GameKey, dict[int, dict[str, Any]]] = {}
        #: Per game: its players' names, from its first verdict.
        self._names: dict[GameKey, list[str]] = {}
        self._disputed: set[GameKey] = set()
        #: Per game: what its first verdict says beside its players (game, variant, the computer's seats).
        self._first: dict[GameKey, dict[str, Any]] = {}
        #: Per game: its hint and computer-move verdicts the club holds, seq -> (action, seat).
        self._help: dict[GameKey, dict[int, tuple[str, int]]] = {}
        #: Per table and journal: its newest game the club holds.
        self._newest: dict[tuple[str, str], int] = {}
        #: Tables heard from since the club last connected (the others are asked to send again).
        self._greeted: set[str] = set()
        self._said: dict[tuple[str, str], tuple[float, int]] = {}
        self._standings: list[dict[str, Any]] | None = None
        self.counts: collections.Counter[str] = collections.Counter()
        self.verdict_latency: collections.deque[float] = collections.deque(maxlen=LATENCY_WINDOW)
        self.standings_latency: collections.deque[float] = collections.deque(maxlen=LATENCY_WINDOW)
        #: From the club's receiving a message to its update: the club's own share.
        self.club_latency: collections.deque[float] = collections.deque(maxlen=LATENCY_WINDOW)
        self._load()

    def close(self) -> None:
        self.db.close()

    def _migrate(self) -> None:
        """A database of a club from before journal ids (version 0): every game gains the journal ''
        (the games of tables from before ids, which is what they were), in one transaction; nothing
        else changes, so its standings, disputes and held verdicts are read as they were."""
        version = int(self.db.execute("PRAGMA user_version").fetchone()[0])
        if version > SCHEMA_VERSION:
            raise RefereeError(
                _(
                    "the club's database {path} was written by a newer referee club (version {version})",
                    path=str(self.path),
                    version=literal(str(version)),
                )
            )
        columns = {name: [c[1] for c in self.db.execute(f"PRAGMA table_info({name})")] for name in JOURNAL_KEYED}
        old = [name for name, cols in columns.items() if cols and "journal" not in cols]
        if not old:
            return
        self.db.execute("BEGIN IMMEDIATE")
        try:
            for name in old:
                self.db.execute(f"ALTER TABLE {name} RENAME TO {name}_before_journals")
            for statement in SCHEMA.split(";"):
                if statement.strip():
                    self.db.execute(statement)
            for name in old:
                rest = ", ".join(JOURNAL_KEYED[name])
                self.db.execute(
                    f"INSERT INTO {name} (table_name, journal, {rest}) "
                    f"SELECT table_name, '', {rest} FROM {name}_before_journals"
                )
                self.db.execute(f"DROP TABLE {name}_before_journals")
            self.db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            self.db.execute("COMMIT")
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.log.info("the club's database %s now keeps games by table, journal and game", self.path)

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
        for *key, body in self.db.execute("SELECT table_name, journal, game_id, body FROM results"):
            self.results[tuple(key)] = json.loads(body)
        for *key, names in self.db.execute("SELECT table_name, journal, game_id, names FROM games"):
            self._names[tuple(key)] = json.loads(names)
        for key in self.db.execute("SELECT DISTINCT table_name, journal, game_id FROM disputes"):
            self._disputed.add(tuple(key))
        rows = self.db.execute("SELECT table_name, journal, game_id, seq FROM verdicts ORDER BY 1, 2, 3, 4")
        for table, journal, game_id, seq in rows:
            key = (table, journal, game_id)
            self._held(key, seq)
            self._last_seq[key] = seq
            self._newest[(table, journal)] = max(self._newest.get((table, journal), game_id), game_id)
        helps = self.db.execute(
            "SELECT table_name, journal, game_id, seq, body FROM verdicts "
            "WHERE seq = 0 OR body LIKE '%hint%' OR body LIKE '%computer-move%'"
        ).fetchall()
        for table, journal, game_id, seq, body in helps:
            self._note_help((table, journal, game_id), seq, json.loads(body))
        claims = self.db.execute(
            "SELECT table_name, journal, game_id, seq, body FROM verdicts WHERE body LIKE '%\"result\":{%'"
        ).fetchall()
        for table, journal, game_id, seq, body in claims:
            key = (table, journal, game_id)
            counted = self.results.get(key)
            result = json.loads(body).get("result")
            if isinstance(result, dict) and (counted is None or counted["seq"] < seq):
                self._claims.setdefault(key, {})[seq] = result

    def _note_help(self, key: GameKey, seq: int, body: dict[str, Any]) -> None:
        """Remember what a held verdict says of help: the first one's game and computer seats, a hint, a
        computer's move (the verdicts were checked by `parse_message` when they came)."""
        if seq == 0:
            self._first[key] = {k: body[k] for k in ("game", "variant", "computer") if body.get(k) is not None}
        mark = help_mark(body)
        if mark is not None:
            self._help.setdefault(key, {})[seq] = mark

    def game_help(self, key: GameKey, upto: int | None = None) -> tuple[dict[int, str | None], dict[int, int]]:
        """Game `key`'s computer seats (seat -> level, None when only its moves tell it) and hints
        taken (seat -> how many) in its verdicts up to entry `upto` (all: None). A seat is the
        computer's when the game's first verdict says so or a verdict shows the computer choosing for it."""
        declared = self._first.get(key, {}).get("computer") or []
        computer = {seat: level for seat, level in enumerate(declared) if level}
        hints: dict[int, int] = {}
        for seq, (action, seat) in sorted(self._help.get(key, {}).items()):
            if upto is not None and seq > upto:
                continue
            if action == COMPUTER_MOVE:
                computer.setdefault(seat, None)
            else:
                hints[seat] = hints.get(seat, 0) + 1
        return computer, hints

    def _held(self, key: GameKey, seq: int) -> None:
        """The club now holds entry `seq` of game `key`: extend its gapless prefix."""
        prefix = self._prefix.get(key, 0)
        if seq == prefix:
            beyond = self._beyond.get(key)
            prefix += 1
            while beyond and prefix in beyond:
                beyond.discard(prefix)
                prefix += 1
            self._prefix[key] = prefix
        elif seq > prefix:
            self._beyond.setdefault(key, set()).add(seq)

    def new_session(self) -> None:
        """The club (re)connected to the broker: every table it hears from is asked to send again
        what the club has not acknowledged (the broker may have lost what it kept meanwhile)."""
        with self._lock:
            self._greeted.clear()

    def _refuse(self, table: str, why: str, *args: Any) -> None:
        """Log a refusal with the table's name, once per interval for each kind (with a count)."""
        self.counts["refused"] += 1
        key = (table, why)
        now = time.monotonic()
        said, left_out = self._said.get(key, (-REFUSAL_LOG_INTERVAL, 0))
        if now - said < REFUSAL_LOG_INTERVAL:
            self._said[key] = (said, left_out + 1)
            return
        self._said[key] = (now, 0)
        more = f" ({left_out} more like it in the last {REFUSAL_LOG_INTERVAL:g} s)" if left_out else ""
        self.log.warning("table %s: refused %s%s", table, why % args if args else why, more)

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
                    if message.table not in self._greeted:  # first heard of since the club connected
                        self._greeted.add(message.table)
                        changes.resend.add(message.table)
                    handler = getattr(self, f"_{message.leaf}")
                    try:
                        if handler(message, now, changes, standings_sent):
                            changes.tables.add(message.table)
                    except (sqlite3.Error, ValueError, TypeError, KeyError, OverflowError) as exc:
                        self.counts["ignored"] += 1  # one odd message; the batch's others are kept
                        self.log.warning(
                            "ignored a message from table %r: could not store it (%s)", message.table[:80], exc
                        )
                for key in sorted(changes.games):
                    self._count_result(key, now, changes, standings_sent)
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
        table, journal, game_id, seq = message.table, message.journal, body["game_id"], body["seq"]
        key = (table, journal, game_id)
        game = _game_words(key)
        newest = self._newest.get((table, journal))
        if newest is not None and game_id > newest + MAX_AHEAD:
            self._refuse(table, "a verdict of %s, more than %d games after its newest (%d)", game, MAX_AHEAD, newest)
            return False
        if seq >= self._prefix.get(key, 0) + MAX_AHEAD:
            self._refuse(table, "a verdict at entry %d of %s, far ahead of the entries the club holds", seq, game)
            return False
        cur = self.db.execute(
            "INSERT OR IGNORE INTO verdicts (table_name, journal, game_id, seq, body, received) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (table, journal, game_id, seq, message.text, now),
        )
        # stored now, or already: either way held
        changes.acks.setdefault((table, journal), []).append((game_id, seq))
        if cur.rowcount == 0:
            self._same_or_disputed(key, seq, body, now)
            return False
        self.counts["verdicts"] += 1
        self._newest[(table, journal)] = max(newest if newest is not None else game_id, game_id)
        self._held(key, seq)
        changes.games.add(key)
        self._note_help(key, seq, body)
        if seq == 0:
            self._names[key] = list(body["names"])
            self.db.execute(
                "INSERT OR REPLACE INTO games (table_name, journal, game_id, names) VALUES (?, ?, ?, ?)",
                (table, journal, game_id, json.dumps(body["names"])),
            )
        if isinstance(body.get("result"), dict):
            self._claims.setdefault(key, {})[seq] = body["result"]
            if isinstance(body.get("sent"), (int, float)):
                standings_sent.append(body["sent"])
        last = self._last_seq.get(key)
        if last is not None and seq > last + 1:
            self.counts["gaps"] += 1
            changes.resend.add(table)  # ask the table for what never came
            self.log.warning("table %s %s: verdicts %d to %d never arrived", table, game, last + 1, seq - 1)
        if last is None or seq > last:
            self._last_seq[key] = seq
        current = self._table(table)["last_verdict"]
        # A table publishes from one journal at a time: a verdict of another journal than the last
        # one shown is the newer (its journal was replaced), whatever its game's number.
        if (
            current is None
            or (current.get("journal") or "") != journal
            or (game_id, seq)
            >= (
                current["game_id"],
                current["seq"],
            )
        ):
            self._table(table)["last_verdict"], self._table(table)["last_text"] = body, message.text
            return True
        return False

    def _same_or_disputed(self, key: GameKey, seq: int, body: dict[str, Any], now: float) -> None:
        """A verdict for an entry the club holds: the same one again (counted, dropped), or another
        one, which nothing may replace: a game not counted yet is disputed and never counts; one that
        counted stays as it is."""
        row = self.db.execute(
            "SELECT body FROM verdicts WHERE table_name = ? AND journal = ? AND game_id = ? AND seq = ?", (*key, seq)
        ).fetchone()
        held = json.loads(row[0]) if row else {}
        if _without_sent(held) == _without_sent(body):
            self.counts["duplicates"] += 1
            return
        self.counts["conflicts"] += 1
        game = _game_words(key)
        if key in self.results:  # counted from a chain the club held whole: a later contradiction changes nothing
            self._refuse(key[0], "a second, different verdict for entry %d of %s, which has counted", seq, game)
            return
        self._refuse(key[0], "a second, different verdict for entry %d of %s: that game does not count", seq, game)
        if key not in self._disputed:
            self._disputed.add(key)
            self.db.execute(
                "INSERT OR IGNORE INTO disputes (table_name, journal, game_id, seq, why, at) VALUES (?, ?, ?, ?, ?, ?)",
                (*key, seq, "a second, different verdict", now),
            )

    def _count_result(self, key: GameKey, now: float, changes: Changes, standings_sent: list) -> None:
        """Count the game's latest result whose every verdict up to its entry the club holds."""
        claims = self._claims.get(key)
        if not claims or key in self._disputed:
            return
        prefix = self._prefix.get(key, 0)
        ready = [seq for seq in claims if seq < prefix]
        if not ready:
            return
        seq = max(ready)
        result = claims[seq]
        for done in [s for s in claims if s <= seq]:
            del claims[done]
        names = self._names.get(key)
        counted = self.results.get(key)
        if names is None or (counted is not None and counted["seq"] >= seq):
            return
        table, journal, game_id = key
        game = _game_words(key)
        winners = result.get("winners") or []
        if any(w >= len(names) for w in winners):
            self._refuse(table, "the result of %s: it names a seat the game does not have", game)
            return
        if self.roster is not None:
            allowed = self.roster.get(table)
            computer = self.game_help(key, seq)[0]  # the computer's seats are no club member's
            strangers = [n for i, n in enumerate(names) if i not in computer and (allowed is None or n not in allowed)]
            if strangers:
                self._refuse(table, "the result of %s: %s not on the roster for this table", game, ", ".join(strangers))
                return
        body = {"table": table, "game_id": game_id, "seq": seq, "names": names, "result": result}
        if journal:
            body["journal"] = journal
        self.db.execute(
            "INSERT OR REPLACE INTO results (table_name, journal, game_id, seq, body, received) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (table, journal, game_id, seq, json.dumps(body), now),
        )
        self.results[key] = body
        self.counts["results"] += 1
        changes.standings = True

    def _result(self, message: Message, now: float, changes: Changes, standings_sent: list) -> bool:
        """The retained `result` topic: what the standings count comes with the verdicts; this one
        is only compared with it, and a result no verdict backs is refused and logged."""
        body = message.body
        table, game_id, seq = message.table, body["game_id"], body["seq"]
        key = (table, message.journal, game_id)
        game = _game_words(key)
        counted = self.results.get(key)
        names = self._names.get(key)
        backed = (counted is not None and counted["seq"] == seq and counted["result"] == body["result"]) or (
            self._claims.get(key, {}).get(seq) == body["result"]
        )
        if backed and names == body["names"]:
            self.counts["duplicates"] += 1
            return False
        if names is None:
            self._refuse(table, "a result for %s: the club holds none of that game's verdicts", game)
        elif names != body["names"]:
            self._refuse(table, "a result for %s: its players are not the ones the game's first verdict named", game)
        elif counted is not None and counted["seq"] > seq:
            self._refuse(table, "a result for %s at entry %d: a later one (entry %d) counts", game, seq, counted["seq"])
        else:
            self._refuse(table, "a result for %s at entry %d: no verdict of that game carries it", game, seq)
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
        for key, body in sorted(self.results.items()):
            result = body["result"]
            if not result.get("finished"):
                continue
            table = key[0]
            winners = set(result.get("winners") or [])
            # a game against the computer, or with hints, is set apart: shown, counted for nobody
            computer, hints = self.game_help(key, body["seq"])
            for seat, name in enumerate(body["names"]):
                if seat in computer:
                    continue  # the computer is no club member
                s = players.setdefault(name, Standing(name))
                s.tables.add(table)
                if computer or hints:
                    s.against_computer += bool(computer)
                    s.helped += bool(hints)
                    continue
                s.played += 1
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

    def standings_csv(self, lang: str | None = None) -> str:
        """The standings as CSV. Without `lang`, the data file (`docs/mqtt.md`): the same fixed English
        column names, commas and decimal points in every language, for scripts and imports. With `lang`
        (the club page's CSV link gives its reader's), a file for people: column names in that language,
        and a French spreadsheet's own conventions (`;` between cells, a decimal comma)."""
        out = io.StringIO()
        people = lang is not None
        writer = csv.writer(out, delimiter=";" if lang == "fr" else ",")
        header = [said(word, lang) for word in STANDINGS_COLUMNS] if people else list(DATA_COLUMNS)
        writer.writerow(header)
        for s in self.standings():
            writer.writerow(
                [
                    s["rank"],
                    spreadsheet_text(s["name"]),
                    s["played"],
                    s["wins"],
                    s["draws"],
                    s["losses"],
                    said(s["points"], lang) if people else f"{s['points']:g}",
                    spreadsheet_text(" ".join(s["tables"])),
                    s.get("helped", 0),
                    s.get("against_computer", 0),
                ]
            )
        return out.getvalue()

    def table_view(self, name: str, lang: str = DEFAULT) -> dict[str, Any]:
        """One table as the page shows it, in words of the language `lang`."""
        with self._lock:
            t = self.tables.get(name) or {}
            state = dict(t.get("state") or {})
            last = t.get("last_verdict")
            online = t.get("online")
        names = state.get("names") or []
        turn = state.get("turn")
        winners = state.get("winners") or []
        unreadable, faults = state_sentences(state)
        game_id = state.get("game_id")
        computer: dict[int, str | None] = {}
        hints: dict[int, int] = {}
        if isinstance(game_id, int):
            with self._lock:
                computer, hints = self.game_help((name, state.get("journal") or "", game_id))
        declared = state.get("computer")
        if isinstance(declared, list):
            computer |= {seat: level for seat, level in enumerate(declared) if isinstance(level, str) and level}
        view: dict[str, Any] = {
            "table": name,
            "online": online,
            "game": state.get("game"),
            "variant": state.get("variant"),
            "journal": state.get("journal"),
            "game_id": state.get("game_id"),
            "names": names,
            "turn": turn,
            "game_words": _game_title(state.get("game"), state.get("variant"), state.get("game_id"), lang),
            "turn_words": _seat_words(turn, names, lang) if isinstance(turn, int) and not state.get("over") else None,
            "over": bool(state.get("over")),
            "winners_words": said(listed([_seat_words(w, names, lang) for w in winners]), lang) if winners else None,
            "scores": state.get("scores"),
            "faults": [said(f, lang) for f in faults],
            "illegal": bool(state.get("illegal")),
            "pending": bool(state.get("pending")),
            "unreadable": said(unreadable, lang) if isinstance(unreadable, str) else unreadable,
            "snapshot": state.get("snapshot"),
            "last_verdict": verdict_words(last, names, lang) if last else None,
            "last_verdict_seq": [last["game_id"], last["seq"]] if last else None,
            "computer": {str(seat): level for seat, level in sorted(computer.items())},
            "hints": {str(seat): n for seat, n in sorted(hints.items())},
            "players_words": [said(_player_words(n, computer, i), lang) for i, n in enumerate(names)],
            "help_words": said(_help_words(names, computer, hints), lang) if computer or hints else None,
        }
        return view

    def games(self, lang: str = DEFAULT, limit: int = 50) -> list[dict[str, Any]]:
        """The latest games the club counted a result for, newest first, as the page lists them: a game
        against the computer or with hints is marked so, and says it is not counted in the standings."""
        with self._lock:
            rows = self.db.execute(
                "SELECT table_name, journal, game_id FROM results ORDER BY received DESC, rowid DESC LIMIT ?",
                (limit,),
            ).fetchall()
            found = [(tuple(row), self.results.get(tuple(row))) for row in rows]
            out = []
            for key, body in found:
                if body is None:
                    continue
                computer, hints = self.game_help(key, body["seq"])
                first = self._first.get(key, {})
                names = body["names"]
                result = body["result"]
                winners = [w for w in result.get("winners") or [] if isinstance(w, int)]
                if not result.get("finished"):
                    outcome: Any = _("not finished")
                elif winners:
                    outcome = _(
                        "won by {winners}", winners=listed([_player_words(names[w], computer, w) for w in winners])
                    )
                else:
                    outcome = _("nobody won")
                apart = bool(computer or hints) and bool(result.get("finished"))
                out.append(
                    {
                        "table": key[0],
                        "journal": key[1] or None,
                        "game_id": key[2],
                        "game": first.get("game"),
                        "names": names,
                        "computer": {str(seat): level for seat, level in sorted(computer.items())},
                        "hints": {str(seat): n for seat, n in sorted(hints.items())},
                        "counted": bool(result.get("finished")) and not apart,
                        "game_words": _game_title(first.get("game"), first.get("variant"), key[2], lang)
                        or said(_("game {number}", number=literal(str(key[2]))), lang),
                        "players_words": said(
                            listed([_player_words(n, computer, i) for i, n in enumerate(names)]), lang
                        ),
                        "result_words": said(outcome, lang),
                        "help_words": said(_help_words(names, computer, hints, apart), lang)
                        if computer or hints
                        else None,
                    }
                )
        return out

    def table_names(self) -> list[str]:
        with self._lock:
            return sorted(self.tables)

    def verdicts_of(self, table: str, game_id: int, journal: str | None = None) -> list[int]:
        """The seqs kept for one game of one journal (tests: none missing, none twice); `journal`
        None: the game of that number in whichever of the table's journals (the seqs of all)."""
        with self._lock:
            if journal is None:
                rows = self.db.execute(
                    "SELECT seq FROM verdicts WHERE table_name = ? AND game_id = ? ORDER BY seq", (table, game_id)
                ).fetchall()
            else:
                rows = self.db.execute(
                    "SELECT seq FROM verdicts WHERE table_name = ? AND journal = ? AND game_id = ? ORDER BY seq",
                    (table, journal, game_id),
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
            **{
                k: self.counts.get(k, 0)
                for k in ("messages", "verdicts", "results", "duplicates", "ignored", "gaps", "refused", "conflicts")
            },
            "verdict_latency_ms": {"p50": ms(verdict, 0.5), "p99": ms(verdict, 0.99), "n": len(verdict)},
            "standings_latency_ms": {"p50": ms(standings, 0.5), "p99": ms(standings, 0.99), "n": len(standings)},
            "club_latency_ms": {"p50": ms(club, 0.5), "p99": ms(club, 0.99), "n": len(club)},
        }


#: The standings file's columns as data (`standings.csv`), and as people read them (`standings.csv?lang=`).
DATA_COLUMNS = ("rank", "name", "played", "wins", "draws", "losses", "points", "tables", "helped", "against_computer")
STANDINGS_COLUMNS = (
    _p("standings", "Rank"),
    _p("standings", "Player"),
    _p("standings", "Played"),
    _p("standings", "Wins"),
    _p("standings", "Draws"),
    _p("standings", "Losses"),
    _p("standings", "Points"),
    _p("standings", "Tables"),
    _p("standings", "Games with hints (not counted)"),
    _p("standings", "Games against the computer (not counted)"),
)

#: What a spreadsheet takes for the start of a formula in a cell.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r", "\n")


def spreadsheet_text(text: str) -> str:
    """A cell of text a spreadsheet shows as text: one starting like a formula gets a leading `'`
    (the usual escape: `=HYPERLINK(...)` as a player's name stays a name, never a live formula)."""
    return "'" + text if text.startswith(FORMULA_STARTS) else text


def _game_words(key: GameKey) -> str:
    """A game for the club's log: its number, and its journal's id (short) when it has one."""
    _table, journal, game_id = key
    return f"game {game_id} of journal {journal[:8]}" if journal else f"game {game_id}"


def _without_sent(body: dict[str, Any]) -> dict[str, Any]:
    """A verdict message without its send time (the same entry sent again differs only there)."""
    return {k: v for k, v in body.items() if k != "sent"}


def load_roster(path: str | Path) -> dict[str, set[str]]:
    """`referee club --roster FILE`: which players each table may field (YAML: table: [names])."""

    data = load_yaml(Path(path), _("the roster"))
    if not isinstance(data, dict) or not all(
        isinstance(t, str) and isinstance(n, list) and all(isinstance(x, str) and x for x in n) for t, n in data.items()
    ):
        raise RefereeError(
            _("the roster {path}: expected one line per table, 'table-3: [Ann, Bob, Cy]'", path=str(path))
        )
    return {table: set(names) for table, names in data.items()}


def _seat_words(seat: Any, names: list[str], lang: str) -> str:
    """A seat as players count it (from 1), with the player's name when known."""
    if isinstance(seat, int) and 0 <= seat < len(names):
        return names[seat]
    return said(seat_words(None, int(seat)), lang) if isinstance(seat, int) else str(seat)


#: The computer's levels in words (`controller.ai.levels`); another level is shown as the table sent it.
LEVEL_WORDS = {
    "beginner": _p("computer level", "beginner"),
    "club": _p("computer level", "club"),
    "strong": _p("computer level", "strong"),
}


def _player_words(name: str, computer: dict[int, str | None], seat: int) -> Any:
    """A seat's player as the club shows it: the name, marked when the computer played the seat."""
    if seat not in computer:
        return literal(name)
    level = computer[seat]
    if level is None:
        return _("{name} (the computer)", name=literal(name))
    return _("{name} (the computer, {level})", name=literal(name), level=LEVEL_WORDS.get(level) or literal(level))


def _help_words(names: list[str], computer: dict[int, str | None], hints: dict[int, int], apart: bool = False) -> Any:
    """What marks a game: who took hints and how many, and that the computer played; with `apart`,
    that the game is not counted in the standings for it."""
    parts: list[Any] = []
    if computer:
        parts.append(_("against the computer"))
    for seat, n in sorted(hints.items()):
        who = literal(names[seat]) if 0 <= seat < len(names) else seat_words(None, seat)
        parts.append(_n("{player} took {n} hint", "{player} took {n} hints", n, player=who))
    text = listed(parts, conjunction=None, separator=";")
    return _("{marks}: not counted in the standings", marks=text) if apart else text


def _game_title(game: Any, variant: Any, game_id: Any, lang: str) -> str | None:
    """`Colorpop, game 3` (`Pièges, partie 3`): the game's name as the catalogue says it."""
    if not isinstance(game, str):
        return None
    title: Any = game_name(game)
    if isinstance(variant, str) and variant and variant != "standard":
        title = _("{game} ({variant})", game=title, variant=variant)
    if isinstance(game_id, int):
        title = _("{game}, game {number}", game=title, number=literal(str(game_id)))
    return said(title, lang)
