"""Setting up a copy from the live page (issue 17): aim advice, lights and buzzer test, switch test."""

from __future__ import annotations

import pytest
from web_helpers import PictureSensor, with_client

from controller.hardware.config import validate_gpio
from controller.hardware.feedback import Feedback
from controller.hardware.switches import SerialSwitches
from controller.profile import default_profile
from controller.web import WebApp
from simulation.pico import SimulatedPico
from simulation.render import Scene, random_snapshot, render_snapshot
from simulation.world import StubRig

PIN = "424242"
STAY_ALIVE = {"game": "stay-alive", "players": 2, "seats": ["B", "Y"]}


@pytest.mark.slow
def test_aim_advice_for_the_latest_picture(tmp_path):
    rig = StubRig({"game": "colorpop", "players": 2}, tmp_path / "j.sqlite", seed=1, troubles=False, max_moves=2)
    profile = default_profile("colorpop")
    glare = render_snapshot(
        random_snapshot("colorpop", profile, 5), profile, seed=1, scene=Scene(glare_at=((2.0, 2.0, 0.4),))
    )
    sensor = PictureSensor(None)
    app = WebApp(rig.loop, sensor=sensor, pin=PIN)

    async def body(client):
        assert (await client.get("/api/aim")).status == 404  # no picture yet
        sensor.latest_frame = glare
        answer = await client.get("/api/aim")
        assert answer.status == 200
        advice = await answer.json()
        assert advice["markers_found"] == ["top-left", "top-right", "bottom-right", "bottom-left"]
        assert advice["in_view"] and not advice["ok"]
        assert any(line.startswith("glare on row 3 (C3") for line in advice["lines"])
        sensor.latest_frame = render_snapshot(
            random_snapshot("colorpop", profile, 5), profile, seed=1, scene=Scene(bump=(-420, 0, 0))
        )
        moved = await (await client.get("/api/aim")).json()
        assert "move the camera left" in moved["lines"]

    with_client(app, body)


def test_lights_test_patterns_reach_the_feedback_pins(tmp_path):
    rig = StubRig({"game": "flipop", "players": 2}, tmp_path / "j.sqlite", seed=1, troubles=False, max_moves=2)
    gpio = validate_gpio({"backend": "mock"})
    heard: list[str] = []
    feedback = Feedback.from_config(gpio, listener=heard.append, tempo=0.01)
    app = WebApp(rig.loop, pin=PIN, feedback=feedback)
    red = feedback.pin_factory.pin(gpio.pins.red)
    try:

        async def body(client):
            listing = (await (await client.get("/api/lights-test")).json())["patterns"]
            names = [p["pattern"] for p in listing]
            assert {"illegal", "board-ok", "red-on", "sound-alarm", "turn-1", "all-off"} <= set(names)
            assert red.state is False or red.state == 0
            refused = await client.post("/api/lights-test", json={"pattern": "red-on"})
            assert refused.status == 401 and not red.state
            unknown = await client.post("/api/lights-test", json={"pattern": "disco"}, headers={"X-Referee-PIN": PIN})
            assert unknown.status == 400 and "illegal" in (await unknown.json())["error"]
            ok = await client.post("/api/lights-test", json={"pattern": "illegal"}, headers={"X-Referee-PIN": PIN})
            assert ok.status == 200, await ok.text()
            assert red.state  # the red LED's (mock) pin is high
            assert any("alarm" in line for line in heard)
            off = await client.post("/api/lights-test", json={"pattern": "board-ok"}, headers={"X-Referee-PIN": PIN})
            assert off.status == 200 and not red.state

        with_client(app, body)
    finally:
        feedback.close()


def test_lights_test_without_lights_says_so(tmp_path):
    rig = StubRig({"game": "flipop", "players": 2}, tmp_path / "j.sqlite", seed=1, troubles=False, max_moves=2)
    app = WebApp(rig.loop, pin=PIN)

    async def body(client):
        answer = await client.post("/api/lights-test", json={"pattern": "illegal"}, headers={"X-Referee-PIN": PIN})
        assert answer.status == 404 and "no lights" in (await answer.json())["error"]

    with_client(app, body)


def test_switch_test_on_the_simulated_switch_board(tmp_path):
    rig = StubRig(STAY_ALIVE, tmp_path / "j.sqlite", seed=4, troubles=False, max_moves=2)
    pico = SimulatedPico(tmp_path / "ttyPICO")
    pico.plug()
    switches = SerialSwitches(
        pico.port, heartbeat_timeout=0.6, heartbeat_interval=0.25, debounce_ms=20, reconnect_interval=0.05
    )
    switches.start()
    try:
        assert switches.wait_for_positions("B" * 14, 2.0)
        app = WebApp(rig.loop, switches=switches, pin=PIN)

        async def body(client):
            first = await (await client.get("/api/switches?start=1")).json()
            assert first["link_ok"] and [s["position"] for s in first["slides"]] == ["B"] * 14
            assert all(s["never_changed"] for s in first["slides"])
            assert first["slides"][3]["name"] == "orange slide 4"
            # orange slide 3 through A and C; white slide 2 (index 9) to A
            for position in ("A", "C"):
                pico.set_slide(3, position)
                assert switches.wait_for(lambda s, p=position: s.positions[3] == p, 2.0)
                live = await (await client.get("/api/switches")).json()
                assert live["slides"][3]["position"] == position
            pico.set_slide(9, "A")
            assert switches.wait_for(lambda s: s.positions[9] == "A", 2.0)
            # white slide 5 (index 12) reports both switches closed
            pico.set_switches(12, True, True)
            assert switches.wait_for(lambda s: 12 in s.faults, 2.0)
            report = await (await client.get("/api/switches")).json()
            slides = report["slides"]
            assert slides[3]["seen"] == ["A", "B", "C"] and not slides[3]["never_changed"]
            assert not slides[3]["problems"]
            assert slides[9]["name"] == "white slide 3" and not slides[9]["never_changed"]
            assert slides[12]["both_switches"] and slides[12]["position"] is None
            assert "white slide 6 reports both switches" in slides[12]["problems"][0]
            assert "R2(GP4)-K5(GP11)" in slides[12]["problems"][0] and "R3(GP5)-K5(GP11)" in slides[12]["problems"][0]
            assert slides[0]["never_changed"] and "R0(GP2)-K0(GP6)" in slides[0]["problems"][0]
            assert "never changed" in slides[0]["problems"][0]
            assert not report["all_moved"]
            # a new test forgets what the slides did
            pico.set_switches(12, False, False)
            assert switches.wait_for(lambda s: 12 not in s.faults, 2.0)
            again = await (await client.get("/api/switches?start=1")).json()
            assert not again["slides"][12]["both_switches"] and again["slides"][3]["seen"] == ["C"]

        with_client(app, body)
    finally:
        switches.close()
        pico.close()


def test_no_switches_no_switch_test(tmp_path):
    rig = StubRig({"game": "flipop", "players": 2}, tmp_path / "j.sqlite", seed=1, troubles=False, max_moves=2)
    app = WebApp(rig.loop, pin=PIN)

    async def body(client):
        assert (await client.get("/api/switches")).status == 404

    with_client(app, body)
