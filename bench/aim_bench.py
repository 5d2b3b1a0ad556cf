"""What the page's aim drawing and a holes capture cost, per request (nothing is done without a request).

Per game, on the simulated camera's picture (1280x720, `hard` look): the CPU time of one `GET /api/aim`
(the aim advice with its drawing, `controller/web/aim_api.py`), of the picture it sends
(`GET /api/aim/picture.jpg`), and for Stay Alive of reading one holes capture. Medians of `--repeat`
runs, thread CPU time (what a Pi's core would spend, scaled by its speed).

Usage: python bench/aim_bench.py [--repeat 10]
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # as the referee runs (controller/__init__.py)

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from controller.games.registry import engine_for  # noqa: E402
from controller.profile import default_profile  # noqa: E402
from controller.record import setup_from_mapping  # noqa: E402
from controller.vision.aim import aim_advice  # noqa: E402
from controller.vision.geometry import LatticeGeometry  # noqa: E402
from controller.vision.reader import BoardReader  # noqa: E402
from controller.web.aim_api import picture_jpeg  # noqa: E402
from simulation.render import random_snapshot, render_snapshot  # noqa: E402

PLAYERS: dict[str, dict] = {
    "colorpop": {"players": 2},
    "blockers": {"players": 4, "seats": ["R", "G", "B", "Y"]},
    "flipop": {"players": 2},
    "stay-alive": {"players": 2, "seats": ["B", "Y"]},
}


def cpu_ms(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        started = time.thread_time()
        fn()
        times.append((time.thread_time() - started) * 1000)
    return statistics.median(times)


def measure(game: str, keys: dict, repeat: int) -> str:
    profile = default_profile(game)
    frame = render_snapshot(random_snapshot(game, profile, 3), profile, seed=3, preset="hard")
    geom = LatticeGeometry.from_profile(profile)
    names = engine_for(setup_from_mapping({"game": game, **keys}, "bench")).place_name
    aim = cpu_ms(lambda: aim_advice(frame, geom, names).drawing(geom), repeat)
    jpeg = cpu_ms(lambda: picture_jpeg(frame), repeat)
    line = f"{game:11s} GET /api/aim {aim:6.1f} ms CPU   picture.jpg {jpeg:5.1f} ms CPU"
    if "holes" in profile.data:
        reader = BoardReader(profile)
        line += f"   holes capture read {cpu_ms(lambda: reader.read(frame), repeat):5.1f} ms CPU"
    return line


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=10, help="runs per figure (the median is printed)")
    args = parser.parse_args()
    for game, keys in PLAYERS.items():
        print(measure(game, keys, args.repeat), flush=True)


if __name__ == "__main__":
    main()
