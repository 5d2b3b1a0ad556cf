"""Glare is not a hand (issue 15, item 4): a lamp's reflection near the board's edge is never
taken for an arm, while the renderer's arms are all caught."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from controller.profile import default_profile
from controller.vision import hands
from controller.vision.features import colour_features, masked_median
from controller.vision.geometry import MARKERS_HIDDEN
from controller.vision.reader import HAND, BoardReader
from simulation.render import Scene, random_snapshot, render_snapshot

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
from hand_check import edge_glare, hard_shadow  # noqa: E402

SIZE = (960, 540)


def is_hand(reading) -> bool:
    return reading.problem is not None and reading.problem.startswith(HAND)


def not_read(reading) -> bool:
    """A hand hiding the corner markers is reported as such: not read either."""
    return is_hand(reading) or reading.problem == MARKERS_HIDDEN


@pytest.mark.parametrize("game", ["colorpop", "blockers", "flipop", "stay-alive"])
@pytest.mark.slow
def test_edge_glare_is_not_a_hand_and_hands_are_caught(game: str) -> None:
    p = default_profile(game)
    glare_hands = caught = 0
    for seed in range(10):  # ten reflections, five hands (bench/hand_check.py measures many more)
        rng = np.random.default_rng(500 + seed)
        snap = random_snapshot(game, p, seed=seed)
        glare = Scene(glare_at=(edge_glare(p, rng, (0.3, 0.6)),), frame=1)
        # (a corner marker the detector misses in a deep shadow of the hard look is no hand either:
        # tests/test_marker_shadow.py)
        glare_hands += is_hand(
            BoardReader(p).read(render_snapshot(snap, p, seed=seed, preset="hard", scene=glare, size=SIZE))
        )
        if seed % 2:
            continue
        side = ("bottom", "top", "left", "right")[seed % 4]
        hand = Scene(hand=(float(rng.integers(p.rows)), float(rng.integers(p.cols))), hand_side=side, frame=2)
        reader = BoardReader(p)  # it saw the board before the hand came, as in play
        reader.read(render_snapshot(snap, p, seed=seed, preset="hard", scene=Scene(frame=3), size=SIZE))
        caught += not_read(reader.read(render_snapshot(snap, p, seed=seed, preset="hard", scene=hand, size=SIZE)))
    assert (glare_hands, caught) == (0, 5)


def band(colour, n: int = 40, k: int = 30) -> tuple[np.ndarray, np.ndarray]:
    """A ring of `n` band patches of `k` pixels, in grey levels, and paper white at each."""
    vals = np.tile(np.array(colour, np.float32), (n, k, 1))
    vals += np.random.default_rng(0).normal(0, 2, vals.shape).astype(np.float32)
    return vals, np.full((n, 3), 220.0, np.float32)


def features(vals: np.ndarray, white: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    f = colour_features(np.median(vals, axis=1) / white)
    used = (vals.min(axis=2) < hands.SATURATED).mean(axis=1)
    return f, used


def check(vals, white) -> bool:
    f, used = features(vals, white)
    return hands.arm_seen(f, used, np.clip(vals, 0, 255), white)


def test_reflection_rules_on_a_synthetic_band() -> None:
    blue = (160, 80, 45)  # BGR of a blue frame
    vals, white = band(blue)
    assert not check(vals, white)
    # A reflection: white light added to three patches, its core clipped.
    spot = vals.copy()
    spot[10:13] += np.array([120, 120, 120], np.float32)
    spot[11, :8] = 255
    assert not check(spot, white)
    # The same light without a core brighter than paper is a pale object, not a reflection.
    pale = vals.copy()
    pale[10:13] += np.array([60, 60, 60], np.float32)
    assert check(pale, white)
    # Skin over three patches: its channels change unlike added light.
    arm = vals.copy()
    arm[10:13] = np.array([150, 180, 224], np.float32)
    assert check(arm, white)
    # A reflection longer than a spot (a white sleeve lit to clipping) is not waved through.
    long = vals.copy()
    long[10:16] += np.array([120, 120, 120], np.float32)
    long[12, :8] = 255
    assert check(long, white)


def test_a_lamps_smooth_pool_of_light_is_not_an_arm_but_a_step_is():
    """Along the band, a lamp brightens smoothly into and out of its pool; an arm's edges are steps."""
    n, k = 40, 9
    white = np.full((n, 3), 240.0)
    band = np.array([60.0, 90.0, 50.0])
    x = np.arange(n)
    pool = 1 + 0.8 * np.exp(-(((x - 20) / 4.0) ** 2))  # a warm lamp, brightest at patch 20
    vals = np.repeat((band[None, :] * pool[:, None] * [0.9, 1.0, 1.15])[:, None, :], k, axis=1)
    run = [i for i in range(n) if pool[i] > 1.3]
    assert len(run) >= hands.MIN_ARM and hands.lamp_pool(run, hands.band_logs(vals, white))
    arm = vals.copy()
    arm[16:25] = [150.0, 170.0, 210.0]  # skin crossing the band: steps in and out
    assert not hands.lamp_pool(list(range(16, 25)), hands.band_logs(arm, white))
    shade = vals.copy()
    shade[16:25] *= 0.5  # darker: not light added
    assert not hands.lamp_pool(list(range(16, 25)), hands.band_logs(shade, white))


