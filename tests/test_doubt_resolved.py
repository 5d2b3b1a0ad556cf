"""Doubt resolved by the rules, never guessed (issue 28).

Vision says, for each place it is unsure of, which pieces its look does not rule out; the rules
say which boards could be on the table now (the last legal one, or one a legal move gives). When
exactly one agrees with everything seen, the referee judges it, and says so in the journal and
the log; when two or more fit, it waits.
"""

from __future__ import annotations

import logging
from dataclasses import replace

import pytest

from controller.games.registry import engine_for
from controller.profile import default_profile
from controller.record import setup_from_mapping
from controller.referee import Referee
from controller.service.events import LogSubscriber
from controller.service.journal import Journal
from controller.service.loop import Sight
from controller.service.session import RESOLVED_MARK, resolved_places
from controller.snapshot import EMPTY
from controller.vision.reader import BoardReader
from simulation.render import Scene, render_snapshot
from simulation.world import SnapshotSensor, StubRig

COLORPOP = {"game": "colorpop", "players": 3}


def _referee_after_setup(rig: StubRig) -> Referee:
    return rig.loop.session.referee


def _unsure(board, places, candidates):
    cells = [list(row) for row in board.cells]
    for r, c in places:
        cells[r][c] = "?"
    return replace(board, cells=tuple(tuple(row) for row in cells)), {p: candidates[p] for p in places}


@pytest.fixture
def rig(tmp_path) -> StubRig:
    rig = StubRig(COLORPOP, tmp_path / "j.sqlite", seed=3, troubles=False, max_moves=0)
    rig.driver.run(rig.player.steps())
    return rig


def _a_move(referee: Referee):
    engine, state = referee.engine, referee.state
    before = engine.expected(state)
    move = engine.legal_moves(state)[0]
    after = engine.expected(engine.apply(state, move)[0])
    return before, after, before.changed_cells(after)


def test_one_legal_board_fitting_an_unsure_place_completes_the_reading(rig):
    referee = _referee_after_setup(rig)
    before, after, changed = _a_move(referee)
    place = changed[0]
    letters = {after.cells[place[0]][place[1]], before.cells[place[0]][place[1]]}
    seen, candidates = _unsure(after, [place], {place: "".join(sorted(letters))})
    # the sure places show the move made: only the move's board fits, whatever the unsure place shows
    assert referee.resolve(seen, candidates) == after


def test_two_fitting_boards_are_not_guessed_between(rig):
    referee = _referee_after_setup(rig)
    before, after, changed = _a_move(referee)
    # every place the move changes is unsure, each may be as before or as after: both boards fit
    candidates = {(r, c): "".join(sorted({before.cells[r][c], after.cells[r][c]})) for r, c in changed}
    seen, candidates = _unsure(after, changed, candidates)
    assert referee.resolve(seen, candidates) is None


def test_a_board_no_legal_move_gives_is_never_completed(rig):
    referee = _referee_after_setup(rig)
    before, after, changed = _a_move(referee)
    r, c = changed[0]
    wrong = next(ch for ch in "GYOBPJ" if ch not in (before.cells[r][c], after.cells[r][c]))
    seen, candidates = _unsure(after, [(r, c)], {(r, c): wrong})
    assert referee.resolve(seen, candidates) is None


class _UnsureSensor(SnapshotSensor):
    """The stand-in camera, unsure of `places` (each of which may be any of `candidates`)."""

    def __init__(self, world, places, candidates) -> None:
        super().__init__(world)
        self.places, self.candidates = places, candidates

    def sense(self):
        sight = super().sense()
        if sight.snapshot is None or not self.places:
            return sight
        seen, candidates = _unsure(sight.snapshot, self.places, self.candidates)
        return Sight(
            frame=True,
            new_reading=True,
            problem="places could not be read surely",
            cells=seen.cells,
            candidates=candidates,
        )


def test_the_loop_judges_the_one_fitting_board_and_the_journal_and_log_say_so(rig, tmp_path):
    referee = _referee_after_setup(rig)
    before, after, changed = _a_move(referee)
    place = changed[0]
    candidates = {place: "".join(sorted({after.cells[place[0]][place[1]], "G", "Y"}))}
    rig.loop.sensor = _UnsureSensor(rig.world, [place], candidates)
    lines: list[str] = []
    rig.loop.bus.subscribe(LogSubscriber(logging.getLogger("test"), lines.append), inline=True)
    rig.world.set_board(after)
    rig.driver.run_frames(5)
    session = rig.loop.session
    last = session.verdicts[-1]
    assert last["verdict"] == "legal" and session.resolved == {last["index"]: (place,)}
    assert "unsure of" in lines[-1] and "only one legal board fits" in lines[-1]
    journal = Journal(tmp_path / "j.sqlite", read_only=True)
    entry = journal.entries(session.game_id)[-1]
    journal.close()
    assert entry.payload.startswith(RESOLVED_MARK) and resolved_places(entry.payload) == (place,)
    # after a restart the journal replays to the same verdicts, the mark included
    loop = rig.restart()
    assert loop.session.verdicts == session.verdicts and loop.session.resolved == session.resolved


def test_the_loop_waits_when_two_boards_fit(rig):
    referee = _referee_after_setup(rig)
    before, after, changed = _a_move(referee)
    candidates = {(r, c): "".join(sorted({before.cells[r][c], after.cells[r][c]})) for r, c in changed}
    rig.loop.sensor = _UnsureSensor(rig.world, changed, candidates)
    judged = len(rig.loop.verdicts)
    rig.world.set_board(after)
    rig.driver.run_frames(60)
    assert len(rig.loop.verdicts) == judged
    assert rig.feedback.calls[-1] == ("unreadable", ())  # amber blinks once it lasted the patience time


def test_the_reader_gives_each_unsure_place_the_pieces_its_look_allows():
    """A lamp's reflection over one token: that place may be anything; sure places are not listed."""
    setup = setup_from_mapping(COLORPOP, "test")
    engine = engine_for(setup)
    import random

    from simulation.world import starting_board

    board = starting_board(setup, random.Random(2))
    assert engine.check_setup(board).ok
    profile = default_profile("colorpop")
    frame = render_snapshot(board, profile, seed=1, preset="clean", scene=Scene(glare_at=((5.0, 5.0, 0.6),)))
    reading = BoardReader(profile).read(frame)
    assert reading.snapshot is None and reading.unsure
    assert set(reading.candidates) == set(reading.unsure)
    for (r, c), letters in reading.candidates.items():
        assert board.cells[r][c] in letters or (board.cells[r][c] == EMPTY and EMPTY in letters)
