"""Corrections of an illegal board, per game: pairing by the fewest steps, words, ticking off."""

from __future__ import annotations

import itertools
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from controller.corrections import is_done, min_cost_assignment, plan, progress
from controller.games.registry import engine_for
from controller.record import setup_from_mapping
from controller.snapshot import empty_snapshot, parse_snapshot


def _engine(keys):
    return engine_for(setup_from_mapping(keys, "test"))


def _board(game: str, rows: list[str], **lines) -> str:
    head = "".join(f"{k}: {v}\n" for k, v in lines.items())
    return head + "\n".join(rows) + "\n"


def test_colorpop_a_token_moved_is_one_move_back_and_a_lone_token_is_put_back():
    engine = _engine({"game": "colorpop", "players": 2})
    legal = [["."] * 10 for _ in range(10)]
    legal[9][0] = "B"
    legal[9][1] = "G"
    seen = [row[:] for row in legal]
    seen[9][0] = "."  # the blue token went from A10 ...
    seen[5][5] = "B"  # ... to F6
    seen[9][1] = "."  # the green one vanished
    text = lambda b: "\n".join(" ".join(r) for r in b) + "\n"  # noqa: E731
    steps = plan(engine, parse_snapshot("colorpop", text(legal)), parse_snapshot("colorpop", text(seen)))
    assert [s.text for s in steps] == [
        "move the blue token from F6 back to A10",
        "put the green token back on B10",
    ]


def test_blockers_tiles_pair_by_colour_and_glyph_and_an_unread_glyph_matches_its_colour():
    engine = _engine({"game": "blockers", "players": 2, "variant": "two-player", "seats": [["R", "G"], ["B", "Y"]]})
    empty = [[".."] * 9 for _ in range(9)]
    legal = [r[:] for r in empty]
    legal[0][0] = "R5"
    legal[8][8] = "G1"
    seen = [r[:] for r in empty]
    seen[0][1] = "R?"  # the red tile slid one place right (glyph not read)
    seen[8][8] = "G1"
    seen[4][4] = "B2"  # and a blue tile appeared
    text = lambda b: "\n".join(" ".join(r) for r in b) + "\n"  # noqa: E731
    steps = plan(engine, parse_snapshot("blockers", text(legal)), parse_snapshot("blockers", text(seen)))
    words = [s.text for s in steps]
    assert words == [
        f"take the blue tile 2 off {engine.place_name((4, 4))}",
        f"move the red tile 5 from {engine.place_name((0, 1))} back to {engine.place_name((0, 0))}",
    ]


def test_flipop_doors_are_turned_back_and_balls_moved_back():
    engine = _engine({"game": "flipop", "players": 2})
    legal = engine.start_board
    cells = [list(r) for r in legal.cells]
    (r, c) = next((r, c) for r in range(5) for c in range(5) if cells[r][c] == "W")
    free = next((r2, c2) for r2 in range(5) for c2 in range(5) if cells[r2][c2] == ".")
    cells[free[0]][free[1]], cells[r][c] = "W", "."
    doors = list(legal.line("doors"))
    doors[5] = "NS" if doors[5] != "NS" else "EW"
    seen = legal.with_cells(cells)

    seen = seen.with_line("doors", doors)
    steps = plan(engine, legal, seen)
    assert steps[0].kind == "door" and steps[0].text.startswith("turn the door on post (2,2) back")
    assert steps[1].text == f"move the white ball from ({free[0] + 1},{free[1] + 1}) back to ({r + 1},{c + 1})"
    assert len(steps) == 2


def test_stay_alive_slides_go_back_and_marbles_pair_by_fewest_steps():
    engine = _engine({"game": "stay-alive", "players": 2, "seats": ["R", "B"]})
    rows = [". . . . . . ."] * 7
    legal_rows = [list(r.split()) for r in rows]
    legal_rows[3][3] = "R"
    legal_rows[0][0] = "R"
    seen_rows = [list(r.split()) for r in rows]
    seen_rows[2][3] = "R"  # the 3,3 marble went one up
    seen_rows[0][1] = "R"  # the 0,0 marble one right
    text = lambda b: "\n".join(" ".join(r) for r in b)  # noqa: E731
    legal = parse_snapshot("stay-alive", _board("", [text(legal_rows)], orange="A B C A B C A", white="A A A A A A A"))
    seen = parse_snapshot("stay-alive", _board("", [text(seen_rows)], orange="A B C A B C A", white="A A B A A A A"))
    steps = [s.text for s in plan(engine, legal, seen)]
    assert steps[0] == "put white slide 3 back to A"
    # the crossing pairing (0,1)->(3,3), (2,3)->(0,0) costs 10 steps; the short one 2
    assert sorted(steps[1:]) == sorted(
        [
            f"move the red marble from {engine.place_name((2, 3))} back to {engine.place_name((3, 3))}",
            f"move the red marble from {engine.place_name((0, 1))} back to {engine.place_name((0, 0))}",
        ]
    )


def test_unsure_places_are_never_corrected():
    engine = _engine({"game": "colorpop", "players": 2})
    legal = empty_snapshot("colorpop")
    cells = [list(r) for r in legal.cells]
    cells[9][0] = "?"
    assert plan(engine, legal, legal.with_cells(cells)) == []


def test_corrections_tick_off_as_the_camera_sees_them_done_and_new_mistakes_are_added():
    engine = _engine({"game": "colorpop", "players": 2})
    legal = empty_snapshot("colorpop")
    cells = [list(r) for r in legal.cells]
    cells[9][0] = "B"
    legal = legal.with_cells(cells)
    first = [list(r) for r in legal.cells]
    first[9][0] = "."
    first[9][5] = "B"
    first[9][6] = "G"
    first_seen = legal.with_cells(first)
    start = progress(engine, legal, first_seen, first_seen)
    assert [ok for _, ok in start.steps] == [False, False] and not start.done
    # the green token is taken off; the blue one not yet moved; a yellow token is knocked onto A1
    now = [r[:] for r in first]
    now[9][6] = "."
    now[0][0] = "Y"
    later = progress(engine, legal, first_seen, legal.with_cells(now))
    assert [(c.text, ok) for c, ok in later.steps] == [
        ("take the green token off G10", True),
        ("move the blue token from F10 back to A10", False),
        ("take the yellow token off A1", False),
    ]
    assert progress(engine, legal, first_seen, legal).done
    assert all(is_done(c, legal, legal) for c, _ in start.steps)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 6), st.integers(1, 6), st.integers(0, 10_000))
def test_the_assignment_is_the_cheapest_of_all(rows, cols, seed):
    rng = random.Random(seed)
    cost = [[rng.randint(0, 20) for _ in range(cols)] for _ in range(rows)]
    got = min_cost_assignment(cost)
    assert len(got) == min(rows, cols)
    assert len({i for i, _ in got}) == len(got) == len({j for _, j in got})
    if rows <= cols:
        pairings = (zip(range(rows), perm) for perm in itertools.permutations(range(cols), rows))
    else:
        pairings = (zip(perm, range(cols)) for perm in itertools.permutations(range(rows), cols))
    best = min(sum(cost[i][j] for i, j in pairing) for pairing in pairings)
    assert sum(cost[i][j] for i, j in got) == best
