"""End-to-end bench of the referee service on the simulated rig at 30 frames per second.

Measures, per game and per verdict kind:
* latency: simulated time from the last change the camera or the switches can see to the tick
  that gave the verdict and drove the lights. A change is seen by the camera when it takes the
  first picture that shows it (the player's hand leaving, a marble dropping), by the switches when
  they report it (the same tick here: a real switch board reports within its 30 ms debounce). The
  camera's pictures reach the referee 1-3 frame times late (`simulation.camera.DelayedFrames`;
  `--camera-delay`), so the figure holds what a real camera adds. Target for legal moves: 150 ms,
  the judging tick's own time included ("+ judging": its processor time, which on a shared
  machine is what the referee spent; its wall time is printed beside it). That tick reads the
  picture and judges it.
* Stay Alive slide moves that let marbles fall are a row of their own: physics still changes the
  board after the slide moved (a marble drops 2-8 frames later, the rig's longest drop being
  `stay_alive.MARBLE_DROP_SECONDS`), so their latency is also given from the slide's move.
* Illegal verdicts wait for the patience time on purpose (`patience` in config.yaml): their row
  shows that wait, not a delay.
* CPU time per frame while the board is still (motion gate on each frame; the frame source's own
  cost, rendering here, capture on a Pi, is not the referee's and is excluded).

The player makes legal moves, a share of them in two parts with the hand off the board between
(`--mid-move`), one illegal change put back, and one move left half done (pending).

Usage: python bench/e2e_bench.py [--games colorpop blockers ...] [--count N] [--jobs N] [--moves N]
       [--seed N] [--camera-delay 1-3] [--mid-move 0.3] [--slow-listener]
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # as the referee runs (controller/__init__.py)

import argparse
import logging
import multiprocessing
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.faithful import delay_range  # noqa: E402
from controller.assembly import assemble  # noqa: E402
from controller.commands.demo import GAMES, demo_config  # noqa: E402
from controller.games.stay_alive.rules import FELL  # noqa: E402
from controller.record import setup_from_mapping  # noqa: E402
from controller.service.config import config_from_mapping  # noqa: E402
from simulation.devices import SimulatedDevices  # noqa: E402
from simulation.world import FPS, SimClock, SimDriver, SimPlayer, SimWorld, starting_board  # noqa: E402

TARGET_MS = 150.0
#: The verdict kinds in the order they are printed; "legal, marbles fell" is a Stay Alive slide move
#: whose marbles dropped after the slide moved.
KINDS = ("setup-ok", "legal", "legal, marbles fell", "pending", "restored", "unchanged", "illegal", "setup-invalid")


@dataclass
class Figures:
    """Latencies (simulated ms) and the judging ticks' real time (ms), per verdict kind."""

    game: str
    latency: dict[str, list[float]] = field(default_factory=dict)
    judging: dict[str, list[float]] = field(default_factory=dict)
    #: The judging ticks' processor time (ms): what the referee itself spent, whatever else the machine ran.
    judging_cpu: dict[str, list[float]] = field(default_factory=dict)
    #: Slide moves whose marbles fell: from the slide's move (the switches) to the verdict.
    from_slide: list[float] = field(default_factory=list)
    still_gate_ms: float = 0.0
    still_tick_ms: float = 0.0
    delays: list[int] = field(default_factory=list)

    def add(self, kind: str, latency_ms: float, judging_ms: float, judging_cpu_ms: float) -> None:
        self.latency.setdefault(kind, []).append(latency_ms)
        self.judging.setdefault(kind, []).append(judging_ms)
        self.judging_cpu.setdefault(kind, []).append(judging_cpu_ms)

    def merge(self, other: Figures) -> None:
        for kind, values in other.latency.items():
            self.latency.setdefault(kind, []).extend(values)
            self.judging.setdefault(kind, []).extend(other.judging[kind])
            self.judging_cpu.setdefault(kind, []).extend(other.judging_cpu[kind])
        self.from_slide.extend(other.from_slide)
        self.delays.extend(other.delays)


