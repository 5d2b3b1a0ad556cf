"""`referee setup holes`: Stay Alive's hole pattern, guided, from the camera (no grid file to type).

For each of the nine pairs it says what to do ("set every orange slide to A and every white slide to
B"), waits for Enter, takes a picture from the config's camera, reads which points are open with the
board reader, and at the end derives the pattern (`calibration/holes.py`), prints the derivation's
report (its contradictions named by point) and, with `--out`, writes the `holes:` key into a profile.
`--images DIR` takes the nine pictures from files named `orange-P-white-Q.png` (or `.jpg`) instead,
for a copy photographed with another program. `--grids-out FILE` keeps what was seen, in the grid
text format `referee holes derive` reads.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from calibration.holes import PAIRS, format_grids, holes_yaml, report
from calibration.holes_guide import STEPS, GuidedHoles, instruction, step_name
from controller.commands import setup_calibrate
from controller.commands.holes import holes_game, write_holes_into_profile
from controller.commands.render import profile_for
from controller.errors import RefereeError
from controller.games import registry
from controller.language import _, _n, said
from controller.service.config import load_config
from controller.vision.lattice import load_image
from controller.vision.reader import BoardReader
from controller.vision.sources import open_frame_source

if TYPE_CHECKING:
    from controller.vision.sources import FrameSource

#: Frames read after Enter before the one used (the camera's exposure follows the light meanwhile).
WARM_UP_FRAMES = 5


def register(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    parser = subparsers.add_parser(
        "setup",
        help="set up a copy step by step from the camera (calibrate its looks; Stay Alive's holes)",
        description="Guided setup of a physical copy.",
    )
    sub = parser.add_subparsers(dest="setup_command", metavar="STEP")
    sub.required = True
    holes = sub.add_parser(
        "holes",
        help="Stay Alive: find the slides' holes from nine pictures, one per pair of slide positions",
        description="Asks for the nine pairs of slide positions in turn (every orange slide at P, every white "
        "slide at Q), reads the open points from a picture of each and derives the hole pattern. Exit code 1, "
        "and nothing written, when some observations no pattern explains.",
    )
    holes.add_argument("--config", help="take the pictures from the camera of this config file (a Stay Alive one)")
    holes.add_argument(
        "--images", metavar="DIR", help="take the nine pictures from DIR/orange-P-white-Q.png (or .jpg) instead"
    )
    holes.add_argument(
        "--profile", help="the board profile to read with (default: the config's, or the game's default)"
    )
    holes.add_argument("--out", help="a Stay Alive profile file to write the holes: key into (created if missing)")
    holes.add_argument(
        "--grids-out",
        metavar="FILE",
        help="also write the nine observed grids here (the format `referee holes derive` reads)",
    )
    setup_calibrate.register(sub)  # `referee setup calibrate` (setup_calibrate.py)
    return parser


def _picture_file(folder: Path, p: str, q: str) -> Path:
    for ext in ("png", "jpg", "jpeg"):
        path = folder / f"orange-{p}-white-{q}.{ext}"
        if path.exists():
            return path
    raise RefereeError(
        _(
            "{folder}: no picture orange-{orange}-white-{white}.png (or .jpg) for the pair orange {orange}, "
            "white {white}",
            folder=str(folder),
            orange=p,
            white=q,
        )
    )


def _camera_pictures(config: Any, profile: Any, language: str | None = None):
    """A function (step 1 to 9) -> picture that asks the person, then reads the camera. With the
    simulated camera (`source: renderer`) a simulated person sets the simulated copy's slides."""

    person = None
    source: FrameSource
    if config.camera.get("source") == "renderer":
        # the simulated person who plays the holes (imported here: a real camera never loads the simulation)
        from simulation.holes_person import simulated_holes

        source, person = simulated_holes(config, profile)
    else:
        source = open_frame_source(config.camera, getattr(profile, "camera", None))

    def take(step: int):
        text = instruction(step)
        ask = said(_("{instruction}, keep hands off the board, then press Enter.", instruction=text), language)
        print(ask[:1].upper() + ask[1:], flush=True)
        try:
            input()
        except EOFError:
            raise RefereeError(_("stopped: no answer on the standard input")) from None
        if person is not None:
            person.follow(text)
        frame = None
        for _frame in range(WARM_UP_FRAMES):
            newer = source.read()
            if newer is None:
                break
            frame = newer
        if frame is None:
            raise RefereeError(_("the camera gave no picture"))
        return frame

    return take, source.close


def run(args: argparse.Namespace) -> int:

    language = getattr(args, "command_language", None)
    if bool(args.config) == bool(args.images):
        raise RefereeError(_("give either --config FILE (pictures from its camera) or --images DIR"))
    config = load_config(args.config) if args.config else None
    game = registry.get(holes_game())
    if config is not None and config.setup.game != game.name and not args.profile:
        raise RefereeError(
            _(
                "{config} is a {game} config; the holes are {title}'s. Give the config of the {title} referee (a "
                "copy of config.yaml with game: {name}, players and seats), or take the nine pictures yourself and "
                "use --images DIR",
                config=str(args.config),
                game=config.setup.game,
                title=game.title,
                name=game.name,
            )
        )
    profile = profile_for(game.name, args.profile) if args.profile or config is None else config.setup.profile
    close = None
    if args.images:
        folder = Path(args.images)
        if not folder.is_dir():
            raise RefereeError(_("{folder} is not a folder", folder=str(folder)))

        def take(step: int):
            return load_image(_picture_file(folder, *PAIRS[step - 1]))
    else:
        take, close = _camera_pictures(config, profile, language)
    reader = BoardReader(profile)
    guide = GuidedHoles()
    try:
        for step in range(1, STEPS + 1):
            grid = guide.record(step, reader.read(take(step)))
            seen = _n(
                "{step}: {n} open point",
                "{step}: {n} open points",
                sum(map(sum, grid)),
                step=step_name(step),
            )
            print(said(seen, language), flush=True)
    finally:
        if close is not None:
            close()
    if args.grids_out:
        Path(args.grids_out).write_text(format_grids(guide.grids), "utf-8")
    derivation = guide.derivation()
    print(said(report(derivation), language))
    if not derivation.ok:
        refused = _(
            "No profile written: check that every slide was fully at its position in the pictures the report "
            "names, and run again."
        )
        print(said(refused, language), file=sys.stderr)
        return 1
    if args.out:
        write_holes_into_profile(Path(args.out), holes_yaml(derivation.pattern), derivation.pattern.to_mapping())
        print(said(_("Wrote the holes: key to {file}", file=str(args.out)), language))
    else:
        print()
        print(holes_yaml(derivation.pattern), end="")
    return 0
