"""The computer player (`controller.ai`): one search for every registered game, its levels, and
hidden information respected (the search's move depends only on what its seat may know)."""

from __future__ import annotations

import math
import random
from dataclasses import replace

import fifth_game
import pytest

from controller.ai import knowledge_for, levels, match
from controller.ai.knowledge import GameKnowledge
from controller.ai.players import GreedyPlayer, RandomPlayer, search_player
from controller.ai.search import Search, SearchSettings, rewards_of
from controller.games import registry
from controller.games.blockers.board import EMPTY, capture_splits, cut_cells
from controller.record import setup_from_mapping
from controller.snapshot import Snapshot, parse_snapshot


@pytest.fixture(autouse=True, scope="module")
def _the_fifth_game_is_known():
    """The test suite's fifth game gets a player too, with no knowledge declared."""
    with registry.registered(fifth_game.SPEC):
        yield


TWO_PLAYER = {
    "colorpop": {"game": "colorpop", "players": 2},
    "blockers": {"game": "blockers", "variant": "two-player", "players": 2, "seats": [["R", "G"], ["B", "Y"]]},
    "flipop": {"game": "flipop", "players": 2},
    "stay-alive": {"game": "stay-alive", "players": 2, "seats": ["B", "Y"]},
    fifth_game.NAME: {"game": fifth_game.NAME, "players": 2},
}


@pytest.mark.parametrize("game", sorted(TWO_PLAYER))
def test_every_registered_game_gets_a_player_that_finishes_a_game(game):
    """The beginner plays a whole game against the random player: every move it makes is legal
    for its seat (as its seat knows the moves), in every game, the test suite's fifth included."""
    setup = setup_from_mapping(TWO_PLAYER[game])
    ours = search_player(game, "test", SearchSettings(iterations=12, seconds=5.0))
    knowledge = knowledge_for(game)
    rng = random.Random(3)
    engine, state = match.start(setup, rng)
    hidden = knowledge.deal(engine, state, rng)
    state = knowledge.resolve(engine, state, hidden)
    players = [ours, RandomPlayer(knowledge)]
    for _ in range(60):
        if engine.is_over(state):
            break
        seat = engine.to_move(state)
        private = knowledge.private(engine, hidden, seat)
        view = knowledge.observe(engine, state, seat)
        move = players[seat].choose(engine, view, seat, private, rng).move
        assert move in knowledge.moves(engine, view, private)
        assert move in engine.legal_moves(state)
        hidden = knowledge.after_move(engine, state, move, hidden, rng)
        state = engine.apply(state, move)[0]


def test_the_search_beats_random_play_at_noughts_and_crosses_without_any_game_knowledge():
    setup = setup_from_mapping(TWO_PLAYER[fifth_game.NAME])
    ours = search_player(fifth_game.NAME, "test", SearchSettings(iterations=300))
    other = RandomPlayer(knowledge_for(fifth_game.NAME))
    lost = 0
    won = 0
    for i in range(10):
        seat = i % 2
        outcome = match.play(setup, [ours, other] if seat == 0 else [other, ours], random.Random(i))
        won += outcome.winners == (seat,)
        lost += outcome.winners == (1 - seat,)
    assert lost == 0
    assert won >= 6


def test_the_search_takes_a_win_in_one_and_blocks_a_loss_in_one():
    engine, _ = match.start(setup_from_mapping(TWO_PLAYER[fifth_game.NAME]), random.Random(0))
    search = Search(knowledge_for(fifth_game.NAME), SearchSettings(iterations=400))
    win = engine.start(parse_snapshot(fifth_game.NAME, "X X .\nO O .\n. . .", letters="XO"))
    assert search.choose(engine, win, 0, None, random.Random(1)).move == (0, 2)
    block = replace(engine.start(parse_snapshot(fifth_game.NAME, "X . .\nO O .\nX . .", letters="XO")), to_move=0)
    assert search.choose(engine, block, 0, None, random.Random(1)).move == (1, 2)


