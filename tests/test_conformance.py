"""One conformance suite for every registered game (the four built-in ones and the test suite's fifth).

What any game must do, checked through the `Engine` interface alone, as OpenSpiel checks every
game with one test, over each game's setups (its demo one and `MORE_SETUPS`: variants, seatings,
rule settings) and positions anywhere from the start to the end of a random game: every legal
move's board is judged that move (seat, description, state, events); a whole game goes through the
referee legal to its result; a corrupted board (also of a legal move's board) is never judged
legal, and an illegal verdict says what and where; replays are deterministic; positions and moves
compare by value; snapshots, records, moves and positions survive their text forms, and a
journalled game exports to a record that judges the same.

What only one game has (Colorpop's gravity, Blockers! glyphs and scoring, Flipop's doors, Stay
Alive's slides and falling marbles) stays in `test_<game>_properties.py`.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass

import fifth_game
import lamp_game
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.errors import FormatError
from controller.games import registry
from controller.games.base import Engine
from controller.games.registry import engine_for
from controller.record import dump_record, parse_record, setup_from_mapping
from controller.referee import Referee, VerdictKind, judge_record
from controller.snapshot import EMPTY, Snapshot, format_snapshot, parse_snapshot
from simulation.random_play import Played, new_game, random_move, random_moves

GAMES = (*registry.names(), fifth_game.NAME, lamp_game.NAME)
CORRUPTIONS = (
    "a piece added",
    "a piece taken off",
    "a piece changed colour",
    "a piece moved",
    "two moves at once",
)
seeds = st.integers(min_value=0, max_value=2**32 - 1)


@pytest.fixture(autouse=True, scope="module")
def _the_fifth_game_is_known():
    """The test suite's fifth and sixth games are checked like the built-in ones while this module runs."""
    with registry.registered(fifth_game.SPEC), registry.registered(lamp_game.SPEC):
        yield


#: Which corruptions each game has shown, to guard that every kind occurs.
seen_corruptions: dict[str, Counter] = {g: Counter() for g in GAMES}
#: A cap on random games (a game that can go round in circles, as Flipop can, still ends here).
MOVES_AT_MOST = 150

#: Setups besides each game's demo one (keys as in a record's setup, notation.md §2), so that every
#: property below runs over each variant, seating and rule setting of the built-in games.
MORE_SETUPS: dict[str, list[dict]] = {
    "colorpop": [
        {"players": 2},
        {"players": 4},
        {"players": 5, "first": 4},
        {"variant": "solo", "players": 1, "targets": ["O", "Y"]},
        {"variant": "two-colours", "players": 2},
        {"variant": "teams", "players": 4, "first": 1},
    ],
    "blockers": [
        {"players": 4, "seats": ["Y", "V", "R", "G"], "first": 2},
        {"players": 5, "seats": ["R", "G", "B", "Y", "V"], "first": 4},
        {"variant": "two-player", "players": 2, "seats": [["R", "G"], ["B", "Y"]], "first": 1},
    ],
    "stay-alive": [
        {"players": 3, "seats": ["R", "G", "B"], "first": 2},
        {"players": 4},
        {"players": 2, "profile": {"settings": {"two_player_rule": "lift_ban"}}},
    ],
}


def _keys(game: str) -> dict:
    return dict(registry.get(game).demo) or {"game": game}


def _setups(game: str) -> list[dict]:
    """The setup keys the properties run over: the demo's, then `MORE_SETUPS`."""
    return [_keys(game)] + [{"game": game, **keys} for keys in MORE_SETUPS.get(game, [])]


@dataclass(frozen=True)
class Game:
    """A random game: its engine, setup keys (for a record), starting board and moves."""

    engine: Engine
    keys: dict
    board: Snapshot
    played: list[Played]

    def boards(self, moves: int | None = None) -> list[Snapshot]:
        """The starting board, then each move's board (the first `moves` moves; all by default)."""
        return [self.board] + [self.engine.expected(p.after) for p in self.played[:moves]]

    def record(self) -> str:
        boards = self.boards()
        return dump_record(self.engine.setup, boards[0], boards[1:], profile_overrides=self.keys.get("profile"))


