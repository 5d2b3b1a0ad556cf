"""The live page in a real browser draws a game's lines besides the grid as the game declares them:
the lamp game (`lamp_game.py`, defined only in the tests) shows its `light:` line under the board,
in its words, live and in a past game, and its title, with no edit to the page for it."""

from __future__ import annotations

from dataclasses import replace

import lamp_game
import pytest
from test_web_browser import IN_A_BROWSER, PIN, start_browser, wait_for

from controller.games import registry
from controller.web import WebApp, WebServer
from simulation.world import StubRig

pytestmark = IN_A_BROWSER
LINE = "return [...document.querySelectorAll('#{board} g.board-line')].map(g => [g.dataset.line, g.textContent])"


@pytest.fixture
def lit():
    with lamp_game.registered():
        yield


@pytest.fixture
def served(lit, tmp_path):
    rig = StubRig({"game": lamp_game.NAME, "players": 2}, tmp_path / "j.sqlite", seed=3, troubles=False, max_moves=3)
    rig.driver.run(rig.player.steps())
    server = WebServer(WebApp(rig.loop, pin=PIN), "127.0.0.1", 0)
    assert server.start(), server.error
    yield f"http://127.0.0.1:{server.port}/"
    server.close()


@pytest.mark.parametrize(
    ("accept", "shown"),
    # the game's words (a test game's are not in the catalogue), French typography
    [("en-GB,en", "Lamp: lit brightly"), ("fr-FR,fr", "Lamp\u00a0: lit brightly")],
)
def test_the_page_draws_the_light_line_the_game_declares(served, accept, shown):
    browser = start_browser(accept_language=accept)
    try:
        browser.get(served)
        assert wait_for(lambda: browser.execute_script(LINE.format(board="board"))) == [["light", shown]]
        # drawn under the grid, inside the board's picture
        below = browser.execute_script(
            "const places = [...document.querySelectorAll('#board g.place')].map(g => g.getBBox());"
            "const line = document.querySelector('#board g.board-line').getBBox();"
            "const vb = document.getElementById('board').viewBox.baseVal;"
            "return line.y >= Math.max(...places.map(b => b.y + b.height)) && line.y + line.height <= vb.height;"
        )
        assert below
        # the game's title as it declares it (a test game's is not in the catalogue: English)
        title = browser.execute_script("return document.getElementById('title').textContent")
        assert title.startswith("Noughts and crosses by lamplight, ") and title.endswith("1")
        # a past game's board shows it too
        browser.execute_script("document.getElementById('load-games').click()")
        wait_for(lambda: browser.execute_script("return document.querySelectorAll('#games li').length"))
        listed = browser.execute_script("return document.querySelector('#games li').textContent")
        assert "Noughts and crosses by lamplight" in listed
        browser.execute_script("document.querySelector('#games li').click()")
        assert wait_for(lambda: browser.execute_script(LINE.format(board="step-board"))) == [["light", shown]]
    finally:
        browser.quit()


def test_the_page_offers_what_the_game_declares(tmp_path):
    """A new game's variants, and the end by agreement when it declares one, with no edit to the page."""
    spec = replace(lamp_game.SPEC, variants=("standard", "by-candle"), ends_by_agreement=True)
    with lamp_game.registered(), registry.registered(spec):
        rig = StubRig(
            {"game": lamp_game.NAME, "players": 2}, tmp_path / "j.sqlite", seed=3, troubles=False, max_moves=1
        )
        rig.driver.run(rig.player.steps())
        server = WebServer(WebApp(rig.loop, pin=PIN), "127.0.0.1", 0)
        assert server.start(), server.error
        browser = start_browser()
        try:
            browser.get(f"http://127.0.0.1:{server.port}/")
            variants = "return [...document.querySelectorAll('#ng-variant option')].map(o => o.value)"
            assert wait_for(lambda: browser.execute_script(variants)) == ["standard", "by-candle"]
            hidden = "return ['end-box', 'reveal-box'].map(id => document.getElementById(id).hidden)"
            assert browser.execute_script(hidden) == [False, True]
        finally:
            browser.quit()
            server.close()
