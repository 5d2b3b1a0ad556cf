"""A journal's id: made with the file, given once to a journal from before ids, kept when the file
is written again from memory, new when a damaged journal is moved aside; the publisher sends it
with every entry and the club tells a table's journals apart by it (docs/mqtt.md)."""

from __future__ import annotations

import json
import logging
import sqlite3
from pathlib import Path
from types import SimpleNamespace

import pytest

from controller.club.config import MqttConfig
from controller.club.journal_feed import JournalFeed
from controller.club.payloads import BadPayload, ack_payload, encode, parse_ack, parse_message, verdict_payload
from controller.club.publisher import TablePublisher
from controller.club.store import ClubStore
from controller.record import setup_from_mapping
from controller.service.journal import JOURNAL_ID, SCHEMA, Journal, JournalDamaged
from controller.service.session import open_journal

FLIPOP = {"game": "flipop"}


def _old_journal(path: Path, games: int) -> None:
    """A journal as a referee from before journal ids wrote it: its three tables, no id."""
    db = sqlite3.connect(path)
    db.executescript(SCHEMA)
    db.execute("PRAGMA user_version = 1")
    for game_id in range(1, games + 1):
        db.execute("INSERT INTO games (id, setup, started_at) VALUES (?, ?, 0)", (game_id, json.dumps(FLIPOP)))
        db.execute(
            "INSERT INTO entries (game_id, seq, kind, payload, verdict, at) VALUES (?, 0, 'action', 'new-game', ?, 0)",
            (game_id, json.dumps({"verdict": "action", "action": "new-game"})),
        )
    db.commit()
    db.close()


def test_a_journal_gets_an_id_when_it_is_made_and_keeps_it(tmp_path):
    journal = Journal(tmp_path / "j.sqlite")
    made = journal.id
    assert made is not None and JOURNAL_ID.fullmatch(made) and len(made) == 32 and journal.id_from_game == 1
    journal.new_game(FLIPOP)
    journal.close()
    again = Journal(tmp_path / "j.sqlite")
    assert (again.id, again.id_from_game) == (made, 1)
    again.close()
    assert Journal(tmp_path / "j.sqlite", read_only=True).id == made
    assert Journal(tmp_path / "other.sqlite").id != made  # every journal its own


def test_a_journal_from_before_ids_is_given_one_when_opened_and_keeps_it(tmp_path):
    path = tmp_path / "old.sqlite"
    _old_journal(path, games=2)
    before = path.read_bytes()
    looked_at = Journal(path, read_only=True)  # export, replay: never a byte changed
    assert looked_at.id is None
    looked_at.close()
    assert path.read_bytes() == before
    journal = Journal(path)
    given = journal.id
    assert given is not None and journal.id_from_game == 3  # games 1 and 2 were published without one
    journal.close()
    again = Journal(path)
    assert (again.id, again.id_from_game) == (given, 3)  # durably: the same id at every open
    feed = JournalFeed(path, "t1")
    assert [feed.journal_for(g) for g in (1, 2, 3, 4)] == [None, None, given, given]
    feed.close()
    again.close()


