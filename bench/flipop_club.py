"""Can anyone beat Flipop's club level? Games against it, each move judged by the solved opening.

    python bench/flipop_ceiling.py --depth 24 --save out/g24.npz     # once: the first 24 plies solved
    python bench/flipop_club.py --games 40 --graph out/g24.npz       # strong against club
    python bench/flipop_club.py --games 40 --graph out/g24.npz --player solver

Plays `--player` (the strong level, or `solver`, below) against the club level, seats alternated,
as `bench/ai_bench.py` plays them (iterations in full, the 200-ply cut, a locked game ended by
agreement). A game is also stopped as soon as no push of either colour, in any order, can ever take
a ball off (`flipop_reach.dead`): ball counts can no longer change, so its result is the one the
bench would give at its cut. For each game: the result, every ball taken off (ply, colour, whose
move), and the ply from which the game was dead.

With `--graph` (a graph of `flipop_ceiling.py --depth D --save`), every move made fewer than D plies
from the start is judged in the game ended by agreement at ply D (fewer balls wins), whose values
are exact there: a *mistake* is a move that lowers the mover's value under perfect play (a draw
given away: the other side can then force more balls off than the mover by ply D); a *missed win*
is a move that leaves a won value unused. A level that makes no mistake in the opening cannot be
beaten there by any player.

`--player solver` is the strongest opponent the graph can make of the club's errors: within the
solved plies it plays a move of the best value under perfect play (it never gives a draw away) and,
among those, the one that scores best against a uniformly random player (it sets the most traps);
after them, the strong level. If the club's opening has errors to exploit, this player finds more of
them than any search does.
"""

from __future__ import annotations

import argparse
import contextlib
import math
import random
import sys
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.flipop_ceiling import Graph, Keys, load, solve_from  # noqa: E402
from bench.flipop_reach import dead  # noqa: E402
from controller.ai import knowledge_for, levels, match  # noqa: E402
from controller.ai.players import SearchPlayer  # noqa: E402
from controller.ai.search import Choice, Search  # noqa: E402
from controller.games.base import ActionNotAllowed  # noqa: E402
from controller.record import setup_from_mapping  # noqa: E402

SETUP = {"game": "flipop", "players": 2}


def level_player(name: str) -> SearchPlayer:
    """A level playing its iterations in full, as `bench/ai_bench.py` plays it."""
    player = levels.player("flipop", name)
    return SearchPlayer(Search(player.search.knowledge, replace(player.search.settings, seconds=math.inf)), name)


class Opening:
    """The solved first plies: per position, seat 0's value with r plies left before the cut (for
    r = 0..depth) under perfect play, and with seat 1 (or seat 0) moving uniformly at random."""

    def __init__(self, graph: Graph, engine: Any) -> None:
        self.graph = graph
        self.depth = graph.depth
        self.keys = Keys(engine)
        self.number = graph.numbers()
        self.perfect = self._layers(("max", "min"))
        #: the best seat 0 can do against random, and the worst seat 1 can make seat 0 do
        self.against_random = (self._layers(("max", "mean")), self._layers(("mean", "min")))

    def _layers(self, best: tuple[str, str]) -> list[np.ndarray]:
        values = self.graph.score.copy()  # unexplored positions: as the game ended there would
        layers = [values.astype(np.float32)]
        for _ in range(self.depth):
            values = solve_from(self.graph, values, 1, best)
            layers.append(values.astype(np.float32))
        return layers

    def children(self, engine: Any, state: Any) -> list[tuple[Any, int]]:
        return [(m, self.number[self.keys.key(engine.apply(state, m)[0])]) for m in engine.legal_moves(state)]

    def value(self, state: Any, engine: Any, left: int, seat: int) -> float:
        """`seat`'s value of `state` under perfect play with `left` plies before the cut."""
        v = float(self.perfect[left][self.number[self.keys.key(state)]])
        return v if seat == 0 else 1.0 - v


@dataclass
class Solver:
    """Within the solved plies: the best value under perfect play, then the most traps (the best
    score against random); after them, the strong level."""

    opening: Opening
    after: SearchPlayer
    name: str = "solver"
    ply: int = 0

    def choose(self, engine: Any, view: Any, seat: int, private: Any, rng: random.Random) -> Choice:
        left = self.opening.depth - self.ply - 1
        if left < 0:
            return self.after.choose(engine, view, seat, private, rng)
        sign = 1.0 if seat == 0 else -1.0
        traps = self.opening.against_random[seat][left]
        options = [
            (sign * float(self.opening.perfect[left][n]), sign * float(traps[n]), rng.random(), m)
            for m, n in self.opening.children(engine, view)
        ]
        return Choice(max(options)[3], 0, 0.0)


@dataclass
class Game:
    seat: int
    score: float = 0.5
    plies: int = 0
    #: (ply, colour of the ball, seat that moved)
    off: list[tuple[int, str, int]] = field(default_factory=list)
    dead_at: int | None = None
    how: str = ""
    #: per seat: moves judged, mistakes (value lost), missed wins
    judged: list[int] = field(default_factory=lambda: [0, 0])
    mistakes: list[list[tuple[int, float, float]]] = field(default_factory=lambda: [[], []])
    missed: list[int] = field(default_factory=lambda: [0, 0])


