"""The live page's JSON API on the stand-in rig (aiohttp's test client; no browser)."""

from __future__ import annotations

import threading
from contextlib import contextmanager

import numpy as np
import yaml
from colorpop_helpers import take_a_lone_token_off
from web_helpers import with_client

from controller.record import parse_record
from controller.snapshot import format_snapshot
from controller.web import WebApp
from controller.web.camera import CameraPictures
from simulation.world import StubRig

FLIPOP = {"game": "flipop", "players": 2}
COLORPOP = {"game": "colorpop", "players": 2}
PIN = "424242"


@contextmanager
def ticking(rig: StubRig):
    """Tick the loop in the background so commands submitted by the page are run."""
    stop = threading.Event()

    def run() -> None:
        while not stop.is_set():
            rig.driver.run_frames(1)
            stop.wait(0.005)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join(5)


def test_state_says_game_turn_board_and_verdicts_in_words(tmp_path):
    rig = StubRig(FLIPOP, tmp_path / "j.sqlite", seed=1, troubles=False, max_moves=6)
    rig.play(2)
    app = WebApp(rig.loop, pin=PIN)

    async def body(client):
        response = await client.get("/api/state")
        assert response.status == 200
        state = await response.json()
        assert state["game"] == "flipop" and state["game_id"] == rig.loop.session.game_id
        assert state["started"] and state["to_move_name"].startswith("player ")
        assert state["board"]["text"] == format_snapshot(rig.loop.session.referee.expected())
        stored = rig.loop.session.verdicts
        assert [v["json"] for v in state["verdicts"]] == stored
        assert state["verdicts"][0]["line"].startswith("starting board accepted")
        assert any(v["json"]["verdict"] == "legal" and "legal move" in v["line"] for v in state["verdicts"])
        assert state["seats"][0]["name"].startswith("player 1")
        page = await client.get("/")
        assert page.status == 200 and "app.js" in await page.text()
        assert (await client.get("/static/app.js")).status == 200
        assert (await client.get("/static/../server.py")).status in (403, 404)

    with_client(app, body)


def test_controls_need_the_pin_a_json_body_and_the_same_origin(tmp_path):
    rig = StubRig(FLIPOP, tmp_path / "j.sqlite", seed=1, troubles=False, max_moves=6)
    rig.play(1)
    app = WebApp(rig.loop, pin=PIN)
    game_before = rig.loop.session.game_id

    async def body(client):
        no_pin = await client.post("/api/new-game", json={})
        assert no_pin.status == 401 and "PIN" in (await no_pin.json())["error"]
        wrong = await client.post("/api/new-game", json={}, headers={"X-Referee-PIN": "000000"})
        assert wrong.status == 403
        cross = await client.post("/api/end", json={}, headers={"X-Referee-PIN": PIN, "Origin": "http://evil.example"})
        assert cross.status == 403 and "another site" in (await cross.json())["error"]
        form = await client.post(
            "/api/end", data="x=1", headers={"X-Referee-PIN": PIN, "Content-Type": "application/x-www-form-urlencoded"}
        )
        assert form.status == 400 and "JSON" in (await form.json())["error"]
        bad = await client.post("/api/new-game", json={"players": 3}, headers={"X-Referee-PIN": PIN})
        assert bad.status == 400 and "Flipop is for 2 players" in (await bad.json())["error"]
        other = await client.post("/api/new-game", json={"game": "colorpop"}, headers={"X-Referee-PIN": PIN})
        assert other.status == 400 and "restart" in (await other.json())["error"]
        path = await client.post("/api/new-game", json={"profile": "/etc/passwd"}, headers={"X-Referee-PIN": PIN})
        assert path.status == 400
        reveal = await client.post("/api/reveal", json={"seat": 9, "colours": ["G"]}, headers={"X-Referee-PIN": PIN})
        assert reveal.status == 400
        assert rig.loop.session.game_id == game_before  # nothing refused changed anything
        with ticking(rig):
            ok = await client.post(
                "/api/new-game",
                json={"game": "flipop", "first": 1},
                headers={"X-Referee-PIN": PIN, "Origin": f"http://{client.host}:{client.port}"},
            )
            assert ok.status == 200, await ok.text()
        assert rig.loop.session.game_id == game_before + 1
        assert rig.loop.session.setup.first == 1 and rig.loop.session.keys["first"] == 1

    with_client(app, body)


