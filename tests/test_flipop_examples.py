"""`referee replay` on the Flipop example records prints the expected verdicts and result."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from controller.games import registry
from controller.games.events import GameEvent
from controller.games.flipop.doors import push
from controller.games.flipop.rules import EXIT
from controller.games.registry import engine_for
from controller.record import Action, load_record
from controller.referee import Referee

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "flipop-standard.yaml"


def replay(path: Path) -> list[dict]:
    done = subprocess.run(
        [sys.executable, "-m", "controller.cli", "replay", "--json", str(path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


@pytest.mark.slow
def test_standard_example_replays_to_the_end():
    lines = replay(EXAMPLE)
    verdicts = [line.get("verdict") for line in lines[:-1]]
    assert verdicts[0] == "setup-ok"
    assert verdicts[4:6] == ["illegal", "restored"]
    assert lines[4]["cells"] == [[4, 4], [3, 4]]  # the white ball slid by hand, from and to
    assert verdicts[13:15] == ["pending", "legal"] and lines[14]["events"] == [EXIT((0, 1))]
    events = [GameEvent.parse(e, registry.get("flipop").event_types) for line in lines for e in line.get("events", [])]
    assert EXIT((4, 3)) in events and GameEvent.passed(0) in events
    assert verdicts[-1] == "action" and lines[-2]["action"] == "end-by-agreement"
    assert set(verdicts) == {"setup-ok", "legal", "illegal", "restored", "pending", "action"}
    assert lines[-1]["result"] == {
        "finished": True,
        "winners": [0, 1],
        "scores": [4, 4],
        "reason": "a draw: the players ended the game by agreement with 4 balls each on the board",
    }


def test_standard_example_has_chains():
    record = load_record(EXAMPLE)
    engine = engine_for(record.setup)
    referee = Referee(engine)
    referee.observe(record.board)
    chains = 0
    for entry in record.observations:
        if isinstance(entry, Action):
            break
        line = referee.state.lines[0]
        verdict = referee.observe(entry)
        if verdict.verdict == "legal":
            _, cell, direction = verdict.move.split(" ")
            r, c = (int(x) for x in cell.strip("()").split(","))
            result = push(line.balls, line.doors, (r, c), direction, engine.exits)
            if len({at for at, _ in result.displaced}) + len(result.exits) >= 2:
                chains += 1
    assert chains >= 2
