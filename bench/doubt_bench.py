"""Doubt resolved by the rules, on pictures with glare: how many unsure readings the rules complete,
and whether any completion is false (issue 28).

For each game, positions of random legal games (the engine's own moves from a players' start,
`--moves-max` moves at most) are taken; at each, one legal move is made and the board it gives is
drawn by the renderer under each lighting:

* `hard`: the renderer's hard look (uneven light, a colour cast, shadows, its own glare spots);
* `lamp`: the clean look with a lamp's reflection (a clipped core in a halo) over a place the move
  changed, the worst place for it;
* `hard+lamp`: both;
* `relit`: the clean look under a warm lamp from one side (the picture taken to linear light, a
  gain per colour channel, 0.8 blue to 1.2 red, and a brightness ramp of +-30% from left to right,
  then back: a diagonal relighting, as a camera calibrated under white light sees a coloured lamp).

Each picture is read by a fresh reader with the game's default profile, as the referee would read
it. A reading unsure of some places is what keeps amber blinking on the table: without the rules'
help the referee waits for a better picture. With it (`Referee.resolve`, the service's
`resolve_doubt`), when exactly one board, the last legal one or one a legal move gives, agrees with
every sure place and every unsure place's candidates, the reading is completed and judged at once.

Printed per game and lighting: pictures, read surely (right / wrong-but-sure, the reader's own
figure), unsure (amber without the rules), of which completed by the rules (right / false) and still
waiting. Target: 0 false completions. Stay Alive's slides come from the switches (the truth, as the
switch board reports it), as in the service.

Usage: python bench/doubt_bench.py [--games colorpop ...] [--positions 40] [--seed 1]
                                   [--lightings hard,relit,lamp,hard+lamp] [--moves-max 30]
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # as the referee runs (controller/__init__.py)

import argparse
import random
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from controller.games import registry  # noqa: E402
from controller.games.registry import engine_for  # noqa: E402
from controller.record import setup_from_mapping  # noqa: E402
from controller.referee import Referee  # noqa: E402
from controller.snapshot import Snapshot, tells_nothing_new  # noqa: E402
from controller.vision.reader import BoardReader  # noqa: E402
from simulation.render import Scene, render_snapshot  # noqa: E402
from simulation.world import starting_board  # noqa: E402

GAMES = ["colorpop", "blockers", "flipop", "stay-alive"]
LIGHTINGS = ("hard", "relit", "lamp", "hard+lamp")
COLUMNS = ("pictures", "sure right", "sure wrong", "unsure", "completed", "false", "waiting")


def position(game: str, rng: random.Random, moves_max: int):
    """A referee part-way through a random legal game, the board a legal move of the player to move
    gives from there, and the places that move changed; None when the game ended first."""
    setup = setup_from_mapping(dict(registry.get(game).demo), "bench")
    engine = engine_for(setup)
    referee = Referee(engine)
    referee.observe(starting_board(setup, rng))
    for _ in range(rng.randint(0, moves_max)):
        moves = engine.legal_moves(referee.state) if not engine.is_over(referee.state) else []
        if not moves:
            return None
        referee.observe(engine.expected(engine.apply(referee.state, rng.choice(moves))[0]))
    moves = engine.legal_moves(referee.state) if not engine.is_over(referee.state) else []
    if not moves:
        return None
    before = engine.expected(referee.state)
    after = engine.expected(engine.apply(referee.state, rng.choice(moves))[0])
    return referee, setup, after, before.changed_cells(after) or [(before.rows // 2, before.cols // 2)]


def relit(image: np.ndarray, gains: tuple[float, float, float], ramp: float) -> np.ndarray:
    """The picture under another lamp: a gain per channel (BGR) in linear light and a brightness
    ramp from left to right (a lamp on one side), clipped as the sensor clips."""
    linear = (image.astype(np.float32) / 255) ** 2.2
    across = 1 + ramp * np.linspace(-1, 1, image.shape[1], dtype=np.float32)[None, :, None]
    linear = linear * np.array(gains, np.float32) * across
    return (np.clip(linear, 0, 1) ** (1 / 2.2) * 255).astype(np.uint8)


def read_and_resolve(referee: Referee, setup, truth: Snapshot, lighting: str, changed, seed: int) -> str:
    """What became of one picture: 'sure right', 'sure wrong', 'completed', 'false' or 'waiting'."""
    rng = random.Random(f"lamp {seed}")
    spots: tuple[tuple[float, float, float], ...] = ()
    if "lamp" in lighting:
        r, c = rng.choice(list(changed))
        spots = ((r + rng.uniform(-0.2, 0.2), c + rng.uniform(-0.2, 0.2), rng.uniform(0.3, 0.5)),)
    preset = "hard" if lighting.startswith("hard") else "clean"
    profile = setup.profile
    frame = render_snapshot(truth, profile, seed=seed, preset=preset, scene=Scene(glare_at=spots))
    if lighting == "relit":
        frame = relit(frame, gains=(0.8, 1.0, 1.2), ramp=0.3)
    reading = BoardReader(profile).read(frame)
    merge = registry.get(truth.game).with_switches
    switches = (*(truth.line("orange") or ()), *(truth.line("white") or ())) if merge is not None else ()
    if reading.snapshot is not None:
        seen = merge(reading.snapshot, switches) if merge is not None else reading.snapshot
        return "sure right" if tells_nothing_new(seen, truth) else "sure wrong"
    if not reading.cells or not reading.candidates:
        return "waiting"  # the board itself was not found, or no place could be given candidates
    partial = Snapshot(truth.game, tuple(tuple(row) for row in reading.cells), {"doors": reading.doors})
    if merge is not None:
        partial = merge(partial, switches)
    completed = referee.resolve(partial, reading.candidates)
    if completed is None:
        return "waiting"
    return "completed" if tells_nothing_new(completed, truth) else "false"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", nargs="+", default=GAMES, choices=GAMES)
    parser.add_argument("--positions", type=int, default=40, help="positions per game (default 40)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the first position (default 1)")
    parser.add_argument("--lightings", default=",".join(LIGHTINGS), help=f"of {', '.join(LIGHTINGS)}")
    parser.add_argument("--moves-max", type=int, default=30, help="moves played before the one drawn, at most")
    args = parser.parse_args(argv)
    lightings = [x.strip() for x in args.lightings.split(",") if x.strip()]
    if any(x not in LIGHTINGS for x in lightings) or not lightings:
        parser.error(f"--lightings: a list of {', '.join(LIGHTINGS)}")
    if args.positions < 1 or args.moves_max < 0:
        parser.error("--positions must be at least 1 and --moves-max at least 0")
    started = time.perf_counter()
    print(
        f"{args.positions} positions of each game (seeds {args.seed}-{args.seed + args.positions - 1}), "
        f"a legal move drawn at 1280x720, read by a fresh reader; unsure = amber without the rules"
    )
    print(f"\n{'game':<11} {'lighting':<10} " + " ".join(f"{c:>10}" for c in COLUMNS))
    false_total = 0
    for game in args.games:
        tallies: dict[str, Counter[str]] = {lighting: Counter() for lighting in lightings}
        seed = args.seed
        found = 0
        while found < args.positions and seed < args.seed + 20 * args.positions:
            rng = random.Random(f"{game} {seed}")
            got = position(game, rng, args.moves_max)
            seed += 1
            if got is None:
                continue
            found += 1
            referee, setup, truth, changed = got
            for lighting in lightings:
                tallies[lighting][read_and_resolve(referee, setup, truth, lighting, changed, seed)] += 1
        for lighting in lightings:
            t = tallies[lighting]
            unsure = t["completed"] + t["false"] + t["waiting"]
            row = (sum(t.values()), t["sure right"], t["sure wrong"], unsure, t["completed"], t["false"], t["waiting"])
            false_total += t["false"]
            print(f"{game:<11} {lighting:<10} " + " ".join(f"{v:>10}" for v in row))
    print(f"\nfalse completions: {false_total} (target 0); {time.perf_counter() - started:.0f} s")
    return 1 if false_total else 0


if __name__ == "__main__":
    sys.exit(main())
