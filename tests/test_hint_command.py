"""`referee hint` (issue 29): the coach's move for the player to move, in the game's notation and
with why, from the running referee (journalled as a hint) or for the position a record ends on."""

from __future__ import annotations

import threading
import time

import pytest

from controller import cli, words
from controller.language import said
from controller.record import HINT, dump_record, load_record
from controller.referee import referee_at_end
from controller.service.control import ControlServer
from simulation.world import StubRig

EXAMPLE = "examples/flipop-standard.yaml"


def _cut(tmp_path, moves: int):
    """The example Flipop record cut after `moves` observations: a game in progress."""
    record = load_record(EXAMPLE)
    path = tmp_path / "cut.yaml"
    path.write_text(dump_record(record.setup, record.board, list(record.observations[:moves]), None))
    return path, referee_at_end(load_record(path))


def test_a_hint_for_the_position_a_record_ends_on_is_a_legal_move_in_the_games_notation(tmp_path, capsys):
    path, referee = _cut(tmp_path, 3)
    seat = referee.to_move()
    assert cli.main(["hint", str(path)]) == 0
    line = capsys.readouterr().out.strip()
    prefix = f"hint for {referee.engine.seat_name(seat)}: "
    assert line.startswith(prefix)
    legal = {referee.engine.describe(referee.state, m) for m in referee.engine.legal_moves(referee.state)}
    assert len(legal) > 1
    assert [m for m in legal if line.startswith(f"{prefix}{m} (") and line.endswith(")")]  # the move, then why
    assert cli.main(["hint", str(path), "--language", "fr"]) == 0
    assert capsys.readouterr().out.startswith("conseil pour ")


def test_hint_on_bad_input_says_why_in_a_sentence(tmp_path, capsys):
    assert cli.main(["hint", EXAMPLE]) == 2  # the example game is over
    assert said(words.NO_MOVE_TO_HELP, "en") in capsys.readouterr().err
    assert cli.main(["hint", EXAMPLE, "--language", "fr"]) == 2
    assert said(words.NO_MOVE_TO_HELP, "fr") in capsys.readouterr().err
    (tmp_path / "bad.yaml").write_text("game: [\n")
    assert cli.main(["hint", str(tmp_path / "bad.yaml")]) == 2
    err = capsys.readouterr().err
    assert "bad.yaml" in err and "Traceback" not in err
    assert cli.main(["hint", "--socket", str(tmp_path / "none.sock")]) == 2
    assert "no referee is running" in capsys.readouterr().err


def _served(rig: StubRig, path):
    stop = threading.Event()

    def tick() -> None:
        while not stop.is_set():
            rig.driver.run_frames(1)
            time.sleep(0.002)

    server = ControlServer(path, rig.loop.submit, timeout=10)
    server.start()
    ticker = threading.Thread(target=tick, daemon=True)
    ticker.start()

    def close() -> None:
        stop.set()
        ticker.join(2)
        server.close()

    return server, close


def test_hint_asks_the_running_referee_which_journals_it_as_a_hint(tmp_path, capsys):
    rig = StubRig({"game": "flipop", "players": 2}, tmp_path / "j.sqlite", seed=1, troubles=False, max_moves=2)
    rig.driver.run(rig.player.steps())
    server, close = _served(rig, tmp_path / "ctl.sock")
    try:
        assert cli.main(["hint", "--socket", str(server.path)]) == 0
        line = capsys.readouterr().out.strip()
        assert cli.main(["hint", "--socket", str(server.path), "--language", "fr"]) == 0
        french = capsys.readouterr().out.strip()
    finally:
        close()
    hints = [v for v in rig.loop.session.verdicts if v.get("action") == HINT]
    assert len(hints) == 2
    engine = rig.loop.session.referee.engine
    assert line.startswith(f"hint for {engine.seat_name(hints[0]['seat'])}: {hints[0]['move']} (")
    assert hints[0]["move"] in line and french.startswith("conseil pour ")


@pytest.mark.parametrize(
    ("keys", "sentence"),
    [
        ({"game": "flipop", "players": 2, "coach": False}, words.NO_COACH),
        ({"game": "flipop", "players": 2, "computer": ["beginner", None]}, words.NOT_A_PERSONS_TURN),
    ],
)
def test_hint_is_refused_in_words_without_the_coach_or_on_the_computers_turn(tmp_path, capsys, keys, sentence):
    rig = StubRig(keys, tmp_path / "j.sqlite", seed=1, troubles=False, max_moves=0)
    rig.driver.run_frames(3)  # the starting board is judged; the computer (player 1) is to move first
    server, close = _served(rig, tmp_path / "ctl.sock")
    try:
        assert cli.main(["hint", "--socket", str(server.path)]) == 2
    finally:
        close()
    assert str(sentence) in capsys.readouterr().err
    assert not [v for v in rig.loop.session.verdicts if v.get("action") == HINT]
