"""The live page's aim drawing, corners and guided holes (issue 17) at the API: what is drawn, and bad inputs."""

from __future__ import annotations

import numpy as np
import pytest
from web_helpers import PictureSensor, with_client

from calibration.holes import observe
from controller.profile import default_profile, load_profile
from controller.vision.geometry import LatticeGeometry, project
from controller.web import WebApp, holes_api
from simulation.holes_person import HolesPerson, HolesTable, copy_profile
from simulation.render import Scene, random_snapshot, render_scene
from simulation.unmarked import render_unmarked
from simulation.world import StubRig

PIN = "424242"
WITH_PIN = {"X-Referee-PIN": PIN}
STAY_ALIVE = {"game": "stay-alive", "players": 2, "seats": ["B", "Y"]}


@pytest.mark.slow
def test_the_aim_comes_with_the_markers_and_lattice_to_draw_on_its_own_picture(tmp_path):
    rig = StubRig({"game": "colorpop", "players": 2}, tmp_path / "j.sqlite", seed=1, troubles=False, max_moves=2)
    profile = default_profile("colorpop")
    frame, hom = render_scene(random_snapshot("colorpop", profile, 5), profile, seed=1)
    sensor = PictureSensor(None)
    app = WebApp(rig.loop, sensor=sensor, pin=PIN)
    geom = LatticeGeometry.from_profile(profile)

    async def body(client):
        assert (await client.get("/api/aim/picture.jpg")).status == 404  # nothing judged yet
        sensor.latest_frame = frame
        data = await (await client.get("/api/aim")).json()
        assert data["size"] == [1280, 720] and (data["rows"], data["cols"]) == (profile.rows, profile.cols)
        assert [m["found"] for m in data["markers"]] == [True] * 4 and data["placed_by"] == "markers"
        truth = project(hom, geom.marker_corners()[0])
        assert np.abs(np.array(data["markers"][0]["quad"]) - truth).max() < 1.5
        lattice = project(np.array(data["homography"]), geom.points())
        assert np.abs(lattice - project(hom, geom.points())).max() < 1.5
        sensor.latest_frame = render_scene(
            random_snapshot("colorpop", profile, 5), profile, seed=1, scene=Scene(glare_at=((2.0, 2.0, 0.4),))
        )[0]
        glare = await (await client.get("/api/aim")).json()
        assert {"place": [2, 2], "name": "C3"} in glare["glare"]
        sensor.latest_frame = frame
        await client.get("/api/aim")
        sensor.latest_frame = np.zeros_like(frame)  # the next picture must not change the one judged
        picture = await client.get("/api/aim/picture.jpg")
        assert picture.content_type == "image/jpeg"
        import cv2

        sent = cv2.imdecode(np.frombuffer(await picture.read(), np.uint8), cv2.IMREAD_COLOR)
        assert sent.shape[1] == 960 and sent.mean() > 40  # the judged picture, scaled, not the black one

    with_client(app, body)


