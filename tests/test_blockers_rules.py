"""Blockers! rules, one test per rule, with the boards written out in snapshot text (rules.md §2).

Rows A-I are the snapshot's lines from the top, columns 1-9 its cells from the left. The default
symbol map puts the moon (a) lower left: regions [bcd, efg, ahi].
"""

from __future__ import annotations

import dataclasses

import pytest

from controller.errors import ConfigError
from controller.games.base import GameSetup
from controller.games.blockers.board import ALL_GLYPHS, capture_splits
from controller.games.blockers.rules import GLYPH_UNREAD, BlockersEngine
from controller.games.events import GameEvent
from controller.profile import default_profile
from controller.referee import Referee
from controller.snapshot import parse_snapshot

EMPTY = """
.. .. .. .. .. .. .. .. ..
.. .. .. .. .. .. .. .. ..
.. .. .. .. .. .. .. .. ..
.. .. .. .. .. .. .. .. ..
.. .. .. .. .. .. .. .. ..
.. .. .. .. .. .. .. .. ..
.. .. .. .. .. .. .. .. ..
.. .. .. .. .. .. .. .. ..
.. .. .. .. .. .. .. .. ..
"""


def board(text: str):
    return parse_snapshot("blockers", text)


def engine(
    variant: str = "standard",
    seats=("R", "G", "B"),
    players: int | None = None,
    first: int = 0,
    profile_overrides: dict | None = None,
) -> BlockersEngine:
    profile = default_profile("blockers").with_overrides(profile_overrides)
    seats_t = tuple(tuple(s) if isinstance(s, (list, tuple)) else s for s in seats)
    setup = GameSetup(
        "blockers",
        profile,
        variant=variant,
        players=len(seats) if players is None else players,
        first=first,
        seats=seats_t,
    )
    return BlockersEngine(setup)


def two_player() -> BlockersEngine:
    return engine("two-player", seats=(("R", "G"), ("B", "Y")))


def judge(before: str, after: str, to_move: int = 0, eng: BlockersEngine | None = None, **position):
    eng = eng or engine()
    state = eng.position(board(before), to_move, **position)
    return eng, state, eng.judge(state, board(after))


# -- setup and seats -----------------------------------------------------------------------


def test_setup_must_be_an_empty_board():
    eng = engine()
    assert eng.check_setup(board(EMPTY)).ok
    check = eng.check_setup(board(EMPTY.replace(".. ..\n", "R1 ..\n", 1)))
    assert not check.ok and check.cells == ((0, 7),) and "A8" in check.reason


def test_first_seat_moves_first():
    eng = engine(first=2)
    assert eng.to_move(eng.start(board(EMPTY))) == 2


@pytest.mark.parametrize(
    "variant, seats, players, key",
    [
        ("standard", ("R", "G"), None, "players"),
        ("standard", ("R", "G", "B", "Y", "V", "R"), None, "players"),
        ("standard", ("R", "G", "R"), None, "seats"),
        ("standard", (("R", "G"), "B", "Y"), None, "seats[0]"),
        ("standard", None, 3, "seats"),
        ("two-player", (("R", "G"), ("B", "Y"), ("V", "V")), None, "players"),
        ("two-player", (("R",), ("B", "Y")), None, "seats[0]"),
        ("two-player", (("R", "G"), ("G", "Y")), None, "seats"),
    ],
)
def test_bad_seats_are_a_config_error_naming_the_key(variant, seats, players, key):
    profile = default_profile("blockers")
    seats_t = None if seats is None else tuple(tuple(s) if isinstance(s, tuple) else s for s in seats)
    setup = GameSetup("blockers", profile, variant=variant, players=players or len(seats), seats=seats_t)
    with pytest.raises(ConfigError) as info:
        BlockersEngine(setup)
    assert info.value.key == key


# -- where a tile may go -----------------------------------------------------------------------

ONE_TILE_AT_C7 = """
.. .. .. .. .. .. .. .. ..
.. .. .. .. .. .. .. .. ..
.. .. .. .. .. .. {} .. ..
.. .. .. .. .. .. .. .. ..
.. .. .. .. .. .. .. .. ..
.. .. .. .. .. .. .. .. ..
.. .. .. .. .. .. .. .. ..
.. .. .. .. .. .. .. .. ..
.. .. .. .. .. .. .. .. ..
"""

