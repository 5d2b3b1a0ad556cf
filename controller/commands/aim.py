"""`referee aim`: say in words how to aim the camera, from one picture (the live page's aim panel, as a command).

`--image IMAGE --game G` judges a picture taken before; `--config FILE` takes one from the camera that
config file names (picamera, usb, a video or a folder of images). Prints the advice one line each
("markers found, board fully in view", "move the camera left", "too dark", "out of focus",
"glare on row 3 (C3)") and the measures behind it; exit code 0 when the board is well in view, 1 when
something should change.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import TYPE_CHECKING

from controller.commands.render import profile_for
from controller.errors import RefereeError
from controller.games import registry
from controller.games.registry import engine_for
from controller.language import _
from controller.record import setup_from_mapping
from controller.service.config import load_config
from controller.vision.aim import SHARP_SIGMA, aim_advice
from controller.vision.geometry import LatticeGeometry
from controller.vision.lattice import load_image
from controller.vision.sources import open_frame_source

if TYPE_CHECKING:
    from controller.vision.sources import FrameSource

#: Frames read from a live camera before the one judged (its automatic exposure settles meanwhile).
WARM_UP_FRAMES = 10


def register(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "aim",
        help="say how to aim the camera at the board (markers, framing, light, focus, glare)",
        description="Judge one picture of the board and say in words what to change: the markers found, "
        "which way to move the camera, too dark or too bright, out of focus, glare on a row. Exit code 0 "
        "when the board is well in view, 1 when something should change.",
    )
    p.add_argument("--config", help="take the picture from the camera of this config file (and its game)")
    p.add_argument("--image", help="judge this picture (.png, .jpg) instead; needs --game")
    p.add_argument("--game", choices=registry.names(), help="which game's board the picture shows (with --image)")
    p.add_argument("--profile", help="a calibrated board profile (with --image; default: the game's default)")
    return p


def place_namer(game: str) -> Callable[[tuple[int, int]], str] | None:
    """The game's place names from an engine with the game's default keys (None if those need more keys)."""

    try:
        return engine_for(setup_from_mapping({"game": game}, "aim")).place_name
    except RefereeError:
        return None


def _from_camera(path: str):

    config = load_config(path)
    profile = config.setup.profile
    source: FrameSource
    if config.camera.get("source") == "renderer":
        # the shipped config's simulated camera: a picture of the simulated table, as `run` would see it
        # (imported here: a real camera never loads the simulation)
        from simulation.setup_person import simulated_setup

        source, _person = simulated_setup(config)
    else:
        source = open_frame_source(config.camera, getattr(profile, "camera", None))
    frame = None
    try:
        for _frame in range(WARM_UP_FRAMES):
            newer = source.read()
            if newer is None:  # a recording at its end, or a camera that gave up
                break
            frame = newer
    finally:
        source.close()
    if frame is None:
        raise RefereeError(_("the camera of {path} gave no picture", path=str(path)))
    return frame, profile, engine_for(config.setup).place_name


def run(args: argparse.Namespace) -> int:

    if bool(args.config) == bool(args.image):
        raise RefereeError(_("give either --config FILE (a picture from its camera) or --image IMAGE --game GAME"))
    if args.image:
        if not args.game:
            raise RefereeError(_("--image needs --game: which game's board the picture shows"))
        profile = profile_for(args.game, args.profile)
        frame = load_image(args.image)
        names = place_namer(args.game)
    else:
        frame, profile, names = _from_camera(args.config)
    advice = aim_advice(frame, LatticeGeometry.from_profile(profile), names, corners=profile.get("corners"))
    for line in advice.lines:
        print(line)
    m = advice.measures
    figures = [
        f"markers found: {', '.join(advice.markers_found) or 'none'}",
        f"board mean grey {m['mean']:.0f}, clipped white {m['clipped_white']:.1%}, "
        f"crushed black {m['crushed_black']:.1%}",
    ]
    if "blur_px" in m:
        figures.append(
            f"blur about {m['blur_px']:.1f} px on the markers (in focus up to {SHARP_SIGMA}), "
            f"Laplacian variance on the board {m['laplacian_variance']:.0f}"
        )
    print("# " + "; ".join(figures))
    return 0 if advice.ok else 1
