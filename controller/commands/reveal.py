"""`referee reveal SEAT COLOUR...`: tell the referee a seat's secret colour(s) (Colorpop, at the end)."""

from __future__ import annotations

import argparse
import json

from controller.errors import RefereeError
from controller.language import _, literal, said
from controller.service.control import add_socket_arguments, request, socket_path
from controller.words import result_line


def register(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    parser = subparsers.add_parser(
        "reveal",
        help="tell the running referee a player's secret colour(s) (Colorpop)",
        description=(
            "Tell the running referee a player's secret colour(s), e.g. `referee reveal 1 G` for the "
            "first player. Players are counted from 1, as they count themselves."
        ),
    )
    parser.add_argument("player", type=int, help="the player, counted from 1 (1 is the first player)")
    parser.add_argument("colours", nargs="+", metavar="COLOUR", help="colour letters: G Y O B P")
    add_socket_arguments(parser)
    parser.add_argument("--json", action="store_true", help="print the referee's answer as JSON")
    return parser


def run(args: argparse.Namespace) -> int:
    colours = [c.upper() for c in args.colours]
    language = getattr(args, "command_language", None)
    if args.player < 1:
        raise RefereeError(_("players are counted from 1; got {value}", value=literal(str(args.player))))
    answer = request(socket_path(args), "reveal", seat=args.player - 1, colours=colours, language=language)
    if args.json:
        print(json.dumps(answer))
        return 0
    said_colours = literal(" ".join(colours))
    print(said(_("player {number}'s secret colour: {colours}", number=args.player, colours=said_colours), language))
    print(said(result_line(answer["result"]) or _("noted; the game goes on"), language))
    return 0
