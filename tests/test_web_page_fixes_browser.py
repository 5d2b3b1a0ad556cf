"""What a newcomer met on the live page, in a real browser (headless Chromium, a phone emulated at a
phone's width, and a desktop window): results worded right, a doubtful reading blaming nobody, the
way out of a false "illegal", verdict numbers whole, a stopped referee said plainly, the first
screen used on a desktop, a quiet switch test, the players' names."""

from __future__ import annotations

import pytest
from test_accept_board import _stuck_colorpop
from test_web_browser import IN_A_BROWSER, history, start_browser, wait_for

from controller.service.journal import Journal
from controller.web import WebApp, WebServer
from simulation.world import StubRig

pytestmark = IN_A_BROWSER
PIN = "246802"


@pytest.fixture(scope="module")
def phone():
    driver = start_browser(390, 844)
    yield driver
    driver.quit()


def serve(rig: StubRig, **kwargs):
    server = WebServer(WebApp(rig.loop, pin=PIN, **kwargs), "127.0.0.1", 0)
    assert server.start(), server.error
    return server, f"http://127.0.0.1:{server.port}/"


def click(browser, element_id: str) -> None:
    """Click as a finger would: the button scrolled to the middle (not under the sticky header)."""
    button = browser.find_element("id", element_id)
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", button)
    button.click()


def text_of(browser, element_id: str) -> str:
    return browser.find_element("id", element_id).text


def test_the_phone_is_a_phone_at_a_phones_width(phone):
    phone.get("data:text/html,<meta name=viewport content='width=device-width, initial-scale=1'><p>x")
    width, touch = phone.execute_script("return [window.innerWidth, navigator.maxTouchPoints]")
    assert width == 390 and touch > 0


def test_a_doubtful_reading_blames_nobody_and_the_board_can_be_declared_right(phone, tmp_path):
    rig = _stuck_colorpop(tmp_path)
    server, url = serve(rig)
    try:
        phone.get(url)
        status = wait_for(lambda: "no player is blamed" in text_of(phone, "status") and text_of(phone, "status"))
        assert "Illegal move" not in status
        assert "no player is blamed" in history(phone)[0] and not history(phone)[0].startswith("player")
        assert phone.find_element("id", "accept-box").get_attribute("hidden") is None
        phone.find_element("id", "pin").clear()
        click(phone, "accept")
        wait_for(lambda: "Refused (401)" in text_of(phone, "accept-answer"))
        phone.find_element("id", "pin").send_keys(PIN)
        click(phone, "accept")
        tick = lambda: rig.driver.run_frames(1)  # noqa: E731 - the loop runs the command on its tick
        wait_for(lambda: "play goes on" in text_of(phone, "accept-answer"), tick=tick)
        wait_for(lambda: text_of(phone, "status") == "", tick=tick)
        assert history(phone)[0].startswith("a person declared the board right")
        assert phone.find_element("id", "accept-box").get_attribute("hidden") is not None
        assert "to move" in text_of(phone, "turn")
    finally:
        server.close()
    journal = Journal(tmp_path / "j.sqlite", read_only=True)
    try:
        actions = [e for e in journal.entries(rig.loop.session.game_id) if e.kind == "action"]
        assert actions[-1].verdict["action"] == "accept-board"
    finally:
        journal.close()


def test_colorpop_over_before_the_secret_colours_says_no_winner_yet(phone, tmp_path):
    rig = StubRig({"game": "colorpop", "players": 3}, tmp_path / "j.sqlite", seed=4, troubles=False)
    rig.driver.run(rig.player.steps())
    assert rig.loop.session.referee.over
    server, url = serve(rig)
    try:
        phone.get(url)
        turn = wait_for(lambda: text_of(phone, "turn").startswith("No winner yet") and text_of(phone, "turn"))
        assert "reveal the secret colours" in turn and "Game over" not in turn
    finally:
        server.close()


def test_a_flipop_draw_says_draw(phone, tmp_path):
    rig = StubRig({"game": "flipop", "players": 2}, tmp_path / "j.sqlite", seed=1, troubles=False, max_moves=0)
    rig.driver.run(rig.player.steps())
    rig.driver.run_frames(20)
    rig.loop.execute("end", {})  # five balls each: ended by agreement, a draw
    server, url = serve(rig)
    try:
        phone.get(url)
        turn = wait_for(lambda: text_of(phone, "turn").startswith("Game over") and text_of(phone, "turn"))
        assert turn.startswith("Game over: a draw") and "won" not in turn
    finally:
        server.close()


