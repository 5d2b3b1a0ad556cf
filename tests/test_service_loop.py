"""The loop's behaviour on the stand-in rig: faults, unreadable boards, doubtful readings, control."""

from __future__ import annotations

import logging
import threading

import pytest

from controller.referee import Verdict
from controller.service.control import ControlServer, request
from controller.service.events import LogSubscriber
from controller.service.loop import CAMERA_LOST, SWITCHES_LOST
from controller.words import verdict_line
from simulation.world import StubRig

STAY_ALIVE = {"game": "stay-alive", "players": 2, "seats": ["B", "Y"]}
FLIPOP = {"game": "flipop", "players": 2}


def test_camera_unplugged_and_back_mid_game_the_game_carries_on(tmp_path):
    rig = StubRig(FLIPOP, tmp_path / "j.sqlite", seed=2, troubles=False, max_moves=12)
    steps = rig.play(3)
    before = len(rig.loop.verdicts)
    rig.world.set_camera(False)
    rig.driver.run_frames(90)  # three seconds without pictures
    assert rig.loop.faults == [CAMERA_LOST]
    assert ("fault", (CAMERA_LOST,)) in rig.feedback.calls
    assert not rig.loop.fresh
    rig.world.set_camera(True)
    rig.driver.run_frames(30)
    assert rig.loop.faults == [] and rig.loop.fresh
    assert ("fault_cleared", ()) in rig.feedback.calls
    assert len(rig.loop.verdicts) == before  # the same board seen again is not a move
    rig.driver.run(steps)
    assert rig.loop.session.verdicts == rig.player.intended


@pytest.mark.slow
def test_switch_board_unplugged_and_back_mid_game_the_game_carries_on(tmp_path):
    rig = StubRig(STAY_ALIVE, tmp_path / "j.sqlite", seed=4, troubles=False, max_moves=30)
    steps = rig.play(14)
    rig.switches.plugged = False
    rig.driver.run_frames(10)
    assert SWITCHES_LOST in rig.loop.faults
    # a slide moved while the link is down is not judged until the switches answer again
    verdicts = len(rig.loop.verdicts)
    rig.driver.run_frames(30)
    assert len(rig.loop.verdicts) == verdicts
    rig.switches.plugged = True
    rig.driver.run_frames(30)
    assert rig.loop.faults == []
    rig.driver.run(steps)  # the same game goes on
    assert rig.loop.session.verdicts == rig.player.intended


def test_an_unreadable_board_is_never_a_move(tmp_path):
    rig = StubRig(FLIPOP, tmp_path / "j.sqlite", seed=1, troubles=False, max_moves=4)
    rig.play(2)
    judged = len(rig.loop.verdicts)
    lines: list[str] = []
    rig.loop.bus.subscribe(LogSubscriber(logging.getLogger("test"), lines.append), inline=True)
    rig.world.set_hand((2.0, 2.0))
    rig.driver.run_frames(60)
    assert len(rig.loop.verdicts) == judged
    assert any("board not read, no move judged: a hand" in line for line in lines)
    assert rig.feedback.calls[-1] == ("unreadable", ())
    rig.world.set_hand(None)
    rig.driver.run_frames(30)
    assert len(rig.loop.verdicts) == judged  # the hand went away: same board, no verdict
    assert rig.feedback.calls[-1] == ("clear_pending", ())


def test_a_board_is_judged_only_after_the_settle_time(tmp_path):
    rig = StubRig(FLIPOP, tmp_path / "j.sqlite", seed=1, troubles=False, max_moves=2, settle_time=0.5)
    rig.driver.run_frames(14)  # the first frame is motion (nothing seen before), then 0.43 s still
    assert rig.loop.verdicts == []
    rig.driver.run_frames(3)  # the settle time plus at most two frames
    assert [v.verdict for v in rig.loop.verdicts] == ["setup-ok"]


def test_doubtful_readings_blame_the_reading_not_a_player():
    verdict = Verdict("illegal", 4, seat=1, reason="a token changed colour in place", cells=((2, 3),), doubtful=True)
    line = verdict_line(verdict)
    assert line.startswith("the reading is doubtful at row 3 column 4")
    assert "no player is blamed" in line
    assert "illegal move" not in line


def test_control_socket_status_reveal_end_and_new_game(tmp_path):
    rig = StubRig(FLIPOP, tmp_path / "j.sqlite", seed=1, troubles=False, max_moves=3)
    rig.driver.run(rig.player.steps())
    server = ControlServer(tmp_path / "ctl.sock", rig.loop.submit, timeout=5)

    def ask(command, **args):
        future_answer = {}
        thread = threading.Thread(target=lambda: future_answer.update(answer=_safe(command, **args)))
        thread.start()
        while thread.is_alive():
            rig.driver.run_frames(1)
            thread.join(0.005)
        return future_answer["answer"]

    def _safe(command, **args):
        try:
            return request(tmp_path / "ctl.sock", command, **args)
        except Exception as exc:  # noqa: BLE001 - the test looks at the message
            return {"error": str(exc)}

    server.start()
    try:
        status = ask("status")
        assert status["game"] == "flipop" and status["started"] and status["to_move"] in (0, 1)
        assert "no secret colours" in ask("reveal", seat=0, colours=["G"])["error"]
        ended = ask("end")
        assert ended["verdict"]["action"] == "end-by-agreement"
        assert ended["result"]["finished"]
        new = ask("new-game")
        assert new["game_id"] == status["game_id"] + 1
        assert "unknown command" in server.answer(b'{"command": "dance"}')["error"]
        assert "not a JSON object" in server.answer(b"nonsense")["error"]
        # the answer's sentences in the language the request asks for (the commands send theirs)
        assert server.answer(b'{"command": "dance", "language": "fr"}')["error"].startswith("commande inconnue")
        french = ask("reveal", seat=0, colours=["G"], language="fr")["error"]
        assert "no secret colours" not in french and french != ask("reveal", seat=0, colours=["G"])["error"]
    finally:
        server.close()
    assert "no referee is running" in _safe("status")["error"]
