"""Calibrating from the live camera through the page's API (issue 17, item 2): the steps, the PIN,
capture only when still with no hand, the report and the doubted places, saving under a name."""

from __future__ import annotations

import pytest
import yaml
from web_helpers import with_client

from calibration.guided import steps_for
from controller.games import registry
from controller.profile import default_profile, load_profile
from controller.service.config import load_config
from controller.vision.reader import BoardReader
from controller.web import WebApp
from controller.web.setup_api import ROUTES
from simulation.setup_person import LiveCamera, SetupPerson, setup_world, simulated_camera
from simulation.world import StubRig, WorldSwitches

pytestmark = pytest.mark.slow  # every test here takes seconds

PIN = "246810"
HEADERS = {"X-Referee-PIN": PIN}


def served(game: str, tmp_path, seed: int = 1):
    """A referee of `game` whose camera sees a simulated copy in other colours, and its config file."""
    keys = dict(registry.get(game).demo)
    rig = StubRig(keys, tmp_path / "j.sqlite", seed=seed, troubles=False, max_moves=2)
    world = setup_world(game, seed=seed)
    camera = LiveCamera(world, simulated_camera(world))
    config = tmp_path / "config.yaml"
    config.write_text(yaml.safe_dump(keys) + "profile: null            # null: the default board profile\n", "utf-8")
    app = WebApp(rig.loop, sensor=camera, pin=PIN, config_path=config)
    return app, world, camera, config


def test_colorpop_calibrated_through_the_api_reads_the_copy(tmp_path):
    app, world, camera, config = served("colorpop", tmp_path)
    person = SetupPerson(world, seed=2)

    async def body(client):
        listing = await (await client.get("/api/calibration/steps")).json()
        assert [s["key"] for s in listing["steps"]] == ["empty", "bottom-row", "setup"]
        assert "19 green" in listing["steps"][2]["sentence"]
        started = await client.post("/api/calibration/start", json={"game": "colorpop"}, headers=HEADERS)
        assert started.status == 200, await started.text()
        for step in steps_for(world.profile):
            person.follow(step)
            answer = await client.post("/api/calibration/capture", json={"step": step.number}, headers=HEADERS)
            assert answer.status == 200, await answer.text()
            picture = await client.get(f"/api/calibration/picture/{step.number}")
            assert picture.status == 200 and picture.content_type == "image/jpeg"
        done = await (await client.post("/api/calibration/finish", json={}, headers=HEADERS)).json()
        assert done["ok"], done
        assert done["report"][0].startswith("classes apart")
        assert [p["step"] for p in done["pictures"]] == [1, 2, 3]
        saved = await client.post("/api/calibration/save", json={"name": "my-colorpop"}, headers=HEADERS)
        assert saved.status == 200, await saved.text()
        again = await client.post("/api/calibration/save", json={"name": "my-colorpop"}, headers=HEADERS)
        assert again.status == 400 and "exists already" in (await again.json())["error"]
        bad = await client.post("/api/calibration/save", json={"name": "../etc/passwd"}, headers=HEADERS)
        assert bad.status == 400 and "cannot name a profile" in (await bad.json())["error"]
        replaced = await client.post(
            "/api/calibration/save", json={"name": "my-colorpop", "overwrite": True}, headers=HEADERS
        )
        assert replaced.status == 200

    with_client(app, body)
    text = config.read_text("utf-8")
    assert "profile: profiles/my-colorpop.yaml" in text and "# null: the default board profile" in text
    profile = load_config(config).setup.profile
    assert profile.get("vision") and profile == load_profile(tmp_path / "profiles" / "my-colorpop.yaml")
    later = person.fresh_position(7)
    reading = BoardReader(profile).read(camera.latest_frame)
    assert reading.snapshot is not None and reading.snapshot.cells == later.cells
    # the copy is not the standard edition: the default profile does not read it
    assert BoardReader(default_profile("colorpop")).read(camera.latest_frame).snapshot is None