def test_referee_export_list_names_the_journal_as_the_club_does(tmp_path, capsys):
    from controller.cli import main

    path = tmp_path / "old.sqlite"
    _old_journal(path, games=2)
    assert main(["export", "--list", str(path)]) == 0
    assert capsys.readouterr().out.startswith("journal without an id")  # read-only: none given
    journal = Journal(path)
    journal.close()
    assert main(["export", "--list", str(path)]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert first == (
        f"journal {journal.id} (a club names it by its first 8 digits, {journal.id[:8]}); "
        "games before 3 were published without it"
    )


def test_a_journal_id_that_is_garbled_is_a_damaged_journal(tmp_path):
    path = tmp_path / "j.sqlite"
    Journal(path).close()
    db = sqlite3.connect(path)
    db.execute("UPDATE journal_id SET id = 'not an id!'")
    db.commit()
    db.close()
    with pytest.raises(JournalDamaged, match="id is garbled"):
        Journal(path)


def test_a_journal_written_again_from_memory_keeps_its_id_and_the_feed_follows_it(tmp_path):
    path = tmp_path / "j.sqlite"
    journal = Journal(path)
    made = journal.id
    game = journal.new_game(FLIPOP)
    journal.append(game, "action", "new-game", {"verdict": "action"})
    feed = JournalFeed(path, "t1")
    assert feed.journal_for(game) == made
    feed.mark((game, 0))
    path.unlink()  # deleted while running: the referee writes it again from memory
    journal.append(game, "action", "end-by-agreement", {"verdict": "action"})
    assert journal.take_notices() and Journal(path, read_only=True).id == made
    journal.append(game, "action", "new-game", {"verdict": "action"})
    assert [(e.game_id, e.seq) for e in feed.after((game, 0), 10)] == [(game, 1), (game, 2)]  # the new file
    assert feed.delivered() == (game, 0)  # the club's mark carried over
    feed.close()
    journal.close()


def test_a_damaged_journal_is_moved_aside_and_the_fresh_one_has_a_new_id(tmp_path):
    path = tmp_path / "j.sqlite"
    setup = setup_from_mapping(FLIPOP, "test")
    first = open_journal(path, FLIPOP, setup)
    old = first.journal.id
    first.journal.close()
    with open(path, "r+b") as f:  # a garbled header: SQLite cannot read it any more
        f.write(b"garbage" * 20)
    second = open_journal(path, FLIPOP, setup)
    assert second.moved_aside is not None and "moved aside" in second.moved_aside
    assert second.session.game_id == 1  # game numbers start again...
    assert second.journal.id not in (None, old)  # ...in a journal the club tells apart
    second.journal.close()


# --- the wire ----------------------------------------------------------------------------------
def test_the_journal_travels_with_verdicts_and_acknowledgements():
    body = verdict_payload("t1", 1, 0, {"verdict": "setup-ok", "index": 0}, 1.0, "ab12") | {
        "players": 1,
        "names": ["Ann"],
    }
    assert parse_message("referee/t1/verdict", encode(body)).journal == "ab12"
    assert parse_message("referee/t1/verdict", encode({**body, "journal": None})).journal == ""
    for bad in ["", "a/b", "x" * 65, 7]:
        with pytest.raises(BadPayload, match="journal"):
            parse_message("referee/t1/verdict", encode({**body, "journal": bad}))
    ack = encode(ack_payload("t1", [(1, 0)], False, 1.0, "ab12"))
    assert parse_ack("referee/t1/ack", ack, "referee/t1/ack") == ("ab12", [(1, 0)], False)
    legacy = encode(ack_payload("t1", [(1, 0)], True, 1.0, ""))
    assert parse_ack("referee/t1/ack", legacy, "referee/t1/ack") == (None, [(1, 0)], True)


def test_the_table_moves_its_mark_only_for_acknowledgements_of_its_own_journal(tmp_path):
    journal = Journal(tmp_path / "j.sqlite")
    game = journal.new_game(FLIPOP)
    for _ in range(3):
        journal.append(game, "action", "new-game", {"verdict": "action"})
    config = MqttConfig(host="127.0.0.1", port=1, table="t1")
    publisher = TablePublisher(config, tmp_path / "j.sqlite", FLIPOP)
    publisher.feed = JournalFeed(tmp_path / "j.sqlite", "t1")
    start = publisher.feed.delivered()
    for seq in range(3):
        publisher._unacked[(game, seq)] = False

    def ack(journal_id: str, seqs: list[int]) -> None:
        payload = encode(ack_payload("t1", [(game, s) for s in seqs], False, 1.0, journal_id))
        publisher._on_ack(None, None, SimpleNamespace(topic="referee/t1/ack", payload=payload))

    ack("f" * 32, [0, 1])  # the club speaking of another journal of this table (the one before)
    assert publisher.feed.delivered() == start
    ack(journal.id, [0, 1])
    assert publisher.feed.delivered() == (game, 1)
    ack("", [2])  # a club from before journal ids names none: believed, as before
    assert publisher.feed.delivered() == (game, 2)
    publisher.feed.close()
    journal.close()


# --- the club ----------------------------------------------------------------------------------
def _verdict(table, journal, game_id, seq, names=("Ann", "Bob"), result=None, **verdict):
    body = verdict_payload(table, game_id, seq, verdict or {"index": seq, "verdict": "legal", "seat": 0}, 1.0, journal)
    if seq == 0:
        body |= {"players": len(names), "names": list(names)}
    if result is not None:
        body["result"] = result
    return parse_message(f"referee/{table}/verdict", encode(body))


def _game(table, journal, game_id, names, winner, last=4):
    result = {"finished": True, "winners": [winner], "scores": [0] * len(names)}
    return [_verdict(table, journal, game_id, n, names) for n in range(last)] + [
        _verdict(table, journal, game_id, last, names, result=result)
    ]


def _played(store: ClubStore) -> dict[str, tuple[int, int]]:
    return {s["name"]: (s["played"], s["wins"]) for s in store.standings()}


def test_a_replaced_journals_games_count_beside_the_old_ones(tmp_path):
    store = ClubStore(tmp_path / "c.sqlite")
    old, new = "a" * 32, "b" * 32
    store.apply(_game("t1", old, 1, ["Ann", "Bob"], 0) + _game("t1", old, 2, ["Ann", "Bob"], 0))
    changes = store.apply(_game("t1", new, 1, ["Ann", "Bob"], 1) + _game("t1", new, 2, ["Ann", "Bob"], 1)[:3])
    assert set(changes.acks) == {("t1", new)}  # acknowledged as the new journal's entries
    assert store.counts["conflicts"] == 0 and store.counts["duplicates"] == 0
    assert _played(store) == {"Ann": (3, 2), "Bob": (3, 1)}
    store.apply(_game("t1", new, 2, ["Ann", "Bob"], 1)[3:])
    assert _played(store) == {"Ann": (4, 2), "Bob": (4, 2)}
    assert store.verdicts_of("t1", 1, old) == store.verdicts_of("t1", 1, new) == [0, 1, 2, 3, 4]
    assert store.table_view("t1")["last_verdict_seq"] == [2, 4]  # the new journal's, though game 2 < the old's
    store.close()
    again = ClubStore(tmp_path / "c.sqlite")  # kept apart across restarts too
    assert _played(again) == {"Ann": (4, 2), "Bob": (4, 2)}
    again.apply(_game("t1", new, 1, ["Ann", "Bob"], 1))
    assert again.counts["duplicates"] == 5 and _played(again) == {"Ann": (4, 2), "Bob": (4, 2)}


def test_a_new_journal_id_brings_nothing_without_its_verdicts(tmp_path, caplog):
    caplog.set_level(logging.WARNING, "referee.club")
    store = ClubStore(tmp_path / "c.sqlite")
    genuine = "a" * 32
    store.apply(_game("t1", genuine, 1, ["Ann", "Bob"], 0))
    before = _played(store)
    forged = "f0" * 16
    win = {"finished": True, "winners": [1], "scores": [0, 0]}
    store.apply([_verdict("t1", forged, 1, 4, result=win)])  # a lone result in an invented journal
    store.apply([_verdict("t1", forged, 2, 0), _verdict("t1", forged, 2, 3, result=win)])  # a chain with holes
    result = {"v": 1, "table": "t1", "journal": forged, "game_id": 3, "seq": 4, "game": "flipop"}
    result |= {"names": ["Ann", "Bob"], "result": win}
    store.apply([parse_message("referee/t1/result", encode(result))])  # the retained topic, nothing behind it
    assert _played(store) == before
    assert f"refused a result for game 3 of journal {forged[:8]}: the club holds none of that game's verdicts" in (
        caplog.text
    )
    later = {"finished": True, "winners": [1], "scores": [0, 0]}  # the genuine journal's game, rewritten: no
    store.apply([_verdict("t1", genuine, 1, 4, result=later)])
    assert _played(store) == before and store.counts["conflicts"] == 1


#: The club's database as `referee club` wrote it before journal ids (user_version 0).
OLD_CLUB_SCHEMA = """
CREATE TABLE tables (name TEXT PRIMARY KEY, state TEXT, online INTEGER, last_verdict TEXT, seen REAL NOT NULL);
CREATE TABLE verdicts (table_name TEXT NOT NULL, game_id INTEGER NOT NULL, seq INTEGER NOT NULL, body TEXT NOT NULL,
    received REAL NOT NULL, PRIMARY KEY (table_name, game_id, seq));
CREATE TABLE results (table_name TEXT NOT NULL, game_id INTEGER NOT NULL, seq INTEGER NOT NULL, body TEXT NOT NULL,
    received REAL NOT NULL, PRIMARY KEY (table_name, game_id));
CREATE TABLE games (table_name TEXT NOT NULL, game_id INTEGER NOT NULL, names TEXT NOT NULL,
    PRIMARY KEY (table_name, game_id));
CREATE TABLE disputes (table_name TEXT NOT NULL, game_id INTEGER NOT NULL, seq INTEGER NOT NULL, why TEXT NOT NULL,
    at REAL NOT NULL, PRIMARY KEY (table_name, game_id, seq));
"""


def test_a_club_database_from_before_journal_ids_is_migrated_and_reads_as_before(tmp_path):
    path = tmp_path / "c.sqlite"
    db = sqlite3.connect(path)
    db.executescript(OLD_CLUB_SCHEMA)
    chain = _game("t1", None, 1, ["Ann", "Bob"], 0)  # a game from a table from before ids, counted
    for m in chain:
        db.execute("INSERT INTO verdicts VALUES ('t1', 1, ?, ?, 0)", (m.body["seq"], m.text))
    db.execute("INSERT INTO games VALUES ('t1', 1, ?)", (json.dumps(["Ann", "Bob"]),))
    counted = {"table": "t1", "game_id": 1, "seq": 4, "names": ["Ann", "Bob"], "result": chain[-1].body["result"]}
    db.execute("INSERT INTO results VALUES ('t1', 1, 4, ?, 0)", (json.dumps(counted),))
    half = _game("t1", None, 2, ["Ann", "Bob"], 1)[:2]  # game 2: disputed at entry 1, half held
    for m in half:
        db.execute("INSERT INTO verdicts VALUES ('t1', 2, ?, ?, 0)", (m.body["seq"], m.text))
    db.execute("INSERT INTO games VALUES ('t1', 2, ?)", (json.dumps(["Ann", "Bob"]),))
    db.execute("INSERT INTO disputes VALUES ('t1', 2, 1, 'a second, different verdict', 0)")
    db.commit()
    db.close()

    store = ClubStore(path)
    assert _played(store) == {"Ann": (1, 1), "Bob": (1, 0)}
    assert store.verdicts_of("t1", 1, "") == [0, 1, 2, 3, 4]
    store.apply(chain + _game("t1", None, 2, ["Ann", "Bob"], 1))  # the same again: held; game 2 still disputed
    assert store.counts["duplicates"] == 7 and _played(store) == {"Ann": (1, 1), "Bob": (1, 0)}
    store.apply(_game("t1", "c" * 32, 1, ["Ann", "Bob"], 1))  # the table, upgraded, on a fresh journal
    assert _played(store) == {"Ann": (2, 1), "Bob": (2, 1)}
    store.close()
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA user_version").fetchone()[0] == 1
    assert "journal" in [c[1] for c in db.execute("PRAGMA table_info(verdicts)")]
    assert not db.execute("SELECT name FROM sqlite_master WHERE name LIKE '%before_journals'").fetchall()
    db.close()
    assert _played(ClubStore(path)) == {"Ann": (2, 1), "Bob": (2, 1)}  # opened again: nothing to migrate


def test_a_journal_from_before_ids_goes_on_counting_at_the_club_after_the_upgrade(broker, tmp_path):
    """An older referee published half of game 1 (no journal id) and the club stored it; the newer
    referee gives the journal its id, finishes game 1 as the game the club holds, and plays game 2
    under the id: both count, nothing disputed."""
    from mqtt_helpers import wait_for

    from controller.club.server import BrokerAddress, ClubServer
    from simulation.club_table import RecordTable

    record = Path(__file__).resolve().parent.parent / "examples" / "colorpop-standard.yaml"
    names = ("Ann", "Bob", "Cy")
    path = tmp_path / "t1.sqlite"
    old = RecordTable(record, path)  # what the older referee judged: five entries of game 1
    for _ in range(5):
        old.step()
    old.close()
    db = sqlite3.connect(path)
    db.execute("DROP TABLE journal_id")  # as an older referee wrote it: no id
    db.commit()
    db.close()
    legacy = Journal(path, read_only=True)
    entries = legacy.entries(1)
    legacy.close()
    store = ClubStore(tmp_path / "club.sqlite")  # what the club stored from the older referee
    sent = []
    for e in entries:
        body = verdict_payload("t1", 1, e.seq, e.verdict, 1.0)
        if e.seq == 0:
            body |= {"players": 3, "names": list(names)}
        sent.append(parse_message("referee/t1/verdict", encode(body)))
    store.apply(sent)
    store.close()
    feed = JournalFeed(path, "t1")
    feed.mark((1, len(entries) - 1))  # and acknowledged
    feed.close()

    club = ClubServer(
        BrokerAddress("127.0.0.1", broker.port, client_id="club-upgrade"),
        ClubStore(tmp_path / "club.sqlite"),
        host="127.0.0.1",
        port=0,
    ).start()
    config = MqttConfig(host="127.0.0.1", port=broker.port, table="t1", keepalive=5, names=names)
    table = RecordTable(record, path, config)
    try:
        assert table.loop.session.game_id == 1 and (table.journal.id, table.journal.id_from_game) != (None, 1)
        assert table.journal.id_from_game == 2  # game 1, resumed, stays the game the club knows
        while not table.finished:
            table.step()
        for _ in range(len(table.entries)):  # game 2, under the journal's id
            table.step()
        wait_for(lambda: table.publisher.wait_delivered(table.last_point, 0.1), timeout=30, what="both games stored")
        wait_for(lambda: all(s["played"] == 2 for s in club.store.standings()), timeout=10, what="both games counted")
        assert len(club.store.standings()) == 3 and club.store.counts["conflicts"] == 0
        game_1 = [e.seq for e in table.journal.entries(1)]  # its closing new-game action included
        assert club.store.verdicts_of("t1", 1, "") == game_1 and len(game_1) > len(entries)
        assert club.store.verdicts_of("t1", 2, table.journal.id) == list(range(table.last_point[1] + 1))
    finally:
        table.close()
        club.stop()
