"""The over-approximation of where Flipop balls can go (`bench/flipop_bound.py`) against exhaustive search."""

from __future__ import annotations

import pytest
from flipop_helpers import random_boards

from bench.flipop_bound import _INDEX, Reach
from bench.flipop_ceiling import UNEXPLORED, Keys, explore
from bench.flipop_reach import dead
from controller.games.flipop import doors as doors_model
from controller.games.registry import engine_for
from controller.games.spec import Snapshot
from controller.record import setup_from_mapping

#: Boards each exhaustive search may go through.
LIMIT = 1500


@pytest.fixture(scope="module")
def engine():
    return engine_for(setup_from_mapping({"game": "flipop", "players": 2}))


def opening_boards(engine) -> list:
    """The boards of the positions 6 plies into a mid-game position (`flipop_ceiling`'s frontier)."""
    balls = tuple(tuple(r.split()) for r in "B . B B B\nW . . . .\n. . . . .\nW . . . B\n. W W . W".splitlines())
    doors = ("E", "E", "N", "E", "N", "NS", "EW", "S", "N", "EW", "NS", "S", "N", "S", "W", "W")
    state = engine.position(Snapshot("flipop", balls, {"doors": doors}), to_move=1, banned=[((4, 2), "E")])
    graph = explore(engine, state, plies=6)
    keys = Keys(engine)
    out = []
    for n in range(0, graph.size, 7):
        if graph.mover[n] == UNEXPLORED:
            first, middle, last = (int(v) for v in graph.keys[n])
            out.append(keys.board((last << 128) | (middle << 64) | first))
    return out


def reachable(engine, balls, doors, limit: int) -> list:
    """Boards pushes of either colour reach from this one, in any order (balls leaving included), up
    to `limit`: every one of them is reachable, so each must lie inside the over-approximation."""
    seen = {(balls, doors)}
    todo = [(balls, doors)]
    while todo and len(seen) < limit:
        here, turned = todo.pop()
        for colour in engine.colours:
            for cell, direction in doors_model.pushable(here, turned, colour):
                result = doors_model.legal_push(here, turned, cell, direction, engine.exits)
                if result is not None and (result.balls, result.doors) not in seen:
                    seen.add((result.balls, result.doors))
                    todo.append((result.balls, result.doors))
    return list(seen)


def inside(reach: Reach, engine, board, limit: int = 400) -> bool:
    """Whether every board reached from `board` has each colour's balls on cells of that colour's
    sets and each door in an orientation of its set."""
    found = reach.run(*board)
    cells = {colour: set() for colour in engine.colours}
    for colour, held in zip(found.colours, found.cells):
        cells[colour] |= held
    for balls, doors in reachable(engine, *board, limit):
        for r, row in enumerate(balls):
            for c, colour in enumerate(row):
                if colour != "." and _INDEX[(r, c)] not in cells[colour]:
                    return False
        if any(door not in shown for door, shown in zip(doors, found.doors)):
            return False
    return True


def test_every_board_reached_stays_inside_the_sets(engine) -> None:
    reach = Reach(engine)
    boards = random_boards(engine, 4, 6, 60) + opening_boards(engine)[:15]
    assert len(boards) > 30
    for board in boards:
        assert inside(reach, engine, board)


def test_a_board_proved_dead_is_never_live_and_both_answers_occur(engine) -> None:
    reach = Reach(engine)
    verdicts = []
    for board in random_boards(engine, 6, 5, 60) + opening_boards(engine)[::2]:
        proved = reach.dead(*board)
        exhaustive = dead(engine, *board, set(), limit=LIMIT)
        assert not (proved and exhaustive is False)
        verdicts.append((proved, exhaustive))
    assert (True, True) in verdicts  # proved dead, and the search agrees
    assert (False, False) in verdicts  # live boards met: a wrong "dead" could have shown
    assert sum(proved for proved, _ in verdicts) > len(verdicts) // 4  # it proves a good share


def test_leaving_out_a_rule_breaks_the_check(engine) -> None:
    """The tests above can fail: with one colour's balls never moving, or without the sweeps, the
    sets miss boards that play reaches (and call dead boards that are live)."""
    boards = random_boards(engine, 3, 6, 60)
    for unsound in (Reach(engine, moving=("W",)), Reach(engine, moving=("B",))):
        assert not all(inside(unsound, engine, board) for board in boards)
    # a board of a random game (seed 19, ply 22) where a ball swept by a turning door goes on across
    # an edge that holds no wing
    balls = tuple(tuple(r.split()) for r in ". B . . .\nB . . B .\nW B . W B\nW . . . .\n. W W . .".splitlines())
    doors = ("S", "W", "W", "W", "E", "NS", "EW", "S", "N", "EW", "NS", "W", "N", "S", "W", "S")
    assert inside(Reach(engine), engine, (balls, doors))
    assert not inside(Reach(engine, sweeps=False), engine, (balls, doors))


def test_counts_bound_the_balls_left(engine) -> None:
    reach = Reach(engine)
    # White's ball at (1,1) leaves through post (0,0)'s east wing; the black ball in the corner never moves
    balls = tuple(tuple(r.split()) for r in ". . . . .\n. W . . .\n. . . . .\n. . . . .\nB . . . .".splitlines())
    doors = tuple(engine.start_board.line("doors"))
    assert reach.counts(balls, doors) == {"W": (0, 1), "B": (1, 1)}
    assert not reach.dead(balls, doors)
    balls = tuple(tuple(r.split()) for r in ". . . . .\n. . . . .\n. . . . .\n. . . . .\nB . . . .".splitlines())
    assert reach.dead(balls, doors)
