"""Setting up a copy in a real browser (headless Chromium): the aim drawn on the picture, corners dragged
on a copy without markers, and Stay Alive's holes taken step by step from the simulated camera."""

from __future__ import annotations

import pytest
from test_web_browser import IN_A_BROWSER, start_browser, wait_for
from web_helpers import PictureSensor

from calibration.holes import PAIRS, derive, observe
from controller.profile import default_profile, load_profile
from controller.vision.geometry import LatticeGeometry, project
from controller.vision.reader import BoardReader
from controller.web import WebApp, WebServer, holes_api
from simulation.holes_person import HolesPerson, HolesTable, copy_profile
from simulation.render import Scene, random_snapshot, render_scene
from simulation.unmarked import render_unmarked
from simulation.world import StubRig

pytestmark = IN_A_BROWSER
PIN = "135790"


@pytest.fixture(scope="module")
def browser():
    driver = start_browser(880, 1400)  # one column, with the picture wide enough to place corners to a pixel
    yield driver
    driver.quit()


def serve(rig: StubRig, sensor):
    server = WebServer(WebApp(rig.loop, sensor=sensor, pin=PIN), "127.0.0.1", 0)
    assert server.start(), server.error
    return server, f"http://127.0.0.1:{server.port}/"


def texts(browser, selector: str) -> list[str]:
    return browser.execute_script(
        "return [...document.querySelectorAll(arguments[0])].map(x => x.textContent)", selector
    )


def attributes(browser, selector: str, name: str) -> list[str]:
    return browser.execute_script(
        "return [...document.querySelectorAll(arguments[0])].map(x => x.getAttribute(arguments[1]))", selector, name
    )


def enter_pin(browser) -> None:
    pin = browser.find_element("id", "pin")
    pin.clear()
    pin.send_keys(PIN)


def test_the_aim_is_drawn_over_the_picture_and_says_which_way_to_move(browser, tmp_path):
    rig = StubRig({"game": "colorpop", "players": 2}, tmp_path / "j.sqlite", seed=1, troubles=False, max_moves=2)
    profile = default_profile("colorpop")
    board = random_snapshot("colorpop", profile, 5)
    sensor = PictureSensor(render_scene(board, profile, seed=1)[0])
    server, url = serve(rig, sensor)
    try:
        browser.get(url)
        browser.find_element("id", "aim-check").click()
        wait_for(lambda: len(attributes(browser, "#aim-svg g.marker.found", "data-corner")) == 4)
        assert texts(browser, "#aim-lines li") == ["markers found, board fully in view"]
        assert len(attributes(browser, "#aim-svg .lattice-place", "data-cell")) == profile.rows * profile.cols
        assert browser.find_element("id", "aim-picture").get_attribute("naturalWidth") not in (None, "0")
        assert browser.find_element("id", "corners-box").get_attribute("hidden") is not None  # markers: no handles
        sensor.latest_frame = render_scene(board, profile, seed=1, scene=Scene(bump=(-420, 0, 0)))[0]
        browser.find_element("id", "aim-check").click()
        wait_for(lambda: "move the camera left" in texts(browser, "#aim-lines li"))
        wait_for(
            lambda: set(attributes(browser, "#aim-svg g.marker.missing", "data-corner")) == {"top-left", "bottom-left"}
        )
        assert all("missing" in t for t in texts(browser, "#aim-svg g.marker.missing text"))
    finally:
        server.close()


def drag(browser, handle, to_picture_xy) -> None:
    """Press on `handle`, move to the point of the picture at `to_picture_xy` (its pixels) and let go."""
    from selenium.webdriver.common.actions.action_builder import ActionBuilder

    start = browser.execute_script(
        "const r = arguments[0].getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2];", handle
    )
    end = browser.execute_script(
        "const svg = document.getElementById('aim-svg'); const p = svg.createSVGPoint();"
        "p.x = arguments[0]; p.y = arguments[1]; const q = p.matrixTransform(svg.getScreenCTM());"
        "return [q.x, q.y];",
        *to_picture_xy,
    )
    actions = ActionBuilder(browser)
    actions.pointer_action.move_to_location(round(start[0]), round(start[1])).pointer_down()
    actions.pointer_action.move_to_location(round((start[0] + end[0]) / 2), round((start[1] + end[1]) / 2))
    actions.pointer_action.move_to_location(round(end[0]), round(end[1])).pointer_up()
    actions.perform()


