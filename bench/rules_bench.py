"""Median time to judge one snapshot, per game (target: under 1 ms per judgement).

Each game's cases come from `bench/rules_cases_<game>.py`, a module with
``cases(count: int, seed: int) -> list[tuple[Engine, state, Snapshot]]`` that builds random
mid-game positions and a snapshot to judge for each (legal results, pending and illegal ones).

    python bench/rules_bench.py [--count N] [--seed S] [--game G]
"""

from __future__ import annotations

import argparse
import importlib
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

GAMES = {"colorpop": "colorpop", "blockers": "blockers", "flipop": "flipop", "stay-alive": "stay_alive"}


def bench_game(game: str, count: int, seed: int) -> tuple[float, float, int]:
    module = importlib.import_module(f"rules_cases_{GAMES[game]}")
    cases = module.cases(count, seed)
    times = []
    for engine, state, snapshot in cases:
        start = time.perf_counter()
        engine.judge(state, snapshot)
        times.append(time.perf_counter() - start)
    times.sort()
    return statistics.median(times) * 1000, times[int(len(times) * 0.95)] * 1000, len(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=500)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--game", choices=sorted(GAMES), action="append")
    args = parser.parse_args()
    print(f"{'game':12} {'cases':>6} {'median ms':>10} {'p95 ms':>8}")
    for game in args.game or list(GAMES):
        try:
            median, p95, n = bench_game(game, args.count, args.seed)
        except ModuleNotFoundError as exc:
            print(f"{game:12} skipped: {exc}")
            continue
        print(f"{game:12} {n:6d} {median:10.3f} {p95:8.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
