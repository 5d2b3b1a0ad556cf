"""`referee end`: end the game by agreement (as holding the button does), for games that allow it."""

from __future__ import annotations

import argparse

from controller.language import _, said
from controller.service.control import add_socket_arguments, request, socket_path
from controller.words import result_line


def register(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    parser = subparsers.add_parser(
        "end",
        help="end the game by agreement on the running referee (like holding the button)",
        description="End the game in progress by agreement of the players (Flipop).",
    )
    add_socket_arguments(parser)
    return parser


def run(args: argparse.Namespace) -> int:
    language = getattr(args, "command_language", None)
    answer = request(socket_path(args), "end", language=language)
    print(said(result_line(answer["result"]) or _("the game was ended by agreement"), language))
    return 0
