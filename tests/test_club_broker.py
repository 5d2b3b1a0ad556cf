"""The club and its tables through a real Mosquitto: live play, a broker restart, bad payloads."""

from __future__ import annotations

import json
import logging
import sqlite3
import urllib.request
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest
from mqtt_helpers import wait_for

from controller.club.config import MqttConfig
from controller.club.payloads import verdict_words
from controller.club.server import BrokerAddress, ClubServer
from controller.club.store import ClubStore
from controller.commands.replay import judge_record
from simulation.club_table import RecordTable

pytestmark = pytest.mark.slow  # every test here takes seconds

ROOT = Path(__file__).resolve().parent.parent
COLORPOP = ROOT / "examples" / "colorpop-standard.yaml"
NAMES = ("Ann", "Bob", "Cy")


def _club(broker, tmp_path, **kw) -> ClubServer:
    store = ClubStore(tmp_path / "club.sqlite", **kw)
    server = ClubServer(
        BrokerAddress("127.0.0.1", broker.port, client_id=f"club-{tmp_path.name}"), store, host="127.0.0.1", port=0
    ).start()
    wait_for(server.listener.connected.is_set, what="the club to subscribe")
    return server


def _table(broker, tmp_path, name="t1", record=COLORPOP, names=NAMES) -> RecordTable:
    config = MqttConfig(host="127.0.0.1", port=broker.port, table=name, keepalive=5, names=names)
    return RecordTable(record, tmp_path / f"{name}.sqlite", config)


def _get(server: ClubServer, path: str):
    with urllib.request.urlopen(server.url + path, timeout=5) as response:
        body = response.read().decode()
        return json.loads(body) if response.headers.get_content_type() == "application/json" else body


def _seen(server: ClubServer, table: RecordTable, name: str = "t1") -> bool:
    views = {t["table"]: t for t in _get(server, "/api/tables")}
    view = views.get(name)
    return view is not None and view["last_verdict_seq"] == list(table.last_point)


def test_a_game_is_seen_at_the_club_as_it_is_played(broker, tmp_path):
    club = _club(broker, tmp_path)
    table = _table(broker, tmp_path)
    try:
        wanted = [v for v in judge_record(table.record) if "result" not in v]
        for _ in range(3):
            table.step()
        wait_for(lambda: _seen(club, table), what="the club to show the table's third verdict")
        view = {t["table"]: t for t in _get(club, "/api/tables")}["t1"]
        assert view["online"] is True
        assert view["game"] == "colorpop" and view["names"] == list(NAMES)
        assert view["last_verdict"].startswith(NAMES[wanted[2]["seat"]])  # in words, with the player's name
        to_move = table.loop.session.referee.to_move()
        wait_for(lambda: {t["table"]: t for t in _get(club, "/api/tables")}["t1"]["turn"] == to_move, what="turn")
        assert _get(club, "/api/standings")["standings"] == []  # no game finished yet

        while not table.finished:
            table.step()
        wait_for(lambda: _seen(club, table), what="the club to see the last verdict")
        game_id = table.loop.session.game_id
        assert club.store.verdicts_of("t1", game_id) == list(range(len(wanted)))  # every verdict once
        # the illegal move's reason came with its catalogue sentence: the club says it in French too
        with club.store._lock:
            bodies = [json.loads(row[0]) for row in club.store.db.execute("SELECT body FROM verdicts")]
        illegal = next(body for body in bodies if body["verdict"] == "illegal")
        english = illegal["reason"]
        assert illegal["said"]["reason"]["m"] and english in verdict_words(illegal, list(NAMES), "en")
        french = verdict_words(illegal, list(NAMES), "fr")
        assert english not in french and "jeton" in french, french
        result = judge_record_result(table)
        standings = wait_for(lambda: _get(club, "/api/standings")["standings"], what="the standings")
        winner = NAMES[result["winners"][0]]
        assert standings[0]["name"] == winner and standings[0]["points"] == 1.0 and standings[0]["wins"] == 1
        assert {s["name"] for s in standings} == set(NAMES)
        assert all(s["played"] == 1 for s in standings)
        csv = _get(club, "/standings.csv")
        assert csv.splitlines()[0].startswith("rank,name,played,wins,draws,losses,points")
        assert csv.splitlines()[1].startswith(f"1,{winner},1,1,0,0,1,")
        page = _get(club, "/")
        assert "EventSource" in page and "<form" not in page
    finally:
        table.close()
        club.stop()


def judge_record_result(table: RecordTable) -> dict:
    return [v for v in judge_record(table.record) if "result" in v][0]["result"]


def test_the_page_is_told_of_each_change_as_it_happens(broker, tmp_path):
    club = _club(broker, tmp_path)
    table = _table(broker, tmp_path)
    try:
        stream = urllib.request.urlopen(club.url + "/events", timeout=5)
        first = stream.readline().decode()
        assert first.startswith("event: ")
        table.step()
        table.step()
        lines: list[str] = []
        while not any(line.startswith("data:") and '"last_verdict_seq": [1, 1]' in line for line in lines):
            lines.append(stream.readline().decode())
        data = json.loads(next(line for line in lines if '"last_verdict_seq": [1, 1]' in line)[5:])
        assert data["table"] == "t1" and data["online"] is True
        stream.close()
    finally:
        table.close()
        club.stop()


