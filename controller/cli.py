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
from pathlib import Path
from typing import Any

from controller.errors import RefereeError, os_words, sentence
from controller.files import load_yaml
from controller.language import DEFAULT, _, choose, said

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


def command_language(args: argparse.Namespace) -> str:
    """The language a command speaks to people in (its refusals; `--help` stays English): its own
    `--language`, else the `language:` of the config file it was given, else the person's locale
    (`LANGUAGE`, `LC_ALL`, `LC_MESSAGES`, `LANG`, as gettext reads them), else English."""
    chosen = choose(getattr(args, "language", None))
    if chosen is not None:
        return chosen
    config = getattr(args, "config", None)
    if isinstance(config, str | Path):
        with contextlib.suppress(RefereeError):  # an unreadable file is the command's to say, in this language
            data = load_yaml(config, _("the config file")) if Path(config).is_file() else None
            chosen = choose(data.get("language")) if isinstance(data, dict) else None
            if chosen is not None:
                return chosen
    for variable in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        value = os.environ.get(variable)
        if value:  # the first one set decides, as gettext does (`C` and `POSIX` are English)
            return choose(value.split(":")[0].split(".")[0]) or DEFAULT
    return DEFAULT


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(argv[0] if argv else None)
    args = parser.parse_args(argv)
    language = command_language(args)
    if getattr(args, "language", "") is None:  # a command's own --language, left out: the one chosen here
        args.language = language
    args.command_language = language
    try:
        code = int(args._run(args) or 0)
        sys.stdout.flush()  # a closed pipe shows here, not in Python's own flush at exit
        return code
    except RefereeError as exc:
        return _fail(sentence(exc), language)
    except BrokenPipeError:
        # `referee demo | head -2`: the reader has what it wanted; end quietly, as Unix tools do.
        _silence_stdout()
        return CLOSED_PIPE
    except UnicodeDecodeError:  # a command handed a binary file to a loader that expected text
        return _fail(_("a file given to this command is not a text file (UTF-8)"), language)
    except OSError as exc:  # a file the command reads or writes: name it rather than show a traceback
        why = os_words(exc)
        where = _("{file}: {why}", file=str(exc.filename), why=why) if exc.filename else why
        return _fail(where, language)
    except KeyboardInterrupt:
        return INTERRUPTED


def _fail(message: Any, language: str = DEFAULT) -> int:
    with contextlib.suppress(OSError):
        print(f"referee: {said(message, language)}", file=sys.stderr)
    return BAD_INPUT


def _silence_stdout() -> None:
    """Point stdout at /dev/null so Python's own flush at exit does not complain about the pipe."""
    with contextlib.suppress(OSError, ValueError):
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


if __name__ == "__main__":
    sys.exit(main())
