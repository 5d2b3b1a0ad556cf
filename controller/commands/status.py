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
    lines = [f"{status['game']}, game {status['game_id']} in the journal, {status['verdicts']} verdicts so far"]
    if not status["started"]:
        lines.append("waiting for a valid starting board")
    elif status["over"]:
        result = status.get("result", {})
        winners = result.get("winners")
        who = " and ".join(f"player {s + 1}" for s in winners) if winners else "no winner yet"
        lines.append(f"game over: {who}" + (f" ({result['reason']})" if result.get("reason") else ""))
    else:
        lines.append(f"player {status['to_move'] + 1} to move")
    if status["illegal"]:
        lines.append("the board is in an illegal state: put it back")
    if status["pending"]:
        lines.append("a move is under way")
    if status.get("unreadable"):
        lines.append(f"the board cannot be read: {status['unreadable']}")
    for fault in status["faults"]:
        lines.append(f"fault: {fault}")
    if "last_verdict" in status:
        lines.append(f"last verdict: {json.dumps(status['last_verdict'])}")
    return lines


def run(args: argparse.Namespace) -> int:
    status = request(socket_path(args), "status")
    if args.json:
        print(json.dumps(status))
    else:
        print("\n".join(describe(status)))
    return 0
