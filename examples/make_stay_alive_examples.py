"""Write the Stay Alive example game records (examples/stay-alive-{2,3,4}p.yaml).

Each record is a complete game played from a random setup by simple players: marbles placed at
random on closed points, then each turn the slide move that drops the most opponent marbles
(own marbles count against it), ties broken at random. Some records also show what the referee
does with common slips, so the examples double as a tour of the verdicts:

- 3 players: a marble dropped on an open point (no change seen), a slide pushed two notches
  (illegal) and put back (restored), a marble that stays stuck after it should have fallen
  (`expected-fall-missing`) and later drops without blame.
- 4 players: a seat moving the previous mover's slide (illegal) and then a legal slide instead,
  and a marble moved by hand (illegal) and put back.

Deterministic from the seeds below:  python examples/make_stay_alive_examples.py
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from controller.games.base import GameSetup  # noqa: E402
from controller.games.stay_alive.rules import Placement, SlideMove, StayAliveEngine, StayAliveState  # noqa: E402
from controller.profile import default_profile  # noqa: E402
from controller.record import dump_record, parse_record  # noqa: E402
from controller.referee import judge_record  # noqa: E402
from controller.snapshot import EMPTY, Snapshot  # noqa: E402
from simulation.random_play import random_move, starting_board  # noqa: E402

HERE = Path(__file__).resolve().parent


def best_move(engine: StayAliveEngine, state: StayAliveState, rng: random.Random) -> SlideMove:
    seat = engine.to_move(state)
    own = engine.seats[seat]
    scored = []
    for move in engine.legal_moves(state):
        new, _ = engine.apply(state, move)
        gain = 0.0
        for r in range(7):
            for c in range(7):
                if state.board[r][c] != EMPTY and new.board[r][c] == EMPTY:
                    gain += -1.5 if state.board[r][c] == own else 1.0
        scored.append((gain + rng.random() * 0.5, move))
    return max(scored, key=lambda item: item[0])[1]


def with_slide(board: Snapshot, slide: int, position: str) -> Snapshot:
    positions = list((board.line("orange") or ()) + (board.line("white") or ()))
    positions[slide] = position
    return Snapshot(board.game, board.cells, {"orange": positions[:7], "white": positions[7:]})


def play(players: int, seed: int, seats: list[str], first: int, slips: set[str]) -> str:
    rng = random.Random(seed)
    setup = GameSetup("stay-alive", default_profile("stay-alive"), players=players, first=first, seats=tuple(seats))
    engine = StayAliveEngine(setup)
    board = starting_board(setup, rng)
    state = engine.start(board)
    entries: list[Snapshot] = []
    slide_moves = 0
    stuck_at: tuple[int, int] | None = None
    stuck_since = 0
    while not engine.is_over(state):
        here = engine.expected(state)
        if state.placing:
            if "open-drop" in slips and state.placed == 3:
                slips.discard("open-drop")
                entries.append(here)  # dropped on an open point: it fell, nothing changed
            move = random_move(engine, state, rng)
            assert isinstance(move, Placement)
            new, _ = engine.apply(state, move)
            seen = engine.expected(new)
        else:
            slide_moves += 1
            if "two-notches" in slips and slide_moves == 3:
                slips.discard("two-notches")
                ends = [s for s, p in enumerate(state.orange + state.white) if p in "AC"]
                slide = rng.choice(ends)
                jump = "C" if (state.orange + state.white)[slide] == "A" else "A"
                entries += [with_slide(here, slide, jump), here]
            if "previous-slide" in slips and slide_moves == 4 and state.recent:
                slips.discard("previous-slide")
                slide = state.recent[-1]
                other = "B" if (state.orange + state.white)[slide] != "B" else "A"
                entries.append(with_slide(here, slide, other))
            if "by-hand" in slips and slide_moves == 6:
                slips.discard("by-hand")
                cells = [list(row) for row in here.cells]
                r, c = next((r, c) for r in range(7) for c in range(7) if state.board[r][c] != EMPTY)
                free = next((r2, c2) for r2 in range(7) for c2 in range(7) if cells[r2][c2] == EMPTY)
                cells[free[0]][free[1]], cells[r][c] = cells[r][c], EMPTY
                entries += [here.with_cells(cells), here]
            move = best_move(engine, state, rng)
            new, _ = engine.apply(state, move)
            seen = engine.expected(new)
            falls = [
                (r, c) for r in range(7) for c in range(7) if state.board[r][c] != EMPTY and new.board[r][c] == EMPTY
            ]
            cells = [list(row) for row in seen.cells]
            if "stuck" in slips and falls and not engine.is_over(new):
                slips.discard("stuck")
                stuck_at, stuck_since = falls[0], slide_moves
                cells[stuck_at[0]][stuck_at[1]] = state.board[stuck_at[0]][stuck_at[1]]
            elif stuck_at is not None and slide_moves == stuck_since + 4:
                cells[stuck_at[0]][stuck_at[1]] = EMPTY  # the stuck marble finally drops
                stuck_at = None
            seen = seen.with_cells(cells)
        judgement = engine.judge(state, seen)
        assert judgement.kind == "legal", judgement
        state = judgement.state
        entries.append(seen)
    assert not slips, f"slips not shown: {slips}"
    head = f"# Stay Alive, {players} players: generated by examples/make_stay_alive_examples.py (seed {seed}).\n"
    return head + dump_record(setup, board, entries)


EXAMPLES = {
    "stay-alive-2p.yaml": dict(players=2, seed=11, seats=["B", "Y"], first=0, slips=set()),
    "stay-alive-3p.yaml": dict(
        players=3, seed=23, seats=["R", "G", "B"], first=0, slips={"open-drop", "two-notches", "stuck"}
    ),
    "stay-alive-4p.yaml": dict(
        players=4, seed=37, seats=["R", "G", "B", "Y"], first=1, slips={"previous-slide", "by-hand"}
    ),
}


def main() -> int:
    for name, spec in EXAMPLES.items():
        text = play(**spec)  # type: ignore[arg-type]
        (HERE / name).write_text(text, "utf-8")
        lines = list(judge_record(parse_record(text)))
        kinds: dict[str, int] = {}
        for line in lines[:-1]:
            kinds[line["verdict"]] = kinds.get(line["verdict"], 0) + 1
        print(name, kinds, json.dumps(lines[-1]))
        for line in lines[:-1]:
            if line["verdict"] not in ("legal",) or "events" in line:
                print("   ", json.dumps(line))
    return 0


if __name__ == "__main__":
    sys.exit(main())
