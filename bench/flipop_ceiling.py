"""Flipop's ceiling: every position play can reach from the start, and the best any player can score.

    python bench/flipop_ceiling.py --depth 24         # the first 24 plies: exact values of the game ended there
    python bench/flipop_ceiling.py                    # the whole space (beyond this machine: see below)
    python bench/flipop_ceiling.py --limit 200000     # stop exploring there: bounds, not values
    python bench/flipop_ceiling.py --depth 24 --save out/g24.npz    # keep the graph (flipop_club.py reads it)
    python bench/flipop_ceiling.py --load out/g24.npz --whole       # the whole game's bounds from it

Explores, through the rules engine's own `legal_moves` and `apply` (passes included), every position
(balls, doors, side to move, push-back ban) reachable from the profile's start, with both colours
moving, and keeps the move graph (a move to the same position twice counts twice). Then, on that
graph, by backward induction over plies (`solve`):

- the game's value under perfect play (both seats best);
- the best score any player can reach against the uniformly random player of `bench/ai_bench.py`,
  for each seat: max at the player's turns, the mean over the legal moves at random's turns.

Scores are the bench's: 1 a win, 1/2 a draw, 0 a loss. A game ends when a colour has no ball left or
neither seat can move (`rules.md` §3), and otherwise at the bench's cut (`match.MAX_PLIES`, 200 plies),
where it ends by agreement: fewer balls on the board wins, equal is a draw. A board from which no ball
can ever leave scores that way too, whenever it is ended: ball counts never change on it. So the
values are those of the bench's own games, cut included (`--plies` changes the cut; the values are
also iterated on until they stop changing, to show whether the cut matters).

With `--whole` (after `--depth` or `--load`), bounds that hold for the whole game, whatever its cut:
each position left unexplored at the last ply is scored by the fewest and most balls each seat can
still have at the end. `flipop_bound.Reach` (a sound over-approximation of where each ball can go,
its argument in its docstring) tells which balls can never leave; where some might, `flipop_dead.
DeadCheck` searches the boards (`--proof-boards` at most a position; 0 for no search) and a board
it proves dead keeps its counts. Every way a game ends scores by the final counts (fewer wins), so a
position's score lies between its seat 0 keeping every ball while the other loses all that might
leave, and the other way round (0 and 1 where both seats might lose balls). A lower bound of 1/2 for
each seat under perfect play proves the whole game a draw; an upper bound against random below 0.9
would prove the 90% target out of reach. `--load out/g24.npz --whole --proof-boards 0` (297 processor
seconds, the 128,206 positions at ply 24 in 280 s): 3,275 positions have their score fixed, 121,243
are bounded by 0 and 1 only; perfect play is between 0.5000 and 0.5000, so the whole game is a draw;
the best player against random scores between 0.6725 and 0.9893 as White, 0.6545 and 0.9450 as
Black, so the 90% target is not proved out of reach. (Before `Reach`, `--depth 12 --whole
--proof-boards 1000` took 778 processor seconds to prove 1,497 of the 13,063 positions at ply 12
dead, with bounds 0 to 1 for perfect play, 0.4811 to 1 and 0.4761 to 1 against random.)

With `--depth`, only positions fewer than DEPTH plies from the start are expanded: the values of the
game ended by agreement at ply k are then exact for every k up to DEPTH (a table). With `--limit`,
positions not explored count as a loss for the lower bound and a win for the upper one.

The whole space of the default layout is out of reach here: `--depth 24` found 1,034,794 positions
(906,586 within 23 plies, 3,015,945 moves) in 795 processor seconds, still about 130,000 new ones a
ply. What it proves (values exact for the game ended by agreement at ply k): perfect play is a draw
for every k up to 24, and the best player against random scores 0.6166 / 0.6725 as White and
0.6207 / 0.6545 as Black at k = 12 / 24, gaining less at each ply (White +0.0033 from 22 to 24).
"""

from __future__ import annotations

import argparse
import sys
import time
from array import array
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from controller.ai import match  # noqa: E402
from controller.games.flipop.rules import FlipopEngine  # noqa: E402
from controller.record import setup_from_mapping  # noqa: E402

#: `Graph.mover` of a position whose game is over, and of one left unexplored (`--limit`).
OVER, UNEXPLORED = -1, -2
_BALL_CODE = {".": 0, "W": 1, "B": 2}
_WORD = (1 << 64) - 1


