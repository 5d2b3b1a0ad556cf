"""The live page in a real browser (headless Chromium driven by selenium) against the stand-in rig."""

from __future__ import annotations

import shutil
import tempfile
import time

import pytest
from colorpop_helpers import take_a_lone_token_off

from controller.web import WebApp, WebServer
from simulation.world import StubRig

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")
#: The marks of a test module that drives the page in a real browser (one place, imported by the others).
IN_A_BROWSER = [
    pytest.mark.slow,  # a real browser
    pytest.mark.skipif(
        CHROMIUM is None or CHROMEDRIVER is None,
        reason="Chromium and chromedriver are not installed (apt-get install chromium chromium-driver)",
    ),
]
pytestmark = IN_A_BROWSER


def in_a_browser(test):
    """Marks one test that drives the page in a real browser, as `IN_A_BROWSER` marks a whole module."""
    for mark in IN_A_BROWSER:
        test = mark(test)
    return test


PIN = "135790"
COLORPOP = {"game": "colorpop", "players": 2}


#: Widths up to this are phones: Chromium's device emulation (headless Chromium will not make a
#: window narrower than 500 pixels, so a "phone" window would silently be 500 wide).
PHONE_MAX_WIDTH = 600
PHONE_AGENT = (
    "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Mobile Safari/537.36"
)


def start_browser(width: int = 412, height: int = 915, accept_language: str = "en-GB,en"):
    """Headless Chromium with a fresh profile and no network beyond this machine; up to
    `PHONE_MAX_WIDTH` wide it is a phone (touch, device pixel ratio 2.6, a phone's user agent, and
    exactly `width` CSS pixels wide), wider a desktop window. `accept_language`: what it asks pages for."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service as DriverService

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    profile = tempfile.mkdtemp(prefix="referee-chromium-")
    for flag in (
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-dev-shm-usage",
        f"--user-data-dir={profile}",
    ):
        options.add_argument(flag)
    options.add_argument(f"--lang={accept_language.split(',')[0]}")
    options.add_experimental_option("prefs", {"intl.accept_languages": accept_language})
    phone = width <= PHONE_MAX_WIDTH
    if phone:
        metrics = {"width": width, "height": height, "pixelRatio": 2.625, "touch": True}
        options.add_experimental_option("mobileEmulation", {"deviceMetrics": metrics, "userAgent": PHONE_AGENT})
    else:
        options.add_argument(f"--window-size={width},{height}")
    driver = webdriver.Chrome(service=DriverService(CHROMEDRIVER), options=options)
    driver.referee_phone = phone
    quit_chromium = driver.quit

    def quit_and_remove_profile() -> None:
        """Each browser's profile is a few megabytes of /tmp: gone with the browser, not left by every run."""
        try:
            quit_chromium()
        finally:
            shutil.rmtree(profile, ignore_errors=True)

    driver.quit = quit_and_remove_profile
    return driver


def set_viewport(driver, width: int, height: int) -> None:
    """Resize the page's viewport (a phone's emulated screen, or a desktop window)."""
    if getattr(driver, "referee_phone", False):
        driver.execute_cdp_cmd(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": height, "deviceScaleFactor": 2.625, "mobile": True},
        )
    else:
        driver.set_window_size(width, height)


@pytest.fixture(scope="module")
def browser():
    driver = start_browser()
    yield driver
    driver.quit()


@pytest.fixture
def served(tmp_path):
    rig = StubRig(COLORPOP, tmp_path / "j.sqlite", seed=3, troubles=False, max_moves=6)
    app = WebApp(rig.loop, pin=PIN)
    server = WebServer(app, "127.0.0.1", 0)
    assert server.start(), server.error
    yield rig, f"http://127.0.0.1:{server.port}/"
    server.close()


def wait_for(condition, timeout: float = 10.0, tick=None):
    """Poll `condition` (ticking the rig meanwhile when `tick` is given) until it is truthy."""
    from selenium.common.exceptions import StaleElementReferenceException

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if tick is not None:
            tick()
        try:
            value = condition()
        except StaleElementReferenceException:  # the page was redrawn meanwhile: look again
            value = None
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError("the page did not show it in time")


def history(browser) -> list[str]:
    """The verdict lines, read in one go (the page redraws the list whenever the state changes)."""
    return browser.execute_script("return [...document.querySelectorAll('#history li')].map(li => li.textContent)")


def marked_cells(browser, selector: str) -> list[str]:
    return browser.execute_script(
        "return [...document.querySelectorAll(arguments[0])].map(g => g.getAttribute('data-cell'))", selector
    )


def test_a_verdict_appears_after_a_simulated_move(browser, served):
    rig, url = served
    steps = rig.player.steps()
    while not rig.loop.session.referee.started:
        rig.driver.do(next(steps))
    browser.get(url)
    wait_for(lambda: any("starting board accepted" in line for line in history(browser)))
    assert not any("legal move" in line for line in history(browser))
    while rig.player.moves < 1:
        rig.driver.do(next(steps))
    line = wait_for(lambda: next((x for x in history(browser) if "legal move" in x), None))
    assert line.startswith("player 1: legal move, ") and " removed at " in line
    assert "player 2 to move" in browser.find_element("id", "turn").text


