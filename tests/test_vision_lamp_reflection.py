"""A coloured lamp's reflection (`controller/vision/reflections.py`, `lit`): no diffuse surface sends
back more light than the brightest learned look in the paper's light, so a place brighter than that
in every channel carries the lamp's own light, in an amount no colour tells. Under a warm lamp, whose
reflection clips only red, a token there is washed to a near-neutral pale grey, a joker's (3D scenes,
room 3: two yellow tokens read J, sure): it is unsure, calibration learns nothing from it, and a
calibration picture refused for it says to move the lamp."""

from __future__ import annotations

import random

import numpy as np
import pytest

from calibration.checks import light_advice
from calibration.vision import bottom_row_cells, learn_bottom_row, learn_full_setup
from controller.profile import default_profile
from controller.snapshot import Snapshot
from controller.vision.reader import BoardReader, model_for
from simulation.render import render_scene

#: A warm lamp's reflection, in grey levels (BGR) added to a fifth of what the surface sends back:
#: red clips, the other channels stand above the paper (a darker exposure, 0.7 of the clean one).
WARM = np.array([205.0, 215.0, 280.0], np.float32)
EXPOSURE = 0.7


def _bottom_row(profile) -> Snapshot:
    return Snapshot("colorpop", tuple(tuple(row) for row in bottom_row_cells(profile)))


def _setup() -> Snapshot:
    """A full setup: 19 tokens of each colour and 5 jokers, shuffled."""
    letters = [letter for letter, n in {"G": 19, "Y": 19, "O": 19, "B": 19, "P": 19, "J": 5}.items() for _ in range(n)]
    random.Random(3).shuffle(letters)
    return Snapshot("colorpop", tuple(tuple(letters[r * 10 : r * 10 + 10]) for r in range(10)))


def _picture(
    profile, gains=(1.0, 1.0, 1.0), reflected: tuple[int, int] | None = None, board: Snapshot | None = None
) -> np.ndarray:
    """The bottom-row picture (one token of each colour on row 10), or `board`, at a darker exposure,
    with the channels' `gains` (BGR), and a warm lamp's reflection over the place `reflected` (row, column)."""
    img, hom = render_scene(board or _bottom_row(profile), profile, seed=1, preset="clean")
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


def test_a_setups_token_under_a_lamps_reflection_teaches_its_colour_nothing() -> None:
    """The setup's yellow token at A1 under the reflection: yellow's look is learned from the other
    18 as from all 19 on a clean picture (before: the washed grey widened it ninety-fold)."""
    profile, board = default_profile("colorpop"), _setup()
    assert board.cells[0][0] == "Y"
    clean = {r.key: r for r in model_for(learn_full_setup(profile, _picture(profile, board=board))).refs}
    washed = {r.key: r for r in model_for(learn_full_setup(profile, _picture(profile, (1, 1, 1), (0, 0), board))).refs}
    assert np.linalg.det(washed["Y"].cov) < 2 * np.linalg.det(clean["Y"].cov)


def test_places_the_reader_found_under_a_reflection_get_the_lamps_advice() -> None:
    got = [["?", "?"], [".", "."]]
    feats = np.zeros((4, 3))
    said = str(light_advice(feats, np.ones(4), [(0, 0), (0, 1)], got, None, np.array([True, True, False, False])))
    assert "a lamp is reflected there" in said
    assert str(light_advice(feats, np.ones(4), [(0, 0), (0, 1)], got, None, np.zeros(4, bool))) == ""
