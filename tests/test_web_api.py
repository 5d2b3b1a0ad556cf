"""The live page's JSON API on the stand-in rig (aiohttp's test client; no browser)."""

from __future__ import annotations

import asyncio

import numpy as np
import pytest
from colorpop_helpers import take_a_lone_token_off
from web_helpers import ticking, with_client

from controller.files import parse_yaml
from controller.record import parse_record
from controller.snapshot import format_snapshot
from controller.web import WebApp
from controller.web.camera import CameraPictures
from simulation.world import StubRig

FLIPOP = {"game": "flipop", "players": 2}
COLORPOP = {"game": "colorpop", "players": 2}
PIN = "424242"


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
        assert parse_yaml(await record.text(), "the exported record")["game"] == "flipop"
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
    heard = []
    app.view.on_change = lambda: heard.append(app.view.version)
    rig.world.set_board(board.with_line("orange", orange[:2] + (moved,) + orange[3:]))
    rig.driver.run_frames(1)  # the loop's next tick tells the slide at once: the page is pushed it
    rig.loop.bus.drain()
    assert heard
    assert app.view.state()["slides"]["orange"][2] == moved  # before the referee judges anything
    heard.clear()
    rig.switches.plugged = False
    rig.driver.run_frames(1)
    rig.loop.bus.drain()
    assert heard and app.view.state()["slides"]["link_ok"] is False


class Away:
    """Stands for the loop's live objects where the page must not look."""

    def __getattr__(self, name):
        raise AssertionError(f"the page read the loop's {name} instead of what it heard")


def test_the_page_is_built_from_the_events_it_hears_never_from_the_loop(tmp_path):
    rig = StubRig(COLORPOP, tmp_path / "j.sqlite", seed=3, troubles=False, max_moves=6)
    rig.play(1)
    app = WebApp(rig.loop, pin=PIN)  # joins late: it catches up from the bus at once
    before = app.view.state()
    assert before["verdict_count"] == len(rig.loop.session.verdicts) > 0
    assert before["board"]["text"] == format_snapshot(rig.loop.session.referee.expected())
    session, sensor = rig.loop.session, rig.loop.sensor
    rig.loop.session = rig.loop.sensor = Away()
    try:
        assert app.view.state() == before  # no event, no change: and the loop is never read
    finally:
        rig.loop.session, rig.loop.sensor = session, sensor
    rig.play(3)
    rig.loop.bus.drain()
    rig.loop.session = Away()
    try:
        after = app.view.state()
    finally:
        rig.loop.session = session
    assert after["verdict_count"] == len(session.verdicts) > before["verdict_count"]
    assert [v["json"] for v in after["verdicts"]] == session.verdicts
    assert after["board"]["text"] == format_snapshot(session.referee.expected())


def test_each_event_is_pushed_to_an_open_page_and_nothing_when_nothing_happens(tmp_path):
    """No polling: a connected page gets a state when the loop emits, and nothing while it is quiet."""
    rig = StubRig(FLIPOP, tmp_path / "j.sqlite", seed=1, troubles=False, max_moves=6)
    rig.play(1)
    app = WebApp(rig.loop, pin=PIN)

    async def body(client):
        ws = await client.ws_connect("/ws")
        first = await ws.receive_json(timeout=5)
        assert first["type"] == "state"
        with pytest.raises(asyncio.TimeoutError):
            await ws.receive_json(timeout=0.6)  # nothing happened: nothing sent (it was every 0.2 s)
        await asyncio.get_running_loop().run_in_executor(None, rig.play, 2)
        pushed = await ws.receive_json(timeout=5)
        while pushed["state"]["verdict_count"] < len(rig.loop.session.verdicts):
            pushed = await ws.receive_json(timeout=5)
        assert pushed["state"]["verdicts"][-1]["json"] == rig.loop.session.verdicts[-1]
        await ws.close()

    with_client(app, body)


def test_the_computers_move_reaches_the_page_whenever_it_changes(tmp_path):
    """The page shows the move a computer seat wants made from the events alone: so every change of
    the move awaited (chosen, made, refused and put back, a new game) comes with an event, else the
    page is not pushed and shows a stale move, or none."""
    keys = dict(FLIPOP, computer=[None, "beginner"])
    rig = StubRig(keys, tmp_path / "j.sqlite", seed=1, troubles=False, max_moves=8)
    rig.player.computer_mistakes = 1.0  # the person first makes another move than the computer's
    heard: list = []
    rig.loop.bus.subscribe(lambda e: heard.append(e.scene.awaited), inline=True, catch_up=True)
    app = WebApp(rig.loop, pin=PIN)
    shown: list = []
    tick = rig.driver.tick

    def tick_and_check() -> None:
        tick()
        awaited = rig.loop.session.referee.awaited
        assert heard[-1] == awaited, "the move awaited changed, and no event said so"
        shown.append(awaited.move if awaited is not None else None)

    rig.driver.tick = tick_and_check
    rig.driver.run(rig.player.steps())
    chosen = {move for move in shown if move is not None}
    assert len(chosen) >= 2 and None in shown  # chosen, then made (awaited no more), more than once
    rig.loop.bus.drain()
    page = app.view.state()["computer"]
    awaited = rig.loop.session.referee.awaited
    assert (page["move"] or {}).get("move") == (awaited.move if awaited is not None else None)
    assert page["seats"] == [{"seat": 1, "level": "beginner"}]
