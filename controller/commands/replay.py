"""`referee replay RECORD`: judge a game record and print the verdict lines (`notation.md` §3)."""

from __future__ import annotations

import argparse
import json
import sys

from controller.games.registry import engine_for
from controller.language import LANGUAGES, _, said
from controller.record import GameRecord, load_record, parse_record
from controller.referee import judge_record
from controller.service.journal import Journal
from controller.service.session import export_record
from controller.words import result_line, stored_verdict_line


def register(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    parser = subparsers.add_parser(
        "replay",
        help="judge a game record and print one verdict per line",
        description="Judge a game record (YAML) and print one verdict per line in words, then the result "
        "(--json: the verdict lines of notation.md section 3). Given the referee's journal, it judges the "
        "journal's latest game (the journal is only read).",
    )
    parser.add_argument("record", help="the game record, a YAML file (or a journal)")
    parser.add_argument(
        "--json", action="store_true", help="print the verdicts as JSON lines (notation.md section 3), for programs"
    )
    parser.add_argument(
        "--language",
        choices=LANGUAGES,
        default=None,
        help="the language of the verdicts in words (default: the person's locale, LANG, else en; the JSON lines "
        "stay as notation.md fixes them)",
    )
    return parser


def _is_sqlite(path: str) -> bool:
    try:
        with open(path, "rb") as file:
            return file.read(16) == b"SQLite format 3\x00"
    except OSError:
        return False


def record_of(path: str) -> GameRecord:
    """The game record in the file `path`, or a journal's latest game as one (the journal only read)."""
    if _is_sqlite(path):  # a journal: its latest game, opened read-only
        journal = Journal(path, read_only=True)
        try:
            return parse_record(export_record(journal))
        finally:
            journal.close()
    return load_record(path)


def run(args: argparse.Namespace) -> int:
    record = record_of(args.record)
    lines = list(judge_record(record))  # judge it all first: a malformed record prints nothing
    if args.json:
        for line in lines:
            sys.stdout.write(json.dumps(line) + "\n")
        return 0
    engine = engine_for(record.setup)
    language = getattr(args, "language", None) or "en"
    for line in lines:
        if "result" in line:
            ending = result_line(line["result"]) or _("the record ends before the game does")
            sys.stdout.write(said(ending, language) + "\n")
        else:
            verdict = said(stored_verdict_line(line, engine, record.setup.first), language)
            sys.stdout.write(f"{line['index']}: {verdict}\n")
    return 0
