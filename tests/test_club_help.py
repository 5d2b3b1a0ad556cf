"""A club tells a helped game and a game against the computer (issue 29): the table's first verdict
names the seats the computer plays, hints are verdicts of their own; the club marks such games on
its page and in its list of games, and sets them apart from the standings' points, trusting only the
verdicts it holds (issue 30's rules: nothing replaces a held verdict, a result needs its whole chain)."""

from __future__ import annotations

import time

import pytest
from mqtt_helpers import free_port
from test_web_browser import in_a_browser, start_browser

from controller.club.config import MqttConfig
from controller.club.journal_feed import JournalFeed
from controller.club.payloads import BadPayload, encode, parse_message, verdict_payload, verdict_words
from controller.club.publisher import TablePublisher
from controller.club.server import BrokerAddress, ClubServer
from controller.club.store import ClubStore
from controller.service.journal import Journal

NAMES = ["Ann", "Bob"]


def _verdict(table: str, game_id: int, seq: int, names=NAMES, computer=None, result=None, **verdict):
    body = verdict_payload(table, game_id, seq, verdict or {"index": seq, "verdict": "legal", "seat": seq % 2}, 1.0)
    if seq == 0:
        body |= {"players": len(names), "names": list(names), "game": "flipop", "variant": "standard"}
        if computer is not None:
            body["computer"] = computer
    if result is not None:
        body["result"] = result
    return parse_message(f"referee/{table}/verdict", encode(body))


def _hint(table: str, game_id: int, seq: int, seat: int):
    return _verdict(table, game_id, seq, verdict="action", action="hint", seat=seat, move="W (4,2) N")


def _computer_move(table: str, game_id: int, seq: int, seat: int):
    return _verdict(table, game_id, seq, verdict="action", action="computer-move", seat=seat, move="B (2,2) S")


def _game(table, game_id, winners, extra=(), computer=None, names=NAMES, end=6):
    """A finished game's chain: entries 0..end, with `extra` {seq: message} in place of plain moves."""
    extra = dict(extra)
    chain = []
    for seq in range(end + 1):
        result = {"finished": True, "winners": winners, "scores": [0, 0]} if seq == end else None
        if seq in extra and result is None:
            chain.append(extra[seq])
        else:
            chain.append(_verdict(table, game_id, seq, names, computer if seq == 0 else None, result))
    return chain


def test_a_helped_game_is_set_apart_from_the_points_and_said_so(tmp_path):
    store = ClubStore(tmp_path / "c.sqlite")
    store.apply(_game("t1", 1, [0]))  # Ann beats Bob unhelped
    store.apply(_game("t1", 2, [1], extra={3: _hint("t1", 2, 3, 0), 5: _hint("t1", 2, 5, 0)}))  # Ann took 2 hints
    rows = {s["name"]: s for s in store.standings()}
    assert rows["Ann"] | {"tables": None} == {
        **rows["Ann"],
        "tables": None,
        "played": 1,
        "wins": 1,
        "losses": 0,
        "points": 1.0,
        "helped": 1,
        "against_computer": 0,
    }
    assert (rows["Bob"]["played"], rows["Bob"]["losses"], rows["Bob"]["wins"], rows["Bob"]["helped"]) == (1, 1, 0, 1)
    games = store.games()
    assert [g["game_id"] for g in games] == [2, 1]  # newest first
    helped, plain = games
    assert helped["hints"] == {"0": 2} and not helped["counted"] and plain["counted"] and plain["help_words"] is None
    assert helped["help_words"] == "Ann took 2 hints: not counted in the standings"
    assert helped["game_words"] == "Flipop, game 2" and helped["result_words"] == "won by Bob"
    french = store.games("fr")[0]["help_words"]
    assert "Ann" in french and "2" in french and "classement" in french, french
    store.close()
    again = ClubStore(tmp_path / "c.sqlite")  # what marks a game is read again from the verdicts it holds
    assert again.standings() == store.standings() and again.games() == games
    assert again.standings_csv().splitlines()[0].endswith(",tables,helped,against_computer")
    assert again.standings_csv().splitlines()[1] == "1,Ann,1,1,0,0,1,t1,1,0"


