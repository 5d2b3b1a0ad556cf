"""`referee replay` on the Stay Alive example records: exit 0, the verdicts shown, a finished game."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from controller.games import registry
from controller.games.events import ELIMINATED, GameEvent
from controller.games.stay_alive.rules import EXPECTED_FALL_MISSING

pytestmark = pytest.mark.slow  # every test here takes seconds

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"


def replay(name: str) -> list[dict]:
    done = subprocess.run(
        [sys.executable, "-m", "controller.cli", "replay", "--json", str(EXAMPLES / name)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


def not_plain_legal(lines: list[dict]) -> list[tuple]:
    """The verdicts other than legal moves, as (index, verdict, reason) in order. The reason is
    kept: a slide slip names no places, so its sentence is all that tells which slip the record shows."""
    return [(v["index"], v["verdict"], v.get("reason", "")) for v in lines[1:-1] if v["verdict"] != "legal"]


@pytest.mark.parametrize(
    ("name", "players", "winner", "scores"),
    [
        ("stay-alive-2p.yaml", 2, 0, [2, 0]),
        ("stay-alive-3p.yaml", 3, 1, [0, 1, 0]),
        ("stay-alive-4p.yaml", 4, 2, [0, 0, 1, 0]),
    ],
)
def test_examples_replay_to_a_finished_game(name, players, winner, scores):
    lines = replay(name)
    assert lines[0] == {"index": 0, "verdict": "setup-ok"}
    result = lines[-1]["result"]
    assert result["finished"] is True
    assert result["winners"] == [winner] and result["scores"] == scores
    events = [e for v in lines[1:-1] for e in v.get("events", [])]
    eliminated = [
        event.seat
        for event in (GameEvent.parse(e, registry.get("stay-alive").event_types) for e in events)
        if event.kind == ELIMINATED.kind
    ]
    assert sorted(eliminated) == [s for s in range(players) if s != winner]
    legal = [v for v in lines[1:-1] if v["verdict"] == "legal"]
    placements = [v for v in legal if v["move"].startswith("place ")]
    assert len(placements) == 5 * players
    slides = [v for v in legal if not v["move"].startswith("place ")]
    assert all(re.fullmatch(r"(orange|white) [0-6] (A->B|B->A|B->C|C->B)", v["move"]) for v in slides)


def test_two_player_example_is_all_legal_moves():
    lines = replay("stay-alive-2p.yaml")
    assert not_plain_legal(lines) == []
    assert Counter(v["seat"] for v in lines[1:-1])[0] > 5


def test_three_player_example_shows_an_open_drop_a_two_notch_slip_and_a_stuck_marble():
    lines = replay("stay-alive-3p.yaml")
    assert not_plain_legal(lines) == [
        (4, "unchanged", ""),
        (
            19,
            "illegal",
            "white slide 5 moved two notches (A to C); a slide moves one notch at a time, never straight from A to C",
        ),
        (20, "restored", ""),
    ]
    assert lines[17]["events"] == [EXPECTED_FALL_MISSING((5, 3))]


def test_four_player_example_shows_a_banned_slide_and_a_marble_moved_by_hand():
    lines = replay("stay-alive-4p.yaml")
    assert not_plain_legal(lines) == [
        (24, "illegal", "white slide 7 was moved by the previous player; move another slide"),
        (27, "illegal", "a marble was moved by hand from 1,4 to 1,1; marbles only leave their point by falling"),
        (28, "restored", ""),
    ]
    assert lines[1]["seat"] == 1  # the record's first seat places first