ONE_TILE_AT_H2 = """
.. .. .. .. .. .. .. .. ..
.. .. .. .. .. .. .. .. ..
.. .. .. .. .. .. .. .. ..
.. .. .. .. .. .. .. .. ..
.. .. .. .. .. .. .. .. ..
.. .. .. .. .. .. .. .. ..
.. .. .. .. .. .. .. .. ..
.. {} .. .. .. .. .. .. ..
.. .. .. .. .. .. .. .. ..
"""


def test_a_digit_goes_in_its_column():
    eng, state, j = judge(EMPTY, ONE_TILE_AT_C7.format("R7"))
    assert j.kind == "legal" and j.seat == 0 and j.move == "R7 on C7" and j.state.to_move == 1
    _, _, j = judge(EMPTY, ONE_TILE_AT_C7.format("R5"))
    assert j.kind == "illegal" and j.cells == ((2, 6),)
    assert j.reason == "the red tile 5 may only go in column 5, not on C7"
    assert j.rule is not None and j.rule.id == "blockers.where-it-goes" and "colonne" in j.rule.book


def test_a_letter_goes_in_its_row():
    assert judge(EMPTY, ONE_TILE_AT_C7.format("RC"))[2].kind == "legal"
    j = judge(EMPTY, ONE_TILE_AT_C7.format("RD"))[2]
    assert j.kind == "illegal" and j.cells == ((2, 6),) and j.reason == "the red tile D may only go in row D, not on C7"


def test_a_symbol_goes_in_its_region_and_the_moon_is_lower_left():
    assert judge(EMPTY, ONE_TILE_AT_H2.format("Ra"))[2].kind == "legal"
    j = judge(EMPTY, ONE_TILE_AT_C7.format("Ra"))[2]
    assert j.kind == "illegal" and j.cells == ((2, 6),) and "moon region (rows G-I, columns 1-3)" in j.reason
    # the top-right region of the default map is the heart (d)
    assert judge(EMPTY, ONE_TILE_AT_C7.format("Rd"))[2].kind == "legal"


def test_the_symbol_map_is_profile_data():
    eng = engine(profile_overrides={"regions": ["abc", "def", "ghi"]})
    assert judge(EMPTY, ONE_TILE_AT_H2.format("Ra"), eng=eng)[2].kind == "illegal"
    assert judge(EMPTY, ONE_TILE_AT_H2.format("Rg"), eng=eng)[2].kind == "legal"


def test_the_wild_tile_goes_anywhere():
    assert judge(EMPTY, ONE_TILE_AT_C7.format("R*"))[2].kind == "legal"
    assert judge(EMPTY, ONE_TILE_AT_H2.format("R*"))[2].kind == "legal"


# -- exactly one change, of the right colour --------------------------------------------------


def test_two_new_tiles_are_illegal():
    after = ONE_TILE_AT_C7.format("R7").replace(".. .. .. .. .. .. .. .. ..", "R1 .. .. .. .. .. .. .. ..", 1)
    j = judge(EMPTY, after)[2]
    assert j.kind == "illegal" and set(j.cells) == {(0, 0), (2, 6)}
    assert "a move places exactly one tile" in j.reason


def test_a_moved_tile_is_illegal():
    before = ONE_TILE_AT_C7.format("R7")
    after = before.replace("R7", "..").replace(".. .. .. .. .. .. .. .. ..", ".. .. .. .. .. .. R7 .. ..", 1)
    j = judge(before, after, to_move=1)[2]
    assert j.kind == "illegal" and set(j.cells) == {(2, 6), (0, 6)} and "moved from C7 to A7" in j.reason


def test_the_tile_must_be_of_the_colour_of_the_seat_to_move():
    j = judge(EMPTY, ONE_TILE_AT_C7.format("G7"), to_move=0)[2]
    assert j.kind == "illegal" and j.cells == ((2, 6),)
    assert j.reason == "it is player 1 (red)'s turn, but a green tile was put on C7"
    j = judge(EMPTY, ONE_TILE_AT_C7.format("V7"), to_move=0)[2]
    assert j.kind == "illegal" and j.cells == ((2, 6),) and "violet is not played in this game" in j.reason


