"""The AI bench's 95% interval of a score whose games may be drawn (`bench/ai_bench.py`).

Its figures decide whether a level "beats" another (the whole interval above 50%), so the interval
must cover the true score about 95 times in 100, draws or not, and be no wider than it must.
"""

from __future__ import annotations

import random

import pytest

from bench.ai_bench import counts_of, score_interval, wilson


def _wilson_by_the_book(successes: int, n: int, z: float = 1.96) -> tuple[float, float]:
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * ((p * (1 - p) / n + z * z / (4 * n * n)) ** 0.5) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


@pytest.mark.parametrize(("wins", "n"), [(0, 10), (3, 10), (130, 142), (142, 142), (77, 200)])
def test_without_draws_it_is_wilsons_interval(wins: int, n: int) -> None:
    scores = [1.0] * wins + [0.0] * (n - wins)
    assert counts_of(scores) == (wins, 0, n - wins)
    assert score_interval(*counts_of(scores)) == pytest.approx(_wilson_by_the_book(wins, n), abs=1e-12)
    assert wilson(float(wins), n) == pytest.approx(_wilson_by_the_book(wins, n))


def _covered(win: float, draw: float, n: int, trials: int, seed: int) -> float:
    """How often the interval of `n` simulated games holds the true score."""
    rng = random.Random(seed)
    truth = win + draw / 2
    hits = 0
    for _ in range(trials):
        scores = []
        for _game in range(n):
            u = rng.random()
            scores.append(1.0 if u < win else 0.5 if u < win + draw else 0.0)
        low, high = score_interval(*counts_of(scores))
        hits += low <= truth <= high
    return hits / trials


@pytest.mark.parametrize(
    ("win", "draw"),
    [(0.10, 0.90), (0.05, 0.85), (0.30, 0.40), (0.60, 0.30), (0.85, 0.05), (0.01, 0.98)],
)
def test_it_covers_the_true_score_about_95_times_in_100(win: float, draw: float) -> None:
    coverage = _covered(win, draw, n=200, trials=1500, seed=int(win * 100 + draw * 1000))
    # Wilson's own interval covers 93-96% at this size, not exactly 95%; 1,500 trials add +-1.7 points
    # (three standard errors). Counting draws as coin tosses covers 99-100% where draws are common.
    assert 0.92 <= coverage <= 0.975


def test_it_covers_a_score_whose_rare_games_are_all_losses() -> None:
    # One game in 100 lost, the rest drawn: 200 games show no loss one time in seven, and an interval
    # that took those 200 draws for a score of exactly 50% would miss the truth (49.5%) each time
    # (it covered 87% so). Few decisive games make the coverage coarse, as Wilson's is near 0 or 1:
    # above 95% here, never below.
    assert _covered(0.0, 0.99, n=200, trials=1500, seed=99) >= 0.93


def test_draws_narrow_the_interval_as_much_as_they_steady_the_score() -> None:
    # A drawish pairing: 20 wins, 180 draws, no loss: clearly the better player.
    scores = [1.0] * 20 + [0.5] * 180
    low, high = score_interval(*counts_of(scores))
    coin_low, coin_high = wilson(sum(scores), len(scores))
    assert low > 0.5  # counting each draw as a coin toss leaves it open:
    assert coin_low < 0.5
    assert (high - low) < (coin_high - coin_low) / 2


def test_games_are_counted_and_no_games_say_nothing() -> None:
    assert counts_of([0.5, 0.5, 1.0, 0.0]) == (1, 2, 1)
    assert counts_of([]) == (0, 0, 0)
    assert score_interval(0, 0, 0) == (0.0, 1.0)


def test_every_game_drawn_still_leaves_a_doubt() -> None:
    # 200 draws do not prove the score is 50% exactly: a player losing one game in 100 would draw
    # all 200 games one time in seven. As Wilson's interval for no success out of n reaches
    # z^2 / (n + z^2), this one reaches z^2 / (2 (n + z^2)) on either side of a half.
    low, high = score_interval(0, 200, 0)
    reach = 1.96**2 / (2 * (200 + 1.96**2))
    assert low == pytest.approx(0.5 - reach, abs=1e-9)
    assert high == pytest.approx(0.5 + reach, abs=1e-9)
