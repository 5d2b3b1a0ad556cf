"""`referee holes derive --grids FILE [--out PROFILE]`: a Stay Alive copy's hole pattern.

Reads the nine observation grids (format: `calibration/holes.py`), prints what could and could
not be determined, and writes the `holes:` key into PROFILE (created if missing, other keys kept)
or prints it. Exit status 1, and nothing written, when some observations no pattern explains.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import yaml

from calibration.holes import derive, holes_yaml, parse_grids, report
from controller.errors import ConfigError, RefereeError, os_words
from controller.files import load_yaml, read_text
from controller.games import registry
from controller.language import _, said
from controller.profile import default_profile
from controller.words import game_name

#: The profile key of a hole pattern.
HOLES = "holes"


def register(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    parser = subparsers.add_parser(
        "holes",
        help="Stay Alive: derive a copy's slide hole pattern from nine observations",
        description="Stay Alive hole calibration.",
    )
    sub = parser.add_subparsers(dest="holes_command", metavar="ACTION")
    sub.required = True
    derive_parser = sub.add_parser(
        "derive",
        help="derive the hole pattern from nine grids (all orange at P, all white at Q)",
        description=(
            "Read nine blocks 'orange P white Q' of 7 lines of 7 cells ('o' open, '.' closed) "
            "and derive the hole pattern of every slide."
        ),
    )
    derive_parser.add_argument("--grids", required=True, help="the observation grids, a text file")
    derive_parser.add_argument(
        "--out", help="a Stay Alive profile file to write the holes: key into (created if missing)"
    )
    return parser


def holes_game() -> str:
    """The game whose profile describes its slides' holes (`holes:`; Stay Alive)."""
    return registry.with_capability(lambda spec: HOLES in spec.profile_keys)[0].name


def write_holes_into_profile(path: Path, holes_text: str, holes: dict) -> None:
    """Put `holes` into the profile at `path`, keeping its other keys, after validating it."""
    game = holes_game()
    data: dict = {"game": game}
    if path.exists():
        loaded = load_yaml(path, _("the profile"))
        if loaded is not None:
            if not isinstance(loaded, dict) or loaded.get("game") != game:
                raise ConfigError(
                    "game", _("the profile to update must be a {game} profile", game=game_name(game)), str(path)
                )
            data = loaded
    data.pop(HOLES, None)
    # Validate the profile as the referee will read it before touching the file.
    default_profile(game).with_overrides(
        {**{k: v for k, v in data.items() if k != "game"}, HOLES: holes}, source=str(path)
    )
    head = yaml.safe_dump(data, sort_keys=False)
    try:
        path.write_text(head + holes_text, "utf-8")
    except OSError as exc:
        raise RefereeError(_("cannot write the profile {path}: {why}", path=str(path), why=os_words(exc))) from None


def run(args: argparse.Namespace) -> int:
    grids_path = Path(args.grids)
    text = read_text(grids_path, _("the grids file"))
    derivation = derive(parse_grids(text, where=str(grids_path)))
    print(report(derivation))
    if not derivation.ok:
        print(
            said(
                _("No profile written: fix the observations above and run again."),
                getattr(args, "command_language", None),
            ),
            file=sys.stderr,
        )
        return 1
    holes_text = holes_yaml(derivation.pattern)
    if args.out:
        write_holes_into_profile(Path(args.out), holes_text, derivation.pattern.to_mapping())
        print(said(_("Wrote the holes: key to {path}", path=str(args.out)), getattr(args, "command_language", None)))
    else:
        print()
        print(holes_text, end="")
    return 0
