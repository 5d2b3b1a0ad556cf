"""A coloured lamp's reflection (`controller/vision/reflections.py`, `lit`): no diffuse surface sends
back more light than the brightest learned look in the paper's light, so a place brighter than that
in every channel carries the lamp's own light, in an amount no colour tells. Under a warm lamp, whose
reflection clips only red, a token there is washed to a near-neutral pale grey, a joker's (3D scenes,
room 3: two yellow tokens read J, sure): it is unsure, calibration learns nothing from it, and a
calibration picture refused for it says to move the lamp."""

from __future__ import annotations

import numpy as np
import pytest

from calibration.checks import light_advice
from calibration.vision import bottom_row_cells, learn_bottom_row
from controller.profile import default_profile
from controller.snapshot import Snapshot
from controller.vision.reader import BoardReader, model_for
from simulation.render import render_scene

#: A warm lamp's reflection, in grey levels (BGR) added to a fifth of what the surface sends back:
#: red clips, the other channels stand above the paper (a darker exposure, 0.7 of the clean one).
WARM = np.array([190.0, 205.0, 270.0], np.float32)
EXPOSURE = 0.7


def _bottom_row(profile) -> Snapshot:
    return Snapshot("colorpop", tuple(tuple(row) for row in bottom_row_cells(profile)))


def _picture(profile, gains=(1.0, 1.0, 1.0), reflected: tuple[int, int] | None = None) -> np.ndarray:
    """The bottom-row picture (one token of each colour on row 10), at a darker exposure, with the
    channels' `gains` (BGR), and a warm lamp's reflection over the place `reflected` (row, column)."""
    img, hom = render_scene(_bottom_row(profile), profile, seed=1, preset="clean")
    out = img.astype(np.float32) * EXPOSURE * np.asarray(gains, np.float32)
    if reflected is not None:
        row, col = reflected
        q = hom @ np.array([col, row, 1.0])
        pitch = float(np.sqrt(abs(np.linalg.det(hom[:2, :2])))) / float(hom[2, 2])
        yy, xx = np.mgrid[: img.shape[0], : img.shape[1]]
        inside = (xx - q[0] / q[2]) ** 2 + (yy - q[1] / q[2]) ** 2 <= (0.45 * pitch) ** 2
        out[inside] = out[inside] * 0.2 + WARM
    return np.clip(out, 0, 255).astype(np.uint8)


@pytest.mark.parametrize("col", range(6))
def test_a_token_under_a_warm_lamps_reflection_is_unsure_not_a_joker(col: int) -> None:
    profile = default_profile("colorpop")
    reading = BoardReader(profile).read(_picture(profile, reflected=(9, col)))
    assert reading.snapshot is None and reading.unsure == [(9, col)], reading.problem  # before: read J, sure


def test_a_lamp_that_clips_red_on_the_paper_itself_leaves_the_tokens_sure() -> None:
    """Red clipped on the paper and on the tokens alike is no reflection: every token (the joker,
    white, included) reads surely as itself."""
    profile = default_profile("colorpop")
    reading = BoardReader(profile).read(_picture(profile, gains=(1.0, 1.0, 1.6)))
    assert reading.snapshot is not None, reading.problem
    assert [c[:1] for c in reading.cells[9]] == list(_bottom_row(profile).cells[9])


def test_calibration_learns_nothing_from_a_token_under_a_lamps_reflection() -> None:
    """The bottom-row picture with the yellow token under the reflection: yellow keeps the look it
    had (before: it was learned from the washed grey, and the setup's yellows were then unsure)."""
    profile = default_profile("colorpop")
    before = {r.key: r.mean for r in model_for(profile).refs}
    learned = {r.key: r.mean for r in model_for(learn_bottom_row(profile, _picture(profile, reflected=(9, 1)))).refs}
    assert np.allclose(learned["Y"], before["Y"], atol=1e-4)  # as stored (five decimals)
    assert not np.allclose(learned["G"], before["G"], atol=1e-4)  # the others are learned


def test_places_the_reader_found_under_a_reflection_get_the_lamps_advice() -> None:
    got = [["?", "?"], [".", "."]]
    feats = np.zeros((4, 3))
    said = str(light_advice(feats, np.ones(4), [(0, 0), (0, 1)], got, None, np.array([True, True, False, False])))
    assert "a lamp is reflected there" in said
    assert str(light_advice(feats, np.ones(4), [(0, 0), (0, 1)], got, None, np.zeros(4, bool))) == ""
