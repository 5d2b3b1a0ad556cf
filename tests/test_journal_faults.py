"""Journal faults: a damaged, empty, foreign, deleted, replaced, full or read-only journal never
stops the referee and never loses a verdict the players were shown."""

from __future__ import annotations

import os
import shutil
import sqlite3

import pytest

from controller.errors import RefereeError
from controller.service.journal import SCHEMA_VERSION, Journal, JournalDamaged
from controller.service.session import GameSession, open_journal
from simulation.world import StubRig

FLIPOP = {"game": "flipop", "players": 2}


def _finish(rig: StubRig, steps) -> None:
    rig.driver.run(steps)
    rig.driver.run_frames(3 * 30)  # the journal's periodic retry (every 5 s) gets its turn


def _journal_with_a_game(tmp_path, moves: int = 4):
    path = tmp_path / "j.sqlite"
    rig = StubRig(FLIPOP, path, seed=1, troubles=False, max_moves=moves)
    rig.driver.run(rig.player.steps())
    rig.loop.session.journal.close()
    return path, rig


def _journal_verdicts(path, game_id: int | None = None) -> list[dict]:
    journal = Journal(path, read_only=True)
    try:
        game_id = game_id or journal.latest_game().id
        return [e.verdict for e in journal.entries(game_id)]
    finally:
        journal.close()


def _aside(path, label: str = "damaged") -> list:
    return sorted(
        p
        for p in path.parent.iterdir()
        if p.name.startswith(f"{path.name}.{label}-") and not p.name.endswith(("-wal", "-shm"))
    )


def _restart_on(path) -> StubRig:
    return StubRig(FLIPOP, path, seed=2, troubles=False, max_moves=3)


@pytest.mark.parametrize("damage", ["garbled row", "cut short inside a page", "0 bytes", "another database"])
def test_an_unreadable_journal_is_moved_aside_with_a_fault_and_refereeing_starts(damage, tmp_path, caplog):
    path, _ = _journal_with_a_game(tmp_path)
    if damage == "garbled row":
        data = bytearray(path.read_bytes())
        at = data.find(b'"verdict": "legal"')
        assert at > 0
        data[at + 2 : at + 9] = b"\xff\x00zz\x01\x02\x03"
        path.write_bytes(bytes(data))
    elif damage == "cut short inside a page":
        # the last page may be an empty table's (the events, when nothing was logged): cut into the one before
        with open(path, "r+b") as file:
            file.truncate(path.stat().st_size - 4096 - 1000)
    elif damage == "0 bytes":
        path.write_bytes(b"")
    else:
        path.unlink()
        db = sqlite3.connect(path)
        db.execute("CREATE TABLE photos (name TEXT)")
        db.commit()
        db.close()
    before = path.read_bytes()
    with pytest.raises(JournalDamaged if damage != "garbled row" else RefereeError):
        journal = Journal(path)
        GameSession.open(journal, FLIPOP, StubRig(FLIPOP, tmp_path / "x.sqlite").setup)

    caplog.set_level("WARNING")
    rig = _restart_on(path)
    (aside,) = _aside(path)
    assert aside.read_bytes() == before  # kept as it was
    assert rig.loop.session.game_id == 1 and rig.loop.session.next_index == 0
    rig.driver.run(rig.player.steps())
    fault = rig.loop.faults[0] if rig.loop.faults else None
    assert fault is not None and str(aside) in fault and str(path) in fault
    lines = [r.getMessage() for r in caplog.records if str(aside) in r.getMessage()]
    assert len(lines) == 1 and str(path) in lines[0]  # one log line names both files
    assert ("fault", (fault,)) in rig.feedback.calls
    assert rig.loop.session.verdicts == rig.player.intended
    assert _journal_verdicts(path) == rig.player.intended
    assert rig.loop.fresh  # the journal's notice does not stop systemd's watchdog


def test_a_journal_whose_game_no_longer_replays_is_moved_aside(tmp_path):
    path, rig = _journal_with_a_game(tmp_path)
    db = sqlite3.connect(path)
    db.execute("""UPDATE entries SET verdict = '{"index": 1, "verdict": "illegal"}' WHERE seq = 1""")
    db.commit()
    db.close()
    opened = open_journal(path, FLIPOP, rig.setup)
    assert opened.moved_aside is not None and "cannot be replayed" in opened.moved_aside
    assert len(_aside(path)) == 1 and opened.session.next_index == 0


