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
        description="Judge a game record (YAML) and print the verdicts as JSON lines, then the result.",
    )
    parser.add_argument("record", help="the game record, a YAML file")
    return parser


def run(args: argparse.Namespace) -> int:
    try:
        record = load_record(args.record)
    except UnicodeDecodeError:
        raise RefereeError(f"the game record {args.record} is not a text file (a YAML game record)") from None
    lines = list(judge_record(record))  # judge it all first: a malformed record prints nothing
    for line in lines:
        sys.stdout.write(json.dumps(line) + "\n")
    return 0
