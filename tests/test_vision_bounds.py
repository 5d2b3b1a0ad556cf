"""A clipped channel is a bound, not a measurement (`controller.vision.bounds`): the least distance
from a look to what the bounds allow, checked against a brute-force search."""

from __future__ import annotations

import numpy as np
import pytest

from controller.vision import bounds


def brute_force(x, dirs, lo, hi, mean, inv, span: float = 6.0, steps: int = 121) -> float:
    """The least squared distance over a grid of every free coefficient (infinite limits cut at
    `span`)."""
    axes = [np.linspace(max(a, -span), min(b, span), steps) if b > a else np.array([a]) for a, b in zip(lo, hi)]
    grid = np.stack(np.meshgrid(*axes, indexing="ij"), axis=-1).reshape(-1, len(lo))
    pts = x[None] + grid @ dirs
    d = pts - mean[None]
    return float(np.einsum("ni,ij,nj->n", d, inv, d).min())


@pytest.mark.parametrize("seed", range(12))
def test_reachable_is_the_least_distance_over_the_allowed_colours(seed) -> None:
    rng = np.random.default_rng(seed)
    a = rng.normal(size=(3, 3))
    inv = a @ a.T + 0.3 * np.eye(3)
    mean = rng.normal(size=3)
    x = rng.normal(size=3)
    kinds = rng.choice([bounds.NONE, bounds.UP, bounds.DOWN, bounds.FREE], size=3)
    cap = rng.uniform(0.0, 2.0, size=3) if seed % 2 else None
    dirs, lo, hi = bounds.directions(kinds[None], np.eye(3), None if cap is None else cap[None])
    reach, seen = bounds.reachable(x[None], dirs, lo, hi, mean[None], inv[None])
    want = brute_force(x, dirs[0], lo[0], hi[0], mean, inv)
    d = x - mean
    assert seen[0, 0] == pytest.approx(d @ inv @ d)
    assert reach[0, 0] <= seen[0, 0] + 1e-9
    # The grid search can only find a larger least; it comes within its own step of the exact one.
    assert want >= reach[0, 0] - 1e-9
    assert want - reach[0, 0] <= 0.05 * (1 + want)


def test_a_channel_without_bound_gives_no_freedom_and_the_bounds_go_their_way() -> None:
    kinds = np.array([[bounds.NONE, bounds.UP, bounds.DOWN]])
    dirs, lo, hi = bounds.directions(kinds, np.eye(3), np.array([[5.0, 0.5, 5.0]]))
    assert not dirs[0, 0].any()
    assert (lo[0, 1], hi[0, 1]) == (0.0, 0.5)  # a clipped place: brighter, up to the cap
    assert (lo[0, 2], hi[0, 2]) == (-np.inf, 0.0)  # a clipped reference: the place darker, without end
    mean, inv = np.array([[0.0, 3.0, 0.0]]), np.eye(3)[None]
    reach, seen = bounds.reachable(np.zeros((1, 3)), dirs, lo, hi, mean, inv)
    assert seen[0, 0] == pytest.approx(9.0)
    assert reach[0, 0] == pytest.approx(2.5**2)  # the cap stops the rise at 0.5 of the 3 needed
