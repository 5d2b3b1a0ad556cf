"""Why Flipop games end drawn: what a start layout lets the balls reach, in figures.

    python bench/flipop_reach.py                 # the default profile's layout, 40 random games
    python bench/flipop_reach.py --games 200

Prints, for the profile's start layout (`controller/games/flipop/profile.yaml`):
- the doors that can never turn, whatever is played: a door whose every quarter turn would land a
  wing on an edge held by another door that can never turn either (`rules.md` §3: a wing may not end
  on an edge that already holds a wing). The default layout's four central double doors block one
  another that way (each one's turn lands on a wing of the next), so they stand as fixed walls;
- for each colour, every board its own moves can reach from the start while the other colour never
  moves, and whether a ball of that colour leaves on any of them: when none does, a ball can leave
  only once the other colour's moves have turned doors or cleared an exit cell (at the start the
  exits are the other colour's home cells), so no player can plan a ball out alone;
- random play against random play: games decided, balls taken off, and games whose end was fixed
  before the 200-ply cut (from some ply on, no sequence of moves of either colour takes a ball off:
  the rules' end by agreement).

The computer player's strength against a random player (`bench/ai_bench.py`) cannot be read without
these: a search wins only where the other side's moves open a way, and most games die drawn.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from controller.games.flipop import doors as doors_model  # noqa: E402
from controller.games.flipop.rules import FlipopEngine  # noqa: E402
from controller.record import setup_from_mapping  # noqa: E402

#: Plies after which a game is ended, as the computer player's bench ends it.
MAX_PLIES = 200
#: Boards gone through at most to prove that no ball can leave any more.
PROOF_BOARDS = 5_000


def never_turning(doors: tuple[str, ...]) -> list[int]:
    """Indices of the posts whose door can never turn: every turn blocked by a door that cannot turn."""
    stuck = set(range(len(doors)))
    changed = True
    while changed:
        changed = False
        for index in sorted(stuck):
            post = doors_model.POSTS[index]
            held = {
                doors_model.wing_edge(doors_model.POSTS[other], wing)
                for other in stuck
                if other != index
                for wing in doors[other]
            }
            for sense in (doors_model.CLOCKWISE, doors_model.ANTICLOCKWISE):
                if all(doors_model.wing_edge(post, sense[wing]) not in held for wing in doors[index]):
                    stuck.discard(index)
                    changed = True
                    break
    return sorted(stuck)


def alone(engine, balls, doors, colour: str) -> tuple[int, bool]:
    """Boards `colour` reaches by its own moves alone, and whether a ball of it leaves on the way."""
    seen = {(balls, doors)}
    frontier = [(balls, doors)]
    while frontier:
        following = []
        for here, turned in frontier:
            for cell, direction in doors_model.pushable(here, turned, colour):
                result = doors_model.push(here, turned, cell, direction, engine.exits)
                if isinstance(result, doors_model.Problem):
                    continue
                if colour in result.exited:
                    return len(seen), True
                key = (result.balls, result.doors)
                if key not in seen:
                    seen.add(key)
                    following.append(key)
        frontier = following
    return len(seen), False


def dead(engine, balls, doors, known: set, limit: int = PROOF_BOARDS, live: set | None = None) -> bool | None:
    """Whether no push of either colour, in any order, ever takes a ball off (None: not proved
    either way within `limit` boards). Turns and the push-back ban are left out, so the boards gone
    through include all that play can reach: a board called dead is dead. `known` holds boards
    already proved dead (not gone through again) and gains every board of a new proof; `live`, if
    given, boards from which a ball can leave (a board that reaches one is live too), and gains
    each board found live."""
    if (balls, doors) in known:
        return True
    if live is not None and (balls, doors) in live:
        return False
    seen = {(balls, doors)}
    frontier = [(balls, doors)]
    while frontier:
        following = []
        for here, turned in frontier:
            for colour in engine.colours:
                for cell, direction in doors_model.pushable(here, turned, colour):
                    result = doors_model.push(here, turned, cell, direction, engine.exits)
                    if isinstance(result, doors_model.Problem):
                        continue
                    key = (result.balls, result.doors)
                    if result.exited or (live is not None and key in live):
                        if live is not None:
                            live.add((balls, doors))
                        return False
                    if key not in seen and key not in known:
                        seen.add(key)
                        if len(seen) > limit:
                            return None
                        following.append(key)
        frontier = following
    known.update(seen)
    return True


def random_games(engine, games: int) -> dict[str, float]:
    """Random against random from the start: decided games, balls off, and the ply from which each
    game's end was fixed (the first of its boards from which no ball can leave any more)."""
    decided = balls_off = fixed_early = 0
    fixed_at: list[int] = []
    start = engine.start(engine.start_board)
    for index in range(games):
        rng = random.Random(index)
        state = start
        boards = [state.lines[0]]
        while not engine.is_over(state) and len(boards) <= MAX_PLIES:
            moves = engine.legal_moves(state)
            state = engine.apply(state, moves[rng.randrange(len(moves))])[0]
            boards.append(state.lines[0])
        left = [sum(row.count(colour) for row in boards[-1].balls) for colour in engine.colours]
        balls_off += sum(engine.ball_counts[c] for c in engine.colours) - sum(left)
        decided += left[0] != left[1]
        if not engine.is_over(state):
            # dead boards lead only to dead boards: walk back from the last to the first dead one
            first = len(boards)
            known: set = set()
            while first > 0 and dead(engine, boards[first - 1].balls, boards[first - 1].doors, known):
                first -= 1
            if first < len(boards):
                fixed_early += 1
                fixed_at.append(first)
    fixed_at.sort()
    return {
        "decided": decided,
        "balls_off": balls_off,
        "fixed_early": fixed_early,
        "median_fixed_at": fixed_at[len(fixed_at) // 2] if fixed_at else float("nan"),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=40, help="random games (default 40)")
    args = parser.parse_args()
    engine = FlipopEngine(setup_from_mapping({"game": "flipop", "players": 2}))
    board = engine.start_board
    doors = tuple(board.line("doors") or ())
    started = time.process_time()
    fixed = never_turning(doors)
    print(f"doors that can never turn: {len(fixed)} of {len(doors)}", end="")
    print(": " + ", ".join(f"post {doors_model.POSTS[i]} {doors[i]}" for i in fixed) if fixed else "")
    for colour in engine.colours:
        boards, leaves = alone(engine, board.cells, doors, colour)
        verdict = "a ball leaves" if leaves else "no ball ever leaves"
        print(f"{colour} moving alone from the start: {boards} boards reached, {verdict}")
    figures = random_games(engine, args.games)
    print(
        f"random v random, {args.games} games: {figures['decided']} decided, {figures['balls_off']} balls off, "
        f"{figures['fixed_early']} with their end fixed before the {MAX_PLIES}-ply cut "
        f"(median from ply {figures['median_fixed_at']})"
    )
    print(f"processor time {time.process_time() - started:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
