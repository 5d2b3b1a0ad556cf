"""The computer's levels against a uniformly random player, a one-ply greedy player and the level
below, in two-player games of every game: win rates with 95% intervals and think times.

    python bench/ai_bench.py                       # 200 games per pairing per game, all levels
    python bench/ai_bench.py --level strong --against random --against greedy
    python bench/ai_bench.py --games 20 --level strong --against below --game flipop
    python bench/ai_bench.py --report              # the table of what the results file holds so far

Every finished game is appended at once as one line of the results file (`--results`, default
`bench/results/ai_bench.jsonl`, kept in git: 200 games per pairing take more machine-hours than one
working session, and only what is committed outlives a machine), so a run can be stopped at any moment
(Ctrl-C) and the games accumulate across runs and sessions: a run plays only the games of its
pairings not yet in the file (a game is known by its game, level, opponent, number and seed, and by
the version of the code that plays it, below). Pairings are played in turn, game 1 of each, then
game 2 of each, so every pairing grows at the same pace.

The version is a digest of the code that decides how the game is played: the search and its players
(`controller/ai/`), the game's package (rules and knowledge), and the level's settings. Games played by
other code stay in the file but are not counted (`--report --any-version` shows them too), so a table
never mixes two players.

Seats alternate (the level moves first in half the games); a draw or a shared win counts half, and the
interval is Wilson's, widened only as much as the games vary: a draw varies less than a win or a loss
(`score_interval`), which matters in Flipop, where most games between careful players end drawn.
Targets for the strongest level (issue 29): at least 90% against random and 65% against greedy in
each game, at most 1 s of processor time per move on one core of the development machine; each level
beats the one below it. The target column says `met` once the whole 95% interval is above the target,
`missed` once it is below, `open` while the interval straddles it. The levels play their iterations
in full here (no wall-clock limit: the machine is shared, so the clock would cut searches at random);
think times are processor seconds (`time.process_time`) of the level's own moves, mean and longest.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import inspect
import json
import math
import random
import sys
import time
from collections.abc import Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, replace
from functools import cache
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from controller.ai import levels, match  # noqa: E402
from controller.ai.players import Player, SearchPlayer, baseline  # noqa: E402
from controller.ai.search import Search  # noqa: E402
from controller.games import registry  # noqa: E402
from controller.record import setup_from_mapping  # noqa: E402

#: The two-player setup of each game.
GAMES: dict[str, dict[str, Any]] = {
    "colorpop": {"game": "colorpop", "variant": "standard", "players": 2},
    "blockers": {"game": "blockers", "variant": "two-player", "players": 2, "seats": [["R", "G"], ["B", "Y"]]},
    "flipop": {"game": "flipop", "players": 2},
    "stay-alive": {"game": "stay-alive", "players": 2, "seats": ["B", "Y"]},
}
OPPONENTS = ("random", "greedy", "below")
YARDSTICKS = ("random", "greedy")
#: The strongest level's targets against the yardsticks; every level must beat the one below (> 50%).
TARGETS = {"random": 0.90, "greedy": 0.65}
DEFAULT_RESULTS = ROOT / "bench" / "results" / "ai_bench.jsonl"


@dataclass(frozen=True)
class Task:
    game: str
    level: str
    against: str
    index: int
    seed: int


def _player(game: str, name: str) -> Player:
    """A yardstick, or a level playing its iterations in full (no wall-clock limit)."""
    if name in YARDSTICKS:
        return baseline(game, name)
    player = levels.player(game, name)
    return SearchPlayer(Search(player.search.knowledge, replace(player.search.settings, seconds=math.inf)), name)


@cache
def version(game: str, level: str) -> str:
    """A digest of the code that plays `level` in `game`: a yardstick's and the level's results
    are counted together only while it holds. The code is read as Python reads it (comments and
    docstrings left out), so a reworded sentence does not start the count again; the computer's
    seat at the table (`controller/ai/table.py`) plays no bench game and is left out."""
    digest = hashlib.sha256()
    sources = sorted(p for p in (ROOT / "controller" / "ai").glob("*.py") if p.name != "table.py")
    game_dir = Path(inspect.getfile(registry.get(GAMES[game]["game"]).engine)).parent
    sources += sorted(p for p in game_dir.rglob("*") if p.suffix in (".py", ".yaml"))
    for path in sources:
        digest.update(str(path.relative_to(ROOT)).encode())
        digest.update(_code_of(path).encode())
    digest.update(repr(levels.LEVELS.get(level, level)).encode())
    return digest.hexdigest()[:12]


def _code_of(path: Path) -> str:
    """A source file as its code: Python without comments and docstrings; other files as they are."""
    text = path.read_text(encoding="utf-8")
    if path.suffix != ".py":
        return text
    tree = ast.parse(text)
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if (
            isinstance(body, list)
            and body
            and isinstance(body[0], ast.Expr)
            and isinstance(body[0].value, ast.Constant)
            and isinstance(body[0].value.value, str)
        ):
            node.body = body[1:] or [ast.Pass()]  # type: ignore[attr-defined]
    return ast.dump(tree)


def pairing_version(game: str, level: str, against: str) -> str:
    return version(game, level) + "/" + version(game, against)


def play_one(task: Task) -> dict[str, Any]:
    """One game, as the line the results file keeps of it."""
    setup = setup_from_mapping(GAMES[task.game])
    rng = random.Random(task.seed * 1_000_003 + task.index)
    ours, theirs = _player(task.game, task.level), _player(task.game, task.against)
    seat = task.index % 2
    players = [ours, theirs] if seat == 0 else [theirs, ours]
    started = time.process_time()
    outcome = match.play(setup, players, rng)
    think = outcome.think[seat]
    return {
        **asdict(task),
        "version": pairing_version(task.game, task.level, task.against),
        "seat": seat,
        "score": 1.0 / len(outcome.winners) if seat in outcome.winners else 0.0,
        "plies": outcome.plies,
        "cut": outcome.cut_short,
        "locked": outcome.settled,
        "moves": len(think),
        "think": round(sum(think), 4),
        "think_max": round(max(think, default=0.0), 4),
        "cpu": round(time.process_time() - started, 3),
    }


def _key(row: dict[str, Any]) -> tuple:
    return (row["game"], row["level"], row["against"], row["index"], row["seed"], row["version"])


def read_results(path: Path) -> list[dict[str, Any]]:
    """The games the file holds (a line cut short by a stopped run is skipped)."""
    if not path.exists():
        return []
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            row = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(row, dict) and {"game", "level", "against", "index", "seed", "version", "score"} <= set(row):
            rows.append(row)
    return rows


def wilson(successes: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a proportion (`successes` may count halves)."""
    if n == 0:
        return 0.0, 1.0
    p, z2 = successes / n, z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z * math.sqrt(max(p * (1 - p) / n + z2 / (4 * n * n), 0.0)) / (1 + z2 / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def score_interval(wins: int, draws: int, losses: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% interval of the mean score of games won (1), drawn (1/2) or lost (0).

    Wilson's interval keeps every p whose distance to the measured mean is within z standard errors
    *at p*: n (p - mean)^2 <= z^2 Var(p). With draws, a score p can come from many shares of wins,
    draws and losses, and the variance depends on which: Var = w + d/4 - p^2, smaller the more games
    are drawn. As Wilson's interval does for a proportion, and score tests do for a multinomial, the
    variance at p is that of the shares most likely to have given these games among those whose mean
    score is p (their constrained maximum likelihood). With no draws this is Wilson's interval exactly;
    in a drawish game it is as narrow as the games are (counting a draw as a coin toss would widen it
    about threefold when nine games in ten are drawn); and every game drawn still leaves a doubt, as
    Wilson's interval for no success does: 200 draws give 49.1-50.9%, not 50% exactly.
    """
    n = wins + draws + losses
    if n == 0:
        return 0.0, 1.0
    mean = (wins + draws / 2) / n
    z2 = z * z

    def inside(p: float) -> bool:
        return n * (p - mean) ** 2 <= z2 * _likeliest_variance(wins, draws, losses, p)

    def bound(towards: float) -> float:
        if inside(towards):
            return towards
        near, far = mean, towards
        for _ in range(60):
            middle = (near + far) / 2
            near, far = (middle, far) if inside(middle) else (near, middle)
        return near

    return bound(0.0), bound(1.0)


def _likeliest_variance(wins: int, draws: int, losses: int, p: float) -> float:
    """The variance of one game's score under the shares (w, d, l) of mean score p = w + d/2 most
    likely to have given these counts: with l = t, w = c + t and d = 1 - c - 2t (c = 2p - 1), the
    log-likelihood is concave in t and its derivative, times w d l, is a quadratic a t^2 + b t + k."""
    c = 2 * p - 1
    low, high = max(0.0, -c), (1 - c) / 2
    n = wins + draws + losses
    a, b = -2.0 * n, wins * (1 - c) - 2 * draws * c + losses * (1 - 3 * c)
    k = losses * c * (1 - c)
    # The quadratic is positive between its roots (a < 0): the likelihood climbs up to the larger.
    discriminant = b * b - 4 * a * k
    larger = (b + math.sqrt(discriminant)) / (4 * n) if discriminant >= 0 else low
    t = min(max(larger, low), high)
    w, d = c + t, 1 - c - 2 * t
    return max(w + d / 4 - p * p, 0.0)


def counts_of(scores: Iterable[float]) -> tuple[int, int, int]:
    """Wins, draws (or shared wins: half a point) and losses of two-player games' scores."""
    values = list(scores)
    wins = sum(1 for s in values if s >= 1.0)
    losses = sum(1 for s in values if s <= 0.0)
    return wins, len(values) - wins - losses, losses


def pairings(args: argparse.Namespace) -> list[tuple[str, str, str]]:
    names = levels.level_names()
    out = []
    for game in args.game or list(GAMES):
        for level in args.level or reversed(names):
            for opponent in args.against or OPPONENTS:
                if opponent == "below":
                    below = names.index(level) - 1
                    if below < 0:
                        continue
                    opponent = names[below]
                out.append((game, level, opponent))
    return out


def target_of(level: str, against: str) -> float | None:
    if against in YARDSTICKS:
        return TARGETS[against] if level == levels.level_names()[-1] else None
    return 0.5


def report(rows: Iterable[dict[str, Any]], wanted: list[tuple[str, str, str]], any_version: bool) -> None:
    groups: dict[tuple[str, str, str], list[dict[str, Any]]] = {}
    for row in rows:
        pairing = (row["game"], row["level"], row["against"])
        if pairing not in wanted:
            continue
        if any_version or row["version"] == pairing_version(*pairing):
            groups.setdefault(pairing, []).append(row)
    print(
        f"{'game':11} {'level':9} {'against':9} {'games':>5} {'score':>6} {'95% interval':>14} {'target':>12} "
        f"{'wins':>5} {'draws':>5} {'cut':>4} {'locked':>6} {'plies':>6} {'think s/move':>13} {'max s':>6}"
    )
    for pairing in wanted:
        game, level, opponent = pairing
        rows_ = groups.get(pairing, [])
        n = len(rows_)
        if not n:
            print(f"{game:11} {level:9} {opponent:9} {0:5d}   (no games yet)")
            continue
        total = sum(r["score"] for r in rows_)
        wins, draws, losses = counts_of(r["score"] for r in rows_)
        low, high = score_interval(wins, draws, losses)
        goal = target_of(level, opponent)
        if goal is None:
            verdict = "-"
        else:
            above = low > goal if goal == 0.5 else low >= goal
            state = "met" if above else "missed" if high < goal else "open"
            verdict = f"{'>' if goal == 0.5 else '>='}{goal:.0%} {state}"
        moves = sum(r["moves"] for r in rows_)
        mean = sum(r["think"] for r in rows_) / moves if moves else 0.0
        print(
            f"{game:11} {level:9} {opponent:9} {n:5d} {total / n:6.1%} {low:6.1%}-{high:6.1%} {verdict:>12} "
            f"{wins:5d} {draws:5d} {sum(r['cut'] for r in rows_):4d} {sum(r['locked'] for r in rows_):6d} "
            f"{sum(r['plies'] for r in rows_) / n:6.1f} {mean:13.3f} {max(r['think_max'] for r in rows_):6.2f}"
        )
    print(
        "(score counts a draw or shared win as half, and the interval knows that a draw varies less than a win "
        f"or a loss; cut: games ended at {match.MAX_PLIES} plies, by agreement "
        "where the game has it; locked: ended by agreement once no move could change the outcome (Flipop's doors "
        "in a cycle of forced moves); plies: mean game length; think: the level's processor seconds per move, "
        "mean and longest)"
    )


def _outcomes(tasks: list[Task], jobs: int) -> Iterator[dict[str, Any]]:
    if jobs == 1:
        yield from map(play_one, tasks)
        return
    with ProcessPoolExecutor(jobs) as pool:
        yield from pool.map(play_one, tasks, chunksize=1)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200, help="games per pairing per game (default 200)")
    parser.add_argument("--game", choices=sorted(GAMES), action="append", help="only this game (repeatable)")
    parser.add_argument("--level", choices=levels.level_names(), action="append", help="only this level (repeatable)")
    parser.add_argument(
        "--against", choices=OPPONENTS, action="append", help="only this opponent (repeatable; below: the level below)"
    )
    parser.add_argument("--jobs", type=int, default=1, help="processes playing at once (default 1)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--results", type=Path, default=DEFAULT_RESULTS, help="results file (default bench/results/ai_bench.jsonl)"
    )
    parser.add_argument("--report", action="store_true", help="only print the table of the games the file holds")
    parser.add_argument("--any-version", action="store_true", help="count games played by other code too")
    args = parser.parse_args()
    if args.games < 1 or args.jobs < 1:
        parser.error("--games and --jobs must be at least 1")
    wanted = pairings(args)
    if args.report:
        if not args.results.exists():
            print(f"no results yet: {args.results} does not exist", file=sys.stderr)
            return 1
        report(read_results(args.results), wanted, args.any_version)
        return 0
    done = {_key(r) for r in read_results(args.results)}
    tasks = [
        Task(game, level, against, index, args.seed)
        for index in range(args.games)
        for game, level, against in wanted
        if (game, level, against, index, args.seed, pairing_version(game, level, against)) not in done
    ]
    print(f"{len(tasks)} games to play ({len(wanted) * args.games - len(tasks)} already in {args.results})", flush=True)
    args.results.parent.mkdir(parents=True, exist_ok=True)
    started = time.time()
    try:
        with args.results.open("a", encoding="utf-8") as out:
            for row in _outcomes(tasks, args.jobs):
                out.write(json.dumps(row) + "\n")
                out.flush()
    except KeyboardInterrupt:
        print("stopped: the games finished so far are kept", file=sys.stderr)
    print(f"({time.time() - started:.0f} s)")
    report(read_results(args.results), wanted, args.any_version)
    return 0


if __name__ == "__main__":
    sys.exit(main())
