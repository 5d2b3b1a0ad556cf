"""What a computer player's search costs (issue 29: at most 1 s per move): the tree lists a position's
moves once, playouts draw a move without listing them all (every move drawn legal), the cheaper
Colorpop and Blockers! helpers say what the plain ones say, and a computer seat is prepared before
its game's clock starts. The figures live in `bench/ai_think.py` and `bench/ai_bench.py`."""

from __future__ import annotations

import random
import threading
from collections import Counter
from dataclasses import replace

import fifth_game
import pytest

from controller.ai import knowledge_for, levels, match
from controller.ai.knowledge import GameKnowledge
from controller.ai.players import RandomPlayer, SearchPlayer, search_player
from controller.ai.search import Search, SearchSettings
from controller.ai.table import warm
from controller.games import registry
from controller.games.blockers.ai import groups_by_colour
from controller.games.blockers.board import EMPTY, count_groups
from controller.games.colorpop import rules as colorpop_rules
from controller.games.colorpop.ai import _weighted_counts
from controller.games.flipop import rules as flipop_rules
from controller.games.registry import engine_for
from controller.grid import connected_groups, groups_by_value
from controller.record import setup_from_mapping
from controller.service import loop as loop_module
from simulation.world import StubRig

GAMES = {
    "colorpop": {"game": "colorpop", "players": 2},
    "blockers": {"game": "blockers", "variant": "two-player", "players": 2, "seats": [["R", "G"], ["B", "Y"]]},
    "flipop": {"game": "flipop", "players": 2},
    "stay-alive": {"game": "stay-alive", "players": 2, "seats": ["B", "Y"]},
}


@pytest.fixture(autouse=True, scope="module")
def _the_fifth_game_is_known():
    with registry.registered(fifth_game.SPEC):
        yield


def _positions(game: str, seed: int, games: int = 3):
    """(engine, state as the mover sees it, the mover's private part) along random games."""
    setup = setup_from_mapping(GAMES[game])
    knowledge = knowledge_for(game)
    rng = random.Random(seed)
    for _ in range(games):
        engine, state = match.start(setup, rng)
        hidden = knowledge.deal(engine, state, rng)
        state = knowledge.resolve(engine, state, hidden)
        while not engine.is_over(state) and engine.to_move(state) is not None:
            seat = engine.to_move(state)
            private = knowledge.private(engine, hidden, seat)
            yield engine, state, private
            moves = knowledge.moves(engine, state, private)
            move = moves[rng.randrange(len(moves))]
            hidden = knowledge.after_move(engine, state, move, hidden, rng)
            state = engine.apply(state, move)[0]


@pytest.mark.parametrize("game", ["colorpop", "blockers"])
def test_a_playouts_move_is_always_one_the_seat_may_make(game):
    """Colorpop's playouts take a random token's group and Blockers!' a random placement of one
    colour, without listing every move: each such move must be one of the seat's moves."""
    knowledge = knowledge_for(game)
    rng = random.Random(11)
    drawn = 0
    for engine, state, private in _positions(game, 4):
        moves = knowledge.moves(engine, state, private)
        for _ in range(3):
            move, work = knowledge.playout_move(engine, state, private, rng)
            assert work >= 1
            if move is None:
                assert not moves
                continue
            assert move in moves, (move, state)
            assert move in engine.legal_moves(state)
            drawn += 1
    assert drawn > 200


def test_blockers_playouts_capture_only_when_no_rack_tile_fits_an_empty_place():
    knowledge = knowledge_for("blockers")
    rng = random.Random(2)
    captures = 0
    for engine, state, private in _positions("blockers", 7, games=2):
        for _ in range(3):
            move, _work = knowledge.playout_move(engine, state, private, rng)
            if move is not None and state.board[move.cell[0]][move.cell[1]] != EMPTY:
                captures += 1
                colour_moves = [m for m in knowledge.moves(engine, state, private) if m.colour == move.colour]
                assert all(state.board[m.cell[0]][m.cell[1]] != EMPTY for m in colour_moves)
    assert captures  # the end of a game has captures


