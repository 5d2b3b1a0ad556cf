"""End to end on the simulated rig: renderer frames, vision, the real switch link, mock pins.

Over a batch of short games with hands, glare, a camera bump and unplugged devices, the referee's
verdicts must be exactly the ones the simulated player intended: no false verdict.
"""

from __future__ import annotations

import pytest

from controller.commands.demo import play_game

pytestmark = pytest.mark.slow  # every test here takes seconds


@pytest.mark.parametrize(
    "game,seed,moves",
    [("colorpop", 11, 8), ("blockers", 12, 8), ("flipop", 13, 8)],
)
def test_no_false_verdict_with_hands_glare_and_bumps(game, seed, moves, tmp_path):
    outcome = play_game(game, seed, tmp_path, print_lights=False, max_moves=moves, noise_frames=2)
    assert outcome.faithful, (outcome.verdicts, outcome.intended)
    kinds = [v["verdict"] for v in outcome.verdicts]
    assert "illegal" in kinds and "restored" in kinds
    assert any("hand in" in line for line in outcome.lines)
    assert any("fault: the camera is not sending pictures: check its cable" in line for line in outcome.lines)


def test_stay_alive_with_the_switch_board_unplugged_and_back(tmp_path):
    outcome = play_game("stay-alive", 21, tmp_path, print_lights=True, max_moves=9)
    assert outcome.faithful, (outcome.verdicts, outcome.intended)
    text = "\n".join(outcome.lines)
    # the link names what happened: the board unplugged (its USB cable), in a player's words
    assert "fault: the switch board is not connected: check its USB cable" in text
    assert "fault cleared: the slide switches are answering again" in text
    assert "  lights: green LED flash" in text
    assert "  sound: alarm tone" in text
