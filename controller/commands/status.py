"""`referee status`: what the running referee is doing (game, turn, last verdict, faults)."""

from __future__ import annotations

import argparse
import json

from controller.service.control import add_socket_arguments, request, socket_path


def register(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    parser = subparsers.add_parser(
        "status",
        help="show the running referee's game, turn, last verdict and faults",
        description="Ask the running referee (`referee run`) what it is doing.",
    )
    add_socket_arguments(parser)
    parser.add_argument("--json", action="store_true", help="print the answer as JSON")
    return parser


def describe(status: dict) -> list[str]:
    """The answer in words (the JSON behind `--json`)."""
    lines = [f"{status['game']}, game {status['game_id']} in the journal, {status['verdicts']} verdicts so far"]
    if not status["started"]:
        lines.append("waiting for a valid starting board")
    elif status["over"]:
        lines.append(status.get("result_line") or "game over")
    elif status.get("to_move") is not None:
        name = status.get("to_move_name") or f"player {status['to_move'] + 1}"
        lines.append(f"{name} to move")
    if status.get("paused"):
        lines.append(f"judging is paused: {status['paused']}")
    if status["illegal"]:
        lines.append("the board is in an illegal state: put it back")
    if status["pending"]:
        lines.append("a move is under way")
    if status.get("unreadable"):
        lines.append(f"the board cannot be read: {status['unreadable']}")
    for fault in status["faults"]:
        lines.append(f"fault: {fault}")
    if status.get("last_line"):
        lines.append(f"last verdict: {status['last_line']}")
    return lines


def run(args: argparse.Namespace) -> int:
    status = request(socket_path(args), "status")
    if args.json:
        print(json.dumps(status))
    else:
        print("\n".join(describe(status)))
    return 0