def test_a_game_against_the_computer_is_told_apart_and_the_computer_is_no_member(tmp_path):
    store = ClubStore(tmp_path / "c.sqlite", roster={"t1": {"Ann", "Bob"}})  # the computer's seat is on no roster
    names = ["Ann", "t1 seat 2"]
    store.apply(_game("t1", 1, [1], names=names, computer=[None, "club"], extra={2: _computer_move("t1", 1, 2, 1)}))
    assert [(s["name"], s["played"], s["against_computer"], s["points"]) for s in store.standings()] == [
        ("Ann", 0, 1, 0.0)
    ]
    (game,) = store.games()
    assert game["computer"] == {"1": "club"} and not game["counted"]
    assert game["players_words"] == "Ann and t1 seat 2 (the computer, club)"
    assert game["result_words"] == "won by t1 seat 2 (the computer, club)"
    assert game["help_words"] == "against the computer: not counted in the standings"
    assert "l'ordinateur" in store.games("fr")[0]["players_words"]
    # a table that does not say which seat the computer played is told by the computer's own moves
    store.apply(_game("t1", 2, [0], extra={3: _computer_move("t1", 2, 3, 1)}))
    assert store.games()[0]["computer"] == {"1": None} and not store.games()[0]["counted"]
    assert {s["name"]: s["against_computer"] for s in store.standings()} == {"Ann": 2}


def test_the_marks_follow_issue_30s_rules(tmp_path, caplog):
    store = ClubStore(tmp_path / "c.sqlite")
    chain = _game("t1", 1, [0], extra={2: _hint("t1", 1, 2, 1)})
    # entry 2 sent twice, once as a plain move and once as a hint (a table hiding its help): a dispute, never counted
    plain = _verdict("t1", 1, 2)
    store.apply(chain[:2] + [plain] + chain[2:])
    assert store.standings() == [] and store.counts["conflicts"] == 1
    # a result counted; a hint sent after the entry that ended the game changes nothing
    store.apply(_game("t1", 2, [0]))
    store.apply([_hint("t1", 2, 7, 1)])
    assert [(s["name"], s["points"], s["helped"]) for s in store.standings()] == [("Ann", 1.0, 0), ("Bob", 0.0, 0)]
    # a first verdict that rewrites which seats the computer played, after the fact: held first, kept
    store.apply([_verdict("t1", 2, 0, computer=[None, "strong"])])
    assert store.games()[0]["computer"] == {} and store.counts["conflicts"] == 2


@pytest.mark.parametrize(
    ("change", "why"),
    [
        ({"computer": ["club"]}, "one entry per seat"),
        ({"computer": [None, 3]}, "null .a person. or a level"),
        ({"computer": [None, "x" * 31]}, "null .a person. or a level"),
        ({"computer": "club"}, "wrong type"),
    ],
)
def test_a_first_verdict_with_a_bad_computer_key_is_refused(change, why):
    body = verdict_payload("t1", 1, 0, {"index": 0, "verdict": "setup-ok"}, 1.0) | {"players": 2, "names": NAMES}
    with pytest.raises(BadPayload, match=why):
        parse_message("referee/t1/verdict", encode(body | change))
    hint = verdict_payload("t1", 1, 3, {"index": 3, "verdict": "action", "action": "hint", "move": "x"}, 1.0)
    with pytest.raises(BadPayload, match="names no seat"):
        parse_message("referee/t1/verdict", encode(hint))


def test_a_hint_that_named_a_place_and_its_tiles_is_worded_so_at_the_club():
    body = {"verdict": "action", "action": "hint", "seat": 0, "move": "R7 on C7", "tiles": "R7 RA Rb"}
    assert verdict_words(body, NAMES) == "hint for player 1: R7 RA Rb where R7 on C7 puts its tile, whichever they hold"
    assert verdict_words({**body, "tiles": ""}, NAMES) == "hint for player 1: R7 on C7"


