"""Vision speed on 1280x720 frames with OpenCV on one thread.

Printed (median milliseconds): a full localisation (marker detection + homography) plus reading;
a steady-state frame (cached homography checked against the markers, then reading: the Blockers!
reader keeps the glyph of every tile that looks as it did); a frame in which one place changed
since the last reading (what a move gives); and a still frame skipped by the motion gate. Each
is measured on `--seeds` boards (camera poses, lights and positions) and the slowest board's
median is printed, since marker detection time depends on what else in the picture looks like a
marker. Targets on a 2-core x86 box: 15 ms for a full
localisation and read, 2 ms for a gated still frame.

    python bench/vision_bench.py [--repeats N] [--seeds N] [--games blockers,...] [--cpu]

The last column is the processor time of a localisation and read (`time.process_time`, median),
which other programs running on the machine change far less than the wall-clock figures.
`--cpu` measures every column in processor time (the figures docs/pi.md scales to a Pi).
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # as the referee runs (controller/__init__.py)

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import cv2  # noqa: E402

from controller.games import registry  # noqa: E402
from controller.games.spec import GLYPHS_ADDON  # noqa: E402
from controller.profile import default_profile  # noqa: E402
from controller.snapshot import EMPTY, Snapshot  # noqa: E402
from controller.vision.gating import MotionGate  # noqa: E402
from controller.vision.reader import BoardReader  # noqa: E402
from simulation.render import Scene, random_snapshot, render_snapshot  # noqa: E402

GAMES = ["colorpop", "blockers", "flipop", "stay-alive"]


def ms(fn, repeats: int, clock=time.perf_counter) -> float:
    """Median milliseconds of `fn` by `clock` (wall or processor time)."""
    times = []
    for _ in range(repeats):
        t = clock()
        fn()
        times.append((clock() - t) * 1000)
    return statistics.median(times)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--repeats", type=int, default=50)
    ap.add_argument("--seeds", type=int, default=3, help="boards per game and preset")
    ap.add_argument("--games", default=",".join(GAMES))
    ap.add_argument("--cpu", action="store_true", help="every column in processor time, not wall-clock time")
    args = ap.parse_args()
    clock = time.process_time if args.cpu else time.perf_counter
    cv2.setNumThreads(1)
    print(
        f"{'game':11} {'preset':6} {'localise+read':>13} {'steady read':>11} {'one change':>10} "
        f"{'gate idle':>9} {'cpu l+r':>7}"
    )
    worst_full = worst_steady = worst_change = worst_idle = worst_cpu = 0.0
    for game in args.games.split(","):
        p = default_profile(game)
        for preset in ("clean", "hard"):
            full_ms = steady = change = idle = cpu = 0.0
            for seed in range(1, args.seeds + 1):
                snap = random_snapshot(game, p, seed=seed)
                frames = [render_snapshot(snap, p, seed=seed, preset=preset, scene=Scene(frame=i)) for i in range(2)]
                reader = BoardReader(p)

                def full(reader=reader, f=frames[0]):
                    reader.invalidate()
                    reader.read(f)

                steady = max(steady, ms(lambda reader=reader, f=frames[1]: reader.read(f), args.repeats, clock))
                moved = render_snapshot(one_change(snap), p, seed=seed, preset=preset, scene=Scene(frame=2))
                turn = iter(range(10**9))

                def alternate(reader=reader, pair=(frames[1], moved), turn=turn):
                    reader.read(pair[next(turn) % 2])

                change = max(change, ms(alternate, args.repeats, clock))
                full_ms = max(full_ms, ms(full, args.repeats, clock))
                cpu = max(cpu, ms(full, args.repeats, time.process_time))
                gate = MotionGate()
                for f in frames * 3:
                    gate.update(f)
                idle = max(idle, ms(lambda gate=gate, f=frames[1]: gate.update(f), args.repeats, clock))
            print(
                f"{game:11} {preset:6} {full_ms:13.2f} {steady:11.2f} {change:10.2f} {idle:9.2f} {cpu:7.2f}", flush=True
            )
            worst_full = max(worst_full, full_ms)
            worst_steady = max(worst_steady, steady)
            worst_change = max(worst_change, change)
            worst_idle = max(worst_idle, idle)
            worst_cpu = max(worst_cpu, cpu)
    print(
        f"worst medians: localise+read {worst_full:.2f} ms, steady read {worst_steady:.2f} ms, "
        f"one place changed {worst_change:.2f} ms, gated still frame {worst_idle:.2f} ms "
        f"(targets 15 and 2); processor time of localise+read {worst_cpu:.2f} ms"
    )
    return 0


def one_change(snap: Snapshot) -> Snapshot:
    """`snap` with its first occupied place changed: another glyph on a Blockers! tile, the
    place emptied in the other games (vision knows nothing of rules)."""
    cells = [list(row) for row in snap.cells]
    r, c = next((r, c) for r, row in enumerate(cells) for c, cell in enumerate(row) if cell != EMPTY)
    if registry.get(snap.game).reads(GLYPHS_ADDON):
        cells[r][c] = cells[r][c][0] + ("5" if cells[r][c][1:] != "5" else "6")
    else:
        cells[r][c] = EMPTY
    return Snapshot(snap.game, tuple(tuple(row) for row in cells), snap.lines)


if __name__ == "__main__":
    sys.exit(main())
