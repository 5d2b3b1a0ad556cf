"""Rule *hidden*: no place where the board is hidden around it is sure ("hidden").

A hand, a sleeve, a cup or a book covers places and the board between them, unlike a piece,
which stands on its place and leaves the board around it visible (`describe`).
"""

from __future__ import annotations

from controller.vision.lattice.reading import Picture, Reading

NAME = "hidden"


def rule(picture: Picture, reading: Reading) -> Reading:
    """Every place the board is hidden around, unsure."""
    if picture.visible.all():
        return reading
    why = reading.why_array()
    why[~picture.visible] = "hidden"
    return reading.but(NAME, why=why)
