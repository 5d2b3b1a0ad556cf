"""The Flipop ceiling solver (`bench/flipop_ceiling.py`) on positions small enough to check otherwise."""

from __future__ import annotations

import numpy as np
import pytest

from bench.flipop_ceiling import (
    OVER,
    UNEXPLORED,
    Keys,
    explore,
    frontier_bounds,
    seat0_score,
    settle,
    solve,
    whole_game_bounds,
)
from controller.games.registry import engine_for
from controller.games.spec import Snapshot
from controller.record import setup_from_mapping

PERFECT, WHITE_V_RANDOM, BLACK_V_RANDOM = ("max", "min"), ("max", "mean"), ("mean", "min")


@pytest.fixture(scope="module")
def engine():
    return engine_for(setup_from_mapping({"game": "flipop", "players": 2}))


def position(engine, rows: str, to_move: int, banned=(), doors=None):
    balls = tuple(tuple(row.split()) for row in rows.strip().splitlines())
    snapshot = Snapshot("flipop", balls, {"doors": doors or engine.start_board.line("doors")})
    return engine.position(snapshot, to_move=to_move, banned=banned)


def mid_game(engine):
    """Ply 15 of a random game: Black to move, where perfect play and each seat against random
    give three different values."""
    return position(
        engine,
        "B . B B B\nW . . . .\n. . . . .\nW . . . B\n. W W . W",
        to_move=1,
        banned=[((4, 2), "E")],
        doors=("E", "E", "N", "E", "N", "NS", "EW", "S", "N", "EW", "NS", "S", "N", "S", "W", "W"),
    )


def naive(engine, state, plies: int, best) -> float:
    """Seat 0's score by plain recursion over the engine's moves: the yardstick for `solve`."""
    if engine.is_over(state) or plies == 0:
        return seat0_score(engine, state)
    values = [naive(engine, engine.apply(state, move)[0], plies - 1, best) for move in engine.legal_moves(state)]
    how = best[engine.to_move(state)]
    return max(values) if how == "max" else min(values) if how == "min" else sum(values) / len(values)


def test_a_last_ball_pushed_out_wins_whoever_plays(engine) -> None:
    # White's last ball at (1,1) has one push: north through the east wing of post (0,0), which
    # turns to point north and puts the ball on (0,1), White's exit: White wins at once.
    state = position(engine, ". . . . .\n. W . . .\n. . . . .\n. . . . B\n. . . . .", to_move=0)
    assert engine.legal_moves(state) == [((1, 1), "N")]
    graph = explore(engine, state)
    assert graph.complete and graph.size == 2 and list(graph.mover) == [0, OVER]
    for best in (PERFECT, WHITE_V_RANDOM, BLACK_V_RANDOM):
        assert solve(graph, 0, best)[0] == 0.5  # cut before any move: one ball each, a draw
        assert solve(graph, 1, best)[0] == 1.0
        assert solve(graph, 200, best)[0] == 1.0


def test_values_match_plain_recursion_on_a_mid_game_position(engine) -> None:
    state = mid_game(engine)
    graph = explore(engine, state, limit=4000)
    found = {}
    for best in (PERFECT, WHITE_V_RANDOM, BLACK_V_RANDOM):
        for plies in (1, 2, 4):
            expected = naive(engine, state, plies, best)
            assert solve(graph, plies, best)[0] == pytest.approx(expected, abs=1e-12)
        found[best] = expected
    assert len(set(found.values())) == 3  # perfect play, and each seat against random, differ here
    assert 0 < found[WHITE_V_RANDOM] < 1


def test_a_cut_short_exploration_bounds_the_exact_values(engine) -> None:
    state = mid_game(engine)
    whole = explore(engine, state, limit=4000)
    part = explore(engine, state, limit=300)
    assert not part.complete and (part.mover == UNEXPLORED).any()
    for best in (PERFECT, WHITE_V_RANDOM, BLACK_V_RANDOM):
        exact = solve(whole, 6, best)[0]
        assert solve(part, 6, best, unexplored=0.0)[0] <= exact + 1e-12
        assert solve(part, 6, best, unexplored=1.0)[0] >= exact - 1e-12
    at_cut, steady_after, _value = settle(whole, PERFECT, 6, most=400)
    assert at_cut == solve(whole, 6, PERFECT)[0]


def test_the_first_plies_alone_give_the_values_of_the_game_ended_there(engine) -> None:
    state = mid_game(engine)
    shallow = explore(engine, state, plies=3)
    assert not shallow.complete and shallow.depth == 3
    for best in (PERFECT, WHITE_V_RANDOM, BLACK_V_RANDOM):
        for plies in (1, 2, 3):
            assert solve(shallow, plies, best, unexplored=None)[0] == pytest.approx(naive(engine, state, plies, best))


def test_a_key_gives_back_its_board(engine) -> None:
    keys = Keys(engine)
    for state in (engine.start(engine.start_board), mid_game(engine)):
        (line,) = state.lines
        assert keys.board(keys.key(state)) == (line.balls, line.doors)


def test_the_whole_game_bounds_hold_the_value_of_every_later_cut(engine) -> None:
    state = mid_game(engine)
    shallow = explore(engine, state, plies=5)
    deeper = explore(engine, state, plies=9)
    low_at, high_at = frontier_bounds(shallow, engine)
    waiting = shallow.mover == UNEXPLORED
    assert np.isnan(low_at[~waiting]).all() and np.isnan(high_at[~waiting]).all()
    fixed = low_at[waiting] == high_at[waiting]
    assert fixed.any() and (~fixed).any()  # some scores fixed, some not
    narrower = False
    for best in (PERFECT, WHITE_V_RANDOM, BLACK_V_RANDOM):
        low, high = whole_game_bounds(shallow, low_at, high_at, best)
        for cut in (5, 6, 7, 9):  # exact values of the game ended at ply `cut`
            exact = solve(deeper, cut, best, unexplored=None)[0]
            assert low - 1e-12 <= exact <= high + 1e-12
        narrower |= high - low < solve(shallow, 5, best, 1.0)[0] - solve(shallow, 5, best, 0.0)[0] - 1e-9
    assert narrower  # the dead positions' fixed scores tell more than 0 and 1


def test_a_board_that_reaches_a_live_board_is_live(engine) -> None:
    from bench.flipop_reach import dead

    state = mid_game(engine)
    (line,) = state.lines
    alone = dead(engine, line.balls, line.doors, set())
    live: set = set()
    assert dead(engine, line.balls, line.doors, set(), live=live) is alone
    if alone is False:
        assert (line.balls, line.doors) in live
        assert dead(engine, line.balls, line.doors, set(), live=live) is False


def test_a_live_position_is_bounded_by_the_balls_that_can_still_leave(engine) -> None:
    from bench.flipop_reach import dead

    # Black's ball at (3,1) leaves through post (3,0)'s east wing; White's only ball, in the corner,
    # can never leave, so White ends with 1 ball against 1 to 3: at least a draw, whatever happens
    state = position(engine, "B . . . B\n. . . . .\n. . . . .\n. B . . .\n. . . . W", to_move=0)
    (line,) = state.lines
    assert dead(engine, line.balls, line.doors, set()) is False
    graph = explore(engine, state, plies=0)
    assert graph.mover[0] == UNEXPLORED
    low, high = frontier_bounds(graph, engine, limit=0)
    assert (low[0], high[0]) == (0.5, 1.0)
