"""Colorpop's ceiling bench (`bench/colorpop_levels.py` games as `bench/colorpop_ceiling.py` reads them):
what a game records of the deal and the moves, and the replay that explains a lost game."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest

from bench.colorpop_ceiling import belief, compare, explain_game, pair_scores, replay, report
from bench.colorpop_levels import colour_shape, make_player, play_deal


@pytest.fixture(scope="module")
def game():
    """Deal 3 between two random players, recorded as `paired` records it (A in seat 1)."""
    row = play_deal(3, [make_player("random"), make_player("random")], ["x", "y"])
    row.update(deal=3, a_seat=1, score=1.0 if 1 in row["winners"] else 0.0)
    return row


def test_colour_shape_counts_lone_tokens_groups_and_the_largest():
    board = (
        ("G", "G", "Y", "G"),
        ("Y", "G", "J", "Y"),
        ("G", "Y", "Y", "."),
    )
    assert colour_shape(board, ("G",)) == {"tokens": 5, "lone": 2, "groups": 1, "largest": 3}
    assert colour_shape(board, ("Y",)) == {"tokens": 5, "lone": 3, "groups": 1, "largest": 2}
    assert colour_shape(board, ("G", "Y")) == {"tokens": 10, "lone": 5, "groups": 2, "largest": 3}


def test_a_game_records_the_deal_of_each_secret_colour_and_who_removed_it(game):
    # Every token of a secret colour was either removed by a seat or is still on the board.
    for t in range(2):
        assert game["shape"][t]["tokens"] == 19
        assert game["took"][0][t] + game["took"][1][t] + game["left"][t] == 19
    assert len(game["line"]) == game["plies"]
    assert [seat for seat, _, _ in game["line"]][:2] == [0, 1]


def test_the_replay_makes_the_recorded_moves_and_ends_where_the_game_ended(game):
    steps = list(replay(game))
    assert len(steps) == game["plies"]
    engine, state, _, move = steps[-1]
    after = engine.apply(state, move)[0]
    assert engine.is_over(after)
    secrets = game["secret"]
    assert [sum(row.count(ch) for row in after.board for ch in secrets[s]) for s in range(2)] == game["left"]


def test_the_replay_refuses_a_game_whose_deal_differs(game):
    with pytest.raises(ValueError):
        list(replay({**game, "secret": game["secret"][::-1]}))


def test_explaining_a_game_counts_a_seats_removals_of_the_others_colour(game):
    explained = explain_game(game)
    a, b = game["a_seat"], 1 - game["a_seat"]
    assert explained["a_took_b"] == game["took"][a][b]
    b_moves = sum(1 for seat, colour, _ in game["line"] if seat == a and colour in game["secret"][b])
    assert explained["chosen"] + explained["forced"] == b_moves
    assert len(explained["beliefs"]) == explained["chosen"]
    assert all(0 < x <= 1 for x in explained["beliefs"])


def test_belief_follows_the_other_seats_removals(game):
    engine, state, _, _ = next(replay(game))
    own = game["secret"][0]
    others = [ch for ch in engine.colours if ch not in own]
    assert sum(belief(engine, state, 0, ch) for ch in others) == pytest.approx(1.0)
    assert belief(engine, state, 0, others[0]) == pytest.approx(1 / len(others))
    removed = list(state.removed)
    removed[1] = tuple((ch, 4 if ch == others[0] else 0) for ch, _ in removed[1])
    later = replace(state, removed=tuple(removed))
    odds = belief(engine, later, 0, others[0]) / belief(engine, later, 0, others[1])
    assert odds == pytest.approx(math.exp(4 * 0.25))


def test_pair_scores_and_compare_use_deals_played_in_both_seats(capsys):
    def games(scores):
        return {(d, s): {"score": x} for (d, s), x in scores.items()}

    first = games({(0, 0): 1, (0, 1): 0, (1, 0): 1, (1, 1): 1, (2, 0): 1})
    second = games({(0, 0): 1, (0, 1): 1, (1, 0): 1, (1, 1): 0.5, (2, 0): 0, (2, 1): 0})
    assert pair_scores(first) == {0: 0.5, 1: 1.0}
    compare("one", first, "two", second)
    text = capsys.readouterr().out
    assert "2 common deals" in text and "75.0% -> 87.5%" in text and "better 1, worse 1" in text


def test_the_report_explains_each_game_not_won_by_how_it_ended(game, capsys):
    lost = {**game, "score": 0.0}
    won = {**game, "a_seat": 1 - game["a_seat"], "score": 1.0}
    report("tag", {(3, lost["a_seat"]): lost, (3, won["a_seat"]): won})
    text = capsys.readouterr().out
    ended = explain_game(lost)["ended"]
    assert "2 games, A scores 50.0%" in text
    assert f"not won: 1 (1 lost, 0 shared): { {ended: 1} }" in text
    assert f"3/{lost['a_seat']}: {lost['left'][lost['a_seat']]}-{lost['left'][1 - lost['a_seat']]}" in text


def test_the_report_of_a_player_that_won_no_game_says_so_without_a_traceback(game, capsys):
    # Before: the mean lone tokens "in A's wins" averaged an empty list (StatisticsError).
    lost = {**game, "score": 0.0}
    other = {**game, "a_seat": 1 - game["a_seat"], "score": 0.0}
    report("tag", {(3, lost["a_seat"]): lost, (3, other["a_seat"]): other})
    text = capsys.readouterr().out
    assert "2 games, A scores 0.0%" in text
    assert "mean nan in A's wins" in text
