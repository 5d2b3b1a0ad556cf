"""The Blockers! example records replay to the end with the verdicts checked by eye."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

from controller.games import registry
from controller.games.blockers.rules import GLYPH_UNREAD, BlockersEngine
from controller.games.events import GameEvent
from controller.record import load_record
from controller.referee import Referee

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"

#: Per record: the verdicts other than `legal`, by index, and the result.
EXPECTED = {
    "blockers-3-players.yaml": {
        "others": {0: "setup-ok", 12: "illegal", 13: "restored", 22: "unchanged", 33: "pending", 34: "unchanged"},
        "legal": 72,
        "result": {"finished": True, "winners": [2], "scores": [7, 5, 4]},
    },
    "blockers-two-player.yaml": {
        "others": {
            0: "setup-ok",
            12: "illegal",
            13: "restored",
            22: "unchanged",
            33: "pending",
            34: "unchanged",
            87: "pending",
        },
        "legal": 96,
        "result": {"finished": True, "winners": [1], "scores": [13, 11]},
    },
}


def replay(path: Path) -> list[dict]:
    done = subprocess.run(
        [sys.executable, "-m", "controller.cli", "replay", "--json", str(path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


@pytest.mark.parametrize("name", sorted(EXPECTED))
@pytest.mark.slow
def test_example_replays_with_the_expected_verdicts(name):
    lines = replay(EXAMPLES / name)
    *verdicts, last = lines
    expected = EXPECTED[name]
    others = {v["index"]: v["verdict"] for v in verdicts if v["verdict"] != "legal"}
    assert others == expected["others"]
    assert sum(v["verdict"] == "legal" for v in verdicts) == expected["legal"]
    result = last["result"]
    assert {k: result[k] for k in ("finished", "winners", "scores")} == expected["result"]
    unread = [
        v
        for v in verdicts
        if any(
            GameEvent.parse(e, registry.get("blockers").event_types).kind == GLYPH_UNREAD.kind
            for e in v.get("events", [])
        )
    ]
    assert len(unread) == 1 and unread[0]["index"] == 6 and "? on " in unread[0]["move"]
    # the illegal tile is in a place its glyph never fits (the record's wrong-place slip)
    illegal = next(v for v in verdicts if v["verdict"] == "illegal")
    record = load_record(EXAMPLES / name)
    (cell,) = [tuple(c) for c in illegal["cells"]]
    tile = record.observations[illegal["index"] - 1].cells[cell[0]][cell[1]]
    assert cell not in BlockersEngine(record.setup).map.cells_for[tile[1]]


@pytest.mark.slow
def test_two_player_example_has_captures_of_both_kinds():
    verdicts = replay(EXAMPLES / "blockers-two-player.yaml")[:-1]
    captures = [v["move"] for v in verdicts if "captures" in v.get("move", "")]
    own_side = {"R": "G", "G": "R", "B": "Y", "Y": "B"}
    assert any(m.split()[-1][0] == own_side[m[0]] for m in captures)  # e.g. G6 on D6 captures R*
    assert any(m.split()[-1][0] != own_side[m[0]] for m in captures)
    # the capture after the pending lift completes it
    index = next(v["index"] for v in verdicts if v["verdict"] == "pending" and v["index"] > 40)
    assert "captures" in verdicts[index + 1]["move"]


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_the_unread_glyph_is_read_later_and_no_doubt_remains(name):
    record = load_record(EXAMPLES / name)
    referee = Referee(BlockersEngine(record.setup))
    referee.observe(record.board)
    for entry in record.observations:
        referee.observe(entry)
    assert referee.state.unread == ()


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_examples_are_what_the_generator_writes(name, tmp_path, monkeypatch):
    spec = importlib.util.spec_from_file_location("make_blockers_examples", EXAMPLES / "make_blockers_examples.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    monkeypatch.setattr(module, "HERE", tmp_path)
    module.main()
    assert (tmp_path / name).read_text("utf-8") == (EXAMPLES / name).read_text("utf-8")
