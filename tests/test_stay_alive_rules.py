"""Stay Alive rules, one test per rule, with boards written as snapshot text.

All tests use the default profile's stand-in hole pattern: orange slide r at position p (A=0,
B=1, C=2) has a hole under column c when (r + c + p) % 3 == 0, white slide c at position q over
row r when (r + 2c + q) % 3 == 0. The comments next to each board say which points matter.
"""

from __future__ import annotations

import pytest

from controller.errors import ConfigError
from controller.games.base import GameSetup
from controller.games.events import GameEvent
from controller.games.stay_alive.rules import EXPECTED_FALL_MISSING, FELL, SlideMove, StayAliveEngine, StayAliveState
from controller.profile import default_profile
from controller.record import parse_record
from controller.referee import Referee
from controller.snapshot import parse_snapshot

SEAT_COLOURS = "RGBY"


def make_engine(players: int = 2, rule: str | None = None, first: int = 0, **keys) -> StayAliveEngine:
    profile = default_profile("stay-alive")
    overrides: dict = dict(keys)
    if rule:
        overrides["settings"] = {"two_player_rule": rule}
    profile = profile.with_overrides(overrides)
    return StayAliveEngine(GameSetup("stay-alive", profile, players=players, first=first))


def snap(text: str):
    return parse_snapshot("stay-alive", text)


def movement_state(engine: StayAliveEngine, text: str, to_move: int = 0, **fields) -> StayAliveState:
    """A movement-phase state showing the board `text` (every marble already placed)."""
    board = snap(text)
    return StayAliveState(
        orange=board.line("orange"),
        white=board.line("white"),
        board=board.cells,
        to_move=to_move,
        placing=False,
        placed=engine.total,
        own_recent=fields.pop("own_recent", ((),) * engine.players),
        **fields,
    )


def slide_move(engine: StayAliveEngine, state: StayAliveState, text: str) -> SlideMove:
    """The legal move written as in verdicts, e.g. "orange 3 A->B"."""
    for move in engine.legal_moves(state):
        if engine.describe(state, move) == text:
            return move
    raise AssertionError(f"{text} is not a legal move here")


# A 2-player middle game. Red: 0,0 and 1,1; green: 4,4 and 6,6; every marble on a closed point.
# Moving orange 0 from B to A opens 0,0 (orange 0 at A and white 0 at A both have a hole there).
BOARD = """
orange: B B B B B B B
white:  A B B B B B B
R . . . . . .
. R . . . . .
. . . . . . .
. . . . . . .
. . . . G . .
. . . . . . .
. . . . . . G
"""
AFTER_ORANGE_0_TO_A = """
orange: A B B B B B B
white:  A B B B B B B
. . . . . . .
. R . . . . .
. . . . . . .
. . . . . . .
. . . . G . .
. . . . . . .
. . . . . . G
"""


# --------------------------------------------------------------------------- hole model in play


def test_a_point_is_open_only_when_both_its_slides_have_a_hole_there():
    engine = make_engine()
    before = snap(BOARD)
    after = snap(AFTER_ORANGE_0_TO_A)
    assert (0, 0) not in engine.holes.open_points(before.line("orange"), before.line("white"))
    assert (0, 0) in engine.holes.open_points(after.line("orange"), after.line("white"))
    # white 0 at B has no hole over row 0, so orange 0 at A alone does not open 0,0
    assert (0, 0) not in engine.holes.open_points(after.line("orange"), ("B",) * 7)


# --------------------------------------------------------------------------- setup


def test_setup_with_an_empty_grid_is_valid():
    engine = make_engine()
    board = snap("orange: A B C A B C A\nwhite: C B A C B A C\n" + ". . . . . . .\n" * 7)
    assert engine.check_setup(board).ok


def test_setup_with_marbles_on_the_grid_is_invalid():
    engine = make_engine()
    check = engine.check_setup(snap(BOARD))
    assert not check.ok and "grid must be empty" in check.reason
    assert set(check.cells) == {(0, 0), (1, 1), (4, 4), (6, 6)}