def test_the_same_seed_gives_the_same_choice():
    setup = setup_from_mapping(TWO_PLAYER["stay-alive"])
    engine, state = match.start(setup, random.Random(4))
    player = levels.player("stay-alive", "beginner")
    first = player.choose(engine, state, 0, None, random.Random(9)).move
    assert player.choose(engine, state, 0, None, random.Random(9)).move == first


class _Costly(GameKnowledge):
    """A game's knowledge that declares what one iteration may cost."""

    work_per_iteration = 12.0


def test_a_search_stops_once_its_iterations_have_cost_what_the_game_allows_the_same_way_every_time():
    """The strongest level thought 3 s on Blockers!' and 1.6 s on Colorpop's first moves (many moves
    each), against 1 s wanted: a position whose iterations list many moves gets fewer of them, the
    same on any machine (work is counted, no clock)."""
    engine, start = match.start(setup_from_mapping(TWO_PLAYER[fifth_game.NAME]), random.Random(0))
    settings = SearchSettings(iterations=200, seconds=math.inf)
    free = Search(knowledge_for(fifth_game.NAME), settings).choose(engine, start, 0, None, random.Random(1))
    assert free.iterations == 200
    assert free.work > 200 * 12  # an empty board's iterations list and make more than 12 moves each
    first = Search(_Costly(), settings).choose(engine, start, 0, None, random.Random(1))
    assert first.iterations < 200
    assert 200 * 12 <= first.work < 200 * 12 + free.work / free.iterations * 3
    again = Search(_Costly(), settings).choose(engine, start, 0, None, random.Random(1))
    assert (again.move, again.iterations, again.work) == (first.move, first.iterations, first.work)
    # late in a game an iteration costs less than allowed: every iteration is played
    late = engine.start(parse_snapshot(fifth_game.NAME, "X O X\nO X .\nO . .", letters="XO"))
    assert Search(_Costly(), settings).choose(engine, late, 0, None, random.Random(1)).iterations == 200


def test_the_games_declare_what_a_search_iteration_may_cost():
    for game in ("colorpop", "blockers", "flipop", "stay-alive"):
        assert knowledge_for(game).work_per_iteration


def test_levels_are_named_weakest_first_and_the_strongest_thinks_most():
    names = levels.level_names()
    assert len(names) >= 3
    budgets = [levels.LEVELS[n].iterations for n in names]
    assert budgets == sorted(budgets) and len(set(budgets)) == len(budgets)


# --- hidden information: never peek ---------------------------------------------------------


def _colorpop_game(seed: int):
    setup = setup_from_mapping(TWO_PLAYER["colorpop"])
    rng = random.Random(seed)
    engine, state = match.start(setup, rng)
    return engine, state


def test_colorpop_the_computer_never_peeks_at_the_other_secret_colour():
    """The search's move is the same whatever the opponent's true colour: it sees only the view."""
    engine, state = _colorpop_game(2)
    knowledge = knowledge_for("colorpop")
    search = Search(knowledge, SearchSettings(iterations=30))
    choices = set()
    for theirs in ("Y", "O", "B", "P"):
        true_state = replace(state, secrets=(("G",), (theirs,)))
        view = knowledge.observe(engine, true_state, 0)
        assert view.secrets == (None, None)
        choices.add(search.choose(engine, view, 0, ["G"], random.Random(5)).move)
    assert len(choices) == 1


def test_colorpop_samples_keep_the_own_colour_and_follow_what_the_others_removed():
    engine, state = _colorpop_game(3)
    knowledge = knowledge_for("colorpop")
    removed = list(state.removed)
    removed[1] = tuple((ch, 12 if ch == "B" else 0) for ch, _ in removed[1])  # seat 2 removed many blue
    state = replace(state, removed=tuple(removed))
    rng = random.Random(1)
    drawn = [knowledge.sample(engine, state, 0, ["G"], rng) for _ in range(200)]
    assert all(s[0] == ("G",) and s[1] != ("G",) for s in drawn)
    blue = sum(s[1] == ("B",) for s in drawn)
    assert blue > 150  # e^(0.25 x 12) = 20 times likelier than each other colour


