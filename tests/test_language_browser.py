"""The live page in French and English, in a real browser (headless Chromium driven by selenium).

The page speaks the browser's language (`Accept-Language`) until its switch chooses one, which the
browser remembers; a French game is followed from the first board to the winner, every sentence
French; and the page's voice (the browser's speech synthesis) is captured: what it is handed to say,
in which language, is the verdict the page shows.
"""

from __future__ import annotations

import re

import pytest
from test_web_browser import CHROMEDRIVER, CHROMIUM, PIN, history, start_browser, wait_for

from controller.web import WebApp, WebServer
from simulation.world import StubRig

pytestmark = [
    pytest.mark.slow,  # a real browser
    pytest.mark.skipif(
        CHROMIUM is None or CHROMEDRIVER is None,
        reason="Chromium and chromedriver are not installed (apt-get install chromium chromium-driver)",
    ),
]

#: English words a French page must never show (the words of the referee's sentences, not names).
ENGLISH = re.compile(
    r"\b(player|legal|illegal|move|board|token|tokens|removed|the|and|wins|game over|put|back|slide|winner|"
    r"starting|accepted|begins|look at|reveal)\b",
    re.IGNORECASE,
)
#: Catches what the browser hands to speech synthesis, before the page's own scripts run.
SPEECH_SPY = """
window.__spoken = [];
const spy = {
  speak(u) { window.__spoken.push({ text: u.text, lang: u.lang }); },
  cancel() {}, pause() {}, resume() {}, getVoices() { return []; },
  speaking: false, pending: false, onvoiceschanged: null,
  addEventListener() {}, removeEventListener() {},
};
Object.defineProperty(window, "speechSynthesis", { value: spy, configurable: true });
"""


@pytest.fixture
def french_browser():
    driver = start_browser(accept_language="fr-FR,fr")
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": SPEECH_SPY})
    yield driver
    driver.quit()


@pytest.fixture
def english_browser():
    driver = start_browser(accept_language="en-GB,en")
    yield driver
    driver.quit()


def serve(rig):
    app = WebApp(rig.loop, pin=PIN)
    server = WebServer(app, "127.0.0.1", 0)
    assert server.start(), server.error
    return server, f"http://127.0.0.1:{server.port}/"


def text_of(browser, element_id: str) -> str:
    return browser.execute_script("return document.getElementById(arguments[0]).textContent", element_id)


def test_the_page_speaks_the_browsers_language_and_its_switch_is_remembered(english_browser, tmp_path):
    from selenium.webdriver.support.ui import Select

    rig = StubRig({"game": "colorpop", "players": 2}, tmp_path / "j.sqlite", seed=3, troubles=False, max_moves=4)
    server, url = serve(rig)
    try:
        steps = rig.player.steps()
        while rig.player.moves < 1:
            rig.driver.do(next(steps))
        browser = english_browser
        browser.get(url)
        wait_for(lambda: any("legal move" in line for line in history(browser)))
        assert text_of(browser, "seats-box").strip().startswith("Players")
        Select(browser.find_element("id", "language")).select_by_value("fr")
        wait_for(lambda: any("coup légal" in line for line in history(browser)))
        assert text_of(browser, "seats-box").strip().startswith("Joueurs")
        assert browser.execute_script("return document.documentElement.lang") == "fr"
        assert "Joueur 2" in text_of(browser, "turn")  # the state said again in French, not only the static text
        browser.refresh()  # remembered by this browser
        wait_for(lambda: any("coup légal" in line for line in history(browser)))
        assert Select(browser.find_element("id", "language")).first_selected_option.get_attribute("value") == "fr"
        Select(browser.find_element("id", "language")).select_by_value("en")
        wait_for(lambda: any("legal move" in line for line in history(browser)))
    finally:
        server.close()