def test_an_illegal_moves_places_are_highlighted_and_corrections_listed(browser, served):
    from selenium.webdriver.common.by import By

    rig, url = served
    steps = rig.player.steps()
    while rig.player.moves < 1:
        rig.driver.do(next(steps))
    browser.get(url)
    wait_for(lambda: any("legal move" in line for line in history(browser)))
    legal = rig.loop.session.referee.expected()
    col = take_a_lone_token_off(rig)
    marked = wait_for(lambda: marked_cells(browser, "#board g.place.illegal"))
    assert marked == [f"9,{col}"]
    assert "Illegal move" in browser.find_element(By.ID, "status").text
    steps_shown = browser.execute_script(
        "return [...document.querySelectorAll('#corrections li')].map(li => li.textContent)"
    )
    assert steps_shown and steps_shown[0].startswith("put the ") and steps_shown[0].endswith(f"{chr(65 + col)}10")
    rig.world.set_board(legal)
    rig.driver.run_frames(30)
    wait_for(lambda: not marked_cells(browser, "#board g.place.illegal"))
    assert browser.find_element(By.ID, "correction-box").get_attribute("hidden") is not None


def test_a_new_game_needs_the_pin(browser, served):
    from selenium.webdriver.common.by import By

    rig, url = served
    rig.driver.run_frames(5)
    browser.get(url)
    browser.execute_script("sessionStorage.clear()")
    browser.get(url)
    wait_for(lambda: "game 1" in browser.find_element(By.ID, "title").text)
    answer = browser.find_element(By.ID, "control-answer")
    pin = browser.find_element(By.ID, "pin")
    pin.clear()
    browser.find_element(By.ID, "new-game").click()
    wait_for(lambda: "Refused (401)" in answer.text)
    pin.send_keys("111111")
    browser.find_element(By.ID, "new-game").click()
    wait_for(lambda: "Refused (403)" in answer.text)
    assert rig.loop.session.game_id == 1
    pin.clear()
    pin.send_keys(PIN)
    browser.find_element(By.ID, "new-game").click()
    wait_for(lambda: "game 2" in browser.find_element(By.ID, "title").text, tick=lambda: rig.driver.run_frames(1))
    assert rig.loop.session.game_id == 2
    assert "new game" in answer.text


def test_a_past_game_is_stepped_through_verdict_by_verdict(browser, served):
    from selenium.webdriver.common.by import By

    rig, url = served
    steps = rig.player.steps()
    while rig.player.moves < 2:
        rig.driver.do(next(steps))
    browser.get(url)
    browser.find_element(By.ID, "load-games").click()
    game = wait_for(lambda: browser.find_elements(By.CSS_SELECTOR, "#games li"))
    assert game[0].text.startswith("game 1: Colorpop")
    game[0].click()
    line = browser.find_element(By.ID, "step-line")
    wait_for(lambda: line.text.startswith("starting board accepted"))
    stored = rig.loop.session.verdicts
    assert f"verdict 1 of {len(stored)}" in browser.find_element(By.ID, "step-title").text
    browser.find_element(By.ID, "step-next").click()
    wait_for(lambda: "verdict 2 of" in browser.find_element(By.ID, "step-title").text)
    assert line.text.startswith("player 1: ")
    pieces = browser.find_elements(By.CSS_SELECTOR, "#step-board .piece")
    board = rig.loop.session.journal.entries(1)[1].payload
    assert len(pieces) == sum(ch not in ". \n" for ch in board)


def test_setting_up_aim_lights_and_switches_from_the_page(browser, tmp_path):
    """The setup panel: the aim advice for the camera's picture, a lights-test button with the PIN,
    and the switch test showing a slide's moves live (Stay Alive, switches read from the world)."""

    from selenium.webdriver.common.by import By

    from controller.hardware.config import validate_gpio
    from controller.hardware.feedback import Feedback
    from controller.profile import default_profile
    from simulation.render import Scene, render_snapshot

    rig = StubRig(
        {"game": "stay-alive", "players": 2, "seats": ["B", "Y"]},
        tmp_path / "j.sqlite",
        seed=4,
        troubles=False,
        max_moves=2,
    )
    profile = default_profile("stay-alive")

    class Sensor:
        latest_frame = render_snapshot(rig.world.board, profile, seed=1, scene=Scene(bump=(-600, 0, 0)))
        latest_reading = None
        reader = None

    gpio = validate_gpio({"backend": "mock"})
    feedback = Feedback.from_config(gpio, tempo=0.01)
    app = WebApp(rig.loop, sensor=Sensor(), switches=rig.switches, pin=PIN, feedback=feedback)
    server = WebServer(app, "127.0.0.1", 0)
    assert server.start(), server.error
    try:
        browser.get(f"http://127.0.0.1:{server.port}/")
        wait_for(lambda: "Stay Alive" in browser.find_element(By.ID, "title").text)
        browser.find_element(By.ID, "aim-check").click()
        wait_for(lambda: "move the camera left" in browser.find_element(By.ID, "aim-lines").text)
        pin = browser.find_element(By.ID, "pin")
        pin.clear()
        pin.send_keys(PIN)
        browser.find_element(By.ID, "lights-load").click()
        button = wait_for(
            lambda: next(
                (
                    b
                    for b in browser.find_elements(By.CSS_SELECTOR, "#lights-buttons button")
                    if b.text.startswith("pattern: illegal")
                ),
                None,
            )
        )
        red = feedback.pin_factory.pin(gpio.pins.red)
        assert not red.state
        button.click()
        wait_for(lambda: red.state)
        browser.find_element(By.ID, "switch-start").click()
        wait_for(lambda: "orange slide 3" in browser.find_element(By.ID, "switch-table").text)
        board = rig.world.board
        orange = board.line("orange")
        moved = "A" if orange[2] != "A" else "C"
        rig.world.set_board(board.with_line("orange", orange[:2] + (moved,) + orange[3:]))
        wait_for(
            lambda: (
                browser.execute_script("return document.querySelectorAll('#switch-table tr')[2].className") == "moved"
            )
        )
        assert "orange slide 1 never changed" in browser.find_element(By.ID, "switch-problems").text
        browser.find_element(By.ID, "switch-stop").click()
    finally:
        server.close()
        feedback.close()
