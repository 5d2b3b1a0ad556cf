"""The table's language (config.yaml's `language:`) and each page's: the log, the API's state and refusals.

A verdict is judged once; the log says it in the table's language while two phones read it at the same
moment, one in French, one in English, each from its own `Accept-Language` or its switch (`lang=`).
Past games read back from the journal (which keeps its words in English) are said in French too.
"""

from __future__ import annotations

import logging

import pytest
from colorpop_helpers import take_a_lone_token_off
from test_web_api import PIN
from web_helpers import ticking, with_client

from controller.errors import ConfigError
from controller.language import negotiate
from controller.service.config import config_from_mapping
from controller.service.events import LogSubscriber, Table, VerdictGiven
from controller.web import WebApp
from controller.words import verdict_line
from simulation.world import StubRig

COLORPOP = {"game": "colorpop", "players": 2}


def test_config_chooses_the_tables_language_and_refuses_one_it_does_not_speak(tmp_path):
    assert config_from_mapping({"game": "colorpop", "players": 2}, base=tmp_path).language == "en"
    assert config_from_mapping({"game": "colorpop", "players": 2, "language": "fr"}, base=tmp_path).language == "fr"
    with pytest.raises(ConfigError, match="language.*expected one of en, fr"):
        config_from_mapping({"game": "colorpop", "players": 2, "language": "de"}, base=tmp_path)


def test_a_browsers_accept_language_picks_a_language_the_referee_speaks():
    assert negotiate("fr-CH, fr;q=0.9, en;q=0.8") == "fr"
    assert negotiate("de-DE, de;q=0.9, fr;q=0.5, en;q=0.4") == "fr"
    assert negotiate("de-DE, de;q=0.9", default="fr") == "fr"  # none of ours: the table's
    assert negotiate("en;q=0.2, fr;q=0.9") == "fr" and negotiate("fr;q=0, en") == "en"
    assert negotiate(None) == "en" and negotiate("*;q=0.5") == "en" and negotiate(";;,=q") == "en"


def test_the_log_says_verdicts_in_the_tables_language(tmp_path):
    rig = StubRig(COLORPOP, tmp_path / "j.sqlite", seed=3, troubles=False, max_moves=2)
    rig.play(1)
    referee = rig.loop.session.referee
    verdict = rig.loop.verdicts[-1]
    heard: list[str] = []
    subscriber = LogSubscriber(logging.getLogger("test.language"), heard.append, language="fr")
    line = verdict_line(verdict, referee.engine, referee.to_move())
    subscriber(VerdictGiven(at=0.0, table=Table("colorpop", 1), verdict=verdict, line=line))
    assert heard == [f"[colorpop] {line.said('fr')}"] and "coup légal" in heard[0] and "retiré" in heard[0]


def test_each_page_reads_the_same_table_in_its_own_language(tmp_path):
    rig = StubRig(COLORPOP, tmp_path / "j.sqlite", seed=3, troubles=False, max_moves=6)
    rig.play(2)
    take_a_lone_token_off(rig)
    app = WebApp(rig.loop, pin=PIN, language="fr")  # the table speaks French

    async def body(client):
        french = await (await client.get("/api/state")).json()  # no Accept-Language: the table's
        english = await (await client.get("/api/state", headers={"Accept-Language": "en-GB,en;q=0.9"})).json()
        switched = await (await client.get("/api/state?lang=en", headers={"Accept-Language": "fr"})).json()
        assert french["language"] == "fr" and english["language"] == "en" and switched["language"] == "en"
        assert french["verdicts"][0]["line"].startswith("position de départ acceptée")
        assert english["verdicts"][0]["line"].startswith("starting board accepted")
        illegal = [v for v in french["verdicts"] if v["json"]["verdict"] == "illegal"][-1]
        assert "coup illégal" in illegal["line"] and "jeton isolé" in illegal["line"]
        assert illegal["rule"]["id"] == "colorpop.no-lone-token"
        assert illegal["rule"]["book"] == "Il est interdit d'éliminer un jeton isolé."
        assert illegal["rule"]["line"].startswith("règle\u00a0: ")
        assert french["correction"]["steps"][0]["text"].startswith("remettez le jeton ")
        assert english["correction"]["steps"][0]["text"].startswith("put the ")
        assert french["seats"][0]["name"] == "Joueur 1" and french["palette"]["P"]["the_piece"] == "le jeton rose"
        messages = await (await client.get("/api/messages", headers={"Accept-Language": "fr-FR"})).json()
        assert messages["language"] == "fr" and messages["plural"] == "n>1"
        assert messages["messages"]["Verdicts"] == "Verdicts" and messages["messages"]["Players"] == "Joueurs"
        assert {lang["code"] for lang in messages["languages"]} == {"en", "fr"}
        # a past game read back from the journal: its stored words are English, said again in French
        game_id = rig.loop.session.game_id
        past = await (await client.get(f"/api/games/{game_id}?lang=fr")).json()
        assert any("coup illégal" in step["line"] for step in past["steps"])
        assert not any("illegal move" in step["line"] for step in past["steps"])

    with_client(app, body)


def test_a_refusal_is_said_in_the_pages_language(tmp_path):
    rig = StubRig(COLORPOP, tmp_path / "j.sqlite", seed=3, troubles=False, max_moves=4)
    rig.play(1)
    app = WebApp(rig.loop, pin=PIN)

    async def body(client):
        headers = {"X-Referee-PIN": PIN, "Accept-Language": "fr"}
        with ticking(rig):
            response = await client.post("/api/new-game", json={"players": 9}, headers=headers)
            data = await response.json()
            assert response.status == 400 and "la variante standard se joue de 2 à 5 joueurs" in data["error"], data
            response = await client.post("/api/end", json={}, headers=headers)
            data = await response.json()
            assert response.status == 409 and "la partie ne peut pas être arrêtée" in data["error"], data
            response = await client.post("/api/reveal?lang=en", json={"seat": 7, "colours": ["G"]}, headers=headers)
            assert "there is no player 8" in (await response.json())["error"]

    with_client(app, body)


def test_the_pin_guards_refusals_are_said_in_the_pages_language(tmp_path):
    """A French page entering a wrong PIN, or none, reads why in French; the same refusal in English for
    an English page (the guard's sentences come from the catalogue)."""
    rig = StubRig(COLORPOP, tmp_path / "j.sqlite", seed=3, troubles=False, max_moves=2)
    app = WebApp(rig.loop, pin=PIN)

    async def body(client):
        french = {"Accept-Language": "fr-FR,fr"}
        missing = await client.post("/api/end", json={}, headers=french)
        assert missing.status == 401 and "il faut le code de l’arbitre" in (await missing.json())["error"]
        wrong = await client.post("/api/end", json={}, headers={**french, "X-Referee-PIN": "000001"})
        assert wrong.status == 403 and (await wrong.json())["error"].startswith("code faux")
        english = await client.post("/api/end", json={}, headers={"X-Referee-PIN": "000002"})
        assert english.status == 403 and (await english.json())["error"].startswith("wrong PIN")
        camera = await client.get("/camera.jpg?lang=fr")
        assert camera.status == 404 and (await camera.json())["error"] == "pas encore d’image de la caméra"

    with_client(app, body)
