"""`referee export JOURNAL > RECORD.yaml`: a journalled game as a record `referee replay` judges identically.

The journal is opened read-only (SQLite `mode=ro`): exporting must never change it, nor turn some
other file into a journal by writing tables into it.
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
from pathlib import Path

from controller.errors import RefereeError, os_words
from controller.language import N_, Text, _, _n, literal, said
from controller.service.journal import Journal
from controller.service.pictures import write_pictures
from controller.service.session import export_record


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
    parser.add_argument(
        "--pictures",
        metavar="DIR",
        help="also write the picture behind each verdict into DIR, as verdict-NNN.jpg (NNN: the verdict's "
        "index, as `referee replay` numbers its lines)",
    )
    return parser


def run(args: argparse.Namespace) -> int:
    path = Path(args.journal)
    journal = Journal(path, read_only=True)  # never creates tables in a file that is not a journal
    try:
        if args.list:
            language = getattr(args, "command_language", None)
            print(said(journal_line(journal), language))
            for game in journal.games():
                count = len(journal.entries(game.id))
                why = Text(game.closed_why) if game.closed_why in CLOSED_WHY else literal(str(game.closed_why))
                state = _("open") if game.open else _("closed ({why})", why=why)
                line = _n(
                    "game {number}: {game}, {n} entry, {state}",
                    "game {number}: {game}, {n} entries, {state}",
                    count,
                    number=str(game.id),
                    game=str(game.setup.get("game")),
                    state=state,
                )
                print(said(line, language))
            return 0
        record = export_record(journal, args.game_id)
        if args.pictures is not None:
            game_id = args.game_id
            if game_id is None:
                latest = journal.latest_game()
                if latest is None:
                    raise RefereeError(
                        _("the journal {path} holds no game: no pictures to write", path=str(args.journal))
                    )
                game_id = latest.id
            try:
                written = write_pictures(journal, game_id, Path(args.pictures))
            except OSError as exc:
                raise RefereeError(
                    _("cannot write the pictures into {path}: {why}", path=str(args.pictures), why=os_words(exc))
                ) from None
            language = getattr(args, "command_language", None)
            done = _n(
                "{n} picture written into {path}",
                "{n} pictures written into {path}",
                len(written),
                path=str(args.pictures),
            )
            print(said(done, language), file=sys.stderr)
    except (ValueError, KeyError, TypeError, AttributeError, sqlite3.Error) as exc:
        # json.loads of a garbled row, a row with missing keys, a cut page
        raise RefereeError(
            _(
                "the journal {path} is damaged and this game cannot be exported: {why}",
                path=str(args.journal),
                why=str(exc),
            )
        ) from None
    finally:
        journal.close()
    sys.stdout.write(record)
    return 0


#: Why the referee closed a game (the journal keeps these words, in English): said in the reader's language.
CLOSED_WHY = {N_("new game"), N_("the config file now asks for a different game")}


def journal_line(journal: Journal) -> Text:
    """Which journal this is, as a club's log names it (`docs/mqtt.md` section 3: the journal's id)."""
    if journal.id is None:
        return _("journal without an id (written before journal ids; the referee gives it one when it opens it)")
    short = journal.id[:8]
    if journal.id_from_game > 1:
        return _(
            "journal {id} (a club names it by its first 8 digits, {short}); games before {number} were "
            "published without it",
            id=journal.id,
            short=short,
            number=str(journal.id_from_game),
        )
    return _("journal {id} (a club names it by its first 8 digits, {short})", id=journal.id, short=short)