def test_bad_requests_are_refused_with_a_sentence(tmp_path):
    app, world, camera, config = served("flipop", tmp_path)
    person = SetupPerson(world, seed=2)

    async def body(client):
        assert (await client.get("/api/calibration/steps?game=chess")).status == 400
        other = await (await client.get("/api/calibration/steps?game=blockers")).json()
        assert [s["key"] for s in other["steps"]] == ["empty", "pieces", "glyphs"]
        assert other["steps"][2]["drawing_text"].splitlines()[0] == "R1 R2 R3 R4 R5 R6 R7 R8 R9"
        no_pin = await client.post("/api/calibration/start", json={})
        assert no_pin.status == 401
        wrong = await client.post("/api/calibration/start", json={}, headers={"X-Referee-PIN": "000000"})
        assert wrong.status == 403
        unknown = await client.post("/api/calibration/start", json={"game": "chess"}, headers=HEADERS)
        assert unknown.status == 400 and "unknown game 'chess'" in (await unknown.json())["error"]
        elsewhere = await client.post("/api/calibration/start", json={"game": "colorpop"}, headers=HEADERS)
        assert elsewhere.status == 400 and "watches a Flipop board" in (await elsewhere.json())["error"]
        early = await client.post("/api/calibration/capture", json={"step": 1}, headers=HEADERS)
        assert early.status == 409 and "start one first" in (await early.json())["error"]
        assert (await client.post("/api/calibration/start", json={}, headers=HEADERS)).status == 200
        step = steps_for(world.profile)[0]
        assert step.key == "start"
        nothing = await client.post("/api/calibration/capture", json={"step": 9}, headers=HEADERS)
        assert nothing.status == 400 and "numbered 1 to 1" in (await nothing.json())["error"]
        person.follow(step)
        person.reach_in()
        client.server.app[ROUTES].wait_seconds = 5.0  # room for rendering on a loaded machine
        hand = await client.post("/api/calibration/capture", json={"step": 1}, headers=HEADERS)
        assert hand.status == 409
        assert "a hand or an object is over the board" in (await hand.json())["error"]
        unfinished = await client.post("/api/calibration/finish", json={}, headers=HEADERS)
        assert unfinished.status == 409 and "step 1 (the start position)" in (await unfinished.json())["error"]
        unsaved = await client.post("/api/calibration/save", json={"name": "x"}, headers=HEADERS)
        assert unsaved.status == 409

    with_client(app, body)


def test_a_piece_left_on_the_empty_board_is_refused_when_the_picture_is_taken(tmp_path):
    """The picture is checked when it is taken: the refusal names that picture and the place, at once
    (not at the end, under another picture's name), and nothing is kept for the step."""
    app, world, camera, config = served("colorpop", tmp_path)
    person = SetupPerson(world, seed=2)

    async def body(client):
        assert (await client.post("/api/calibration/start", json={}, headers=HEADERS)).status == 200
        empty = steps_for(world.profile)[0]
        board = person.follow(empty)
        cells = [list(row) for row in board.cells]
        cells[9][4] = "G"  # a green token forgotten at the bottom of slide E
        world.set_board(board.with_cells(cells))
        answer = await client.post("/api/calibration/capture", json={"step": 1}, headers=HEADERS)
        assert answer.status == 409
        said = (await answer.json())["error"]
        assert said.startswith("picture 1 (the empty board) not taken: ") and "E10" in said
        assert (await client.get("/api/calibration/picture/1")).status == 404
        unfinished = await client.post("/api/calibration/finish", json={}, headers=HEADERS)
        assert unfinished.status == 409 and "step 1 (the empty board)" in (await unfinished.json())["error"]
        refused = await client.post("/api/calibration/save", json={"name": "mine"}, headers=HEADERS)
        assert refused.status == 409

    with_client(app, body)
    assert "profile: null" in config.read_text("utf-8")


