"""`referee export JOURNAL > RECORD.yaml`: a journalled game as a record `referee replay` judges identically.

The journal is opened read-only (SQLite `mode=ro`): exporting must never change it, nor turn some
other file into a journal by writing tables into it.
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
import time
from pathlib import Path

from controller.errors import RefereeError
from controller.service.journal import Journal
from controller.service.session import export_record

JOURNAL_TABLES = {"games", "entries"}


def register(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    parser = subparsers.add_parser(
        "export",
        help="write a journalled game as a game record (YAML)",
        description="Write a game of the referee's journal as a game record; by default the latest game. "
        "The journal is only read, never changed.",
    )
    parser.add_argument("journal", help="the journal file (journal: in config.yaml)")
    parser.add_argument("--game-id", type=int, help="which game of the journal (default: the latest)")
    parser.add_argument("--list", action="store_true", help="list the journal's games instead")
    return parser


class ReadOnlyJournal(Journal):
    """A `Journal` whose connection is opened with SQLite's `mode=ro` (no schema, no WAL switch).

    It is checked first: an SQLite file without the journal's tables, or one that fails
    `PRAGMA quick_check`, is refused with a sentence.
    """

    def __init__(self, path: str | Path) -> None:  # noqa: D107 - no call to Journal.__init__: it writes
        self.path = Path(path)
        self._now = time.time
        if not self.path.exists():
            raise RefereeError(f"there is no journal at {self.path}")
        if not self.path.is_file():
            raise RefereeError(f"{self.path} is a folder, not a journal file")
        not_journal = f"{self.path} is not a referee journal"
        # With no write-ahead log beside it no referee has the journal open: `immutable` then reads
        # it without creating the -wal and -shm files a WAL database otherwise gets even when read.
        live = Path(f"{self.path}-wal").exists()
        uri = f"{self.path.resolve().as_uri()}?mode=ro" + ("" if live else "&immutable=1")
        try:
            self.db = sqlite3.connect(uri, uri=True, check_same_thread=False)
        except sqlite3.Error as exc:
            raise RefereeError(f"cannot open the journal {self.path}: {exc}") from None
        try:
            tables = {row[0] for row in self.db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            if not tables >= JOURNAL_TABLES:
                raise RefereeError(f"{not_journal} (it has no games and entries tables)")
            check = self.db.execute("PRAGMA quick_check").fetchone()[0]
        except sqlite3.DatabaseError as exc:
            self.db.close()
            if "not a database" in str(exc):
                raise RefereeError(f"{not_journal} (it is not an SQLite database)") from None
            raise RefereeError(f"the journal {self.path} is damaged and cannot be read: {exc}") from None
        except RefereeError:
            self.db.close()
            raise
        if check != "ok":
            self.db.close()
            raise RefereeError(f"the journal {self.path} is damaged (SQLite's check says: {check})")


def run(args: argparse.Namespace) -> int:
    journal = ReadOnlyJournal(args.journal)
    try:
        if args.list:
            for game in journal.games():
                count = len(journal.entries(game.id))
                state = "open" if game.open else f"closed ({game.closed_why})"
                print(f"game {game.id}: {game.setup.get('game')}, {count} entries, {state}")
            return 0
        record = export_record(journal, args.game_id)
    except (ValueError, KeyError, TypeError, AttributeError, sqlite3.Error) as exc:
        # json.loads of a garbled row, a row with missing keys, a cut page
        raise RefereeError(f"the journal {args.journal} is damaged and this game cannot be exported: {exc}") from None
    finally:
        journal.close()
    sys.stdout.write(record)
    return 0
