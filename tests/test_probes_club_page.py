"""The club's page under its Content-Security-Policy: only its own inline script and style run (a real
Chromium), it answers only to its own names, and its CSV keeps names as text."""

from __future__ import annotations

import csv
import io
import json
import re
import time
import urllib.request

import pytest
from mqtt_helpers import free_port
from test_web_browser import in_a_browser, start_browser

from controller.club.payloads import Message
from controller.club.server import SECURITY_HEADERS, BrokerAddress, ClubServer
from controller.club.store import ClubStore, spreadsheet_text

FORMULAS = ['=HYPERLINK("http://x.example","y")', "+1+cmd|' /C calc'!A0", "-2+3", "@SUM(A1:A2)", "\t=1+1"]


def _state(table: str, names: list[str]) -> Message:
    body = {"v": 1, "table": table, "game": "flipop", "game_id": 1, "turn": 0, "faults": [], "names": names}
    return Message(table, "state", body, json.dumps(body))


@pytest.fixture
def club(tmp_path):
    store = ClubStore(tmp_path / "club.sqlite")
    store.apply([_state("t1", ["Ann", "<b>Bob</b>"])])
    # no broker is needed to look at the page: the listener keeps trying a port nobody answers
    server = ClubServer(BrokerAddress("127.0.0.1", free_port()), store, host="127.0.0.1", port=0).start()
    yield server
    server.stop()


def test_the_policy_names_each_inline_block_of_the_page_by_its_hash():
    from controller.club.page import PAGE

    policy = SECURITY_HEADERS["Content-Security-Policy"]
    assert "'unsafe-inline'" not in policy and "default-src 'none'" in policy
    assert len(re.findall(r"'sha256-", policy)) == len(re.findall(r"<script>|<style>", PAGE))


@pytest.mark.slow
def test_a_foreign_host_gets_nothing_and_every_answer_carries_the_policy(club):
    with urllib.request.urlopen(club.url + "/", timeout=5) as response:
        assert response.headers["Content-Security-Policy"] == SECURITY_HEADERS["Content-Security-Policy"]
    request = urllib.request.Request(club.url + "/api/tables", headers={"Host": "rebind.example"})
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request, timeout=5)
    assert refused.value.code == 421


def test_names_that_look_like_formulas_stay_text_in_the_csv():
    assert [spreadsheet_text(f) for f in FORMULAS] == ["'" + f for f in FORMULAS]
    assert spreadsheet_text("Ann") == "Ann" and spreadsheet_text("") == ""


@in_a_browser
@pytest.mark.slow
def test_the_page_runs_under_its_policy_in_a_real_browser(club):
    from selenium.webdriver.common.by import By

    driver = start_browser()
    try:
        driver.get(club.url + "/")
        deadline = time.monotonic() + 10
        cards = []
        while time.monotonic() < deadline and not cards:
            cards = driver.find_elements(By.CSS_SELECTOR, "#tables .t")
            time.sleep(0.1)
        assert cards, "the page's script did not run"
        assert "<b>Bob</b>" in cards[0].text  # a name is text, never markup
        style = driver.execute_script("return getComputedStyle(document.body).backgroundColor")
        assert style == "rgb(244, 244, 241)"  # the inline style applied
        blocked = [e for e in driver.get_log("browser") if "Content Security Policy" in e.get("message", "")]
        assert blocked == []
    finally:
        driver.quit()


def test_the_csv_escapes_what_a_spreadsheet_would_run(tmp_path):
    store = ClubStore(tmp_path / "club.sqlite")
    store._standings = [
        {"rank": i + 1, "name": n, "played": 1, "wins": 0, "draws": 0, "losses": 1, "points": 0.0, "tables": ["t1"]}
        for i, n in enumerate(FORMULAS)
    ]
    rows = list(csv.reader(io.StringIO(store.standings_csv())))
    assert [r[1] for r in rows[1:]] == ["'" + f for f in FORMULAS]
    assert not any(cell[:1] in "=+-@\t\r" for row in rows for cell in row if cell)
