"""Flipop rules, one test per rule, with the boards written out in snapshot text (rules.md §3).

Most boards use the layout ALL_N (every post a single door pointing N: a wing between every two
side-by-side cells of rows 0-3) with a door or two changed, so a reader can follow each push.
Post (i, j) is the corner below-right of cell (i, j); doors are listed row by row of posts.
"""

from __future__ import annotations

import pytest

from controller.errors import ConfigError
from controller.games.base import ActionNotAllowed, GameSetup
from controller.games.events import GameEvent
from controller.games.flipop.rules import EXIT, FlipopEngine
from controller.profile import default_profile
from controller.referee import Referee
from controller.snapshot import parse_snapshot

ALL_N = "doors: N N N N  N N N N  N N N N  N N N N"


def board(text: str):
    return parse_snapshot("flipop", text)


def engine(start: str | None = None, seats=None, players: int = 2, first: int = 0, **overrides) -> FlipopEngine:
    """An engine whose profile start layout is `start` (it fixes every door's shape)."""
    if start is not None:
        overrides["start"] = start
    profile = default_profile("flipop").with_overrides(overrides)
    return FlipopEngine(GameSetup("flipop", profile, players=players, first=first, seats=seats))


def judge(before: str, after: str, to_move: int = 0, banned=(), **overrides):
    eng = engine(before, **overrides)
    state = eng.position(board(before), to_move, banned)
    return eng, state, eng.judge(state, board(after))


# -- setup, seats, profile -------------------------------------------------------------------

START = default_profile("flipop").get("start")


def test_default_start_layout_is_a_valid_setup():
    eng = engine()
    assert eng.check_setup(board(START)).ok
    # Doors not read at all, or some unreadable, still match the start layout.
    assert eng.check_setup(board(START.split("doors:")[0])).ok
    assert eng.check_setup(board(START.replace("doors: E N", "doors: ? N"))).ok


def test_setup_check_names_misplaced_balls_and_doors():
    eng = engine()
    wrong = START.replace("W W W W W", "W W . W W").replace(". . . . .\nW", ". . W . .\nW")
    wrong = wrong.replace("doors: E N", "doors: S N")
    check = eng.check_setup(board(wrong))
    assert not check.ok
    assert (4, 2) in check.cells and (3, 2) in check.cells and (0, 0) in check.cells
    assert "cell (5,3) should hold a white ball" in check.reason
    assert "cell (4,3) should be empty" in check.reason
    assert "post (1,1)" in check.reason and "should show E, not S" in check.reason


def test_profile_start_with_two_wings_on_one_edge_is_rejected():
    # Post (1,1) S and post (2,1) N both lie between cells (2,1) and (2,2).
    bad = START.split("doors:")[0] + "doors: N N N N  N NS N N  N N N N  N N N N"
    with pytest.raises(ConfigError, match="start"):
        engine(bad)


@pytest.mark.parametrize(
    "seats, players, key",
    [
        (("W", "W"), 2, "seats"),
        (("W", "B", "W"), 3, "players"),
        (("W", "G"), 2, "seats"),
    ],
)
def test_wrong_seats_are_config_errors(seats, players, key):
    with pytest.raises(ConfigError) as err:
        engine(seats=seats, players=players)
    assert err.value.key == key


def test_seats_may_give_black_to_seat_zero():
    eng = engine(seats=("B", "W"))
    state = eng.start(board(START))
    assert eng.to_move(state) == 0
    assert all(eng.describe(state, m).startswith("B ") for m in eng.legal_moves(state))


def test_opening_moves_of_the_default_layout():
    eng = engine()
    state = eng.start(board(START))
    assert [eng.describe(state, m) for m in eng.legal_moves(state)] == ["W (4,1) N", "W (4,2) N", "W (4,3) N"]


# -- a push and its chain ----------------------------------------------------------------------


def test_single_door_turns_a_quarter_and_the_ball_goes_through():
    before = f"""
    . . . . .
    . . . . .
    . W . . .
    . . . . .
    . . . . B
    {ALL_N}
    """
    # The N wing of post (2,1) lies between (2,1) and (2,2); pushed E it turns clockwise to E.
    after = """
    . . . . .
    . . . . .
    . . W . .
    . . . . .
    . . . . B
    doors: N N N N  N N N N  N E N N  N N N N
    """
    _, _, j = judge(before, after)
    assert j.kind == "legal" and j.seat == 0 and j.move == "W (2,1) E"


