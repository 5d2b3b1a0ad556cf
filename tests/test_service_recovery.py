"""Kill the referee at random points of a game and restart it from the journal: nothing lost or repeated."""

from __future__ import annotations

import random

import pytest

from controller.record import parse_record
from controller.referee import judge_record
from controller.service.journal import Journal
from controller.service.session import GameSession, export_record
from simulation.world import Killed, StubRig

GAMES = {
    "colorpop": ({"game": "colorpop", "players": 3}, {"game": "colorpop", "players": 3, "secrets": ["G", "Y", "O"]}),
    "blockers": ({"game": "blockers", "players": 3, "seats": ["R", "G", "B"]}, None),
    "flipop": ({"game": "flipop", "players": 2}, None),
    "stay-alive": ({"game": "stay-alive", "players": 2, "seats": ["B", "Y"]}, None),
}


def _uninterrupted(game: str, tmp_path, seed: int, max_moves: int) -> StubRig:
    keys, truth = GAMES[game]
    rig = StubRig(keys, tmp_path / "whole.sqlite", seed=seed, truth_keys=truth, max_moves=max_moves)
    rig.driver.run(rig.player.steps())
    rig.driver.run(rig.player.finish())
    return rig


@pytest.mark.parametrize("game", list(GAMES))
@pytest.mark.slow
def test_uninterrupted_game_gives_the_intended_verdicts(game, tmp_path):
    rig = _uninterrupted(game, tmp_path, seed=3, max_moves=25)
    assert rig.loop.session.verdicts == rig.player.intended
    kinds = {v["verdict"] for v in rig.player.intended}
    assert {"setup-ok", "legal", "illegal", "restored"} <= kinds


@pytest.mark.parametrize("game,seed", [("colorpop", 1), ("blockers", 2), ("flipop", 3), ("stay-alive", 4)])
@pytest.mark.slow
def test_killed_at_random_points_resumes_with_same_state_turn_and_verdicts(game, seed, tmp_path):
    whole = _uninterrupted(game, tmp_path, seed=seed, max_moves=20)
    keys, truth = GAMES[game]
    rig = StubRig(keys, tmp_path / "killed.sqlite", seed=seed, truth_keys=truth, max_moves=20)
    rng = random.Random(seed)
    kills = 0
    steps = list(rig.player.steps()) + list(rig.player.finish())
    shown: list[dict] = []  # every verdict some incarnation produced (what the lights showed)
    for step in steps:
        if rng.random() < 0.3:
            # a power cut between two frames, or inside the lights right after a journal commit
            shown.extend(v.to_json() for v in rig.loop.verdicts)
            rig.restart(die_at=rng.choice([None, 2, 3, 4]) if rng.random() < 0.5 else None)
            kills += 1
        try:
            rig.driver.do(step)
        except Killed:
            shown.extend(v.to_json() for v in rig.loop.verdicts)
            rig.restart()
            kills += 1
            rig.driver.run_frames(round(rig.player.still * rig.driver.fps))
    shown.extend(v.to_json() for v in rig.loop.verdicts)
    assert kills >= 3
    journal = Journal(tmp_path / "killed.sqlite")
    resumed = GameSession.replay(journal, journal.latest_game().id)
    assert resumed.verdicts == whole.loop.session.verdicts
    assert resumed.referee.state == whole.loop.session.referee.state
    assert resumed.referee.to_move() == whole.loop.session.referee.to_move()
    # no verdict shown twice, none lost (reveals are not lights verdicts)
    assert shown == [v for v in whole.loop.session.verdicts if v["verdict"] != "reveal"]


@pytest.mark.parametrize("game", list(GAMES))
@pytest.mark.slow
def test_export_replays_identically(game, tmp_path):
    rig = _uninterrupted(game, tmp_path, seed=5, max_moves=15)
    text = export_record(rig.loop.session.journal)
    lines = list(judge_record(parse_record(text)))
    wanted = [v for v in rig.loop.session.verdicts if v["verdict"] != "reveal"]
    assert lines[:-1] == wanted
    assert lines[-1]["result"] == rig.loop.session.referee.result().to_json()


def test_new_game_closes_the_old_game_and_judges_the_board_again(tmp_path):
    keys, _ = GAMES["flipop"]
    rig = StubRig(keys, tmp_path / "j.sqlite", seed=1, troubles=False, max_moves=2)
    rig.driver.run(rig.player.steps())
    first = rig.loop.session.game_id
    future = rig.loop.submit("new-game")
    rig.driver.run_frames(60)  # an invalid setup is called after the patience time
    assert future.result()["game_id"] != first
    journal = rig.loop.session.journal
    assert journal.entries(first)[-1].payload == "new-game"
    assert not journal.game(first).open
    # the board left on the table is judged as the new game's setup (not the start layout: invalid)
    assert rig.loop.session.verdicts[0]["verdict"] == "setup-invalid"
    assert "new-game" in export_record(journal, first)


def test_a_journal_with_another_setup_starts_a_new_game(tmp_path):
    path = tmp_path / "j.sqlite"
    rig = StubRig(GAMES["flipop"][0], path, seed=1, troubles=False, max_moves=2)
    rig.driver.run(rig.player.steps())
    journal = Journal(path)
    session, how = GameSession.open(
        journal,
        {"game": "colorpop", "players": 2},
        rig.setup.__class__(
            game="colorpop",
            profile=__import__("controller.profile", fromlist=["x"]).default_profile("colorpop"),
            players=2,
        ),
    )
    assert "another setup" in how
    assert not journal.game(rig.loop.session.game_id).open
    assert session.game_id != rig.loop.session.game_id


def test_a_game_set_up_at_the_table_resumes_after_a_restart(tmp_path):
    """The live page may start a game with other seats or players than config.yaml; a restart
    resumes that game (the players' choice), not the config's."""
    from controller.record import setup_from_mapping
    from simulation.world import StubRig

    keys = {"game": "flipop", "players": 2}
    rig = StubRig(keys, tmp_path / "j.sqlite", seed=3, troubles=False, max_moves=2)
    rig.driver.run_frames(30)
    chosen = {"game": "flipop", "players": 2, "first": 1}
    future = rig.loop.submit("new-game", keys=chosen, setup=setup_from_mapping(chosen, "test"))
    rig.driver.run_frames(1)
    game_id = future.result(timeout=5)["game_id"]
    rig.driver.run_frames(30)  # the board in front of the camera is judged as the new game's setup
    assert rig.loop.session.setup.first == 1
    loop = rig.restart()
    assert loop.session.game_id == game_id and loop.session.setup.first == 1