def _game(game: str, rng: random.Random, max_moves: int = MOVES_AT_MOST) -> Game:
    """A game of random legal moves from a valid starting board, in one of the game's setups."""
    keys = rng.choice(_setups(game))
    engine, board, state = new_game(setup_from_mapping(keys, "conformance"), rng)
    return Game(engine, keys, board, list(random_moves(engine, state, rng, max_moves)))


def _position(game: str, rng: random.Random, max_moves: int = MOVES_AT_MOST):
    """An engine, a state at a random point of a random game (its start to its end), and the
    boards that led there."""
    played = _game(game, rng, max_moves)
    moves = rng.randrange(len(played.played) + 1)
    state = played.played[moves - 1].after if moves else played.engine.start(played.board)
    return played.engine, state, played.boards(moves)


@pytest.mark.parametrize("game", GAMES)
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=seeds)
@pytest.mark.slow
def test_the_board_a_legal_move_leaves_is_judged_that_move(game, seed):
    """Every legal move's board: legal, for the seat to move, with that move's description,
    state and events (several moves may leave one board, e.g. two jokers of one Colorpop slide:
    any of them will do)."""
    engine, state, _ = _position(game, random.Random(seed))
    by_board: dict[Snapshot, list] = {}
    for move in engine.legal_moves(state):
        after, events = engine.apply(state, move)
        by_board.setdefault(engine.expected(after), []).append((engine.describe(state, move), after, tuple(events)))
    for board, outcomes in by_board.items():
        judgement = engine.judge(state, board)
        assert judgement.kind == "legal", (outcomes[0][0], judgement.reason)
        assert judgement.seat == engine.to_move(state)
        assert (judgement.move, judgement.state, tuple(judgement.events)) in outcomes


@pytest.mark.parametrize("game", GAMES)
@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=seeds)
@pytest.mark.slow
def test_a_random_game_is_judged_legal_move_by_move_to_its_result(game, seed):
    """A whole game through the referee: every board legal for the seat that moved, the referee's
    state the engine's, a seat to move in a game not over always has a move (passes are made for
    it), and a finished game's result names seats of the game (or none yet: Colorpop's secret
    colours may still have to be told)."""
    rng = random.Random(seed)
    played = _game(game, rng)
    engine = played.engine
    referee = Referee(engine_for(engine.setup))
    assert referee.observe(played.board).verdict == VerdictKind.SETUP_OK
    for move in played.played:
        verdict = referee.observe(engine.expected(move.after))
        assert verdict.verdict == VerdictKind.LEGAL, verdict
        assert verdict.seat == engine.to_move(move.before)
        assert verdict.move in _same_board_moves(engine, move.before, move.move)
        assert referee.state == move.after
        assert engine.is_over(move.after) or engine.legal_moves(move.after)
    result = referee.result()
    last = played.played[-1].after if played.played else engine.start(played.board)
    assert result.finished == engine.is_over(last)
    assert set(result.winners or ()) <= set(range(engine.setup.players))


def _same_board_moves(engine, state, move) -> set[str]:
    """The descriptions of every legal move that leaves the board `move` leaves: the referee sees
    only the board, so any of them names the move rightly (two jokers of one Colorpop slide
    taken with the same group leave one board)."""
    board = engine.expected(engine.apply(state, move)[0])
    return {
        engine.describe(state, m)
        for m in engine.legal_moves(state)
        if engine.expected(engine.apply(state, m)[0]) == board
    }