def test_colorpop_equal_tokens_left_favour_whoever_removed_fewer_of_their_own_as_the_tie_break_does():
    """A strong game against random play was lost 2 tokens to 2 on the rules' tie-break (fewest of
    one's own colour removed by oneself), which the evaluation did not know: equal counts were even."""
    engine, state = _colorpop_game(4)
    knowledge = knowledge_for("colorpop")
    state = replace(state, secrets=(("G",), ("B",)))

    def removed_own(green: int, blue: int):
        tallies = [tuple((ch, green if ch == "G" else 0) for ch, _ in state.removed[0])]
        tallies.append(tuple((ch, blue if ch == "B" else 0) for ch, _ in state.removed[1]))
        return replace(state, removed=tuple(tallies))

    even = knowledge.evaluate(engine, removed_own(3, 3))
    more_mine = knowledge.evaluate(engine, removed_own(8, 3))
    fewer_mine = knowledge.evaluate(engine, removed_own(0, 3))
    assert more_mine[0] < even[0] < fewer_mine[0]
    assert more_mine[1] > even[1] > fewer_mine[1]


def test_colorpop_samples_never_give_another_seat_a_colour_already_cleared():
    engine, state = _colorpop_game(4)
    knowledge = knowledge_for("colorpop")
    state = replace(state, cleared=(("Y", 3, state.removed),))
    rng = random.Random(2)
    assert all(knowledge.sample(engine, state, 0, ["G"], rng)[1] != ("Y",) for _ in range(100))


def test_colorpop_playouts_go_for_the_movers_own_colour():
    """A playout's mover takes a group of its own colour (as it is in the determinization) most of
    the time, as players do (the fewest of one's colour left wins). Before, it took a random token's
    group: about one move in five of its colour, so the search judged moves by games nobody plays."""
    knowledge = knowledge_for("colorpop")
    engine, state = _colorpop_game(6)
    rng = random.Random(3)
    mine = 0
    for colour in engine.colours:
        for _ in range(100):
            move, _work = knowledge.playout_move(engine, state, [colour], rng)
            assert move in engine.legal_moves(state)
            mine += move.colour == colour
    assert mine > 0.5 * 100 * len(engine.colours)


def test_colorpop_solo_playouts_stop_before_a_failure_the_search_would_score_as_a_success():
    """A one-seat game that ends without a winner reads as an even share (1.0) to the search: a
    solo playout that ran into a failure would judge it a success. It stops before, for the
    evaluation to judge; a playout may still end in success."""
    setup = setup_from_mapping({"game": "colorpop", "variant": "solo", "players": 1, "targets": ["G", "B"]})
    knowledge = knowledge_for("colorpop")
    rng = random.Random(8)
    stopped = 0
    for _game in range(4):
        engine, state = match.start(setup, rng)
        while not engine.is_over(state):
            for _ in range(3):
                move, _work = knowledge.playout_move(engine, state, None, rng)
                if move is None:
                    stopped += 1
                    continue
                after = engine.apply(state, move)[0]
                assert not (engine.is_over(after) and not engine.winners(after)), "a playout ran into a failure"
            moves = engine.legal_moves(state)
            state = engine.apply(state, moves[rng.randrange(len(moves))])[0]
    assert stopped


def _blockers():
    setup = setup_from_mapping(TWO_PLAYER["blockers"])
    rng = random.Random(5)
    engine, state = match.start(setup, rng)
    return engine, state, knowledge_for("blockers"), rng


def test_blockers_moves_come_from_the_rack_and_capture_only_when_no_rack_tile_fits_an_empty_place():
    engine, state, knowledge, rng = _blockers()
    private = {"R": ["1", "A", "a", "*", "5"], "G": ["2", "3", "4", "6", "7"]}
    moves = knowledge.moves(engine, state, private)
    assert moves and all(m.glyph in private[m.colour] for m in moves)
    assert {m.colour for m in moves} == {"R", "G"}
    # Fill every place a red "1" could go except with a lone blue tile at A1: red may capture it.
    board = [list(row) for row in state.board]
    for r in range(9):
        board[r][0] = "B1" if r == 0 else ("Y" + "ABCDEFGHI"[r])
    text = "\n".join(" ".join(c if c != EMPTY else ".." for c in row) for row in board)
    crowded = engine.position(parse_snapshot("blockers", text, letters="RGBYV"), 0)
    only_one = knowledge.moves(engine, crowded, {"R": ["1"], "G": ["2"]})
    red = [m for m in only_one if m.colour == "R"]
    assert red and all(crowded.board[m.cell[0]][m.cell[1]] != EMPTY for m in red)
    assert all(crowded.board[m.cell[0]][m.cell[1]] == EMPTY for m in only_one if m.colour == "G")


