"""`referee new-game`: start a new game (as the button's press does); the old one stays in the journal."""

from __future__ import annotations

import argparse

from controller.language import _, literal, said
from controller.service.control import add_socket_arguments, request, socket_path


def register(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    parser = subparsers.add_parser(
        "new-game",
        help="start a new game on the running referee (like a press of the button)",
        description="Start a new game with the same setup; the board in front of the camera is judged as its setup.",
    )
    add_socket_arguments(parser)
    return parser


def run(args: argparse.Namespace) -> int:
    language = getattr(args, "command_language", None)
    answer = request(socket_path(args), "new-game", language=language)
    number = literal(str(answer["game_id"]))
    print(said(_("{message} (game {number} in the journal)", message=answer["message"], number=number), language))
    return 0
