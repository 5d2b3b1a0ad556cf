"""`referee hint [RECORD]`: the coach's hint, the strong level's move for the player to move, in the
game's notation and with why.

Without RECORD it asks the running referee (`referee run`), which journals the hint as the page's
hint is (a club can tell a helped game) and says it on the page and by voice. With RECORD (a game
record, or a journal whose latest game is taken, only read) it gives the hint for the position at
the record's end and changes nothing. Either way the coach knows only what the table shows: never
a person's secret colour or rack.
"""

from __future__ import annotations

import argparse
import json

from controller import words
from controller.ai.levels import HINT_LEVEL
from controller.ai.table import think
from controller.commands.replay import record_of
from controller.errors import RefereeError
from controller.language import DEFAULT, LANGUAGES, said
from controller.referee import referee_at_end
from controller.service.control import add_socket_arguments, request, socket_path


def register(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    parser = subparsers.add_parser(
        "hint",
        help="the coach's move for the player to move, in the game's notation, with why",
        description="Print the coach's hint (the strong level's move) for the player to move: in the running "
        "referee's game, where it is journalled as a hint and shown on the page, or, given a game record or a "
        "journal, for the position at its end (the file is only read).",
    )
    parser.add_argument(
        "record",
        nargs="?",
        help="a game record (YAML) or a journal: the hint for the position at its end, without asking the "
        "running referee",
    )
    parser.add_argument(
        "--language",
        choices=LANGUAGES,
        help="the language of the hint (default: the language: of --config, else the locale's, else en)",
    )
    parser.add_argument("--json", action="store_true", help="print the answer as JSON")
    add_socket_arguments(parser)
    return parser


def run(args: argparse.Namespace) -> int:
    if args.record is None:
        answer = request(socket_path(args), "hint", **({"language": args.language} if args.language else {}))
        print(json.dumps(answer) if args.json else answer["line"])
        return 0
    language = args.language or DEFAULT
    record = record_of(args.record)
    referee = referee_at_end(record)
    engine, state = referee.engine, referee.state
    thought = None
    if state is not None and not referee.over and referee.to_move() is not None:
        thought = think(engine, state, HINT_LEVEL, f"hint/{args.record}", computer=False)
    if thought is None:
        raise RefereeError(said(words.NO_MOVE_TO_HELP, language))
    line = said(words.coach_hint(engine.seat_name(thought.seat), thought.move, thought.why), language)
    if args.json:
        why = said(thought.why, language)
        print(json.dumps({"seat": thought.seat, "move": thought.move, "why": why, "line": line}))
    else:
        print(line)
    return 0