def test_setup_with_too_few_closed_points_is_invalid():
    every = {"A": "1111111", "B": "1111111", "C": "1111111"}
    engine = make_engine(holes={"orange": [every] * 7, "white": [every] * 7})
    check = engine.check_setup(snap("orange: A A A A A A A\nwhite: A A A A A A A\n" + ". . . . . . .\n" * 7))
    assert not check.ok and "only 0 points are closed but 10 marbles" in check.reason
    assert check.advice


# --------------------------------------------------------------------------- placement phase

PLACEMENT_RECORD = """
game: stay-alive
players: 2
seats: [R, G]
profile: {marbles_per_player: 2}
setup: |
  orange: B B B B B B B
  white:  B B B B B B B
  . . . . . . .
  . . . . . . .
  . . . . . . .
  . . . . . . .
  . . . . . . .
  . . . . . . .
  . . . . . . .
observations:
"""
# With every slide at B the open points are 2,0 2,3 2,6 5,0 5,3 5,6.
EMPTY_ROWS = ". . . . . . .\n" * 7


def board_text(marbles: dict[tuple[int, int], str], orange: str = "B B B B B B B", white: str = "B B B B B B B") -> str:
    rows = []
    for r in range(7):
        rows.append(" ".join(marbles.get((r, c), ".") for c in range(7)))
    return f"orange: {orange}\nwhite: {white}\n" + "\n".join(rows) + "\n"


def replay(record_head: str, boards: list[str]) -> list[dict]:
    text = record_head + "".join(
        "  - |\n" + "".join(f"    {line}\n" for line in b.strip().splitlines()) for b in boards
    )
    record = parse_record(text)
    referee = Referee(StayAliveEngine(record.setup))
    out = [referee.observe(record.board, 0).to_json()]
    for i, entry in enumerate(record.observations, start=1):
        out.append(referee.observe(entry, i).to_json())
    out.append({"result": referee.result().to_json()})
    return out


def test_placement_goes_in_seat_order_one_marble_per_turn():
    lines = replay(
        PLACEMENT_RECORD,
        [
            board_text({(0, 0): "R"}),
            board_text({(0, 0): "R", (1, 1): "G"}),
        ],
    )
    assert [(v["verdict"], v.get("seat"), v.get("move")) for v in lines[1:3]] == [
        ("legal", 0, "place R at 0,0"),
        ("legal", 1, "place G at 1,1"),
    ]


def test_a_marble_dropped_on_an_open_point_falls_and_the_same_seat_places_again():
    # Red drops a marble on 2,0 (open): it falls through, the camera sees no change.
    lines = replay(PLACEMENT_RECORD, [board_text({}), board_text({(0, 0): "R"})])
    assert lines[1]["verdict"] == "unchanged"
    assert lines[2] == {"index": 2, "verdict": "legal", "seat": 0, "move": "place R at 0,0"}


def test_a_marble_seen_on_an_open_point_is_illegal():
    lines = replay(PLACEMENT_RECORD, [board_text({(2, 0): "R"})])
    assert lines[1]["verdict"] == "illegal"
    assert "point 3,1 is open" in lines[1]["reason"] and lines[1]["cells"] == [[2, 0]]


def test_placing_out_of_turn_is_illegal():
    lines = replay(PLACEMENT_RECORD, [board_text({(0, 0): "G"})])
    assert lines[1]["verdict"] == "illegal" and lines[1]["seat"] == 0 and lines[1]["cells"] == [[0, 0]]
    # the sentence is what tells the players it was the wrong seat's marble
    assert lines[1]["reason"] == "it is player 1 (red)'s turn to place a marble, not player 2 (green)'s"


def test_placing_two_marbles_at_once_is_illegal():
    lines = replay(PLACEMENT_RECORD, [board_text({(0, 0): "R", (0, 1): "R"})])
    assert lines[1]["verdict"] == "illegal" and lines[1]["cells"] == [[0, 0], [0, 1]]


def test_moving_a_slide_during_placement_is_illegal():
    lines = replay(PLACEMENT_RECORD, [board_text({(0, 0): "R"}, orange="B B B C B B B")])
    assert lines[1]["verdict"] == "illegal"
    assert "orange slide 4 moved" in lines[1]["reason"]


