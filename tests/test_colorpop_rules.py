"""Colorpop rules, one test per rule and setting, with the boards written out (rules.md §1).

Boards are given by their bottom rows (tokens rest at the bottom); `bottom()` fills the rest.
"""

from __future__ import annotations

import itertools
import re

import pytest
from colorpop_helpers import board, engine

from controller.games.colorpop.rules import CLEARED
from controller.referee import Referee

EMPTY_ROW = ". . . . . . . . . ."


def bottom(*rows: str) -> str:
    """A board whose last rows are `rows` (each padded to ten places), the rest empty."""
    padded = [(r + " ." * 10).split()[:10] for r in rows]
    return "\n".join([EMPTY_ROW] * (10 - len(rows)) + [" ".join(p) for p in padded])


def judge(before: str, after: str, **kw):
    eng = engine(**kw)
    state = eng.start(board(before))
    return eng.judge(state, board(after))


def referee(before: str, **kw) -> Referee:
    eng = engine(**kw)
    ref = Referee(eng)
    ref.state = eng.start(board(before))
    return ref


# -- a move -----------------------------------------------------------------------------------


def test_a_complete_group_is_legal_and_the_board_falls_like_samegame():
    before = bottom("G G Y B", "O G Y B")
    # The greens go; O stays in slide 1, slide 2 is empty and moves to the far right.
    j = judge(before, bottom(". Y B", "O Y B"))
    assert j.kind == "legal" and j.seat == 0
    assert j.move == "remove G x3 at A9"
    assert j.state.to_move == 1


def test_the_emptied_slide_not_yet_moved_right_is_pending():
    before = bottom("G G Y B", "O G Y B")
    j = judge(before, bottom(". . Y B", "O . Y B"))
    assert j.kind == "pending"


def test_a_single_token_can_never_be_removed():
    j = judge(bottom("G Y", "O B"), bottom(". Y", "O B"))
    assert j.kind == "illegal"
    assert "single green token" in j.reason
    assert j.cells == ((8, 0),)


def test_part_of_a_group_is_pending_and_the_rest_completes_the_move():
    ref = referee(bottom("G", "G", "G Y"))
    assert ref.observe(board(bottom("G", "G Y"))).verdict == "pending"
    v = ref.observe(board(bottom("Y")))
    assert v.verdict == "legal" and v.move == "remove G x3 at A8" and v.seat == 0


def test_an_incomplete_group_followed_by_another_removal_is_illegal_and_named():
    ref = referee(bottom("B B B", "O Y Y"))
    assert ref.observe(board(bottom(". . B", "O Y Y"))).verdict == "pending"
    # Instead of finishing the blue group, the yellow pair goes too.
    v = ref.observe(board(bottom("O B")))
    assert v.verdict == "illegal"
    assert "blue tokens at A9 was not removed completely" in v.reason
    assert (8, 2) in v.cells


def test_tokens_of_several_colours_at_once_are_illegal():
    j = judge(bottom("G G B B", "O O Y Y"), bottom("O O Y Y"))
    assert j.kind == "illegal" and "several colours" in j.reason
    assert set(j.cells) == {(8, 0), (8, 1), (8, 2), (8, 3)}


def test_a_removed_set_that_is_not_connected_is_illegal():
    # Two separate green pairs removed in one go.
    j = judge(bottom("G G Y G G", "O B Y B O"), bottom(". . Y", "O B Y B O"))
    assert j.kind == "illegal" and "not one connected group" in j.reason


def test_tokens_put_on_the_board_are_illegal():
    j = judge(bottom("G G", "O Y"), bottom("G G B", "O Y B"))
    assert j.kind == "illegal" and not j.doubtful and "put on the board" in j.reason


def test_a_token_that_changed_colour_in_place_is_a_doubtful_reading():
    j = judge(bottom("G G", "O Y"), bottom("G B", "O Y"))
    assert j.kind == "illegal" and j.doubtful and j.cells == ((8, 1),)
    assert "doubtful" in j.reason


def test_an_unchanged_board_is_not_a_move():
    before = bottom("G G", "O Y")
    assert judge(before, before).kind == "unchanged"


def test_the_referee_reports_restored_after_an_illegal_change():
    before = bottom("G G", "O Y")
    ref = referee(before)
    assert ref.observe(board(bottom(". G", "O Y"))).verdict == "pending"
    assert ref.observe(board(bottom(". G", "O Y").replace("O Y", "O B"))).verdict == "illegal"
    assert ref.observe(board(before)).verdict == "restored"


# -- jokers -----------------------------------------------------------------------------------


def test_a_joker_may_be_left_out_of_a_group():
    j = judge(bottom("B J Y", "B O Y"), bottom("J Y", "O Y"))
    assert j.kind == "legal" and j.move == "remove B x2 at A9"


