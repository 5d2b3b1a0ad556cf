"""The club's store, payload checks and the `mqtt:` config section, without a broker."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.club.config import validate_mqtt
from controller.club.journal_feed import JournalFeed
from controller.club.payloads import BadPayload, encode, parse_message, result_payload, verdict_payload, verdict_words
from controller.club.store import ClubStore, Points
from controller.errors import ConfigError, RefereeError
from controller.service.journal import Journal


def _verdict(table: str, game_id: int, seq: int, **verdict):
    body = verdict_payload(table, game_id, seq, verdict or {"index": seq, "verdict": "legal", "seat": 0}, 1.0)
    return parse_message(f"referee/{table}/verdict", encode(body))


def _result(table: str, game_id: int, names: list[str], winners: list[int], finished: bool = True, seq: int = 9):
    result = {"finished": finished, "scores": [0] * len(names)}
    if finished:
        result["winners"] = winners
    body = result_payload(table, game_id, seq, {"game": "flipop"}, names, result, 1.0)
    return parse_message(f"referee/{table}/result", encode(body))


def test_a_verdict_delivered_twice_is_kept_once(tmp_path):
    store = ClubStore(tmp_path / "c.sqlite")
    store.apply([_verdict("t1", 1, 0), _verdict("t1", 1, 1)])
    store.apply([_verdict("t1", 1, 1), _verdict("t1", 1, 2)])
    assert store.verdicts_of("t1", 1) == [0, 1, 2]
    assert store.counts["duplicates"] == 1 and store.counts["verdicts"] == 3
    assert store.table_view("t1")["last_verdict_seq"] == [1, 2]


def test_standings_add_up_a_players_results_across_tables_with_the_clubs_points(tmp_path):
    store = ClubStore(tmp_path / "c.sqlite", Points.parse("win=3,draw=1,loss=0"))
    store.apply(
        [
            _result("t1", 1, ["Ann", "Bob"], [0]),  # Ann wins
            _result("t2", 1, ["Cy", "Ann"], [0, 1]),  # a draw
            _result("t2", 2, ["Cy", "Ann"], [], finished=False),  # not finished: not counted
            _result("t3", 4, ["Bob", "Cy", "Dee"], [2]),
        ]
    )
    rows = {s["name"]: s for s in store.standings()}
    assert rows["Ann"] == {**rows["Ann"], "played": 2, "wins": 1, "draws": 1, "losses": 0, "points": 4.0}
    assert rows["Ann"]["tables"] == ["t1", "t2"]
    assert rows["Bob"]["points"] == 0.0 and rows["Bob"]["losses"] == 2
    assert rows["Cy"]["points"] == 1.0 and rows["Dee"]["points"] == 3.0
    assert [s["name"] for s in store.standings()][:2] == ["Ann", "Dee"]
    store.close()
    again = ClubStore(tmp_path / "c.sqlite", Points.parse("win=3,draw=1,loss=0"))  # kept across restarts
    assert again.standings() == store.standings()
    assert again.standings_csv().splitlines()[1] == "1,Ann,2,1,1,0,4,t1 t2"


def test_a_later_result_of_the_same_game_replaces_the_earlier(tmp_path):
    store = ClubStore(tmp_path / "c.sqlite")
    store.apply([_result("t1", 1, ["Ann", "Bob"], [0], seq=5)])
    store.apply([_result("t1", 1, ["Ann", "Bob"], [1], seq=6)])  # a reveal changed the ranking
    store.apply([_result("t1", 1, ["Ann", "Bob"], [0], seq=5)])  # the old one again: ignored
    assert [(s["name"], s["wins"]) for s in store.standings()] == [("Bob", 1), ("Ann", 0)]


@pytest.mark.parametrize("text", ["win", "win=x", "tie=1", "win=1,,"])
def test_points_are_checked(text):
    with pytest.raises(RefereeError):
        Points.parse(text)


def test_payloads_that_a_table_would_never_send_are_refused():
    good = encode(verdict_payload("t1", 1, 0, {"index": 0, "verdict": "setup-ok"}, 5.0))
    assert parse_message("referee/t1/verdict", good).body["seq"] == 0
    for topic, payload in [
        ("referee/t1/verdict", b"{"),
        ("referee/t1/verdict", encode({"v": 2, "game_id": 1, "seq": 0, "verdict": "legal"})),
        ("referee/t1/verdict", encode({"v": 1, "game_id": 1, "seq": True, "verdict": "legal"})),
        ("referee/t1/verdict", encode({"v": 1, "game_id": 1, "seq": 0, "verdict": "won"})),
        ("referee/t1/online", b"1"),
        ("referee/t1", b"true"),
        ("other/t1/online", b"true"),
        ("referee/t1/state", b" " * 70_000),
        ("referee/<b>x</b>/online", b"true"),
    ]:
        with pytest.raises(BadPayload):
            parse_message(topic, payload)


def test_verdict_words_use_the_players_names():
    words = verdict_words({"verdict": "legal", "seat": 1, "move": "remove B x3 at E3"}, ["Ann", "Bob"])
    assert words == "Bob: legal move, remove B x3 at E3"
    assert "put the board back" in verdict_words({"verdict": "illegal", "seat": 0, "reason": "no"}, ["Ann"])


def _mqtt(section, players=2):
    return validate_mqtt(section, base=Path("."), source="config.yaml", players=players)


def test_the_mqtt_section_is_checked_and_never_holds_a_password(tmp_path):
    assert _mqtt(None) is None
    config = _mqtt({"host": "broker.local"})
    assert (config.port, config.prefix, config.keepalive) == (1883, "referee", 30)
    assert config.table  # the host name, as a topic level
    assert _mqtt({"host": "b", "tls": True}).port == 8883
    with pytest.raises(ConfigError, match="password_file") as info:
        _mqtt({"host": "b", "username": "t1", "password": "hunter2-secret"})
    assert "hunter2-secret" not in str(info.value)
    for section, key in [
        ({"host": "b", "table": "a/b"}, "mqtt.table"),
        ({"host": "b", "names": ["Ann"]}, "mqtt.names"),
        ({"host": "b", "username": "u", "password_file": str(tmp_path / "missing")}, "mqtt.password_file"),
        ({"host": "b", "port": 0}, "mqtt.port"),
        ({"host": "b", "colour": 1}, "mqtt.colour"),
        ({}, "mqtt.host"),
    ]:
        with pytest.raises(ConfigError, match=key.replace(".", r"\.")):
            _mqtt(section)


def test_a_journal_never_published_starts_at_its_latest_game(tmp_path):
    journal = Journal(tmp_path / "j.sqlite")
    old = journal.new_game({"game": "flipop"})
    journal.append(old, "action", "new-game", {"verdict": "action"})
    new = journal.new_game({"game": "flipop"})
    journal.append(new, "action", "end-by-agreement", {"verdict": "action"})
    feed = JournalFeed(tmp_path / "j.sqlite", "t1")
    assert feed.delivered() == (new, -1)
    assert [(e.game_id, e.seq) for e in feed.after(feed.delivered(), 10)] == [(new, 0)]
    feed.mark((new, 0))
    assert JournalFeed(tmp_path / "j.sqlite", "t1").delivered() == (new, 0)
    assert feed.after((new, 0), 10) == []


@pytest.mark.parametrize(
    "args",
    [
        ["--broker", "host:port"],
        ["--broker", ":1883"],
        ["--points", "win=lots"],
        ["--username", "club", "--password-file", "/nonexistent/club-password"],
        ["--prefix", "a/+/b"],
    ],
)
def test_referee_club_refuses_bad_options_with_a_sentence(args, capsys, tmp_path):
    from controller.cli import main

    assert main(["club", "--db", str(tmp_path / "c.sqlite"), *args]) == 2
    err = capsys.readouterr().err
    assert err.startswith("referee: --") and "Traceback" not in err
