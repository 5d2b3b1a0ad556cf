"""`referee calibrate`: learn a board's looks from pictures and write the user's profile.

Ways to calibrate (any game: `--image` with `--snapshot`, as often as wanted):
- colorpop: `--empty IMAGE --bottom-row IMAGE --setup IMAGE`, the empty board, one token of each
  colour on the bottom row from the left (G Y O B P J), and the full board just set up (the
  profile's `tokens`: 19 of each colour, 5 jokers), as the guided calibration takes them; all
  three are required: the look of an empty slot is learned from this copy and the setup checked
  to have none, and the setup's clusters (equal counts, places not known) are named after this
  copy's own colours from the bottom row, which equal counts could never check;
- flipop: `--setup IMAGE`, the start position of the profile;
- blockers, stay-alive: `--empty IMAGE --pieces IMAGE`, the empty board, then one piece of each
  colour on the top row from the left, in the profile's class order;
- blockers: `--glyphs IMAGE` (repeatable), the 28 tiles of one colour in the glyph arrangement of
  `calibration/vision_glyphs.py` (rows A-C: 1-9, A-I, the symbols; the wild tile at D1);
- flipop: `--setup` also learns the doors from the start position;
- every picture is then read back with what was learned and checked against what it should show
  (`calibration/checks.py`): a set that contradicts itself is refused, naming the picture and the
  places; otherwise a short quality report is printed;
- any: `--camera CONFIG` opens the camera of that config file, lets its automatic exposure and
  white balance settle on the board, and stores the values in the profile (the service then
  locks them when it opens the camera; `camera: {lock: false}` leaves them automatic).
"""

from __future__ import annotations

import argparse
from typing import Any

from calibration import checks
from calibration import vision as cal
from calibration import vision_glyphs as shapes
from calibration.camera import learn_camera_settings
from controller.commands.render import profile_for
from controller.errors import RefereeError
from controller.files import load_yaml, read_text
from controller.games import registry
from controller.games.spec import (
    DOORS_ADDON,
    EMPTY_BOARD,
    FULL_SETUP,
    GLYPHS_ADDON,
    ONE_OF_EACH,
    START_POSITION,
    GameSpec,
)
from controller.language import Text, _, listed, literal, said
from controller.profile import save_profile
from controller.service.config import validate_camera_section
from controller.snapshot import EMPTY, parse_snapshot, with_required_lines
from controller.vision.geometry import parse_corners
from controller.vision.lattice import load_image
from controller.vision.sources import open_frame_source


def register(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "calibrate",
        help="learn a board's colours and write its profile",
        description="Learn your copy's colours (and Blockers! glyphs, Flipop doors) from pictures and "
        "write a board profile that config.yaml's profile: can name. Give --setup (Colorpop: with --empty "
        "and --bottom-row), or --empty with --pieces, or --image/--snapshot pairs (see docs/calibration.md for what "
        "each game wants).",
    )
    p.add_argument("--game", required=True, choices=registry.names(), help="which game's copy to calibrate")
    p.add_argument("--profile", help="start from this profile (default: the game's default)")
    p.add_argument("--out", required=True, help="the profile file to write")
    p.add_argument("--corners", help="lattice corner points 'x,y x,y x,y x,y' (board without markers)")
    p.add_argument("--image", action="append", default=[], help="a picture whose content is known")
    p.add_argument("--snapshot", action="append", default=[], help="its snapshot, one per --image")
    p.add_argument("--setup", help="colorpop: the full setup; flipop: the start position")
    p.add_argument("--empty", help="colorpop, blockers, stay-alive: the empty board")
    p.add_argument(
        "--bottom-row",
        metavar="IMAGE",
        help="colorpop, with --setup: one token of each colour on the bottom row from the left "
        "(G Y O B P J), every other slot empty, so the setup's colours are named from your copy",
    )
    p.add_argument("--pieces", help="blockers, stay-alive: one piece of each colour on the top row")
    p.add_argument(
        "--glyphs",
        action="append",
        default=[],
        help="blockers: one colour's 28 tiles in the glyph calibration arrangement",
    )
    p.add_argument(
        "--camera",
        metavar="CONFIG",
        help="store the exposure and white balance of this config's camera (picamera or usb)",
    )
    return p


