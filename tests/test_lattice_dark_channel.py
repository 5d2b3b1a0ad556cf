"""A lamp of one narrow band on the lattice reader (issue 32): an amber LED sends the camera nothing in
blue, and red and green both see the one band, so a white stone is as orange as the wooden board. A place
whose light is dark in a channel (`lattice.light.DARK_LOG`) is unsure ("dark", rule `light`); under every lamp
that lights each channel, nothing is in the dark. The lamps are `bench/relit.py`'s, each photo relit as
the bench relights it."""

from __future__ import annotations

import numpy as np
import pytest
from shared_photos import lattice_read_says, needs_photos, relit_photo

from controller.vision import lattice
from controller.vision.geometry import parse_corners
from controller.vision.lattice.light import DARK_LOG
from controller.vision.lattice.reading import Picture
from controller.vision.lattice.rules.light import in_the_dark

FOLDER = "go-tengen-9x9-webcam"


def _seen(name: str, light: str):
    return relit_photo(FOLDER, name, light)


@needs_photos
def test_under_an_amber_lamp_no_stone_is_read_by_its_colour() -> None:
    """`bench/relit.py` photographs under its amber lamp: 804 places were read wrong but sure (on this
    folder, white stones taken for the bare board and bare points for white stones). Blue is dark at every
    place: each one is unsure, most of them said to be in the dark by rule `light`."""
    model, photo, image = _seen("move_9", "amber")
    seen = lattice.describe(image, photo.size, parse_corners(photo.corners))
    assert (seen.light[:, 0] < DARK_LOG).all()  # blue (B, G, R), at every place
    grid, why, _ = lattice.read_why(model, image, parse_corners(photo.corners))
    assert (why != "").all()  # nothing sure, so nothing wrong but sure
    assert (why == "dark").sum() > why.size // 2  # most in the dark (the rules before it take a few)


@needs_photos
@pytest.mark.parametrize("light", ["white", "dim", "warm", "blue", "cyan", "green", "violet", "pink", "tube"])
def test_a_lamp_that_lights_every_channel_leaves_no_place_in_the_dark(light) -> None:
    """A dim lamp, or one of a colour, still sends every channel some light: no place is in the dark, and
    the photo is read as before (the dim lamp's darkest channel here is several times the floor)."""
    model, photo, image = _seen("move_9", light)
    seen = lattice.describe(image, photo.size, parse_corners(photo.corners))
    picture = Picture.of(model, seen.feats, seen.hidden, seen.flat, seen.bounds, seen.away, seen.rectified)
    assert not in_the_dark(picture).any()
    assert np.exp(seen.light).min() > 2 * np.exp(DARK_LOG)


@needs_photos
def test_lattice_read_says_the_lamp_sends_no_light_in_a_colour(tmp_path, capsys) -> None:
    model, photo, image = _seen("move_9", "amber")
    err = lattice_read_says(tmp_path, capsys, model, photo, image)
    assert "sends no light in one of the camera's colours" in err and "use a white light" in err
    # Under white light it is not said.
    _, _, white = _seen("move_9", "white")
    assert "sends no light" not in lattice_read_says(tmp_path, capsys, model, photo, white)
