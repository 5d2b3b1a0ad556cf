"""Probes of the club through a real Mosquitto set up as docs/mqtt.md says (its ACL and its client-id
binding, read from the docs themselves), with tables that hold real credentials (issue 30):
forged, rewritten and inflated results, a verdict that contradicts one the club holds, client-id
takeover, and a broker killed with the club's messages queued."""

from __future__ import annotations

import json
import logging
import re
import time
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest
from mqtt_helpers import Broker, wait_for

from controller.club.config import MqttConfig
from controller.club.server import BrokerAddress, ClubServer
from controller.club.store import ClubStore
from controller.commands.replay import judge_record
from controller.record import parse_record
from controller.service.journal import Journal
from controller.service.session import export_record
from simulation.club_table import RecordTable

pytestmark = pytest.mark.slow  # every test here takes seconds

ROOT = Path(__file__).resolve().parent.parent
COLORPOP = ROOT / "examples" / "colorpop-standard.yaml"
FLIPOP = ROOT / "examples" / "flipop-standard.yaml"
PASSWORDS = {"club": "club-pw-Zp3k", "t1": "t1-pw-Xq7w", "t2": "t2-pw-Lm4r"}


def docs_broker() -> tuple[str, tuple[str, ...]]:
    """The ACL file and the client-id setting of docs/mqtt.md section 6, as the docs give them."""
    text = (ROOT / "docs" / "mqtt.md").read_text()
    blocks = re.findall(r"```conf\n(.*?)```", text, re.S)
    acl = next(b for b in blocks if "pattern write" in b)
    settings = tuple(
        line for b in blocks for line in b.splitlines() if line.startswith(("use_username_as_clientid", "max_queued"))
    )
    return acl, settings


@pytest.fixture
def secured(tmp_path):
    folder = tmp_path / "broker"
    folder.mkdir()
    acl, settings = docs_broker()
    assert "use_username_as_clientid true" in settings
    broker = Broker(folder, users=PASSWORDS, acl=acl, extra=settings).start()
    for user, password in PASSWORDS.items():
        (tmp_path / f"{user}.password").write_text(password + "\n")
    yield broker
    broker.stop()


def _club(broker: Broker, tmp_path: Path, **store) -> ClubServer:
    server = ClubServer(
        BrokerAddress("127.0.0.1", broker.port, username="club", password_file=tmp_path / "club.password"),
        ClubStore(tmp_path / "club.sqlite", **store),
        host="127.0.0.1",
        port=0,
    ).start()
    wait_for(server.listener.connected.is_set, what="the club to log in")
    return server


def _table(broker: Broker, tmp_path: Path, name: str, record: Path, names: tuple[str, ...]) -> RecordTable:
    config = MqttConfig(
        host="127.0.0.1",
        port=broker.port,
        table=name,
        username=name,
        password_file=tmp_path / f"{name}.password",
        keepalive=5,
        names=names,
    )
    return RecordTable(record, tmp_path / f"{name}.sqlite", config)


def _rogue(broker: Broker, user: str, client_id: str, clean: bool = True) -> mqtt.Client:
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=client_id, clean_session=clean)
    client.username_pw_set(user, PASSWORDS[user])
    client.connect("127.0.0.1", broker.port, keepalive=10)
    client.loop_start()
    return client


def _standings(club: ClubServer) -> dict[str, dict]:
    return {s["name"]: s for s in club.store.standings()}


def _expected(journal_path: Path, names: tuple[str, ...]) -> dict[str, tuple[int, int]]:
    """(played, wins) per player, from the table's journal itself (every finished game replayed)."""
    out: dict[str, list[int]] = {}
    journal = Journal(journal_path, read_only=True)
    try:
        for row in journal.games():
            if not journal.entries(row.id):
                continue
            lines = judge_record(parse_record(export_record(journal, row.id)))
            result = next(v for v in lines if "result" in v)["result"]
            if not result.get("finished"):
                continue
            winners = result.get("winners") or []
            for seat, name in enumerate(names):
                played_wins = out.setdefault(name, [0, 0])
                played_wins[0] += 1
                played_wins[1] += int(winners == [seat])
    finally:
        journal.close()
    return {k: tuple(v) for k, v in out.items()}


def _play(table: RecordTable) -> None:
    while not table.finished:
        table.step()