@pytest.mark.slow
def test_corners_are_checked_saved_into_a_named_profile_and_read_with(tmp_path):
    from controller.vision.reader import BoardReader

    rig = StubRig({"game": "colorpop", "players": 2}, tmp_path / "j.sqlite", seed=1, troubles=False, max_moves=2)
    profile = default_profile("colorpop")
    board = random_snapshot("colorpop", profile, 7)
    frame, hom = render_unmarked(board, profile, seed=2)
    sensor = PictureSensor(frame, BoardReader(profile))
    app = WebApp(rig.loop, sensor=sensor, pin=PIN)
    corners = project(hom, LatticeGeometry.from_profile(profile).corner_points()).round(1).tolist()

    async def body(client):
        advice = await (await client.get("/api/aim")).json()
        assert advice["placed_by"] is None and advice["markers_found"] == [] and advice["homography"] is None
        assert advice["lines"][0].startswith("no board marker found")
        ok = {"name": "my-copy", "corners": corners}
        assert (await client.post("/api/corners", json=ok)).status == 401
        assert (await client.post("/api/corners", json=ok, headers={"X-Referee-PIN": "000000"})).status == 403
        twisted = {"name": "my-copy", "corners": [corners[1], corners[0], corners[2], corners[3]]}
        refused = await client.post("/api/corners", json=twisted, headers=WITH_PIN)
        assert refused.status == 400 and "convex quadrilateral" in (await refused.json())["error"]
        outside = {"name": "my-copy", "corners": [[c[0] + 900, c[1]] for c in corners]}
        refused = await client.post("/api/corners", json=outside, headers=WITH_PIN)
        assert refused.status == 400 and "outside the 1280x720" in (await refused.json())["error"]
        for bad in (
            {"name": "my-copy", "corners": [[1, 2]] * 3},
            {"name": "my-copy", "corners": [[1, "x"]] * 4},
            {"name": "../etc/passwd", "corners": corners},
            {"corners": corners},
        ):
            assert (await client.post("/api/corners", json=bad, headers=WITH_PIN)).status == 400, bad
        assert not (tmp_path / "profiles").exists()
        saved = await client.post("/api/corners", json=ok, headers=WITH_PIN)
        assert saved.status == 200, await saved.text()
        assert "reads with them now" in (await saved.json())["message"]
        mine = load_profile(tmp_path / "profiles" / "my-copy.yaml")
        assert np.allclose(mine.get("corners"), corners, atol=0.06)
        assert BoardReader(mine).read(frame).snapshot.cells == board.cells
        assert sensor.reader.read(frame).snapshot.cells == board.cells  # the live reader took them at once
        placed = await (await client.get("/api/aim")).json()
        assert placed["placed_by"] == "corners" and placed["in_view"]
        assert np.allclose(placed["lattice_corners"], corners, atol=0.06)

    with_client(app, body)


def test_a_profile_with_corners_that_cannot_hold_a_lattice_is_refused(tmp_path):
    from controller.errors import ConfigError

    profile = default_profile("colorpop")
    with pytest.raises(ConfigError, match="corners.*convex quadrilateral"):
        profile.with_overrides({"corners": [[100, 100], [100, 500], [500, 500], [500, 100]]})
    with pytest.raises(ConfigError, match=r"corners\[1\]"):
        profile.with_overrides({"corners": [[100, 100], [500], [500, 500], [100, 500]]})


@pytest.fixture
def holes_rig(tmp_path, monkeypatch):
    monkeypatch.setattr(holes_api, "STILL_WAIT", 0.02)
    rig = StubRig(STAY_ALIVE, tmp_path / "j.sqlite", seed=4, troubles=False, max_moves=2)
    copy, pattern = copy_profile(default_profile("stay-alive"))
    table = HolesTable(copy, seed=3, size=(960, 540))
    return rig, table, pattern


@pytest.mark.slow
def test_holes_steps_refuse_wrong_pins_order_hands_and_unfinished_saves(holes_rig, tmp_path):
    rig, table, pattern = holes_rig
    app = WebApp(rig.loop, sensor=table, pin=PIN)
    person = HolesPerson(table)

    async def body(client):
        state = await (await client.get("/api/holes")).json()
        assert state["available"] and not state["active"]
        assert (await client.post("/api/holes/capture", json={"step": 1}, headers=WITH_PIN)).status == 409
        assert (await client.post("/api/holes/start", json={})).status == 401
        assert (await client.post("/api/holes/start", json={}, headers={"X-Referee-PIN": "1"})).status == 403
        started = await (await client.post("/api/holes/start", json={}, headers=WITH_PIN)).json()
        assert started["instruction"] == "set every orange slide to A and every white slide to A"
        ahead = await client.post("/api/holes/capture", json={"step": 2}, headers=WITH_PIN)
        assert ahead.status == 409
        assert (await ahead.json())["error"] == "step 2 comes after step 1: take pair 1 of 9 (orange A, white A) first"
        for bad in ("1", 0, 10, None, True):
            assert (await client.post("/api/holes/capture", json={"step": bad}, headers=WITH_PIN)).status == 409
        person.follow(started["instruction"])
        person.reach_in()
        hand = await client.post("/api/holes/capture", json={"step": 1}, headers=WITH_PIN)
        assert hand.status == 409 and "a hand or an object is over the board" in (await hand.json())["error"]
        person.take_hand_away()
        taken = await client.post("/api/holes/capture", json={"step": 1}, headers=WITH_PIN)
        assert taken.status == 200, await taken.text()
        state = await taken.json()
        assert state["next_step"] == 2 and state["steps"][0]["taken"]
        assert state["steps"][0]["open_points"] == sum(map(sum, observe(pattern)[("A", "A")]))
        unfinished = await client.post("/api/holes/save", json={"name": "my-copy"}, headers=WITH_PIN)
        assert unfinished.status == 409 and "8 steps still to take" in (await unfinished.json())["error"]
        assert not (tmp_path / "profiles").exists()

    with_client(app, body)