@dataclass
class Graph:
    """Reachable positions 0..n-1 (0 the start) and their moves, as compressed rows.

    The moves of position i lead to `targets[first[i]:first[i + 1]]`; `mover[i]` is the seat to move
    (or OVER, UNEXPLORED); `score[i]` is seat 0's score were the game ended there (by its result if
    over, else by agreement: fewer balls wins).
    """

    first: np.ndarray
    targets: np.ndarray
    mover: np.ndarray
    score: np.ndarray
    depth: int
    complete: bool
    #: Each position's `Keys.key`, in three 64-bit parts (low first), to find a position again.
    keys: np.ndarray | None = None

    def numbers(self) -> dict[int, int]:
        """Position number by `Keys.key`."""
        assert self.keys is not None
        low, middle, high = (self.keys[:, i].tolist() for i in range(3))
        return {(h << 128) | (m << 64) | lo: n for n, (lo, m, h) in enumerate(zip(low, middle, high))}

    @property
    def size(self) -> int:
        return len(self.mover)


class Keys:
    """A whole number per position, the same in every run (a few million fit in memory): balls
    in base 3, each door's orientation (2 bits a post), the push-back ban (a bit per cell and
    direction), the seat to move (2: nobody)."""

    def __init__(self, engine: Any) -> None:
        self.turns = [{door: code for code, door in enumerate(sorted(shapes))} for shapes in engine.shapes]
        self.shapes = [sorted(shapes) for shapes in engine.shapes]

    def board(self, key: int) -> tuple[tuple[tuple[str, ...], ...], tuple[str, ...]]:
        """The balls and doors of a position's key (its turn and push-back ban left out)."""
        key >>= 102
        doors = []
        for shapes in reversed(self.shapes):
            doors.append(shapes[key & 3])
            key >>= 2
        cells = []
        for _cell in range(25):
            cells.append(".WB"[key % 3])
            key //= 3
        cells.reverse()
        return tuple(tuple(cells[r * 5 : r * 5 + 5]) for r in range(5)), tuple(reversed(doors))

    def key(self, state: Any) -> int:
        (line,) = state.lines
        balls = 0
        for row in line.balls:
            for cell in row:
                balls = balls * 3 + _BALL_CODE[cell]
        doors = 0
        for turns, door in zip(self.turns, line.doors):
            doors = doors << 2 | turns[door]
        ban = 0
        for (r, c), direction in line.banned:
            ban |= 1 << ((r * 5 + c) * 4 + "NESW".index(direction))
        seat = 2 if line.to_move is None else line.to_move
        return ((balls << 32 | doors) << 100 | ban) << 2 | seat


def seat0_score(engine: Any, state: Any) -> float:
    """Seat 0's score were the game ended here: its result if over, else fewer balls wins."""
    if engine.is_over(state):
        winners = engine.result(state).winners or (0, 1)
    else:
        counts = engine.result(state).scores
        winners = (0,) if counts[0] < counts[1] else (1,) if counts[1] < counts[0] else (0, 1)
    return 1.0 / len(winners) if 0 in winners else 0.0


def explore(engine: Any, start: Any, limit: int | None = None, report: Any = None, plies: int | None = None) -> Graph:
    """Every position reachable from `start` by legal moves, breadth first (so a position's number
    is the order it is expanded in), up to `limit` positions, or only those fewer than `plies`
    plies from the start (the others found are left unexplored)."""
    keys = Keys(engine)
    index = {keys.key(start): 0}
    states = [start]  # positions found but not expanded yet, from number `done` on
    done = 0
    first = array("q", [0])
    targets = array("i")
    mover = array("b")
    score = array("d")
    depth = 0
    layer_end = 1
    while done < len(index):
        if done == layer_end:
            depth += 1
            layer_end = len(index)
            if report is not None:
                report(depth, len(index), len(targets))
        state = states[done - (len(index) - len(states))]
        score.append(seat0_score(engine, state))
        seat = engine.to_move(state)
        if engine.is_over(state) or seat is None:
            mover.append(OVER)
        elif (limit is not None and len(index) >= limit) or (plies is not None and depth >= plies):
            mover.append(UNEXPLORED)
        else:
            mover.append(seat)
            for move in engine.legal_moves(state):
                after = engine.apply(state, move)[0]
                k = keys.key(after)
                found = index.get(k)
                if found is None:
                    found = index[k] = len(index)
                    states.append(after)
                targets.append(found)
        first.append(len(targets))
        done += 1
        # drop expanded positions from the working list now and then (only keys are kept)
        if done - (len(index) - len(states)) > 100_000:
            cut = done - (len(index) - len(states))
            del states[:cut]
    complete = not any(m == UNEXPLORED for m in mover)
    return Graph(
        first=np.frombuffer(first, dtype=np.int64).copy(),
        targets=np.frombuffer(targets, dtype=np.int32).copy(),
        mover=np.frombuffer(mover, dtype=np.int8).copy(),
        score=np.frombuffer(score, dtype=np.float64).copy(),
        depth=depth,
        complete=complete,
        keys=np.array([[k & _WORD, (k >> 64) & _WORD, k >> 128] for k in index], dtype=np.uint64).reshape(-1, 3),
    )


