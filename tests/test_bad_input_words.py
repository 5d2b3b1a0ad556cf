"""Bad input met by a newcomer, answered in a player's words: seats counted from 1, a folder given as a
picture, another game's picture, and the service commands in words with their JSON behind --json."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import pytest

from controller.cli import main
from controller.service.control import ControlServer
from simulation.world import StubRig

ROOT = Path(__file__).resolve().parent.parent


def test_a_folder_given_as_a_picture_is_said_to_be_a_folder(tmp_path, capsys):
    (tmp_path / "pictures").mkdir()
    assert main(["read", "--game", "colorpop", "--image", str(tmp_path / "pictures")]) == 2
    assert "is a folder, not a picture" in capsys.readouterr().err


@pytest.mark.parametrize(("shown", "asked"), [("blockers", "colorpop"), ("flipop", "colorpop")])
@pytest.mark.slow
def test_another_games_picture_is_named_as_that_game(tmp_path, capsys, shown, asked):
    picture = str(tmp_path / "board.png")
    snapshot = str(ROOT / "examples" / "snapshots" / f"{shown}.txt")
    assert main(["render", "--game", shown, "--snapshot", snapshot, "--out", picture]) == 0
    capsys.readouterr()
    assert main(["read", "--game", asked, "--image", picture]) == 2
    out, err = capsys.readouterr()
    assert out == ""  # no board of ? and J
    assert f"reads as a {'Blockers!' if shown == 'blockers' else 'Flipop'} board" in err
    assert f"Give --game {shown}" in err


@pytest.fixture
def running(tmp_path):
    """A Colorpop game over, behind a control socket, its loop ticking as `referee run`'s does."""
    rig = StubRig({"game": "colorpop", "players": 3}, tmp_path / "j.sqlite", seed=4, troubles=False)
    rig.driver.run(rig.player.steps())
    stop = threading.Event()

    def tick() -> None:
        while not stop.is_set():
            rig.driver.run_frames(1)
            time.sleep(0.002)

    server = ControlServer(tmp_path / "ctl.sock", rig.loop.submit, timeout=5)
    server.start()
    ticker = threading.Thread(target=tick, daemon=True)
    ticker.start()
    yield str(tmp_path / "ctl.sock")
    stop.set()
    ticker.join(2)
    server.close()


@pytest.mark.slow
def test_reveal_and_status_count_seats_from_one_and_speak_words(running, capsys):
    assert main(["reveal", "9", "G", "--socket", running]) == 2
    assert "there is no player 9: the players are numbered 1 to 3" in capsys.readouterr().err
    assert main(["status", "--socket", running]) == 0
    out = capsys.readouterr().out
    assert "{" not in out and "no winner yet: no group is left; reveal the secret colours" in out
    assert main(["reveal", "1", "G", "--socket", running]) == 0
    out = capsys.readouterr().out
    assert out.startswith("player 1's secret colour: G") and "{" not in out
    assert main(["reveal", "2", "Y", "--socket", running, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["ok"] is True
    assert main(["status", "--json", "--socket", running]) == 0
    assert json.loads(capsys.readouterr().out)["game"] == "colorpop"
