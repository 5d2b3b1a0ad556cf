"""What a frame costs the referee's loop, in processor time, by what the frame brought: the Pi's budget.

Whole games of every game on the simulated rig at 30 frames a second (the service as `referee run`
drives it, with a simulated player); each tick of the loop is timed with the loop thread's
processor time (`time.thread_time`, which other programs on the machine change far less than the
wall clock) and counted as one of:

* still board: the motion gate only (the picture is unchanged, or still moving);
* changed board: the gate found the picture still and changed, and the reader read it;
* judged board: the reading gave a verdict (rules, journal, lights included; the journal's wait
  for the disk is not processor time and is not counted);
* sheen read: one read of a Blockers! board whose glossy tiles mirror a pink wall (light of one
  colour added in the scene over the middle of the board, as in the 3D rooms), which the reader
  reads again as looks plus that light (`sheen_doubt.py`): the dearest read the simulated games
  never draw.

The simulated camera draws its pictures on the loop's thread when they are read; that drawing is
taken out of the figures (on a Pi the camera and its driver do that work). docs/pi.md scales these
figures to a Pi 4 and a Pi 5; run on a Pi, they are the Pi's own.

    python bench/pi_budget.py [--games colorpop ...] [--moves N] [--seed N] [--sheen-reads N]
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # as the referee runs (controller/__init__.py)

import argparse
import logging
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from controller.assembly import assemble  # noqa: E402
from controller.commands.demo import GAMES, demo_config  # noqa: E402
from controller.profile import default_profile  # noqa: E402
from controller.record import setup_from_mapping  # noqa: E402
from controller.service.config import config_from_mapping  # noqa: E402
from controller.vision.reader import BoardReader  # noqa: E402
from simulation.devices import SimulatedDevices  # noqa: E402
from simulation.render import random_snapshot, render_snapshot  # noqa: E402
from simulation.world import SimClock, SimDriver, SimPlayer, SimWorld, starting_board  # noqa: E402

KINDS = ("still board", "changed board", "judged board")
#: Linear BGR of a pink wall's light a glossy tile mirrors, relative to the paper's (3D room 4).
PINK_WALL = np.array([0.47, 0.68, 1.0])


def sheen_reads(seed: int, reads: int) -> list[float]:
    """Processor milliseconds of `reads` reads of one Blockers! board under a pink wall's sheen."""
    profile = default_profile("blockers")
    image = render_snapshot(random_snapshot("blockers", profile, seed=seed), profile, seed=seed, preset="clean")
    h, w = image.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w]
    spot = np.exp(-(((xx - w / 2) / (0.18 * w)) ** 2 + ((yy - h / 2) / (0.18 * h)) ** 2))
    light = (image / 255.0) ** 2.2 + 0.6 * spot[..., None] * PINK_WALL  # added in the scene, before the curve
    sheened = np.clip(255 * light ** (1 / 2.2), 0, 255).astype(np.uint8)
    reader = BoardReader(profile)
    reader.read(sheened)  # the markers found and the homography fitted, as on a still camera
    costs = []
    for _ in range(reads):
        started = time.thread_time()
        reader.read(sheened)
        costs.append(1000 * (time.thread_time() - started))
    return costs


def play(game: str, seed: int, moves: int, folder: Path) -> dict[str, list[float]]:
    """Processor milliseconds of every tick of one game, by kind."""
    config = config_from_mapping(demo_config(game, seed, folder), source="bench", base=folder)
    setup = setup_from_mapping(config.game_keys, "bench")
    board = starting_board(setup, random.Random(seed))
    clock = SimClock()
    log = logging.getLogger(f"bench.{game}")
    log.propagate, log.handlers = False, [logging.NullHandler()]
    service = assemble(
        config,
        devices=SimulatedDevices(lambda pico: SimWorld(setup, board, pico=pico)),
        clock=clock,
        control=False,
        log=log,
        feedback_tempo=0.02,
    )
    costs: dict[str, list[float]] = {kind: [] for kind in KINDS}
    try:
        loop, sensor = service.loop, service.sensor
        # the simulated camera (inside the loop's CameraWatch) draws each picture when it is read:
        # that is the camera's work, not the referee's, and is taken out of the tick's time
        camera = sensor.source.source
        drawing = [0.0]
        draw = camera.read

        def timed_read():
            started = time.thread_time()
            try:
                return draw()
            finally:
                drawing[0] += time.thread_time() - started

        camera.read = timed_read

        def tick() -> None:
            verdicts, reading = len(loop.verdicts), getattr(sensor, "latest_reading", None)
            drawing[0] = 0.0
            started = time.thread_time()
            loop.tick()
            spent = 1000 * (time.thread_time() - started - drawing[0])
            if len(loop.verdicts) > verdicts:
                costs["judged board"].append(spent)
            elif getattr(sensor, "latest_reading", None) is not reading:
                costs["changed board"].append(spent)
            else:
                costs["still board"].append(spent)

        world = service.world
        player = SimPlayer(world, setup, config.setup, seed=seed, troubles=False, max_moves=moves)
        driver = SimDriver(world, clock, tick, switches=service.switches)
        if service.switches is not None:
            service.switches.wait_for(lambda s: s.link_ok, timeout=5.0)
        driver.run(player.steps())
        driver.run_frames(150)  # a still board for five seconds
    finally:
        service.close()
    return costs


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", nargs="+", default=list(GAMES), choices=GAMES)
    parser.add_argument("--moves", type=int, default=12, help="moves per game (default 12)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--sheen-reads", type=int, default=20, help="reads of the sheen board (0: none)")
    args = parser.parse_args()
    logging.getLogger("firmware_bridge").setLevel(logging.ERROR)
    print("processor ms per frame of the referee's loop (30 frames a second: 33 ms a frame)")
    print(f"{'game':<11} {'frame':<14} {'frames':>6} {'mean':>6} {'p90':>6} {'max':>6}")
    with tempfile.TemporaryDirectory(prefix="referee-budget-") as tmp:
        for game in args.games:
            folder = Path(tmp) / game
            folder.mkdir()
            costs = play(game, args.seed, args.moves, folder)
            for kind in KINDS:
                _row(game, kind, costs[kind])
    if args.sheen_reads > 0:
        _row("blockers", "sheen read", sheen_reads(args.seed, args.sheen_reads))
    return 0


def _row(game: str, kind: str, costs: list[float]) -> None:
    values = sorted(costs)
    if not values:
        return
    p90 = values[min(len(values) - 1, round(0.9 * (len(values) - 1)))]
    print(
        f"{game:<11} {kind:<14} {len(values):>6} {statistics.mean(values):>6.2f} {p90:>6.2f} {values[-1]:>6.2f}",
        flush=True,
    )


if __name__ == "__main__":
    sys.exit(main())
