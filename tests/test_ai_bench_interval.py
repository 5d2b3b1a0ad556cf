"""The AI bench's 95% interval of a score whose games may be drawn (`bench/ai_bench.py`).

Its figures decide whether a level "beats" another (the whole interval above 50%), so the interval
must cover the true score about 95 times in 100, draws or not, and be no wider than it must.
"""

from __future__ import annotations

import random

import pytest

from bench.ai_bench import score_interval, spread_of, wilson


def _wilson_by_the_book(successes: int, n: int, z: float = 1.96) -> tuple[float, float]:
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * ((p * (1 - p) / n + z * z / (4 * n * n)) ** 0.5) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


@pytest.mark.parametrize(("wins", "n"), [(0, 10), (3, 10), (130, 142), (142, 142), (77, 200)])
def test_without_draws_it_is_wilsons_interval(wins: int, n: int) -> None:
    scores = [1.0] * wins + [0.0] * (n - wins)
    assert spread_of(scores) == 0.0
    assert score_interval(float(wins), n, spread_of(scores)) == pytest.approx(_wilson_by_the_book(wins, n))
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
        low, high = score_interval(sum(scores), n, spread_of(scores))
        hits += low <= truth <= high
    return hits / trials


@pytest.mark.parametrize(
    ("win", "draw"),
    [(0.10, 0.90), (0.05, 0.85), (0.30, 0.40), (0.60, 0.30), (0.85, 0.05)],
)
def test_it_covers_the_true_score_about_95_times_in_100(win: float, draw: float) -> None:
    coverage = _covered(win, draw, n=200, trials=1500, seed=int(win * 100 + draw * 1000))
    # Wilson's own interval covers 93-96% at this size, not exactly 95%; 1,500 trials add +-1.7 points
    # (three standard errors). Counting draws as coin tosses covers 99-100% where draws are common.
    assert 0.92 <= coverage <= 0.975


def test_draws_narrow_the_interval_as_much_as_they_steady_the_score() -> None:
    # A drawish pairing: 20 wins, 180 draws, no loss: clearly the better player.
    scores = [1.0] * 20 + [0.5] * 180
    low, high = score_interval(sum(scores), len(scores), spread_of(scores))
    coin_low, coin_high = wilson(sum(scores), len(scores))
    assert low > 0.5  # counting each draw as a coin toss leaves it open:
    assert coin_low < 0.5
    assert (high - low) < (coin_high - coin_low) / 2


def test_a_draw_counts_a_quarter_in_the_spread_and_empty_results_say_nothing() -> None:
    assert spread_of([0.5, 0.5, 1.0, 0.0]) == pytest.approx(0.125)
    assert spread_of([]) == 0.0
    assert score_interval(0.0, 0, 0.0) == (0.0, 1.0)
    low, high = score_interval(100.0, 200, 0.25)  # every game drawn
    assert low == pytest.approx(0.5) and high == pytest.approx(0.5)
