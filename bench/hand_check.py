"""How often the hand check is fooled by a lamp's reflection near the board's edge, and how many of
the renderer's hands it catches, per game (issue 15, item 4).

    .venv/bin/python bench/hand_check.py [--seeds N] [--preset hard]

Glare: one reflection (radius 0.1-0.3 pitch) on the board's frame band, between the lattice and
the markers, at a random place along a random side. Hands: fingertips over a random place, the arm
from a random side. Prints, per game, pictures read as 'a hand' out of those with glare only, and
hands caught out of hands shown.
"""

from __future__ import annotations

import argparse

import numpy as np

from controller.profile import default_profile
from controller.snapshot import GAMES
from controller.vision.reader import HAND, BoardReader
from controller.vision.render import Scene, random_snapshot, render_snapshot


def edge_glare(profile, rng: np.random.Generator) -> tuple[float, float, float]:
    """A reflection on the frame band: 0.5-1.1 pitches outside the lattice, anywhere along a side."""
    rows, cols = profile.rows, profile.cols
    out = float(rng.uniform(0.6, 1.1))
    side = int(rng.integers(4))
    along = float(rng.uniform(-0.3, 1.3))
    radius = float(rng.uniform(0.15, 0.45))
    if side == 0:
        return (-out, along * (cols - 1), radius)
    if side == 1:
        return (rows - 1 + out, along * (cols - 1), radius)
    if side == 2:
        return (along * (rows - 1), -out, radius)
    return (along * (rows - 1), cols - 1 + out, radius)


def is_hand(reading) -> bool:
    return reading.problem is not None and reading.problem.startswith(HAND)


def measure(game: str, seeds: int, preset: str) -> tuple[int, int, int, int]:
    p = default_profile(game)
    glare_hands = hands_caught = 0
    for seed in range(seeds):
        rng = np.random.default_rng(1000 + seed)
        snap = random_snapshot(game, p, seed=seed)
        reader = BoardReader(p)
        img = render_snapshot(snap, p, seed=seed, preset=preset,
                              scene=Scene(glare_at=(edge_glare(p, rng),), frame=1))
        glare_hands += is_hand(reader.read(img))
        side = str(rng.choice(["bottom", "top", "left", "right"]))
        place = (float(rng.integers(p.rows)), float(rng.integers(p.cols)))
        img = render_snapshot(snap, p, seed=seed, preset=preset, scene=Scene(hand=place, hand_side=side, frame=2))
        hands_caught += is_hand(BoardReader(p).read(img))
    return glare_hands, seeds, hands_caught, seeds


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=40)
    ap.add_argument("--preset", default="hard", choices=["clean", "hard"])
    args = ap.parse_args()
    for game in GAMES:
        g, n, h, m = measure(game, args.seeds, args.preset)
        print(f"{game:11s} edge glare taken for a hand: {g}/{n}   hands caught: {h}/{m}")


if __name__ == "__main__":
    main()
