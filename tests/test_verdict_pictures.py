"""The picture behind every verdict (issue 28): kept in the journal with the verdict, pruned by age
and size, shown by the page, written by `referee export --pictures`."""

from __future__ import annotations

import sqlite3

import cv2
import numpy as np
import pytest
from web_helpers import with_client

from controller.cli import main
from controller.commands.demo import play_game
from controller.service.journal import SCHEMA_VERSION, Journal
from controller.web import WebApp

PIN = "480613"


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    """A short Blockers! game on the rendered rig (camera, motion gate, reader), its journal kept."""
    folder = tmp_path_factory.mktemp("pictures")
    outcome = play_game("blockers", 5, folder, print_lights=False, troubles=False, max_moves=3)
    assert outcome.faithful
    return folder / "blockers-journal.sqlite", outcome


def test_every_verdict_on_a_board_keeps_the_picture_the_camera_judged(played):
    path, outcome = played
    journal = Journal(path, read_only=True)
    try:
        game = journal.latest_game().id
        indices = [e.verdict["index"] for e in journal.entries(game) if e.kind == "snapshot"]
        assert indices and journal.pictured(game) == set(indices)
        for index in indices:
            data = journal.picture(game, index)
            assert 1_000 < len(data) < 20_000  # a few kilobytes
            board = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
            assert board.shape[0] == board.shape[1] > 150  # the straightened board, square for a 9x9 lattice
        # the board changes from one verdict to the next: each picture is its own moment
        first, last = (journal.picture(game, i) for i in (indices[0], indices[-1]))
        assert first != last
    finally:
        journal.close()


def test_export_writes_the_pictures_beside_the_record(played, tmp_path, capsys):
    path, outcome = played
    folder = tmp_path / "seen"
    assert main(["export", str(path), "--pictures", str(folder)]) == 0
    out, err = capsys.readouterr()
    assert out.startswith("game: blockers") or "game: blockers" in out
    names = sorted(p.name for p in folder.iterdir())
    assert names == [f"verdict-{v['index']:03d}.jpg" for v in outcome.verdicts if "index" in v and "action" not in v]
    assert f"{len(names)} pictures written into {folder}" in err
    (tmp_path / "a-file").write_text("x")
    assert main(["export", str(path), "--pictures", str(tmp_path / "a-file")]) == 2
    assert "cannot write the pictures" in capsys.readouterr().err


def test_the_page_shows_the_picture_beside_the_verdict(played, tmp_path):
    path, _ = played
    from controller.service.session import GameSession
    from simulation.world import StubRig

    rig = StubRig({"game": "blockers", "players": 3, "seats": ["R", "G", "B"]}, tmp_path / "other.sqlite")
    journal = Journal(path)
    game = journal.latest_game().id
    rig.loop.session = GameSession.replay(journal, game)
    app = WebApp(rig.loop, pin=PIN, journal_path=path)

    async def body(client):
        state = await (await client.get("/api/state")).json()
        shown = [v for v in state["verdicts"] if v["picture"]]
        assert shown and shown[0]["picture"] == f"/api/games/{game}/pictures/{shown[0]['json']['index']}.jpg"
        answer = await client.get(shown[0]["picture"])
        assert answer.status == 200 and answer.content_type == "image/jpeg"
        assert await answer.read() == journal.picture(game, shown[0]["json"]["index"])
        steps = (await (await client.get(f"/api/games/{game}")).json())["steps"]
        assert steps[0]["picture"] == f"/api/games/{game}/pictures/0.jpg"
        assert (await client.get(f"/api/games/{game}/pictures/999.jpg")).status == 404
        assert (await client.get(f"/api/games/{game}/pictures/x1.jpg")).status in (400, 404)

    try:
        with_client(app, body)
    finally:
        journal.close()


def _journal_with_pictures(tmp_path, clock, sizes):
    journal = Journal(tmp_path / "j.sqlite", wall_clock=clock)
    game = journal.new_game({"game": "flipop", "players": 2})
    for index, size in enumerate(sizes):
        journal.append(game, "snapshot", "board", {"index": index, "verdict": "legal"}, picture=b"x" * size)
        clock.now += 86400  # one a day
    return journal, game


class _Clock:
    def __init__(self) -> None:
        self.now = 1_700_000_000.0

    def __call__(self) -> float:
        return self.now


def test_old_pictures_are_pruned_by_age_then_by_size_and_verdicts_stay(tmp_path):
    clock = _Clock()
    journal, game = _journal_with_pictures(tmp_path, clock, [1000] * 10)
    assert journal.prune_pictures(max_age=3.5 * 86400, max_bytes=None) == 7  # the pictures of the first 7 days
    assert journal.pictured(game) == {7, 8, 9}
    assert journal.prune_pictures(max_age=None, max_bytes=2000) == 1  # the oldest goes first
    assert journal.pictured(game) == {8, 9}
    assert len(journal.entries(game)) == 10  # verdicts are never pruned
    journal.close()


def test_a_journal_written_again_from_memory_keeps_its_pictures(tmp_path):
    clock = _Clock()
    journal, game = _journal_with_pictures(tmp_path, clock, [500, 600])
    (tmp_path / "j.sqlite").unlink()
    journal.append(game, "snapshot", "board", {"index": 2, "verdict": "legal"}, picture=b"y" * 700)
    assert journal.pictured(game) == {0, 1, 2}
    assert journal.picture(game, 1) == b"x" * 600
    journal.close()


def test_a_journal_of_an_older_referee_gets_the_pictures_table_and_is_read_without_it(tmp_path):
    path = tmp_path / "j.sqlite"
    journal = Journal(path)
    game = journal.new_game({"game": "flipop", "players": 2})
    journal.append(game, "snapshot", "board", {"index": 0, "verdict": "setup-ok"})
    journal.close()
    db = sqlite3.connect(path)
    db.execute("DROP TABLE pictures")
    db.execute("PRAGMA user_version = 1")
    db.commit()
    db.close()
    old = Journal(path, read_only=True)  # export and replay read it as it is
    assert old.pictured(game) == set() and old.picture(game, 0) is None and len(old.entries(game)) == 1
    old.close()
    upgraded = Journal(path)  # the referee opening it adds the table
    assert upgraded.db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    upgraded.append(game, "snapshot", "board", {"index": 1, "verdict": "legal"}, picture=b"z")
    assert upgraded.pictured(game) == {1}
    upgraded.close()
