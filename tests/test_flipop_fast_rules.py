"""Flipop's rules engine lists the same moves with the same outcomes as the full door model did.

The engine pushes with `doors.legal_push` (a flat board, each door's turn planned once, no words
for an illegal push) and works out the line a move leads to (whether the next seat must pass) only
when asked: a computer player's search lists thousands of moves a move. Both must change nothing.
The reference here is the engine as it was before (session 8): every push the full model `push`
allows, each followed at once by the next seat's passes, written again from the rules (rules.md §3)
so that it does not share the code it checks. It is compared with the engine on random games of
random layouts of every door shape (single, straight, right-angled, three and four wings), random
exits and start boards, either seat order and either first seat, and on the default profile; some
positions are reached by judging a board whose doors were not read (several candidate lines).
"""

from __future__ import annotations

import random

import pytest

from controller.games.base import GameSetup
from controller.games.events import GameEvent
from controller.games.flipop.doors import (
    DIRECTIONS,
    OPPOSITE,
    POSTS,
    Problem,
    PushOutcome,
    edge_between,
    legal_push,
    on_board,
    push,
    pushable,
    shared_edges,
    step,
    wing_map,
)
from controller.games.flipop.rules import EXIT, FlipopEngine, FlipopState, Line
from controller.profile import default_profile
from controller.snapshot import Snapshot

#: Every door shape: the 15 non-empty sets of wings.
SHAPES = tuple("".join(d for i, d in enumerate("NESW") if mask >> i & 1) for mask in range(1, 16))


# -- the reference: the engine before, from the full model ------------------------------------------
def reference_pushable(balls, doors, colour):
    wings = wing_map(doors)
    return [
        ((r, c), d)
        for r in range(5)
        for c in range(5)
        if balls[r][c] == colour
        for d in DIRECTIONS
        if on_board(step((r, c), d)) and edge_between((r, c), step((r, c), d)) in wings
    ]


def playing(line: Line) -> bool:
    return line.to_move is not None and all(any(colour in row for row in line.balls) for colour in "WB")


def reference_options(engine: FlipopEngine, line: Line) -> list[tuple[tuple, PushOutcome]]:
    if line.to_move is None:
        return []
    colour = engine.colours[line.to_move]
    out = []
    for move in reference_pushable(line.balls, line.doors, colour):
        if move in line.banned:
            continue
        result = push(line.balls, line.doors, move[0], move[1], engine.exits)
        if not isinstance(result, Problem):
            out.append((move, result))
    return out


def reference_settle(engine: FlipopEngine, line: Line) -> tuple[Line, tuple[GameEvent, ...]]:
    """A seat with no legal push passes (lifting the ban); two passes in a row with no ban end it."""
    events: list[GameEvent] = []
    pass_was_free = False
    for _ in range(4):
        seat = line.to_move
        if seat is None or not playing(line) or reference_options(engine, line):
            break
        free = not line.banned
        if free and pass_was_free:
            line = Line(line.balls, line.doors, None)
            break
        events.append(GameEvent.passed(seat))
        pass_was_free = free
        line = Line(line.balls, line.doors, 1 - seat)
    return line, tuple(events)


def reference_after(engine: FlipopEngine, line: Line, result: PushOutcome) -> tuple[Line, tuple[GameEvent, ...]]:
    banned = frozenset((cell, OPPOSITE[d]) for cell, d in result.displaced)
    settled, passes = reference_settle(engine, Line(result.balls, result.doors, 1 - line.to_move, banned))
    return settled, tuple(EXIT(cell) for cell in result.exits) + passes


def reference_live(state: FlipopState) -> list[Line]:
    return [] if state.agreed_end else [line for line in state.lines if playing(line)]


def reference_choices(engine: FlipopEngine, state: FlipopState):
    """(line, move, outcome) for every legal move of the seat to move, over its candidate lines."""
    live = reference_live(state)
    seat = live[0].to_move if live else None
    return [
        (line, move, result)
        for line in live
        if line.to_move == seat
        for move, result in reference_options(engine, line)
    ]


def reference_state(engine: FlipopEngine, chosen) -> tuple[FlipopState, tuple[GameEvent, ...]]:
    afters = [reference_after(engine, line, result) for line, _move, result in chosen]
    lines = sorted({after for after, _events in afters}, key=Line.sort_key)
    return FlipopState(tuple(lines)), afters[0][1]


# -- random layouts, boards and games -------------------------------------------------------------
def random_doors(rng: random.Random, sound: bool = True) -> tuple[str, ...]:
    """A door of a random shape on every post; `sound`: no two wings on one edge (as profiles must be)."""
    while True:
        doors: list[str] = []
        for _post in POSTS:
            for _try in range(30):
                door = rng.choice(SHAPES)
                if not sound or not shared_edges((*doors, door)):
                    doors.append(door)
                    break
            else:
                break
        if len(doors) == len(POSTS):
            return tuple(doors)


def random_engine(rng: random.Random) -> FlipopEngine:
    """A layout the rules allow: random doors, start board, exits, seat order and first seat."""
    cells = [(r, c) for r in range(5) for c in range(5)]
    grid = [["."] * 5 for _ in range(5)]
    for colour in "WB":
        for r, c in rng.sample([cell for cell in cells if grid[cell[0]][cell[1]] == "."], rng.randint(1, 6)):
            grid[r][c] = colour
    start = "\n".join(" ".join(row) for row in grid) + "\ndoors: " + " ".join(random_doors(rng)) + "\n"
    exits = {colour: [list(cell) for cell in rng.sample(cells, rng.randint(1, 4))] for colour in "WB"}
    profile = default_profile("flipop").with_overrides({"start": start, "exits": exits})
    seats = rng.choice([("W", "B"), ("B", "W")])
    return FlipopEngine(GameSetup("flipop", profile, players=2, first=rng.randint(0, 1), seats=seats))


