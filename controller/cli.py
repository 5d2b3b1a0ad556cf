"""The `referee` command line.

Each subcommand lives in its own module under `controller/commands/` with two functions,
``register(subparsers)`` and ``run(args) -> int``; this file only lists them, so adding a command
never means editing another's code. Only the module of the command given is imported, so each
command module imports what it needs at its top.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
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
    "controller.commands.accept",
    "controller.commands.hint",
    "controller.commands.export",
    "controller.commands.read",
    "controller.commands.render",
    "controller.commands.calibrate",
    "controller.commands.aim",
    "controller.commands.markers",
    "controller.commands.lattice",
    "controller.commands.holes",
    "controller.commands.setup",
    "controller.commands.lights_test",
    "controller.commands.club",
]


def command_name(module: str) -> str:
    """The subcommand a module registers: its name with dashes (`new_game` is `referee new-game`)."""
    return module.rpartition(".")[2].replace("_", "-")


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser of every subcommand, or of `command` alone when it is one: a command given on the
    command line imports its own module and what that needs (`referee status` does not load
    OpenCV), while `referee --help` and a mistyped command still list them all."""
    modules = [m for m in COMMAND_MODULES if command_name(m) == command] or COMMAND_MODULES
    parser = argparse.ArgumentParser(
        prog="referee",
        description="A referee for physical tabletop games (Colorpop, Blockers!, Flipop, Stay Alive).",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for name in modules:
        module = importlib.import_module(name)
        sub_parser = module.register(sub)
        sub_parser.set_defaults(_run=module.run)
    return parser


#: Exit codes: 0 done, 1 done but the check failed (see each command), 2 bad input (a sentence on
#: stderr), 3 `read` unsure of some places, 130 Ctrl-C, 141 the reader of the output went away.
BAD_INPUT, INTERRUPTED, CLOSED_PIPE = 2, 130, 141


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(argv[0] if argv else None)
    args = parser.parse_args(argv)
    try:
        code = int(args._run(args) or 0)
        sys.stdout.flush()  # a closed pipe shows here, not in Python's own flush at exit
        return code
    except RefereeError as exc:
        return _fail(str(exc))
    except BrokenPipeError:
        # `referee demo | head -2`: the reader has what it wanted; end quietly, as Unix tools do.
        _silence_stdout()
        return CLOSED_PIPE
    except UnicodeDecodeError:  # a command handed a binary file to a loader that expected text
        return _fail("a file given to this command is not a text file (UTF-8)")
    except OSError as exc:  # a file the command reads or writes: name it rather than show a traceback
        where = f"{exc.filename}: " if exc.filename else ""
        return _fail(f"{where}{exc.strerror or exc}")
    except KeyboardInterrupt:
        return INTERRUPTED


def _fail(sentence: str) -> int:
    with contextlib.suppress(OSError):
        print(f"referee: {sentence}", file=sys.stderr)
    return BAD_INPUT


def _silence_stdout() -> None:
    """Point stdout at /dev/null so Python's own flush at exit does not complain about the pipe."""
    with contextlib.suppress(OSError, ValueError):
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


if __name__ == "__main__":
    sys.exit(main())
