"""When the loop speaks (issue 28): a legal move at once, an illegal one only when the hand is done.

On the stand-in rig (the camera reads the world on the first still tick after a change, 30 ticks
a second): a legal board is confirmed on the tick its first still picture is read; a half-made
move is pending at once; a board that looks illegal (the hand gone off the board mid-move) is
called only after it stayed unchanged for the patience time, and never if the move is finished
first, so red never lights during a legal move.
"""

from __future__ import annotations

import random
from dataclasses import replace

from controller.games import registry
from controller.referee import VerdictKind
from controller.service.loop import Settings
from simulation.world import FPS, StubRig

FLIPOP = {"game": "flipop", "players": 2}
COLORPOP = {"game": "colorpop", "players": 3}


def _started(keys, tmp_path, **settings) -> StubRig:
    rig = StubRig(keys, tmp_path / "j.sqlite", seed=3, troubles=False, max_moves=0)
    if settings:
        rig.loop.settings = replace(rig.loop.settings, **settings)
    rig.driver.run(rig.player.steps())  # the starting board, judged setup-ok
    assert [v.verdict for v in rig.loop.verdicts] == [VerdictKind.SETUP_OK]
    return rig


def _ticks_until_verdict(rig: StubRig, limit: int) -> int | None:
    before = len(rig.loop.verdicts)
    for tick in range(1, limit + 1):
        rig.driver.run_frames(1)
        if len(rig.loop.verdicts) > before:
            return tick
    return None


def _legal_and_half_made(rig: StubRig):
    """A legal move's board, and a board part-way through it that no legal move gives (Flipop:
    the ball moved, its doors not yet turned)."""
    engine = rig.loop.session.referee.engine
    state = rig.loop.session.referee.state
    before = engine.expected(state)
    moves = list(engine.legal_moves(state))
    random.Random(1).shuffle(moves)
    for move in moves:
        after = engine.expected(engine.apply(state, move)[0])
        half = before.with_cells(after.cells)  # balls moved, doors as before
        if after.line("doors") != before.line("doors") and engine.judge(state, half).kind == "illegal":
            return after, half
    raise AssertionError("no move turns a door")


def test_a_legal_move_is_confirmed_on_the_first_still_picture(tmp_path):
    rig = _started(FLIPOP, tmp_path)
    after, _ = _legal_and_half_made(rig)
    rig.world.set_board(after)
    # tick 1 sees the change (motion), tick 2 reads the still board and judges it
    assert _ticks_until_verdict(rig, 10) == 2
    assert rig.loop.verdicts[-1].verdict == VerdictKind.LEGAL
    assert ("legal", ()) in rig.feedback.calls


def test_a_move_finished_within_the_patience_time_is_never_called_illegal(tmp_path):
    rig = _started(FLIPOP, tmp_path)
    after, half = _legal_and_half_made(rig)
    rig.world.set_board(half)  # the hand leaves the board with the doors not yet turned
    rig.driver.run_frames(round(1.2 * FPS))  # a long pause, still inside the 1.5 s patience
    assert [v.verdict for v in rig.loop.verdicts] == [VerdictKind.SETUP_OK]
    rig.world.set_board(after)  # the doors turned: the move is done
    assert _ticks_until_verdict(rig, 10) == 2
    assert [v.verdict for v in rig.loop.verdicts] == [VerdictKind.SETUP_OK, VerdictKind.LEGAL]
    assert ("illegal", ()) not in rig.feedback.calls  # red never lit


def test_an_illegal_board_is_called_once_it_stayed_for_the_patience_time(tmp_path):
    rig = _started(FLIPOP, tmp_path, patience=1.0)
    _, half = _legal_and_half_made(rig)
    rig.world.set_board(half)
    ticks = _ticks_until_verdict(rig, 3 * FPS)
    assert rig.loop.verdicts[-1].verdict == VerdictKind.ILLEGAL
    # the patience time after the change (tick 1), then one tick for a picture read afresh
    assert ticks is not None and FPS + 1 <= ticks <= FPS + 3
    assert rig.feedback.calls[-1][0] in ("illegal", "clear_pending")


def test_a_half_made_move_is_pending_at_once(tmp_path):
    rig = _started(COLORPOP, tmp_path)
    referee = rig.loop.session.referee
    engine, state = referee.engine, referee.state
    before = engine.expected(state)
    partial_boards = registry.get("colorpop").play.partial_boards
    for move in engine.legal_moves(state):
        after = engine.expected(engine.apply(state, move)[0])
        half = next(
            (b for b in partial_boards(engine, state, before, after, move) if engine.judge(state, b).kind == "pending"),
            None,
        )
        if half is not None:
            break
    else:
        raise AssertionError("no group of three or more to take out")
    rig.world.set_board(half)
    assert _ticks_until_verdict(rig, 10) == 2
    assert rig.loop.verdicts[-1].verdict == VerdictKind.PENDING
    assert rig.feedback.calls[-1] == ("pending", ())


def test_a_hand_resting_on_the_board_is_said_only_once_it_stays(tmp_path):
    rig = _started(FLIPOP, tmp_path)
    rig.world.set_hand((2.0, 2.0))
    rig.driver.run_frames(FPS)  # one second: the hand may be about to move a piece
    assert ("unreadable", ()) not in rig.feedback.calls
    rig.driver.run_frames(FPS)  # past the 1.5 s patience
    assert rig.feedback.calls[-1] == ("unreadable", ())


def test_the_loop_settings_default_to_confirming_at_once_and_waiting_one_and_a_half_seconds():
    settings = Settings()
    assert settings.settle_time == 0.0 and settings.patience == 1.5 and settings.physics_window == 0.0
    assert registry.get("stay-alive").physics_window > 0
