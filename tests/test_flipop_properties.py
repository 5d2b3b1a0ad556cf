"""Flipop's own properties over random games from the default start layout (rules.md §3, §5):
doors, pushes, balls in their exits.

The properties every game has (legal boards judged legal, corruptions, replays, text forms) are
in test_conformance.py; these need Flipop's rules to state.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.games.base import GameSetup
from controller.games.flipop.doors import OPPOSITE, POSTS, PushOutcome, push, pushable, shared_edges
from controller.games.flipop.rules import EXIT, FlipopEngine, FlipopState
from controller.profile import default_profile
from controller.referee import Referee, VerdictKind
from controller.snapshot import EMPTY, Snapshot, parse_snapshot
from simulation.random_play import random_move, random_position

pytestmark = pytest.mark.slow  # every test here takes seconds

PROFILE = default_profile("flipop")
START = parse_snapshot("flipop", PROFILE.get("start"))
SETTINGS = settings(max_examples=25, deadline=None)


def new_engine() -> FlipopEngine:
    return FlipopEngine(GameSetup("flipop", PROFILE))


def flipop_position(seed: int, depth: int) -> tuple[FlipopEngine, FlipopState]:
    engine = new_engine()
    return engine, random_position(engine, engine.start(START), random.Random(seed), depth)


@SETTINGS
@given(seed=st.integers(0, 10_000), depth=st.integers(0, 30), data=st.data())
def test_a_ball_moved_by_hand_after_a_legal_move_is_illegal(seed, depth, data):
    """Specific: such a board may be pending only when some legal move takes a ball to its exit
    (the ball may still stand there); otherwise it is illegal, naming places."""
    engine, state = flipop_position(seed, depth)
    if engine.is_over(state):
        return
    move = data.draw(st.sampled_from(engine.legal_moves(state)))
    after, _ = engine.apply(state, move)
    shown = engine.expected(after)
    full = [(r, c) for r in range(5) for c in range(5) if shown.cells[r][c] != EMPTY]
    empty = [(r, c) for r in range(5) for c in range(5) if shown.cells[r][c] == EMPTY]
    (r0, c0) = data.draw(st.sampled_from(full))
    (r1, c1) = data.draw(st.sampled_from(empty))
    cells = [list(row) for row in shown.cells]
    cells[r1][c1], cells[r0][c0] = cells[r0][c0], EMPTY
    corrupted = shown.with_cells(cells)
    # A corrupted board can happen to be another legal move's result; otherwise it is illegal.
    others = {engine.expected(engine.apply(state, m)[0]).cells for m in engine.legal_moves(state)}
    judgement = engine.judge(state, Snapshot("flipop", corrupted.cells))
    if corrupted.cells in others or corrupted.cells == engine.expected(state).cells:
        assert judgement.kind in ("legal", "unchanged")
    else:
        assert judgement.kind in ("illegal", "pending")
        assert judgement.kind == "illegal" or any(
            e.kind == EXIT.kind for m in engine.legal_moves(state) for e in engine.apply(state, m)[1]
        )
        if judgement.kind == "illegal":
            assert judgement.reason and judgement.cells


@SETTINGS
@given(seed=st.integers(0, 10_000), depth=st.integers(0, 30), post=st.integers(0, 15))
def test_a_door_turned_by_hand_is_illegal(seed, depth, post):
    """Specific: doors turn only when a ball pushes them."""
    engine, state = flipop_position(seed, depth)
    before = engine.expected(state)
    doors = list(before.line("doors"))
    doors[post] = {"N": "E", "E": "S", "S": "W", "W": "N", "NS": "EW", "EW": "NS"}[doors[post]]
    judgement = engine.judge(state, Snapshot("flipop", before.cells, {"doors": doors}))
    assert judgement.kind == "illegal"


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 10_000))
def test_random_games_with_unread_doors_are_judged_legal_and_replays_agree(seed):
    """Specific: boards whose doors the camera did not read are still each move's, the referee
    carrying the doors itself (never two wings on one edge), and a replay of them agrees."""
    rng = random.Random(seed)
    engine = new_engine()
    referee = Referee(engine)
    assert referee.observe(START).verdict == VerdictKind.SETUP_OK
    shown_boards = []
    for _ in range(60):
        if referee.over:
            break
        move = random_move(engine, referee.state, rng)
        after, _ = engine.apply(referee.state, move)
        shown = engine.expected(after)
        if rng.random() < 0.3:
            shown = Snapshot("flipop", shown.cells)  # doors not read
        shown_boards.append(shown)
        verdict = referee.observe(shown)
        assert verdict.verdict == VerdictKind.LEGAL, verdict
        # The door physics never puts two wings on one edge.
        for line in referee.state.lines:
            assert not shared_edges(line.doors)
    again = Referee(new_engine())
    again.observe(START)
    for shown in shown_boards:
        again.observe(shown)
    assert again.state == referee.state
    assert [v.to_json() for v in again.history] == [v.to_json() for v in referee.history]


@SETTINGS
@given(seed=st.integers(0, 10_000), depth=st.integers(0, 30))
def test_a_push_keeps_balls_except_those_that_exit_and_bans_only_displaced_balls(seed, depth):
    """Specific: the door physics of a push (rules.md §3)."""
    engine, state = flipop_position(seed, depth)
    if engine.is_over(state):
        return
    line = state.lines[0]
    colour = engine.colours[line.to_move]
    for cell, direction in pushable(line.balls, line.doors, colour):
        result = push(line.balls, line.doors, cell, direction, engine.exits)
        if not isinstance(result, PushOutcome):
            continue
        for c in "WB":
            before = sum(row.count(c) for row in line.balls)
            after = sum(row.count(c) for row in result.balls)
            assert before - after == result.exited.count(c)
        for (r, c), moved in result.displaced:
            assert result.balls[r][c] != EMPTY and moved in OPPOSITE
        # Only the door pushed and doors of chained pushes turn; each keeps its shape.
        for post, old, new in zip(POSTS, line.doors, result.doors):
            assert len(old) == len(new), post