def test_moving_a_placed_marble_is_illegal_and_putting_it_back_restores():
    lines = replay(
        PLACEMENT_RECORD,
        [
            board_text({(0, 0): "R"}),
            board_text({(0, 1): "R"}),
            board_text({(0, 0): "R"}),
        ],
    )
    assert lines[2]["verdict"] == "illegal" and lines[2]["cells"] == [[0, 0], [0, 1]]
    assert lines[3]["verdict"] == "restored"


def test_after_the_last_placement_the_first_seat_moves_a_slide():
    marbles = {(0, 0): "R", (1, 1): "G", (0, 1): "R", (1, 0): "G"}
    placed: dict = {}
    boards = []
    for cell, colour in marbles.items():
        placed[cell] = colour
        boards.append(board_text(dict(placed)))
    # orange 6 B->C opens nothing under a marble
    boards.append(board_text(dict(placed), orange="B B B B B B C"))
    lines = replay(PLACEMENT_RECORD, boards)
    assert [v["verdict"] for v in lines[1:6]] == ["legal"] * 5
    assert lines[5]["seat"] == 0 and lines[5]["move"] == "orange 6 B->C"
    assert lines[-1]["result"]["scores"] == [2, 2]


def test_scores_during_placement_count_marbles_still_to_place():
    lines = replay(PLACEMENT_RECORD, [board_text({(0, 0): "R"})])
    assert lines[-1]["result"] == {"finished": False, "scores": [2, 2], "reason": "the marbles are still being placed"}


# --------------------------------------------------------------------------- movement phase


def test_one_slide_one_notch_and_the_predicted_marble_falls():
    engine = make_engine()
    state = movement_state(engine, BOARD)
    judgement = engine.judge(state, snap(AFTER_ORANGE_0_TO_A))
    assert judgement.kind == "legal" and judgement.seat == 0
    assert judgement.move == "orange 0 B->A"
    assert judgement.events == (FELL((0, 0)),)
    assert engine.to_move(judgement.state) == 1
    assert engine.result(judgement.state).scores == (1, 2)


def test_a_predicted_fall_still_seen_is_legal_with_expected_fall_missing():
    engine = make_engine()
    state = movement_state(engine, BOARD)
    stuck = AFTER_ORANGE_0_TO_A.replace(". . . . . . .\n. R", "R . . . . . .\n. R", 1)
    judgement = engine.judge(state, snap(stuck))
    assert judgement.kind == "legal"
    assert judgement.events == (EXPECTED_FALL_MISSING((0, 0)),)
    assert engine.result(judgement.state).scores == (1, 2)  # the stuck marble counts as fallen
    assert judgement.state.ghosts == ((0, 0, "R"),)


def test_a_stuck_marble_is_never_blamed_on_later_moves():
    engine = make_engine()
    state = movement_state(engine, BOARD)
    stuck = AFTER_ORANGE_0_TO_A.replace(". . . . . . .\n. R", "R . . . . . .\n. R", 1)
    state = engine.judge(state, snap(stuck)).state
    # green moves white 3 B->C with the stuck red marble still seen: legal, nothing falls
    still_there = stuck.replace("white:  A B B B B B B", "white:  A B B C B B B")
    later = engine.judge(state, snap(still_there))
    assert later.kind == "legal" and later.events == ()
    # then the stuck marble finally drops with no slide moved: not a move, not illegal
    dropped = still_there.replace("R . . . . . .\n. R", ". . . . . . .\n. R", 1)
    assert engine.judge(later.state, snap(dropped)).kind == "unchanged"


def test_a_marble_gone_from_a_closed_point_is_illegal():
    engine = make_engine()
    state = movement_state(engine, BOARD)
    # orange 0 B->A, and green's marble at 4,4 (closed) vanished as well
    gone = AFTER_ORANGE_0_TO_A.replace(". . . . G . .", ". . . . . . .")
    judgement = engine.judge(state, snap(gone))
    assert judgement.kind == "illegal" and not judgement.doubtful
    assert judgement.cells == ((4, 4),)
    assert judgement.reason == "the marble at 5,5 disappeared but its point stayed closed; put it back"
    assert judgement.cells == ((4, 4),)