def test_each_tile_exists_once():
    before = ONE_TILE_AT_H2.format("R7")
    after = before.replace(".. .. .. .. .. .. .. .. ..", ".. .. .. .. .. .. R7 .. ..", 1)
    j = judge(before, after)[2]
    assert j.kind == "illegal" and "the red tile 7 is already on the board at H2" in j.reason
    assert j.cells == ((0, 6), (7, 1))
    j = judge(EMPTY, ONE_TILE_AT_C7.format("R7"), captured_tiles=("R7",))[2]
    assert j.kind == "illegal" and j.cells == ((2, 6),) and "the red tile 7 was captured earlier" in j.reason


# -- captures -----------------------------------------------------------------------------------


def test_capturing_another_colour_is_credited_to_the_capturer():
    eng, state, j = judge(ONE_TILE_AT_C7.format("G4"), ONE_TILE_AT_C7.format("R7"))
    assert j.kind == "legal" and j.move == "R7 on C7 captures G4"
    green = eng.colour_index["G"]
    assert j.state.captures[0][green] == 1 and sum(map(sum, j.state.captures)) == 1
    assert "G4" in j.state.captured_tiles


def test_a_player_never_captures_their_own_colour():
    j = judge(ONE_TILE_AT_C7.format("R4"), ONE_TILE_AT_C7.format("R7"))[2]
    assert j.kind == "illegal" and j.cells == ((2, 6),) and "never captures its own colour" in j.reason


def test_two_player_may_capture_their_other_colour_but_not_the_colour_placed():
    eng = two_player()
    j = judge(ONE_TILE_AT_C7.format("G4"), ONE_TILE_AT_C7.format("R7"), eng=eng)[2]
    assert j.kind == "legal" and j.state.captures[0][eng.colour_index["G"]] == 1
    j = judge(ONE_TILE_AT_C7.format("R4"), ONE_TILE_AT_C7.format("R7"), eng=eng)[2]
    assert j.kind == "illegal"
    j = judge(ONE_TILE_AT_C7.format("B4"), ONE_TILE_AT_C7.format("G7"), eng=eng)[2]
    assert j.kind == "legal" and j.move == "G7 on C7 captures B4"


LINE = """
.. .. .. .. .. .. .. .. ..
.. .. .. .. .. .. .. .. ..
.. .. .. .. GA GB GC .. ..
.. .. .. .. .. .. .. .. ..
.. .. .. .. .. .. .. .. ..
.. .. .. .. .. .. .. .. ..
.. .. .. .. .. .. .. .. ..
.. .. .. .. .. .. .. .. ..
.. .. .. .. .. .. .. .. ..
"""


def test_capturing_a_tile_that_splits_its_group_is_illegal():
    before = LINE.replace("GB", "GD")  # C5 C6 C7 green
    j = judge(before, before.replace("GD", "R6"))[2]
    assert j.kind == "illegal" and set(j.cells) == {(2, 4), (2, 5), (2, 6)}  # the tile and the group it splits
    assert j.reason == "capturing the green tile D on C6 would split its green group"
    assert j.rule is not None and j.rule.id == "blockers.no-split"
    assert j.cells == ((2, 5), (2, 4), (2, 6))
    # the end of the line may be taken
    assert judge(before, before.replace("GC", "R7"))[2].kind == "legal"


def splits(text: str, cell: tuple[int, int]) -> bool:
    return capture_splits(board(text).cells, cell)


SHAPES = """
G1 .. .. G4 G5 .. .. .. ..
.. .. .. .. .. .. .. .. ..
G1 G2 G3 .. B1 B2 B3 .. ..
.. .. .. .. B4 .. B5 .. ..
Y1 Y2 Y3 .. B6 B7 B8 .. ..
.. Y4 .. .. .. .. .. .. ..
.. Y5 .. .. .. .. .. .. ..
.. .. .. .. .. .. .. .. ..
.. .. .. .. .. .. .. .. ..
"""