def solve(graph: Graph, plies: int, best: tuple[str, str], unexplored: float | None = 0.0) -> np.ndarray:
    """Seat 0's score from every position with `plies` plies left before the cut, when seat s picks
    its move by `best[s]`: "max" (best for seat 0), "min" (worst for seat 0) or "mean" (uniformly at
    random). Unexplored positions score `unexplored` (None: as the game ended there would)."""
    values = graph.score.copy()
    if unexplored is not None:
        values[graph.mover == UNEXPLORED] = unexplored
    return solve_from(graph, values, plies, best)


def settle(graph: Graph, best: tuple[str, str], plies: int, unexplored: float = 0.0, most: int = 5000) -> tuple:
    """The start's value with `plies` plies to the cut, and after how many plies (up to `most`) the
    whole table stops changing (None if it still changes), with the start's value then."""
    values = solve(graph, plies, best, unexplored)
    at_cut = float(values[0])
    step = 50
    done = plies
    while done < most:
        following = solve_from(graph, values, step, best)
        done += step
        if np.allclose(following, values, atol=1e-12, rtol=0):
            return at_cut, done, float(following[0])
        values = following
    return at_cut, None, float(values[0])


def solve_from(graph: Graph, values: np.ndarray, plies: int, best: tuple[str, str]) -> np.ndarray:
    """`solve` continued from a table of values (the cut pushed `plies` plies further)."""
    moving = graph.mover >= 0
    starts = graph.first[:-1][moving]
    counts = (graph.first[1:] - graph.first[:-1])[moving]
    rule = {"max": 0, "min": 1, "mean": 2}
    pick = np.array([rule[best[0]], rule[best[1]]])[graph.mover[moving]]
    for _ply in range(plies):
        after = values[graph.targets]
        choices = (
            np.maximum.reduceat(after, starts),
            np.minimum.reduceat(after, starts),
            np.add.reduceat(after, starts) / counts,
        )
        values = values.copy()
        values[moving] = np.choose(pick, choices)
    return values


def load(path: Path) -> Graph:
    """A graph kept by `--save`."""
    with np.load(path) as kept:
        return Graph(
            **{name: kept[name] for name in kept.files if name not in ("depth", "complete")},
            depth=int(kept["depth"]),
            complete=bool(kept["complete"]),
        )


def score_of(counts: tuple[int, int]) -> float:
    """Seat 0's score for the balls each seat has on the board at the end: fewer wins (every way a
    Flipop game ends scores so, `seat0_score`)."""
    return 1.0 if counts[0] < counts[1] else 0.5 if counts[0] == counts[1] else 0.0