def test_a_lamps_pool_cut_by_a_hard_shadow_is_not_an_arm_but_a_dark_sleeve_across_it_is():
    """A hard shadow falling across a lamp's pool on the band ends the pool with a sharp step down
    in every channel (3D bench, Flipop room 0): the pool before the step is still a pool, and the
    few odd patches beyond it are no arm. A dark sleeve across the pool is one: many odd patches
    beyond the step."""
    n, k = 40, 9
    white = np.full((n, 3), 240.0)
    x = np.arange(n)
    pool = 1 + 1.2 * np.exp(-(((x - 20) / 5.0) ** 2))  # a warm lamp, brightest at patch 20
    lit = np.array([60.0, 90.0, 50.0]) * pool[:, None] * [0.9, 1.0, 1.15]
    shade = lit.copy()
    shade[22:30] *= [0.8, 0.75, 0.7]  # the lamp's light taken away beyond patch 21
    vals = np.repeat(shade[:, None, :], k, axis=1).astype(np.float32)
    assert not hands.lamp_pool([i for i in range(n) if pool[i] > 1.3], hands.band_logs(vals, white))  # the step
    assert not check(vals, white)
    sleeve = np.repeat(lit[:, None, :], k, axis=1).astype(np.float32)
    sleeve[22:27] = [30.0, 30.0, 34.0]  # a dark grey sleeve over five patches
    assert check(sleeve, white)


def test_a_soft_shadow_over_a_pools_end_is_not_an_arm_but_a_sleeve_of_a_close_colour_is():
    """A box far from the band casts a soft shadow (a penumbra several patches wide) over the end
    of a warm pool on the band (3D bench, Blockers! room 2): the run is darker than the band's light
    at its end, yet it changes smoothly and every step moves all channels together, as light does.
    A dark sleeve whose colour differs from the band's by less than a sharp step still changes the
    channels' balance at its edge: an arm. (The first part fails before: a pool had to only add
    light.)"""
    n, k = 40, 9
    white = np.full((n, 3), 240.0)
    x = np.arange(n)
    plain = np.array([60.0, 90.0, 50.0])  # BGR of a green frame
    warm = np.exp(-(((x - 16) / 6.0) ** 2))  # a warm light, mostly red, brightest at patch 16
    lit = plain * (1 + warm[:, None] * [0.1, 0.25, 0.9])
    share = np.clip(np.minimum(x - 18, 29 - x) / 4.0, 0.0, 1.0)  # the penumbra: 4 patches each side
    vals = np.repeat((lit * (1 - 0.3 * share)[:, None])[:, None, :], k, axis=1).astype(np.float32)
    logs = hands.band_logs(vals, white)
    f, used = features(vals, white)
    run = hands._runs(hands.odd_patches(f, used))[0]
    assert len(run) >= hands.MIN_ARM and (logs[run] < -hands.POOL_DIP).any()  # darker than the band's light
    assert hands.lamp_pool(run, logs)
    assert not check(vals, white)
    sleeve = np.repeat(lit[:, None, :], k, axis=1).astype(np.float32)
    sleeve[30:36] = plain * np.exp([0.12, -0.1, -0.15])  # bluer and darker, by less than a sharp step
    assert (np.abs(np.diff(hands.band_logs(sleeve, white), axis=0)) <= hands.SMOOTH_STEP).all()
    assert check(sleeve, white)


def test_a_bare_arm_whose_edge_lies_inside_a_band_patch_is_not_taken_for_a_cut_pool():
    """A bare arm brighter than the band in every channel, its near edge inside the band patch
    before its run (covering 60% of it): that patch is not odd (its colour is taken from its darker
    part) but its median is the arm's, so beside the run the arm seems entered smoothly, and it
    ends in a step down in every channel, as a lamp's pool cut by a hard shadow does. It is an
    arm: from the band's own light into the run, its edge is a step (`bench/vision_accuracy.py`'s
    gated Flipop hands were read as boards when only the patch beside the run was looked at)."""
    n, k = 40, 30
    white = np.full((n, 3), 235.0, np.float32)
    vals, _ = band((58, 90, 37), n, k)  # BGR of a green frame
    skin = np.array([150.0, 180.0, 224.0], np.float32)
    vals[23:26] = skin
    vals[22, : int(0.6 * k)] = skin  # the arm's edge inside patch 22
    med, used = masked_median(vals)
    feats = colour_features(med / white)
    assert not hands.odd_patches(feats, used)[22] and hands.odd_patches(feats, used)[23:26].all()
    assert hands.beyond_pool([23, 24, 25], hands.band_logs(vals, white)) is None
    assert hands.arm_seen(feats, used, vals, white)