@pytest.mark.parametrize(
    "cell, split, what",
    [
        ((0, 0), False, "a lone tile"),
        ((0, 3), False, "one of a pair"),
        ((0, 4), False, "the other of a pair"),
        ((2, 0), False, "the end of a line"),
        ((2, 1), True, "the middle of a line"),
        ((2, 4), False, "a corner of a ring"),
        ((3, 4), False, "a side of a ring"),
        ((4, 5), False, "another side of a ring"),
        ((4, 1), True, "the centre of a T (a cut vertex)"),
        ((4, 0), False, "an arm of a T"),
        ((6, 1), False, "the foot of a T"),
        ((5, 1), True, "the stem of a T"),
    ],
)
def test_no_split_rule_on_shapes(cell, split, what):
    assert splits(SHAPES, cell) is split, what


# -- unread glyphs --------------------------------------------------------------------------------


def test_an_unread_glyph_is_accepted_when_some_unplayed_tile_fits():
    eng, state, j = judge(EMPTY, ONE_TILE_AT_C7.format("R?"))
    assert j.kind == "legal" and j.move == "R? on C7" and j.events == (GLYPH_UNREAD((2, 6)),)
    (unread,) = j.state.unread
    assert unread.cell == (2, 6) and unread.glyphs == frozenset("7Cd*")
    # each candidate is still playable elsewhere (the unread tile may be any of the others)
    assert j.state.available[0] == ALL_GLYPHS


def test_an_unread_glyph_with_no_fitting_unplayed_tile_is_illegal():
    # R7, RC, the heart (d) and the wild tile are all gone: nothing red may go on C7
    j = judge(EMPTY, ONE_TILE_AT_C7.format("R?"), captured_tiles=("R7", "RC", "Rd", "R*"))[2]
    assert j.kind == "illegal" and j.cells == ((2, 6),) and "no unplayed red tile may go on C7" in j.reason


def test_a_later_reading_of_the_cell_fixes_the_unread_tile():
    eng = engine()
    state = eng.start(board(EMPTY))
    state = eng.judge(state, board(ONE_TILE_AT_C7.format("R?"))).state
    after = ONE_TILE_AT_C7.format("RC").replace(".. .. .. .. .. .. .. .. ..", "G1 .. .. .. .. .. .. .. ..", 1)
    j = eng.judge(state, board(after))
    assert j.kind == "legal" and j.move == "G1 on A1"
    assert j.state.unread == () and j.state.board[2][6] == "RC"
    assert "C" not in j.state.available[0] and "7" in j.state.available[0]
    # a reading the unread tile cannot be is a change, not a reading
    wrong = ONE_TILE_AT_C7.format("R5").replace(".. .. .. .. .. .. .. .. ..", "G1 .. .. .. .. .. .. .. ..", 1)
    assert eng.judge(state, board(wrong)).kind == "illegal"


def test_a_reading_on_an_unchanged_board_fixes_the_unread_tile_through_the_referee():
    eng = engine()
    ref = Referee(eng)
    ref.state = eng.start(board(EMPTY))
    assert ref.observe(board(ONE_TILE_AT_C7.format("R?"))).verdict == "legal"
    # The board settles again with nothing moved, and this time the glyph is read.
    assert ref.observe(board(ONE_TILE_AT_C7.format("RC"))).verdict == "unchanged"
    assert ref.state.unread == () and ref.state.board[2][6] == "RC"
    assert "C" not in ref.state.available[0]


def test_the_unread_tile_is_narrowed_when_its_candidates_appear_elsewhere():
    eng = engine()
    state = eng.start(board(EMPTY))
    state = eng.judge(state, board(ONE_TILE_AT_C7.format("R?"))).state
    # the other red candidates 7, C and heart are placed elsewhere: C7 must be the wild tile
    state = dataclasses.replace(state, to_move=0)
    for cell_text, tile in (("R7", "A7"), ("RC", "C1"), ("Rd", "B8")):
        rows = [list(r) for r in state.board]
        r, c = ord(tile[0]) - ord("A"), int(tile[1]) - 1
        rows[r][c] = cell_text
        j = eng.judge(state, eng.expected(state).with_cells(rows))
        assert j.kind == "legal", j.reason
        state = dataclasses.replace(j.state, to_move=0)
    assert state.unread == () and state.board[2][6] == "R*" and "*" not in state.available[0]


def test_a_tile_the_camera_cannot_read_this_time_is_not_a_change():
    before = ONE_TILE_AT_C7.format("R7")
    assert judge(before, ONE_TILE_AT_C7.format("R?"), to_move=1)[2].kind == "unchanged"


# -- pending captures ---------------------------------------------------------------------------