def test_blockers_groups_are_counted_in_one_scan_as_colour_by_colour():
    rng = random.Random(3)
    for _ in range(300):
        fill = rng.random()
        board = tuple(
            tuple(rng.choice("RGBY") + "1" if rng.random() < fill else EMPTY for _c in range(9)) for _r in range(9)
        )
        counted = groups_by_colour(board)
        for colour in "RGBY":
            assert counted.get(colour, 0) == count_groups(board, colour), (board, colour)


def _settle_plainly(board):
    """SameGame's gravity written plainly: each column's tokens fall, empty columns go right."""
    rows, cols = len(board), len(board[0])
    columns = []
    for c in range(cols):
        tokens = [board[r][c] for r in range(rows) if board[r][c] != colorpop_rules.EMPTY]
        if tokens:
            columns.append([colorpop_rules.EMPTY] * (rows - len(tokens)) + tokens)
    while len(columns) < cols:
        columns.append([colorpop_rules.EMPTY] * rows)
    return tuple(tuple(columns[c][r] for c in range(cols)) for r in range(rows))


def test_colorpop_settling_and_clearing_say_what_the_plain_count_says():
    """`settle` and the colours a move clears are worked out more cheaply for the search: the same
    boards and the same cleared colours as gravity and a count of the whole board."""
    rng = random.Random(6)
    seen_cleared = 0
    for engine, state, _private in _positions("colorpop", 5, games=6):
        if rng.random() < 0.3:  # a colour down to its last group: a move clears it
            last = rng.choice(engine.colours)
            others = [c for c in engine.colours if c != last]
            board = [[v if v != last else rng.choice(others) for v in row] for row in state.board]
            board[-1][0] = board[-1][1] = last
            state = replace(state, board=colorpop_rules.settle(board))
        holes = [[v if rng.random() < 0.8 else colorpop_rules.EMPTY for v in row] for row in state.board]
        assert colorpop_rules.settle(holes) == _settle_plainly(holes)
        for move in engine.legal_moves(state):
            after = engine.apply(state, move)[0]
            before_count = Counter(v for row in state.board for v in row)
            after_count = Counter(v for row in after.board for v in row)
            plainly = [ch for ch in engine.colours if before_count[ch] > 0 and after_count[ch] == 0]
            assert [ch for ch, _n, _t in after.cleared[len(state.cleared) :]] == plainly
            seen_cleared += bool(plainly)
    assert seen_cleared


def test_groups_by_value_finds_the_groups_a_plain_flood_finds():
    rng = random.Random(8)
    for _ in range(200):
        rows, cols = rng.randint(1, 9), rng.randint(1, 9)
        grid = [[rng.choice("ab.") for _c in range(cols)] for _r in range(rows)]
        found = groups_by_value(grid, lambda v: None if v == "." else v)
        plain = []
        for letter in "ab":
            cells = [(r, c) for r in range(rows) for c in range(cols) if grid[r][c] == letter]
            plain += [(letter, sorted(g)) for g in connected_groups(cells)]
        assert sorted((k, sorted(g)) for k, g in found) == sorted(plain)


def test_colorpop_the_evaluation_weighs_a_token_alone_of_its_colour_one_and_a_half():
    rng = random.Random(9)
    for _ in range(100):
        board = [[rng.choice("GYJ.") for _c in range(10)] for _r in range(10)]
        plain: Counter = Counter()
        for r in range(10):
            for c in range(10):
                v = board[r][c]
                if v == ".":
                    continue
                near = [(r + dr, c + dc) for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1))]
                alone = not any(0 <= a < 10 and 0 <= b < 10 and board[a][b] == v for a, b in near)
                plain[v] += 1.5 if alone else 1.0
        assert _weighted_counts(board) == dict(plain)


class _Counting(GameKnowledge):
    """The fifth game's (no knowledge), counting how often each position's moves are listed."""

    def __init__(self) -> None:
        self.listed: Counter = Counter()

    def moves(self, engine, state, private):
        self.listed[state] += 1
        return engine.legal_moves(state)