def test_blockers_a_placed_tile_leaves_the_rack_and_one_is_drawn_from_the_colours_box():
    engine, state, knowledge, rng = _blockers()
    hidden = knowledge.deal(engine, state, rng)
    racks = dict(hidden)
    assert all(len(r) == 5 and len(set(r)) == 5 for r in racks.values())
    private = knowledge.private(engine, hidden, 0)
    move = knowledge.moves(engine, state, private)[0]
    after = knowledge.after_move(engine, state, move, private, rng)
    new_state = engine.apply(state, move)[0]
    rack = after[move.colour]
    assert move.glyph not in rack and len(rack) == 5
    assert set(rack) <= new_state.available[engine.colour_index[move.colour]]
    assert after[[c for c in private if c != move.colour][0]] == private[[c for c in private if c != move.colour][0]]


def test_blockers_the_tiles_whose_capture_splits_a_group_are_found_in_one_walk_as_the_rules_find_them():
    """The computer's moves list captures with `cut_cells` (one walk of the board instead of one
    per tile: an end-game move took 2 s); it must agree with the rules' `capture_splits`."""
    rng = random.Random(5)
    checked = 0
    for _ in range(300):
        fill = rng.random()
        board = tuple(
            tuple(rng.choice("RGBY") + "1" if rng.random() < fill else EMPTY for _c in range(9)) for _r in range(9)
        )
        cuts = cut_cells(board)
        for r in range(9):
            for c in range(9):
                if board[r][c] != EMPTY:
                    assert ((r, c) in cuts) == capture_splits(board, (r, c)), (board, r, c)
                    checked += 1
    assert checked > 5000


def test_blockers_the_computer_never_peeks_at_the_other_racks():
    engine, state, knowledge, rng = _blockers()
    search = Search(knowledge, SearchSettings(iterations=20))
    private = {"R": ["1", "A", "a", "*", "5"], "G": ["2", "3", "4", "6", "7"]}
    choices = {search.choose(engine, state, 0, private, random.Random(8)).move for _ in range(2)}
    assert len(choices) == 1
    assert next(iter(choices)).glyph in private[next(iter(choices)).colour]


def test_the_greedy_player_takes_the_move_its_game_judges_best():
    """Stay Alive: a slide that drops the other's marble and none of the greedy player's own."""
    setup = setup_from_mapping(TWO_PLAYER["stay-alive"])
    engine, state = match.start(setup, random.Random(1))
    knowledge = knowledge_for("stay-alive")
    rng = random.Random(2)
    while state.placing:
        state = engine.apply(state, RandomPlayer(knowledge).choose(engine, state, state.to_move, None, rng).move)[0]
    choice = GreedyPlayer(knowledge).choose(engine, state, state.to_move, None, rng)
    best = max(knowledge.evaluate(engine, engine.apply(state, m)[0])[state.to_move] for m in engine.legal_moves(state))
    assert knowledge.evaluate(engine, engine.apply(state, choice.move)[0])[state.to_move] == pytest.approx(best)


# --- Flipop: a lock of forced moves ends by agreement ---------------------------------------


def _flipop_position(rows: str, doors: str, to_move: int, forced: int):
    """A Flipop position from its balls and doors, then `forced` plies of the only legal move (so
    the push-back ban is the one play would leave)."""
    engine, _ = match.start(setup_from_mapping(TWO_PLAYER["flipop"]), random.Random(0))
    balls = tuple(tuple(row) for row in rows.split())
    state = engine.position(Snapshot("flipop", balls, {"doors": tuple(doors.split())}), to_move=to_move)
    for _ in range(forced):
        (move,) = engine.legal_moves(state)
        state = engine.apply(state, move)[0]
    return engine, state