def test_a_ball_in_the_swept_cell_is_pushed_on_through_the_next_wing_a_chain():
    before = f"""
    . . . . .
    . . . . .
    . W B . .
    . . . . .
    . . . . B
    {ALL_N}
    """
    after = """
    . . . . .
    . . . . .
    . . W B .
    . . . . .
    . . . . B
    doors: N N N N  N N N N  N E E N  N N N N
    """
    _, _, j = judge(before, after)
    assert j.kind == "legal" and j.move == "W (2,1) E"


def test_every_wing_of_a_double_door_turns_and_sweeps_its_own_quarter():
    # Post (1,1) is a straight bar NS. Pushed E from (1,1): N -> E sweeps (1,2), S -> W sweeps
    # (2,1), whose black ball is pushed W through the N wing of post (2,0).
    before = """
    . . . . .
    . W . . .
    . B . . .
    . . . . .
    . . . . .
    doors: N N N N  N NS N N  N W N N  N N N N
    """
    after = """
    . . . . .
    . . W . .
    B . . . .
    . . . . .
    . . . . .
    doors: N N N N  N EW N N  W W N N  N N N N
    """
    _, _, j = judge(before, after)
    assert j.kind == "legal" and j.move == "W (1,1) E"


def test_a_right_angled_door_from_the_profile_turns_as_one_piece():
    # Post (2,1) is right-angled (N and W wings). Pushed E, N -> E and W -> N.
    before = """
    . . . . .
    . . . . .
    . W . . .
    . . . . .
    . . . . B
    doors: N N N N  N N N N  N NW N N  N N N N
    """
    after = """
    . . . . .
    . . . . .
    . . W . .
    . . . . .
    . . . . B
    doors: N N N N  N N N N  N NE N N  N N N N
    """
    _, _, j = judge(before, after)
    assert j.kind == "legal" and j.move == "W (2,1) E"


CHAIN_BLOCKED = """
. . . . .
. . . . .
. . . . .
. W B B .
. . . . .
doors: N N N N  N N N N  N N N N  N N S N
"""


def test_a_ball_may_not_push_a_ball_without_a_door_between_them():
    # W (3,1) E turns post (3,1) N -> E, which sweeps (3,2): that black ball would have to push the
    # black ball at (3,3) directly (post (3,2) has no wing between them).
    eng = engine(CHAIN_BLOCKED)
    state = eng.position(board(CHAIN_BLOCKED))
    assert ((3, 1), "E") not in eng.legal_moves(state)
    forced = """
    . . . . .
    . . . . .
    . . . . .
    . . W B B
    . . . . .
    doors: N N N N  N N N N  N N N N  N E S E
    """
    j = eng.judge(state, board(forced))
    assert j.kind == "illegal"
    assert j.reason == (
        "the white ball on (4,2) pushed east (right) is not allowed: a ball pushed another ball without a door "
        "between them"
    )
    assert j.rule is not None and j.rule.id == "flipop.chain" and "une boule ne peut jamais pousser" in j.rule.book
    assert (3, 2) in j.cells and (3, 3) in j.cells


def test_a_ball_may_not_be_pushed_off_the_board():
    # W (0,1) W turns post (0,0) N -> W, sweeping (0,0): the black ball there would leave the board.
    before = f"""
    B W . . .
    . . . . .
    . . . . .
    . . . . .
    . . . . B
    {ALL_N}
    """
    eng = engine(before)
    state = eng.position(board(before))
    assert ((0, 1), "W") not in eng.legal_moves(state)
    forced = """
    W . . . .
    . . . . .
    . . . . .
    . . . . .
    . . . . B
    doors: W N N N  N N N N  N N N N  N N N N
    """
    j = eng.judge(state, board(forced))
    assert j.kind == "illegal" and "off the board" in j.reason and (0, 0) in j.cells


def test_a_wing_may_not_turn_onto_an_edge_that_holds_a_wing():
    # W (1,0) E would turn post (1,0) N -> E, onto the edge between (1,1) and (2,1) where post
    # (1,1)'s W wing lies.
    before = """
    . . . . .
    W . . . .
    . . . . .
    . . . . .
    . . . . B
    doors: N N N N  N W N N  N N N N  N N N N
    """
    eng = engine(before)
    state = eng.position(board(before))
    assert eng.legal_moves(state) == []  # and so white passes at once
    after = before.replace("W . . . .", ". W . . .").replace("doors: N N N N  N W", "doors: N N N N  E W")
    j = eng.judge(state, board(after))
    assert j.kind == "illegal"


