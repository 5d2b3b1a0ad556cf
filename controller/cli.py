"""The `referee` command line.

Each subcommand lives in its own module under `controller/commands/` with two functions,
``register(subparsers)`` and ``run(args) -> int``; this file only lists them, so adding a command
never means editing another's code.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from controller.errors import RefereeError

#: Subcommand modules, in the order `referee --help` lists them.
COMMAND_MODULES = [
    "controller.commands.demo",
    "controller.commands.run",
    "controller.commands.replay",
    "controller.commands.status",
    "controller.commands.new_game",
    "controller.commands.reveal",
    "controller.commands.end",
    "controller.commands.export",
    "controller.commands.read",
    "controller.commands.render",
    "controller.commands.calibrate",
    "controller.commands.lattice",
    "controller.commands.holes",
    "controller.commands.lights_test",
    "controller.commands.club",
]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="referee",
        description="A referee for physical tabletop games (Colorpop, Blockers!, Flipop, Stay Alive).",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for name in COMMAND_MODULES:
        module = importlib.import_module(name)
        sub_parser = module.register(sub)
        sub_parser.set_defaults(_run=module.run)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args._run(args) or 0)
    except RefereeError as exc:
        print(f"referee: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
