"""The computer's levels against a uniformly random player, a one-ply greedy player and the level
below, in two-player games of every game: win rates with 95% intervals and think times.

    python bench/ai_bench.py                       # 200 games per pairing per game, all levels
    python bench/ai_bench.py --games 20 --jobs 2   # fewer games, two processes
    python bench/ai_bench.py --game flipop --level strong --against greedy

Seats alternate (the level moves first in half the games); a draw or a shared win counts half.
Targets for the strongest level (issue 29): at least 90% against random and 65% against greedy
in each game, at most 1 s of processor time per move on one core of the development machine;
each level beats the one below it. Think times are processor seconds (`time.process_time`) of the
level's own moves, so other work on the machine does not inflate them.
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from controller.ai import levels, match  # noqa: E402
from controller.ai.players import baseline  # noqa: E402
from controller.record import setup_from_mapping  # noqa: E402

#: The two-player setup of each game.
GAMES = {
    "colorpop": {"game": "colorpop", "variant": "standard", "players": 2},
    "blockers": {"game": "blockers", "variant": "two-player", "players": 2, "seats": [["R", "G"], ["B", "Y"]]},
    "flipop": {"game": "flipop", "players": 2},
    "stay-alive": {"game": "stay-alive", "players": 2, "seats": ["B", "Y"]},
}
OPPONENTS = ("random", "greedy", "below")


def _player(game: str, name: str):
    return baseline(game, name) if name in ("random", "greedy") else levels.player(game, name)


def play_one(task: tuple[str, str, str, int, int]) -> tuple[str, str, str, float, bool, bool, int, list[float]]:
    """One game: (game, level, opponent, score of the level 0/0.5/1, cut short, ended as settled,
    plies, its think times)."""
    game, level, opponent, index, seed = task
    setup = setup_from_mapping(GAMES[game])
    rng = random.Random(seed * 1_000_003 + index)
    ours, theirs = _player(game, level), _player(game, opponent)
    seat = index % 2
    players = [ours, theirs] if seat == 0 else [theirs, ours]
    outcome = match.play(setup, players, rng)
    score = 1.0 / len(outcome.winners) if seat in outcome.winners else 0.0
    return game, level, opponent, score, outcome.cut_short, outcome.settled, outcome.plies, outcome.think[seat]


def wilson(successes: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a proportion."""
    if n == 0:
        return 0.0, 1.0
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200, help="games per pairing per game (default 200)")
    parser.add_argument("--game", choices=sorted(GAMES), action="append", help="only this game (repeatable)")
    parser.add_argument("--level", choices=levels.level_names(), action="append", help="only this level (repeatable)")
    parser.add_argument("--against", choices=OPPONENTS, action="append", help="only this opponent (repeatable)")
    parser.add_argument("--jobs", type=int, default=1, help="processes playing at once (default 1)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if args.games < 1 or args.jobs < 1:
        parser.error("--games and --jobs must be at least 1")
    names = levels.level_names()
    tasks = []
    for game in args.game or list(GAMES):
        for level in args.level or names:
            for opponent in args.against or OPPONENTS:
                if opponent == "below":
                    below = names.index(level) - 1
                    if below < 0:
                        continue
                    opponent = names[below]
                tasks.extend((game, level, opponent, i, args.seed) for i in range(args.games))
    started = time.time()
    results: dict[tuple[str, str, str], list] = {}
    if args.jobs == 1:
        outcomes = map(play_one, tasks)
    else:
        pool = ProcessPoolExecutor(args.jobs)
        outcomes = pool.map(play_one, tasks, chunksize=1)
    for game, level, opponent, score, cut, settled, plies, think in outcomes:
        results.setdefault((game, level, opponent), []).append((score, cut, think, settled, plies))
    print(
        f"{'game':11} {'level':9} {'against':9} {'games':>5} {'score':>6} {'95% interval':>14} "
        f"{'wins':>5} {'draws':>5} {'cut':>4} {'locked':>6} {'plies':>6} {'think s/move':>13} {'max s':>6}"
    )
    for (game, level, opponent), rows in results.items():
        n = len(rows)
        total = sum(r[0] for r in rows)
        wins = sum(1 for r in rows if r[0] == 1.0)
        draws = sum(1 for r in rows if 0 < r[0] < 1)
        cut = sum(1 for r in rows if r[1])
        locked = sum(1 for r in rows if r[3])
        plies = sum(r[4] for r in rows) / n
        times = [t for r in rows for t in r[2]]
        low, high = wilson(total, n)
        mean = sum(times) / len(times) if times else 0.0
        print(
            f"{game:11} {level:9} {opponent:9} {n:5d} {total / n:6.1%} {low:6.1%}-{high:6.1%} "
            f"{wins:5d} {draws:5d} {cut:4d} {locked:6d} {plies:6.1f} {mean:13.3f} {max(times, default=0.0):6.2f}"
        )
    print(
        f"({time.time() - started:.0f} s; score counts a draw or shared win as half; cut: games ended at "
        f"{match.MAX_PLIES} plies, by agreement where the game has it; locked: ended by agreement once no move "
        "could change the outcome (Flipop's doors in a cycle of forced moves); plies: mean game length; "
        "think: processor seconds per move)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
