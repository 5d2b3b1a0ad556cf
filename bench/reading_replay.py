"""Proof that a change to the vision code changes nothing that is read: record the readings of
rendered Blockers! pictures with one version of the code, then compare another version's with them.

    python bench/reading_replay.py save readings.pkl     # before the change
    python bench/reading_replay.py check readings.pkl    # after it: prints how many differ

Pictures: `--boards` clean and as many hard boards (the accuracy bench's glyph scheme), boards
whose print clips in red (bench/clipped_print.py's scheme, three gains) and short sequences read
by one reader (the glyph memory at work, as bench/vision_bench.py reads them). Compared per
picture: every place's reading, the problem, the colour confidences (exactly), and per tile the
glyph, whether it is sure and its best and second-best scores (to `--tolerance`).
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # as the referee runs (controller/__init__.py)

import argparse
import pickle
import sys
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import cv2  # noqa: E402
import numpy as np  # noqa: E402

from bench.vision_bench import one_change  # noqa: E402
from controller.profile import default_profile  # noqa: E402
from controller.vision import reader as reader_module  # noqa: E402
from controller.vision.reader import BoardReader  # noqa: E402
from simulation.render import Scene, random_snapshot, render_snapshot  # noqa: E402

GlyphRecord = tuple[list[str], np.ndarray, np.ndarray, np.ndarray]


class GlyphSpy:
    """Keeps every glyph reading the board reader asks for (the `Reading` holds only the letters)."""

    def __init__(self) -> None:
        self.seen: list[GlyphRecord] = []
        self.read = reader_module.read_glyphs
        reader_module.read_glyphs = self

    def __call__(self, *args, **kwargs):
        res = self.read(*args, **kwargs)
        self.seen.append(
            (
                list(res.glyphs),
                res.sure.copy(),
                np.asarray(res.best, np.float64).copy(),
                np.asarray(res.second, np.float64).copy(),
            )
        )
        return res


def pictures(boards: int) -> Iterator[tuple[str, list[np.ndarray]]]:
    """(name, frames read in turn by one reader) of every case."""
    p = default_profile("blockers")
    for preset in ("clean", "hard"):
        for seed in range(boards):
            snap = random_snapshot("blockers", p, seed=3000 + seed)
            yield f"{preset} {seed}", [render_snapshot(snap, p, seed=seed, preset=preset)]
    for gain in (1.08, 1.15, 1.3):
        for seed in range(10):
            snap = random_snapshot("blockers", p, seed=seed, fill=0.6)
            img = render_snapshot(snap, p, seed=seed, preset="clean").astype(np.float32)
            img[..., 2] *= gain
            yield f"red x{gain} {seed}", [np.clip(img, 0, 255).astype(np.uint8)]
    for preset in ("clean", "hard"):
        for seed in range(1, 6):
            snap = random_snapshot("blockers", p, seed=seed)
            still = [render_snapshot(snap, p, seed=seed, preset=preset, scene=Scene(frame=i)) for i in range(2)]
            moved = render_snapshot(one_change(snap), p, seed=seed, preset=preset, scene=Scene(frame=2))
            yield f"sequence {preset} {seed}", still + [moved, still[1], moved]


def record(boards: int) -> dict[str, list[dict]]:
    cv2.setNumThreads(1)
    spy = GlyphSpy()
    p = default_profile("blockers")
    out = {}
    for name, frames in pictures(boards):
        reader = BoardReader(p)
        readings = []
        for frame in frames:
            spy.seen = []
            r = reader.read(frame)
            readings.append(
                {
                    "cells": r.cells,
                    "problem": r.problem,
                    "unsure": r.unsure,
                    "confidence": np.asarray(r.confidence).copy(),
                    "glyphs": spy.seen,
                }
            )
        out[name] = readings
    return out


def compare(before: dict[str, list[dict]], after: dict[str, list[dict]], tolerance: float) -> int:
    """Prints each difference and a summary; returns the number of differences."""
    differ = tiles = frames = 0
    largest = 0.0
    for name, readings in before.items():
        for was, now in zip(readings, after[name]):
            frames += 1
            for key in ("cells", "problem", "unsure"):
                if was[key] != now[key]:
                    differ += 1
                    print(f"{name}: {key} {was[key]!r} -> {now[key]!r}")
            if not np.array_equal(was["confidence"], now["confidence"]):
                differ += 1
                print(f"{name}: colour confidences differ")
            if len(was["glyphs"]) != len(now["glyphs"]):
                differ += 1
                print(f"{name}: glyphs read {len(was['glyphs'])} times, now {len(now['glyphs'])}")
                continue
            for (g0, s0, b0, c0), (g1, s1, b1, c1) in zip(was["glyphs"], now["glyphs"]):
                tiles += len(g0)
                for i in range(len(g0)):
                    change = max(abs(b0[i] - b1[i]), abs(c0[i] - c1[i]))
                    largest = max(largest, change)
                    if g0[i] != g1[i] or s0[i] != s1[i] or change > tolerance:
                        differ += 1
                        print(
                            f"{name} tile {i}: {g0[i]} sure={s0[i]} {b0[i]:.7f}/{c0[i]:.7f} -> "
                            f"{g1[i]} sure={s1[i]} {b1[i]:.7f}/{c1[i]:.7f}"
                        )
    print(f"{frames} pictures, {tiles} glyph readings: {differ} differ; largest score change {largest:.1e}")
    return differ


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("action", choices=["save", "check"])
    ap.add_argument("file", type=Path)
    ap.add_argument("--boards", type=int, default=100, help="clean and hard boards each")
    ap.add_argument("--tolerance", type=float, default=1e-6, help="largest change of a glyph score")
    args = ap.parse_args()
    now = record(args.boards)
    if args.action == "save":
        args.file.write_bytes(pickle.dumps(now))
        print(f"{sum(len(v) for v in now.values())} pictures recorded in {args.file}")
        return 0
    try:
        before = pickle.loads(args.file.read_bytes())
    except (OSError, pickle.UnpicklingError, EOFError) as err:
        print(f"cannot read the recorded readings {args.file}: {err}", file=sys.stderr)
        return 2
    if set(before) != set(now):
        print(f"{args.file} was recorded with other pictures (another --boards?)", file=sys.stderr)
        return 2
    return 1 if compare(before, now, args.tolerance) else 0


if __name__ == "__main__":
    sys.exit(main())
