"""The simulated rig's honesty: a camera whose pictures arrive late, players who pause mid-move."""

from __future__ import annotations

import random

import numpy as np
import pytest

from controller.commands.demo import play_game
from controller.games import registry
from controller.games.registry import engine_for
from controller.record import setup_from_mapping
from simulation.camera import DelayedFrames
from simulation.world import SimPlayer, SimWorld, Step, first_difference, light_figures, starting_board


class _Counter:
    """A camera whose picture shows its own frame number."""

    def __init__(self) -> None:
        self.number = 0

    def frame_number(self) -> int:
        return self.number

    def read(self) -> np.ndarray:
        self.number += 1
        return np.full((4, 4, 3), self.number, np.uint8)

    def close(self) -> None:
        pass


@pytest.mark.parametrize("delay", [1, 3])
def test_the_delayed_camera_hands_over_the_picture_of_delay_frames_ago(delay):
    camera = DelayedFrames(_Counter(), delay)
    seen = [camera.read() for _ in range(delay + 5)]
    assert seen[:delay] == [None] * delay  # still on their way
    assert [int(frame[0, 0, 0]) for frame in seen[delay:]] == [1, 2, 3, 4, 5]  # in order, none lost
    assert camera.frame_number() == 4  # the number the source gave when the last one was taken


@pytest.mark.parametrize("game", ["colorpop", "blockers", "flipop", "stay-alive"])
def test_a_pause_mid_move_leaves_a_half_made_move_or_nothing_legal(game):
    """The boards a player leaves mid-move are what the referee must wait on: a half-made move
    (pending, the verdict the player intends) or a board no legal move gives (no verdict intended)."""
    keys = dict(registry.get(game).demo)
    setup = setup_from_mapping(keys, "test")
    world = SimWorld(setup, starting_board(setup, random.Random(5)))
    player = SimPlayer(world, setup, setup, seed=5, troubles=False, max_moves=25, mid_move=1.0)
    engine = engine_for(setup)
    pauses = 0
    for step in player.steps():
        if step.apply is not None:
            step.apply(world)
        if step.mid_move:
            pauses += 1
            # the shadow referee's state is the last legal one (a pending board does not move it on)
            judged = engine.judge(player.shadow.state, world.board)
            assert judged.kind in ("pending", "illegal"), (step.label, judged)
            assert (step.intended is not None) == (judged.kind == "pending")
            assert step.intended is None or step.intended["verdict"] == "pending"
    assert pauses > 0 or game == "stay-alive"  # Stay Alive's moves are one marble or one slide


@pytest.mark.slow
def test_a_game_with_mid_move_pauses_and_a_late_camera_is_refereed_as_played(tmp_path):
    """Every move of this Flipop game is made in two parts (a ball moved, its doors turned after,
    the hand off the board between) and the camera is three frames late: the referee's verdicts
    are the player's, and red lights only for the illegal change the player made on purpose."""
    outcome = play_game("flipop", 4, tmp_path, print_lights=False, max_moves=8, camera_delay=3, mid_move=1.0)
    assert outcome.camera_delay == 3
    assert sum(step.mid_move for _, step in outcome.steps) >= 3
    assert outcome.faithful, first_difference(outcome.verdicts, outcome.intended)
    figures = light_figures(outcome.lights, outcome.steps, outcome.ended_at)
    assert figures.false_red == 0
    assert ("red LED on" in [message for _, message in outcome.lights]) == any(
        v["verdict"] == "illegal" for v in outcome.verdicts
    )


def test_red_lit_outside_an_illegal_change_is_counted():
    steps = [(0.0, Step("a move", 1.0)), (1.0, Step("an illegal change", 1.0, red_ok=True)), (2.0, Step("a move", 1.0))]
    lights = [
        (0.5, "red LED on"),
        (0.6, "amber LED on"),
        (1.5, "red LED on"),
        (2.5, "red LED on"),
        (2.6, "amber LED off"),
    ]
    figures = light_figures(lights, steps, 3.0)
    assert figures.false_red == 2
    assert figures.amber_on == pytest.approx(2.0)