def test_a_marble_vanishing_with_no_slide_moved_is_illegal():
    engine = make_engine()
    state = movement_state(engine, BOARD)
    gone = BOARD.replace(". . . . G . .", ". . . . . . .")
    judgement = engine.judge(state, snap(gone))
    assert judgement.kind == "illegal"
    assert judgement.cells == ((4, 4),)
    assert judgement.reason == "the marble at 5,5 disappeared but no slide moved; put it back"


def test_a_marble_moved_by_hand_is_illegal():
    engine = make_engine()
    state = movement_state(engine, BOARD)
    moved = BOARD.replace(". . . . G . .", ". . . G . . .")
    judgement = engine.judge(state, snap(moved))
    assert judgement.kind == "illegal"
    assert judgement.cells == ((4, 3), (4, 4))


def test_a_marble_that_changed_colour_is_a_doubtful_reading():
    engine = make_engine()
    state = movement_state(engine, BOARD)
    judgement = engine.judge(state, snap(BOARD.replace(". . . . G . .", ". . . . B . .")))
    assert judgement.kind == "illegal" and judgement.doubtful


def test_two_slides_moved_is_illegal():
    engine = make_engine()
    state = movement_state(engine, BOARD)
    two = BOARD.replace("orange: B B B B B B B", "orange: B B C B B B B").replace(
        "white:  A B B B B B B", "white:  A B B B B C B"
    )
    judgement = engine.judge(state, snap(two))
    assert judgement.kind == "illegal"
    assert judgement.reason == ("2 slides moved (orange slide 3, white slide 6); move exactly one slide by one notch")


def test_a_slide_moved_two_notches_is_illegal():
    engine = make_engine()
    state = movement_state(engine, BOARD)
    jump = BOARD.replace("white:  A B B B B B B", "white:  C B B B B B B")
    judgement = engine.judge(state, snap(jump))
    assert judgement.kind == "illegal"
    assert judgement.reason.startswith("white slide 1 moved two notches (A to C)")


def test_a_marble_appearing_in_the_movement_phase_is_illegal():
    engine = make_engine()
    state = movement_state(engine, BOARD)
    judgement = engine.judge(state, snap(BOARD.replace(". . . . . . G", ". . . . . G G")))
    assert judgement.kind == "illegal" and judgement.cells == ((6, 5),)


def test_the_slide_the_previous_mover_moved_is_banned():
    engine = make_engine(players=3)
    board = BOARD.replace(". . . . . . G", ". . . . . . B")
    state = movement_state(engine, board, to_move=1, recent=(0,))  # red moved orange slide 0 last
    back = board.replace("orange: B B B B B B B", "orange: C B B B B B B")
    judgement = engine.judge(state, snap(back))
    assert judgement.kind == "illegal"
    assert judgement.reason == "orange slide 1 was moved by the previous player; move another slide"
    assert all(move.slide != 0 for move in engine.legal_moves(state))


# --------------------------------------------------------------------------- the two-player rule

# Slides 5 (orange, row 5) and 12 (white slide 5) open nothing under these marbles when moved
# between B and C, so the two-player tests can move them freely.
QUIET = """
orange: B B B B B B B
white:  B B B B B B B
R . . . . . .
. R . . . . .
. . . . . . .
. . . . . . .
. . . . G . .
. . . . . . .
. . . . . . G
"""


def play(engine: StayAliveEngine, state: StayAliveState, moves: list[str]) -> StayAliveState:
    for text in moves:
        state, events = engine.apply(state, slide_move(engine, state, text))
        assert events == ()
    return state