def test_a_ball_reaching_an_exit_of_its_colour_leaves_and_a_board_showing_it_still_there_is_pending():
    # Post (0,1) W lies between (0,1) and (1,1); pushed N it turns to N and the ball enters (0,1),
    # a white exit.
    before = """
    . . . . .
    . W . . .
    . . . . .
    . . . . .
    B . . . W
    doors: N W N N  N N N N  N N N N  N N N N
    """
    eng = engine(before)
    state = eng.position(board(before))
    still_there = """
    . W . . .
    . . . . .
    . . . . .
    . . . . .
    B . . . W
    doors: N N N N  N N N N  N N N N  N N N N
    """
    assert eng.judge(state, board(still_there)).kind == "pending"
    gone = still_there.replace(". W . . .", ". . . . .", 1)
    j = eng.judge(state, board(gone))
    assert j.kind == "legal" and j.move == "W (1,1) N" and EXIT((0, 1)) in j.events


def test_a_black_ball_pushed_into_a_white_exit_stays():
    before = """
    . . . . .
    . W B . .
    . . . . .
    . . . . .
    . . . . .
    doors: N N N N  N N N N  N N N N  N N N N
    """
    # W (1,1) E sweeps (1,2): the black ball goes on to (1,3) through post (1,2)'s N wing.
    after = """
    . . . . .
    . . W B .
    . . . . .
    . . . . .
    . . . . .
    doors: N N N N  N E E N  N N N N  N N N N
    """
    _, _, j = judge(before, after)
    assert j.kind == "legal" and j.events == ()


# -- push-back ban, passes, the end ----------------------------------------------------------------

BAN_BOARD = """
. . . . .
. . . . .
. W . . .
. . . . .
B . . . .
doors: N N N N  N N N N  N N N N  N N N N
"""


def test_a_ball_just_displaced_may_not_push_straight_back():
    after = """
    . . . . .
    . . . . .
    . . W . .
    . . . . .
    B . . . .
    doors: N N N N  N N N N  N E N N  N N N N
    """
    _, _, allowed = judge(BAN_BOARD, after)
    assert allowed.kind == "legal"
    _, state, banned = judge(BAN_BOARD, after, banned=[((2, 1), "E")])
    assert banned.kind == "illegal"
    assert "may not push straight back east (right)" in banned.reason


def test_the_move_records_which_balls_it_displaced_for_the_ban():
    eng = engine(BAN_BOARD)
    state = eng.position(board(BAN_BOARD))
    after, _ = eng.apply(state, ((2, 1), "E"))
    # Black passes (no wing next to (4,0)), and a pass clears the ban.
    assert eng.to_move(after) == 0 and after.lines[0].banned == frozenset()
    # Black pushes from (2,0): post (2,0) sweeps the white ball at (2,1) on E through post (2,1).
    black_board = BAN_BOARD.replace(". W . . .", "B W . . .")
    eng2 = engine(black_board)
    state2 = eng2.position(board(black_board), to_move=1)
    after2, events = eng2.apply(state2, ((2, 0), "E"))
    assert events == () and eng2.to_move(after2) == 0
    assert ((2, 2), "W") in after2.lines[0].banned


def test_a_seat_with_no_legal_move_passes_and_play_goes_on():
    before = """
    . . . . .
    . . . . .
    . W . . .
    . . . . .
    B . . . .
    doors: N N N N  N N N N  N N N N  N N N N
    """
    eng = engine(before)
    state = eng.position(board(before))
    state, events = eng.apply(state, ((2, 1), "E"))
    assert events == (GameEvent.passed(1),)
    assert eng.to_move(state) == 0 and not eng.is_over(state)


def test_the_game_ends_when_neither_seat_can_move_and_fewer_balls_wins():
    before = """
    . . . . .
    . . . . .
    . . . . .
    . . . . .
    B . . W B
    doors: N N N N  N N N N  N N N N  N N N N
    """
    eng = engine(before)
    state = eng.position(board(before))
    assert eng.is_over(state) and eng.to_move(state) is None
    result = eng.result(state)
    assert result.finished and result.winners == (0,) and result.scores == (1, 2)
    assert "neither player can move" in result.reason


def test_a_seat_whose_last_ball_leaves_wins_at_once():
    before = """
    . . . . .
    . W . . .
    . . . . .
    . . . . .
    B . . . .
    doors: N W N N  N N N N  N N N N  N N N N
    """
    eng = engine(before)
    state = eng.position(board(before))
    state, events = eng.apply(state, ((1, 1), "N"))
    assert events == (EXIT((0, 1)),)
    assert eng.is_over(state)
    result = eng.result(state)
    assert result.winners == (0,) and result.scores == (0, 1)