def test_the_holes_setup_is_refused_on_a_board_without_holes(tmp_path):
    rig = StubRig({"game": "flipop", "players": 2}, tmp_path / "j.sqlite", seed=1, troubles=False, max_moves=2)
    app = WebApp(rig.loop, pin=PIN)

    async def body(client):
        state = await (await client.get("/api/holes")).json()
        assert not state["available"] and "Stay Alive" in state["why_not"]
        refused = await client.post("/api/holes/start", json={}, headers=WITH_PIN)
        assert refused.status == 409 and "Flipop board" in (await refused.json())["error"]
        # in the page's language: the game's French name, Pièges for Stay Alive
        state = await (await client.get("/api/holes?lang=fr")).json()
        assert state["why_not"] == "les trous sont ceux de Pièges\u202f; cet arbitre surveille un plateau de Flipop"
        refused = await client.post("/api/holes/start", json={}, headers={**WITH_PIN, "Accept-Language": "fr"})
        assert "cet arbitre surveille un plateau de Flipop" in (await refused.json())["error"]

    with_client(app, body)


def test_a_capture_while_the_board_moves_is_refused(holes_rig):
    rig, table, _ = holes_rig
    still = table.latest_frame
    table.orange = ["A"] * 7
    moved = table.latest_frame

    class Moving:
        """A camera whose every picture differs from the one before (slides being pushed)."""

        reader = None
        latest_reading = None

        def __init__(self) -> None:
            self.shown = 0

        @property
        def latest_frame(self):
            self.shown += 1
            return (still, moved)[self.shown % 2]

    app = WebApp(rig.loop, sensor=Moving(), pin=PIN)

    async def body(client):
        await client.post("/api/holes/start", json={}, headers=WITH_PIN)
        refused = await client.post("/api/holes/capture", json={"step": 1}, headers=WITH_PIN)
        assert refused.status == 409 and "the board is moving" in (await refused.json())["error"]
        state = await (await client.get("/api/holes")).json()
        assert state["next_step"] == 1 and not state["steps"][0]["taken"]

    with_client(app, body)


class TableSwitches:
    """The switch board of a `HolesTable`: every slide's position as it is (for the holes setup)."""

    def __init__(self, table) -> None:
        self.table = table

    def latest(self):
        from controller.hardware.switches import SlideState

        return SlideState(
            positions=tuple(self.table.orange) + tuple(self.table.white),
            faults=(),
            link_ok=True,
            seq=0,
            received_at=0.0,
            uptime_ms=0,
            reason="heartbeat",
            count=1,
        )

    def healthy(self) -> bool:
        return True


@pytest.mark.slow
def test_with_switches_a_holes_step_is_taken_only_with_every_slide_where_it_asks(holes_rig):
    rig, table, _ = holes_rig
    app = WebApp(rig.loop, sensor=table, switches=TableSwitches(table), pin=PIN)
    forgetful = HolesPerson(table, forgets={1: ["orange 2", "white 4"]})

    async def body(client):
        started = await (await client.post("/api/holes/start", json={}, headers=WITH_PIN)).json()
        forgetful.follow(started["instruction"], step=1)
        refused = await client.post("/api/holes/capture", json={"step": 1}, headers=WITH_PIN)
        assert refused.status == 409
        said = (await refused.json())["error"]
        assert said.startswith("pair 1 of 9 (orange A, white A): the switches say orange slide 3 is at B, ")
        assert "white slide 5 is at B" in said and "nothing was taken" in said
        HolesPerson(table).follow(started["instruction"])
        taken = await client.post("/api/holes/capture", json={"step": 1}, headers=WITH_PIN)
        assert taken.status == 200, await taken.text()

    with_client(app, body)