def test_own_twice_forbids_a_third_own_consecutive_move_of_the_same_slide():
    engine = make_engine(rule="own_twice")
    state = movement_state(engine, QUIET)
    state = play(engine, state, ["orange 5 B->C", "white 5 B->C", "orange 5 C->B", "white 5 C->B"])
    # red moved orange slide 5 on both of their last two turns
    reasons = engine.banned(state, 0)
    assert reasons[5] == (
        "player 1 (red) moved orange slide 6 on their last two turns; with two "
        "players left a player may move the same slide only twice in a row"
    )
    third = QUIET.replace("orange: B B B B B B B", "orange: B B B B B C B")
    assert engine.judge(state, snap(third)).kind == "illegal"


def test_own_twice_keeps_the_previous_mover_ban_with_two_players():
    engine = make_engine(rule="own_twice")
    state = play(engine, movement_state(engine, QUIET), ["orange 5 B->C"])
    back = QUIET  # green moves orange 5 back from C to B
    assert engine.judge(state, snap(back)).reason.startswith("orange slide 6 was moved by the previous player")


def test_lift_ban_lets_a_player_move_the_slide_the_previous_player_moved():
    engine = make_engine(rule="lift_ban")
    state = play(engine, movement_state(engine, QUIET), ["orange 5 B->C"])
    back = QUIET  # green moves orange 5 back from C to B
    judgement = engine.judge(state, snap(back))
    assert judgement.kind == "legal" and judgement.move == "orange 5 C->B"


def test_lift_ban_forbids_any_slide_moved_three_times_in_a_row():
    engine = make_engine(rule="lift_ban")
    state = play(engine, movement_state(engine, QUIET), ["orange 5 B->C", "orange 5 C->B"])
    third = QUIET.replace("orange: B B B B B B B", "orange: B B B B B C B")
    judgement = engine.judge(state, snap(third))
    assert judgement.kind == "illegal"
    assert judgement.reason.startswith("orange slide 6 was moved on each of the last two turns")


def test_with_three_players_left_the_two_player_rule_does_not_apply():
    engine = make_engine(players=3, rule="own_twice")
    board = QUIET.replace(". . . . . . G", ". . . . . . B")
    state = movement_state(engine, board)
    moves = ["orange 5 B->C", "white 5 B->C", "white 6 B->C", "orange 5 C->B", "white 5 C->B", "white 6 C->B"]
    state = play(engine, state, moves)
    assert 5 not in engine.banned(state, 0)  # red's third own move of orange slide 5 is fine
    assert engine.banned(state, 0) == {13: "white slide 7 was moved by the previous player; move another slide"}


# --------------------------------------------------------------------------- elimination, winner


THREE = """
orange: B B B B B B B
white:  A B B B B B B
R . . . . . .
. G . . . . .
. . . . . . .
. . . . . . .
. . . . B . .
. . . . . . .
. . . . . . .
"""


def test_a_player_without_marbles_is_eliminated_and_seat_order_skips_them():
    engine = make_engine(players=3)
    state = movement_state(engine, THREE, to_move=1)  # green to move
    after = THREE.replace("orange: B B B B B B B", "orange: A B B B B B B").replace("R . .", ". . .", 1)
    judgement = engine.judge(state, snap(after))
    assert judgement.kind == "legal"
    assert judgement.events == (FELL((0, 0)), GameEvent.eliminated(0))
    assert engine.to_move(judgement.state) == 2
    state = judgement.state
    state, _ = engine.apply(state, slide_move(engine, state, "white 6 B->C"))  # blue
    assert engine.to_move(state) == 1  # red is skipped
    assert not engine.is_over(state)


def test_the_last_player_with_marbles_wins():
    engine = make_engine()
    board = BOARD.replace(". R . . . . .", ". . . . . . .")  # red has only 0,0 left
    state = movement_state(engine, board, to_move=1)
    after = board.replace("orange: B B B B B B B", "orange: A B B B B B B").replace("R . .", ". . .", 1)
    judgement = engine.judge(state, snap(after))
    assert judgement.events == (FELL((0, 0)), GameEvent.eliminated(0))
    assert engine.is_over(judgement.state) and engine.to_move(judgement.state) is None
    assert engine.result(judgement.state).to_json() == {
        "finished": True,
        "winners": [1],
        "scores": [0, 2],
        "reason": "player 2 (green) wins: the last player with marbles on the grid, 2 marbles left",
    }


