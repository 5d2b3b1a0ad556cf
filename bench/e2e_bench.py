"""End-to-end bench of the referee service on the simulated rig at 30 frames per second.

Measures, per game:
* latency: simulated time from the last physical change (the step that leaves the board settled,
  or a Stay Alive marble dropping a few frames after its slide moved) to the tick that gave the
  verdict and drove the lights; the target is the settle time plus at most two frames. The real
  time that judging tick took (reading, rules, journal commit, lights) is reported
  beside it: on a Pi it adds to the latency.
* CPU time per frame while the board is still (motion gate on each frame; the frame source's own
  cost, rendering here, capture on a Pi, is not the referee's and is excluded).

Usage: python bench/e2e_bench.py [--games colorpop blockers ...] [--moves N] [--seed N] [--slow-listener]
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

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from controller.commands.demo import GAMES, demo_config  # noqa: E402
from controller.record import setup_from_mapping  # noqa: E402
from controller.service.app import Service  # noqa: E402
from controller.service.config import config_from_mapping  # noqa: E402
from simulation.devices import SimulatedDevices
from simulation.world import FPS, SimClock, SimDriver, SimPlayer, SimWorld, Step, starting_board  # noqa: E402


def bench_game(
    game: str, seed: int, moves: int, folder: Path, still_frames: int = 300, slow_listener: bool = False
) -> dict:
    config = config_from_mapping(demo_config(game, seed, folder), source="bench", base=folder)
    setup = setup_from_mapping(config.game_keys, "bench")
    board = starting_board(setup, random.Random(seed))
    clock = SimClock()
    log = logging.getLogger(f"bench.{game}")
    log.propagate = False
    log.addHandler(logging.NullHandler())
    service = Service(
        config,
        devices=SimulatedDevices(lambda pico: SimWorld(setup, board, pico=pico)),
        clock=clock,
        control=False,
        log=log,
        feedback_tempo=0.02,
    )
    try:
        world = service.world
        loop = service.loop
        if slow_listener:  # an output that takes a second per event must not delay judging or lights
            loop.bus.subscribe(lambda event: time.sleep(1.0), name="slow listener")
        player = SimPlayer(world, setup, config.setup, seed=seed, troubles=False, max_moves=moves)
        changed_at: list[float] = []
        latencies: list[float] = []
        judge_wall: list[float] = []

        falling = [0]

        def tick() -> None:
            # a marble that dropped after its slide moved is the last physical change: the frame
            # before this one was the last without it, as for a step
            if len(world.falling) < falling[0]:
                changed_at.append(clock() - 1 / FPS)
            falling[0] = len(world.falling)
            before = len(loop.verdicts)
            started = time.perf_counter()
            loop.tick()
            spent = time.perf_counter() - started
            if len(loop.verdicts) > before and changed_at:
                latencies.append(clock() - changed_at[-1])
                judge_wall.append(spent)

        def on_step(step: Step) -> None:
            changed_at.append(clock())

        driver = SimDriver(world, clock, tick, switches=service.switches, on_step=on_step)
        if service.switches is not None:
            service.switches.wait_for(lambda s: s.link_ok, timeout=5.0)
        driver.run(player.steps())
        # CPU per frame while the board is still (cached frames: the renderer's cost is excluded)
        driver.run_frames(30)
        cpu_before = service.sensor.cpu
        tick_cpu = time.thread_time()
        driver.run_frames(still_frames)
        tick_cpu = time.thread_time() - tick_cpu
        cpu = (service.sensor.cpu - cpu_before) / still_frames
        return {
            "game": game,
            "verdicts": len(latencies),
            "latency_mean_ms": 1000 * statistics.mean(latencies),
            "latency_max_ms": 1000 * max(latencies),
            "target_ms": 1000 * (config.settle_time + 2 / FPS),
            "judge_tick_wall_mean_ms": 1000 * statistics.mean(judge_wall),
            "judge_tick_wall_max_ms": 1000 * max(judge_wall),
            "still_cpu_per_frame_ms": 1000 * cpu,
            "still_tick_cpu_per_frame_ms": 1000 * tick_cpu / still_frames,
        }
    finally:
        service.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", nargs="+", default=list(GAMES), choices=GAMES)
    parser.add_argument("--moves", type=int, default=12)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--slow-listener", action="store_true", help="add an event listener that sleeps 1 s per event")
    args = parser.parse_args()
    print(
        f"{'game':<11} {'verdicts':>8} {'latency mean/max ms':>20} {'target ms':>9} "
        f"{'judging tick ms mean/max':>25} {'still CPU/frame ms (gate / whole tick)':>38}"
    )
    with tempfile.TemporaryDirectory(prefix="referee-bench-") as tmp:
        for game in args.games:
            r = bench_game(game, args.seed, args.moves, Path(tmp), slow_listener=args.slow_listener)
            print(
                f"{r['game']:<11} {r['verdicts']:>8} {r['latency_mean_ms']:>9.1f} / {r['latency_max_ms']:<8.1f} "
                f"{r['target_ms']:>9.1f} {r['judge_tick_wall_mean_ms']:>12.1f} / {r['judge_tick_wall_max_ms']:<10.1f} "
                f"{r['still_cpu_per_frame_ms']:>17.3f} / {r['still_tick_cpu_per_frame_ms']:.3f}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
