"""The simulated rig with the shipped config.yaml: it resumes from the journal after a restart
(no "tokens were put on the board"), and `new-game` gets a new starting board from the simulated players."""

from __future__ import annotations

import random
from dataclasses import replace
from pathlib import Path

import pytest

from controller.assembly import assemble
from controller.service.config import load_config
from simulation.devices import SimulatedDevices
from simulation.world import SimClock, SimDriver, SimTable, SimWorld, all_agree, starting_board

pytestmark = pytest.mark.slow  # every test here takes seconds

SHIPPED = Path(__file__).resolve().parent.parent / "config.yaml"


class Run:
    """One `referee run` of the shipped config on a simulated clock (what run.py builds)."""

    def __init__(self, tmp_path: Path, seed: int = 0) -> None:
        config = load_config(SHIPPED)
        # smaller pictures (rendering is most of the time here), the shipped game and service settings
        camera = {**config.camera, "width": 640, "height": 360}
        self.config = replace(
            config, journal=tmp_path / "journal.sqlite", control_socket=tmp_path / "c.sock", camera=camera
        )
        board = starting_board(self.config.setup, random.Random(self.config.simulation.seed))
        self.clock = SimClock()
        self.service = assemble(
            self.config,
            devices=SimulatedDevices(lambda pico: SimWorld(self.config.setup, board, pico=pico, noise_frames=1)),
            clock=self.clock,
            control=False,
        )
        self.world = self.service.world
        self.table = SimTable(self.world, self.config.setup, lambda: self.service.loop.session, seed=seed)
        self.driver = SimDriver(self.world, self.clock, self.service.loop.tick)
        self.steps = self.table.steps()

    @property
    def verdicts(self) -> list[dict]:
        return [v.to_json() for v in self.service.loop.verdicts]

    def play(self, moves: int) -> None:
        """Until the referee has judged `moves` more legal moves (or the game is over)."""
        wanted = sum(v["verdict"] == "legal" for v in self.verdicts) + moves
        while sum(v["verdict"] == "legal" for v in self.verdicts) < wanted:
            step = next(self.steps)
            if step is None:
                return
            self.driver.do(step)


def test_restarted_with_the_shipped_config_the_simulated_board_resumes_without_an_illegal_verdict(tmp_path):
    first = Run(tmp_path)
    first.play(2)
    assert [v["verdict"] for v in first.verdicts] == ["setup-ok", "legal", "legal"]
    before = first.service.loop.session
    first.service.close()  # the process ends; the journal is all that is left

    second = Run(tmp_path, seed=1)
    session = second.service.loop.session
    assert session.game_id == before.game_id and session.verdicts == before.verdicts
    assert second.world.board == before.referee.expected()  # the board where the game left it
    second.driver.run_frames(3 * 30)
    assert second.verdicts == []  # the same board seen again is nothing new
    second.play(1)
    assert [v["verdict"] for v in second.verdicts] == ["legal"]
    assert all_agree(second.verdicts, second.table.player.intended)
    second.service.close()


def test_new_game_with_the_shipped_config_gets_a_new_starting_board_and_play_goes_on(tmp_path):
    run = Run(tmp_path)
    run.play(1)
    future = run.service.loop.submit("new-game")
    run.play(1)
    assert future.result(timeout=1)["game_id"] == 2
    kinds = [v["verdict"] for v in run.verdicts]
    assert kinds == ["setup-ok", "legal", "action", "setup-ok", "legal"]
    assert run.table.new_boards == 1
    run.service.close()