def test_forged_rewritten_and_inflated_results_are_refused_and_logged(secured, tmp_path, caplog):
    caplog.set_level(logging.WARNING, "referee.club")
    club = _club(secured, tmp_path)
    t1 = _table(secured, tmp_path, "t1", COLORPOP, ("Ann", "Bob", "Cy"))
    t2 = _table(secured, tmp_path, "t2", COLORPOP, ("Dee", "Eve", "Fay"))
    rogue = None
    try:
        _play(t1)
        _play(t2)
        wait_for(lambda: len(_standings(club)) == 6, timeout=30, what="both genuine games in the standings")
        genuine = _standings(club)
        assert {n: (s["played"], s["wins"]) for n, s in genuine.items()} == {
            **_expected(tmp_path / "t1.sqlite", ("Ann", "Bob", "Cy")),
            **_expected(tmp_path / "t2.sqlite", ("Dee", "Eve", "Fay")),
        }
        t1.close()  # the thief with t1's password is t1 at the broker now (client ids are user names)
        rogue = _rogue(secured, "t1", "rogue")  # t1's own credentials, from its SD card
        base = {"v": 1, "table": "t1", "game": "colorpop", "variant": "standard", "sent": time.time()}
        for i in range(20):  # results naming t2's players, no game behind them
            body = base | {"game_id": 100 + i, "seq": 5, "names": ["Dee", "Eve", "Fay"]}
            body["result"] = {"finished": True, "winners": [0], "scores": [0, 9, 9], "reason": "forged"}
            rogue.publish("referee/t1/result", json.dumps(body), qos=1).wait_for_publish(5)
        game_id = t1.last_point[0]
        rewrite = base | {"game_id": game_id, "seq": 2**53 - 1, "names": ["Ann", "Bob", "Cy"]}
        loser = next(i for i, n in enumerate(("Ann", "Bob", "Cy")) if genuine[n]["wins"] == 0)
        rewrite["result"] = {"finished": True, "winners": [loser], "scores": [0, 0, 0], "reason": "rewritten"}
        rogue.publish("referee/t1/result", json.dumps(rewrite), qos=1).wait_for_publish(5)
        inflated = base | {"game_id": 900, "seq": 3, "names": [f"p{i:04d}" for i in range(6000)]}
        inflated["result"] = {"finished": True, "winners": [0], "scores": [], "reason": "inflated"}
        rogue.publish("referee/t1/result", json.dumps(inflated), qos=1).wait_for_publish(5)
        # a verdict that contradicts one the club holds, and one with a result far past the game's chain
        held = json.loads(
            club.store.db.execute(
                "SELECT body FROM verdicts WHERE table_name = 't1' AND game_id = ? AND seq = 3", (game_id,)
            ).fetchone()[0]
        )
        rogue.publish("referee/t1/verdict", json.dumps(held | {"verdict": "unchanged"}), qos=1).wait_for_publish(5)
        far = held | {"seq": 2**53 - 1, "result": rewrite["result"]}
        rogue.publish("referee/t1/verdict", json.dumps(far), qos=1).wait_for_publish(5)
        # a journal the table never had: a lone verdict carrying a result, and the retained result
        invented = {"journal": "0" * 32, "seq": 9, "result": rewrite["result"]}
        rogue.publish("referee/t1/verdict", json.dumps(held | invented), qos=1).wait_for_publish(5)
        rogue.publish("referee/t1/result", json.dumps(rewrite | invented), qos=1).wait_for_publish(5)
        wait_for(lambda: club.store.counts["conflicts"] >= 1, what="the contradicting verdict")
        wait_for(lambda: club.store.counts["refused"] >= 24, what="the refusals")
        now = _standings(club)
        assert now == genuine  # no forged win, no rewritten game, nobody added; t1's counted game stays
        said = [r.getMessage() for r in caplog.records if r.getMessage().startswith("table t1: refused")]
        assert any("holds none of that game's verdicts" in m for m in said)
        assert any("second, different verdict" in m for m in said)
        assert any("far ahead" in m for m in said)
        assert club.store.verdicts_of("t1", game_id, "0" * 32) == [9]  # kept, but a lone entry counts for nothing
        assert ("t1", "0" * 32, game_id) not in club.store.results
        assert len(said) <= 8  # 20 forged results: one line, with a count, per kind and minute
        assert "ignored a message on 'referee/t1/result'" in caplog.text  # 6,000 names: not a payload at all
    finally:
        if rogue is not None:
            rogue.loop_stop()
            rogue.disconnect()
        t1.close()
        t2.close()
        club.stop()


def test_a_roster_keeps_a_stolen_password_from_scoring_for_other_tables_players(secured, tmp_path, caplog):
    caplog.set_level(logging.WARNING, "referee.club")
    club = _club(secured, tmp_path, roster={"t1": {"Ann", "Bob", "Cy"}, "t2": {"Dee", "Eve", "Fay"}})
    thief = _table(secured, tmp_path, "t1", COLORPOP, ("Dee", "Eve", "Fay"))  # a whole game, with t2's players
    honest = _table(secured, tmp_path, "t2", COLORPOP, ("Dee", "Eve", "Fay"))
    try:
        _play(thief)
        _play(honest)
        wait_for(lambda: len(_standings(club)) == 3, what="t2's game")
        time.sleep(0.5)
        assert all(s["played"] == 1 for s in _standings(club).values())
        game = f"game 1 of journal {thief.journal.id[:8]}"  # the thief's journal, by its id
        assert f"table t1: refused the result of {game}: Dee, Eve, Fay not on the roster" in caplog.text
    finally:
        thief.close()
        honest.close()
        club.stop()


