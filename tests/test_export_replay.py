"""Every game of a journal, exported and replayed, gives the verdicts and the result the service gave.

A game closed by "new game" ends its record with `- action: new-game`; its replay must still give
that game's result (the winner, the scores), not the empty game the action opened.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from controller.record import parse_record
from controller.referee import judge_record
from controller.service.journal import Journal
from controller.service.session import export_record
from simulation.world import StubRig

pytestmark = pytest.mark.slow  # every test here takes seconds

ROOT = Path(__file__).resolve().parent.parent
GAMES = {
    "colorpop": ({"game": "colorpop", "players": 3}, {"game": "colorpop", "players": 3, "secrets": ["G", "Y", "O"]}),
    "blockers": ({"game": "blockers", "players": 3, "seats": ["R", "G", "B"]}, None),
    "flipop": ({"game": "flipop", "players": 2}, None),
    "stay-alive": ({"game": "stay-alive", "players": 2, "seats": ["B", "Y"]}, None),
}


def _journal_of_several_games(game: str, path: Path) -> tuple[StubRig, dict[int, dict]]:
    """A whole game (secret colours revealed where the game has them), closed by a new game; the
    board left in front of the camera judged as the next game's setup, closed by a new game too;
    a third game left open. Returns the rig and each game's result as the service had it."""
    keys, truth = GAMES[game]
    rig = StubRig(keys, path, seed=5, truth_keys=truth, max_moves=400)
    rig.driver.run(rig.player.steps())
    rig.driver.run(rig.player.finish())
    if not rig.loop.session.referee.over:  # Flipop's players may circle: they end it by agreement
        rig.loop.execute("end", {})
    results: dict[int, dict] = {}
    for _ in range(2):
        session = rig.loop.session
        results[session.game_id] = session.referee.result().to_json()
        rig.loop.execute("new-game", {})
        rig.driver.run_frames(60)  # the board left is an invalid setup: called after the patience time
    session = rig.loop.session
    results[session.game_id] = session.referee.result().to_json()
    return rig, results


@pytest.mark.parametrize("game", list(GAMES))
def test_every_game_of_a_journal_replays_with_its_verdicts_and_result(game, tmp_path):
    rig, results = _journal_of_several_games(game, tmp_path / "j.sqlite")
    journal = Journal(tmp_path / "j.sqlite", read_only=True)
    try:
        games = journal.games()
        assert len(games) == 3
        assert results[min(results)]["finished"] is True  # the first game was played to its end
        for row in games:
            wanted = [e.verdict for e in journal.entries(row.id) if e.kind != "reveal"]
            lines = list(judge_record(parse_record(export_record(journal, row.id))))
            assert lines[:-1] == wanted, f"game {row.id}"
            assert lines[-1]["result"] == results[row.id], f"game {row.id}"
    finally:
        journal.close()


def test_referee_replay_of_an_exported_closed_game_prints_its_winner(tmp_path):
    rig, results = _journal_of_several_games("colorpop", tmp_path / "j.sqlite")
    first = min(results)
    cli = [sys.executable, "-m", "controller.cli"]
    exported = subprocess.run(
        [*cli, "export", str(tmp_path / "j.sqlite"), "--game-id", str(first)], capture_output=True, text=True, cwd=ROOT
    )
    assert exported.returncode == 0, exported.stderr
    assert exported.stdout.rstrip().endswith("- action: new-game")
    (tmp_path / "game.yaml").write_text(exported.stdout)
    replayed = subprocess.run(
        [*cli, "replay", "--json", str(tmp_path / "game.yaml")], capture_output=True, text=True, cwd=ROOT
    )
    assert replayed.returncode == 0, replayed.stderr
    assert json.loads(replayed.stdout.splitlines()[-1])["result"] == results[first]
    worded = subprocess.run([*cli, "replay", str(tmp_path / "game.yaml")], capture_output=True, text=True, cwd=ROOT)
    winner = results[first]["winners"][0]
    assert worded.stdout.splitlines()[-1].startswith(f"game over: player {winner + 1}")


def test_a_journal_written_in_older_words_resumes_and_exports(tmp_path):
    """A verdict's reason is words for people (improved from one version to the next: places now count
    from 1); a journal holding older words resumes and exports as judged, nothing moved aside."""
    import sqlite3

    from controller.service.session import GameSession, open_journal

    keys = {"game": "stay-alive", "players": 2, "seats": ["B", "Y"]}
    rig = StubRig(keys, tmp_path / "j.sqlite", seed=3, troubles=True, max_moves=25)
    rig.driver.run(rig.player.steps())
    game_id = rig.loop.session.game_id
    assert any("reason" in v for v in rig.loop.session.verdicts)
    db = sqlite3.connect(tmp_path / "j.sqlite")
    rows = db.execute("SELECT seq, verdict FROM entries WHERE game_id = ?", (game_id,)).fetchall()
    for seq, text in rows:
        verdict = json.loads(text)
        if "reason" in verdict:
            verdict["reason"] = "said in older words"
            db.execute(
                "UPDATE entries SET verdict = ? WHERE game_id = ? AND seq = ?", (json.dumps(verdict), game_id, seq)
            )
    db.commit()
    db.close()
    opened = open_journal(tmp_path / "j.sqlite", rig.keys, rig.setup)
    try:
        assert opened.moved_aside is None and opened.session.game_id == game_id
        assert opened.session.referee.state == rig.loop.session.referee.state
        assert export_record(opened.journal, game_id).startswith("game: stay-alive")
        assert GameSession.replay(opened.journal, game_id).next_index == rig.loop.session.next_index
    finally:
        opened.journal.close()
