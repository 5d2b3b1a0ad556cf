"""Property tests of the Colorpop engine, and a differential test against a plain SameGame model."""

from __future__ import annotations

import random
from collections import Counter

from colorpop_helpers import engine, random_board
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.games.colorpop import remove_cells
from controller.referee import Referee
from controller.snapshot import Snapshot

seeds = st.integers(min_value=0, max_value=2**32 - 1)


def random_position(rng: random.Random, jokers: int = 5):
    eng = engine(players=rng.randint(2, 5))
    state = eng.start(random_board(rng, jokers))
    for _ in range(rng.randrange(0, 25)):
        moves = eng.legal_moves(state)
        if not moves:
            break
        state, _ = eng.apply(state, rng.choice(moves))
    return eng, state


@settings(max_examples=40, deadline=None)
@given(seeds)
def test_every_legal_move_result_is_judged_legal_for_the_seat_to_move(seed):
    rng = random.Random(seed)
    eng, state = random_position(rng)
    for move in eng.legal_moves(state):
        after = Snapshot("colorpop", remove_cells(state.board, move.cells))
        j = eng.judge(state, after)
        assert j.kind == "legal", (move, j.reason)
        assert j.seat == state.to_move
        assert j.state.board == after.cells


@settings(max_examples=40, deadline=None)
@given(seeds)
def test_a_strict_part_of_a_group_is_pending(seed):
    rng = random.Random(seed)
    eng, state = random_position(rng)
    moves = [m for m in eng.legal_moves(state) if len(m.cells) >= 2]
    if not moves:
        return
    move = rng.choice(moves)
    cells = sorted(move.cells)
    part = frozenset(rng.sample(cells, rng.randrange(1, len(cells))))
    after = Snapshot("colorpop", remove_cells(state.board, part))
    # With jokers, part of a group may itself be a complete group (the jokers are optional), or
    # leave the very board another group leaves (two jokers in one slide look alike once fallen).
    itself_legal = any(remove_cells(state.board, m.cells) == after.cells for m in eng.legal_moves(state))
    assert eng.judge(state, after).kind == ("legal" if itself_legal else "pending")


@settings(max_examples=60, deadline=None)
@given(seeds)
def test_single_cell_corruptions_of_a_legal_result_are_illegal(seed):
    rng = random.Random(seed)
    eng, state = random_position(rng)
    moves = eng.legal_moves(state)
    if not moves:
        return
    move = rng.choice(moves)
    result = [list(row) for row in remove_cells(state.board, move.cells)]
    # A colour the move did not take: one more of it than before cannot come from any removal.
    foreign = [ch for ch in "GYOBPJ" if ch not in dict(move.counts)]
    colour = rng.choice(foreign)
    filled = [(r, c) for r in range(10) for c in range(10) if result[r][c] != "." and result[r][c] != colour]
    tops = [(r, c) for c in range(10) for r in range(1, 10) if result[r][c] != "." and result[r - 1][c] == "."]
    if rng.random() < 0.5 and filled:
        r, c = rng.choice(filled)  # a token seen in the wrong colour
        result[r][c] = colour
    elif tops:
        r, c = rng.choice(tops)  # a token put on top of a slide
        result[r - 1][c] = colour
    else:
        return
    j = eng.judge(state, Snapshot("colorpop", tuple(tuple(row) for row in result)))
    assert j.kind == "illegal"
    assert j.cells


@settings(max_examples=15, deadline=None)
@given(seeds)
def test_replays_are_deterministic(seed):
    rng = random.Random(seed)
    eng = engine(players=3)
    start = random_board(rng)
    state = eng.start(start)
    boards = []
    for _ in range(30):
        moves = eng.legal_moves(state)
        if not moves:
            break
        state, _ = eng.apply(state, rng.choice(moves))
        boards.append(Snapshot("colorpop", state.board))

    def replay():
        ref = Referee(engine(players=3))
        ref.state = ref.engine.start(start)
        return [ref.observe(b).to_json() for b in boards], ref.state, ref.result()

    assert replay() == replay()


# --------------------------------------------------------------------------- differential
# A deliberately plain SameGame: groups are same-colour flood fills of two or more tokens.

def plain_groups(grid: list[list[str]]) -> list[frozenset]:
    seen, groups = set(), []
    for r in range(10):
        for c in range(10):
            if grid[r][c] == "." or (r, c) in seen:
                continue
            colour, stack, group = grid[r][c], [(r, c)], {(r, c)}
            while stack:
                y, x = stack.pop()
                for ny, nx in ((y + 1, x), (y - 1, x), (y, x + 1), (y, x - 1)):
                    if 0 <= ny < 10 and 0 <= nx < 10 and (ny, nx) not in group and grid[ny][nx] == colour:
                        group.add((ny, nx))
                        stack.append((ny, nx))
            seen |= group
            if len(group) >= 2:
                groups.append(frozenset(group))
    return groups


def plain_remove(grid: list[list[str]], group: frozenset) -> list[list[str]]:
    columns = []
    for c in range(10):
        kept = [grid[r][c] for r in range(10) if grid[r][c] != "." and (r, c) not in group]
        if kept:
            columns.append(["."] * (10 - len(kept)) + kept)
    columns += [["."] * 10] * (10 - len(columns))
    return [[columns[c][r] for c in range(10)] for r in range(10)]


@settings(max_examples=40, deadline=None)
@given(seeds)
def test_engine_agrees_with_a_plain_samegame_model(seed):
    rng = random.Random(seed)
    eng = engine(players=2)
    grid = [list(row) for row in random_board(rng, jokers=0).cells]
    state = eng.start(Snapshot("colorpop", tuple(tuple(r) for r in grid)))
    while True:
        groups = plain_groups(grid)
        assert {m.cells for m in eng.legal_moves(state)} == set(groups)
        if not groups:
            assert eng.is_over(state) or state.moves_made == 0
            break
        group = rng.choice(groups)
        grid = plain_remove(grid, group)
        j = eng.judge(state, Snapshot("colorpop", tuple(tuple(r) for r in grid)))
        assert j.kind == "legal"
        state = j.state
        assert [list(r) for r in state.board] == grid
        left = Counter(v for row in grid for v in row)
        assert sum(n for ch, n in left.items() if ch != ".") == sum(
            1 for row in state.board for v in row if v != "."
        )
