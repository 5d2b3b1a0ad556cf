"""Rule *flatness*: the looks joined to the reading that does not depend on the board.

An empty place is the flat board (even over its disc, of its cell corners' colour) on a wooden,
printed or Go board alike; a piece is a solid that is not. Where the flatness is sure of an empty
place and the looks are not (leaning to empty, or knowing nothing of the place: "far"), the place
reads empty; where the two are sure of opposite things it is unsure ("flat"), but for a piece whose
top covers its cell ("not_board", rule parity). Where the looks only lean to empty, the two are two
measurements of one place, and the place reads empty only where both together read it so by the
classifier's margin (`together_reads`). Places read empty with the flatness nearest empty too, or
surely as the piece the flatness surely reads, are marked "agrees".
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from controller.vision.lattice.places import EMPTY
from controller.vision.lattice.reading import Picture, Reading

if TYPE_CHECKING:
    from controller.vision.lattice.model import LatticeModel


NAME = "flatness"


def rule(picture: Picture, reading: Reading) -> Reading:
    """The flatness's sure readings joined to the looks'."""
    if not picture.with_flatness:
        return reading
    why = reading.why_array()
    letters, made, agrees = with_flatness(
        picture.model,
        list(reading.letters),
        why,
        picture.flat_known,
        reading.marked("not_board"),
        picture.dist,
        reading.marked("like_pieces"),
    )
    return reading.but(NAME, letters, why, made, marks={"by_picture": made, "agrees": agrees})


def with_flatness(
    model: LatticeModel,
    letters: list[str],
    why: np.ndarray,
    flat: np.ndarray,
    not_board: np.ndarray | None = None,
    dist: np.ndarray | None = None,
    like_pieces: np.ndarray | None = None,
) -> tuple[list[str], np.ndarray, np.ndarray]:
    """Join the flatness reading (`_flatness`, which does not depend on the board) to the
    looks' reading; say which places only the flatness made sure (as empty) and which the two
    readings agree on: read empty with the flatness nearest an empty look too (sure or not), or
    read surely as a piece that the flatness surely reads as the same piece.

    Where the flatness surely reads a place empty and the looks surely a piece, or the other
    way round, the place is unsure ("flat"). Where only the flatness is sure, and of an empty
    place, the place reads empty: the board shows flat there, whatever its colours, when the
    looks lean to empty too (and both together read it empty, `together_reads`, given `dist`
    (N, looks), the looks' distances) or know nothing of the place (beyond the open-set distance
    of every look: another board). Where the looks lean to a piece, even unsurely, the two
    disagree and the place stays unsure; so it does where its looks are as near this picture's
    own pieces of its parity as its parity's bare board (`like_pieces`, rule parity): the looks
    then lean to a piece in the picture's own terms, and know something of the place."""
    fdec = model.flat_looks.decide(flat)
    empty = [EMPTY] * len(letters)
    together = np.ones(len(letters), bool) if dist is None else together_reads(model, dist, flat, empty)
    flat_empty = fdec.sure & (np.array(fdec.letters) == EMPTY)
    out = list(letters)
    only_flat = np.zeros(len(out), bool)
    for i in range(len(out)):
        if not fdec.sure[i]:
            continue
        if why[i] == "":
            if flat_empty[i] != (out[i] == EMPTY) and not (not_board is not None and not_board[i]):
                why[i] = "flat"
        elif (
            flat_empty[i]
            and ((out[i] == EMPTY and together[i]) or why[i] == "far")
            and not (like_pieces is not None and like_pieces[i])
        ):
            why[i] = ""
            out[i] = EMPTY
            only_flat[i] = True
    flat_letters, read = np.array(fdec.letters), np.array(out)
    nearest_empty = (flat_letters == EMPTY) & (read == EMPTY)
    same_piece = fdec.sure & (flat_letters != EMPTY) & (flat_letters == read) & (why == "")
    return out, only_flat, nearest_empty | same_piece


def together_reads(model: LatticeModel, dist: np.ndarray, flat: np.ndarray, letters: list[str]) -> np.ndarray:
    """(N,) whether a reading of the colours (`dist` (N, looks): the learned looks' distances, or
    the lightness looks') and the flatness together read each place as `letters` by the
    classifier's margin. They are two measurements of one place (its colour against the light, and
    its disc against its own cell's corners), so a label's distance from both is the root of the
    sum of their squares, each the label's nearest look; the place reads so together where the
    nearest other label is farther by the margin (`ClassModel.decide_distances`). A white piece on
    a light square that the looks cannot tell from the square is not made empty by a flatness that
    reads it so by just its own margin."""
    looks, flats = model.classes, model.flat_looks
    labels = sorted({r.letter for r in looks.refs} & {r.letter for r in flats.refs})
    out = np.ones(len(flat), bool)
    if len(labels) < 2:
        return out
    fdist = flats.distances(flat)
    joint = np.stack(
        [
            np.hypot(
                dist[:, [r.letter == label for r in looks.refs]].min(axis=1),
                fdist[:, [r.letter == label for r in flats.refs]].min(axis=1),
            )
            for label in labels
        ],
        axis=1,
    )
    for i, letter in enumerate(letters):
        if letter in labels:
            k = labels.index(letter)
            other = np.delete(joint[i], k).min()
            out[i] = other - joint[i, k] >= looks.min_margin * other
    return out