def test_a_broker_restart_mid_game_loses_and_repeats_no_verdict(broker, tmp_path):
    club = _club(broker, tmp_path)
    table = _table(broker, tmp_path)
    try:
        for _ in range(5):
            table.step()
        wait_for(lambda: _seen(club, table), what="the first five verdicts at the club")
        broker.stop()
        for _ in range(6):  # judged while the broker is away: they wait in the journal
            table.step()
        journal = sqlite3.connect(tmp_path / "t1.sqlite")
        mark = journal.execute("SELECT game_id, seq FROM mqtt_delivered WHERE table_name = 't1'").fetchone()
        assert tuple(mark) < table.last_point
        journal.close()
        broker.start()
        while not table.finished:
            table.step()
        wait_for(lambda: _seen(club, table), timeout=40, what="the club to catch up after the restart")
        game_id, last = table.last_point
        assert club.store.verdicts_of("t1", game_id) == list(range(last + 1))
        assert club.store.counts["gaps"] == 0
        wait_for(lambda: _get(club, "/api/standings")["standings"], what="the standings after the restart")
        assert table.publisher.wait_delivered(table.last_point)
    finally:
        table.close()
        club.stop()


def test_bad_payloads_from_a_rogue_client_are_ignored_with_one_log_line_each(broker, tmp_path, caplog):
    club = _club(broker, tmp_path)
    rogue = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="rogue")
    rogue.connect("127.0.0.1", broker.port)
    rogue.loop_start()
    bad = [
        ("referee/rogue/verdict", b"not json at all"),
        ("referee/rogue/verdict", b'{"v": 1, "game_id": 1}'),
        ("referee/rogue/verdict", b'{"v": 1, "game_id": -4, "seq": 0, "verdict": "legal"}'),
        ("referee/rogue/state", b'{"v": 99, "game": "colorpop"}'),
        ("referee/rogue/state", b"[1, 2, 3]"),
        (
            "referee/rogue/result",
            b'{"v": 1, "game_id": 1, "seq": 2, "game": "x", "names": ["a"], "result": '
            b'{"finished": true, "winners": [7]}}',
        ),
        ("referee/rogue/online", b'"yes"'),
        ("referee/rogue/state", b"\xff\xfe\x00garbage"),
        ("referee/rogue/state", b"{" + b" " * 200_000 + b"}"),
        ("referee/rogue/verdict", b'{"v": 1, "game_id": 1, "seq": NaN, "verdict": "legal"}'),
        ("referee/rogue/verdict", b'{"v": 1, "game_id": 1, "seq": 99999999999999999999999, "verdict": "legal"}'),
        ("referee/rogue/state", b'{"v": 1, "game": "flipop", "game_id": 1, "faults": [], "winners": ["x"]}'),
    ]
    try:
        with caplog.at_level(logging.WARNING, logger="referee.club"):
            for topic, payload in bad:
                rogue.publish(topic, payload, qos=1).wait_for_publish(5)
            for topic in ("referee/rogue/other", "referee/rogue/deep/verdict"):  # the club does not even listen
                rogue.publish(topic, b"{}", qos=1).wait_for_publish(5)
            rogue.publish("referee/rogue/online", b"true", qos=1).wait_for_publish(5)
            wait_for(lambda: _get(club, "/api/tables"), what="the one good message")
        ignored = [r for r in caplog.records if r.getMessage().startswith("ignored a message on")]
        assert len(ignored) == len(bad)
        assert club.store.counts["ignored"] == len(bad)
        assert all(len(r.getMessage()) < 300 for r in ignored)  # the huge payload is not echoed
        tables = _get(club, "/api/tables")
        assert [t["table"] for t in tables] == ["rogue"] and tables[0]["online"] is True and tables[0]["game"] is None
    finally:
        rogue.loop_stop()
        rogue.disconnect()
        club.stop()


def test_games_judged_before_the_broker_is_first_reached_are_all_delivered(broker, tmp_path):
    club = _club(broker, tmp_path)  # the club's session is on the broker (persistent) ...
    broker.stop()  # ... which is down when the table starts
    table = _table(broker, tmp_path)
    try:
        while not table.finished:
            table.step()
        first_game = table.loop.session.game_id
        table.step()  # a new game, its setup judged
        table.step()
        broker.start()
        wait_for(lambda: _seen(club, table), timeout=40, what="the club to receive both games")
        # every board of game 1 and the new-game action that closed it, then game 2's first two boards
        assert club.store.verdicts_of("t1", first_game) == list(range(len(table.entries) + 1))
        assert club.store.verdicts_of("t1", first_game + 1) == [0, 1]
        wait_for(lambda: _get(club, "/api/standings")["standings"], what="game 1's result in the standings")
    finally:
        table.close()
        club.stop()
