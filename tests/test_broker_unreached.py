"""A broker never reached (a wrong port, a host name with a typo) is said at the table and at the club:
a log line and a fault naming what to check, while the game goes on."""

from __future__ import annotations

import json
import logging
import os
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
import yaml
from mqtt_helpers import free_port, wait_for
from test_web_browser import CHROMEDRIVER, CHROMIUM, start_browser

from controller.club.server import BrokerAddress, ClubServer
from controller.club.store import ClubStore
from controller.files import load_yaml

pytestmark = pytest.mark.slow  # every test here takes seconds

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize(
    ("host", "said"),
    [("127.0.0.1", "nothing answers on port"), ("no-such-club-host.invalid", "is not known on this network")],
)
def test_a_table_says_the_broker_cannot_be_reached(tmp_path, host, said):
    config = load_yaml(ROOT / "config.yaml", "the config file")
    port = free_port()
    config.update(journal=str(tmp_path / "j.sqlite"), control_socket=str(tmp_path / "control.sock"))
    config["web"]["enabled"] = False
    config["mqtt"] = {"host": host, "port": port, "table": "t1"}
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(config))
    cli = [sys.executable, "-m", "controller.cli"]
    proc = subprocess.Popen(
        [*cli, "run", "--config", str(tmp_path / "config.yaml")],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        log = ""
        deadline = time.monotonic() + 60
        while "cannot be reached" not in log and time.monotonic() < deadline:
            line = proc.stderr.readline()
            if not line:
                break
            log += line
        assert f"the club's broker {host}:{port} cannot be reached: " in log and said in log, log
        assert "Check 'mqtt: host:' and 'port:'" in log
        status = subprocess.run(
            [*cli, "status", "--json", "--socket", str(tmp_path / "control.sock")],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=30,
        )
        faults = json.loads(status.stdout)["faults"]
        assert any("cannot be reached" in f for f in faults), faults
    finally:
        os.kill(proc.pid, signal.SIGINT)
        proc.communicate(timeout=30)


def test_the_club_says_the_broker_cannot_be_reached(tmp_path, caplog):
    port = free_port()
    server = ClubServer(
        BrokerAddress("127.0.0.1", port, client_id="club-unreached"),
        ClubStore(tmp_path / "club.sqlite"),
        host="127.0.0.1",
        port=0,
        log=logging.getLogger("referee.club.test"),
    )
    with caplog.at_level(logging.WARNING, logger="referee.club.test"):
        server.start()
        try:

            def problem():
                with urllib.request.urlopen(server.url + "/api/broker", timeout=5) as answer:
                    return json.loads(answer.read())["problem"]

            said = wait_for(problem, timeout=20, what="the club to say the broker cannot be reached")
            assert f"the broker 127.0.0.1:{port} cannot be reached: nothing answers on port {port}" in said
            assert "check --broker HOST:PORT" in said
            if CHROMIUM is not None and CHROMEDRIVER is not None:  # and the club's page shows it
                browser = start_browser()
                try:
                    browser.get(server.url + "/")
                    banner = wait_for(lambda: browser.find_element("id", "broker").text, timeout=20, what="the banner")
                    assert banner.startswith("Fault: the broker 127.0.0.1") and "cannot be reached" in banner
                finally:
                    browser.quit()
        finally:
            server.stop()
    assert any("cannot be reached" in r.getMessage() for r in caplog.records)
