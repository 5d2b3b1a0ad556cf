"""A game against the computer through the live page, in a real browser (headless Chromium): the
page shows the computer's move in words and on the board, refuses another move, and offers the
coach (every legal move, a hint with the PIN, journalled) to the person to move. A whole game is
played to its end through the page, the simulated person reading the computer's moves off the page
(wrongly at first now and then); in Blockers! the person taps the tiles drawn for the computer."""

from __future__ import annotations

import time
from concurrent.futures import Future

from test_web_browser import PIN, history, in_a_browser, marked_cells, start_browser, wait_for
from web_helpers import with_client

from controller.ai.table import legal_moves, move_cells
from controller.errors import RefereeError
from controller.language import said
from controller.record import COMPUTER_MOVE, COMPUTER_RACK, HINT
from controller.referee import NOT_THE_COMPUTERS_MOVE
from controller.web import WebApp, WebServer
from controller.words import result_line
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


class PageHand:
    """The simulated person at the table, going by the page: it reads the computer's move off the page
    (the words shown, and the move the page was sent with them) once the page has caught up with the
    referee, and taps the tiles drawn for the computer (Blockers!) on the page, with the PIN."""

    def __init__(self, rig: StubRig, browser) -> None:
        self.rig = rig
        self.browser = browser
        self.read = 0  # computer moves read off the page
        self.taps: list[str] = []  # the racks given through the page, and what the page answered

    def caught_up(self) -> bool:
        count = self.browser.execute_script("return state ? state.verdict_count : -1")
        return count == len(self.rig.loop.session.verdicts)

    def shown_move(self) -> str | None:
        if not self.caught_up():
            time.sleep(0.02)  # the page has not heard the last verdict yet: look again in a moment
            return None
        move, line = self.browser.execute_script(
            "return [state.computer.move && state.computer.move.move, $('computer-move').textContent]"
        )
        if move is None:
            return None
        engine = self.rig.loop.session.referee.engine
        assert said(engine.move_words(move), "en") in line  # the words a person reads say that move
        self.read += 1
        return move

    def submit(self, name: str, args: dict) -> Future:
        """The simulated person's commands: a rack is tapped on the page, tile by tile, and given."""
        from selenium.webdriver.common.by import By

        future: Future = Future()
        if name != "rack":
            return self.rig.loop.submit(name, **args)
        tiles = args["tiles"].split()
        colour, wanted = tiles[0][0], {t[1] for t in tiles}
        box = f"details.rack[data-colour='{colour}']"
        wait_for(lambda: self.browser.find_elements(By.CSS_SELECTOR, box), tick=lambda: self.rig.driver.run_frames(1))
        self.browser.execute_script(f'document.querySelector("{box}").open = true')
        # each tap in one go in the page (it redraws itself whenever the referee's state comes in)
        tap = (
            "const b = document.querySelector(arguments[0]); if ((b.ariaPressed === 'true') !== arguments[1]) b.click()"
        )
        for glyph in self.rig.loop.session.referee.engine.rack_glyphs:
            self.browser.execute_script(tap, f"{box} button.tile[data-glyph='{glyph}']", glyph in wanted)
        self.browser.execute_script(
            "$('rack-answer').textContent = ''; document.querySelector(arguments[0]).click();",
            f"{box} button.give-rack",
        )
        answer = wait_for(
            lambda: self.browser.find_element(By.ID, "rack-answer").text, tick=lambda: self.rig.driver.run_frames(1)
        )
        self.taps.append(f"{args['tiles']} -> {answer}")
        if answer.startswith("Refused"):
            future.set_exception(RefereeError(answer))
        else:
            future.set_result({"ok": True})
        return future


def _served(rig: StubRig):
    server = WebServer(WebApp(rig.loop, pin=PIN), "127.0.0.1", 0)
    assert server.start(), server.error
    browser = start_browser(1200, 1600)
    browser.get(f"http://127.0.0.1:{server.port}/")
    pin = wait_for(lambda: browser.find_element("id", "pin"))
    pin.clear()
    pin.send_keys(PIN)
    return server, browser


COLORPOP_AGAINST = {"game": "colorpop", "players": 2, "secrets": ["P", None], "computer": [None, "beginner"]}


