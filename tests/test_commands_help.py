"""`referee COMMAND --help` explains every command and every option (issue 17)."""

from __future__ import annotations

import argparse

from controller.cli import build_parser


def all_parsers(parser: argparse.ArgumentParser, name: str = "referee"):
    """Every parser of the command line, nested ones (`holes derive`, `lattice read`) included."""
    yield name, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helped = {choice.dest for choice in action._choices_actions}
            for sub_name, sub_parser in action.choices.items():
                assert sub_name in helped, f"{name} {sub_name} has no line in {name} --help"
                yield from all_parsers(sub_parser, f"{name} {sub_name}")


def test_every_command_has_a_description_and_every_option_a_help_text():
    missing = []
    parsers = list(all_parsers(build_parser()))
    assert len(parsers) > 15
    for name, parser in parsers:
        if not (parser.description or "").strip():
            missing.append(f"{name}: no description")
        for action in parser._actions:
            if isinstance(action, (argparse._HelpAction, argparse._SubParsersAction)):
                continue
            if not (action.help or "").strip() or action.help == argparse.SUPPRESS:
                missing.append(f"{name} {'/'.join(action.option_strings) or action.dest}: no help text")
    assert missing == []
