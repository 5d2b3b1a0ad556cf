"""A table is never stuck: "this board is right, go on from it" (control socket, page), journalled as such.

And whoever reads about a doubtful reading (the log, the journal, the page) reads the same thing:
no player is blamed.
"""

from __future__ import annotations

import logging
import random

import pytest

from controller.record import parse_record
from controller.referee import judge_record
from controller.service.journal import Journal
from controller.service.session import GameSession, export_record
from controller.snapshot import Snapshot
from simulation.world import StubRig, starting_board

GAMES = {
    "colorpop": {"game": "colorpop", "players": 3},
    "blockers": {"game": "blockers", "players": 3, "seats": ["R", "G", "B"]},
    "flipop": {"game": "flipop", "players": 2},
    "stay-alive": {"game": "stay-alive", "players": 2, "seats": ["B", "Y"]},
}


def _stuck_colorpop(tmp_path) -> StubRig:
    """Two moves in, two tokens of the bottom row are seen swapped: 'tokens changed places', a
    reading no hand can have made (a token dropped back into the wrong slide, say)."""
    rig = StubRig(GAMES["colorpop"], tmp_path / "j.sqlite", seed=2, troubles=False, max_moves=2)
    rig.driver.run(rig.player.steps())
    board = rig.loop.session.referee.expected()
    cells = [list(row) for row in board.cells]
    bottom = cells[-1]
    j = next(j for j in range(1, len(bottom)) if bottom[j] != bottom[0] and bottom[j] != ".")
    bottom[0], bottom[j] = bottom[j], bottom[0]
    rig.world.set_board(Snapshot(board.game, tuple(tuple(r) for r in cells)))
    rig.driver.run_frames(60)  # past the patience time: the referee calls it
    assert rig.loop.session.referee.in_illegal
    return rig


def _accept(rig: StubRig) -> dict:
    future = rig.loop.submit("accept")
    rig.driver.run_frames(1)
    return future.result(timeout=5)


def test_a_doubtful_reading_blames_nobody_in_the_journal_the_log_and_the_status(tmp_path, caplog):
    with caplog.at_level(logging.INFO, logger="referee"):
        rig = _stuck_colorpop(tmp_path)
    last = rig.loop.session.verdicts[-1]
    assert last["verdict"] == "illegal" and last["doubtful"] is True
    assert "seat" not in last  # the journal names nobody ...
    journal = Journal(tmp_path / "j.sqlite", read_only=True)
    stored = journal.entries(rig.loop.session.game_id)[-1].verdict
    journal.close()
    assert stored == last
    line = next(r.getMessage() for r in reversed(caplog.records) if "doubtful" in r.getMessage())
    assert "no player is blamed" in line and "player 1:" not in line  # ... and neither does the log
    assert "This board is right" in line  # the way out is said where the refusal is
    status = rig.loop.execute("status", {})
    assert "no player is blamed" in status["last_line"]


def test_the_board_declared_right_is_played_on_journalled_and_replayed(tmp_path):
    rig = _stuck_colorpop(tmp_path)
    session = rig.loop.session
    to_move = session.referee.to_move()
    answer = _accept(rig)
    assert answer["ok"] and answer["verdict"] == {
        "index": session.next_index - 1,
        "verdict": "action",
        "action": "accept-board",
    }
    referee = session.referee
    assert not referee.in_illegal and referee.to_move() == to_move
    assert referee.expected() == rig.world.visible()
    # the game goes on from it: a legal move from the accepted board is legal
    engine, state = referee.engine, referee.state
    move = engine.legal_moves(state)[0]
    after, _ = engine.apply(state, move)
    rig.world.set_board(engine.expected(after))
    rig.driver.run_frames(30)
    assert session.verdicts[-1]["verdict"] == "legal" and session.verdicts[-1]["seat"] == to_move
    # the journal holds the action with its board, and both a restart and a replay reproduce it
    journal = Journal(tmp_path / "j.sqlite", read_only=True)
    entry = [e for e in journal.entries(session.game_id) if e.kind == "action"][-1]
    assert entry.payload.startswith("accept-board\n") and entry.verdict["action"] == "accept-board"
    text = export_record(journal, session.game_id)
    assert "action: accept-board" in text and "board: |" in text
    assert [v for v in judge_record(parse_record(text)) if "result" not in v] == session.verdicts
    resumed = GameSession.replay(journal, session.game_id)
    assert resumed.referee.state == referee.state
    journal.close()


