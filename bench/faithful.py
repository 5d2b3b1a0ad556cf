"""Faithfulness bench: many whole simulated games per game, each verdict checked against the player.

Every game is `referee demo`'s `play_game` (the same `Service` as `referee run`, rendered camera
frames, the simulated switch board over a pseudo-terminal, mock pins) with the `hard` look by
default and all the troubles the simulated player makes: hands over the board, an illegal move,
a move left half done, glare, a camera bump, the camera and the switch board unplugged. A game
*differs* when the referee's verdicts are not the ones the player intended (`world.all_agree`).
Games run in parallel, one per process.

Prints, per game: games played, verdicts given, games whose verdicts differ, and the first
difference of each such game; then the total wall time. Exits 1 when any game differs.

Usage: python bench/faithful.py [--games stay-alive ...] [--count 100] [--seed 1000] [--jobs N]
       [--preset hard|clean]
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # as the referee runs (controller/__init__.py)

import argparse
import logging
import multiprocessing
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from controller.commands.demo import GAMES, play_game  # noqa: E402
from simulation.world import first_difference  # noqa: E402


@dataclass(frozen=True)
class Outcome:
    game: str
    seed: int
    verdicts: int
    difference: str | None  # None: every verdict is the one the player intended
    seconds: float


def play_one(job: tuple[str, int, str]) -> Outcome:
    """One whole game in this worker process, in a folder of its own."""
    game, seed, preset, size = job
    logging.getLogger("firmware_bridge").setLevel(logging.ERROR)
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="faithful-") as folder:
        try:
            result = play_game(game, seed, Path(folder), print_lights=False, preset=preset, size=size)
        except Exception as exc:  # e.g. a reveal the referee refuses: the game went wrong, count it so
            return Outcome(game, seed, 0, f"the game broke off: {exc}", time.perf_counter() - started)
    difference = first_difference(result.verdicts, result.intended)
    return Outcome(game, seed, len(result.verdicts), difference, time.perf_counter() - started)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", nargs="+", choices=GAMES, default=list(GAMES), help="the games to play")
    parser.add_argument("--count", type=int, default=100, help="games of each game (default 100)")
    parser.add_argument("--seed", type=int, default=1000, help="seed of the first game, then +1 (default 1000)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="games at a time (default: the cores)")
    parser.add_argument("--preset", choices=("clean", "hard"), default="hard", help="the camera's look (default hard)")
    parser.add_argument(
        "--size",
        default="1280x720",
        help="the camera's picture, WIDTHxHEIGHT (default 1280x720, config.yaml's; the demo's 640x480 is too small "
        "for the hard look's blurred markers)",
    )
    args = parser.parse_args(argv)
    if args.count < 1 or args.jobs < 1:
        parser.error("--count and --jobs must be at least 1")

    width, _, height = args.size.partition("x")
    size = (int(width), int(height))
    jobs = [(game, args.seed + i, args.preset, size) for game in args.games for i in range(args.count)]
    print(
        f"{len(jobs)} games ({args.count} of each of {', '.join(args.games)}), seeds {args.seed}-"
        f"{args.seed + args.count - 1}, preset {args.preset}, {args.jobs} at a time",
        flush=True,
    )
    started = time.perf_counter()
    outcomes: list[Outcome] = []
    # spawn: each worker starts clean (no threads or open devices inherited from this process)
    with multiprocessing.get_context("spawn").Pool(args.jobs, maxtasksperchild=20) as pool:
        for outcome in pool.imap_unordered(play_one, jobs):
            outcomes.append(outcome)
            said = "agrees" if outcome.difference is None else f"DIFFERS: {outcome.difference}"
            print(
                f"  [{len(outcomes)}/{len(jobs)}] {outcome.game} seed {outcome.seed}: {outcome.verdicts} verdicts "
                f"in {outcome.seconds:.0f} s, {said}",
                flush=True,
            )
    wall = time.perf_counter() - started

    print(f"\n{'game':<11} {'games':>5} {'verdicts':>8} {'differing':>9} {'s/game':>7}")
    for game in args.games:
        mine = sorted((o for o in outcomes if o.game == game), key=lambda o: o.seed)
        differing = [o for o in mine if o.difference is not None]
        per_game = sum(o.seconds for o in mine) / len(mine)
        print(f"{game:<11} {len(mine):>5} {sum(o.verdicts for o in mine):>8} {len(differing):>9} {per_game:>7.1f}")
        for o in differing:
            print(f"    seed {o.seed}: {o.difference}")
    total_differing = sum(o.difference is not None for o in outcomes)
    print(f"\n{len(outcomes)} games, {total_differing} differing, wall time {wall:.0f} s ({wall / 60:.1f} min)")
    return 1 if total_differing else 0


if __name__ == "__main__":
    sys.exit(main())
