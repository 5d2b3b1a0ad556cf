"""`referee export JOURNAL > RECORD.yaml`: a journalled game as a record `referee replay` judges identically."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from controller.service.journal import Journal
from controller.service.session import export_record


def register(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    parser = subparsers.add_parser(
        "export",
        help="write a journalled game as a game record (YAML)",
        description="Write a game of the referee's journal as a game record; by default the latest game.",
    )
    parser.add_argument("journal", help="the journal file (journal: in config.yaml)")
    parser.add_argument("--game-id", type=int, help="which game of the journal (default: the latest)")
    parser.add_argument("--list", action="store_true", help="list the journal's games instead")
    return parser


def run(args: argparse.Namespace) -> int:
    path = Path(args.journal)
    journal = Journal(path, read_only=True)  # never creates tables in a file that is not a journal
    try:
        if args.list:
            for game in journal.games():
                count = len(journal.entries(game.id))
                state = "open" if game.open else f"closed ({game.closed_why})"
                print(f"game {game.id}: {game.setup.get('game')}, {count} entries, {state}")
            return 0
        sys.stdout.write(export_record(journal, args.game_id))
    finally:
        journal.close()
    return 0
