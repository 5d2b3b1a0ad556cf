"""The renderer's caches change its speed, never its pictures (simulation/render.py, drawing.py)."""

from __future__ import annotations

import numpy as np
import pytest

from controller.profile import default_profile
from simulation import drawing, render
from simulation.render import Scene, random_snapshot, render_scene

CACHES = (render._light, render._noise, render._empty_board, drawing.glyph_mask)


def _clear() -> None:
    for cache in CACHES:
        cache.cache_clear()


@pytest.mark.parametrize("game", ["colorpop", "blockers", "flipop", "stay-alive"])
@pytest.mark.slow
def test_a_warm_cache_draws_what_a_cold_one_draws(game: str):
    profile = default_profile(game)
    scenes = [Scene(frame=1), Scene(hand=(1, 2), frame=2), Scene(glare_at=((0, 0, 0.5),), frame=1)]
    snapshots = [random_snapshot(game, profile, seed) for seed in (1, 2)]

    def draw_all() -> list[np.ndarray]:
        return [
            render_scene(snap, profile, seed=7, preset="hard", scene=scene, size=(480, 360))[0]
            for snap in snapshots
            for scene in scenes
        ]

    _clear()
    cold = []
    for snap in snapshots:  # each picture drawn from empty caches
        for scene in scenes:
            _clear()
            cold.append(render_scene(snap, profile, seed=7, preset="hard", scene=scene, size=(480, 360))[0])
    warm_first = draw_all()
    warm_again = draw_all()  # a cached array changed by a drawing would show here
    for a, b, c in zip(cold, warm_first, warm_again):
        assert np.array_equal(a, b)
        assert np.array_equal(a, c)
    assert render._empty_board.cache_info().hits > 0
    assert render._light.cache_info().hits > 0


def test_cached_arrays_cannot_be_written():
    profile = default_profile("blockers")
    render_scene(random_snapshot("blockers", profile, 3), profile, seed=1, size=(320, 240))
    light = render._light(1, "clean", (320, 240), 0)
    with pytest.raises(ValueError):
        light.table[0, 0] = 0
    mask = drawing.glyph_mask("A", 48.0)
    with pytest.raises(ValueError):
        mask[0, 0] = 1.0


def test_letters_are_drawn_from_their_outlines_not_opencvs_typeface(monkeypatch):
    """OpenCV 4.x and 5.x draw FONT_HERSHEY_DUPLEX differently; the Pi runs 4.11 (docs/pi.md). The
    renderer's letters come from simulation/letters.npz, so a Blockers! tile looks the same on both."""
    from simulation import letters

    def no_typeface(*args, **kwargs):
        raise AssertionError("the renderer asked OpenCV's typeface for a letter")

    drawing.glyph_mask.cache_clear()
    monkeypatch.setattr(drawing.cv2, "putText", no_typeface)
    monkeypatch.setattr(drawing.cv2, "getTextSize", no_typeface)
    for letter in letters.LETTERS:
        mask = drawing.glyph_mask(letter, 48.0)
        assert 0.05 < float(mask.mean()) < 0.4  # ink where a printed letter has it
    drawing.glyph_mask.cache_clear()
