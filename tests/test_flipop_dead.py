"""The fast dead-board check (`bench/flipop_dead.py`) against the exhaustive one of `bench/flipop_reach.py`."""

from __future__ import annotations

import random

import pytest
from flipop_helpers import random_boards

from bench.flipop_dead import DeadCheck
from bench.flipop_reach import dead
from controller.games.registry import engine_for
from controller.record import setup_from_mapping

#: Boards each exhaustive check may go through: enough to settle most boards of random games.
LIMIT = 3000


@pytest.fixture(scope="module")
def engine():
    return engine_for(setup_from_mapping({"game": "flipop", "players": 2}))


def test_the_fast_check_never_calls_dead_a_board_the_exhaustive_one_finds_live(engine) -> None:
    check = DeadCheck(engine, LIMIT)
    verdicts = []
    for balls, doors in random_boards(engine, 8, 4, 41):
        fast = check.check(balls, doors)
        slow = dead(engine, balls, doors, set(), limit=LIMIT)
        verdicts.append((fast, slow))
        assert not (fast is True and slow is False)
        assert not (fast is False and slow is True)
    settled = [fast for fast, slow in verdicts if fast is not None and slow is not None]
    assert True in settled and False in settled  # both kinds met, so the comparison can fail


def test_every_board_kept_dead_or_live_is_so(engine) -> None:
    check = DeadCheck(engine, LIMIT)
    for balls, doors in random_boards(engine, 6, 5, 41):
        check.check(balls, doors)
    assert check.dead and check.live
    rng = random.Random(0)
    for board in rng.sample(sorted(check.dead), min(15, len(check.dead))):
        assert dead(engine, *board, set(), limit=LIMIT) is not False
    for board in rng.sample(sorted(check.live), min(15, len(check.live))):
        assert dead(engine, *board, set(), limit=LIMIT) is not True


def test_a_ball_at_its_exit_door_is_live_and_a_locked_board_dead(engine) -> None:
    doors = engine.start_board.line("doors")
    # White's ball at (1,1) pushes north through post (0,0)'s east wing onto (0,1), its exit
    balls = tuple(tuple(row.split()) for row in ". . . . .\n. W . . .\n. . . . .\n. . . . B\n. . . . .".splitlines())
    assert DeadCheck(engine).check(balls, tuple(doors)) is False
    # no ball at all but one black ball in a corner with no wing beside it: nothing can move
    balls = tuple(tuple(row.split()) for row in "B . . . .\n. . . . .\n. . . . .\n. . . . .\n. . . . .".splitlines())
    assert DeadCheck(engine).check(balls, tuple(doors)) is True


def test_a_board_too_large_to_search_quickly_is_proved_dead_at_once(engine) -> None:
    # a board of a random game whose reachable boards number between 300 and 1,000 (the search
    # below gives up after 100): the over-approximation (`flipop_bound.Reach`) proves it without them
    balls = tuple(tuple(r.split()) for r in "B . B B B\n. . . . .\n. . . . B\n. W W . W\n. . . . W".splitlines())
    doors = ("N", "E", "N", "E", "E", "NS", "EW", "S", "N", "EW", "NS", "E", "E", "N", "S", "E")
    assert DeadCheck(engine, 100, bound=False).check(balls, doors) is None
    check = DeadCheck(engine, 100)
    assert check.check(balls, doors) is True and check.bounded == 1
    assert dead(engine, balls, doors, set(), limit=LIMIT) is True