#: Doors and balls where each seat has one legal move and eight plies lead back (seen in play).
LOCK_DOORS = "S E N W E NS EW S N EW NS W N E E N"
LOCKED_AHEAD = "..BB. .B.B. ...WB W...W ...W."  # white 4 balls on the board, black 5


def test_flipop_a_lock_of_forced_moves_is_judged_as_the_end_by_agreement_would_end_it():
    """Before, the evaluation rated this lock by the balls' progress (0.94 for white) and the
    search walked into locks on equal balls as if they were won: games ran to the 200-ply cut."""
    knowledge = knowledge_for("flipop")
    engine, state = _flipop_position(LOCKED_AHEAD, LOCK_DOORS, to_move=1, forced=1)
    assert knowledge.settled(engine, state) == (1.0, 0.0)
    assert rewards_of(engine, state, knowledge, 2) == (1.0, 0.0)


def test_flipop_a_position_is_a_lock_only_when_its_forced_moves_lead_back_to_it():
    """The same balls and doors without the push-back ban the cycle carries: the forced moves
    never come back to this position (the ban differs), so it is not judged yet; a ply later it is."""
    knowledge = knowledge_for("flipop")
    engine, fresh = _flipop_position(LOCKED_AHEAD, LOCK_DOORS, to_move=1, forced=0)
    assert len(engine.legal_moves(fresh)) == 1
    assert knowledge.settled(engine, fresh) is None
    after = engine.apply(fresh, engine.legal_moves(fresh)[0])[0]
    assert knowledge.settled(engine, after) == (1.0, 0.0)
    # a seat with a choice is never locked: the first position of a game
    start = match.start(setup_from_mapping(TWO_PLAYER["flipop"]), random.Random(0))[1]
    assert len(engine.legal_moves(start)) > 1 and knowledge.settled(engine, start) is None


def test_a_locked_game_is_ended_by_agreement_at_once_not_at_the_ply_cut(monkeypatch):
    engine, state = _flipop_position(LOCKED_AHEAD, LOCK_DOORS, to_move=1, forced=1)
    monkeypatch.setattr(match, "start", lambda setup, rng: (engine, state))
    knowledge = knowledge_for("flipop")
    outcome = match.play(engine.setup, [RandomPlayer(knowledge), RandomPlayer(knowledge)], random.Random(1))
    assert outcome.settled and not outcome.cut_short
    assert outcome.plies == 0
    assert outcome.winners == (0,)  # white, with fewer balls on the board


class _CircleGame:
    """Seat 0 may go round a circle (A, B, A, ...: seat 1's only move brings it back) whose positions
    its evaluation likes, or leave it for a path of positions it likes less, which never come back."""

    class setup:  # noqa: N801 - the engine's setup, as the search reads it
        players = 2

    def to_move(self, state):
        return 0 if state == "A" else 1 if state == "B" else int(state[1:]) % 2

    def is_over(self, state):
        return False

    def legal_moves(self, state):
        return ("round", "leave") if state == "A" else ("back",) if state == "B" else ("on",)

    def apply(self, state, move):
        if state == "A":
            return ("B" if move == "round" else "X1"), ()
        return ("A" if state == "B" else f"X{int(state[1:]) + 1}"), ()


class _CircleKnowledge(GameKnowledge):
    playout_depth = 0

    def evaluate(self, engine, state):
        liked = 0.9 if state in ("A", "B") else 0.7
        return (liked, 1 - liked)


def test_a_search_that_comes_back_to_a_position_judges_the_circle_as_the_players_would_end_it():
    """Flipop's strong level went round a circle of its own choosing whose positions its evaluation
    liked, and never won; where positions can come back the circle is judged as its end (a draw)."""
    engine = _CircleGame()
    settings = SearchSettings(iterations=300)
    knowledge = _CircleKnowledge()
    assert Search(knowledge, settings).choose(engine, "A", 0, None, random.Random(1)).move == "round"
    knowledge.repeats = True
    assert Search(knowledge, settings).choose(engine, "A", 0, None, random.Random(1)).move == "leave"
