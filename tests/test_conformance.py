"""One conformance suite for every registered game (the four built-in ones and the test suite's fifth).

What any game must do, checked through the `Engine` interface alone, as OpenSpiel checks every
game with one test: the board a legal move leaves is judged that legal move for the seat to move;
a corrupted board is never judged legal; replays are deterministic; snapshots and verdicts survive
their text forms, and a journalled game exports to a record that judges the same.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import replace

import fifth_game
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.errors import FormatError
from controller.games import engine_for, registry
from controller.record import dump_record, parse_record, setup_from_mapping
from controller.referee import Referee, VerdictKind, judge_record
from controller.snapshot import EMPTY, Snapshot, format_snapshot, parse_snapshot
from simulation.world import starting_board

registry.register(fifth_game.SPEC)
GAMES = registry.names()
CORRUPTIONS = ("a piece added", "a piece taken off", "a piece changed colour", "two moves at once")
seeds = st.integers(min_value=0, max_value=2**32 - 1)
#: Which corruptions each game has shown, to guard that every kind occurs.
seen_corruptions: dict[str, Counter] = {g: Counter() for g in GAMES}


def _keys(game: str) -> dict:
    return dict(registry.get(game).demo) or {"game": game}


def _position(game: str, rng: random.Random, max_moves: int = 30):
    """An engine and a state reached by random legal play from a valid starting board."""
    setup = setup_from_mapping(_keys(game), "conformance")
    engine = engine_for(setup)
    board = starting_board(setup, rng)
    state = engine.start(board)
    boards = [board]
    for _ in range(rng.randrange(0, max_moves)):
        moves = list(engine.legal_moves(state))
        if not moves or engine.is_over(state):
            break
        state, _ = engine.apply(state, rng.choice(moves))
        boards.append(engine.expected(state))
    return engine, state, boards


@pytest.mark.parametrize("game", GAMES)
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=seeds)
def test_the_board_a_legal_move_leaves_is_judged_that_move(game, seed):
    rng = random.Random(seed)
    engine, state, _ = _position(game, rng)
    moves = list(engine.legal_moves(state))
    for move in rng.sample(moves, min(8, len(moves))):
        after, events = engine.apply(state, move)
        board = engine.expected(after)
        judgement = engine.judge(state, board)
        assert judgement.kind == "legal", (engine.describe(state, move), judgement.reason)
        assert judgement.seat == engine.to_move(state)
        # several moves may leave the same board (an unread door): any of them will do
        assert engine.expected(judgement.state) == board


def _corrupt(engine, state, rng: random.Random, kind: str | None = None):
    """A board no single legal move leaves, and which corruption made it (None if none could be made)."""
    board = engine.expected(state)
    letters = engine.profile.letters
    cells = [(r, c) for r in range(board.rows) for c in range(board.cols)]
    empty = [x for x in cells if board.cells[x[0]][x[1]] == EMPTY]
    full = [x for x in cells if board.cells[x[0]][x[1]] != EMPTY]
    kind = kind or rng.choice(CORRUPTIONS)
    grid = [list(row) for row in board.cells]
    if kind == "a piece added" and empty:
        r, c = rng.choice(empty)
        grid[r][c] = rng.choice(sorted(_pieces(engine, state)))
    elif kind == "a piece taken off" and full:
        r, c = rng.choice(full)
        grid[r][c] = EMPTY
    elif kind == "a piece changed colour" and full:
        r, c = rng.choice(full)
        old = grid[r][c]
        others = [x for x in letters if x != old[0]]
        grid[r][c] = rng.choice(others) + old[1:]
    elif kind == "two moves at once":
        moves = list(engine.legal_moves(state))
        if not moves:
            return None, None
        mid, _ = engine.apply(state, rng.choice(moves))
        seconds = list(engine.legal_moves(mid)) if not engine.is_over(mid) else []
        if not seconds:
            return None, None
        end, _ = engine.apply(mid, rng.choice(seconds))
        corrupted = engine.expected(end)
    else:
        return None, None
    if kind != "two moves at once":
        corrupted = board.with_cells(grid)
    legal_results = set()
    for move in engine.legal_moves(state):
        after, _ = engine.apply(state, move)
        legal_results.add(engine.expected(after))
    if corrupted == board or corrupted in legal_results:
        return None, None
    try:  # a board the sensors could report: it must survive its text form
        parse_snapshot(board.game, format_snapshot(corrupted), letters=letters)
    except FormatError:
        return None, None
    return corrupted, kind


def _pieces(engine, state) -> set[str]:
    """What a place may hold in this game: pieces on the board or put there by a legal move."""
    seen = {cell for row in engine.expected(state).cells for cell in row if cell != EMPTY}
    for move in list(engine.legal_moves(state))[:20]:
        after, _ = engine.apply(state, move)
        seen |= {cell for row in engine.expected(after).cells for cell in row if cell != EMPTY}
    return seen or set(engine.profile.letters)


@pytest.mark.parametrize("game", GAMES)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=seeds)
def test_a_corrupted_board_is_never_judged_legal(game, seed):
    rng = random.Random(seed)
    engine, state, _ = _position(game, rng)
    if engine.is_over(state):
        return
    corrupted, kind = _corrupt(engine, state, rng)
    if corrupted is None:
        return
    judgement = engine.judge(state, corrupted)
    assert judgement.kind in ("illegal", "pending"), (kind, format_snapshot(corrupted))
    if judgement.kind == "illegal":
        assert judgement.reason  # a sentence says what is wrong
    seen_corruptions[game][kind] += 1


def test_every_kind_of_corruption_occurred():
    """Guard for the test above: it is not passing by never making a corruption of some kind."""
    for game in GAMES:
        rng = random.Random(7)
        for attempt in range(120):
            wanted = [k for k in CORRUPTIONS if not seen_corruptions[game][k]]
            if not wanted:
                break
            engine, state, _ = _position(game, rng, max_moves=8)
            if not engine.is_over(state):
                corrupted, kind = _corrupt(engine, state, rng, wanted[attempt % len(wanted)])
                if corrupted is not None:
                    assert engine.judge(state, corrupted).kind in ("illegal", "pending"), (game, kind)
                    seen_corruptions[game][kind] += 1
        missing = [k for k in CORRUPTIONS if not seen_corruptions[game][k]]
        assert not missing, f"{game}: no corruption of kind {missing}"


def _record_text(game: str, seed: int) -> str:
    rng = random.Random(seed)
    engine, _, boards = _position(game, rng, max_moves=20)
    return dump_record(engine.setup, boards[0], boards[1:])


@pytest.mark.parametrize("game", GAMES)
def test_replays_are_deterministic_and_every_move_of_a_played_record_is_legal(game):
    text = _record_text(game, seed=11)
    first = list(judge_record(parse_record(text)))
    second = list(judge_record(parse_record(text)))
    assert first == second
    kinds = {line["verdict"] for line in first[:-1]}
    assert kinds <= {VerdictKind.SETUP_OK.value, VerdictKind.LEGAL.value}, kinds


@pytest.mark.parametrize("game", GAMES)
def test_snapshots_and_records_survive_their_text_forms(game):
    rng = random.Random(5)
    engine, _, boards = _position(game, rng, max_moves=15)
    letters = engine.profile.letters
    for board in boards:
        assert parse_snapshot(game, format_snapshot(board), letters=letters) == board
    text = dump_record(engine.setup, boards[0], boards[1:])
    record = parse_record(text)
    assert record.board == boards[0] and list(record.observations) == boards[1:]


@pytest.mark.parametrize("game", GAMES)
def test_a_journalled_game_exports_to_a_record_that_judges_the_same(game, tmp_path):
    from controller.service.session import export_record
    from simulation.world import StubRig

    rig = StubRig(_keys(game), tmp_path / "j.sqlite", seed=4, troubles=True, max_moves=12)
    rig.driver.run(rig.player.steps())
    session = rig.loop.session
    text = export_record(session.journal, session.game_id)
    lines = [line for line in judge_record(parse_record(text)) if "result" not in line]
    assert lines == session.verdicts


@pytest.mark.parametrize("game", GAMES)
def test_a_referee_restarted_from_its_verdicts_resumes_at_the_same_state(game):
    rng = random.Random(9)
    engine, _, boards = _position(game, rng, max_moves=12)
    first = Referee(engine_for(engine.setup))
    for board in boards:
        first.observe(board)
    second = Referee(engine_for(replace(engine.setup)))
    for board in boards:
        second.observe(board)
    assert first.state == second.state and first.to_move() == second.to_move()
    assert isinstance(boards[-1], Snapshot)


@pytest.mark.parametrize("game", GAMES)
@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=seeds)
def test_a_move_reads_back_from_the_text_describe_writes(game, seed):
    rng = random.Random(seed)
    engine, state, _ = _position(game, rng)
    moves = list(engine.legal_moves(state))
    for move in rng.sample(moves, min(6, len(moves))):
        text = engine.describe(state, move)
        again = engine.parse_move(state, text)
        assert engine.describe(state, again) == text
        assert engine.apply(state, again)[0] == engine.apply(state, move)[0]
    with pytest.raises(FormatError):
        engine.parse_move(state, "no such move")


@pytest.mark.parametrize("game", GAMES)
@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=seeds)
def test_a_position_reads_back_from_its_text(game, seed):
    rng = random.Random(seed)
    engine, state, _ = _position(game, rng)
    text = engine.position_text(state)
    assert engine.parse_position(text) == state
    assert engine.position_text(engine.parse_position(text)) == text