def test_the_moved_aside_notice_is_cleared_after_a_minute_or_by_a_new_game(tmp_path):
    path, _ = _journal_with_a_game(tmp_path)
    path.write_bytes(b"")
    rig = _restart_on(path)
    rig.driver.run_frames(2)
    assert len(rig.loop.faults) == 1
    rig.driver.run_frames(61 * 30)
    assert rig.loop.faults == [] and ("fault_cleared", ()) in rig.feedback.calls

    path.unlink()
    rig = _restart_on(path)  # a fresh journal: nothing to say
    rig.driver.run_frames(2)
    assert rig.loop.faults == []
    rig.loop.session.journal.close()
    path.write_bytes(b"")
    rig = _restart_on(path)
    rig.driver.run_frames(2)
    assert len(rig.loop.faults) == 1
    rig.loop.submit("new-game")
    rig.driver.run_frames(2)
    assert rig.loop.faults == []


def test_a_journal_deleted_while_running_is_written_again_from_memory(tmp_path):
    path = tmp_path / "j.sqlite"
    rig = StubRig(FLIPOP, path, seed=3, troubles=False, max_moves=8)
    steps = rig.play(3)
    for name in (path, f"{path}-wal", f"{path}-shm"):
        if os.path.exists(name):
            os.unlink(name)
    steps = rig.play(5, steps)
    assert path.exists()
    assert any("deleted" in f for f in rig.loop.faults)
    _finish(rig, steps)
    assert rig.loop.session.verdicts == rig.player.intended
    assert _journal_verdicts(path) == rig.player.intended  # every verdict, before and after the deletion


def test_a_journal_replaced_while_running_is_moved_aside_and_written_again(tmp_path):
    path = tmp_path / "j.sqlite"
    rig = StubRig(FLIPOP, path, seed=3, troubles=False, max_moves=8)
    steps = rig.play(3)
    other = tmp_path / "other.sqlite"
    db = sqlite3.connect(other)
    db.execute("CREATE TABLE t (x)")
    db.commit()
    db.close()
    os.replace(other, path)
    _finish(rig, steps)
    (kept,) = _aside(path, "replaced")
    assert sqlite3.connect(kept).execute("SELECT name FROM sqlite_master").fetchall() == [("t",)]
    assert _journal_verdicts(path) == rig.player.intended


def _disk_full(journal: Journal) -> None:
    """No new page for this connection (`max_page_count`): the disk is full once the pages in use are."""
    pages = journal.db.execute("PRAGMA page_count").fetchone()[0]
    journal.db.execute(f"PRAGMA max_page_count = {pages}")


def _play_until_full(rig: StubRig, steps):
    while rig.loop.session.journal.problem is None and rig.player.moves < 40:
        rig.driver.do(next(steps))
    return rig.play(rig.player.moves + 3, steps)  # and some verdicts more while it is full


@pytest.mark.slow
def test_disk_full_lights_the_fault_keeps_verdicts_in_memory_and_writes_them_in_order(tmp_path):
    path = tmp_path / "j.sqlite"
    rig = StubRig(FLIPOP, path, seed=5, troubles=False, max_moves=60)
    steps = rig.play(2)
    journal = rig.loop.session.journal
    _disk_full(journal)
    steps = _play_until_full(rig, steps)
    problem = "the journal cannot be written: the disk is full"
    assert problem in rig.loop.faults
    assert ("fault", (problem,)) in rig.feedback.calls
    assert rig.loop.fresh  # judging and the watchdog go on
    assert journal.waiting > 0
    assert len(_journal_verdicts(path)) < len(rig.loop.session.verdicts)
    journal.db.execute("PRAGMA max_page_count = 1073741823")  # space again
    _finish(rig, steps)
    assert problem not in rig.loop.faults and journal.waiting == 0
    assert _journal_verdicts(path) == rig.player.intended == rig.loop.session.verdicts


