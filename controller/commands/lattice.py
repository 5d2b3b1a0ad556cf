"""`referee lattice learn|read`: read any grid game's places, learned from labelled pictures.

`read` prints R lines of C labels separated by single spaces: the nearest learned label of
every place. Places the classifier is not sure of (a look like none learned, or two labels
nearly as near) are listed on stderr as doubtful (the output still gives the best label there,
because the output format has no "unknown" label). When a lamp that mixes the colours leaves
places in doubt (rule `lamp` of the lattice reader), a sentence says so and what to do.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from controller.errors import RefereeError, os_words
from controller.files import read_text
from controller.language import _, said
from controller.vision import lattice
from controller.vision.geometry import parse_corners


def register(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "lattice",
        help="learn or read the places of any grid game",
        description="Read any grid game's places with no profile: learn a model from labelled "
        "pictures, then read new pictures with it.",
    )
    sub = p.add_subparsers(dest="lattice_command", metavar="ACTION")
    sub.required = True
    learn = sub.add_parser(
        "learn",
        help="learn labels from pictures with known labels",
        description="Learn what each label looks like from pictures whose places' labels are known "
        "(any character is a label) and write the model file.",
    )
    learn.add_argument("--size", required=True, help="rows x columns, e.g. 19x19")
    learn.add_argument(
        "--corners",
        required=True,
        action="append",
        help="corner points 'x,y x,y x,y x,y' (TL TR BR BL); once, or once per image",
    )
    learn.add_argument("--image", required=True, action="append", help="a picture (repeatable)")
    learn.add_argument(
        "--labels", required=True, action="append", help="R lines of C one-character labels, one file per --image"
    )
    learn.add_argument("--out", required=True, help="the model file to write")
    rd = sub.add_parser(
        "read",
        help="print the labels of a picture's places",
        description="Print R lines of C labels, the learned label nearest to each place of the picture; "
        "doubtful places are listed on stderr.",
    )
    rd.add_argument("--size", required=True, help="rows x columns, as the model was learned, e.g. 19x19")
    rd.add_argument("--corners", required=True, help="corner points 'x,y x,y x,y x,y' (TL TR BR BL)")
    rd.add_argument("--model", required=True, help="the model file written by 'referee lattice learn'")
    rd.add_argument("--image", required=True, help="the picture to read")
    return p


def run(args: argparse.Namespace) -> int:

    language = getattr(args, "command_language", None)
    size = lattice.parse_size(args.size)
    if args.lattice_command == "learn":
        if len(args.image) != len(args.labels):
            raise RefereeError(
                _(
                    "give one --labels file per --image: {images} image(s), {labels} labels file(s)",
                    images=len(args.image),
                    labels=len(args.labels),
                )
            )
        if len(args.corners) not in (1, len(args.image)):
            raise RefereeError(_("give --corners once for all images, or once per --image"))
        corners = [parse_corners(c) for c in args.corners]
        if len(corners) == 1:
            corners = corners * len(args.image)
        samples = []
        for img, lab in zip(args.image, args.labels):
            grid = lattice.parse_labels(read_text(lab, _("the labels file")), size, where=lab)
            samples.append((lattice.load_image(img), grid))
        model = lattice.learn(samples, size, corners)
        try:
            Path(args.out).write_text(model.to_json(), "utf-8")
        except OSError as exc:
            raise RefereeError(
                _("cannot write the model {file}: {why}", file=str(args.out), why=os_words(exc))
            ) from None
        return 0
    model = lattice.LatticeModel.load(args.model)
    if tuple(model.size) != size:
        raise RefereeError(
            _(
                "the model {file} was learned for a {learned} lattice, not {given}",
                file=str(args.model),
                learned=f"{model.size[0]}x{model.size[1]}",
                given=f"{size[0]}x{size[1]}",
            )
        )
    grid, why, _scores = lattice.read_why(model, lattice.load_image(args.image), parse_corners(args.corners))
    for row in grid:
        print(" ".join(row))
    doubtful = [(r, c) for r in range(size[0]) for c in range(size[1]) if why[r, c]]
    if doubtful:
        places = " ".join(f"{r},{c}" for r, c in doubtful)
        print(said(_("referee: doubtful places (row,col): {places}", places=places), language), file=sys.stderr)
    if (why == "lamp").any():
        lamp = _(
            "referee: the lamp mixes the colours (the board's light and dark squares are not the colours "
            "learned, whatever the light's strength): use a white light, or learn the model again under this one"
        )
        print(said(lamp, language), file=sys.stderr)
    if (why == "dark").any():
        dark = _(
            "referee: the lamp sends no light in one of the camera's colours (a lamp of one narrow colour, such as "
            "an amber or a sodium lamp): no colour can be read under it; use a white light"
        )
        print(said(dark, language), file=sys.stderr)
    return 0