def test_a_joker_may_be_included_in_a_group():
    j = judge(bottom("B J Y", "B O Y"), bottom(". Y", "O Y"))
    assert j.kind == "legal" and j.move == "remove B x3 (1 joker) at A9"


def test_a_joker_touching_a_second_group_of_the_colour_brings_it_into_the_move():
    before = bottom("B J B", "O O Y")
    # The joker joins the blue at A9 to the blue at C9: taking B + J alone is only part of it.
    assert judge(before, bottom(". . B", "O O Y")).kind == "pending"
    j = judge(before, bottom("O O Y"))
    assert j.kind == "legal" and j.move == "remove B x3 (1 joker) at A9"


def test_one_token_and_a_joker_make_a_group():
    j = judge(bottom("G J Y"), bottom("Y"))
    assert j.kind == "legal" and j.move == "remove G x2 (1 joker) at A10"


def test_jokers_alone_are_not_a_group_by_default():
    j = judge(bottom("J", "J"), bottom(""))
    assert j.kind == "illegal" and "only jokers" in j.reason


def test_setting_joker_only_groups_allows_a_group_of_jokers():
    j = judge(bottom("J", "J"), bottom(""), settings={"joker_only_groups": True})
    assert j.kind == "legal" and j.move == "remove J x2 at A9"


# -- setup ------------------------------------------------------------------------------------

# Stripes: no two touching tokens share a colour; the last row holds the five jokers.
SETUP_OK = """
G Y O B P G Y O B P
Y O B P G Y O B P G
O B P G Y O B P G Y
B P G Y O B P G Y O
P G Y O B P G Y O B
G Y O B P G Y O B P
Y O B P G Y O B P G
O B P G Y O B P G Y
B P G Y O B P G Y O
J J J J J G Y O B P
"""


def grid_of(text: str) -> list[list[str]]:
    return [line.split() for line in text.strip().splitlines()]


def text_of(grid: list[list[str]]) -> str:
    return "\n".join(" ".join(row) for row in grid)


def test_a_valid_setup():
    assert engine().check_setup(board(SETUP_OK)).ok


def test_a_setup_with_the_wrong_token_counts_is_refused():
    check = engine().check_setup(board(SETUP_OK.replace("J J J J J", "J J J J G")))
    assert not check.ok and "20 green instead of 19" in check.reason


def test_a_setup_that_is_not_full_is_refused():
    check = engine().check_setup(board(bottom("G Y O B P G Y O B P")))
    assert not check.ok and "full" in check.reason


def test_a_big_group_gets_the_fewest_slides_to_turn():
    grid = grid_of(SETUP_OK)
    # Six greens along the top row, swapped in from lower rows so the counts stay right.
    spare = [(r, c) for r in range(5, 9) for c in range(10) if grid[r][c] == "G"]
    for c in range(6):
        if grid[0][c] != "G":
            r2, c2 = spare.pop()
            grid[0][c], grid[r2][c2] = grid[r2][c2], grid[0][c]
    eng = engine()
    check = eng.check_setup(board(text_of(grid)))
    assert not check.ok and "more than 5" in check.reason and "green" in check.reason
    assert {(0, c) for c in range(6)} <= set(check.cells)
    assert re.fullmatch(r"turn slide \d+", check.advice)  # one reversal splits a row of six
    assert eng.check_setup(board(text_of(turned(grid, slides_of(check.advice))))).ok


def slides_of(advice: str) -> list[int]:
    return [int(w) for w in advice.replace(",", " ").split() if w.isdigit()]


def turned(grid: list[list[str]], slides: list[int]) -> list[list[str]]:
    """The board with the given slides (numbered from 1 on the left) turned end for end."""
    out = [row[:] for row in grid]
    for n in slides:
        for r in range(10):
            out[r][n - 1] = grid[9 - r][n - 1]
    return out


@pytest.mark.slow
def test_the_advice_is_the_fewest_slides_to_turn():
    grid = grid_of(SETUP_OK)
    grid[0] = ["G"] * 10
    grid[1] = ["G"] * 10  # a 2x10 block: runs of at most two unturned slides are needed
    eng = engine(tokens={})
    check = eng.check_setup(board(text_of(grid)))
    slides = slides_of(check.advice)
    assert check.advice.startswith("turn slides ") and len(slides) >= 3
    assert eng.check_setup(board(text_of(turned(grid, slides)))).ok
    for fewer in itertools.combinations(range(1, 11), len(slides) - 1):
        assert not eng.check_setup(board(text_of(turned(grid, list(fewer))))).ok


