"""`referee setup calibrate`: calibrate a copy from the camera, guided, as the live page does.

For the config's game it asks for each picture in turn (the sentence, and a drawing of where to put
what in snapshot text), waits for Enter, then takes the first picture from the config's camera that
is still with no hand over the board (`calibration/guided.py`); at the end it learns, reads every
picture back (the quality report, or the sentence refusing the set, and the places it doubts) and
saves the profile as `profiles/NAME.yaml` beside the config, switching the config's `profile:` to it.
`--images DIR` takes the pictures from files instead. With the simulated camera (`source: renderer`,
the shipped config) a simulated person sets the simulated board as each step asks.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from calibration import guided
from calibration.guided import picture_keys
from controller.errors import RefereeError, sentence
from controller.games import registry
from controller.language import _, literal, said
from controller.service.config import load_config
from controller.vision.lattice import load_image
from controller.vision.sources import open_frame_source

#: Tries per picture before the command gives up (each waits up to `guided.WAIT_SECONDS`).
TRIES = 3


def images_help() -> str:

    per_game = "; ".join(
        f"{game}: {', '.join(f'{key}.png' for key in picture_keys(game))}" for game in registry.names()
    )
    return (
        "take the pictures from files in DIR instead of the camera, named after what they show: empty.png "
        "(the empty board), pieces.png (one piece of each colour on the top row from the left, in the "
        "profile's order), bottom-row.png (the same on the bottom row), glyphs.png (one colour's 28 tiles "
        "in the glyph arrangement), setup.png (the full setup), start.png (the start position); .jpg or .jpeg "
        "also do. Per game: " + per_game
    )


def register(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    parser = sub.add_parser(
        "calibrate",
        help="calibrate your copy's looks from the camera, step by step, and switch the config to it",
        description="Asks for each picture the game's calibration needs (the empty board, one piece of each "
        "colour, the glyph arrangement, the full setup or the start position), takes it from the config's camera "
        "when the board is still and no hand is over it, learns your copy's colours (and glyphs, doors), checks "
        "them by reading every picture back, and saves the profile as profiles/NAME.yaml beside the config, "
        "whose profile: then names it. Exit code 1, and nothing written, when the check refuses the pictures.",
    )
    parser.add_argument(
        "--game", required=True, choices=registry.names(), help="the game of the copy (the config's game)"
    )
    parser.add_argument(
        "--config",
        required=True,
        metavar="CONFIG",
        help="the config file: its camera takes the pictures and its profile: is switched",
    )
    parser.add_argument(
        "--name", required=True, help="the profile's name: letters, digits, '-' or '_' (saved as profiles/NAME.yaml)"
    )
    parser.add_argument("--images", metavar="DIR", help=images_help())
    parser.add_argument("--overwrite", action="store_true", help="replace a profile of that name")
    parser.set_defaults(_run=run)
    return parser


def _picture_file(folder: Path, step: Any) -> Path:
    stem = Path(step.file).stem
    for ext in ("png", "jpg", "jpeg"):
        path = folder / f"{stem}.{ext}"
        if path.exists():
            return path
    raise RefereeError(
        _(
            "{folder}: no picture {file} (or .jpg) for step {number}, {title}",
            folder=str(folder),
            file=step.file,
            number=str(step.number),
            title=step.title,
        )
    )


def _camera(config: Any, profile: Any):
    """(the camera, get ready for a step): the config's camera; the simulated one has a simulated
    person who sets the board as each step asks."""
    if config.camera.get("source") == "renderer":
        # the simulated person who sets each board (imported here: a real camera never loads the simulation)
        from simulation.setup_person import simulated_setup

        source, person = simulated_setup(config)
        return source, person.follow

    return open_frame_source(config.camera, getattr(profile, "camera", None)), None


def _ask(step: Any, total: int, language: str | None = None) -> None:
    picture = _("Picture {number} of {total}: {title}.", number=str(step.number), total=str(total), title=step.title)
    print("\n" + said(picture, language) + "\n" + said(step.sentence, language), flush=True)
    text = step.drawing_text()
    if text:
        print(said(_("Where to put what:"), language) + "\n" + text.rstrip("\n"))
    print(said(_("Press Enter when the board is ready."), language), flush=True)
    try:
        input()
    except EOFError:
        raise RefereeError(_("stopped: no answer on the standard input")) from None


def run(args: argparse.Namespace) -> int:

    language = getattr(args, "command_language", None)
    spec = registry.get(args.game)
    config = load_config(args.config)
    if config.setup.game != spec.name:
        raise RefereeError(
            _(
                "{config} is a {game} config; to calibrate {title}, give a config whose game: is {name}",
                config=str(args.config),
                game=config.setup.game,
                title=spec.title,
                name=spec.name,
            )
        )
    path = guided.profile_path(Path(args.config), args.name)
    if path.exists() and not args.overwrite:
        raise RefereeError(
            _(
                "a profile named {name} exists already ({path}): choose another name, or give --overwrite",
                name=repr(args.name),
                path=str(path),
            )
        )
    profile = config.setup.profile
    session = guided.GuidedCalibration(profile)
    camera = None
    total = len(session.steps)
    if args.images:
        folder = Path(args.images)
        if not folder.is_dir():
            raise RefereeError(_("{folder} is not a folder", folder=str(folder)))
        for step in session.steps:
            file = _picture_file(folder, step)
            session.take(step.number, load_image(file))
            taken = _(
                "picture {number} of {total} ({title}): {file}",
                number=str(step.number),
                total=str(total),
                title=step.title,
                file=str(file),
            )
            print(said(taken, language), flush=True)
    else:
        camera, get_ready = _camera(config, profile)
        try:
            for step in session.steps:
                for attempt in range(1, TRIES + 1):
                    session.take(step.number, _capture(step, total, camera.read, get_ready, profile, language))
                    try:  # checked now, so a wrong picture is said at once, under its own name
                        session.check(step.number)
                        break
                    except RefereeError as exc:
                        session.forget(step.number)
                        if attempt == TRIES:
                            raise
                        print(said(_("Not taken: {why}.", why=sentence(exc)), language), flush=True)
                taken = _(
                    "picture {number} of {total} ({title}) taken",
                    number=str(step.number),
                    total=str(total),
                    title=step.title,
                )
                print(said(taken, language), flush=True)
        finally:
            camera.close()
    outcome = session.finish()
    for line in outcome.report:
        print(said(line, language))
    for doubt in outcome.doubts:
        doubted = _(
            "doubted: picture {number}, {place}: {why}", number=str(doubt.step), place=doubt.place, why=doubt.why
        )
        print(said(doubted, language))
    if not outcome.ok:
        refused = _(
            "Calibration refused: {why}. Nothing written; take the pictures again.",
            why=outcome.problem,
        )
        print(said(refused, language), file=sys.stderr)
        return 1
    learned = guided.with_camera_settings(outcome.profile, camera)
    if learned.get("camera") != outcome.profile.get("camera"):
        print(said(_("camera locked: {settings}", settings=literal(str(learned.get("camera")))), language))
    saved = guided.save_and_switch(learned, args.name, Path(args.config), overwrite=args.overwrite)
    wrote = _(
        "Wrote {file}; {config} now uses it (restart the referee to read with it).",
        file=str(saved),
        config=str(args.config),
    )
    print(said(wrote, language))
    return 0


def _capture(step: Any, total: int, read, get_ready, profile, language: str | None = None) -> Any:

    attempt = 1
    while True:
        _ask(step, total, language)
        if get_ready is not None:
            get_ready(step)
        try:
            return guided.wait_for_still(read, profile)
        except guided.CaptureTimeout as exc:
            if attempt >= TRIES:
                raise
            attempt += 1
            print(said(_("Not taken: {why}.", why=sentence(exc)), language), flush=True)