def test_the_tables_first_entry_names_the_computers_seats_from_the_journal(tmp_path):
    keys = {"game": "flipop", "players": 2, "computer": [None, "club"]}
    journal = Journal(tmp_path / "j.sqlite")
    game_id = journal.new_game(keys)
    config = MqttConfig(host="127.0.0.1", port=free_port(), table="t1", names=("Ann", "Bob"))
    publisher = TablePublisher(config, tmp_path / "j.sqlite", {"game": "flipop", "players": 2})  # config: no computer
    publisher.feed = JournalFeed(tmp_path / "j.sqlite", "t1")
    first = publisher._first_entry_keys(game_id, ["Ann", "Bob"])
    assert first == {
        "players": 2,
        "names": ["Ann", "Bob"],
        "game": "flipop",
        "variant": "standard",
        "computer": [None, "club"],
    }
    body = verdict_payload("t1", game_id, 0, {"index": 0, "verdict": "setup-ok"}, 1.0) | first
    assert parse_message("referee/t1/verdict", encode(body)).body["computer"] == [None, "club"]
    publisher.feed.close()
    journal.close()


@in_a_browser
@pytest.mark.slow
def test_the_club_page_marks_helped_games_and_games_against_the_computer(tmp_path):
    from selenium.webdriver.common.by import By

    store = ClubStore(tmp_path / "club.sqlite")
    store.apply(_game("t1", 1, [0]))
    store.apply(_game("t1", 2, [1], extra={3: _hint("t1", 2, 3, 0)}))
    store.apply(_game("t2", 1, [0], names=["Cy", "t2 seat 2"], computer=[None, "strong"]))
    state = {
        "v": 1,
        "table": "t2",
        "game": "flipop",
        "game_id": 2,
        "turn": 0,
        "faults": [],
        "players": 2,
        "names": ["Cy", "t2 seat 2"],
        "computer": [None, "strong"],
    }
    store.apply([parse_message("referee/t2/state", encode(state))])
    server = ClubServer(BrokerAddress("127.0.0.1", free_port()), store, host="127.0.0.1", port=0).start()
    driver = start_browser()
    try:
        driver.get(server.url + "/?lang=en")
        deadline = time.monotonic() + 10
        rows = []
        while time.monotonic() < deadline and len(rows) < 3:
            rows = driver.find_elements(By.CSS_SELECTOR, "#games tr")
            time.sleep(0.1)
        assert len(rows) == 3, "the page did not list the games"
        texts = {r.get_attribute("data-game"): r.text for r in rows}
        assert "Ann took 1 hint: not counted in the standings" in texts["t1/2"]
        assert "against the computer" in texts["t2/1"] and "t2 seat 2 (the computer, strong)" in texts["t2/1"]
        assert "hint" not in texts["t1/1"] and "computer" not in texts["t1/1"]
        assert [r.get_attribute("class") for r in rows].count("apart") == 2
        standings = {
            r.find_elements(By.TAG_NAME, "td")[1].text: [td.text for td in r.find_elements(By.TAG_NAME, "td")]
            for r in driver.find_elements(By.CSS_SELECTOR, "#standings tr")
        }
        assert set(standings) == {"Ann", "Bob", "Cy"}  # the computer is no member
        assert standings["Ann"][2:] == ["1", "1", "0", "0", "1", "1", "0"]  # played 1 won 1, 1 helped game apart
        assert standings["Cy"][2:] == ["0", "0", "0", "0", "0", "0", "1"]
        card = driver.find_element(By.ID, "t-t2").text
        assert "t2 seat 2 (the computer, strong)" in card and "against the computer" in card
        driver.get(server.url + "/?lang=fr")
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and len(driver.find_elements(By.CSS_SELECTOR, "#games tr")) < 3:
            time.sleep(0.1)
        assert "l'ordinateur" in driver.find_element(By.ID, "games").text
        blocked = [e for e in driver.get_log("browser") if "Content Security Policy" in e.get("message", "")]
        assert blocked == []
    finally:
        driver.quit()
        server.stop()
