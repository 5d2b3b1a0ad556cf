"""Colorpop's corrections said as a player makes them on a board whose tokens fall: per slide, which
tokens go back where (the tokens above slide back up), an emptied slide put back and filled again;
never one step per fallen token (two groups removed at once used to give 27 'move' steps)."""

from __future__ import annotations

import random

import pytest

from controller.corrections import is_done, plan
from controller.games.colorpop.rules import settle
from controller.games.registry import engine_for
from controller.record import setup_from_mapping
from controller.snapshot import EMPTY, Snapshot
from simulation.world import starting_board

SETUP = setup_from_mapping({"game": "colorpop", "players": 2}, "test")
ENGINE = engine_for(SETUP)


def _two_moves_at_once(seed: int):
    rng = random.Random(seed)
    state = ENGINE.start(starting_board(SETUP, rng))
    first = rng.choice(list(ENGINE.legal_moves(state)))
    after, _ = ENGINE.apply(state, first)
    second = rng.choice(list(ENGINE.legal_moves(after)))
    twice, _ = ENGINE.apply(after, second)
    return ENGINE.expected(state), ENGINE.expected(twice)


@pytest.mark.slow
def test_two_groups_removed_at_once_are_put_back_slide_by_slide():
    for seed in range(12):
        legal, seen = _two_moves_at_once(seed)
        steps = plan(ENGINE, legal, seen)
        touched = {c for r in range(10) for c in range(10) if legal.cells[r][c] != seen.cells[r][c]}
        assert steps and all(s.kind == "refill" for s in steps), [s.text for s in steps]
        assert len(steps) <= len(touched)  # at most one per slide touched
        for step in steps:
            assert step.text.startswith(("slide ", "put the emptied slide back in place "))
            assert not is_done(step, legal, seen) and is_done(step, legal, legal)
        assert "move the" not in " ".join(s.text for s in steps)


def test_the_tokens_above_slide_back_up_and_the_places_are_named():
    cells = [[EMPTY] * 10 for _ in range(10)]
    for r, piece in zip(range(9, 3, -1), "BYYYGP"):  # slide E from the bottom: B Y Y Y G P (E10 up to E5)
        cells[r][4] = piece
    cells[9][0] = cells[9][1] = "O"
    legal = Snapshot("colorpop", tuple(map(tuple, cells)))
    removed = [row[:] for row in cells]
    for r in (8, 7, 6):  # the three yellow tokens taken: G and P fall onto B
        removed[r][4] = EMPTY
    seen = Snapshot("colorpop", settle(removed))
    (step,) = plan(ENGINE, legal, seen)
    assert (
        step.text
        == "slide E: put the 3 yellow tokens back at E9, E8 and E7; the 2 tokens above slide back up to E6 and E5"
    )


def test_an_emptied_slide_is_put_back_in_its_place_and_filled_again():
    cells = [[EMPTY] * 10 for _ in range(10)]
    cells[9][0], cells[8][0] = "G", "Y"
    cells[9][1], cells[8][1] = "B", "B"  # slide B: two blue tokens, taken together
    cells[9][2] = "P"
    legal = Snapshot("colorpop", tuple(map(tuple, cells)))
    gone = [row[:] for row in cells]
    gone[9][1] = gone[8][1] = EMPTY
    seen = Snapshot("colorpop", settle(gone))  # slide C moved into place B, the empty slide to the right
    assert seen.cells[9][1] == "P"
    (step,) = plan(ENGINE, legal, seen)
    assert (
        step.text
        == "put the emptied slide back in place B and fill it again from the bottom: the 2 blue tokens (B10 up to B9)"
    )


def test_tokens_that_changed_places_are_still_corrected_piece_by_piece():
    cells = [[EMPTY] * 10 for _ in range(10)]
    cells[9][0], cells[9][1] = "G", "Y"
    legal = Snapshot("colorpop", tuple(map(tuple, cells)))
    swapped = [row[:] for row in cells]
    swapped[9][0], swapped[9][1] = "Y", "G"
    steps = plan(ENGINE, legal, Snapshot("colorpop", tuple(map(tuple, swapped))))
    assert [s.kind for s in steps] == ["move", "move"]
