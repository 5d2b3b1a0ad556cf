"""Proof that a change to the vision code changes nothing that is read: record the readings of
rendered pictures and real photographs with one version of the code, then compare another
version's with them.

    python bench/reading_replay.py save readings.pkl     # before the change
    python bench/reading_replay.py check readings.pkl    # after it: prints how many differ

Pictures: Blockers! `--boards` clean and as many hard boards (the accuracy bench's glyph scheme),
boards whose print clips in red (bench/clipped_print.py's scheme, three gains) and short sequences
read by one reader (the glyph memory at work, as bench/vision_bench.py reads them); `--others`
clean and hard boards of every other game, a hand over each and a lamp's reflection beside it
(bench/hand_check.py's scenes); and the generic lattice reader (`referee lattice`) on the shared
photographs, every folder with its own model and with the other folders' (`bench/photo_accuracy.py
--cross`), and on `--lattice-boards` synthetic boards of each of `bench/lattice_accuracy.py`'s
scenarios. Compared per picture: every place's reading, the problem, the colour confidences
(exactly), doors and open points, per tile the glyph, whether it is sure and its best and
second-best scores (to `--tolerance`); per lattice picture every label, why it is unsure and its
confidence (exactly).
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

from bench.hand_check import edge_glare  # noqa: E402
from bench.photo_accuracy import EMPTY_FOLDER, folder_photos, learn_from, photos_dir, teacher  # noqa: E402
from bench.vision_bench import one_change  # noqa: E402
from controller.profile import default_profile  # noqa: E402
from controller.vision import glyphs as glyphs_module  # noqa: E402
from controller.vision import lattice  # noqa: E402
from controller.vision.geometry import parse_corners  # noqa: E402
from controller.vision.reader import BoardReader  # noqa: E402
from simulation.render import Scene, random_snapshot, render_snapshot  # noqa: E402

OTHER_GAMES = ("colorpop", "flipop", "stay-alive")

GlyphRecord = tuple[list[str], np.ndarray, np.ndarray, np.ndarray]


class GlyphSpy:
    """Keeps every glyph reading the board reader asks for (the `Reading` holds only the letters):
    it takes the place of `read_glyphs` in every vision module that calls it."""

    def __init__(self) -> None:
        self.seen: list[GlyphRecord] = []
        self.read = glyphs_module.read_glyphs
        for name, module in list(sys.modules.items()):
            if name.startswith("controller.vision") and getattr(module, "read_glyphs", None) is self.read:
                setattr(module, "read_glyphs", self)  # noqa: B010 (mypy: not every module defines it)

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


def other_pictures(boards: int) -> Iterator[tuple[str, str, list[np.ndarray]]]:
    """(game, name, frames read in turn by one reader) of the other games: boards, then a hand over
    a board its reader saw before, and a lamp's reflection beside the lattice."""
    for game in OTHER_GAMES:
        p = default_profile(game)
        for preset in ("clean", "hard"):
            for seed in range(boards):
                snap = random_snapshot(game, p, seed=4000 + seed)
                yield game, f"{game} {preset} {seed}", [render_snapshot(snap, p, seed=seed, preset=preset)]
        for seed in range(boards):
            rng = np.random.default_rng(1000 + seed)
            snap = random_snapshot(game, p, seed=seed)
            glare = Scene(glare_at=(edge_glare(p, rng),), frame=1)
            yield game, f"{game} glare {seed}", [render_snapshot(snap, p, seed=seed, preset="hard", scene=glare)]
            place = (float(rng.integers(p.rows)), float(rng.integers(p.cols)))
            hand = Scene(hand=place, hand_side=str(rng.choice(["bottom", "top", "left", "right"])), frame=2)
            before = render_snapshot(snap, p, seed=seed, preset="hard", scene=Scene(frame=3))
            yield game, f"{game} hand {seed}", [before, render_snapshot(snap, p, seed=seed, preset="hard", scene=hand)]


def record(boards: int, others: int = 0, lattice_boards: int = 0) -> dict[str, list[dict]]:
    cv2.setNumThreads(1)
    spy = GlyphSpy()
    out = {}
    cases = [("blockers", name, frames) for name, frames in pictures(boards)]
    for game, name, frames in [*cases, *other_pictures(others)]:
        reader = BoardReader(default_profile(game))
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
                    "doors": r.doors,
                    "open": sorted(r.open_points),
                }
            )
        out[name] = readings
    out.update(record_lattice(lattice_boards))
    return out


def record_lattice(boards: int) -> dict[str, list[dict]]:
    """The lattice reader's every label, reason and confidence on the shared photographs (each folder
    with its own model and with the other folders' of its size) and on synthetic boards."""
    from bench.lattice_accuracy import SCENARIOS, make_case, render_case

    out: dict[str, list[dict]] = {}

    def keep(name: str, model, image, size, corners) -> None:
        seen = lattice.describe(image, size, corners)
        letters, why, confidence = model.judge(
            seen.feats, seen.hidden, seen.flat, seen.bounds, seen.away, seen.rectified
        )
        out[name] = [{"cells": list(letters), "why": list(why), "confidence": np.asarray(confidence).copy()}]

    root = photos_dir()
    if root is not None:
        folders = sorted(p.name for p in root.iterdir() if p.is_dir() and p.name != EMPTY_FOLDER)
        models = {name: learn_from(teacher(folder_photos(root / name))) for name in folders}
        for source, model in models.items():
            for target in [*folders, EMPTY_FOLDER]:
                for photo in folder_photos(root / target):
                    if photo.size == model.size and {c for row in photo.grid for c in row} <= set(model.labels):
                        keep(
                            f"photo {source} -> {target}/{photo.name}",
                            model,
                            photo.image(),
                            photo.size,
                            parse_corners(photo.corners),
                        )
    for scenario in ["render-hard", *SCENARIOS]:
        for b in range(boards):
            seeds = [10_000 * (b + 1) + k for k in range(4)]
            cases = [render_case(s) if scenario == "render-hard" else make_case(scenario, s) for s in seeds]
            size = (len(cases[0][1]), len(cases[0][1][0]))
            model = lattice.learn([(c[0], c[1]) for c in cases[:2]], size, [c[2] for c in cases[:2]])
            for k, (img, _, given, _) in enumerate(cases[2:]):
                keep(f"lattice {scenario} {b} {k}", model, img, size, given)
    return out


def compare(before: dict[str, list[dict]], after: dict[str, list[dict]], tolerance: float) -> int:
    """Prints each difference and a summary; returns the number of differences."""
    differ = tiles = frames = 0
    largest = 0.0
    for name, readings in before.items():
        for was, now in zip(readings, after[name]):
            frames += 1
            for key in ("cells", "problem", "unsure", "doors", "open", "why"):
                if was.get(key) != now.get(key):
                    differ += 1
                    print(f"{name}: {key} {was[key]!r} -> {now[key]!r}")
            if not np.array_equal(was["confidence"], now["confidence"]):
                differ += 1
                print(f"{name}: colour confidences differ")
            if "glyphs" not in was:
                continue
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
    ap.add_argument("--others", type=int, default=20, help="clean, hard, glare and hand boards of each other game")
    ap.add_argument("--lattice-boards", type=int, default=2, help="models per synthetic lattice scenario")
    ap.add_argument("--tolerance", type=float, default=1e-6, help="largest change of a glyph score")
    args = ap.parse_args()
    now = record(args.boards, args.others, args.lattice_boards)
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
