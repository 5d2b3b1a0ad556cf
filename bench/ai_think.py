"""The strongest level's longest think per move, over a few whole games of each game.

    python bench/ai_think.py                          # 4 games per game, strong against random
    python bench/ai_think.py --games 6 --game flipop --against greedy

Issue 29 asks for at most 1 s of processor time per move on one core of the development machine
(about 3-4 s on a Pi 4). `bench/ai_bench.py` prints the longest think too, but over hundreds of games
played while the machine does other work; this is the short check to run on a quiet machine after a
change to the search's cost. Each game is played in a fresh process, so nothing a previous game left
in a cache helps it (a table's first game after the referee starts). The computer seat is prepared
as at the table (`controller.ai.match.play`): what it does before the game's clock starts is not
counted. Think times are processor seconds (`time.process_time`) of the level's own moves, with
its iterations in full (no wall-clock limit). Prints per game the mean and longest think, the move
(counted from 1 among the level's own) where the longest fell, and the machine's load average.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.ai_bench import GAMES, _player  # noqa: E402
from controller.ai import match  # noqa: E402
from controller.record import setup_from_mapping  # noqa: E402

#: The issue's limit on one move's think, processor seconds on the development machine.
LIMIT = 1.0


def play_one(task: tuple[str, str, str, int, int]) -> dict[str, Any]:
    """One whole game in this (fresh) process: the level's think per move."""
    game, level, against, index, seed = task
    setup = setup_from_mapping(GAMES[game])
    rng = random.Random(seed * 1_000_003 + index)
    ours, theirs = _player(game, level), _player(game, against)
    seat = index % 2
    players = [ours, theirs] if seat == 0 else [theirs, ours]
    outcome = match.play(setup, players, rng)
    think = outcome.think[seat]
    longest = max(range(len(think)), key=think.__getitem__) if think else 0
    return {
        "game": game,
        "index": index,
        "seat": seat,
        "moves": len(think),
        "mean": sum(think) / len(think) if think else 0.0,
        "longest": think[longest] if think else 0.0,
        "at": longest + 1,
        "first": think[0] if think else 0.0,
        "won": seat in outcome.winners,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=4, help="whole games per game (default 4)")
    parser.add_argument("--game", choices=sorted(GAMES), action="append", help="only this game (repeatable)")
    parser.add_argument("--level", default="strong", help="the level measured (default strong)")
    parser.add_argument("--against", default="random", help="its opponent: random, greedy or a level (default random)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if args.games < 1:
        parser.error("--games must be at least 1")
    print(f"load average at the start: {os.getloadavg()[0]:.2f}", flush=True)
    heads = f"{'game':11} {'game#':>5} {'seat':>4} {'moves':>5} {'mean s':>7} {'first s':>7} {'longest s':>9}"
    print(f"{heads} {'at move':>7}")
    worst: dict[str, float] = {}
    started = time.time()
    # A fresh process per game: no cache of an earlier game helps the next one.
    with ProcessPoolExecutor(1, max_tasks_per_child=1) as pool:
        games = args.game or list(GAMES)
        tasks = [(game, args.level, args.against, i, args.seed) for game in games for i in range(args.games)]
        for row in pool.map(play_one, tasks):
            worst[row["game"]] = max(worst.get(row["game"], 0.0), row["longest"])
            print(
                f"{row['game']:11} {row['index']:5d} {row['seat'] + 1:4d} {row['moves']:5d} {row['mean']:7.3f} "
                f"{row['first']:7.3f} {row['longest']:9.3f} {row['at']:7d}",
                flush=True,
            )
    print(f"load average at the end: {os.getloadavg()[0]:.2f} ({time.time() - started:.0f} s)")
    for game, longest in worst.items():
        verdict = "met" if longest <= LIMIT else "MISSED"
        print(f"{game:11} longest think {longest:.3f} s per move (limit {LIMIT:.1f} s): {verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
