"""What a place's taller patches say of a reading at a lower height (`controller.vision.tops.PlaceLooks`): a piece
stands above the floor, so the camera sees it where its own body would be, not on the floor's patch. A place read
as the floor on a clear patch is in doubt where a piece's patch is mostly glare (one could hide there)."""

from __future__ import annotations

import numpy as np

from controller.vision.features import colour_features
from controller.vision.tops import PlaceLooks

HEIGHTS = {"W": 0.34, "B": 0.34, ".": 0.0}
#: Colours relative to the paper white (B, G, R): a white and a black ball, a wooden floor.
LOOKS = {"W": (0.85, 0.87, 0.9), "B": (0.08, 0.08, 0.09), ".": (0.2, 0.35, 0.6)}


def _looks(floor: list[str], top: list[str], used_floor: list[float], used_top: list[float]) -> PlaceLooks:
    """Places whose floor patch shows the looks `floor` and whose ball patch shows `top`."""
    at_floor = colour_features(np.array([LOOKS[k] for k in floor], float))
    at_top = colour_features(np.array([LOOKS[k] for k in top], float))
    return PlaceLooks(HEIGHTS, {0.0: (at_floor, np.array(used_floor)), 0.34: (at_top, np.array(used_top))})


def test_an_empty_place_is_sure_only_where_every_taller_piece_would_be_seen() -> None:
    """A place read as the floor on a clear patch is in doubt where a ball's patch is mostly glare; one whose own
    patch is as hidden is left to what is read of it, and one read as a ball is not in doubt (its own patch is what
    the reader already asks to be clear)."""
    looks = _looks(["."] * 4, ["."] * 4, [0.9, 0.9, 0.2, 0.7], [0.3, 0.9, 0.3, 0.65])
    assert looks.hidden_above([".", ".", ".", "."], 0.66).tolist() == [True, False, False, True]
    assert not looks.hidden_above(["W", "B", "W", "B"], 0.66).any()
