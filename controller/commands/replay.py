"""`referee replay RECORD`: judge a game record and print the verdict lines (`notation.md` §3)."""

from __future__ import annotations

import argparse
import json
import sys

from controller.errors import RefereeError
from controller.record import load_record
from controller.referee import judge_record


def register(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    parser = subparsers.add_parser(
        "replay",
        help="judge a game record and print one verdict per line",
        description="Judge a game record (YAML) and print the verdicts as JSON lines, then the result. "
        "Given the referee's journal, it judges the journal's latest game (the journal is only read).",
    )
    parser.add_argument("record", help="the game record, a YAML file (or a journal)")
    return parser


def _is_sqlite(path: str) -> bool:
    try:
        with open(path, "rb") as file:
            return file.read(16) == b"SQLite format 3\x00"
    except OSError:
        return False


def run(args: argparse.Namespace) -> int:
    if _is_sqlite(args.record):  # a journal: judge its latest game, opened read-only
        from controller.record import parse_record
        from controller.service.journal import Journal
        from controller.service.session import export_record

        journal = Journal(args.record, read_only=True)
        try:
            record = parse_record(export_record(journal))
        finally:
            journal.close()
    else:
        try:
            record = load_record(args.record)
        except UnicodeDecodeError:
            raise RefereeError(f"the game record {args.record} is not a text file (a YAML game record)") from None
    lines = list(judge_record(record))  # judge it all first: a malformed record prints nothing
    for line in lines:
        sys.stdout.write(json.dumps(line) + "\n")
    return 0