# Moving white 0 from B to A opens 0,0 and 3,0 (orange 0 and orange 3 are at A).
LAST_TWO = """
orange: A B B A B B B
white:  B B B B B B B
R . . . . . .
. . . . . . .
. . . . . . .
G . . . . . .
. . . . . . .
. . . . . . .
. . . . . . .
"""


def test_when_one_move_takes_every_remaining_players_last_marbles_the_mover_wins():
    engine = make_engine()
    state = movement_state(engine, LAST_TWO, to_move=0)
    after = LAST_TWO.replace("white:  B", "white:  A").replace("R . .", ". . .", 1).replace("G . .", ". . .", 1)
    judgement = engine.judge(state, snap(after))
    assert judgement.kind == "legal"
    assert judgement.events == (FELL((0, 0)), FELL((3, 0)), GameEvent.eliminated(1))
    result = engine.result(judgement.state)
    assert result.finished and result.winners == (0,) and result.scores == (0, 0)
    assert "took the last marbles of every remaining player" in result.reason


def test_a_mover_who_drops_their_own_last_marble_is_out_while_others_remain():
    engine = make_engine(players=3)
    board = """
orange: A B B A B B B
white:  B B B B B B B
R . . . . . .
. . . . . . .
. . . . . . .
G . . . . . .
. . . . . . B
. . . . . . .
. . . . . . .
"""
    state = movement_state(engine, board, to_move=0)
    after = board.replace("white:  B", "white:  A").replace("R . .", ". . .", 1).replace("G . .", ". . .", 1)
    judgement = engine.judge(state, snap(after))
    assert judgement.events == (
        FELL((0, 0)),
        FELL((3, 0)),
        GameEvent.eliminated(0),
        GameEvent.eliminated(1),
    )
    assert engine.result(judgement.state).winners == (2,)


def test_a_stuck_last_marble_still_eliminates_its_player():
    engine = make_engine()
    board = BOARD.replace(". R . . . . .", ". . . . . . .")
    state = movement_state(engine, board, to_move=1)
    after = board.replace("orange: B B B B B B B", "orange: A B B B B B B")  # 0,0 still seen
    judgement = engine.judge(state, snap(after))
    assert judgement.events == (EXPECTED_FALL_MISSING((0, 0)), GameEvent.eliminated(0))
    assert engine.result(judgement.state).winners == (1,)


def test_any_change_after_the_game_is_over_is_illegal():
    engine = make_engine()
    board = BOARD.replace(". R . . . . .", ". . . . . . .")
    state = movement_state(engine, board, to_move=1)
    after = board.replace("orange: B B B B B B B", "orange: A B B B B B B").replace("R . .", ". . .", 1)
    over = engine.judge(state, snap(after)).state
    assert engine.judge(over, snap(after)).kind == "unchanged"
    moved = after.replace("white:  A", "white:  B")
    assert engine.judge(over, snap(moved)).reason.startswith("the game is over")


# --------------------------------------------------------------------------- record content


@pytest.mark.parametrize("players", [1, 5])
def test_player_count_outside_two_to_four_is_a_config_error(players):
    with pytest.raises(ConfigError, match="2 to 4 players"):
        make_engine(players=players)


def test_a_seat_colour_used_twice_is_a_config_error():
    setup = GameSetup("stay-alive", default_profile("stay-alive"), players=2, seats=("R", "R"))
    with pytest.raises(ConfigError, match="given to two seats"):
        StayAliveEngine(setup)


def test_marbles_per_player_comes_from_the_profile():
    engine = make_engine(players=4, marbles_per_player=12)
    assert engine.total == 48
    check = engine.check_setup(snap(board_text({})))  # all B: 6 open points, 43 closed
    assert not check.ok and "only 43 points are closed but 48 marbles" in check.reason


def test_seats_default_to_the_first_class_letters_and_the_first_seat_starts():
    engine = make_engine(players=3, first=2)
    assert engine.seats == tuple(SEAT_COLOURS[:3])
    state = engine.start(snap(board_text({})))
    assert engine.to_move(state) == 2