def _camera_section(path: str) -> dict:

    data = load_yaml(path, _("the config file"))
    if not isinstance(data, dict):
        raise RefereeError(_("the config {path} should be a set of 'name: value' settings", path=str(path)))
    section = data.get("camera") or {}
    if not isinstance(section, dict):
        raise RefereeError(_("the config {path}: camera should be a mapping (source, device, ...)", path=str(path)))
    return validate_camera_section(section, path)


def _names_of(test) -> str:
    """The games (as `--game` names them) for which `test(spec)` holds: "blockers and stay-alive"."""
    return listed([spec.name for spec in registry.with_capability(test)])


def _names_taking(*pictures: str) -> str:
    return _names_of(lambda spec: any(spec.calibrates(p) for p in pictures))


def _takes_setup(spec: GameSpec) -> bool:
    return spec.calibrates(FULL_SETUP) or spec.calibrates(START_POSITION)


def run(args: argparse.Namespace) -> int:

    language = getattr(args, "command_language", None)
    profile = profile_for(args.game, args.profile)
    before = profile
    corners = parse_corners(args.corners) if args.corners else None
    if len(args.image) != len(args.snapshot):
        raise RefereeError(_("give one --snapshot per --image"))
    if not (args.image or args.setup or args.empty or args.bottom_row or args.pieces or args.glyphs or args.camera):
        raise RefereeError(
            _("nothing to learn from: give --image/--snapshot, --setup, --empty and --pieces, or --camera")
        )
    spec = registry.get(args.game)
    camera = _camera_section(args.camera) if args.camera else None
    if camera is not None and camera["lock"] and camera["source"] not in ("picamera", "usb"):
        # said before any learning, not after the whole report
        raise RefereeError(_no_lock(args.camera, camera["source"]))
    rows, cols = profile.rows, profile.cols
    pictures: list[checks.Expected] = []
    _check_full_setup_pictures(args, spec, profile)
    if args.empty:
        if not spec.calibrates(EMPTY_BOARD):
            games = _names_taking(EMPTY_BOARD)
            if _takes_setup(spec):
                raise RefereeError(_("--empty is for {games} ({title}: --setup)", games=games, title=spec.title))
            raise RefereeError(_("--empty is for {games}", games=games))
        image = load_image(args.empty)
        profile = cal.learn_empty(
            profile, image, corners, name=_("the empty-board picture {file}", file=str(args.empty))
        )
        pictures.append(checks.Expected(args.empty, image, [[EMPTY] * cols for _ in range(rows)]))
    if args.setup:
        if spec.calibrates(FULL_SETUP):
            image = load_image(args.bottom_row)
            profile = cal.learn_bottom_row(profile, image, corners)
            pictures.append(checks.Expected(args.bottom_row, image, cal.bottom_row_cells(profile)))
        image = load_image(args.setup)
        if spec.calibrates(FULL_SETUP):
            profile = cal.learn_full_setup(
                profile, image, corners, name=_("the setup picture {file}", file=str(args.setup))
            )
            pictures.append(checks.Expected(args.setup, image, counts=cal.setup_counts(profile)))
        elif spec.calibrates(START_POSITION):
            profile = cal.learn_start(profile, image, corners)
            if spec.reads(DOORS_ADDON):
                profile = shapes.learn_doors(profile, image, corners, name=args.setup)
            start = parse_snapshot(args.game, profile.get("start"))
            pictures.append(
                checks.Expected(args.setup, image, [list(r) for r in start.cells], doors=start.line("doors"))
            )
        else:
            raise RefereeError(
                _("--setup is for {games}; use --empty and --pieces", games=_names_taking(FULL_SETUP, START_POSITION))
            )
    if args.pieces:
        if not spec.calibrates(ONE_OF_EACH) or not args.empty:
            raise RefereeError(_("--pieces is for {games}, and goes with --empty", games=_names_taking(ONE_OF_EACH)))
        image = load_image(args.pieces)
        profile = cal.learn_pieces(profile, image, corners, name=_("the pieces picture {file}", file=str(args.pieces)))
        cells = [cal.pieces_row(profile)] + [[EMPTY] * cols for _ in range(rows - 1)]
        pictures.append(checks.Expected(args.pieces, image, cells))
    elif args.empty and spec.calibrates(ONE_OF_EACH):
        raise RefereeError(_("--empty and --pieces go together"))
    if args.image:
        pairs = []
        for img, snap in zip(args.image, args.snapshot):
            text = with_required_lines(args.game, read_text(snap, _("the snapshot")))
            pairs.append((load_image(img), parse_snapshot(args.game, text, letters=profile.letters, where=snap)))
        profile = cal.learn_labelled(profile, pairs, corners)
        for name, (image, snapshot) in zip(args.image, pairs):
            pictures.append(checks.Expected(name, image, [[c[:1] for c in r] for r in snapshot.cells]))
    if args.glyphs:
        if not spec.reads(GLYPHS_ADDON):
            raise RefereeError(_("--glyphs is for {games}", games=_names_of(lambda s: s.reads(GLYPHS_ADDON))))
        profile = shapes.learn_glyphs(profile, [load_image(g) for g in args.glyphs], corners)
    if pictures:
        # The frame's colour under the light the copy is calibrated in (the reader's second light meter).
        profile = cal.with_frame(profile, pictures[0].image, corners)
        quality = checks.check_pictures(profile, pictures, corners, checks.learned_keys(before, profile))
        print(quality.text(language))
    if camera is not None:
        profile = _store_camera(profile, camera, language)
    save_profile(profile, args.out)
    print(said(_("wrote {file}", file=str(args.out)), language))
    return 0