def test_end_by_agreement_ends_the_game_and_equal_balls_draw():
    eng = engine()
    state = eng.start(board(START))
    state, _ = eng.action(state, "end-by-agreement")
    assert eng.is_over(state)
    result = eng.result(state)
    assert result.finished and result.winners == (0, 1) and "draw" in result.reason
    with pytest.raises(ActionNotAllowed):
        eng.action(state, "end-by-agreement")


# -- judging: doors, wrong turns, hand moves -----------------------------------------------------


def test_unchanged_board_and_unread_doors_are_unchanged():
    eng = engine()
    state = eng.start(board(START))
    assert eng.judge(state, board(START)).kind == "unchanged"
    assert eng.judge(state, board(START.split("doors:")[0])).kind == "unchanged"


def test_a_door_turned_by_hand_is_illegal():
    eng = engine()
    state = eng.start(board(START))
    j = eng.judge(state, board(START.replace("doors: E N", "doors: S N")))
    assert j.kind == "illegal" and "turned with no ball pushing it" in j.reason
    assert (0, 0) in j.cells and not j.doubtful


def test_balls_of_a_legal_move_with_the_wrong_doors_are_illegal():
    eng = engine()
    state = eng.start(board(START))
    after = START.replace("W W W W W", "W W . W W").replace(". . . . .\nW", ". . W . .\nW")
    j = eng.judge(state, board(after))  # the doors line still shows the start doors
    assert j.kind == "illegal" and "the balls moved as for the white ball on (5,3) pushed north (up)" in j.reason


def test_a_ball_moved_without_a_door_is_illegal():
    eng = engine()
    state = eng.start(board(START))
    after = START.split("doors:")[0].replace(". . . . .\nW", "W . . . .\nW").replace("W W W W W", ". W W W W")
    j = eng.judge(state, board(after))
    assert j.kind == "illegal" and "a ball moved from (5,1) to (4,1) with no door" in j.reason
    assert j.cells == ((4, 0), (3, 0))


def test_the_wrong_colour_moving_is_illegal():
    eng = engine()
    state = eng.start(board(START))
    black = """
    B B . B B
    . . B . .
    . . . . .
    . . . . .
    W W W W W
    """
    assert engine(seats=("B", "W")).judge(engine(seats=("B", "W")).start(board(START)), board(black)).kind == "legal"
    j = eng.judge(state, board(black))
    assert j.kind == "illegal" and "it is player 1 (white)'s turn" in j.reason


def test_impossible_readings_are_doubtful():
    eng = engine()
    state = eng.start(board(START))
    two_wings = eng.judge(state, board(START.replace("doors: E N", "doors: EW N")))
    assert two_wings.kind == "illegal" and two_wings.doubtful and "single door" in two_wings.reason
    extra = eng.judge(state, board(START.replace(". . . . .\nW", ". . W . .\nW")))
    assert extra.kind == "illegal" and extra.doubtful


# -- candidates when doors were not read ------------------------------------------------------------

TWO_WAYS = """
. . W . .
. . . . .
B . . . .
. . . . .
. . . . .
doors: N N N N  N N N N  N N N N  N N N N
"""


def test_moves_that_differ_only_in_doors_are_kept_until_the_doors_are_read():
    # With white exits (0,1) and (0,3) only, W (0,2) leaves the board going E or W.
    eng = engine(TWO_WAYS, exits={"W": [[0, 1], [0, 3]], "B": [[4, 1], [4, 2], [4, 3]]})
    referee = Referee(eng)
    referee.state = eng.position(board(TWO_WAYS))
    no_doors = TWO_WAYS.split("doors:")[0].replace(". . W . .", ". . . . .")
    verdict = referee.observe(board(no_doors))
    assert verdict.verdict == "legal" and verdict.events in ((EXIT((0, 1)),), (EXIT((0, 3)),))
    assert len(referee.state.lines) == 2
    assert eng.expected(referee.state).line("doors")[1:3] == ("?", "?")
    # The camera reads the doors on the still board: post (0,1) turned W, so the move went W.
    read = no_doors + "doors: N W N N  N N N N  N N N N  N N N N"
    assert referee.observe(board(read)).verdict == "unchanged"
    assert len(referee.state.lines) == 1 and referee.state.lines[0].doors[1] == "W"


def test_the_first_seat_can_be_seat_one():
    eng = engine(first=1)
    state = eng.start(board(START))
    assert eng.to_move(state) == 1
    assert [eng.describe(state, m) for m in eng.legal_moves(state)] == ["B (0,1) S", "B (0,2) S", "B (0,3) S"]
