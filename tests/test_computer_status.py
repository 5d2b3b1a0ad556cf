"""`referee status` at a table with a computer seat (issue 29): it says what the computer is at, the
move it chose that a person is to make, or the tiles it waits for (Blockers!), in the asker's language."""

from __future__ import annotations

import threading
import time

from controller import cli
from controller.service import loop as loop_module
from controller.service.control import ControlServer
from simulation.world import StubRig

TWO = {"game": "blockers", "variant": "two-player", "players": 2, "seats": [["R", "G"], ["B", "Y"]]}


def _status(rig: StubRig, tmp_path, capsys, monkeypatch, language: str) -> str:
    """`referee status` through the control socket, as a person types it, in `language`."""
    stop = threading.Event()

    def tick() -> None:
        while not stop.is_set():
            rig.driver.run_frames(1)
            time.sleep(0.002)

    server = ControlServer(tmp_path / "ctl.sock", rig.loop.submit, timeout=10)
    server.start()
    ticker = threading.Thread(target=tick, daemon=True)
    ticker.start()
    monkeypatch.setenv("LANGUAGE", language)
    try:
        assert cli.main(["status", "--socket", str(server.path)]) == 0
    finally:
        stop.set()
        ticker.join(2)
        server.close()
    return capsys.readouterr().out


def test_status_says_the_computer_waits_for_its_tiles_then_the_move_to_make(tmp_path, capsys, monkeypatch):
    rig = StubRig({**TWO, "computer": [None, "beginner"]}, tmp_path / "j.sqlite", seed=1, troubles=False, max_moves=12)
    steps = rig.player.steps()
    referee = rig.loop.session.referee
    while not (referee.started and referee.to_move() == 1):
        rig.driver.do(next(steps))
    rig.driver.run_frames(5)
    english = _status(rig, tmp_path, capsys, monkeypatch, "en")
    assert (
        "the computer (player 2 (blue and yellow)) waits for its tiles: draw 10 from its pile and tap them on the page"
        in english
    )
    french = _status(rig, tmp_path, capsys, monkeypatch, "fr")
    assert "l'ordinateur (" in french and "attend ses tuiles" in french and "10" in french
    status = rig.loop.status()
    assert status["computer"] == {"seat": 1, "level": "beginner", "move": None, "tiles_missing": 10}

    for tiles in ("B3 B7 BA Ba B*", "Y1 Y2 Y9 YE Yb"):
        rig.loop.submit("rack", tiles=tiles)
        rig.driver.run_frames(1)
    rig.driver.run_frames(2)
    chosen = referee.awaited
    assert chosen is not None
    english = _status(rig, tmp_path, capsys, monkeypatch, "en")
    words = str(referee.engine.move_words(chosen.move))
    assert f"the computer plays player 2 (blue and yellow): {words}; make its move on the board" in english
    french = _status(rig, tmp_path, capsys, monkeypatch, "fr")
    assert "l'ordinateur joue pour " in french
    assert rig.loop.status()["computer"]["move"] == chosen.move


def test_status_says_the_computer_is_choosing_and_nothing_on_a_persons_turn(tmp_path, capsys, monkeypatch):
    rig = StubRig(
        {"game": "flipop", "players": 2, "computer": [None, "beginner"]},
        tmp_path / "j.sqlite",
        seed=1,
        troubles=False,
        max_moves=12,
    )
    referee = rig.loop.session.referee
    steps = rig.player.steps()
    while not referee.started:
        rig.driver.do(next(steps))
    assert referee.to_move() == 0 and "computer" not in rig.loop.status()
    assert "computer" not in _status(rig, tmp_path, capsys, monkeypatch, "en")
    # the computer thinks on its own thread (as `referee run` has it): asked meanwhile, status says so
    go_on = threading.Event()
    real = loop_module.think

    def slow_think(*args, **kwargs):
        go_on.wait(10)
        return real(*args, **kwargs)

    monkeypatch.setattr(loop_module, "think", slow_think)
    rig.loop.think_in_background = True
    while referee.to_move() != 1:
        rig.driver.do(next(steps))
    rig.driver.run_frames(2)
    assert referee.awaited is None
    assert "the computer (player 2 (black)) is choosing its move" in _status(rig, tmp_path, capsys, monkeypatch, "en")
    assert "l'ordinateur (Joueur 2 (noir)) choisit son coup" in _status(rig, tmp_path, capsys, monkeypatch, "fr")
    go_on.set()
