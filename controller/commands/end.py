"""`referee end`: end the game by agreement (as holding the button does), for games that allow it."""

from __future__ import annotations

import argparse

from controller.service.control import add_socket_arguments, request, socket_path


def register(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    parser = subparsers.add_parser(
        "end",
        help="end the game by agreement on the running referee (like holding the button)",
        description="End the game in progress by agreement of the players (Flipop).",
    )
    add_socket_arguments(parser)
    return parser


def run(args: argparse.Namespace) -> int:
    answer = request(socket_path(args), "end")
    result = answer["result"]
    winners = result.get("winners")
    who = " and ".join(f"player {s + 1}" for s in winners) if winners else "nobody"
    print(f"game ended by agreement; winner: {who}" + (f" ({result['reason']})" if result.get("reason") else ""))
    return 0