def test_verdict_numbers_of_ten_and_more_keep_every_digit(phone, tmp_path):
    rig = StubRig({"game": "colorpop", "players": 2}, tmp_path / "j.sqlite", seed=3, troubles=True, max_moves=12)
    rig.driver.run(rig.player.steps())
    count = len(rig.loop.session.verdicts)
    assert count >= 10
    server, url = serve(rig)
    try:
        phone.get(url)
        wait_for(lambda: len(history(phone)) == count)
        numbers = phone.execute_script(
            "const h = document.getElementById('history').getBoundingClientRect();"
            "return [...document.querySelectorAll('#history li')].map(li => {"
            "  const r = li.getBoundingClientRect();"
            "  return [getComputedStyle(li, '::before').content, r.left >= h.left - 0.5]; })"
        )
        assert [n for n, _ in numbers] == [f'"{k}. "' for k in range(count, 0, -1)]
        assert all(inside for _, inside in numbers)
    finally:
        server.close()


def test_a_stopped_referee_is_said_plainly(phone, tmp_path):
    rig = StubRig({"game": "colorpop", "players": 2}, tmp_path / "j.sqlite", seed=3, troubles=False, max_moves=2)
    rig.driver.run(rig.player.steps())
    server, url = serve(rig)
    phone.get(url)
    wait_for(lambda: "to move" in text_of(phone, "turn"))
    assert phone.find_element("id", "offline").get_attribute("hidden") is not None
    server.close()
    banner = wait_for(lambda: text_of(phone, "offline"))
    assert "The referee has stopped or cannot be reached" in banner
    assert phone.execute_script("return document.body.classList.contains('offline')")


def test_the_desktop_layout_uses_the_first_screen(tmp_path):
    rig = StubRig({"game": "colorpop", "players": 2}, tmp_path / "j.sqlite", seed=3, troubles=False, max_moves=3)
    rig.driver.run(rig.player.steps())
    server, url = serve(rig)
    desktop = start_browser(1366, 768)
    try:
        desktop.get(url)
        wait_for(lambda: history(desktop))
        boxes = desktop.execute_script(
            "const out = {}; for (const id of ['status-box', 'board-box', 'seats-box', 'camera-box', 'history-box'])"
            " { const r = document.getElementById(id).getBoundingClientRect();"
            " out[id] = [r.left, r.top, r.right, r.bottom]; } return [out, window.innerHeight];"
        )
        rects, height = boxes
        # what is watched (the camera, the verdicts) stands beside the play, not below it
        assert rects["camera-box"][0] >= rects["board-box"][2] - 1
        assert rects["camera-box"][1] < 0.25 * height and rects["history-box"][1] < height
        # and the play column holds the status, the board and the players one under the other
        assert rects["status-box"][3] <= rects["board-box"][1] + 1
        assert rects["board-box"][3] <= rects["seats-box"][1] + 1
    finally:
        desktop.quit()
        server.close()


def test_the_switch_test_warns_of_nothing_before_a_slide_was_touched(phone, tmp_path):
    keys = {"game": "stay-alive", "players": 2, "seats": ["B", "Y"]}
    rig = StubRig(keys, tmp_path / "j.sqlite", seed=2, troubles=False, max_moves=1)
    server, url = serve(rig, switches=rig.switches)
    try:
        phone.get(url)
        wait_for(lambda: phone.find_element("id", "switch-box").get_attribute("hidden") is None)
        click(phone, "switch-start")
        rows = wait_for(lambda: len(phone.find_elements("css selector", "#switch-table tr")) == 14)
        assert rows
        problems = lambda: phone.execute_script(  # noqa: E731
            "return [...document.querySelectorAll('#switch-problems li')].map(li => [li.className, li.textContent])"
        )
        shown = wait_for(problems)
        assert [cls for cls, _ in shown] == ["ok"] and "move each slide" in shown[0][1]
        # one slide moved: now the slides not yet moved are named
        board = rig.world.board
        orange = list(board.line("orange"))
        orange[0] = "B" if orange[0] != "B" else "A"
        rig.world.set_board(board.with_line("orange", orange))
        shown = wait_for(lambda: len(problems()) == 13 and problems())
        assert all("never changed" in text for _, text in shown)
        click(phone, "switch-stop")
    finally:
        server.close()