def _corrupt(engine, state, rng: random.Random, kind: str | None = None):
    """A board no single legal move leaves, and which corruption made it (None if none could be
    made). Half the time the corruption is of a legal move's board (a move, then a slip)."""
    kind = kind or rng.choice(CORRUPTIONS)
    board = engine.expected(state)
    if kind != "two moves at once" and rng.random() < 0.5:
        move = random_move(engine, state, rng)
        if move is not None:
            board = engine.expected(engine.apply(state, move)[0])
    letters = engine.profile.letters
    cells = [(r, c) for r in range(board.rows) for c in range(board.cols)]
    # A place the move emptied is left alone: a piece seen there may be one still on its way off
    # (a Stay Alive marble stuck above its hole), which the game rightly takes as the move.
    start = engine.expected(state).cells
    empty = [x for x in cells if board.cells[x[0]][x[1]] == EMPTY and start[x[0]][x[1]] == EMPTY]
    full = [x for x in cells if board.cells[x[0]][x[1]] != EMPTY]
    grid = [list(row) for row in board.cells]
    if kind == "a piece added" and empty:
        r, c = rng.choice(empty)
        grid[r][c] = rng.choice(sorted(_pieces(engine, state)))
    elif kind == "a piece taken off" and full:
        r, c = rng.choice(full)
        grid[r][c] = EMPTY
    elif kind == "a piece changed colour" and full:
        r, c = rng.choice(full)
        old = grid[r][c]
        others = [x for x in letters if x != old[0]]
        grid[r][c] = rng.choice(others) + old[1:]
    elif kind == "a piece moved" and full and empty:
        (r, c), (r2, c2) = rng.choice(full), rng.choice(empty)
        grid[r2][c2], grid[r][c] = grid[r][c], EMPTY
    elif kind == "two moves at once":
        first = random_move(engine, state, rng)
        if first is None:
            return None, None
        mid, _ = engine.apply(state, first)
        second = random_move(engine, mid, rng)
        if second is None:
            return None, None
        grid = [list(row) for row in engine.expected(engine.apply(mid, second)[0]).cells]
    else:
        return None, None
    corrupted = board.with_cells(grid)
    legal_results = {engine.expected(engine.apply(state, move)[0]) for move in engine.legal_moves(state)}
    if corrupted == engine.expected(state) or corrupted in legal_results:
        return None, None
    try:  # a board the sensors could report: it must survive its text form
        parse_snapshot(board.game, format_snapshot(corrupted), letters=letters)
    except FormatError:
        return None, None
    return corrupted, kind


def _pieces(engine, state) -> set[str]:
    """What a place may hold in this game: pieces on the board or put there by a legal move."""
    seen = {cell for row in engine.expected(state).cells for cell in row if cell != EMPTY}
    for move in list(engine.legal_moves(state))[:20]:
        after, _ = engine.apply(state, move)
        seen |= {cell for row in engine.expected(after).cells for cell in row if cell != EMPTY}
    return seen or set(engine.profile.letters)


def _check_corrupted(engine, state, corrupted, kind) -> None:
    """Never legal; an illegal verdict says what is wrong and where."""
    judgement = engine.judge(state, corrupted)
    assert judgement.kind in ("illegal", "pending"), (kind, format_snapshot(corrupted))
    if judgement.kind == "illegal":
        assert judgement.reason and judgement.cells, (kind, judgement)


@pytest.mark.parametrize("game", GAMES)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=seeds)
@pytest.mark.slow
def test_a_corrupted_board_is_never_judged_legal(game, seed):
    rng = random.Random(seed)
    engine, state, _ = _position(game, rng)
    if engine.is_over(state):
        return
    corrupted, kind = _corrupt(engine, state, rng)
    if corrupted is None:
        return
    _check_corrupted(engine, state, corrupted, kind)
    seen_corruptions[game][kind] += 1


def test_every_kind_of_corruption_occurred():
    """Guard for the test above: it is not passing by never making a corruption of some kind."""
    for game in GAMES:
        rng = random.Random(7)
        for attempt in range(120):
            wanted = [k for k in CORRUPTIONS if not seen_corruptions[game][k]]
            if not wanted:
                break
            engine, state, _ = _position(game, rng, max_moves=8)
            if not engine.is_over(state):
                corrupted, kind = _corrupt(engine, state, rng, wanted[attempt % len(wanted)])
                if corrupted is not None:
                    _check_corrupted(engine, state, corrupted, kind)
                    seen_corruptions[game][kind] += 1
        missing = [k for k in CORRUPTIONS if not seen_corruptions[game][k]]
        assert not missing, f"{game}: no corruption of kind {missing}"


