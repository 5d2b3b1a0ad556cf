"""Stay Alive's own properties: marbles that stick, the last player standing, slides.

The properties every game has (legal boards judged legal, corruptions, replays, text forms) are
in test_conformance.py, over two to four players and both two-player rules; these need Stay
Alive's rules to state.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.games.base import GameSetup
from controller.games.stay_alive.rules import EXPECTED_FALL_MISSING, SLIDES, SlideMove, StayAliveEngine, StayAliveState
from controller.profile import default_profile
from controller.snapshot import EMPTY, Snapshot
from simulation.random_play import random_move, random_position, starting_board

FAST = settings(max_examples=12, deadline=None)
seeds = st.integers(min_value=0, max_value=2**32 - 1)


def make_engine(players: int, rule: str) -> StayAliveEngine:
    profile = default_profile("stay-alive").with_overrides({"settings": {"two_player_rule": rule}})
    return StayAliveEngine(GameSetup("stay-alive", profile, players=players))


def with_slides(board: Snapshot, positions: tuple[str, ...]) -> Snapshot:
    return Snapshot(board.game, board.cells, {"orange": positions[:7], "white": positions[7:]})


def seen_after(
    engine: StayAliveEngine, state: StayAliveState, new: StayAliveState, rng: random.Random
) -> tuple[Snapshot, set[tuple[int, int]]]:
    """What the camera might see after a legal move: some falls stuck, some old ghosts gone."""
    cells = [list(row) for row in engine.expected(new).cells]
    stuck = set()
    for r in range(7):
        for c in range(7):
            if state.board[r][c] != EMPTY and new.board[r][c] == EMPTY and rng.random() < 0.2:
                cells[r][c] = state.board[r][c]
                stuck.add((r, c))
            elif cells[r][c] != EMPTY and new.board[r][c] == EMPTY and rng.random() < 0.3:
                cells[r][c] = EMPTY  # an old stuck marble finally dropped
    return engine.expected(new).with_cells(cells), stuck


@FAST
@given(seed=seeds, players=st.integers(2, 4), rule=st.sampled_from(["own_twice", "lift_ban"]))
@pytest.mark.slow
def test_random_games_with_stuck_marbles_are_judged_legal_to_the_last_player_standing(seed, players, rule):
    """Specific: a marble that should have fallen may stick and drop later; the referee takes the
    move, says which marbles it expected to fall, and blames nobody when they drop. The last
    player with marbles wins (if nobody has any, the one who made the last move)."""
    rng = random.Random(seed)
    engine = make_engine(players, rule)
    state = engine.start(starting_board(engine.setup, rng))
    while (move := random_move(engine, state, rng)) is not None:
        seat = engine.to_move(state)
        new, events = engine.apply(state, move)
        seen, stuck = seen_after(engine, state, new, rng)
        judgement = engine.judge(state, seen)
        assert judgement.kind == "legal" and judgement.seat == seat
        assert judgement.state.board == new.board and judgement.state.winners == new.winners
        assert {e.cell for e in judgement.events if e.kind == EXPECTED_FALL_MISSING.kind} == stuck
        assert engine.judge(judgement.state, seen).kind == "unchanged"
        state = judgement.state
    result = engine.result(state)
    assert result.finished and len(result.winners) == 1
    alive = [s for s, left in enumerate(result.scores) if left]
    # the last player with marbles wins; if nobody has any, the one who made the last move
    assert list(result.winners) == (alive or [seat])


def play_random(engine: StayAliveEngine, rng: random.Random, steps: int) -> StayAliveState:
    return random_position(engine, engine.start(starting_board(engine.setup, rng)), rng, steps)


@FAST
@given(seed=seeds, players=st.integers(2, 4), steps=st.integers(0, 80))
def test_corrupted_results_of_legal_moves_are_illegal(seed, players, steps):
    """Specific: no Stay Alive move is made in steps (a marble is placed, a slide moves, at once),
    so a marble more or less on a legal move's board is never pending: illegal, naming that point."""
    rng = random.Random(seed)
    engine = make_engine(players, "own_twice")
    state = play_random(engine, rng, steps)
    if engine.is_over(state):
        return
    move = rng.choice(engine.legal_moves(state))
    new, _ = engine.apply(state, move)
    good = engine.expected(new)
    cells = [list(row) for row in good.cells]
    # marbles that were already in play and stay in play (taking the one just placed away is
    # simply the last legal board again)
    marbles = [(r, c) for r in range(7) for c in range(7) if new.board[r][c] != EMPTY and state.board[r][c] != EMPTY]
    # empty points where no marble was before the move (one seen where a marble just fell is a
    # marble stuck on its way down: legal)
    empties = [(r, c) for r in range(7) for c in range(7) if cells[r][c] == EMPTY and state.board[r][c] == EMPTY]
    corrupt = rng.choice(["remove", "add"] if marbles else ["add"])
    if corrupt == "remove":
        r, c = rng.choice(marbles)
        cells[r][c] = EMPTY
    else:
        r, c = rng.choice(empties)
        cells[r][c] = rng.choice(engine.seats)
    judgement = engine.judge(state, good.with_cells(cells))
    assert judgement.kind == "illegal", (corrupt, (r, c), judgement)
    assert judgement.reason and (r, c) in judgement.cells


@FAST
@given(seed=seeds, players=st.integers(2, 4), steps=st.integers(0, 80), rule=st.sampled_from(["own_twice", "lift_ban"]))
def test_random_illegal_slide_changes_are_illegal(seed, players, steps, rule):
    """Specific: any change of the slides that no legal slide move makes is illegal."""
    rng = random.Random(seed)
    engine = make_engine(players, rule)
    state = play_random(engine, rng, steps)
    if engine.is_over(state):
        return
    positions = engine.positions(state)
    legal_results = {
        engine.positions(engine.apply(state, m)[0]) for m in engine.legal_moves(state) if isinstance(m, SlideMove)
    }
    for _ in range(20):
        changed = list(positions)
        for slide in rng.sample(range(SLIDES), rng.randint(1, 3)):
            changed[slide] = rng.choice("ABC")
        changed_t = tuple(changed)
        if changed_t == positions or changed_t in legal_results:
            continue
        seen = with_slides(engine.expected(state), changed_t)
        judgement = engine.judge(state, seen)
        assert judgement.kind == "illegal" and judgement.reason, (changed_t, judgement)
