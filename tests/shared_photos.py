"""The shared real photographs (`../shared/photos`, see bench/photo_accuracy.py) for the tests that
read them, and the mark that skips those tests, saying why, on a machine without them."""

from __future__ import annotations

import zlib
from pathlib import Path

import cv2
import numpy as np
import pytest

from bench.photo_accuracy import folder_photos, learn_from, photos_dir, teacher
from bench.relit import relight

PHOTOS = photos_dir()
needs_photos = pytest.mark.skipif(
    PHOTOS is None, reason="the shared photographs (../shared/photos or /work/shared/photos) are not here"
)


def relit_photo(folder: str, name: str, lamp: str, taught_by: str | None = None):
    """(model learned as the bench learns it, from the teaching photo of `taught_by` (`folder` by default),
    the photo `name` of `folder`, that photo relit by `lamp` as `bench/relit.py` relights it)."""
    photo = next(p for p in folder_photos(PHOTOS / folder) if p.name == name)
    image = relight(photo.image(), lamp, seed=zlib.crc32(f"{folder}/{name}".encode()))
    return learn_from(teacher(folder_photos(PHOTOS / (taught_by or folder)))), photo, image


def lattice_read_says(tmp_path: Path, capsys, model, photo, image: np.ndarray) -> str:
    """What `referee lattice read` says (its standard error) of `image` read with `model` at the corners
    of `photo`; the command must succeed."""
    from controller.cli import main

    (tmp_path / "model.json").write_text(model.to_json())
    cv2.imwrite(str(tmp_path / "board.png"), image)
    rows, cols = photo.size
    size, model_file = f"{rows}x{cols}", str(tmp_path / "model.json")
    args = ["lattice", "read", "--size", size, "--corners", photo.corners, "--model", model_file]
    assert main([*args, "--image", str(tmp_path / "board.png")]) == 0
    return capsys.readouterr().err
