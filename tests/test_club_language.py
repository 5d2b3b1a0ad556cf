"""The club's page in the reader's language: its words, its tables' verdicts and its refusals, in French
or English as the page asks (`lang=`, the browser's Accept-Language, else the club's `--language`)."""

from __future__ import annotations

import json
import re
import time
import urllib.error
import urllib.request

import pytest
from mqtt_helpers import free_port

from controller.cli import build_parser
from controller.club.page import PAGE, page_in
from controller.club.payloads import Message, verdict_words
from controller.club.server import SECURITY_HEADERS, BrokerAddress, ClubServer
from controller.club.store import ClubStore
from controller.errors import RefereeError


def _state(table: str, **extra) -> Message:
    body = {"v": 1, "table": table, "game": "stay-alive", "game_id": 3, "turn": 1, "faults": [], "names": []}
    body.update(extra)
    return Message(table, "state", body, json.dumps(body))


@pytest.fixture
def club(tmp_path):
    store = ClubStore(tmp_path / "club.sqlite")
    store.apply([_state("t1"), _state("t2", names=["Ann", "Bob"], over=True, winners=[0, 1], turn=None)])
    server = ClubServer(BrokerAddress("127.0.0.1", free_port()), store, host="127.0.0.1", port=0, language="fr")
    yield server.start()
    server.stop()


def _get(url: str, **headers: str):
    with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=5) as response:
        return response.read().decode("utf-8"), response.headers


def test_the_page_speaks_the_language_asked_and_its_script_is_the_same_in_each():
    english, french = page_in("en"), page_in("fr")
    assert "<h1>Club tables</h1>" in english and '<html lang="en">' in english
    assert "<h1>Les tables du club</h1>" in french and '<html lang="fr">' in french
    assert "<h2>Classement " in french and ">Joueur</th>" in french and "<h2>Standings" not in french
    words = json.loads(re.search(r'<script type="application/json" id="words">(.*?)</script>', french, re.S).group(1))
    assert words["turn"] == "Au tour de\u00a0: {player}" and words["offline"] == "hors ligne"
    # one script, one style in every language: the policy's hashes hold for each
    blocks = [re.findall(r"<(?:script|style)>(.*?)</(?:script|style)>", p, re.S) for p in (PAGE, english, french)]
    assert blocks[0] == blocks[1] == blocks[2] and len(blocks[0]) == 2


def test_a_table_is_said_in_the_page_language(tmp_path):
    store = ClubStore(tmp_path / "club.sqlite")
    store.apply([_state("t1"), _state("t2", names=["Ann", "Bob"], over=True, winners=[0, 1], turn=None)])
    assert store.table_view("t1")["turn_words"] == "player 2"
    assert store.table_view("t1", "fr")["turn_words"] == "Joueur 2"
    assert store.table_view("t1", "fr")["game_words"] == "Pièges, partie 3"
    assert store.table_view("t1", "en")["game_words"] == "Stay Alive, game 3"
    assert store.table_view("t2", "fr")["winners_words"] == "Ann et Bob"
    assert store.table_view("t2", "en")["winners_words"] == "Ann and Bob"


def test_a_verdict_is_said_in_french_with_the_players_names():
    body = {"verdict": "legal", "seat": 1, "move": "remove B x3 at E3"}
    assert verdict_words(body, ["Ann", "Bob"]) == "Bob: legal move, remove B x3 at E3"
    french = verdict_words(body, ["Ann", "Bob"], "fr")
    assert french.startswith("Bob\u00a0: ") and "legal move" not in french
    assert verdict_words(body, None, "fr").startswith("Joueur 2\u00a0: ")
    revealed = verdict_words({"verdict": "reveal", "seat": 0, "colours": ["red", "blue"]}, ["Ann"], "fr")
    assert revealed.startswith("Ann a révélé ") and "red" not in revealed


@pytest.mark.slow
def test_the_served_page_follows_lang_then_the_browser_then_the_club(club):
    page, headers = _get(club.url + "/")
    assert "Les tables du club" in page and headers["Content-Language"] == "fr"  # the club's --language
    page, headers = _get(club.url + "/", **{"Accept-Language": "en-GB,en;q=0.8"})
    assert (
        "<h1>Club tables</h1>" in page
        and headers["Content-Security-Policy"] == SECURITY_HEADERS["Content-Security-Policy"]
    )
    page, _ = _get(club.url + "/?lang=fr", **{"Accept-Language": "en"})
    assert "Les tables du club" in page
    tables = json.loads(_get(club.url + "/api/tables?lang=en")[0])
    assert [t["turn_words"] for t in tables] == ["player 2", None]
    tables = json.loads(_get(club.url + "/api/tables", **{"Accept-Language": "fr-CH, fr;q=0.9"})[0])
    assert tables[1]["game_words"] == "Pièges, partie 3"


@pytest.mark.slow
def test_the_broker_trouble_and_the_refusals_are_said_in_the_page_language(club):
    for _ in range(50):  # the listener tries a port nobody answers: it says why
        problem = json.loads(_get(club.url + "/api/broker?lang=fr")[0])["problem"]
        if problem:
            break
        time.sleep(0.1)
    assert problem and problem.startswith("le serveur 127.0.0.1:") and "injoignable" in problem
    english = json.loads(_get(club.url + "/api/broker?lang=en")[0])["problem"]
    assert english.startswith("the broker 127.0.0.1:")
    request = urllib.request.Request(club.url + "/api/tables", headers={"Host": "rebind.example"})
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request, timeout=5)
    assert refused.value.code == 421
    assert json.loads(refused.value.read())["error"].startswith("ce serveur ne répond qu'à ses propres noms")