def test_on_the_simulated_rig_calibrating_pauses_the_game_and_a_simulated_person_sets_each_board(tmp_path):
    """`referee run` with the shipped config: the page's calibration pauses the judging (the boards set
    for the pictures are not moves), the simulated person sets each step's board (nobody else could),
    and the game's board is put back and play goes on once the profile is saved."""
    from simulation.setup_person import TableHands

    keys = dict(registry.get("colorpop").demo)
    rig = StubRig(keys, tmp_path / "j.sqlite", seed=1, troubles=False, max_moves=2)
    rig.driver.run(rig.player.steps())
    game_board = rig.world.board
    judged = len(rig.loop.session.verdicts)
    camera = LiveCamera(rig.world, simulated_camera(rig.world, other_looks=False))
    config = tmp_path / "config.yaml"
    config.write_text(yaml.safe_dump(keys) + "profile: null\n", "utf-8")
    app = WebApp(rig.loop, sensor=camera, pin=PIN, config_path=config)
    app.table_hands = hands = TableHands(rig.world, seed=2)

    async def body(client):
        assert (await client.post("/api/calibration/start", json={}, headers=HEADERS)).status == 200
        rig.driver.run_frames(1)
        assert rig.loop.paused and hands.paused.is_set()
        status = rig.loop.execute("status", {})
        assert status["paused"].startswith("the copy is being calibrated from the live page")
        for step in steps_for(rig.world.profile):
            answer = await client.post("/api/calibration/capture", json={"step": step.number}, headers=HEADERS)
            assert answer.status == 200, await answer.text()
            rig.driver.run_frames(20)  # the referee sees the step's board, and judges nothing
            assert len(rig.loop.session.verdicts) == judged
        done = await (await client.post("/api/calibration/finish", json={}, headers=HEADERS)).json()
        assert done["ok"], done
        saved = await client.post("/api/calibration/save", json={"name": "sim-copy"}, headers=HEADERS)
        assert saved.status == 200, await saved.text()
        rig.driver.run_frames(20)
        assert rig.loop.paused is None and not hands.paused.is_set()

    with_client(app, body)
    assert rig.world.board == game_board  # the game's board is back as it was
    assert len(rig.loop.session.verdicts) == judged
    engine, state = rig.loop.session.referee.engine, rig.loop.session.referee.state
    after, _ = engine.apply(state, engine.legal_moves(state)[0])
    rig.world.set_board(engine.expected(after))
    rig.driver.run_frames(30)
    assert rig.loop.session.verdicts[-1]["verdict"] == "legal"  # and the game goes on


def test_stay_alive_empty_board_is_named_by_the_slides_the_switches_report(tmp_path):
    """With the switch board connected, the empty board's picture is kept with the slides' positions
    the switches report as it is taken (they name each point's look: `calibration.vision.learn_empty`),
    and a slide moved while the picture is taken refuses it in words."""
    app, world, camera, config = served("stay-alive", tmp_path)
    app.switches = WorldSwitches(world)
    person = SetupPerson(world, seed=2)

    async def body(client):
        assert (await client.post("/api/calibration/start", json={}, headers=HEADERS)).status == 200
        routes = client.server.app[ROUTES]
        routes.wait_seconds = 5.0  # room for rendering on a loaded machine
        empty = steps_for(world.profile)[0]
        assert empty.key == "empty"
        board = person.follow(empty)
        waited = routes._wait_for_picture

        def slide_pushed_meanwhile(session):
            orange = board.line("orange")
            world.set_board(board.with_line("orange", ("B" if orange[0] != "B" else "A",) + orange[1:]))
            return waited(session)

        routes._wait_for_picture = slide_pushed_meanwhile
        moved = await client.post("/api/calibration/capture", json={"step": 1}, headers=HEADERS)
        assert moved.status == 409 and "a slide moved while the picture was taken" in (await moved.json())["error"]
        routes._wait_for_picture = waited
        board = person.follow(empty)
        taken = await client.post("/api/calibration/capture", json={"step": 1}, headers=HEADERS)
        assert taken.status == 200, await taken.text()
        lines = dict(routes.session.switch_lines["empty"])
        assert lines == {"orange": board.line("orange"), "white": board.line("white")}

    with_client(app, body)