def test_a_french_game_from_the_first_board_to_the_winner(french_browser, tmp_path):
    """Colorpop with mistakes, followed on a French page until the secret colours are asked for, told
    through the page, and the winner named: every line French, the rules broken named in French."""
    rig = StubRig({"game": "colorpop", "players": 2}, tmp_path / "j.sqlite", seed=5, troubles=True)
    server, url = serve(rig)
    try:
        browser = french_browser
        browser.get(url)
        wait_for(lambda: "Installez le plateau" in text_of(browser, "turn"))
        for step in rig.player.steps():
            rig.driver.do(step)
        rig.driver.run_frames(30)
        assert rig.loop.session.referee.over
        ending = wait_for(
            lambda: "pas encore de vainqueur" in text_of(browser, "turn").lower() and text_of(browser, "turn")
        )
        assert "révélez les couleurs secrètes de Joueur 1 et Joueur 2" in ending
        lines = history(browser)
        assert any("coup légal" in line for line in lines) and any("coup illégal" in line for line in lines)
        leaks = [line for line in lines if ENGLISH.search(line)]
        assert not leaks, leaks[:5]
        rules = browser.execute_script(
            "return [...document.querySelectorAll('#history details.rule summary')].map(s => s.textContent)"
        )
        assert rules and all(r.startswith("règle") for r in rules)
        # the secret colours told on the page, then the winner is named
        browser.find_element("id", "pin").send_keys(PIN)
        for seat, colour in ((1, "G"), (2, "B")):
            browser.execute_script(
                "document.getElementById('rv-seat').value = arguments[0];"
                "document.getElementById('rv-colours').value = arguments[1];",
                seat,
                colour,
            )
            browser.execute_script("document.getElementById('control-answer').textContent = ''")
            browser.find_element("id", "reveal").click()
            answer = wait_for(lambda: text_of(browser, "control-answer").strip(), tick=lambda: rig.driver.run_frames(1))
            assert "Refusé" not in answer, answer
        winner = wait_for(
            lambda: "partie finie" in text_of(browser, "turn").lower() and text_of(browser, "turn"),
            tick=lambda: rig.driver.run_frames(1),
        )
        assert "gagne" in winner and "contre" in winner, winner  # who, and by how much
        assert not ENGLISH.search(winner), winner
        assert browser.find_elements("css selector", "#seats tr.winner")
        # and nothing anywhere on the page is left in English (static texts, buttons, options, the state)
        page = browser.execute_script("return document.body.innerText")
        leaks = [line for line in page.splitlines() if ENGLISH.search(line)]
        assert not leaks, leaks[:8]
    finally:
        server.close()


def test_the_page_says_a_verdict_aloud_in_its_language(french_browser, tmp_path):
    rig = StubRig({"game": "colorpop", "players": 2}, tmp_path / "j.sqlite", seed=3, troubles=False, max_moves=4)
    server, url = serve(rig)
    try:
        browser = french_browser
        steps = rig.player.steps()
        while not rig.loop.session.referee.started:
            rig.driver.do(next(steps))
        browser.get(url)
        wait_for(lambda: any("position de départ acceptée" in line for line in history(browser)))
        browser.find_element("id", "speak").click()
        while rig.player.moves < 1:
            rig.driver.do(next(steps))
        shown = wait_for(lambda: next((x for x in history(browser) if "coup légal" in x), None))
        spoken = wait_for(
            lambda: browser.execute_script("return window.__spoken.filter(u => u.text.includes('coup légal'))")
        )
        assert spoken[-1]["lang"] == "fr-FR"
        assert spoken[-1]["text"].startswith(shown)  # the very line shown, then whose turn it is
        assert "À Joueur 2 de jouer" in spoken[-1]["text"]
        # pointing at a place says its piece's colour in words (and aloud)
        browser.find_element("css selector", "#board g.place[data-cell='9,0']").click()
        pointed = wait_for(lambda: text_of(browser, "pointed").startswith("A10") and text_of(browser, "pointed"))
        assert re.fullmatch(r"A10\u00a0: le jeton (vert|jaune|orange|bleu|rose|joker)", pointed), pointed
        assert browser.execute_script("return window.__spoken[window.__spoken.length - 1].text") == pointed
    finally:
        server.close()
