"""Colorpop's own properties: what follows from its slides, gravity and groups.

The properties every game has (legal boards judged legal, corruptions, replays, text forms) are
in test_conformance.py; these need Colorpop's rules to state.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest
from colorpop_helpers import engine, random_board
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.games.colorpop.rules import remove_cells
from controller.snapshot import Snapshot
from simulation.random_play import random_position

pytestmark = pytest.mark.slow  # every test here takes seconds

seeds = st.integers(min_value=0, max_value=2**32 - 1)


def random_colorpop_position(rng: random.Random, jokers: int = 5):
    """2 to 5 players, a shuffled set with `jokers` jokers (valid setup or not), up to 24 random moves."""
    eng = engine(players=rng.randint(2, 5))
    return eng, random_position(eng, eng.start(random_board(rng, jokers)), rng, rng.randrange(0, 25))


@settings(max_examples=40, deadline=None)
@given(seeds)
def test_a_strict_part_of_a_group_is_pending(seed):
    """Specific: a group is taken out token by token, so part of it is a move half made."""
    rng = random.Random(seed)
    eng, state = random_colorpop_position(rng)
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
    """Specific: with gravity, a token on top of a slide or one more of a colour the move did not
    take comes from no removal, whole or half made: always illegal (never pending), naming places."""
    rng = random.Random(seed)
    eng, state = random_colorpop_position(rng)
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
    """Specific: without jokers Colorpop's groups and gravity are SameGame's; a model written
    plainly here must list the same moves and leave the same boards, to the end of the game."""
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
        assert sum(n for ch, n in left.items() if ch != ".") == sum(1 for row in state.board for v in row if v != ".")


def _brute_force_groups(eng, board) -> set[frozenset]:
    """Every removable group of `rules.md` §1 found by trying every set of places (small boards only)."""
    from controller.grid import connected_groups, neighbours

    rows, cols = len(board), len(board[0])
    tokens = [(r, c) for r in range(rows) for c in range(cols) if board[r][c] != "."]
    found = set()
    for mask in range(1, 1 << len(tokens)):
        cells = {tokens[i] for i in range(len(tokens)) if mask >> i & 1}
        if len(cells) < 2 or len(connected_groups(cells)) != 1:
            continue
        real = {board[r][c] for r, c in cells} - {"J"}
        if len(real) != 1:
            continue
        (colour,) = real
        touching = {nb for cell in cells for nb in neighbours(cell, rows, cols)} - cells
        if any(board[r][c] == colour for r, c in touching):
            continue
        found.add(frozenset(cells))
    return found


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from("GGYYBJJ."), min_size=12, max_size=12))
def test_legal_groups_are_exactly_those_the_rule_book_allows(cells):
    """The engine's groups (listed through the small graph of jokers and components) are the sets
    of places rules.md §1 allows, found by trying every set of places of a 3x4 board."""
    eng = engine()
    board = tuple(tuple(cells[r * 4 : r * 4 + 4]) for r in range(3))
    listed = [m.cells for m in eng._compute_legal_moves(board)]
    assert len(listed) == len(set(listed))
    assert set(listed) == _brute_force_groups(eng, board)
    for move in eng._compute_legal_moves(board):
        assert dict(move.counts) == dict(Counter(board[r][c] for r, c in move.cells))