def _check_full_setup_pictures(args: argparse.Namespace, spec: GameSpec, profile) -> None:
    """A full setup (Colorpop) goes with the empty board and the bottom row, and the bottom row with it:
    said before anything is learned."""
    if args.bottom_row and not (spec.calibrates(FULL_SETUP) and args.setup):
        raise RefereeError(_("--bottom-row is for {games}, and goes with --setup", games=_names_taking(FULL_SETUP)))
    if not (args.setup and spec.calibrates(FULL_SETUP)):
        return
    why = {
        "--empty": _("a picture of the empty board, so that the look of an empty slot is learned and checked as well"),
        "--bottom-row": _(
            "one token of each colour on the bottom row from the left ({letters}), so that the setup's colours "
            "are named from your copy rather than guessed from the standard edition's",
            letters=" ".join(profile.letters),
        ),
    }
    missing = [flag for flag in why if not getattr(args, flag[2:].replace("-", "_"))]
    if missing:
        raise RefereeError(
            _(
                "--setup needs {flags} too: {why}",
                flags=listed([f"{flag} IMAGE" for flag in missing]),
                why=listed([why[flag] for flag in missing], separator=";"),
            )
        )


def _no_lock(config: Any, source: str) -> Text:
    if source == "renderer":
        kind = _("the simulated camera (source: renderer)")
    else:
        kind = _("a {source} (source: {source})", source=str(source))
    return _(
        "--camera {config}: its camera is {kind}, which has no exposure or white balance to lock (only a Pi "
        "camera or a USB camera has); leave out --camera, or give the config of the camera you will play with",
        config=config,
        kind=kind,
    )


def _store_camera(profile, camera: dict, language: str | None = None):

    if not camera["lock"]:
        print(said(_("camera.lock is false: exposure and white balance stay automatic; nothing stored"), language))
        return profile
    if camera["source"] not in ("picamera", "usb"):
        raise RefereeError(_no_lock(_("the config"), camera["source"]))
    source = open_frame_source(camera)
    try:
        profile = learn_camera_settings(profile, source)
    finally:
        source.close()
    print(said(_("camera locked: {settings}", settings=literal(str(profile.get("camera")))), language))
    return profile