def bench_game(job: tuple) -> Figures:
    """One game on the simulated rig, in a folder of its own; returns its figures."""
    game, seed, moves, camera_delay, mid_move, slow_listener, still_frames = job
    logging.getLogger("firmware_bridge").setLevel(logging.ERROR)
    delay = random.Random(f"camera delay {seed}").randint(*camera_delay)
    with tempfile.TemporaryDirectory(prefix="referee-bench-") as tmp:
        folder = Path(tmp)
        config = config_from_mapping(demo_config(game, seed, folder), source="bench", base=folder)
        setup = setup_from_mapping(config.game_keys, "bench")
        board = starting_board(setup, random.Random(seed))
        clock = SimClock()
        log = logging.getLogger(f"bench.{game}")
        log.propagate = False
        log.addHandler(logging.NullHandler())
        service = assemble(
            config,
            devices=SimulatedDevices(lambda pico: SimWorld(setup, board, pico=pico), delay),
            clock=clock,
            control=False,
            log=log,
            feedback_tempo=0.02,
        )
        try:
            return _play(service, config, setup, clock, game, seed, moves, mid_move, slow_listener, still_frames, delay)
        finally:
            service.close()


def _play(service, config, setup, clock, game, seed, moves, mid_move, slow_listener, still_frames, delay) -> Figures:
    world = service.world
    loop = service.loop
    figures = Figures(game, delays=[delay])
    if slow_listener:  # an output that takes a second per event must not delay judging or lights
        loop.bus.subscribe(lambda event: time.sleep(1.0), name="slow listener")
    player = SimPlayer(
        world,
        setup,
        config.setup,
        seed=seed,
        troubles=frozenset({"illegal", "pending"}),
        max_moves=moves,
        mid_move=mid_move,
        patience=config.patience,
        settle_time=config.settle_time,
    )
    seen = {"version": world.version, "slides": _slides(world), "visible": clock(), "slid": clock()}

    def tick() -> None:
        # the frame this tick takes shows every change made since the last tick; the switches tell
        # a slide's move on this tick too
        if world.version != seen["version"]:
            seen["version"], seen["visible"] = world.version, clock()
        if _slides(world) != seen["slides"]:
            seen["slides"], seen["slid"] = _slides(world), clock()
        before = len(loop.verdicts)
        started, cpu = time.perf_counter(), time.thread_time()
        loop.tick()
        spent = 1000 * (time.perf_counter() - started)
        cpu = 1000 * (time.thread_time() - cpu)
        for verdict in loop.verdicts[before:]:
            if verdict.action:
                continue
            kind = verdict.verdict.value
            latency = 1000 * (clock() - seen["visible"])
            if any(e.kind == FELL.kind for e in verdict.events) and seen["slid"] is not None:
                kind = "legal, marbles fell"
                figures.from_slide.append(1000 * (clock() - seen["slid"]))
            figures.add(kind, latency, spent, cpu)

    driver = SimDriver(world, clock, tick, switches=service.switches)
    if service.switches is not None:
        service.switches.wait_for(lambda s: s.link_ok, timeout=5.0)
    driver.run(player.steps())
    # CPU per frame while the board is still (cached frames: the renderer's cost is excluded)
    driver.run_frames(30)
    cpu_before = service.sensor.cpu
    tick_cpu = time.thread_time()
    driver.run_frames(still_frames)
    tick_cpu = time.thread_time() - tick_cpu
    figures.still_gate_ms = 1000 * (service.sensor.cpu - cpu_before) / still_frames
    figures.still_tick_ms = 1000 * tick_cpu / still_frames
    return figures


