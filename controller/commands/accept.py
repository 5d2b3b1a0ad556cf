"""`referee accept`: "this board is right, go on from it", when the referee is wrong about the board.

Whatever made the referee refuse the board (a misread token, a board set up again, a piece knocked
and put back slightly differently), play goes on from the board the camera sees now, with the same
player to move. The journal keeps it as the action `accept-board` with that board, so a replay
judges the game exactly as it was played.
"""

from __future__ import annotations

import argparse

from controller.language import _, said
from controller.service.control import add_socket_arguments, request, socket_path
from controller.words import stored_verdict_line


def register(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    parser = subparsers.add_parser(
        "accept",
        help="tell the running referee the board in front of it is right: play goes on from it",
        description=(
            "Tell the running referee that the board the camera sees now is right (when it refuses a board "
            "the players know is right): play goes on from it, the same player to move. The journal keeps "
            "it as such."
        ),
    )
    add_socket_arguments(parser)
    return parser


def run(args: argparse.Namespace) -> int:
    language = getattr(args, "command_language", None)
    answer = request(socket_path(args), "accept", language=language)
    print(answer.get("message") or said(stored_verdict_line(answer["verdict"], None, None), language))
    status = request(socket_path(args), "status", language=language)
    if status.get("to_move_name") and not status.get("over"):
        print(said(_("{player} to move", player=status["to_move_name"]), language))
    return 0