@in_a_browser
def test_a_colorpop_game_against_the_computer_to_its_end_through_the_page(tmp_path):
    """Colorpop: of the games a person can play against the computer, the one that ends soonest (a
    player wins at once when the last token of their secret colour goes: about 25 moves here, where
    Stay Alive took 55 to 180 and Flipop ran past 200 in the same simulation). The person makes
    the computer's moves as the page shows them, half the time another move first, which the page
    refuses and the person puts back; the game ends, the computer reveals its colour, and the page
    shows the result."""
    rig = StubRig(COLORPOP_AGAINST, tmp_path / "j.sqlite", seed=0, troubles=False, max_moves=200)
    rig.player.computer_mistakes = 0.5
    server, browser = _served(rig)
    try:
        hand = PageHand(rig, browser)
        rig.player.shown_move = hand.shown_move
        deadline = time.monotonic() + 120
        for step in rig.player.steps():
            rig.driver.do(step)
            assert time.monotonic() < deadline, "the game against the computer did not end in time"
        rig.driver.run(rig.player.finish())
        referee = rig.loop.session.referee
        assert referee.over
        verdicts = rig.loop.session.verdicts
        chosen = [v for v in verdicts if v.get("action") == COMPUTER_MOVE]
        assert len(chosen) >= 5 and hand.read == len(chosen)
        refused = [v for v in verdicts if v.get("reason") == NOT_THE_COMPUTERS_MOVE]
        assert refused  # some of its moves were first made wrongly, and put back
        # the page shows the end: the result in words, the winner's row, the refusals in the history
        result = referee.result()
        assert result.finished and result.winners
        wanted = said(result_line(result), "en")
        turn = wait_for(
            lambda: browser.find_element("id", "turn").text.lower() == wanted.lower() and wanted,
            tick=lambda: rig.driver.run_frames(1),
        )
        assert turn
        winners = browser.execute_script("return [...document.querySelectorAll('#seats tr.winner')].length")
        assert winners == len(result.winners)
        assert any(x.startswith("that is not the computer's move") for x in history(browser))
        assert any(v.get("verdict") == "reveal" and v["seat"] == 1 for v in verdicts)  # its colour, shown
        assert browser.find_element("id", "computer-move").get_attribute("hidden") is not None
    finally:
        browser.quit()
        server.close()


BLOCKERS_AGAINST = {
    "game": "blockers",
    "variant": "two-player",
    "players": 2,
    "seats": [["R", "G"], ["B", "Y"]],
    "computer": [None, "beginner"],
}


@in_a_browser
def test_blockers_the_computers_tiles_are_tapped_on_the_page(tmp_path):
    """Blockers!: the person draws the computer's tiles (five of each of its colours, then one after each
    of its placements) and taps them on the page; a tile already on the board tapped by mistake is
    refused with why, and put right; the computer plays from exactly the tiles tapped."""
    rig = StubRig(BLOCKERS_AGAINST, tmp_path / "j.sqlite", seed=3, troubles=False, max_moves=9)
    rig.player.computer_mistakes = 1.0
    server, browser = _served(rig)
    try:
        hand = PageHand(rig, browser)
        rig.player.shown_move = hand.shown_move
        rig.driver.submit = hand.submit
        deadline = time.monotonic() + 120
        for step in rig.player.steps():
            rig.driver.do(step)
            assert time.monotonic() < deadline
        verdicts = rig.loop.session.verdicts
        if verdicts[-1].get("action") == COMPUTER_MOVE and len(verdicts) == len(rig.player.intended) + 1:
            verdicts = verdicts[:-1]
        assert verdicts == rig.player.intended
        racks = [v for v in verdicts if v.get("action") == COMPUTER_RACK]
        assert [len(v["tiles"].split()) for v in racks[:2]] == [5, 5]  # its two first racks, tapped whole
        assert len(racks) >= 4  # then the tiles drawn after its placements
        # each tile already played tapped by mistake (on the board, or captured) refused in words on the page
        refusals = [t for t in hand.taps if "-> Refused (409): " in t]
        assert refusals and len(rig.driver.refusals) == len(refusals)
        assert all(" cannot have been drawn: it " in t for t in refusals)
        told: dict[str, list[str]] = {}
        for v in verdicts:
            if v.get("action") == COMPUTER_RACK:
                told[v["tiles"][0]] = v["tiles"].split()
            elif v.get("action") == COMPUTER_MOVE:
                assert v["move"].split()[0] in told[v["move"][0]]
        assert hand.read >= 3
        lines = history(browser)
        assert any(line.startswith("tiles drawn for the computer (player 2 (blue and yellow))") for line in lines)
    finally:
        browser.quit()
        server.close()