def play(index: int, name: str, opening: Opening | None, seed: int) -> Game:
    setup = setup_from_mapping(SETUP)
    knowledge = knowledge_for("flipop")
    rng = random.Random(seed * 1_000_003 + index)
    engine, state = match.start(setup, rng)
    seat = index % 2
    ours: Any = level_player("strong") if name == "strong" else Solver(opening, level_player("strong"))  # type: ignore[arg-type]
    players = [ours, level_player("club")] if seat == 0 else [level_player("club"), ours]
    for s, player in enumerate(players):
        warm = getattr(player, "warm", None)
        if warm is not None:
            warm(engine, state, s, None)
    game = Game(seat)
    known: set = set()
    plies = 0
    while not engine.is_over(state):
        mover = engine.to_move(state)
        if mover is None:
            break
        line = state.lines[0]
        if knowledge.settled(engine, state) is not None:
            game.how = "locked"
            break
        if plies >= match.MAX_PLIES:
            game.how = "cut"
            break
        if dead(engine, line.balls, line.doors, known):
            game.dead_at = plies
            game.how = "dead"
            break
        if isinstance(ours, Solver):
            ours.ply = plies
        choice = players[mover].choose(engine, state, mover, None, rng)
        after = engine.apply(state, choice.move)[0]
        if opening is not None and plies < opening.depth:
            left = opening.depth - plies
            before = opening.value(state, engine, left, mover)
            now = opening.value(after, engine, left - 1, mover)
            game.judged[mover] += 1
            if now < before - 1e-6:
                game.mistakes[mover].append((plies, before, now))
            if before > 0.5 + 1e-6 and now <= 0.5 + 1e-6:
                game.missed[mover] += 1
        counts = [sum(row.count(c) for row in line.balls) for c in engine.colours]
        for colour, was in zip(engine.colours, counts):
            gone = was - sum(row.count(colour) for row in after.lines[0].balls)
            game.off += [(plies, colour, mover)] * gone
        state = after
        plies += 1
    game.plies = plies
    if not engine.is_over(state):
        with contextlib.suppress(ActionNotAllowed):
            state = engine.action(state, "end-by-agreement")[0]
    if engine.is_over(state):
        winners = engine.result(state).winners or (0, 1)
        game.how = game.how or "won"
    else:
        left = engine.result(state).scores
        winners = (0,) if left[0] < left[1] else (1,) if left[1] < left[0] else (0, 1)
    game.score = 1.0 / len(winners) if seat in winners else 0.0
    return game


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--player", choices=("strong", "solver"), default="strong")
    parser.add_argument("--graph", type=Path, help="a graph kept by flipop_ceiling.py --depth D --save")
    parser.add_argument("--seed", type=int, default=29)
    args = parser.parse_args()
    began = time.process_time()
    engine = match.start(setup_from_mapping(SETUP), random.Random(0))[0]
    opening = Opening(load(args.graph), engine) if args.graph else None
    if args.player == "solver" and opening is None:
        parser.error("--player solver needs --graph")
    if opening is not None:
        start = float(opening.perfect[opening.depth][0])
        print(f"opening solved to ply {opening.depth}: the start's value (White, perfect play) {start:.4f}")
    games = []
    for index in range(args.games):
        game = play(index, args.player, opening, args.seed)
        games.append(game)
        off = ", ".join(f"ply {p} {c} by {'us' if s == game.seat else 'club'}" for p, c, s in game.off) or "none"
        mistakes = [len(game.mistakes[s]) for s in (game.seat, 1 - game.seat)]
        print(
            f"game {index:3d} {args.player} as {'White' if game.seat == 0 else 'Black'}: {game.score:.1f} "
            f"({game.how} at ply {game.plies}); balls off: {off}; mistakes us/club {mistakes[0]}/{mistakes[1]} "
            f"{[m for s in (game.seat, 1 - game.seat) for m in game.mistakes[s]]}",
            flush=True,
        )
    n = len(games)
    total = sum(g.score for g in games)
    draws = sum(g.score == 0.5 for g in games)
    dead_at = sorted(g.dead_at for g in games if g.dead_at is not None)
    print(f"{args.player} v club, {n} games: score {total / n:.3f} ({draws} draws)")
    print(
        f"ended: {sum(g.how == 'dead' for g in games)} dead (no ball can ever leave; median from ply "
        f"{dead_at[len(dead_at) // 2] if dead_at else float('nan')}, latest {max(dead_at, default=None)}), "
        f"{sum(g.how == 'locked' for g in games)} locked, {sum(g.how == 'cut' for g in games)} cut, "
        f"{sum(g.how == 'won' for g in games)} won outright"
    )
    if opening is not None:
        for who, pick in ((args.player, lambda g: g.seat), ("club", lambda g: 1 - g.seat)):
            judged = sum(g.judged[pick(g)] for g in games)
            wrong = sum(len(g.mistakes[pick(g)]) for g in games)
            missed = sum(g.missed[pick(g)] for g in games)
            print(f"{who}: {judged} moves judged within ply {opening.depth}, {wrong} mistakes, {missed} wins missed")
    print(f"processor time {time.process_time() - began:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
