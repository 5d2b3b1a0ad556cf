"""Two "new game" presses close together on the simulated rig never leave the table stuck on a false "illegal".

After a new game the players set up a new starting board. The referee takes the board in front of
the camera as the new game's setup once it is still; when the second press comes before anyone
has moved, the players' next starting board must be taken as a new setup, not judged as a move.
"""

from __future__ import annotations

import pytest

from simulation.world import SimTable, StubRig

pytestmark = pytest.mark.slow  # every test here takes seconds


def _play(rig: StubRig, table: SimTable, seconds: float, *, move_every: float = 2.0, until=None) -> None:
    """The simulated players of `referee run` (`play_in_background`), in simulated time."""
    clock = rig.clock
    end = clock.now + seconds
    while clock.now < end:
        if clock.now >= table.next_at:
            step = next(table.running)
            if step is None:
                table.next_at = clock.now + 0.2
            else:
                if step.apply is not None:
                    step.apply(rig.world)
                table.next_at = clock.now + 2 * step.hold + (move_every if step.intended is not None else 0.0)
        rig.driver.run_frames(1)
        if until is not None and until():
            return
    assert until is None, "the awaited state never came"


def _new_game(rig: StubRig) -> None:
    future = rig.loop.submit("new-game")
    rig.driver.run_frames(1)
    assert future.result(timeout=5)["ok"]


@pytest.mark.parametrize(
    ("keys", "seed"),
    [
        ({"game": "colorpop", "players": 3}, 0),
        ({"game": "colorpop", "players": 2}, 7),
        ({"game": "stay-alive", "players": 2, "seats": ["B", "Y"]}, 1),
    ],
)
def test_two_new_games_two_seconds_apart_never_stick_the_table(tmp_path, keys, seed):
    rig = StubRig(keys, tmp_path / "j.sqlite", seed=seed, troubles=False)
    table = SimTable(rig.world, rig.setup, lambda: rig.loop.session, seed=seed, settle_time=0.3)
    table.running, table.next_at = table.steps(), rig.clock.now
    _play(rig, table, 20.0)
    assert rig.loop.session.referee.started
    _new_game(rig)
    # the players set up a new board (a few seconds later) and the referee accepts it; the second
    # press comes before anyone has moved
    _play(rig, table, 10.0, until=lambda: rig.loop.session.referee.started)
    _new_game(rig)
    game = rig.loop.session.game_id
    _play(rig, table, 40.0)
    session = rig.loop.session
    kinds = [v["verdict"] for v in session.verdicts]
    assert session.game_id == game
    assert not session.referee.in_illegal, session.verdicts[-3:]
    assert "illegal" not in kinds, session.verdicts
    assert kinds.count("legal") >= 3, kinds