def test_the_tables_page_shows_the_players_names(phone, tmp_path):
    rig = StubRig({"game": "colorpop", "players": 3}, tmp_path / "j.sqlite", seed=3, troubles=False, max_moves=2)
    rig.driver.run(rig.player.steps())
    server, url = serve(rig, names=["Ann", "Bob", "Cleo"])
    try:
        phone.get(url)
        wait_for(lambda: "Cleo to move" in text_of(phone, "turn"))
        seats = phone.execute_script(
            "return [...document.querySelectorAll('#seats td:first-child')].map(t => t.textContent)"
        )
        assert seats == ["Ann", "Bob", "Cleo"]
        assert any(line.startswith("Ann: legal move") for line in history(phone))
    finally:
        server.close()


def test_who_starts_is_counted_from_one_in_the_refusal(phone, tmp_path):
    rig = StubRig({"game": "colorpop", "players": 3}, tmp_path / "j.sqlite", seed=3, troubles=False, max_moves=1)
    rig.driver.run(rig.player.steps())
    server, url = serve(rig)
    try:
        phone.get(url)
        wait_for(lambda: "game 1" in text_of(phone, "title"))
        phone.find_element("id", "pin").clear()
        phone.find_element("id", "pin").send_keys(PIN)
        for field, value in (("ng-players", "3"), ("ng-first", "7")):
            box = phone.find_element("id", field)
            box.clear()
            box.send_keys(value)
        click(phone, "new-game")
        said = wait_for(lambda: "Refused" in text_of(phone, "control-answer") and text_of(phone, "control-answer"))
        assert "who starts: there is no player 7: the players are numbered 1 to 3" in said
        assert rig.loop.session.game_id == 1
    finally:
        server.close()


def test_colorpop_corrections_are_listed_slide_by_slide_on_the_page(phone, tmp_path):
    rig = StubRig({"game": "colorpop", "players": 2}, tmp_path / "j.sqlite", seed=3, troubles=False, max_moves=1)
    rig.driver.run(rig.player.steps())
    engine, state = rig.loop.session.referee.engine, rig.loop.session.referee.state
    one, _ = engine.apply(state, engine.legal_moves(state)[0])
    two, _ = engine.apply(one, engine.legal_moves(one)[-1])
    rig.world.set_board(engine.expected(two))  # two groups taken in one turn
    rig.driver.run_frames(60)  # an illegal board is called after the patience time
    assert rig.loop.session.referee.in_illegal
    server, url = serve(rig)
    try:
        phone.get(url)
        steps = wait_for(
            lambda: phone.execute_script(
                "return [...document.querySelectorAll('#corrections li')].map(li => li.textContent)"
            )
        )
        assert all(step.startswith(("slide ", "put the emptied slide")) for step in steps), steps
        assert len(steps) <= 10
    finally:
        server.close()


@pytest.mark.parametrize(
    ("keys", "rows", "cols"),
    [
        ({"game": "colorpop", "players": 2}, [str(r) for r in range(1, 11)], list("ABCDEFGHIJ")),
        (
            {"game": "blockers", "players": 3, "seats": ["R", "G", "B"]},
            list("ABCDEFGHI"),
            [str(c) for c in range(1, 10)],
        ),
        ({"game": "flipop", "players": 2}, ["1", "2", "3", "4", "5"], ["1", "2", "3", "4", "5"]),
        (
            {"game": "stay-alive", "players": 2, "seats": ["B", "Y"]},
            [str(r) for r in range(1, 8)],
            [str(c) for c in range(1, 8)],
        ),
    ],
)
def test_the_board_is_drawn_with_the_rows_and_columns_players_count(phone, tmp_path, keys, rows, cols):
    rig = StubRig(keys, tmp_path / "j.sqlite", seed=2, troubles=False, max_moves=2)
    rig.driver.run(rig.player.steps())
    server, url = serve(rig, switches=rig.switches)
    try:
        phone.get(url)
        wait_for(lambda: phone.find_elements("css selector", "#board .row-label"))
        labels = phone.execute_script(
            "const t = (s) => [...document.querySelectorAll(s)].map(e => e.textContent);"
            "return [t('#board .row-label'), t('#board .col-label'), t('#board g.place title')];"
        )
        assert labels[0] == rows and labels[1] == cols
        names = rig.loop.session.referee.engine.place_name
        assert labels[2][: len(cols)] == [names((0, c)) for c in range(len(cols))]  # the tooltips say the same
        if keys["game"] == "stay-alive":  # the slides' positions are notches, not letters read as coordinates
            slide_text = phone.execute_script(
                "return [...document.querySelectorAll('#board g.slide text')].map(e => e.textContent)"
            )
            assert slide_text == []
            assert all(line.startswith(("player", "starting")) for line in history(phone))
            assert not any(" 0," in line or "slide 0" in line for line in history(phone))
    finally:
        server.close()