@pytest.mark.parametrize("game", GAMES)
@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=seeds)
@pytest.mark.slow
def test_replays_are_deterministic_and_every_move_of_a_played_record_is_legal(game, seed):
    """A record judged twice gives the same lines; two referees fed the same boards end in the
    same state, with the same player to move and the same result."""
    played = _game(game, random.Random(seed), max_moves=60)
    text = played.record()
    first = list(judge_record(parse_record(text)))
    second = list(judge_record(parse_record(text)))
    assert first == second
    verdicts = [VerdictKind(line["verdict"]) for line in first[:-1]]
    assert verdicts == [VerdictKind.SETUP_OK] + [VerdictKind.LEGAL] * len(played.played)
    referees = [Referee(engine_for(played.engine.setup)) for _ in range(2)]
    for referee in referees:
        for board in played.boards():
            referee.observe(board)
    one, other = referees
    assert one.state == other.state and one.to_move() == other.to_move()
    assert one.result() == other.result() and one.result().to_json() == first[-1]["result"]


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.slow
def test_positions_and_moves_compare_and_hash_by_value(game):
    """The same play twice gives equal positions with equal hashes, and equal legal moves, none
    listed twice: the referee and the journal key and compare them by value."""
    for seed in range(3):
        _, one, _ = _position(game, random.Random(seed))
        engine, other, _ = _position(game, random.Random(seed))
        assert one == other and hash(one) == hash(other)
        moves = list(engine.legal_moves(other))
        assert list(engine.legal_moves(one)) == moves
        assert set(engine.legal_moves(one)) == set(moves) and len(set(moves)) == len(moves)


@pytest.mark.parametrize("game", GAMES)
def test_snapshots_and_records_survive_their_text_forms(game):
    played = _game(game, random.Random(5), max_moves=15)
    letters = played.engine.profile.letters
    boards = played.boards()
    for board in boards:
        assert parse_snapshot(game, format_snapshot(board), letters=letters) == board
    record = parse_record(played.record())
    assert record.board == boards[0] and list(record.observations) == boards[1:]


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.slow
def test_a_journalled_game_exports_to_a_record_that_judges_the_same(game, tmp_path):
    from controller.service.session import export_record
    from simulation.world import StubRig

    rig = StubRig(_keys(game), tmp_path / "j.sqlite", seed=4, troubles=True, max_moves=12)
    rig.driver.run(rig.player.steps())
    session = rig.loop.session
    text = export_record(session.journal, session.game_id)
    lines = [line for line in judge_record(parse_record(text)) if "result" not in line]
    assert lines == session.verdicts


@pytest.mark.parametrize("game", GAMES)
@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=seeds)
@pytest.mark.slow
def test_a_move_reads_back_from_the_text_describe_writes(game, seed):
    rng = random.Random(seed)
    engine, state, _ = _position(game, rng)
    moves = list(engine.legal_moves(state))
    for move in rng.sample(moves, min(6, len(moves))):
        text = engine.describe(state, move)
        again = engine.parse_move(state, text)
        assert engine.describe(state, again) == text
        assert engine.apply(state, again)[0] == engine.apply(state, move)[0]
    with pytest.raises(FormatError):
        engine.parse_move(state, "no such move")


@pytest.mark.parametrize("game", GAMES)
@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=seeds)
@pytest.mark.slow
def test_a_position_reads_back_from_its_text(game, seed):
    rng = random.Random(seed)
    engine, state, _ = _position(game, rng)
    text = engine.position_text(state)
    assert engine.parse_position(text) == state
    assert engine.position_text(engine.parse_position(text)) == text


def test_a_finished_games_position_with_its_reason_in_words_reads_back():
    """The reason a game ended is a sentence for people (`Text`); a position's text writes it as its
    English (test_a_position_reads_back_from_its_text found it with seed 33234: yaml refused it)."""
    engine, state, _ = _position("stay-alive", random.Random(33234))
    assert state.end_reason
    text = engine.position_text(state)
    assert engine.parse_position(text) == state
    assert engine.position_text(engine.parse_position(text)) == text