def test_an_unknown_club_language_is_refused_with_a_sentence(tmp_path):
    args = build_parser("club").parse_args(
        ["club", "--db", str(tmp_path / "c.sqlite"), "--language", "klingon", "--port", "0"]
    )
    with pytest.raises(RefereeError, match="--language: expected one of en, fr, got 'klingon'"):
        args._run(args)


def _illegal_verdict():
    """A real illegal verdict, judged from an example record: (its JSON as the journal keeps it, the same
    verdict as the rules gave it, its reason a catalogue sentence)."""
    from pathlib import Path

    from controller.games.registry import engine_for
    from controller.record import load_record
    from controller.referee import Referee, VerdictKind

    for path in sorted((Path(__file__).resolve().parent.parent / "examples").glob("*.yaml")):
        record = load_record(path)
        referee = Referee(engine_for(record.setup))
        referee.observe(record.board, 0)
        for index, board in enumerate(record.observations, start=1):
            if not hasattr(board, "cells"):
                break
            verdict = referee.observe(board, index)
            if verdict.verdict == VerdictKind.ILLEGAL and verdict.reason:
                judged = verdict.to_json()
                return json.loads(json.dumps(judged)), judged
    raise AssertionError("no example record has an illegal move")


def test_a_tables_illegal_reason_is_said_in_the_readers_language():
    from controller.club.payloads import encode, parse_message, verdict_payload

    journalled, judged = _illegal_verdict()
    body = verdict_payload("t1", 3, 5, journalled, 0.0, judged=judged)
    message = parse_message("referee/t1/verdict", encode(body))  # the club accepts what tables send
    english, french = verdict_words(message.body, [], "en"), verdict_words(message.body, [], "fr")
    assert judged["reason"] in english
    assert judged["reason"] not in french and judged["reason"].said("fr") in french
    # an older table sends the English alone: still shown, as it was sent
    old = parse_message("referee/t1/verdict", encode(verdict_payload("t1", 3, 5, journalled, 0.0)))
    assert "said" not in old.body and journalled["reason"] in verdict_words(old.body, [], "fr")


def test_a_tables_faults_and_unreadable_board_are_said_in_the_readers_language(tmp_path):
    from controller import words
    from controller.club.payloads import encode, parse_message, state_payload
    from controller.language import _, said
    from controller.service.events import Table

    fault = words.broker_refused("club.local", 1883, "t1", "not authorised")
    unreadable = _("the board cannot be read: {why}", why=_("the board could not be read"))
    table = Table("stay-alive", 3, started=True, to_move=1, unreadable=unreadable, faults=(fault,))
    body = state_payload("t1", {}, [], table, None, None, None, 0.0)
    store = ClubStore(tmp_path / "club.sqlite")
    store.apply([parse_message("referee/t1/state", encode(body))])
    assert store.table_view("t1", "en")["faults"] == [str(fault)]
    view = store.table_view("t1", "fr")
    assert view["faults"] == [said(fault, "fr")] and view["faults"] != [str(fault)]
    assert view["unreadable"] == said(unreadable, "fr") != str(unreadable)
    # an older table's state, its English alone: shown as sent
    del body["said"]
    store.apply([parse_message("referee/t2/state", encode({**body, "table": "t2"}))])
    assert store.table_view("t2", "fr")["faults"] == [str(fault)]


def test_a_sentence_from_a_table_is_never_a_template_of_its_own():
    """What a table sends is said only through this club's catalogue: an unknown message, a format
    of its own, a nesting too deep or a malformed part is not taken, and the English sent is shown."""
    from controller.language import _, from_json, literal, said, to_json

    sentence = _("fault: {fault}", fault=literal("C3"))
    assert said(from_json(json.loads(json.dumps(to_json(sentence))), "x"), "fr") == said(sentence, "fr")
    nested: dict = {"m": "fault: {fault}", "a": {"fault": "x"}}
    for _depth in range(20):
        nested = {"m": "fault: {fault}", "a": {"fault": nested}}
    for bad in (
        {"m": "a message no catalogue holds {x}", "a": {"x": "1"}},
        {"m": "{x:>999999999}", "c": "\x00literal", "a": {"x": "1"}},
        {"m": "{x.__class__}", "c": "\x00literal", "a": {"x": "1"}},
        {"m": "fault: {fault}", "a": {"fault": [1, 2]}},
        {"m": "fault: {fault}", "a": {"not a name": "x"}},
        {"colour": 3},
        nested,
        "plain",
        None,
    ):
        assert from_json(bad, "as sent") == ("plain" if bad == "plain" else "as sent"), bad


def test_the_pages_standings_link_gives_the_file_in_its_language(club):
    french_page, _headers = _get(club.url + "/?lang=fr")
    assert 'href="/standings.csv?lang=fr"' in french_page
    french, _headers = _get(club.url + "/standings.csv?lang=fr")
    data, _headers = _get(club.url + "/standings.csv", **{"Accept-Language": "fr"})
    assert french.splitlines()[0].startswith("Rang;Joueur;")
    assert data.splitlines()[0].startswith("rank,name,played")  # the data file, whatever the browser's language
