"""Blockers!'s own properties: scoring, the glyph rules' corruptions, unread glyphs.

The properties every game has (legal boards judged legal, corruptions, replays, positions and
moves by value) are in test_conformance.py; these need Blockers!'s rules to state.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.games.base import GameSetup
from controller.games.blockers.board import capture_splits
from controller.games.blockers.rules import BlockersEngine, BlockersState
from controller.games.events import PASS
from controller.profile import default_profile
from controller.referee import Referee
from controller.snapshot import Snapshot, empty_snapshot
from simulation.random_play import random_move, random_moves, random_position

pytestmark = pytest.mark.slow  # every test here takes seconds

SETUPS = {
    "three": ("standard", ("R", "G", "B")),
    "four": ("standard", ("Y", "V", "R", "G")),
    "five": ("standard", ("R", "G", "B", "Y", "V")),
    "two-player": ("two-player", (("R", "G"), ("B", "Y"))),
}
FAST = settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def make_engine(name: str, first: int = 0) -> BlockersEngine:
    variant, seats = SETUPS[name]
    setup = GameSetup(
        "blockers",
        default_profile("blockers"),
        variant=variant,
        players=len(seats),
        first=first % len(seats),
        seats=seats,
    )
    return BlockersEngine(setup)


def with_cell(snapshot: Snapshot, cell: tuple[int, int], value: str) -> Snapshot:
    rows = [list(r) for r in snapshot.cells]
    rows[cell[0]][cell[1]] = value
    return snapshot.with_cells(rows)


def play(eng: BlockersEngine, rng: random.Random, moves: int) -> BlockersState:
    return random_position(eng, eng.start(empty_snapshot("blockers")), rng, moves)


# -- an independent count, written without the engine's helpers -------------------------------


def count_groups(cells, colours) -> int:
    tiles = {(r, c): v[0] for r, row in enumerate(cells) for c, v in enumerate(row) if v != "."}
    seen, groups = set(), 0
    for start, colour in tiles.items():
        if colour not in colours or start in seen:
            continue
        groups += 1
        stack = [start]
        seen.add(start)
        while stack:
            r, c = stack.pop()
            for nb in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
                if tiles.get(nb) == colour and nb not in seen:
                    seen.add(nb)
                    stack.append(nb)
    return groups


@FAST
@given(seed=st.integers(0, 10**6), name=st.sampled_from(sorted(SETUPS)))
def test_random_games_are_judged_legal_throughout_and_score_as_counted(seed, name):
    """Specific: the score (groups plus the largest colour caught) and the tie-break (fewest
    tiles caught), counted here without the engine's helpers; without passes all 24 tiles of
    every colour are placed."""
    rng = random.Random(seed)
    eng = make_engine(name, first=rng.randrange(5))
    state = eng.start(empty_snapshot("blockers"))
    caught = [Counter() for _ in eng.seat_colours]
    placements = Counter()
    passes = 0
    while (move := random_move(eng, state, rng)) is not None:
        seat = eng.to_move(state)
        expected_state, events = eng.apply(state, move)
        judgement = eng.judge(state, eng.expected(expected_state))
        assert judgement.kind == "legal" and judgement.seat == seat
        old = state.board[move.cell[0]][move.cell[1]]
        if old != ".":
            caught[seat][old[0]] += 1
        placements[move.colour] += 1
        passes += sum(e.kind == PASS.kind for e in events)
        state = judgement.state
    if passes == 0:
        assert all(placements[c] == 24 for c in eng.colours)
    result = eng.result(state)
    scores = tuple(
        count_groups(state.board, eng.seat_colours[s]) + max(caught[s].values(), default=0) for s in range(eng.players)
    )
    assert result.finished and result.scores == scores
    best = min(scores)
    fewest = min(sum(caught[s].values()) for s in range(eng.players) if scores[s] == best)
    winners = tuple(s for s in range(eng.players) if scores[s] == best and sum(caught[s].values()) == fewest)
    assert result.winners == winners
    assert eng.winners(state) == winners  # as the computer's search asks it, without the sentence


def corruptions(eng: BlockersEngine, state: BlockersState, rng: random.Random):
    """(kind, snapshot) pairs of changes no rule allows, from a mid-game state."""
    seat = state.to_move
    board = state.board
    shown = eng.expected(state)
    colour = rng.choice(eng.colours_left(state, seat))
    k = eng.colour_index[colour]
    glyphs = sorted(state.available[k])
    cells = [(r, c) for r in range(9) for c in range(9)]
    out = []
    glyph = rng.choice([g for g in glyphs if g != "*"] or ["1"])
    wrong = [rc for rc in cells if board[rc[0]][rc[1]] == "." and rc not in eng.map.cells_for[glyph]]
    if wrong and glyph != "*":
        out.append(("wrong place", with_cell(shown, rng.choice(wrong), colour + glyph)))
    for rc in cells:
        here = board[rc[0]][rc[1]]
        fitting = sorted(state.available[k] & eng.map.fits[rc])
        if here == "." or not fitting:
            continue
        tile = colour + rng.choice(fitting)
        if here[0] == colour:
            out.append(("own colour", with_cell(shown, rc, tile)))
        elif capture_splits(board, rc):
            out.append(("split", with_cell(shown, rc, tile)))
    for rc in cells:
        here = board[rc[0]][rc[1]]
        if here != "." and here[0] == colour and here[1] != "?":
            free = [x for x in eng.map.cells_for[here[1]] if board[x[0]][x[1]] == "."]
            if free:
                out.append(("duplicate", with_cell(shown, rng.choice(free), here)))
    moves = eng.legal_moves(state)
    targets = sorted({m.cell for m in moves})
    if len(targets) >= 2:
        a, b = rng.sample(targets, 2)
        ma = next(m for m in moves if m.cell == a)
        mb = next(m for m in moves if m.cell == b)
        out.append(("two cells", with_cell(with_cell(shown, a, ma.tile), b, mb.tile)))
    others = [c for c in eng.colours if c not in eng.seat_colours[seat]]
    if moves and others:
        m = rng.choice(moves)
        tile = rng.choice(others) + m.glyph
        if board[m.cell[0]][m.cell[1]] != tile:
            out.append(("other seat's colour", with_cell(shown, m.cell, tile)))
    return out


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10**6), name=st.sampled_from(sorted(SETUPS)), depth=st.integers(1, 110))
def test_random_illegal_placements_are_illegal(seed, name, depth):
    """Specific: each Blockers! rule broken on its own (a glyph off its row or column, capturing
    one's own colour or splitting a group, a tile twice, another seat's colour): illegal, naming places."""
    rng = random.Random(seed)
    eng = make_engine(name)
    state = play(eng, rng, depth)
    if eng.is_over(state):
        return
    for kind, snapshot in corruptions(eng, state, rng):
        judgement = eng.judge(state, snapshot)
        assert judgement.kind == "illegal", (kind, judgement)
        assert judgement.reason and judgement.cells, kind


def test_corruptions_cover_every_kind():
    """The generator above really produces each kind of illegal change somewhere."""
    rng = random.Random(7)
    kinds = set()
    for name in SETUPS:
        for depth in (5, 40, 70, 90):
            eng = make_engine(name)
            state = play(eng, random.Random(depth), depth)
            if not eng.is_over(state):
                kinds |= {kind for kind, _ in corruptions(eng, state, rng)}
    assert kinds == {"wrong place", "own colour", "split", "duplicate", "two cells", "other seat's colour"}


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 10**6), name=st.sampled_from(sorted(SETUPS)), unread_rate=st.sampled_from([0.2, 0.5]))
def test_games_with_unread_glyphs_stay_legal_and_consistent(seed, name, unread_rate):
    """The camera misses glyphs at random: every placement is still legal, each unread tile's
    possibilities keep its true glyph, and no tile is ever counted twice."""
    rng = random.Random(seed)
    eng = make_engine(name)
    truth = eng.start(empty_snapshot("blockers"))
    seen = truth
    masked: set[tuple[int, int]] = set()
    while not eng.is_over(seen):
        truth = BlockersState(**{**truth.__dict__, "to_move": seen.to_move})
        move = random_move(eng, truth, rng)
        if move is None:
            break  # the referee cannot yet tell that this seat must pass
        truth, _ = eng.apply(truth, move)
        masked = {rc for rc in masked if rng.random() > 0.3}
        if rng.random() < unread_rate:
            masked.add(move.cell)
        rows = [list(r) for r in truth.board]
        for r, c in masked:
            if rows[r][c] != ".":
                rows[r][c] = rows[r][c][0] + "?"
        judgement = eng.judge(seen, eng.expected(truth).with_cells(rows))
        assert judgement.kind == "legal", judgement.reason
        seen = judgement.state
        for (r, c), true_tile, known in (
            ((r, c), truth.board[r][c], seen.board[r][c]) for r in range(9) for c in range(9)
        ):
            if known[1:] == "?":
                unread = next(u for u in seen.unread if u.cell == (r, c))
                assert true_tile[1] in unread.glyphs
            else:
                assert known == true_tile
        tiles = [v for row in seen.board for v in row if v != "." and v[1] != "?"]
        tiles += list(seen.captured_tiles)
        assert len(tiles) == len(set(tiles))
        assert all(u.glyphs for u in seen.unread)


def test_replays_with_unread_glyphs_are_deterministic():
    """Specific: only Blockers! carries what an unread glyph may be from move to move (the
    state's `unread` possibilities); a replay with unread glyphs must come out the same each time."""
    eng = make_engine("two-player")
    rng = random.Random(11)
    snapshots = [empty_snapshot("blockers")]
    for played in random_moves(eng, eng.start(snapshots[0]), rng):
        shown = eng.expected(played.after)
        if rng.random() < 0.2:
            r, c = rng.randrange(9), rng.randrange(9)
            if shown.cells[r][c] != ".":
                shown = with_cell(shown, (r, c), shown.cells[r][c][0] + "?")
        snapshots.append(shown)
    runs = []
    for _ in range(2):
        referee = Referee(make_engine("two-player"))
        verdicts = [referee.observe(s).to_json() for s in snapshots]
        runs.append((verdicts, referee.state, referee.result().to_json()))
    assert runs[0] == runs[1]
    assert runs[0][2]["finished"] is True
