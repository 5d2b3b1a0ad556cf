"""`referee status`: what the running referee is doing (game, turn, last verdict, faults)."""

from __future__ import annotations

import argparse
import json
from typing import Any

from controller.language import _, _n, literal, said
from controller.service.control import add_socket_arguments, request, socket_path
from controller.words import game_name


def register(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    parser = subparsers.add_parser(
        "status",
        help="show the running referee's game, turn, last verdict and faults",
        description="Ask the running referee (`referee run`) what it is doing.",
    )
    add_socket_arguments(parser)
    parser.add_argument("--json", action="store_true", help="print the answer as JSON")
    return parser


def describe(status: dict, language: str | None = None) -> list[str]:
    """The answer in words (the JSON behind `--json`), in `language`; the referee says the sentences
    of its answer (verdicts, faults) in the language the request asked for."""
    lines: list[Any] = [
        _n(
            "{game}, game {number} in the journal, {n} verdict so far",
            "{game}, game {number} in the journal, {n} verdicts so far",
            int(status["verdicts"]),
            game=game_name(str(status["game"])),
            number=literal(str(status["game_id"])),
        )
    ]
    if not status["started"]:
        lines.append(_("waiting for a valid starting board"))
    elif status["over"]:
        lines.append(status.get("result_line") or _("game over"))
    elif status.get("to_move") is not None:
        name = status.get("to_move_name") or _("player {number}", number=status["to_move"] + 1)
        lines.append(_("{player} to move", player=name))
    if status.get("paused"):
        lines.append(_("judging is paused: {why}", why=status["paused"]))
    if status["illegal"]:
        lines.append(_("the board is in an illegal state: put it back"))
    if status["pending"]:
        lines.append(_("a move is under way"))
    if status.get("computer_line"):
        lines.append(status["computer_line"])
    if status.get("unreadable"):
        lines.append(_("the board cannot be read: {why}", why=status["unreadable"]))
    for fault in status["faults"]:
        lines.append(_("fault: {fault}", fault=fault))
    if status.get("last_line"):
        lines.append(_("last verdict: {verdict}", verdict=status["last_line"]))
    return [said(line, language) for line in lines]


def run(args: argparse.Namespace) -> int:
    language = getattr(args, "command_language", None)
    status = request(socket_path(args), "status", language=language)
    if args.json:
        print(json.dumps(status))
    else:
        print("\n".join(describe(status, language)))
    return 0
