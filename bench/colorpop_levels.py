"""Why Colorpop's strong level does not beat its club level (issue 29): paired deals and choices.

    python bench/colorpop_levels.py paired --a strong --b club --deals 40
    python bench/colorpop_levels.py paired --a club --b club --deals 40      # a 50% sanity check
    python bench/colorpop_levels.py paired --a strong --b club --oracle      # both see every colour
    python bench/colorpop_levels.py paired --a 'club#aim=0,playout_depth=6' --b random --deals 100
    python bench/colorpop_levels.py choices --positions 30                  # 200 vs 800 on one position

`paired`: every deal (the slides' tokens and the secret colours, from the deal's own seed) is played
twice, player A in seat 0 and then in seat 1, each seat keeping its secret colour, so both players
meet the same luck; each player draws its own random numbers from a seed of its own, apart from the
deal's. A deal's score for A is the mean of its two games (1: won both, 0.5: one each, 0: lost both);
the interval is the t interval of those means (the deal's luck cancels inside a pair), beside the
Wilson interval of the games as `bench/ai_bench.py` counts them. `--oracle` hands each search the
true secret colours instead of samples (as if it could see them): what the hidden colour costs.
A player is a level name, or `iterations[:temperature[:exploration]]` (e.g. `3200`, `30:1.0`), and
`#knob=value,...` changes Colorpop's knowledge for that player alone (e.g. `club#aim=0,playout_depth=6`:
session 10's playouts). Player A's processor seconds per move are printed.

`choices`: positions from games of club against club (every fifth ply); at each, the 200- and the
800-iteration searches each choose `--repeats` times with their own seeds: how often each agrees with
itself and with the other, and each one's chosen move's mean reward (its confidence), with the
final result of the game for the seat to move.

Every game is written to `--results` (jsonl) as it ends; a rerun plays only what is missing.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import sys
import time
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.ai_bench import wilson  # noqa: E402
from controller.ai import knowledge_for, levels, match  # noqa: E402
from controller.ai.players import Player, SearchPlayer, baseline  # noqa: E402
from controller.ai.search import Choice, Search, SearchSettings  # noqa: E402
from controller.games.colorpop import ai as colorpop_ai  # noqa: E402
from controller.grid import groups_by_value  # noqa: E402
from controller.record import setup_from_mapping  # noqa: E402
from controller.snapshot import EMPTY  # noqa: E402

SETUP = {"game": "colorpop", "variant": "standard", "players": 2}


class Oracle:
    """A search that is handed the true secret colours (its `sample` returns them): sight, not inference."""

    def __init__(self, inner: Search, name: str) -> None:
        self.inner = inner
        self.name = name
        self.truth: Any = None

    def choose(self, engine: Any, view: Any, seat: int, private: Any, rng: random.Random) -> Choice:
        knowledge = self.inner.knowledge
        truth = self.truth

        class Seeing(type(knowledge)):  # type: ignore[misc]
            def sample(self, engine: Any, state: Any, seat: int, private: Any, rng: random.Random) -> Any:
                return truth

        seeing = Seeing()
        for key, value in vars(knowledge).items():
            setattr(seeing, key, value)
        return Search(seeing, self.inner.settings).choose(engine, view, seat, private, rng)


def tuned(knobs: str) -> colorpop_ai.ColorpopKnowledge:
    """Colorpop's knowledge with some of its settings changed for one player (an experiment):
    `knobs` is `name=value,...` over the knowledge's numeric attributes (`aim`, `scale`,
    `playout_depth`, `effort`, ...; `playout_depth=none` plays playouts to the end)."""
    knowledge = colorpop_ai.ColorpopKnowledge()
    for knob in filter(None, knobs.split(",")):
        key, _, value = knob.partition("=")
        if not hasattr(knowledge, key):
            raise SystemExit(f"Colorpop's knowledge has no setting {key!r}")
        if value == "none":
            setattr(knowledge, key, None)
            continue
        try:
            setattr(knowledge, key, int(value) if key == "playout_depth" else float(value))
        except ValueError:
            raise SystemExit(f"{key} takes a number (or none), not {value!r}") from None
    return knowledge


def make_player(name: str, oracle: bool = False) -> Player:
    """A level, a yardstick, or `iterations[:temperature[:exploration]]`, optionally `@scale` (the
    evaluation's SCALE for this player only) or `#knob=value,...` (`tuned`); no wall-clock limit
    (the bench's way)."""
    label = name
    name, _, knobs = name.partition("#")
    name, _, scale = name.partition("@")
    if scale:
        knobs = f"scale={scale}," + knobs
    if name in ("random", "greedy"):
        return baseline("colorpop", name)
    if name in levels.LEVELS:
        settings = levels.LEVELS[name]
    else:
        iterations, temperature, exploration = (name.split(":") + ["", ""])[:3]
        settings = SearchSettings(
            iterations=int(iterations),
            temperature=float(temperature or 0.0),
            exploration=float(exploration or SearchSettings(1).exploration),
        )
    knowledge = tuned(knobs) if knobs else knowledge_for("colorpop")
    search = Search(knowledge, replace(settings, seconds=math.inf))
    return Oracle(search, label) if oracle else SearchPlayer(search, label)


def deal_start(deal: int) -> tuple[Any, Any, Any]:
    """Deal `deal`'s engine, first state (secret colours resolved) and hidden colours, from the
    deal's own seed: the same for every player and for a replay of its games."""
    knowledge = knowledge_for("colorpop")
    chance = random.Random(f"colorpop-deal/{deal}")
    engine, state = match.start(setup_from_mapping(SETUP), chance)
    hidden = knowledge.deal(engine, state, chance)
    return engine, knowledge.resolve(engine, state, hidden), hidden


def play_deal(deal: int, players: list[Player], seeds: list[str]) -> dict[str, Any]:
    """One game on deal `deal`; `players[s]` in seat s, drawing from `random.Random(seeds[s])`."""
    knowledge = knowledge_for("colorpop")
    engine, state, hidden = deal_start(deal)
    for player in players:
        if isinstance(player, Oracle):
            player.truth = hidden
    rngs = [random.Random(seed) for seed in seeds]
    think: list[list[float]] = [[], []]
    shape = [colour_shape(state.board, hidden[s]) for s in range(2)]
    line: list[list[Any]] = []
    plies = 0
    while not engine.is_over(state) and plies < match.MAX_PLIES:
        seat = engine.to_move(state)
        if seat is None:
            break
        view = knowledge.observe(engine, state, seat)
        began = time.process_time()
        choice = players[seat].choose(engine, view, seat, knowledge.private(engine, hidden, seat), rngs[seat])
        think[seat].append(time.process_time() - began)
        line.append([seat, choice.move.colour, sorted(r * 100 + c for r, c in choice.move.cells)])
        state = engine.apply(state, choice.move)[0]
        plies += 1
    winners = engine.result(state).winners if engine.is_over(state) else None
    winners = tuple(winners) if winners else (0, 1)
    left = [sum(row.count(ch) for row in state.board for ch in hidden[s]) for s in range(2)]
    return {
        "winners": list(winners),
        "plies": plies,
        "left": left,
        "instant": min(left) == 0,
        "think": [round(sum(t), 4) for t in think],
        "think_max": [round(max(t, default=0.0), 4) for t in think],
        "moves": [len(t) for t in think],
        "secret": ["".join(hidden[s]) for s in range(2)],
        "shape": shape,
        # took[s][t]: tokens of seat t's secret colour(s) that seat s removed.
        "took": [[sum(dict(state.removed[s]).get(ch, 0) for ch in hidden[t]) for t in range(2)] for s in range(2)],
        "line": line,
    }


def colour_shape(board: Any, colours: Any) -> dict[str, int]:
    """How the deal laid out `colours`: its tokens, those with no orthogonal neighbour of their colour
    (`lone`: they leave only when others come to them), its groups of two or more and the largest."""
    sizes = [
        len(cells) for value, cells in groups_by_value(board, lambda v: v if v in colours and v != EMPTY else None)
    ]
    return {
        "tokens": sum(sizes),
        "lone": sum(1 for n in sizes if n == 1),
        "groups": sum(1 for n in sizes if n >= 2),
        "largest": max(sizes, default=0),
    }


def paired(args: argparse.Namespace) -> None:
    path = Path(args.results)
    tag = f"paired/{args.a}/{args.b}/{'oracle' if args.oracle else 'sampled'}"
    done = {}
    if path.exists():
        for line in path.read_text().splitlines():
            row = json.loads(line)
            if row.get("tag") == tag:
                done[(row["deal"], row["a_seat"])] = row
    a, b = make_player(args.a, args.oracle), make_player(args.b, args.oracle)
    started = time.time()
    with path.open("a") as out:
        for deal in range(args.first, args.first + args.deals):
            for a_seat in (0, 1):
                if (deal, a_seat) in done:
                    continue
                players = [a, b] if a_seat == 0 else [b, a]
                names = [f"A/{deal}/{a_seat}", f"B/{deal}/{a_seat}"]
                seeds = names if a_seat == 0 else names[::-1]
                row = play_deal(deal, players, seeds)
                score = 1.0 / len(row["winners"]) if a_seat in row["winners"] else 0.0
                row.update(tag=tag, deal=deal, a_seat=a_seat, score=score)
                done[(deal, a_seat)] = row
                out.write(json.dumps(row) + "\n")
                out.flush()
    print(f"({time.time() - started:.0f} s)")
    summarise(tag, done, range(args.first, args.first + args.deals))


def pair_scores(games: dict[tuple[int, int], dict[str, Any]]) -> dict[int, float]:
    """Per deal played in both seats, A's mean score over its two games."""
    deals = {d for d, _ in games}
    return {
        d: (games[(d, 0)]["score"] + games[(d, 1)]["score"]) / 2 for d in deals if (d, 0) in games and (d, 1) in games
    }


def t_interval(values: list[float]) -> tuple[float, float, float]:
    """The mean of `values` and its 95% interval (normal approximation; unbounded for one value)."""
    mean = statistics.fmean(values)
    half = 1.96 * statistics.stdev(values) / math.sqrt(len(values)) if len(values) > 1 else math.inf
    return mean, mean - half, mean + half


def summarise(tag: str, done: dict[tuple[int, int], dict[str, Any]], deals: range) -> None:
    games = [done[k] for k in sorted(done) if k[0] in deals]
    pairs = [score for d, score in pair_scores(done).items() if d in deals]
    n = len(games)
    if not n:
        print(f"{tag}: no games")
        return
    p = sum(g["score"] for g in games) / n
    low, high = wilson(p * n, n)
    seat0 = [g for g in games if g["a_seat"] == 0]
    seat0_wins = sum(1 for g in games if 0 in g["winners"] and len(g["winners"]) == 1) / n
    split = Counter(round(s * 2) for s in pairs)
    print(f"{tag}: {n} games, A scores {p:.1%} (Wilson {low:.1%}-{high:.1%})")
    if len(pairs) > 1:
        mean, low_t, high_t = t_interval(pairs)
        print(
            f"  {len(pairs)} paired deals: mean {mean:.1%} ({low_t:.1%}-{high_t:.1%}); "
            f"A won both {split[2]}, split {split[1]}, lost both {split[0]} "
            f"(a split deal: the deal, not the players, decided)"
        )
    print(
        f"  seat 0 wins {seat0_wins:.1%}; A in seat 0 scores "
        f"{sum(g['score'] for g in seat0) / max(1, len(seat0)):.1%}; instant wins {sum(g['instant'] for g in games)}; "
        f"mean plies {statistics.fmean(g['plies'] for g in games):.1f}"
    )
    timed = [g for g in games if "think" in g]
    if timed:
        a_seat = [g["a_seat"] for g in timed]
        spent = sum(g["think"][s] for g, s in zip(timed, a_seat))
        moves = sum(g["moves"][s] for g, s in zip(timed, a_seat))
        longest = max(g["think_max"][s] for g, s in zip(timed, a_seat))
        print(f"  A thinks {spent / max(1, moves):.3f} processor s/move, longest {longest:.3f} s")


def choices(args: argparse.Namespace) -> None:
    """Positions from club-vs-club games; the 200- and 800-iteration searches' choices on each."""
    knowledge = knowledge_for("colorpop")
    setup = setup_from_mapping(SETUP)
    small, big = make_player(args.small), make_player(args.big)
    rows: list[tuple[int, int, bool, dict[str, list[Choice]]]] = []
    deal = args.first
    while len(rows) < args.positions:
        chance = random.Random(f"colorpop-deal/{deal}")
        engine, state = match.start(setup, chance)
        hidden = knowledge.deal(engine, state, chance)
        state = knowledge.resolve(engine, state, hidden)
        rng = random.Random(f"line/{deal}")
        line = []
        while not engine.is_over(state):
            seat = engine.to_move(state)
            line.append((state, seat))
            view = knowledge.observe(engine, state, seat)
            move = small.choose(engine, view, seat, knowledge.private(engine, hidden, seat), rng).move
            state = engine.apply(state, move)[0]
        winners = engine.result(state).winners or (0, 1)
        for ply, (position, seat) in enumerate(line):
            if ply % 5 or len(rows) >= args.positions:
                continue
            view = knowledge.observe(engine, position, seat)
            private = knowledge.private(engine, hidden, seat)
            if len(knowledge.moves(engine, view, private)) < 2:
                continue
            picks: dict[str, list[Choice]] = {}
            for name, player in (("small", small), ("big", big)):
                picks[name] = [
                    player.choose(engine, view, seat, private, random.Random(f"{name}/{deal}/{ply}/{r}"))
                    for r in range(args.repeats)
                ]
            rows.append((deal, ply, seat in winners, picks))
        deal += 1
    self_small = self_big = cross = 0.0
    for _, _, _, picks in rows:
        s, b = [c.move for c in picks["small"]], [c.move for c in picks["big"]]
        self_small += _agreement(s, s)
        self_big += _agreement(b, b)
        cross += sum(x == y for x in s for y in b) / (len(s) * len(b))
    n = len(rows)
    print(
        f"{n} positions (club vs club, every 5th ply), {args.repeats} searches each: "
        f"agreement {args.small} with itself {self_small / n:.1%}, {args.big} with itself {self_big / n:.1%}, "
        f"{args.small} with {args.big} {cross / n:.1%}"
    )
    for name, label in (("small", args.small), ("big", args.big)):
        picked = [c for _, _, _, p in rows for c in p[name]]
        values = [c.value for c in picked]
        won = [c.value for _, _, w, p in rows for c in p[name] if w]
        lost = [c.value for _, _, w, p in rows for c in p[name] if not w]
        print(
            f"  {label}: chosen move's mean reward {statistics.fmean(values):.3f}; "
            f"in positions the mover went on to win {statistics.fmean(won) if won else float('nan'):.3f}, "
            f"to lose {statistics.fmean(lost) if lost else float('nan'):.3f}; iterations done "
            f"{statistics.fmean(c.iterations for c in picked):.0f} a search; "
            f"the chosen move's share of the visits {statistics.fmean(map(_share, picked)):.1%}, "
            f"its mean reward above the runner-up's {statistics.fmean(map(_gap, picked)):+.3f}"
        )


def _share(choice: Choice) -> float:
    total = sum(v for _, v, _ in choice.stats)
    return next((v for m, v, _ in choice.stats if m == choice.move), 0) / max(1, total)


def _gap(choice: Choice) -> float:
    """The chosen move's mean reward less the best other move's (of those visited 10 times or more)."""
    others = [mean for m, v, mean in choice.stats if m != choice.move and v >= 10]
    return choice.value - max(others) if others else 0.0


def _agreement(a: list[Any], b: list[Any]) -> float:
    """How often two different searches of the lists pick the same move."""
    pairs = [(i, j) for i in range(len(a)) for j in range(len(b)) if i != j]
    return sum(a[i] == b[j] for i, j in pairs) / max(1, len(pairs))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("paired")
    p.add_argument("--a", default="strong")
    p.add_argument("--b", default="club")
    p.add_argument("--deals", type=int, default=40)
    p.add_argument("--first", type=int, default=0)
    p.add_argument("--oracle", action="store_true")
    p.add_argument("--results", default=str(ROOT / "out" / "colorpop_levels.jsonl"))
    c = sub.add_parser("choices")
    c.add_argument("--small", default="club")
    c.add_argument("--big", default="strong")
    c.add_argument("--positions", type=int, default=30)
    c.add_argument("--repeats", type=int, default=4)
    c.add_argument("--first", type=int, default=1000)
    args = parser.parse_args()
    (ROOT / "out").mkdir(exist_ok=True)
    paired(args) if args.command == "paired" else choices(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
