"""A game against the computer through the live page, in a real browser (headless Chromium): the
page shows the computer's move in words and on the board, refuses another move, and offers the
coach (every legal move, a hint with the PIN, journalled) to the person to move."""

from __future__ import annotations

from test_web_browser import PIN, history, in_a_browser, marked_cells, start_browser, wait_for
from web_helpers import with_client

from controller.ai.table import legal_moves, move_cells
from controller.record import HINT
from controller.referee import NOT_THE_COMPUTERS_MOVE
from controller.web import WebApp, WebServer
from simulation.world import StubRig

FLIPOP = {"game": "flipop", "players": 2, "computer": [None, "beginner"]}


def _cells(cells) -> list[str]:
    return sorted(f"{r},{c}" for r, c in cells)


@in_a_browser
def test_a_game_against_the_computer_through_the_page(tmp_path):
    from selenium.webdriver.common.by import By

    rig = StubRig(FLIPOP, tmp_path / "j.sqlite", seed=2, troubles=False, max_moves=6)
    rig.player.computer_mistakes = 1.0
    server = WebServer(WebApp(rig.loop, pin=PIN), "127.0.0.1", 0)
    assert server.start(), server.error
    browser = start_browser(1200, 1600)
    try:
        steps = rig.player.steps()
        while rig.player.moves < 1:  # the person (player 1) moves
            rig.driver.do(next(steps))
        browser.get(f"http://127.0.0.1:{server.port}/")
        # the computer's move, in words and drawn on the board
        line = wait_for(
            lambda: browser.find_element(By.ID, "computer-move").text, tick=lambda: rig.driver.run_frames(1)
        )
        awaited = rig.loop.session.referee.awaited
        engine = rig.loop.session.referee.engine
        assert line.startswith("The computer plays player 2") and engine.move_words(awaited.move) in line
        wanted = _cells(move_cells(engine, rig.loop.session.referee.state, awaited.move))
        assert wanted and wait_for(lambda: sorted(marked_cells(browser, "#board g.place.shown")) == wanted)
        assert browser.find_element(By.ID, "coach-box").get_attribute("hidden") is not None  # not the person's turn
        # the person first makes another move: refused, then put back, then the computer's move is made
        while rig.player.moves < 2:
            rig.driver.do(next(steps))
        lines = wait_for(lambda: [x for x in history(browser) if x.startswith("that is not the computer's move")])
        assert engine.move_words(awaited.move) in lines[0]
        wait_for(lambda: sum(": legal move" in x for x in history(browser)) >= 2)
        assert any(v.get("reason") == NOT_THE_COMPUTERS_MOVE for v in rig.loop.session.verdicts)
        # the person to move asks the coach: every legal move, one drawn when picked
        coach = wait_for(
            lambda: browser.find_element(By.ID, "coach-box").is_displayed() and browser.find_element(By.ID, "coach-box")
        )
        coach.find_element(By.ID, "moves").click()
        buttons = wait_for(lambda: browser.find_elements(By.CSS_SELECTOR, "#legal-moves button"))
        state = rig.loop.session.referee.state
        assert len(buttons) == len(legal_moves(engine, state))
        buttons[0].click()
        first = legal_moves(engine, state)[0]
        assert wait_for(
            lambda: sorted(marked_cells(browser, "#board g.place.shown")) == _cells(move_cells(engine, state, first))
        )
        # a hint needs the PIN, and the journal records it as a hint
        pin = browser.find_element(By.ID, "pin")
        pin.clear()
        pin.send_keys(PIN)
        coach.find_element(By.ID, "hint").click()
        answer = wait_for(
            lambda: (
                browser.find_element(By.ID, "coach-answer").text.startswith("Hint: ")
                and browser.find_element(By.ID, "coach-answer").text
            ),
            timeout=30,
            tick=lambda: rig.driver.run_frames(1),
        )
        hinted = [v for v in rig.loop.session.verdicts if v.get("action") == HINT]
        assert len(hinted) == 1 and engine.move_words(hinted[0]["move"]) in answer
        wait_for(lambda: any(x.startswith("hint for player 1") for x in history(browser)))
        # a new game from the page: the computer takes player 1 at the strong level, no help
        from selenium.webdriver.support.ui import Select

        Select(browser.find_element(By.ID, "ng-computer")).select_by_visible_text("player 1")
        Select(browser.find_element(By.ID, "ng-level")).select_by_value("strong")
        browser.find_element(By.ID, "ng-coach").click()
        browser.find_element(By.ID, "new-game").click()
        wait_for(lambda: rig.loop.session.game_id == 2, tick=lambda: rig.driver.run_frames(1))
        assert rig.loop.session.computer == {0: "strong"} and rig.loop.session.coach is False
    finally:
        browser.quit()
        server.close()


def test_the_coach_api_answers_in_words_and_can_be_turned_off(tmp_path):
    rig = StubRig({**FLIPOP, "coach": False}, tmp_path / "j.sqlite", seed=2, troubles=False, max_moves=2)
    steps = rig.player.steps()
    rig.driver.do(next(steps))
    app = WebApp(rig.loop, pin=PIN)

    async def body(client):
        answer = await client.get("/api/moves")
        assert answer.status == 409 and "plays without help" in (await answer.json())["error"]
        answer = await client.post("/api/hint", json={}, headers={"X-Referee-PIN": PIN})
        assert answer.status == 409
        answer = await client.post("/api/hint", json={})
        assert answer.status == 401  # a hint is journalled: it needs the PIN like any change

    with_client(app, body)