def test_a_lifted_capturable_tile_is_pending_then_the_capture_is_legal():
    eng = engine()
    state = eng.position(board(ONE_TILE_AT_C7.format("G4")), 0)
    referee = Referee(eng)
    referee.state = state
    assert referee.observe(board(EMPTY)).verdict == "pending"
    verdict = referee.observe(board(ONE_TILE_AT_C7.format("RC")))
    assert verdict.verdict == "legal" and verdict.move == "RC on C7 captures G4"


def test_a_lifted_tile_the_mover_cannot_capture_is_illegal():
    j = judge(ONE_TILE_AT_C7.format("R4"), EMPTY, to_move=0)[2]
    assert j.kind == "illegal" and j.cells == ((2, 6),) and "may not capture its own colour" in j.reason
    middle = LINE.replace("GB", "GD")
    j = judge(middle, middle.replace("GD", ".."), to_move=0)[2]
    assert j.kind == "illegal" and set(j.cells) == {(2, 4), (2, 5), (2, 6)} and "would split" in j.reason
    j = judge(ONE_TILE_AT_C7.format("G4"), EMPTY, to_move=0, captured_tiles=("R7", "RC", "Rd", "R*"))[2]
    assert j.kind == "illegal" and j.cells == ((2, 6),)
    assert "no unplayed tile of player 1 (red) may go there" in j.reason


# -- passes, the end, scores ----------------------------------------------------------------------

GREEN_COLUMN_1 = """
GA .. .. .. .. .. .. .. ..
GB .. .. .. .. .. .. .. ..
GC .. .. .. .. .. .. .. ..
GD .. .. .. .. .. .. .. ..
GE .. .. .. .. .. .. .. ..
GF .. .. .. .. .. .. .. ..
GG .. .. .. .. .. .. .. ..
GH .. .. .. .. .. .. .. ..
GI .. .. .. .. .. .. .. ..
"""


def test_a_seat_with_no_possible_placement_passes():
    # green's only unplayed tile is G1, and column 1 is all green: green cannot place at all
    gone = tuple("G" + g for g in "23456789abcdefghi*")
    eng = engine()
    state = eng.position(board(GREEN_COLUMN_1), 0, placed={"G": 10}, captured_tiles=gone)
    assert state.available[1] == frozenset("1")
    j = eng.judge(state, board(GREEN_COLUMN_1.replace("GA .. ..", "GA .. R3")))
    assert j.kind == "legal" and j.events == (GameEvent.passed(1),) and j.state.to_move == 2


def test_the_game_ends_when_every_colour_has_placed_24():
    eng = engine()
    state = eng.position(board(EMPTY), 0, placed={"R": 23, "G": 24, "B": 24})
    j = eng.judge(state, board(ONE_TILE_AT_C7.format("R7")))
    assert j.kind == "legal" and j.events == () and eng.is_over(j.state)
    assert eng.to_move(j.state) is None
    again = eng.judge(j.state, board(ONE_TILE_AT_H2.format("G2")))
    assert again.kind == "illegal" and "the game is over" in again.reason


def test_two_player_a_colour_that_placed_24_can_no_longer_be_chosen():
    eng = two_player()
    state = eng.position(board(EMPTY), 0, placed={"R": 24, "G": 3})
    j = eng.judge(state, board(ONE_TILE_AT_C7.format("R7")))
    assert j.kind == "illegal" and j.cells == ((2, 6),) and "red has already placed its 24 tiles" in j.reason
    assert eng.judge(state, board(ONE_TILE_AT_C7.format("G7"))).kind == "legal"


SCORED = """
R1 R2 .. G4 .. B6 .. .. ..
.. .. .. G4 .. .. .. .. ..
R1 .. .. .. .. .. .. .. ..
.. .. .. .. .. .. .. .. ..
.. .. .. .. .. .. .. .. ..
.. .. .. .. .. .. .. .. ..
.. .. .. .. .. .. .. .. ..
.. .. .. .. .. .. .. .. ..
.. .. .. .. .. .. .. .. ..
"""