@pytest.mark.slow
def test_a_setup_no_reversal_can_fix_says_so():
    grid = grid_of(SETUP_OK)
    for r in range(6):
        grid[r][0] = "G"  # a run of six down one slide stays six whichever way it is turned
    check = engine(tokens={}).check_setup(board(text_of(grid)))
    assert not check.ok and check.advice.startswith("no set of slides")


# -- end of the game, scores, variants ---------------------------------------------------------


def test_clearing_a_secret_colour_wins_at_once():
    ref = referee(bottom("G G Y O", "B Y Y O"), secrets=[["G"], ["Y"]])
    v = ref.observe(board(bottom(". . Y O", "B Y Y O")))
    assert v.verdict == "legal" and v.events == (CLEARED("G"),)
    res = ref.result()
    assert res.finished and res.winners == (0,) and ref.over


def test_no_group_left_ends_the_game_and_equal_scores_share_the_win():
    ref = referee(bottom("G Y O", "O Y G"), secrets=[["G"], ["O"]])
    assert ref.observe(board(bottom("G O", "O G"))).verdict == "legal"
    res = ref.result()
    assert res.finished and res.scores == (2, 2) and res.winners == (0, 1)


def test_tie_break_goes_to_fewest_own_tokens_removed():
    ref = referee(bottom(". . . G", "G G O Y", "Y O O G"), secrets=[["G"], ["Y"]])
    assert ref.observe(board(bottom(". . . G", ". . O Y", "Y O O G"))).verdict == "legal"  # seat 0: greens
    assert ref.observe(board(bottom(". G", ". Y", "Y G"))).verdict == "legal"  # seat 1: oranges
    res = ref.result()
    assert res.finished and res.scores == (2, 2)
    assert res.winners == (1,)  # seat 0 removed two of its own greens, seat 1 none of its yellows


def test_unknown_secrets_give_null_scores_until_revealed():
    ref = referee(bottom("G Y O", "O Y G"))
    ref.observe(board(bottom("G O", "O G")))
    res = ref.result()
    assert res.finished and res.winners is None and res.scores == (None, None)
    ref.reveal(0, ("G",))
    ref.reveal(1, ("O",))
    assert ref.result().winners == (0, 1)


def test_a_revealed_colour_cleared_earlier_was_an_instant_win():
    ref = referee(bottom("G G Y O", "B Y Y O"))
    ref.observe(board(bottom(". . Y O", "B Y Y O")))
    assert not ref.over
    ref.reveal(0, ("G",))
    assert ref.over and ref.result().winners == (0,)


def test_two_colours_variant_wins_only_when_both_colours_are_gone():
    ref = referee(bottom("G G Y", "B B Y"), variant="two-colours", secrets=[["G", "B"], ["Y", "O"]])
    v = ref.observe(board(bottom(". . Y", "B B Y")))
    assert v.events == (CLEARED("G"),) and not ref.over
    v = ref.observe(board(bottom("Y", "Y")))
    assert v.events == (CLEARED("B"),) and ref.over
    assert ref.result().winners == (0,)


def test_teams_win_when_both_partners_colours_are_gone():
    ref = referee(bottom("G G Y B", "O O Y B"), variant="teams", players=4, secrets=[["G"], ["Y"], ["O"], ["B"]])
    ref.observe(board(bottom(". . Y B", "O O Y B")))
    assert not ref.over
    v = ref.observe(board(bottom("Y B", "Y B")))
    assert v.seat == 1 and v.events == (CLEARED("O"),)
    res = ref.result()
    assert res.finished and res.winners == (0, 2)


def test_solo_success_when_targets_are_cleared():
    ref = referee(bottom("G G Y", "O Y O"), variant="solo", players=1, targets=["G"])
    ref.observe(board(bottom(". . Y", "O Y O")))
    res = ref.result()
    assert res.finished and res.winners == (0,) and "success" in res.reason


def test_solo_failure_when_no_group_is_left():
    ref = referee(bottom("G Y Y", "O G O"), variant="solo", players=1, targets=["G"])
    ref.observe(board(bottom("G", "O G O")))
    res = ref.result()
    assert res.finished and res.winners == () and res.scores == (2,) and "failure" in res.reason


def test_a_change_after_the_end_is_illegal():
    ref = referee(bottom("G G Y O", "B Y Y O"), secrets=[["G"], ["Y"]])
    ref.observe(board(bottom(". . Y O", "B Y Y O")))
    v = ref.observe(board(bottom(". . . O", "B Y . O")))
    assert v.verdict == "illegal" and "over" in v.reason


def test_variant_player_counts_are_checked():
    import pytest

    from controller.errors import ConfigError

    with pytest.raises(ConfigError, match="players"):
        engine(variant="teams", players=3)
    with pytest.raises(ConfigError, match="targets"):
        engine(variant="solo", players=1)
