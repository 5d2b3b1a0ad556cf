"""The opponent `bench/flipop_club.py` puts against the club level, on a position solved in full."""

from __future__ import annotations

import random

import pytest

from bench.flipop_ceiling import explore
from bench.flipop_club import Opening, Solver, level_player
from controller.games.registry import engine_for
from controller.record import setup_from_mapping
from tests.test_flipop_ceiling import mid_game


@pytest.fixture(scope="module")
def engine():
    return engine_for(setup_from_mapping({"game": "flipop", "players": 2}))


def test_the_solver_keeps_its_value_and_then_sets_the_most_traps(engine) -> None:
    state = mid_game(engine)
    graph = explore(engine, state, plies=6)
    opening = Opening(graph, engine)
    seat = engine.to_move(state)
    left = opening.depth - 1  # after the solver's move, at ply 0 of the graph
    sign = 1.0 if seat == 0 else -1.0
    values, traps = {}, {}
    for move, n in opening.children(engine, state):
        values[move] = opening.value(engine.apply(state, move)[0], engine, left, seat)
        traps[move] = sign * float(opening.against_random[seat][left][n])
    assert opening.value(state, engine, opening.depth, seat) == pytest.approx(max(values.values()))
    keeping = [m for m in values if values[m] == max(values.values())]
    assert len(set(values.values())) > 1 or len(set(traps.values())) > 1  # the position offers a choice
    solver = Solver(opening, level_player("strong"))
    for seed in range(5):
        move = solver.choose(engine, state, seat, None, random.Random(seed)).move
        assert move in keeping
        assert traps[move] == max(traps[m] for m in keeping)