@pytest.mark.parametrize(("episode", "frame", "place"), [(2, 11, (2.5, 2.5)), (7, 9, (2.5, 2.5)), (4, 6, (4.0, 2.5))])
def test_a_bare_arm_over_a_flipop_board_is_a_hand(episode: int, frame: int, place) -> None:
    """Pictures of `bench/vision_accuracy.py`'s gated sequence (clean look): a bare arm whose near
    edge lies inside a band patch (see the test above) was read as a board when a lamp's pool cut
    by a hard shadow was first told apart (93d8e16)."""
    p = default_profile("flipop")
    snap = random_snapshot("flipop", p, seed=2000 + episode)
    reader = BoardReader(p)  # it saw the board before the arm came, as in play
    reader.read(render_snapshot(snap, p, seed=episode, preset="clean", scene=Scene(frame=5)))
    img = render_snapshot(snap, p, seed=episode, preset="clean", scene=Scene(hand=place, frame=frame))
    assert is_hand(reader.read(img))


#: A desk lamp's hard shadow cast from beside the board across its frame band (issue 33): the band
#: point it crosses (row, col), its width there and its angle off the band's normal (pitches,
#: degrees), on the hard look's boards; each was taken for an arm before the hand check looked
#: beyond the band (`shadows.py`).
HARD_SHADOWS = [
    ("colorpop", 15, (2.2, 9.85, 2.19, -10.7)),
    ("blockers", 39, (-0.85, 5.66, 2.68, -25.0)),
    ("flipop", 17, (2.29, 4.85, 1.4, -0.3)),
    ("stay-alive", 19, (6.85, 4.42, 2.0, -21.0)),
]

#: Arms in a dark sleeve (fingertips over (row, col), the side the arm comes from, the sleeve's
#: RGB), as dark over the band as such a shadow: still arms.
DARK_SLEEVES = [
    ("colorpop", 2, (7.0, 6.0), "bottom", (25, 19, 22)),
    ("flipop", 8, (0.0, 2.0), "left", (21, 26, 26)),
    ("stay-alive", 9, (6.0, 4.0), "left", (32, 25, 26)),
    ("blockers", 3, (4.0, 8.0), "right", (40, 40, 44)),
    ("colorpop", 7, (1.0, 5.0), "right", (42, 35, 44)),
]


@pytest.mark.parametrize(("game", "seed", "shade"), HARD_SHADOWS)
def test_a_lamps_hard_shadow_across_the_band_is_not_a_hand(game: str, seed: int, shade) -> None:
    p = default_profile(game)
    snap = random_snapshot(game, p, seed=seed)
    img = render_snapshot(snap, p, seed=seed, preset="hard", scene=Scene(hard_shadow=shade, frame=1), size=SIZE)
    reading = BoardReader(p).read(img)
    assert not is_hand(reading), reading.problem


@pytest.mark.parametrize(("game", "seed"), [("blockers", 32), ("flipop", 4), ("flipop", 39)])
def test_a_narrow_shadow_at_a_slant_is_not_a_hand(game: str, seed: int) -> None:
    """`bench/hand_check.py`'s hard-shadow pictures of these seeds (35-37 degrees off the band's normal,
    1-2 pitches wide; Blockers! over a grainy table): beyond the band the shadow crosses the board's
    edge and the table between the slants once looked at, over part of each table patch looked at.
    All three were taken for a hand before (`test_cast_shadows.py`'s slanted shadow)."""
    p = default_profile(game)
    snap = random_snapshot(game, p, seed=seed)
    shade = hard_shadow(p, np.random.default_rng(7000 + seed))
    reading = BoardReader(p).read(
        render_snapshot(snap, p, seed=seed, preset="hard", scene=Scene(hard_shadow=shade, frame=5))
    )
    assert not is_hand(reading), reading.problem


