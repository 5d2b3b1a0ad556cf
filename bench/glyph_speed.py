"""Processor time of the Blockers! glyph reading, this version against another copy of glyphs.py.

The machine's speed drifts by tens of percent from minute to minute, so two versions timed one
after the other cannot be compared; here the two run alternately, board by board, in one process,
and each sums its processor time (`time.process_time`). Boards: the vision bench's six Blockers!
boards (clean and hard, seeds 1-3, frame 0). Printed per board and over all: the mean processor
time of a cold read (`invalidate`, then `read`: localisation, colours and glyphs) and of
`read_glyphs` alone on the same tiles (no glyph memory) with each version, and the ratio
new/old; the bench's worst cold read is the slowest board's.

    python bench/glyph_speed.py OLD_GLYPHS_PY [--rounds N]

e.g. `git show main:controller/vision/glyphs.py > /tmp/old_glyphs.py` first.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # as the referee runs (controller/__init__.py)

import argparse
import importlib.util
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import cv2  # noqa: E402

from controller.profile import default_profile  # noqa: E402
from controller.vision import glyphs as new_glyphs  # noqa: E402
from controller.vision import reader as reader_module  # noqa: E402
from controller.vision.reader import BoardReader  # noqa: E402
from simulation.render import Scene, random_snapshot, render_snapshot  # noqa: E402


def load(path: Path):
    spec = importlib.util.spec_from_file_location("old_glyphs", path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"{path} cannot be loaded as a Python module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("old", type=Path, help="the other glyphs.py")
    ap.add_argument("--rounds", type=int, default=30)
    args = ap.parse_args()
    if not args.old.is_file():
        print(f"no such file: {args.old}", file=sys.stderr)
        return 2
    cv2.setNumThreads(1)
    old_glyphs = load(args.old)
    versions = {"old": old_glyphs, "new": new_glyphs}
    p = default_profile("blockers")
    boards, names = [], []
    for preset in ("clean", "hard"):
        for seed in (1, 2, 3):
            snap = random_snapshot("blockers", p, seed=seed)
            boards.append(render_snapshot(snap, p, seed=seed, preset=preset, scene=Scene(frame=0)))
            names.append(f"{preset} {seed}")
    readers: dict[str, list[BoardReader]] = {}
    calls: dict[str, list[tuple]] = {}  # the arguments of each board's read_glyphs call
    for name, module in versions.items():
        readers[name] = []
        for _ in boards:
            reader = BoardReader(p)
            reader.glyph_model = module.GlyphModel.from_profile(reader.settings)
            readers[name].append(reader)
    for name, module in versions.items():
        calls[name] = []
        for frame, reader in zip(boards, readers[name]):
            seen: list[tuple] = []

            def spy(model, *rest, seen=seen, read=module.read_glyphs):
                seen.append((model, *rest[:4]))
                return read(model, *rest)

            reader_module.read_glyphs = spy
            reader.invalidate()
            reader.read(frame)
            calls[name].append(seen[0])
    cold = {name: [0.0] * len(boards) for name in versions}
    glyph = {name: [0.0] * len(boards) for name in versions}
    faults = dict.fromkeys(versions, 0)
    for _ in range(args.rounds):
        for b, frame in enumerate(boards):
            for name, module in versions.items():
                reader_module.read_glyphs = module.read_glyphs
                reader = readers[name][b]
                before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
                t = time.process_time()
                reader.invalidate()
                reader.read(frame)
                cold[name][b] += time.process_time() - t
                faults[name] += resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before
                t = time.process_time()
                module.read_glyphs(*calls[name][b])
                glyph[name][b] += time.process_time() - t
    print(
        f"{'board':9} {'cold read old':>13} {'new':>6} {'new/old':>7} {'read_glyphs old':>15} {'new':>6} {'new/old':>7}"
    )
    for b, name in enumerate(names):
        c0, c1 = (cold[v][b] / args.rounds * 1000 for v in versions)
        g0, g1 = (glyph[v][b] / args.rounds * 1000 for v in versions)
        print(f"{name:9} {c0:13.2f} {c1:6.2f} {c1 / c0:7.3f} {g0:15.2f} {g1:6.2f} {g1 / g0:7.3f}")
    reads = args.rounds * len(boards)
    for name in versions:
        print(
            f"{name}: cold read {sum(cold[name]) / reads * 1000:6.2f} ms, "
            f"read_glyphs {sum(glyph[name]) / reads * 1000:6.2f} ms (processor time, mean of {reads}); "
            f"{faults[name] / reads:.0f} page faults per cold read"
        )
    print(
        f"new/old: cold read {sum(cold['new']) / sum(cold['old']):.3f}, "
        f"read_glyphs {sum(glyph['new']) / sum(glyph['old']):.3f}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
