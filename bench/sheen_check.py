"""Boards under a broad reflection: is any place read wrong but sure (issue 32)?

A lamp, or a wall it lights, mirrored by a glossy board and its pieces adds light of its colour
over a broad patch (the dichromatic reflection model: `controller/vision/sheen.py`,
`sheen_doubt.py`). Each picture here is a flat render of a random position with one such sheen
(`Scene.sheen`): its middle anywhere over the lattice, away from the outer row; its spread 0.7-1.6
pitches; its peak a share of the light the paper reflects there; its colour white, pink (a wall
lit warm) or cyan (a daylight window). A strong one (peak 0.8) clips the paper at its middle and
washes a flat piece (a token, a tile) nearly to white, or an empty floor to a pale piece's colour:
colour alone may no longer tell what lies there, and the reader must then say it is unsure. A ball
mirrors the broad source only as a small spot near its top (`simulation/render.py`, `_sheen`).
Printed per game, colour and peak: places right / unsure / wrong but sure, and boards not read at
all (a problem instead of a reading: the whole board unsure).
Target: 0 wrong but sure everywhere.

    .venv/bin/python bench/sheen_check.py [--games colorpop,...] [--seeds N] [--first S] [--show]
"""

from __future__ import annotations

import argparse

import numpy as np

from controller.games import registry
from controller.profile import default_profile
from controller.snapshot import EMPTY
from controller.vision.reader import BoardReader
from simulation.render import Scene, random_snapshot, render_snapshot

COLOURS = {"white": (1.0, 1.0, 1.0), "pink": (0.47, 0.68, 1.0), "cyan": (1.0, 0.9, 0.3)}
PEAKS = (0.4, 0.8)


def sheen_for(profile, seed: int, peak: float, colour: tuple[float, float, float]):
    """The seed's reflection: (row, col, spread, peak, colour) over the lattice, off its outer row."""
    rng = np.random.default_rng(seed)
    col = float(rng.uniform(1, profile.cols - 2))
    row = float(rng.uniform(1, profile.rows - 2))
    return (row, col, float(rng.uniform(0.7, 1.6)), peak, colour)


def same(truth: str, read: str) -> bool:
    """Whether a place read surely is right (a piece by its colour letter; empty as empty)."""
    if truth == EMPTY or read == EMPTY:
        return truth == read
    return truth[0] == read[0]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", default=",".join(registry.names()))
    ap.add_argument("--seeds", type=int, default=15)
    ap.add_argument("--first", type=int, default=1)
    ap.add_argument("--show", action="store_true", help="list the places read wrong but sure")
    args = ap.parse_args(argv)
    print(f"{'game':12s}{'sheen':>7s}{'peak':>6s}{'right':>8s}{'unsure':>8s}{'wrong':>7s}{'not read':>10s}")
    worst = 0
    for game in args.games.split(","):
        profile = default_profile(game)
        reader = BoardReader(profile)
        for name, colour in COLOURS.items():
            for peak in PEAKS:
                right = unsure = wrong = unread = 0
                for seed in range(args.first, args.first + args.seeds):
                    snap = random_snapshot(game, profile, seed)
                    scene = Scene(sheen=sheen_for(profile, seed, peak, colour))
                    reader.invalidate()
                    reading = reader.read(render_snapshot(snap, profile, seed=seed, preset="clean", scene=scene))
                    if reading.cells is None:
                        unread += 1
                        unsure += profile.rows * profile.cols
                        continue
                    for r in range(profile.rows):
                        for c in range(profile.cols):
                            got = reading.cells[r][c]
                            if got == "?":
                                unsure += 1
                            elif same(snap.cells[r][c], got):
                                right += 1
                            else:
                                wrong += 1
                                if args.show:
                                    print(f"  {game} seed {seed} {name} {peak}: r{r}c{c} {snap.cells[r][c]} read {got}")
                worst = max(worst, wrong)
                print(f"{game:12s}{name:>7s}{peak:>6.1f}{right:>8d}{unsure:>8d}{wrong:>7d}{unread:>10d}", flush=True)
    print("target met: 0 wrong but sure" if worst == 0 else "TARGET MISSED: places read wrong but sure")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
