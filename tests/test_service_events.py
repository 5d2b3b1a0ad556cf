"""The loop's one stream of events: every output is a subscriber, and none can hold up judging."""

from __future__ import annotations

import time

from controller.referee import VerdictKind
from controller.service.events import BoardUnreadable, EventBus, FaultRaised, GameOpened, Said, VerdictGiven
from simulation.world import StubRig

FLIPOP = {"game": "flipop", "players": 2}


def test_every_verdict_is_one_event_with_its_journal_sequence_number(tmp_path):
    rig = StubRig(FLIPOP, tmp_path / "j.sqlite", seed=2, troubles=False, max_moves=6)
    seen: list = []
    rig.loop.bus.subscribe(seen.append, inline=True)
    rig.play(4)
    given = [e for e in seen if isinstance(e, VerdictGiven)]
    assert [e.verdict for e in given] == rig.loop.verdicts
    assert given[0].verdict.verdict == VerdictKind.SETUP_OK
    assert [e.seq for e in given] == list(range(len(given)))
    assert all(e.game_id == rig.loop.session.game_id for e in given)
    last = given[-1]
    assert last.table.to_move == rig.loop.session.referee.to_move()
    assert last.snapshot == rig.loop.session.last_snapshot


def test_a_slow_listener_delays_neither_verdicts_nor_lights(tmp_path):
    rig = StubRig(FLIPOP, tmp_path / "j.sqlite", seed=3, troubles=False, max_moves=6)
    heard: list = []

    def slow(event) -> None:
        time.sleep(1.0)
        heard.append(event)

    rig.loop.bus.subscribe(slow, name="slow")
    lights_before = len(rig.feedback.calls)
    started = time.monotonic()
    rig.play(3)
    spent = time.monotonic() - started
    verdicts = len(rig.loop.verdicts)
    assert verdicts >= 4  # setup and three moves were judged...
    assert len(rig.feedback.calls) > lights_before  # ...and shown on the lights...
    assert len(heard) < verdicts  # ...while the slow listener was still far behind
    assert spent < verdicts * 1.0  # judging never waited for it


def test_a_failing_listener_is_skipped_and_judging_goes_on(tmp_path):
    rig = StubRig(FLIPOP, tmp_path / "j.sqlite", seed=4, troubles=False, max_moves=6)

    def broken(event) -> None:
        raise RuntimeError("listener bug")

    rig.loop.bus.subscribe(broken, inline=True, name="broken inline")
    rig.loop.bus.subscribe(broken, name="broken threaded")
    rig.play(3)
    assert sum(1 for v in rig.loop.verdicts if v.verdict == VerdictKind.LEGAL) == 3
    assert rig.feedback.calls.count(("legal", ())) == 3


def test_threaded_listeners_get_every_event_in_order():
    bus = EventBus()
    got: list[int] = []
    bus.subscribe(lambda e: got.append(int(e.text)))
    from controller.service.events import Table

    table = Table(game="flipop", game_id=1)
    for i in range(200):
        bus.emit(Said(at=float(i), table=table, text=str(i)))
    assert bus.drain(5.0)
    assert got == list(range(200))
    bus.close()


def test_faults_and_unreadable_boards_are_events_the_lights_and_journal_hear(tmp_path):
    rig = StubRig(FLIPOP, tmp_path / "j.sqlite", seed=5, troubles=False, max_moves=4)
    seen: list = []
    rig.loop.bus.subscribe(seen.append, inline=True)
    rig.play(1)
    rig.world.set_hand((2.0, 2.0))
    rig.driver.run_frames(30)
    rig.world.set_camera(False)
    rig.driver.run_frames(90)
    kinds = [type(e) for e in seen]
    assert BoardUnreadable in kinds and FaultRaised in kinds
    fault = next(e for e in seen if isinstance(e, FaultRaised))
    assert fault.table.faults == (fault.message,)
    assert ("fault", (fault.message,)) in rig.feedback.calls
    logged = [kind for _, kind, _ in rig.loop.session.journal.events(rig.loop.session.game_id)]
    assert "unreadable" in logged and "fault" in logged


def test_the_opening_event_says_how_the_game_was_opened(tmp_path):
    rig = StubRig(FLIPOP, tmp_path / "j.sqlite", seed=6, troubles=False, max_moves=4)
    assert isinstance(rig.loop.bus.last, GameOpened)
