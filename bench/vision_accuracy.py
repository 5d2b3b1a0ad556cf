"""Vision accuracy per game and preset on the renderer.

For each game and preset, N random positions are rendered (each with its own camera, light and,
on `hard`, glare and shadows) and read by a fresh reader with the default references. Printed:
places right, unsure, wrong-but-sure. Then the gated sequence: a hand comes in, rests, leaves,
and the board is read once the gate says still; every such reading must be exact. The gate lets
few of the pictures with an arm through, so the hand check is also run on every one of them (`arms
missed`: pictures it would have let through to be read; target none). First of all,
Blockers! glyphs (every tile, each with its own hand placement) and Flipop doors (random turned
layouts among random balls): right, unsure (`?`), wrong-but-sure.

    python bench/vision_accuracy.py [--boards N] [--games colorpop,blockers,...]
                                    [--shape-boards N] [--shape-first K] [--shapes-only]

`--shape-first` starts the glyph and door boards at another seed (the defaults were looked at while
the readers were written; later seeds were not).
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # as the referee runs (controller/__init__.py)

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import cv2  # noqa: E402
import numpy as np  # noqa: E402

from controller.games.flipop.play import random_doors  # noqa: E402
from controller.profile import default_profile  # noqa: E402
from controller.vision.gating import MotionGate  # noqa: E402
from controller.vision.reader import HAND, SATURATED, BoardReader  # noqa: E402
from simulation.render import (  # noqa: E402
    Scene,
    random_snapshot,
    render_snapshot,
)

GAMES = ["colorpop", "blockers", "flipop", "stay-alive"]


def colours(snap):
    return [[c[:1] for c in row] for row in snap.cells]


class Tally:
    """Items read: right, unsure (`?` anywhere in the reading) or wrong but sure."""

    def __init__(self) -> None:
        self.total = self.right = self.unsure = self.wrong = 0

    def add(self, got: str, truth: str) -> None:
        self.total += 1
        if "?" in got:
            self.unsure += 1
        elif got == truth:
            self.right += 1
        else:
            self.wrong += 1

    def figures(self) -> tuple[int, int, int, int]:
        return self.total, self.right, self.unsure, self.wrong


def accuracy(game: str, preset: str, boards: int) -> tuple[int, int, int, int]:
    p = default_profile(game)
    tally = Tally()
    for seed in range(boards):
        snap = random_snapshot(game, p, seed=1000 + seed)
        reading = BoardReader(p).read(render_snapshot(snap, p, seed=seed, preset=preset))
        truth = colours(snap)
        for r in range(p.rows):
            for c in range(p.cols):
                tally.add(reading.cells[r][c][:1] if reading.cells is not None else "?", truth[r][c])
    return tally.figures()


class ArmCheck:
    """The hand check on every picture with an arm, whether the gate lets it through or not, by a
    second reader that read what the gated one read before the arm came (the gated reader is left
    alone). Only the reader's steps up to its hand check are run on a picture with an arm: it is
    missed when the markers are found and the hand check sees no arm."""

    def __init__(self, p) -> None:
        self.reader = BoardReader(p)
        self.arms = self.missed = 0

    def before(self, img) -> None:
        """A picture the gated reader read before the arm came."""
        self.reader.read(img)

    def check(self, img) -> None:
        reader = self.reader
        self.arms += 1
        problem, _ = reader.localise(img)  # as `BoardReader.read` up to its hand check
        if reader.h is None or problem is not None:
            return  # not read: the markers are hidden or not found
        rect = reader.rect.warp(img, reader.h)
        white = reader.light.white(rect)
        if (np.asarray(white) * 255 >= SATURATED).any():  # the reader measures a clipped channel on the places
            reading = reader.read(img)
            self.missed += reading.problem is None or not reading.problem.startswith(HAND)
            return
        self.missed += not reader.hands.arm_seen(rect, white, img, reader.h)


def gated(game: str, preset: str, episodes: int) -> tuple[int, int, int, int, int]:
    """(still boards, read exactly, snapshots produced while a hand was over the board, pictures
    with an arm that the hand check let through, pictures with an arm)."""
    p = default_profile(game)
    still = exact = hand_snapshots = 0
    arms = missed = 0
    for ep in range(episodes):
        snap = random_snapshot(game, p, seed=2000 + ep)
        reader, gate, check = BoardReader(p), MotionGate(), ArmCheck(p)
        frame = 0
        hand_path = [(p.rows - 1.0, p.cols / 2), (p.rows / 2, p.cols / 2 - 1)] + [(p.rows / 2, p.cols / 2)] * 5
        script = [None] * 5 + hand_path + [None] * 5
        for hand in script:
            frame += 1
            img = render_snapshot(snap, p, seed=ep, preset=preset, scene=Scene(hand=hand, frame=frame))
            read_now = gate.update(img).read_now
            if hand is not None:
                check.check(img)
            elif read_now and not check.arms:
                check.before(img)
            if not read_now:
                continue
            reading = reader.read(img)
            if hand is not None:
                hand_snapshots += reading.snapshot is not None
            else:
                still += 1
                exact += reading.snapshot is not None and colours(reading.snapshot) == colours(snap)
        arms += check.arms
        missed += check.missed
    return still, exact, hand_snapshots, missed, arms


def glyph_accuracy(preset: str, boards: int, first: int = 0) -> tuple[int, int, int, int]:
    """Blockers! tiles: (tiles, glyph right, glyph unsure, glyph wrong but sure). A tile whose
    colour was not read counts as unsure."""
    p = default_profile("blockers")
    tally = Tally()
    for seed in range(first, first + boards):
        snap = random_snapshot("blockers", p, seed=3000 + seed)
        reading = BoardReader(p).read(render_snapshot(snap, p, seed=seed, preset=preset))
        for r in range(p.rows):
            for c in range(p.cols):
                truth = snap.cells[r][c]
                if truth != ".":
                    got = reading.cells[r][c] if reading.cells is not None else "?"
                    tally.add(got if len(got) == 2 else "?", truth)
    return tally.figures()


def door_accuracy(preset: str, boards: int, first: int = 0) -> tuple[int, int, int, int]:
    """Flipop doors in random turned layouts with random balls: (doors, right, unsure, wrong)."""
    p = default_profile("flipop")
    tally = Tally()
    for seed in range(first, first + boards):
        snap = random_snapshot("flipop", p, seed=4000 + seed).with_line("doors", random_doors(p, seed))
        reading = BoardReader(p).read(render_snapshot(snap, p, seed=seed, preset=preset))
        for got, truth in zip(reading.doors or ("?",) * 16, snap.line("doors") or ()):
            tally.add(got, truth)
    return tally.figures()


def shapes(boards: int, first: int = 0) -> bool:
    """Glyph and door accuracy; targets: at least 99.5% right on hard, none wrong but sure."""
    ok = True
    print(f"{'shapes':11} {'preset':6} {'items':>7} {'right%':>8} {'unsure':>6} {'wrong':>5}")
    for name, fn in (("glyphs", glyph_accuracy), ("doors", door_accuracy)):
        for preset in ("clean", "hard"):
            total, right, unsure, wrong = fn(preset, boards, first)
            pct = 100 * right / max(total, 1)
            print(f"{name:11} {preset:6} {total:7d} {pct:8.3f} {unsure:6d} {wrong:5d}", flush=True)
            ok &= wrong == 0 and (preset != "hard" or pct >= 99.5)
    return ok


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--boards", type=int, default=40)
    ap.add_argument("--episodes", type=int, default=4)
    ap.add_argument("--games", default=",".join(GAMES))
    ap.add_argument(
        "--shape-boards", type=int, default=40, help="boards per preset for glyph and door accuracy (0: skip)"
    )
    ap.add_argument("--shape-first", type=int, default=0, help="first seed of the shape boards")
    ap.add_argument("--shapes-only", action="store_true", help="only glyph and door accuracy")
    args = ap.parse_args()
    cv2.setNumThreads(1)
    ok = True
    if args.shape_boards:
        ok &= shapes(args.shape_boards, args.shape_first)
    if args.shapes_only:
        print("targets met" if ok else "TARGETS MISSED")
        return 0 if ok else 1
    print(
        f"{'game':11} {'preset':6} {'places':>7} {'right%':>8} {'unsure':>6} {'wrong':>5}"
        f"   gated: {'still':>5} {'exact':>5} {'hand->snapshot':>14} {'arms missed':>12}"
    )
    for game in args.games.split(","):
        game_arms = game_missed = 0
        for preset in ("clean", "hard"):
            total, right, unsure, wrong = accuracy(game, preset, args.boards)
            still, exact, hand, missed, arms = gated(game, preset, args.episodes)
            pct = 100 * right / total
            print(
                f"{game:11} {preset:6} {total:7d} {pct:8.3f} {unsure:6d} {wrong:5d}"
                f"          {still:5d} {exact:5d} {hand:14d} {f'{missed} of {arms}':>12}",
                flush=True,
            )
            ok &= pct >= 99.9 and wrong == 0 and exact == still and hand == 0 and missed == 0
            game_arms += arms
            game_missed += missed
        print(f"{game:11} arms missed: {game_missed} of {game_arms}", flush=True)
    print("targets met" if ok else "TARGETS MISSED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
