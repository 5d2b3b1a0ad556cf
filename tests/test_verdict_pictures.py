"""The picture behind every verdict (issue 28): kept in the journal with the verdict, pruned by age
and size, shown by the page, written by `referee export --pictures`."""

from __future__ import annotations

import shutil
import sqlite3

import cv2
import numpy as np
import pytest
from test_web_browser import in_a_browser, start_browser, wait_for
from web_helpers import with_client

from controller.cli import main
from controller.commands.demo import play_game
from controller.service.journal import SCHEMA_VERSION, Journal
from controller.web import WebApp
from simulation.world import StubRig

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
    played_path, _ = played
    path = tmp_path / "j.sqlite"
    shutil.copyfile(played_path, path)  # the played game goes on, on the stand-in rig, from its journal
    journal = Journal(path, read_only=True)
    game = journal.latest_game().id
    rig = StubRig(dict(journal.game(game).setup), path)  # resumes the game: the page hears it so
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


def test_the_pictures_section_of_the_config_is_checked_and_given_to_the_loop(tmp_path):
    from controller.errors import ConfigError
    from controller.service.config import config_from_mapping

    base = {"game": "flipop", "players": 2, "journal": str(tmp_path / "j.sqlite")}
    config = config_from_mapping({**base, "pictures": {"max_age_days": 30, "max_megabytes": None}}, base=tmp_path)
    assert config.pictures.max_age == 30 * 86400 and config.pictures.max_bytes is None and config.pictures.keep
    for bad, words in (({"quality": 5}, "JPEG quality"), ({"max_megabytes": -1}, "megabytes"), ({"keep": "y"}, "keep")):
        with pytest.raises(ConfigError) as caught:
            config_from_mapping({**base, "pictures": bad}, base=tmp_path)
        assert words in str(caught.value)


def test_the_loop_prunes_the_pictures_as_configured_while_the_game_goes_on(tmp_path, monkeypatch):
    """Every few pictures kept (`PRUNE_EVERY`, made 3 here) the loop prunes the journal's pictures to
    the configured size: the newest stay, the verdicts all stay."""
    from controller.service import loop as loop_module
    from controller.service.pictures import PictureSettings
    from simulation.world import StubRig

    monkeypatch.setattr(loop_module, "PRUNE_EVERY", 3)
    rig = StubRig({"game": "colorpop", "players": 2}, tmp_path / "j.sqlite", seed=4, troubles=False, max_moves=8)
    noise = np.random.default_rng(0)
    # the stub rig's sensor reads snapshots, not pictures: give it a camera's picture, a noisy one (JPEG of ~2.6 kB)
    rig.loop.sensor.picture = lambda ppp: noise.integers(0, 255, (40, 40, 3), dtype=np.uint8)
    rig.loop.pictures = PictureSettings(pixels_per_place=4, quality=60, max_age_days=None, max_megabytes=0.008)
    rig.driver.run(rig.player.steps())
    journal = rig.loop.session.journal
    game = rig.loop.session.game_id
    indices = [e.verdict["index"] for e in journal.entries(game) if e.kind == "snapshot"]
    assert len(indices) >= 8
    kept = journal.pictured(game)
    total = sum(len(journal.picture(game, i)) for i in kept)
    # pruned at the 3rd, 6th, ... picture to 8 kB at most: never more than two pictures above it
    assert kept and total <= 8_000 + 2 * 4_000 and len(kept) < len(indices)
    assert max(kept) == max(indices) and kept == set(indices[-len(kept) :])  # the newest are the ones kept


@in_a_browser
def test_a_browser_shows_the_picture_beside_each_verdict_and_in_past_games(played, tmp_path):
    """In a real browser: each verdict of the history has its picture, loaded (the JPEG the journal
    holds, its size), a tap opens it large; a past game stepped through shows each verdict's own."""
    from selenium.webdriver.common.by import By

    from controller.web import WebServer

    played_path, _ = played
    path = tmp_path / "j.sqlite"
    shutil.copyfile(played_path, path)  # the played game goes on, on the stand-in rig, from its journal
    journal = Journal(path, read_only=True)
    game = journal.latest_game().id
    rig = StubRig(dict(journal.game(game).setup), path)  # resumes the game: the page hears it so
    server = WebServer(WebApp(rig.loop, pin=PIN, journal_path=path), "127.0.0.1", 0)
    assert server.start(), server.error
    browser = start_browser(390, 844)
    loaded = (
        "return [...document.querySelectorAll(arguments[0])].map(i => "
        "[i.getAttribute('src'), i.complete && i.naturalWidth, i.naturalHeight, i.closest('a') && i.closest('a').href])"
    )
    try:
        browser.get(f"http://127.0.0.1:{server.port}/")
        stored = [v["index"] for v in rig.loop.session.verdicts]
        pictures = wait_for(
            lambda: (p := browser.execute_script(loaded, "#history li img")) and all(w for _, w, _, _ in p) and p
        )
        assert len(pictures) == len(stored)  # every verdict has its own
        for src, width, height, link in pictures:
            data = journal.picture(game, int(src.rsplit("/", 1)[1].removesuffix(".jpg")))
            board = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
            assert (width, height) == (board.shape[1], board.shape[0]) and link.endswith(src)
        # past games: stepping through the game shows each verdict's picture
        browser.find_element(By.ID, "load-games").click()
        wait_for(lambda: browser.find_elements(By.CSS_SELECTOR, "#games li"))[0].click()
        shown = []
        for step in range(len(stored)):
            wait_for(lambda s=step: f"verdict {s + 1} of" in browser.find_element(By.ID, "step-title").text)
            src, width, _, _ = wait_for(
                lambda: (p := browser.execute_script(loaded, "#step-picture")[0]) and p[1] and p
            )
            shown.append(src)
            assert browser.find_element(By.ID, "step-picture").is_displayed()
            if step + 1 < len(stored):
                browser.execute_script("document.getElementById('step-next').click()")
        assert shown == [f"/api/games/{game}/pictures/{i}.jpg" for i in stored]
    finally:
        browser.quit()
        server.close()
        journal.close()