def test_a_read_only_journal_lights_the_fault_and_is_written_once_it_can_be(tmp_path, monkeypatch):
    path = tmp_path / "j.sqlite"
    rig = StubRig(FLIPOP, path, seed=6, troubles=False, max_moves=10)
    steps = rig.play(2)
    journal = rig.loop.session.journal
    connect = Journal._connect

    def read_only(self, **options):  # what chmod a-w does to a process that is not root
        db = connect(self, **options)
        db.execute("PRAGMA query_only = 1")
        return db

    monkeypatch.setattr(Journal, "_connect", read_only)
    journal.db.execute("PRAGMA query_only = 1")
    steps = rig.play(5, steps)
    problem = next(f for f in rig.loop.faults if "cannot be written" in f)
    assert "read-only" in problem
    rig.driver.run_frames(6 * 30)  # retried, still read-only
    assert problem in rig.loop.faults
    monkeypatch.setattr(Journal, "_connect", connect)
    _finish(rig, steps)
    assert problem not in rig.loop.faults
    assert _journal_verdicts(path) == rig.player.intended


def test_a_journal_read_only_from_the_start_still_referees(tmp_path, monkeypatch):
    path, first = _journal_with_a_game(tmp_path, moves=2)
    connect = Journal._connect

    def read_only(self, **options):
        db = connect(self, **options)
        db.execute("PRAGMA query_only = 1")
        return db

    monkeypatch.setattr(Journal, "_connect", read_only)
    rig = StubRig({"game": "flipop", "players": 2, "first": 1}, path, seed=2, troubles=False, max_moves=3)
    rig.driver.run(rig.player.steps())  # another setup: a new game opened in memory only
    assert any("read-only" in f for f in rig.loop.faults)
    assert rig.loop.session.verdicts == rig.player.intended
    monkeypatch.setattr(Journal, "_connect", connect)
    rig.driver.run_frames(6 * 30)
    assert _journal_verdicts(path, rig.loop.session.game_id) == rig.player.intended
    assert not Journal(path, read_only=True).game(1).open


@pytest.mark.slow
def test_a_clean_stop_writes_what_waits(tmp_path):
    path = tmp_path / "j.sqlite"
    rig = StubRig(FLIPOP, path, seed=5, troubles=False, max_moves=60)
    steps = rig.play(2)
    journal = rig.loop.session.journal
    _disk_full(journal)
    _play_until_full(rig, steps)
    assert journal.waiting
    journal.db.execute("PRAGMA max_page_count = 1073741823")
    journal.close()
    assert _journal_verdicts(path) == rig.loop.session.verdicts


def test_resume_after_a_restart_keeps_every_game_and_entry(tmp_path):
    path, rig = _journal_with_a_game(tmp_path, moves=3)
    again = StubRig(FLIPOP, path, seed=1, troubles=False, max_moves=3)
    assert again.loop.session.verdicts == rig.loop.session.verdicts
    assert again.opened.moved_aside is None


def test_an_older_journal_without_a_version_is_accepted(tmp_path):
    path, rig = _journal_with_a_game(tmp_path, moves=2)
    db = sqlite3.connect(path)
    db.execute("PRAGMA user_version = 0")
    db.commit()
    db.close()
    opened = open_journal(path, FLIPOP, rig.setup)
    assert opened.moved_aside is None and opened.session.verdicts == rig.loop.session.verdicts
    assert opened.journal.db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION


# --- export and replay read journals only ------------------------------------------------------
@pytest.mark.parametrize("what", ["empty", "other database", "text"])
def test_export_and_replay_never_write_into_a_file_that_is_not_a_journal(what, tmp_path, capsys):
    from controller.cli import main

    path = tmp_path / "file.sqlite"
    if what == "empty":
        path.write_bytes(b"")
    elif what == "other database":
        db = sqlite3.connect(path)
        db.execute("CREATE TABLE photos (name TEXT)")
        db.commit()
        db.close()
    else:
        path.write_text("game: colorpop\n")
    before = path.read_bytes()
    assert main(["export", str(path)]) == 2
    assert main(["export", "--list", str(path)]) == 2
    err = capsys.readouterr().err
    assert "not a referee journal" in err or "empty" in err
    assert "Traceback" not in err
    assert path.read_bytes() == before
    if what != "text":
        assert main(["replay", str(path)]) == 2
        assert path.read_bytes() == before


def test_export_and_replay_of_a_journal_leave_it_byte_for_byte(tmp_path, capsys):
    from controller.cli import main

    path, rig = _journal_with_a_game(tmp_path, moves=3)
    copy = tmp_path / "copy.sqlite"
    shutil.copy(path, copy)
    before = copy.read_bytes()
    assert main(["export", str(copy)]) == 0
    assert main(["replay", "--json", str(copy)]) == 0
    out = capsys.readouterr().out
    assert '"verdict": "legal"' in out
    assert copy.read_bytes() == before