def test_another_user_cannot_take_a_tables_or_the_clubs_client_id(secured, tmp_path):
    club = _club(secured, tmp_path)
    t2 = _table(secured, tmp_path, "t2", COLORPOP, ("Dee", "Eve", "Fay"))
    thieves = []
    try:
        t2.step()
        wait_for(lambda: (club.store.tables.get("t2") or {}).get("online") is True, what="t2 online")
        for _ in range(3):  # t1's credentials asking for t2's id, then the club's, clean sessions
            thieves.append(_rogue(secured, "t1", "referee-t2"))
            thieves.append(_rogue(secured, "t1", "club", clean=True))
            thieves.append(_rogue(secured, "t1", "referee-club", clean=True))
        time.sleep(1.0)
        assert club.store.tables["t2"]["online"] is True  # t2's Last Will never fired
        _play(t2)
        wait_for(lambda: t2.publisher.wait_delivered(t2.last_point, 0.1), timeout=30, what="t2's game acknowledged")
        game_id, last = t2.last_point
        assert club.store.verdicts_of("t2", game_id) == list(range(last + 1))  # the club's session was kept
    finally:
        for thief in thieves:
            thief.loop_stop()
            thief.disconnect()
        t2.close()
        club.stop()


def test_a_broker_killed_with_the_clubs_messages_queued_loses_none(secured, tmp_path):
    club = _club(secured, tmp_path)
    club.stop()  # away; its persistent session stays at the broker, in memory
    t1 = _table(secured, tmp_path, "t1", COLORPOP, ("Ann", "Bob", "Cy"))
    t2 = _table(secured, tmp_path, "t2", FLIPOP, ("Dee", "Eve"))
    try:
        _play(t1)
        for _ in range(8):
            t2.step()
        time.sleep(1.0)  # every entry is at the broker, queued for the club
        assert t1.publisher.feed.delivered() < t1.last_point  # the broker's PUBACKs moved no mark
        secured.kill()
        secured.start()
        for _ in range(4):
            t2.step()
        club = _club(secured, tmp_path)
        for table in (t1, t2):
            wait_for(
                lambda table=table: table.publisher.wait_delivered(table.last_point, 0.1),
                timeout=45,
                what="every entry stored at the club",
            )
        for name in ("t1", "t2"):
            journal = Journal(tmp_path / f"{name}.sqlite", read_only=True)
            for row in journal.games():
                assert club.store.verdicts_of(name, row.id) == [e.seq for e in journal.entries(row.id)]
            journal.close()
        expected = _expected(tmp_path / "t1.sqlite", ("Ann", "Bob", "Cy"))
        wait_for(lambda: len(_standings(club)) == 3, what="t1's finished game")
        assert {n: (s["played"], s["wins"]) for n, s in _standings(club).items()} == expected
    finally:
        t1.close()
        t2.close()
        club.stop()


def _summed(*parts: dict[str, tuple[int, int]]) -> dict[str, tuple[int, int]]:
    out: dict[str, tuple[int, int]] = {}
    for part in parts:
        for name, (played, wins) in part.items():
            p, w = out.get(name, (0, 0))
            out[name] = (p + played, w + wins)
    return out


def test_a_journal_replaced_mid_club_counts_beside_the_old_one(secured, tmp_path):
    """The table's journal is garbled mid-game; the referee moves it aside and starts a fresh journal
    at game 1; play goes on. The standings are both journals' games together, none disputed."""
    names = ("Ann", "Bob", "Cy")
    club = _club(secured, tmp_path)
    t1 = _table(secured, tmp_path, "t1", COLORPOP, names)
    try:
        _play(t1)
        for _ in range(5):  # the next game under way when the journal is lost
            t1.step()
        wait_for(lambda: t1.publisher.wait_delivered(t1.last_point, 0.1), timeout=30, what="t1's entries stored")
        old_id = t1.journal.id
        t1.close()
        old = _expected(tmp_path / "t1.sqlite", names)
        with open(tmp_path / "t1.sqlite", "r+b") as f:  # the SD card garbles the file's first page
            f.write(b"\x00garbled" * 64)
        t1 = _table(secured, tmp_path, "t1", COLORPOP, names)
        assert t1.moved_aside is not None and t1.loop.session.game_id == 1 and t1.journal.id != old_id
        _play(t1)  # the fresh journal's game 1, the same record as the old journal's game 1
        wait_for(lambda: t1.publisher.wait_delivered(t1.last_point, 0.1), timeout=30, what="the new journal stored")
        both = _summed(old, _expected(tmp_path / "t1.sqlite", names))
        assert all(played == 2 for played, _ in both.values())
        wait_for(
            lambda: {n: (s["played"], s["wins"]) for n, s in _standings(club).items()} == both,
            timeout=15,
            what="the standings to equal both journals together",
        )
        assert club.store.counts["conflicts"] == 0
        assert club.store.verdicts_of("t1", 1, t1.journal.id) == list(range(t1.last_point[1] + 1))
        assert club.store.verdicts_of("t1", 2, old_id) == list(range(5))  # the old journal's unfinished game, kept
        view = club.store.table_view("t1")
        assert view["journal"] == t1.journal.id and view["last_verdict_seq"] == list(t1.last_point)
    finally:
        t1.close()
        club.stop()