@pytest.mark.parametrize("game", list(GAMES))
def test_every_game_goes_on_from_a_board_declared_right(game, tmp_path):
    """Mid-game, the referee's own board declared right changes nothing; a later legal move stays legal."""
    rig = StubRig(GAMES[game], tmp_path / "j.sqlite", seed=3, troubles=False, max_moves=4)
    rig.driver.run(rig.player.steps())
    referee = rig.loop.session.referee
    engine, state = referee.engine, referee.state
    again = engine.adopt(state, engine.expected(state))
    assert engine.to_move(again) == engine.to_move(state)
    assert engine.expected(again) == engine.expected(state)
    assert {engine.describe(again, m) for m in engine.legal_moves(again)} <= {
        engine.describe(state, m) for m in engine.legal_moves(state)
    } or game == "flipop"  # Flipop: the push-back ban of the last move is lifted


def test_nothing_to_accept_is_said_in_a_sentence(tmp_path):
    rig = StubRig(GAMES["flipop"], tmp_path / "j.sqlite", seed=1, troubles=False, max_moves=2)
    rig.driver.run(rig.player.steps())
    future = rig.loop.submit("accept")
    rig.driver.run_frames(1)
    with pytest.raises(Exception, match="nothing to accept"):
        future.result(timeout=5)


def test_a_setup_the_referee_refuses_can_be_declared_right(tmp_path):
    """A copy whose setup the referee refuses (here: an empty Colorpop board) is played anyway."""
    rig = StubRig(GAMES["colorpop"], tmp_path / "j.sqlite", seed=1, troubles=False)
    board = starting_board(rig.setup, random.Random(1))
    cells = [list(row) for row in board.cells]
    cells[9][0] = cells[9][1] = cells[9][2] = "G"  # too many greens, and a group of more than five, maybe
    cells[8][0] = cells[8][1] = cells[8][2] = "G"
    rig.world.set_board(Snapshot(board.game, tuple(tuple(r) for r in cells)))
    rig.driver.run_frames(60)  # past the patience time
    assert rig.loop.session.verdicts[-1]["verdict"] == "setup-invalid"
    _accept(rig)
    assert rig.loop.session.referee.started and rig.loop.session.referee.to_move() == 0


def test_accepting_before_the_new_games_board_was_judged_judges_it_first(tmp_path):
    """Right after a new game the board is not judged yet: accepting it judges it first, so the game's
    record starts with its board and exports as ever."""
    rig = StubRig(GAMES["colorpop"], tmp_path / "j.sqlite", seed=2, troubles=False, max_moves=3)
    rig.driver.run(rig.player.steps())
    rig.loop.execute("new-game", {})
    rig.driver.run_frames(2)  # still within the settle time: nothing judged in the new game
    assert rig.loop.session.next_index == 0
    rig.loop.reading = type(rig.loop.reading)(frame=True, new_reading=True, snapshot=rig.world.visible())
    rig.loop.last_motion -= 1.0
    rig.loop.execute("accept", {})
    session = rig.loop.session
    assert session.referee.started and session.verdicts[0]["verdict"] in ("setup-ok", "setup-invalid")
    journal = Journal(tmp_path / "j.sqlite", read_only=True)
    try:
        text = export_record(journal, session.game_id)
        assert [v for v in judge_record(parse_record(text)) if "result" not in v] == session.verdicts
    finally:
        journal.close()
