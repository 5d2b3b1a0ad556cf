"""Rule *flatness*: the looks joined to the reading that does not depend on the board.

An empty place is the flat board (even over its disc, of its cell corners' colour) on a wooden,
printed or Go board alike; a piece is a solid that is not. Where the flatness is sure of an empty
place and the looks are not (leaning to empty, or knowing nothing of the place: "far"), the place
reads empty; where the two are sure of opposite things it is unsure ("flat"), but for a piece whose
top covers its cell ("not_board", rule parity). Places read empty with the flatness nearest empty
too, or surely as the piece the flatness surely reads, are marked "agrees".
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
        picture.model, list(reading.letters), why, picture.flat_known, reading.marked("not_board")
    )
    return reading.but(NAME, letters, why, made, marks={"by_picture": made, "agrees": agrees})


def with_flatness(
    model: LatticeModel, letters: list[str], why: np.ndarray, flat: np.ndarray, not_board: np.ndarray | None = None
) -> tuple[list[str], np.ndarray, np.ndarray]:
    """Join the flatness reading (`_flatness`, which does not depend on the board) to the
    looks' reading; say which places only the flatness made sure (as empty) and which the two
    readings agree on: read empty with the flatness nearest an empty look too (sure or not), or
    read surely as a piece that the flatness surely reads as the same piece.

    Where the flatness surely reads a place empty and the looks surely a piece, or the other
    way round, the place is unsure ("flat"). Where only the flatness is sure, and of an empty
    place, the place reads empty: the board shows flat there, whatever its colours, when the
    looks lean to empty too or know nothing of the place (beyond the open-set distance of
    every look: another board). Where the looks lean to a piece, even unsurely, the two
    disagree and the place stays unsure."""
    fdec = model.flat_looks.decide(flat)
    flat_empty = fdec.sure & (np.array(fdec.letters) == EMPTY)
    out = list(letters)
    only_flat = np.zeros(len(out), bool)
    for i in range(len(out)):
        if not fdec.sure[i]:
            continue
        if why[i] == "":
            if flat_empty[i] != (out[i] == EMPTY) and not (not_board is not None and not_board[i]):
                why[i] = "flat"
        elif flat_empty[i] and (out[i] == EMPTY or why[i] == "far"):
            why[i] = ""
            out[i] = EMPTY
            only_flat[i] = True
    flat_letters, read = np.array(fdec.letters), np.array(out)
    nearest_empty = (flat_letters == EMPTY) & (read == EMPTY)
    same_piece = fdec.sure & (flat_letters != EMPTY) & (flat_letters == read) & (why == "")
    return out, only_flat, nearest_empty | same_piece