def test_corners_dragged_on_a_copy_without_markers_are_saved_and_read_the_board(browser, tmp_path):
    rig = StubRig({"game": "colorpop", "players": 2}, tmp_path / "j.sqlite", seed=1, troubles=False, max_moves=2)
    profile = default_profile("colorpop")
    board = random_snapshot("colorpop", profile, 9)
    frame, hom = render_unmarked(board, profile, seed=2)
    sensor = PictureSensor(frame, BoardReader(profile))
    assert sensor.reader.read(frame).snapshot is None  # no markers: nothing read
    server, url = serve(rig, sensor)
    truth = project(hom, LatticeGeometry.from_profile(profile).corner_points())
    try:
        browser.get(url)
        enter_pin(browser)
        browser.find_element("id", "aim-check").click()
        wait_for(lambda: len(attributes(browser, "#aim-svg .corner-handle", "data-corner")) == 4)
        assert texts(browser, "#aim-lines li")[0].startswith("no board marker found")
        browser.execute_script("document.getElementById('aim-view').scrollIntoView({block: 'center'})")
        handles = browser.find_elements("css selector", "#aim-svg .corner-handle")
        drag(browser, handles[0], truth[2])  # top-left dragged past bottom-right: not a lattice
        wait_for(lambda: "convex quadrilateral" in browser.find_element("id", "corners-warning").text)
        for handle, point in zip(handles, truth):
            drag(browser, handle, point)
        wait_for(lambda: browser.find_element("id", "corners-warning").text == "")
        # the lattice follows the handles: its far corner place sits on the board's
        places = browser.execute_script(
            "return [...document.querySelectorAll('#aim-lattice .lattice-place')].map(c => [+c.getAttribute('cx'), "
            "+c.getAttribute('cy')])"
        )
        assert len(places) == profile.rows * profile.cols
        assert abs(places[-1][0] - truth[2][0]) < 2.5 and abs(places[-1][1] - truth[2][1]) < 2.5
        browser.find_element("id", "corners-save").click()
        answer = browser.find_element("id", "corners-answer")
        wait_for(lambda: "corners saved" in answer.text)
        mine = load_profile(tmp_path / "profiles" / "my-copy.yaml")
        assert abs(mine.get("corners")[0][0] - truth[0][0]) < 2.5
        assert BoardReader(mine).read(frame).snapshot.cells == board.cells
        assert sensor.reader.read(frame).snapshot.cells == board.cells
    finally:
        server.close()


def test_the_holes_are_set_up_step_by_step_in_the_browser(browser, tmp_path, monkeypatch):
    """A person forgets two slides in step 4: the report names the points that contradict, the page circles
    them; the step taken again, the holes saved equal the simulated copy's."""
    monkeypatch.setattr(holes_api, "STILL_WAIT", 0.05)
    rig = StubRig(
        {"game": "stay-alive", "players": 2, "seats": ["B", "Y"]},
        tmp_path / "j.sqlite",
        seed=4,
        troubles=False,
        max_moves=2,
    )
    copy, pattern = copy_profile(default_profile("stay-alive"))
    assert derive(observe(pattern)).pattern == pattern  # every hole can be seen
    assert pattern.to_mapping() != default_profile("stay-alive").get("holes")
    table = HolesTable(copy, seed=3, size=(960, 540))
    forgets = {4: ["orange 1", "white 2"]}
    person = HolesPerson(table, forgets=forgets)
    server, url = serve(rig, table)
    try:
        browser.get(url)
        enter_pin(browser)
        wait_for(lambda: browser.find_element("id", "holes-box").get_attribute("hidden") is None)
        browser.find_element("id", "holes-start").click()
        instruction = browser.find_element("id", "holes-instruction")
        for step in range(1, 10):
            wait_for(lambda s=step: instruction.get_attribute("data-step") == str(s))
            assert instruction.text.startswith(f"Step {step} of 9: set every orange slide to {PAIRS[step - 1][0]}")
            person.follow(instruction.text)
            browser.find_element("id", "holes-capture").click()
        wait_for(lambda: instruction.text == "All nine steps taken.")
        expected = _contradicting(pattern, forgets)
        assert expected  # the forgotten slides show
        circled = wait_for(lambda: attributes(browser, "#holes-svg g.contradiction", "data-point"))
        assert sorted(circled) == sorted(f"{r},{c}" for r, c in expected)
        names = texts(browser, "#holes-svg g.contradiction text")
        assert sorted(names) == sorted(f"point {r + 1},{c + 1}" for r, c in expected)
        assert "Check these grids again" in browser.find_element("id", "holes-report").text
        assert browser.find_element("id", "holes-save-box").get_attribute("hidden") is not None
        # step 4 again, the slide fully in place this time
        person.forgets.clear()
        step4 = browser.find_element("css selector", "#holes-steps li[data-step='4']")
        person.follow(step4.text, step=4)
        step4.find_element("css selector", "button.retake").click()
        wait_for(lambda: "All nine observations are explained" in browser.find_element("id", "holes-report").text)
        wait_for(lambda: browser.execute_script("return document.getElementById('holes-picture').complete"))
        assert not attributes(browser, "#holes-svg g.contradiction", "data-point")
        name = browser.find_element("id", "holes-name")
        name.clear()
        name.send_keys("table-3")
        browser.find_element("id", "holes-save").click()
        wait_for(lambda: "holes saved" in browser.find_element("id", "holes-answer").text)
        saved = load_profile(tmp_path / "profiles" / "table-3.yaml")
        assert saved.get("holes") == pattern.to_mapping()
    finally:
        server.close()


def _contradicting(pattern, forgets: dict[int, list[str]]) -> list[tuple[int, int]]:
    """The points no pattern explains when the person forgets these slides (worked out from the copy's holes)."""
    orange, white, grids = ["B"] * 7, ["B"] * 7, {}
    for step, (p, q) in enumerate(PAIRS, start=1):
        left = set(forgets.get(step, ()))
        orange = [x if f"orange {i}" in left else p for i, x in enumerate(orange)]
        white = [x if f"white {i}" in left else q for i, x in enumerate(white)]
        opened = pattern.open_points(tuple(orange), tuple(white))
        grids[(p, q)] = tuple(tuple((r, c) in opened for c in range(7)) for r in range(7))
    return [cell for cell, _ in derive(grids).inconsistent]
