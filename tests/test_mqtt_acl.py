"""The broker's ACLs of docs/mqtt.md, and credentials that never reach a log, the journal or the club."""

from __future__ import annotations

import json
import logging
import random
import time
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest
from mqtt_helpers import Broker, wait_for
from test_club_broker import _get
from test_probes_club import docs_broker

from controller.assembly import assemble
from controller.club.config import MqttConfig
from controller.club.publisher import TablePublisher
from controller.club.server import BrokerAddress, ClubServer
from controller.club.store import ClubStore
from controller.commands.demo import demo_config
from controller.record import setup_from_mapping
from controller.service.app import Service
from controller.service.config import config_from_mapping
from simulation.devices import SimulatedDevices
from simulation.world import SimWorld, starting_board

pytestmark = pytest.mark.slow  # every test here takes seconds

TABLE_PASSWORD = "tbl-Secret-Xq7w"
CLUB_PASSWORD = "club-Secret-Zp3k"
#: docs/mqtt.md's own ACL and client-id binding: the club reads every table and answers each, a
#: table (user name = table name) writes only its own topics.
ACL, SETTINGS = docs_broker()


@pytest.fixture
def secured(tmp_path):
    folder = tmp_path / "broker"
    folder.mkdir()
    b = Broker(folder, users={"club": CLUB_PASSWORD, "t1": TABLE_PASSWORD}, acl=ACL, extra=SETTINGS).start()
    yield b
    b.stop()


def _service(tmp_path: Path, port: int, password_file: Path) -> Service:
    data = demo_config("colorpop", 1, tmp_path)
    data["mqtt"] = {
        "host": "127.0.0.1",
        "port": port,
        "table": "t1",
        "username": "t1",
        "password_file": str(password_file),
        "names": ["Ann", "Bob", "Cy"],
        "keepalive": 5,
    }
    config = config_from_mapping(data, source="test config", base=tmp_path)
    setup = setup_from_mapping(config.game_keys)
    board = starting_board(setup, random.Random(1))
    return assemble(
        config,
        devices=SimulatedDevices(lambda pico: SimWorld(setup, board, pico=pico)),
        control=False,
        log=logging.getLogger("referee.acltest"),
    )


def test_tables_write_only_their_own_topics_and_passwords_stay_secret(secured, tmp_path, caplog):
    (tmp_path / "club-password").write_text(CLUB_PASSWORD + "\n")
    (tmp_path / "t1-password").write_text(TABLE_PASSWORD + "\n")
    (tmp_path / "wrong-password").write_text("not-" + TABLE_PASSWORD)
    caplog.set_level(logging.DEBUG)
    store = ClubStore(tmp_path / "club.sqlite")
    club = ClubServer(
        BrokerAddress("127.0.0.1", secured.port, username="club", password_file=tmp_path / "club-password"),
        store,
        host="127.0.0.1",
        port=0,
    ).start()
    service = None
    try:
        wait_for(club.listener.connected.is_set, what="the club to log in")
        service = _service(tmp_path, secured.port, tmp_path / "t1-password")
        wait_for(
            lambda: {t["table"]: t for t in _get(club, "/api/tables")}.get("t1", {}).get("game") == "colorpop",
            what="t1's state (referee run's publisher)",
        )
        view = {t["table"]: t for t in _get(club, "/api/tables")}["t1"]
        assert view["online"] is True and view["names"] == ["Ann", "Bob", "Cy"]

        # t1's own credentials cannot write another table's topics: the broker drops it
        rogue = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="t1-rogue")
        rogue.username_pw_set("t1", TABLE_PASSWORD)
        rogue.connect("127.0.0.1", secured.port)
        rogue.loop_start()
        state = {"v": 1, "game": "flipop", "game_id": 1, "faults": [], "turn": 0}
        rogue.publish("referee/t2/state", json.dumps(state), qos=1).wait_for_publish(5)
        rogue.publish("referee/t1/online", b"false", qos=1).wait_for_publish(5)  # its own topic: allowed
        wait_for(
            lambda: {t["table"]: t for t in _get(club, "/api/tables")}["t1"]["online"] is False, what="t1's own message"
        )
        assert "t2" not in {t["table"] for t in _get(club, "/api/tables")}
        rogue.loop_stop()
        rogue.disconnect()

        # a wrong password is refused, in a log line that does not show it
        bad = TablePublisher(
            MqttConfig(
                host="127.0.0.1",
                port=secured.port,
                table="t1",
                username="t1",
                password_file=tmp_path / "wrong-password",
            ),
            tmp_path / "colorpop-journal.sqlite",
            service.config.game_keys,
        ).start()
        wait_for(lambda: any("refused table t1" in r.getMessage() for r in caplog.records), what="the refusal")
        bad.close()
    finally:
        if service is not None:
            service.close()
        club.stop()
    time.sleep(0.1)
    text = caplog.text + "".join(repr(r.args) for r in caplog.records)
    for secret in (TABLE_PASSWORD, CLUB_PASSWORD):
        assert secret not in text
        for path in tmp_path.glob("*.sqlite*"):
            assert secret.encode() not in path.read_bytes(), path
