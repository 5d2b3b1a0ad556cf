"""The whole guided calibration of each game in a real browser (headless Chromium, selenium) against
the simulated camera: a simulated person sets the board as each step asks, the page captures, checks
and saves; the saved profile then reads a fresh position of that copy (not the standard edition) exactly."""

from __future__ import annotations

import pytest
import yaml
from test_web_browser import IN_A_BROWSER, start_browser, wait_for

from calibration.guided import steps_for
from controller.games import registry
from controller.profile import default_profile
from controller.service.config import load_config
from controller.vision.geometry import LatticeGeometry, project
from controller.vision.reader import BoardReader
from controller.web import WebApp, WebServer
from simulation.render import camera_homography
from simulation.setup_person import LiveCamera, SetupPerson, setup_world, simulated_camera
from simulation.world import StubRig

pytestmark = IN_A_BROWSER
PIN = "975310"


@pytest.fixture(scope="module")
def browser():
    driver = start_browser(412, 1400)
    yield driver
    driver.quit()


@pytest.mark.parametrize("game", ["colorpop", "blockers", "flipop", "stay-alive"])
def test_guided_calibration_in_the_browser(browser, tmp_path, game):
    from selenium.webdriver.common.by import By

    keys = dict(registry.get(game).demo)
    rig = StubRig(keys, tmp_path / "j.sqlite", seed=1, troubles=False, max_moves=2)
    world = setup_world(game, seed=1)
    camera = LiveCamera(world, simulated_camera(world))
    person = SetupPerson(world, seed=2)
    config = tmp_path / "config.yaml"
    config.write_text(yaml.safe_dump(keys) + "profile: null\n", "utf-8")
    server = WebServer(WebApp(rig.loop, sensor=camera, pin=PIN, config_path=config), "127.0.0.1", 0)
    assert server.start(), server.error
    steps = steps_for(world.profile)
    try:
        browser.get(f"http://127.0.0.1:{server.port}/")
        find = browser.find_element
        wait_for(lambda: find(By.ID, "cal-game").get_attribute("value") == game)
        pin = find(By.ID, "pin")
        pin.clear()
        pin.send_keys(PIN)
        find(By.ID, "cal-start").click()
        box = find(By.ID, "cal-steps-box")
        for step in steps:
            wait_for(lambda s=step: box.get_attribute("data-step") == str(s.number) and box.is_displayed())
            assert find(By.ID, "cal-sentence").text == step.sentence
            if step.drawing is not None:  # the drawing shows every piece the step asks for
                pieces = sum(cell != "." for row in step.drawing.cells for cell in row)
                assert len(browser.find_elements(By.CSS_SELECTOR, "#cal-drawing .piece")) == pieces
            person.follow(step)  # the person reads the sentence and the drawing, and sets the board
            find(By.ID, "cal-capture").click()
            wait_for(
                lambda s=step: (
                    f"picture {s.number} ({s.title}) taken" in find(By.ID, "cal-answer").text
                    or find(By.ID, "cal-result").get_attribute("data-ok") is not None
                ),
                timeout=30,
            )
        result = find(By.ID, "cal-result")
        wait_for(lambda: result.get_attribute("data-ok") is not None, timeout=60)
        assert result.get_attribute("data-ok") == "yes", find(By.ID, "cal-answer").text
        assert find(By.ID, "cal-report").text.startswith("classes apart")
        assert len(browser.find_elements(By.CSS_SELECTOR, ".cal-picture img")) == len(steps)
        find(By.ID, "cal-name").send_keys(f"my {game}")  # a space: refused in a sentence
        find(By.ID, "cal-save").click()
        wait_for(lambda: "cannot name a profile" in find(By.ID, "cal-answer").text)
        name = find(By.ID, "cal-name")
        name.clear()
        name.send_keys(f"my-{game}")
        find(By.ID, "cal-save").click()
        wait_for(lambda: "now uses it" in find(By.ID, "cal-answer").text)
    finally:
        server.close()
    profile = load_config(config).setup.profile
    later = person.fresh_position(11)
    frame = camera.latest_frame
    reading = BoardReader(profile).read(frame)
    assert reading.snapshot is not None, reading.problem
    assert reading.snapshot.cells == later.cells and reading.snapshot.line("doors") == later.line("doors")
    assert BoardReader(default_profile(game)).read(frame).snapshot != reading.snapshot  # not the standard copy


