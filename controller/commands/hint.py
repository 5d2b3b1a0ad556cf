"""`referee hint [RECORD]`: the coach's hint, the strong level's move for the player to move, in the
game's notation and with why.

Without RECORD it asks the running referee (`referee run`), which journals the hint as the page's
hint is (a club can tell a helped game) and says it on the page and by voice. With RECORD (a game
record, or a journal whose latest game is taken, only read) it gives the hint for the position at
the record's end and changes nothing. Either way the coach knows only what the table shows: never
a person's secret colour or rack. In Blockers!, `--tiles "R3 RA G1"` tells the coach the tiles the
person holds, for a hint from them (never journalled); without it, the hint names a place and every
tile of theirs that could go there, whichever they hold.
"""

from __future__ import annotations

import argparse
import json

from controller import words
from controller.ai.levels import HINT_LEVEL
from controller.ai.table import think, told_tiles
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
    parser.add_argument(
        "--tiles",
        help='Blockers!: the tiles the player to move holds, e.g. "R3 RA G1", for a hint from them (only '
        "used for this hint, never journalled); without it the hint names a place and the tiles that fit there",
    )
    parser.add_argument("--json", action="store_true", help="print the answer as JSON")
    add_socket_arguments(parser)
    return parser


def run(args: argparse.Namespace) -> int:
    if args.record is None:
        asked = {"language": args.language} if args.language else {}
        if args.tiles:
            asked["tiles"] = args.tiles
        answer = request(socket_path(args), "hint", **asked)
        print(json.dumps(answer) if args.json else answer["line"])
        return 0
    language = args.language or DEFAULT
    record = record_of(args.record)
    referee = referee_at_end(record)
    engine, state = referee.engine, referee.state
    thought = None
    seat = referee.to_move()
    if state is not None and not referee.over and seat is not None:
        told = told_tiles(engine, state, seat, args.tiles or "")  # a tile that cannot be theirs: a sentence
        thought = think(engine, state, HINT_LEVEL, f"hint/{args.record}", computer=False, racks=told)
    if thought is None:
        raise RefereeError(said(words.NO_MOVE_TO_HELP, language))
    said_move = words.hint_move_words(engine, thought.move, thought.tiles) if thought.tiles else thought.move
    line = said(words.coach_hint(engine.seat_name(thought.seat), said_move, thought.why), language)
    if args.json:
        why = said(thought.why, language)
        answer = {"seat": thought.seat, "move": thought.move, "why": why, "line": line}
        print(json.dumps(answer | ({"tiles": thought.tiles} if thought.tiles else {})))
    else:
        print(line)
    return 0