def frontier_bounds(
    graph: Graph, engine: Any, report: Any = None, limit: int | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Per position left unexplored, seat 0's lowest and highest score in any game from there.

    `flipop_bound.Reach` bounds how many balls of each seat can still leave: seat 0 scores at least
    as with all of its balls kept and all the others' that might leave gone, and at most the other
    way round. Where some ball might leave, `flipop_dead.DeadCheck` also searches the boards (up to
    `limit` a position, 0 for no search): a board it proves dead keeps its counts, so its score is
    fixed. NaN for explored positions."""
    from bench.flipop_dead import LIMIT, DeadCheck

    keys = Keys(engine)
    low = np.full(graph.size, np.nan)
    high = np.full(graph.size, np.nan)
    assert graph.keys is not None
    check = DeadCheck(engine, LIMIT if limit is None else limit)
    reach = check.reach
    assert reach is not None
    waiting = np.flatnonzero(graph.mover == UNEXPLORED)
    for done, n in enumerate(waiting.tolist()):
        first, middle, last = (int(v) for v in graph.keys[n])
        balls, doors = keys.board((last << 128) | (middle << 64) | first)
        counts = reach.counts(balls, doors)
        fewest = [counts[colour][0] for colour in engine.colours]
        most = [counts[colour][1] for colour in engine.colours]
        if fewest != most and limit != 0 and check.check(balls, doors):
            fewest = most
        # seat 0 ends with between fewest[0] and most[0] balls, seat 1 likewise: fewer is better
        low[n], high[n] = score_of((most[0], fewest[1])), score_of((fewest[0], most[1]))
        if report is not None and (done + 1) % 1000 == 0:
            report(done + 1, len(waiting), int(np.sum(low[waiting] == high[waiting])))
    return low, high


def whole_game_bounds(graph: Graph, low: np.ndarray, high: np.ndarray, best: tuple[str, str]) -> tuple[float, float]:
    """Seat 0's score from the start, under `best`, in the whole game (any cut at or beyond the
    graph's depth, or none): bounds, with each unexplored position scored by its lowest and its
    highest score (`frontier_bounds`)."""
    out = []
    for bound in (low, high):
        values = graph.score.copy()
        waiting = graph.mover == UNEXPLORED
        values[waiting] = bound[waiting]
        out.append(float(solve_from(graph, values, graph.depth, best)[0]))
    return out[0], out[1]


def print_whole_game(graph: Graph, engine: Any, cases: tuple, began: float, limit: int | None = None) -> None:
    """The whole game's bounds (`whole_game_bounds`) for each case of `main`."""

    def report(done: int, total: int, dead: int) -> None:
        print(
            f"  {done} of {total} unexplored positions tried, {dead} with their score fixed "
            f"({time.process_time() - began:.0f} s)"
        )

    low, high = frontier_bounds(graph, engine, report, limit)
    waiting = graph.mover == UNEXPLORED
    fixed = int(np.sum(low[waiting] == high[waiting]))
    print(
        f"the whole game (any cut from ply {graph.depth} on): of the {int(np.sum(waiting))} positions at ply "
        f"{graph.depth}, {fixed} have their score fixed (no ball can leave, or none that changes it), "
        f"{int(np.sum((low[waiting] == 0) & (high[waiting] == 1)))} are bounded by 0 and 1 only:"
    )
    for words, best, other in cases:
        lo, hi = whole_game_bounds(graph, low, high, best)
        if other:
            lo, hi = 1 - hi, 1 - lo
        print(f"  {words}: between {lo:.4f} and {hi:.4f}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--limit", type=int, default=None, help="explore at most this many positions")
    parser.add_argument("--plies", type=int, default=match.MAX_PLIES, help="the cut (default the bench's)")
    parser.add_argument("--save", type=Path, help="keep the explored graph in this .npz file")
    parser.add_argument("--load", type=Path, help="solve a graph kept by --save instead of exploring")
    parser.add_argument(
        "--depth", type=int, help="explore only the first DEPTH plies: exact values of the game ended there and sooner"
    )
    parser.add_argument(
        "--whole",
        action="store_true",
        help="with --depth or --load: bound the whole game by the unexplored positions whose balls never leave",
    )
    parser.add_argument(
        "--proof-boards", type=int, default=None, help="with --whole: boards a dead check goes through at most"
    )
    args = parser.parse_args()
    engine = FlipopEngine(setup_from_mapping({"game": "flipop", "players": 2}))
    start = engine.start(engine.start_board)
    began = time.process_time()

    def report(depth: int, found: int, moves: int) -> None:
        print(f"  ply {depth:3d}: {found:9d} positions, {moves:10d} moves ({time.process_time() - began:.0f} s)")

    if args.load is not None:
        graph = load(args.load)
    else:
        graph = explore(engine, start, args.limit, report, args.depth)
    if args.save is not None:
        np.savez(args.save, **vars(graph))
    over = int(np.sum(graph.mover == OVER))
    left = int(np.sum(graph.mover == UNEXPLORED))
    print(
        f"positions reachable from the start: {graph.size} ({'all' if graph.complete else f'{left} not explored'}), "
        f"{len(graph.targets)} moves, {over} with the game over, deepest ply {graph.depth}, "
        f"{time.process_time() - began:.0f} s processor"
    )
    cases = (
        ("perfect play, both seats (seat 1's score is 1 minus this)", ("max", "min"), False),
        ("the best player as seat 1 (White) against random", ("max", "mean"), False),
        ("the best player as seat 2 (Black) against random", ("mean", "min"), True),
    )
    if args.depth is not None or (args.whole and not graph.complete):
        # every position fewer than DEPTH plies from the start was explored: the game ended by
        # agreement at ply k (k <= DEPTH) has exact values
        print(f"the game ended by agreement at ply k (fewer balls wins), values exact for k <= {graph.depth}:")
        print(
            f"{'k':>4} " + " ".join(f"{short:>14}" for short in ("White, perfect", "White v random", "Black v random"))
        )
        for k in range(2, graph.depth + 1, 2):
            row = []
            for _words, best, other in cases:
                value = float(solve(graph, k, best, None)[0])
                row.append(1 - value if other else value)
            print(f"{k:4d} " + " ".join(f"{v:14.4f}" for v in row))
        if args.whole:
            print_whole_game(graph, engine, cases, began, args.proof_boards)
        print(f"processor time {time.process_time() - began:.0f} s")
        return 0
    for words, best, other in cases:
        low = settle(graph, best, args.plies, 0.0)
        high = settle(graph, best, args.plies, 1.0) if not graph.complete else low
        shown = []
        for name, a, b in (("at the cut", low[0], high[0]), ("without a cut", low[2], high[2])):
            a, b = (1 - b, 1 - a) if other else (a, b)
            shown.append(f"{name} {a:.4f}" if a == b else f"{name} between {a:.4f} and {b:.4f}")
        steady = f"steady after {low[1]} plies" if low[1] is not None else "still changing"
        print(f"{words}: {', '.join(shown)} ({steady})")
    print(f"processor time {time.process_time() - began:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
