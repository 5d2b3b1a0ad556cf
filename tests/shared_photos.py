"""The shared real photographs (`../shared/photos`, see bench/photo_accuracy.py) for the tests that
read them, and the mark that skips those tests, saying why, on a machine without them."""

from __future__ import annotations

import pytest

from bench.photo_accuracy import photos_dir

PHOTOS = photos_dir()
needs_photos = pytest.mark.skipif(
    PHOTOS is None, reason="the shared photographs (../shared/photos or /work/shared/photos) are not here"
)