def test_wrong_pins_are_throttled(tmp_path):
    rig = StubRig(FLIPOP, tmp_path / "j.sqlite", seed=1, troubles=False, max_moves=2)
    app = WebApp(rig.loop, pin=PIN)

    async def body(client):
        for _ in range(5):
            assert (await client.post("/api/end", json={}, headers={"X-Referee-PIN": "1"})).status == 403
        assert (await client.post("/api/end", json={}, headers={"X-Referee-PIN": PIN})).status == 429

    with_client(app, body)


def test_record_games_and_steps_come_from_the_journal(tmp_path):
    rig = StubRig(FLIPOP, tmp_path / "j.sqlite", seed=1, troubles=False, max_moves=4)
    rig.play(2)
    app = WebApp(rig.loop, pin=PIN)

    async def body(client):
        record = await client.get("/api/record")
        assert record.status == 200
        parsed = parse_record(await record.text())
        assert parsed.setup.game == "flipop"
        assert yaml.safe_load(await record.text())["game"] == "flipop"
        games = (await (await client.get("/api/games")).json())["games"]
        assert [g["id"] for g in games] == [rig.loop.session.game_id]
        steps = (await (await client.get(f"/api/games/{games[0]['id']}")).json())["steps"]
        assert [s["verdict"] for s in steps] == rig.loop.session.verdicts
        assert steps[0]["board"]["rows"] == 5 and steps[0]["line"].startswith("starting board accepted")
        assert (await client.get("/api/games/99")).status == 404
        assert (await client.get("/api/games/x")).status == 400
        assert (await client.get("/api/record?game=abc")).status == 400

    with_client(app, body)


def test_an_illegal_board_gives_its_places_and_corrections_that_tick_off(tmp_path):
    """Colorpop: one token taken off alone is illegal; the page lists it to put back, then it is restored."""
    rig = StubRig(COLORPOP, tmp_path / "j.sqlite", seed=3, troubles=False, max_moves=4)
    rig.play(1)
    app = WebApp(rig.loop, pin=PIN)
    legal = rig.loop.session.referee.expected()
    take_a_lone_token_off(rig)
    rig.loop.bus.drain()
    state = app.view.state()
    assert state["illegal"]
    assert state["correction"]["steps"][0]["text"].startswith("put the ")
    assert state["correction"]["steps"][0]["done"] is False
    assert state["illegal_cells"]  # the verdict's places, for the drawn board and the camera overlay
    rig.world.set_board(legal)
    rig.driver.run_frames(30)
    rig.loop.bus.drain()
    after = app.view.state()
    assert not after["illegal"] and after["correction"] is None
    assert after["verdicts"][-1]["json"]["verdict"] == "restored"


def test_camera_pictures_are_encoded_only_when_asked_and_at_most_five_a_second():
    class Sensor:
        latest_frame = np.full((120, 160, 3), 90, np.uint8)
        latest_reading = None
        reader = None

    now = [100.0]
    pictures = CameraPictures(Sensor(), clock=lambda: now[0])
    assert pictures.encoded == 0
    first = pictures.jpeg([])
    assert first[:2] == b"\xff\xd8" and pictures.encoded == 1
    now[0] += 0.1
    assert pictures.jpeg([]) is first and pictures.encoded == 1
    now[0] += 0.1
    pictures.jpeg([])
    assert pictures.encoded == 2


def test_stay_alive_slides_are_live_from_the_switches_with_the_links_health(tmp_path):

    rig = StubRig(
        {"game": "stay-alive", "players": 2, "seats": ["B", "Y"]},
        tmp_path / "j.sqlite",
        seed=4,
        troubles=False,
        max_moves=4,
    )
    rig.play(1)
    app = WebApp(rig.loop, switches=rig.switches, pin=PIN)
    board = rig.world.board
    assert app.view.state()["slides"] == {
        "orange": list(board.line("orange")),
        "white": list(board.line("white")),
        "link_ok": True,
        "faults": [],
    }
    orange = board.line("orange")
    moved = "A" if orange[2] != "A" else "B"
    rig.world.set_board(board.with_line("orange", orange[:2] + (moved,) + orange[3:]))
    mark = app.view.slides_mark()
    assert app.view.state()["slides"]["orange"][2] == moved  # before the referee judges anything
    rig.switches.plugged = False
    assert app.view.state()["slides"]["link_ok"] is False
    assert app.view.slides_mark() != mark  # the pusher sends the page the change
