"""`referee render`: draw a snapshot as the simulated camera sees it."""

from __future__ import annotations

import argparse
from pathlib import Path

import cv2

from controller.errors import RefereeError
from controller.files import read_text
from controller.games import registry
from controller.language import _
from controller.profile import default_profile, load_profile
from controller.snapshot import parse_snapshot
from controller.words import game_name
from simulation.render import Scene, render_snapshot


def register(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "render",
        help="draw a board snapshot as a camera would see it",
        description="Draw a board snapshot (notation.md section 1) as the simulated camera sees it, "
        "with the game's markers, so `referee read` and `referee calibrate` can be tried without a camera.",
    )
    p.add_argument("--game", required=True, choices=registry.names(), help="which game's board to draw")
    p.add_argument("--snapshot", required=True, help="a snapshot file (notation.md section 1)")
    p.add_argument("--out", required=True, help="the image to write (.png, .jpg)")
    p.add_argument("--seed", type=int, default=0, help="camera pose, lighting and noise seed")
    p.add_argument(
        "--preset",
        choices=("clean", "hard"),
        default="clean",
        help="clean: even light; hard: glare, shadows and blur as at a real table (default: clean)",
    )
    p.add_argument("--profile", help="a board profile (default: the game's default profile)")
    p.add_argument("--hand", help="draw a hand with its fingertips over 'row,col'")
    return p


def profile_for(game: str, path: str | None):
    profile = load_profile(path) if path else default_profile(game)
    if profile.game != game:
        raise RefereeError(
            _(
                "the profile {path} describes {game}, not {other}",
                path=str(path),
                game=game_name(profile.game),
                other=game_name(game),
            )
        )
    return profile


def check_image_name(path: str) -> None:
    """Refuse, before any work, an output name OpenCV cannot write (it would raise, not return False)."""
    if not cv2.haveImageWriter(path):
        raise RefereeError(_("cannot write the image {path}: its name must end in .png or .jpg", path=str(path)))
    folder = Path(path).parent
    if not folder.is_dir():
        raise RefereeError(
            _("cannot write the image {path}: there is no folder {folder}", path=str(path), folder=str(folder))
        )


def run(args: argparse.Namespace) -> int:

    check_image_name(args.out)
    profile = profile_for(args.game, args.profile)
    snap = parse_snapshot(
        args.game, read_text(args.snapshot, _("the snapshot")), letters=profile.letters, where=args.snapshot
    )
    hand = None
    if args.hand:
        try:
            r, c = (float(v) for v in args.hand.split(","))
        except ValueError:
            raise RefereeError(_("--hand needs 'row,col'; got {value}", value=repr(args.hand))) from None
        hand = (r, c)
    img = render_snapshot(snap, profile, seed=args.seed, preset=args.preset, scene=Scene(hand=hand))
    try:
        written = cv2.imwrite(args.out, img)
    except cv2.error:
        written = False
    if not written:
        raise RefereeError(
            _(
                "cannot write the image {path} (is the folder there, and the name ending in .png or .jpg?)",
                path=str(args.out),
            )
        )
    return 0