@pytest.mark.parametrize(("game", "seed", "place", "side", "sleeve"), DARK_SLEEVES)
def test_an_arm_in_a_dark_sleeve_is_a_hand(game: str, seed: int, place, side: str, sleeve) -> None:
    p = default_profile(game)
    snap = random_snapshot(game, p, seed=seed)
    reader = BoardReader(p)  # it saw the board before the arm came, as in play
    reader.read(render_snapshot(snap, p, seed=seed, preset="hard", scene=Scene(frame=3), size=SIZE))
    dressed = Scene(hand=place, hand_side=side, sleeve=sleeve, frame=2)
    assert not_read(reader.read(render_snapshot(snap, p, seed=seed, preset="hard", scene=dressed, size=SIZE)))


def test_a_wrist_on_a_coarse_board_is_an_arm_though_it_covers_two_patches() -> None:
    """On Flipop's 40 mm pitch the band patches lie 20 mm apart and a wrist (50 mm) covers two of
    them whole (the 3D room 9's arm was missed and its board read with six places wrong); on the
    finer boards a wrist covers three, and two odd patches there are smaller than any arm."""
    green = (80, 85, 56)  # BGR of a green frame
    vals, white = band(green)
    wrist = vals.copy()
    wrist[22:24] = np.array([103, 110, 150], np.float32)  # skin over two patches
    f, used = features(wrist, white)
    coarse = hands.arm_patches(hands.RING_STEP * default_profile("flipop").pitch_mm)
    fine = [hands.arm_patches(hands.RING_STEP * default_profile(g).pitch_mm) for g in ("colorpop", "blockers")]
    assert (coarse, fine) == (2, [3, 3])
    assert hands.arm_seen(f, used, np.clip(wrist, 0, 255), white, min_arm=coarse)
    assert not hands.arm_seen(f, used, np.clip(wrist, 0, 255), white, min_arm=fine[0])
    # The reader of each game counts with its own pitch.
    assert BoardReader(default_profile("flipop")).hands.min_arm == 2
    assert BoardReader(default_profile("stay-alive")).hands.min_arm == 3


def test_a_reflections_halo_on_the_band_with_its_core_just_inside_it_is_not_an_arm() -> None:
    """A lamp's reflection just outside the outer places (hand_check's glare at the edge, Flipop seed
    47): only its halo, white light added, lights the band; its clipped core lies between the band
    and the lattice. Before, the band alone showed no core and the halo was taken for an arm."""
    vals, white = band((160, 80, 45))
    halo = vals.copy()
    halo[10:13] += np.array([110, 110, 110], np.float32)
    inner, _white = band((160, 80, 45))
    f, used = features(halo, white)
    assert hands.arm_seen(f, used, np.clip(halo, 0, 255), white)  # no core anywhere: a pale object
    inner[11, :10] = 255  # the reflection's clipped core, inward of patch 11
    assert not hands.arm_seen(f, used, np.clip(halo, 0, 255), white, inner=inner)
    # Skin over the band beside the same core: an arm.
    arm = vals.copy()
    arm[10:14] = np.array([150, 180, 224], np.float32)
    f, used = features(arm, white)
    assert hands.arm_seen(f, used, np.clip(arm, 0, 255), white, inner=inner)


def test_a_lamps_pool_beside_a_hard_shadow_is_no_part_of_the_shadow_judged() -> None:
    """A hard shadow cuts a lamp's pool on the band (3D bench, Stay Alive room 11 shadow 1: a bar's
    shadow entering from the right edge): the run of odd patches is the shadow and, beside it, the
    pool's peak (odd in colour), reached smoothly from the band's own light on the other side. The
    peak is the band under more light, no part of a shadow: the shadow's judge is given the run
    without it (before, the whole run, which a shadow's judge refuses: brighter than the light beside
    it). Skin at the run's end, entered by a step, stays in the run."""
    n, k = 40, 9
    white = np.full((n, 3), 240.0)
    x = np.arange(n)
    plain = np.array([110.0, 90.0, 60.0])  # BGR of a blue frame
    lit = plain * (1 + np.exp(-(((x - 18.5) / 4.0) ** 2))[:, None] * [0.45, 0.45, 0.1])  # a cool lamp's pool
    shade = lit.copy()
    shade[15:19] *= [0.75, 0.78, 0.65]  # the lamp's share taken away
    vals = np.repeat(shade[:, None, :], k, axis=1).astype(np.float32)
    f, used = features(vals, white)
    assert hands._runs(hands.odd_patches(f, used)) == [[16, 17, 18, 19]]  # the shadow's odd part and the peak
    given: list[list[int]] = []

    def judge(run: list[int], odd: np.ndarray) -> bool:
        given.append(run)
        return True

    assert not hands.arm_seen(f, used, vals, white, judge)
    assert given == [[16, 17, 18]]
    arm = vals.copy()
    arm[19] = [150.0, 180.0, 224.0]  # skin
    f, used = features(arm, white)
    given.clear()
    hands.arm_seen(f, used, arm, white, judge)
    assert given == [[16, 17, 18, 19]]