def test_a_search_lists_a_tree_positions_moves_once():
    """Every iteration walks down the tree through the same positions: their moves are listed once
    per search (Colorpop's listing was most of an iteration's time), and the choice is the same."""
    engine, start = match.start(setup_from_mapping({"game": fifth_game.NAME, "players": 2}), random.Random(0))
    counting = _Counting()
    settings = SearchSettings(iterations=300, playout_depth=0)
    choice = Search(counting, settings).choose(engine, start, 0, None, random.Random(1))
    assert choice.iterations == 300
    assert counting.listed[start] <= 2  # the root's legal moves once more, before the tree
    assert max(n for state, n in counting.listed.items() if state != start) == 1
    private = _Counting()
    private.private_moves = True  # moves that hang on a seat's private part are listed each time
    again = Search(private, settings).choose(engine, start, 0, None, random.Random(1))
    assert again.move == choice.move and max(private.listed.values()) > 1


class _Recorder(SearchPlayer):
    def __init__(self, player: SearchPlayer, calls: list) -> None:
        super().__init__(player.search, player.name)
        self.calls = calls

    def warm(self, engine, view, seat, private):
        self.calls.append("warm")
        super().warm(engine, view, seat, private)

    def choose(self, engine, view, seat, private, rng):
        self.calls.append("choose")
        return super().choose(engine, view, seat, private, rng)


def test_a_match_prepares_its_computer_players_before_the_first_move_and_they_choose_the_same():
    """A cold Flipop first move took twice the time of a later one (the rules' caches empty): the
    players are prepared before the game's clock starts, and choose exactly what they would have."""
    setup = setup_from_mapping(GAMES["flipop"])
    player = search_player("flipop", "test", SearchSettings(iterations=20))
    calls: list[str] = []
    warmed = match.play(setup, [_Recorder(player, calls), RandomPlayer(knowledge_for("flipop"))], random.Random(3), 30)
    assert calls[0] == "warm" and calls.count("warm") == 1 and calls[1] == "choose"

    class Cold(SearchPlayer):
        warm = None  # type: ignore[assignment]

    cold = match.play(setup, [Cold(player.search, "cold"), RandomPlayer(knowledge_for("flipop"))], random.Random(3), 30)
    assert (cold.winners, cold.plies) == (warmed.winners, warmed.plies)


def test_warming_a_flipop_seat_fills_the_rules_caches_and_a_shuffled_start_is_not_warmed():
    engine = engine_for(setup_from_mapping(GAMES["flipop"]))
    flipop_rules._options_cached.cache_clear()  # earlier tests may have filled it to its limit
    assert warm(engine, {1: "beginner"}, "seed")
    assert flipop_rules._options_cached.cache_info().currsize > 0
    colorpop = engine_for(setup_from_mapping(GAMES["colorpop"]))
    assert not warm(colorpop, {1: "beginner"}, "seed")  # the tokens are shuffled: the start is not known


def test_a_computer_seat_is_prepared_while_its_board_is_set_up(tmp_path, monkeypatch):
    """At the table the computer gets ready on its own thread as soon as its game is opened, before
    the setup is seen and before it thinks of its first move."""
    calls: list[tuple[str, bool]] = []
    warmed, thought = threading.Event(), threading.Event()
    real_warm, real_think = loop_module.warm, loop_module.think

    def recording_warm(engine, seats, seed):
        calls.append(("warm", rig.loop.session.referee.started))
        real_warm(engine, seats, seed)
        warmed.set()

    def recording_think(*args, **kwargs):
        calls.append(("think", rig.loop.session.referee.started))
        thought.set()
        return real_think(*args, **kwargs)

    monkeypatch.setattr(loop_module, "warm", recording_warm)
    monkeypatch.setattr(loop_module, "think", recording_think)
    keys = dict(GAMES["flipop"], computer=["beginner", None])
    rig = StubRig(keys, tmp_path / "j.sqlite", seed=1, troubles=False, max_moves=4)
    rig.loop.think_in_background = True
    referee = rig.loop.session.referee
    steps = rig.player.steps()
    rig.driver.run_frames(1)
    assert warmed.wait(30)
    while not referee.started:
        rig.driver.do(next(steps))
    rig.driver.run_frames(2)
    assert thought.wait(30)
    assert calls[0] == ("warm", False)
    assert ("think", True) in calls and calls.count(("warm", False)) == 1
    rig.loop._thinker_pool().shutdown(wait=True)


def test_the_levels_keep_their_order_of_iterations_in_every_game():
    for game in GAMES:
        budgets = [round(levels.LEVELS[n].iterations * knowledge_for(game).effort) for n in levels.level_names()]
        assert budgets == sorted(budgets) and len(set(budgets)) == len(budgets), game