def default_engine(rng: random.Random) -> FlipopEngine:
    seats = rng.choice([("W", "B"), ("B", "W")])
    return FlipopEngine(GameSetup("flipop", default_profile("flipop"), first=rng.randint(0, 1), seats=seats))


def play_and_compare(engine: FlipopEngine, rng: random.Random, plies: int) -> int:
    """A random game checked against the reference at every position; the positions checked."""
    state = engine.start(engine.start_board)
    first = state.lines[0]
    assert state == FlipopState((reference_settle(engine, Line(first.balls, first.doors, engine.setup.first))[0],))
    checked = 0
    for _ply in range(plies):
        chosen = reference_choices(engine, state)
        live = reference_live(state)
        assert engine.is_over(state) == (not live)
        assert engine.to_move(state) == (live[0].to_move if live else None)
        moves = sorted({move for _line, move, _result in chosen})
        assert list(engine.legal_moves(state)) == moves
        checked += 1
        if not moves:
            break
        for move in moves:
            assert engine.apply(state, move) == reference_state(engine, [c for c in chosen if c[1] == move])
        move = rng.choice(moves)
        if rng.random() < 0.25:
            # The board after `move` judged without its doors: every line a move leaving these balls
            # may have led to stays a candidate.
            balls = engine.apply(state, move)[0].lines[0].balls
            judged = engine.judge(state, Snapshot("flipop", balls))
            assert judged.kind == "legal"
            assert judged.state == reference_state(engine, [c for c in chosen if c[2].balls == balls])[0]
            state = judged.state
        else:
            state = engine.apply(state, move)[0]
    result = engine.result(state)
    assert result.scores == reference_scores(engine, state)
    assert result.winners == (reference_winners(engine, state) if engine.is_over(state) else None)
    return checked


def reference_scores(engine: FlipopEngine, state: FlipopState) -> tuple[int, int]:
    balls = state.lines[0].balls
    return tuple(sum(row.count(colour) for row in balls) for colour in engine.colours)


def reference_winners(engine: FlipopEngine, state: FlipopState) -> tuple[int, ...]:
    """The seat whose balls are all out; else fewer balls on the board; equal is a draw."""
    scores = reference_scores(engine, state)
    emptied = [seat for seat in (0, 1) if scores[seat] == 0]
    if len(emptied) == 1:
        return tuple(emptied)
    if scores[0] == scores[1]:
        return (0, 1)
    return (0,) if scores[0] < scores[1] else (1,)


@pytest.mark.parametrize("seed", range(4))
def test_legal_push_is_the_full_models_push_on_random_boards(seed):
    """Every cell and direction of random boards (any door shapes, some with two wings on one edge,
    as a declared board may show): the same outcome for a legal push, None for every other."""
    rng = random.Random(seed)
    legal = 0
    for _board in range(150):
        doors = random_doors(rng, sound=rng.random() < 0.7)
        balls = tuple(tuple(rng.choice("WB...") for _c in range(5)) for _r in range(5))
        exits = {c: frozenset((rng.randrange(5), rng.randrange(5)) for _ in range(rng.randint(0, 3))) for c in "WB"}
        for colour in "WB":
            assert pushable(balls, doors, colour) == reference_pushable(balls, doors, colour)
        for r in range(-1, 6):
            for c in range(-1, 6):
                for d in DIRECTIONS:
                    full = push(balls, doors, (r, c), d, exits) if on_board((r, c)) else None
                    fast = legal_push(balls, doors, (r, c), d, exits)
                    if isinstance(full, PushOutcome):
                        legal += 1
                        assert fast == full, ((r, c), d, balls, doors)
                    else:
                        assert fast is None, ((r, c), d, balls, doors)
    assert legal > 500  # the boards are not all stuck


def test_the_order_of_sweeps_is_the_full_models_where_it_decides():
    """A board found among 40,000 random ones where sweeping the door's cells in the other order
    makes an illegal push legal: the order of events the module's docstring fixes must be kept."""
    balls = tuple(tuple(row.split()) for row in ("B W B W W", "W . W W W", "B . B W B", "W B . . .", "B B . B B"))
    doors = ("NS", "NSW", "NES", "NW", "ES", "N", "ES", "S", "N", "NE", "ES", "S", "NSW", "E", "ES", "NW")
    exits = {"W": frozenset(), "B": frozenset()}
    assert isinstance(push(balls, doors, (1, 3), "S", exits), Problem)
    assert legal_push(balls, doors, (1, 3), "S", exits) is None


@pytest.mark.parametrize("seed", range(6))
def test_moves_and_outcomes_are_the_references_on_random_layouts(seed):
    rng = random.Random(1000 + seed)
    checked = sum(play_and_compare(random_engine(rng), rng, 40) for _game in range(6))
    assert checked > 60


@pytest.mark.parametrize("seed", range(3))
def test_moves_and_outcomes_are_the_references_on_the_default_profile(seed):
    rng = random.Random(2000 + seed)
    checked = sum(play_and_compare(default_engine(rng), rng, 60) for _game in range(3))
    assert checked > 60
