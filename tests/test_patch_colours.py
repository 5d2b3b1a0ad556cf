"""`features.masked_median` against a plain per-patch reading of its rule: pixels ranked by
brightness, clipped ones left out, the mean of the ranks from 5% to 50% (or of the darkest ones
when the patch has a bright tail). The pixels of each patch have distinct brightnesses, so the
ranking, and the answer, does not depend on how ties are broken."""

from __future__ import annotations

import math

import numpy as np
import pytest

from controller.vision.features import GLARE_RATIO, GLARE_STEP, SATURATED, PatchSampler, masked_median


def _reference(patch: np.ndarray) -> tuple[np.ndarray, float]:
    pixels = [p for p in patch.astype(float) if min(p) < SATURATED]
    k, n = len(patch), len(pixels)
    if n == 0:
        return np.full(3, SATURATED, float), 0.0
    pixels.sort(key=lambda p: p.sum())
    bright = [np.float32(p.sum()) / np.float32(3) for p in pixels]  # in float32, as the reader works

    def pct(q: float) -> float:
        return bright[min(max(math.floor(q * (n - 1)), 0), k - 1)]

    if n < k or pct(0.9) > np.float32(GLARE_RATIO) * pct(0.25) + np.float32(GLARE_STEP):
        near_dark = sum(b <= np.float32(1.25) * pct(0.05) + np.float32(6) for b in bright)
        first, last = 0, min(max(near_dark, math.ceil(0.1 * n)), math.ceil(0.25 * n))
    else:
        first, last = math.floor(0.05 * n), math.ceil(0.5 * n)
    chosen = pixels[first : max(last, first + 1)]
    return np.mean(chosen, axis=0), n / k


def _patches(rng: np.random.Generator, count: int, k: int) -> np.ndarray:
    """Patches of `k` pixels of distinct brightness (sum of channels), some with clipped glare or
    a bright tail."""
    out = np.empty((count, k, 3), np.uint8)
    for i in range(count):
        level = rng.integers(90, 400)  # no channel of any pixel clips or reaches 0 below 600
        spread = rng.choice([20, 60, 300])
        sums = rng.choice(np.arange(level, min(level + spread + k, 600)), k, replace=False)
        tint = rng.integers(-20, 21, k)
        b = sums // 3 + tint
        g = sums // 3 - tint
        r = sums - b - g
        out[i] = np.stack([b, g, r], axis=1)
        if i % 5 == 0:
            out[i, rng.choice(k, rng.integers(1, k // 3), replace=False)] = 255  # clipped glare
    return out


@pytest.mark.slow
def test_masked_median_follows_its_rule():
    rng = np.random.default_rng(5)
    for k in (25, 60, 152):
        vals = _patches(rng, 40, k)
        distinct = [len(set(p.astype(int).sum(axis=1)[p.min(axis=1) < SATURATED])) for p in vals]
        assert distinct == [int((p.min(axis=1) < SATURATED).sum()) for p in vals]  # no ties among the unclipped
        med, used = masked_median(vals)
        for i, patch in enumerate(vals):
            want, want_used = _reference(patch)
            np.testing.assert_allclose(med[i], want, rtol=0, atol=1e-4)
            assert used[i] == want_used


def test_masked_median_takes_float_pixels_alike():
    vals = _patches(np.random.default_rng(6), 30, 60)
    as_bytes, as_floats = masked_median(vals), masked_median(vals.astype(np.float32))
    assert np.array_equal(as_bytes[0], as_floats[0]) and np.array_equal(as_bytes[1], as_floats[1])


def test_patch_sampler_gathers_each_patch():
    img = np.arange(10 * 12 * 3, dtype=np.uint8).reshape(10, 12, 3)
    sampler = PatchSampler(np.array([[2.0, 3.0], [11.0, 9.0]]), np.array([[0, 0], [-1, 0], [0, 1]]), (10, 12))
    vals = sampler.values(img)
    assert vals.shape == (2, 3, 3)
    assert np.array_equal(vals[0], img[[3, 2, 3], [2, 2, 3]])
    assert np.array_equal(vals[1], img[[9, 8, 9], [11, 11, 11]])  # clipped to the picture's edge