def test_a_refused_calibration_circles_the_doubted_place_on_its_picture(browser, tmp_path):
    """A wrong PIN is refused; a token forgotten on the empty board refuses that picture when it is taken,
    named in words and circled where it is on the picture; the step stays open; nothing is saved."""
    from selenium.webdriver.common.by import By

    keys = dict(registry.get("colorpop").demo)
    rig = StubRig(keys, tmp_path / "j.sqlite", seed=1, troubles=False, max_moves=2)
    world = setup_world("colorpop", seed=1)
    person = SetupPerson(world, seed=2)
    config = tmp_path / "config.yaml"
    config.write_text(yaml.safe_dump(keys) + "profile: null\n", "utf-8")
    camera = LiveCamera(world, simulated_camera(world))
    server = WebServer(WebApp(rig.loop, sensor=camera, pin=PIN, config_path=config), "127.0.0.1", 0)
    assert server.start(), server.error
    try:
        browser.get(f"http://127.0.0.1:{server.port}/")
        find = browser.find_element
        wait_for(lambda: find(By.ID, "cal-game").get_attribute("value") == "colorpop")
        pin = find(By.ID, "pin")
        pin.clear()
        pin.send_keys("111111")
        find(By.ID, "cal-start").click()
        wait_for(lambda: "Refused (403)" in find(By.ID, "cal-answer").text)
        assert not find(By.ID, "cal-steps-box").is_displayed()
        pin.clear()
        pin.send_keys(PIN)
        find(By.ID, "cal-start").click()
        box = find(By.ID, "cal-steps-box")
        empty = steps_for(world.profile)[0]
        wait_for(lambda: box.get_attribute("data-step") == "1" and box.is_displayed())
        board = person.follow(empty)
        cells = [list(row) for row in board.cells]
        cells[9][4] = "G"  # a green token forgotten at the bottom of slide E
        world.set_board(board.with_cells(cells))
        find(By.ID, "cal-capture").click()  # refused when taken, not at the end
        result = find(By.ID, "cal-result")
        wait_for(lambda: result.get_attribute("data-ok") is not None, timeout=60)
        assert result.get_attribute("data-ok") == "no"
        assert "picture 1 (the empty board)" in find(By.ID, "cal-problem").text
        assert "E10" in find(By.ID, "cal-problem").text
        circles = browser.find_elements(By.CSS_SELECTOR, '.cal-picture[data-step="1"] circle.doubt')
        assert [c.get_attribute("data-cell") for c in circles] == ["9,4"]
        where = browser.execute_script(  # the circle's centre, as a fraction of the picture shown
            "const f = document.querySelector('.cal-picture[data-step=\"1\"]');"
            "const i = f.querySelector('img').getBoundingClientRect();"
            "const c = f.querySelector('circle.doubt').getBoundingClientRect();"
            "return [(c.x + c.width / 2 - i.x) / i.width, (c.y + c.height / 2 - i.y) / i.height];"
        )
        true = project(
            camera_homography(LatticeGeometry.from_profile(world.profile), seed=3, size=(640, 480)), [[4, 9]]
        )[0]
        assert abs(where[0] - true[0] / 640) < 0.01 and abs(where[1] - true[1] / 480) < 0.01
        assert "picture 1, E10: does not look like the other empty places" in find(By.ID, "cal-doubts").text
        assert not find(By.ID, "cal-save-box").is_displayed()
        assert box.is_displayed() and box.get_attribute("data-step") == "1"  # to take the picture again
    finally:
        server.close()
    assert "profile: null" in config.read_text("utf-8")