def _slides(world) -> tuple:
    board = world.board
    return (board.line("orange"), board.line("white"))


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", nargs="+", default=list(GAMES), choices=GAMES)
    parser.add_argument("--count", type=int, default=2, help="games of each game (default 2)")
    parser.add_argument("--jobs", type=int, default=1, help="games at a time, one process each (default 1)")
    parser.add_argument("--moves", type=int, default=12, help="moves per game (default 12)")
    parser.add_argument("--seed", type=int, default=7, help="seed of the first game, then +1 (default 7)")
    parser.add_argument(
        "--camera-delay",
        type=delay_range,
        default=(1, 3),
        help="frame times the camera's pictures arrive late: N, or LOW-HIGH drawn per game (default 1-3)",
    )
    parser.add_argument("--mid-move", type=float, default=0.3, help="share of moves made in two parts (default 0.3)")
    parser.add_argument("--slow-listener", action="store_true", help="add an event listener that sleeps 1 s per event")
    parser.add_argument("--still-frames", type=int, default=300, help="frames of a still board timed (default 300)")
    args = parser.parse_args()
    if min(args.count, args.jobs, args.moves, args.still_frames) < 1:
        parser.error("--count, --jobs, --moves and --still-frames must be at least 1")

    jobs = [
        (game, args.seed + i, args.moves, args.camera_delay, args.mid_move, args.slow_listener, args.still_frames)
        for game in args.games
        for i in range(args.count)
    ]
    totals: dict[str, Figures] = {game: Figures(game) for game in args.games}
    still: dict[str, list[tuple[float, float]]] = {game: [] for game in args.games}
    results: Iterator[Figures]
    if args.jobs == 1:
        results = map(bench_game, jobs)
    else:
        pool = multiprocessing.get_context("spawn").Pool(args.jobs)
        results = pool.imap_unordered(bench_game, jobs)
    for figures in results:
        totals[figures.game].merge(figures)
        still[figures.game].append((figures.still_gate_ms, figures.still_tick_ms))

    delays = sorted({d for f in totals.values() for d in f.delays})
    print(
        f"{args.count} game(s) of each game, {args.moves} moves each, seeds {args.seed}-{args.seed + args.count - 1}; "
        f"{FPS} frames a second, the camera's pictures {'/'.join(map(str, delays))} frame times late; "
        f"latency from the last change the camera or switches can see, simulated ms; "
        f"'+ judging' adds the judging tick's processor time (its wall time is loaded by whatever else the "
        f"machine runs)"
    )
    print(
        f"\n{'game':<11} {'verdict':<20} {'n':>4} {'p50':>6} {'p90':>6} {'max':>6} {'max + judging':>14} "
        f"{'judging tick CPU ms mean/max':>29} {'wall ms mean/max':>17}"
    )
    worst_legal = 0.0
    for game in args.games:
        figures = totals[game]
        for kind in KINDS:
            values = figures.latency.get(kind)
            if not values:
                continue
            judging, cpu = figures.judging[kind], figures.judging_cpu[kind]
            with_judging = max(v + j for v, j in zip(values, cpu))
            if kind in ("legal", "pending", "restored"):
                worst_legal = max(worst_legal, with_judging)
            print(
                f"{game:<11} {kind:<20} {len(values):>4} {statistics.median(values):>6.0f} "
                f"{_percentile(values, 0.9):>6.0f} {max(values):>6.0f} {with_judging:>14.0f} "
                f"{statistics.mean(cpu):>16.1f} / {max(cpu):<10.1f} "
                f"{statistics.mean(judging):>7.1f} / {max(judging):.1f}"
            )
        if figures.from_slide:
            values = figures.from_slide
            print(
                f"{game:<11} {'  from the slide':<20} {len(values):>4} {statistics.median(values):>6.0f} "
                f"{_percentile(values, 0.9):>6.0f} {max(values):>6.0f}"
            )
    print(
        f"\nlegal, pending and restored verdicts: worst {worst_legal:.0f} ms with judging (target {TARGET_MS:.0f}); "
        f"setup-ok is the first picture after the referee started"
    )
    print(f"\n{'game':<11} {'still CPU/frame ms (gate / whole tick)':>40}")
    for game in args.games:
        gate = statistics.mean(g for g, _ in still[game])
        whole = statistics.mean(t for _, t in still[game])
        print(f"{game:<11} {gate:>26.3f} / {whole:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
