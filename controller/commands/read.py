"""`referee read`: print the snapshot a camera picture shows.

Unsure places are printed as `?` (`??` where an empty place prints as `..`, as Blockers!) and
listed on stderr, with exit code 3.
Blockers! tiles show their glyph (`?` when unsure); Flipop's board is followed by its `doors:`
line (`?` per door the camera could not read). Neither kind of `?` changes the exit code.
Stay Alive's slide positions come from the switches, not the camera, so its snapshot is printed
as the 7 board lines followed by a comment line listing the open points seen.
"""

from __future__ import annotations

import argparse
import sys

from controller import words
from controller.commands.render import profile_for
from controller.errors import RefereeError
from controller.games import registry
from controller.language import _, _n, said
from controller.profile import default_profile
from controller.snapshot import EMPTY
from controller.vision.geometry import check_corners, parse_corners
from controller.vision.lattice import load_image
from controller.vision.reader import BoardReader

UNSURE_EXIT = 3


def register(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "read",
        help="read a board snapshot from a camera picture",
        description="Print the snapshot (notation.md section 1) a camera picture shows. Places the "
        "reader is unsure of are printed as ? and listed on stderr, with exit code 3.",
    )
    p.add_argument("--game", required=True, choices=registry.names(), help="which game's board the picture shows")
    p.add_argument("--image", required=True, help="the picture (.png, .jpg)")
    p.add_argument("--profile", help="a calibrated board profile (default: the game's default)")
    p.add_argument(
        "--corners", help="the lattice's corner points 'x,y x,y x,y x,y' (TL TR BR BL) for a board without markers"
    )
    return p


def _other_game(image, game: str) -> str | None:
    """The game whose default board reads `image` surely (not a place unsure), when `game`'s does not."""

    for other in registry.names():
        if other == game:
            continue
        try:
            reading = BoardReader(default_profile(other)).read(image)
        except Exception:  # a game (a test's) whose reader cannot take this picture: not it
            continue
        if reading.snapshot is not None and not reading.unsure:
            return other
    return None


def run(args: argparse.Namespace) -> int:

    profile = profile_for(args.game, args.profile)
    corners = parse_corners(args.corners) if args.corners else None  # the arguments first: cheap
    image = load_image(args.image)
    if corners is not None:
        check_corners(corners, (image.shape[1], image.shape[0]))
    reading = BoardReader(profile, corners=corners).read(image)
    if (reading.cells is None or reading.unsure) and corners is None and not args.profile:
        other = _other_game(image, args.game)  # a picture of another game's board?
        if other is not None:
            raise RefereeError(
                _("{file}: {why}", file=str(args.image), why=words.another_games_board(args.game, other))
            )
    if reading.cells is None:
        raise RefereeError(_("{file}: {why}", file=str(args.image), why=reading.problem))
    spec = registry.get(args.game)
    empty = spec.cells.empty_text  # as the game's snapshots print an empty place (Blockers!: `..`)
    unsure = "?" * len(empty)
    read_lines = [(line, reading.lines.get(line.key)) for line in spec.extra_lines]  # the add-ons' lines
    for line, tokens in read_lines:
        if tokens is not None and line.before_grid:
            print(line.text(tokens))
    for row in reading.cells:
        print(" ".join(empty if c == EMPTY else unsure if c == "?" else c for c in row))
    for line, tokens in read_lines:
        if tokens is not None and not line.before_grid:
            print(line.text(tokens))
    language = getattr(args, "command_language", None)
    if spec.uses_switches:  # the lines the switches report are not printed: the open points are
        # a comment line (notation.md section 1: a reader skips `#` lines), so its words are the reader's
        # language; the points keep the notation's `row,col`
        pts = " ".join(f"{r},{c}" for r, c in sorted(reading.open_points))
        comment = _("# open points: {points}", points=pts) if pts else _("# open points: none")
        print(said(comment, language))
    if reading.unsure:
        where = ", ".join(spec.place_name((r, c)) for r, c in reading.unsure)
        unsure = _n(
            "referee: {n} place could not be read surely: {places}",
            "referee: {n} places could not be read surely: {places}",
            len(reading.unsure),
            places=where,
        )
        print(said(unsure, language), file=sys.stderr)
        return UNSURE_EXIT
    return 0