#: A finished game as a position (controller.games.position): red captured 2 green and 1 blue, blue 1 red.
SCORED_POSITION = (
    """\
game: blockers
board: |
"""
    + "".join(f"  {row}\n" for row in SCORED.strip().splitlines())
    + """\
to_move: null
placed: [24, 24, 24]
captures: [[0, 2, 1], [0, 0, 0], [1, 0, 0]]
captured_tiles: []
unread: []
available: [[], [], []]
moves: 72
"""
)


def test_scores_count_groups_plus_the_most_captured_of_one_colour():
    eng = engine()
    state = eng.parse_position(SCORED_POSITION)
    # red: 2 groups; captured 2 green and 1 blue -> 2 + 2. green: 1 group + 0. blue: 1 group + 1.
    assert eng.position_text(state) == SCORED_POSITION
    result = eng.result(state)
    assert result.finished and result.scores == (4, 1, 2) and result.winners == (1,)
    assert "player 2 (green) wins with the lowest score, 1" in result.reason


def test_tie_break_fewest_captured_in_total_then_a_shared_win():
    eng = engine()
    state = eng.position(board(SCORED), None, placed={"R": 24, "G": 24, "B": 24})
    # green 1 group + 2 captured = 3, blue 1 + 2 = 3 with 2 captured in total, red 2 + 2 = 4
    state = dataclasses.replace(state, captures=((0, 2, 0), (2, 0, 1), (0, 2, 0)))
    result = eng.result(state)
    assert result.scores == (4, 3, 3) and result.winners == (2,)
    assert "player 2 (green) and player 3 (blue) tie on 3; player 3 (blue) wins the tie-break" in result.reason
    state = dataclasses.replace(state, captures=((0, 2, 0), (2, 0, 0), (0, 2, 0)))
    result = eng.result(state)
    assert result.winners == (1, 2) and "share the win" in result.reason


def test_two_player_scores_both_colours_and_own_colour_captures():
    eng = two_player()
    state = eng.position(board(SCORED.replace("B6", "Y6")), None, placed={c: 24 for c in "RGBY"})
    # seat 0: red 2 groups + green 1 group + 3 captured of its own green; seat 1: yellow 1 group
    state = dataclasses.replace(state, captures=((0, 3, 1, 0), (0, 0, 0, 0)))
    assert eng.result(state).scores == (6, 1)


def test_an_unfinished_game_has_no_winners():
    eng = engine()
    result = eng.result(eng.start(board(EMPTY)))
    assert not result.finished and result.winners is None and result.scores == (0, 0, 0)
    assert "game in progress" in result.reason


TWO_UNREAD = """
.. .. .. .. .. .. R? .. ..
.. .. .. .. .. .. .. .. ..
.. .. .. .. .. .. R? .. ..
.. .. .. .. .. .. .. .. ..
.. .. .. .. .. .. .. .. ..
.. .. .. .. .. .. .. .. ..
.. .. .. .. .. .. .. .. ..
.. .. .. .. .. .. .. .. ..
.. .. .. .. .. .. .. .. ..
"""


def test_tiles_that_unread_tiles_must_be_are_no_longer_playable():
    # A7 may be 7, A, heart or wild; C7 7, C, heart or wild. With RA, RC and the heart gone,
    # the two unread tiles are R7 and R* in some order: neither may be placed again.
    eng = engine()
    state = eng.position(board(TWO_UNREAD), 0, captured_tiles=("RA", "RC", "Rd"))
    assert {u.glyphs for u in state.unread} == {frozenset("7*")}
    assert "7" not in state.available[0] and "*" not in state.available[0]
    j = eng.judge(state, board(TWO_UNREAD.replace(".. .. .. .. .. .. .. .. ..", ".. .. .. .. .. .. R7 .. ..", 1)))
    assert j.kind == "illegal" and j.cells == ((1, 6), (0, 6), (2, 6))
    assert "the red tile 7 must be one of the unread red tiles already played (at A7 and C7)" in j.reason


def test_two_player_lifting_a_tile_of_the_only_colour_left_is_illegal():
    eng = two_player()
    j = judge(ONE_TILE_AT_C7.format("R4"), EMPTY, eng=eng, placed={"R": 5, "G": 24})[2]
    assert j.kind == "illegal" and "red is the only colour player 1 (red and green) has left to place" in j.reason
    assert judge(ONE_TILE_AT_C7.format("R4"), EMPTY, eng=eng, placed={"R": 5, "G": 5})[2].kind == "pending"
