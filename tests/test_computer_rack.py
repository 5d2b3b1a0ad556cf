"""Blockers! against the computer (issue 29): its rack is what a person drew for it from its pile and
tapped on the page. The computer waits for its tiles, then plays from exactly those; a tile that cannot
be in its pile or on its rack is refused with a sentence; the journal keeps every rack told, so the game
replays and resumes exactly (a rack told and no move chosen yet too) and its record carries them."""

from __future__ import annotations

import asyncio
import random
from dataclasses import replace

import pytest
from web_helpers import ticking, with_client

from controller.ai import match
from controller.ai.table import rack_missing
from controller.games.base import ActionNotAllowed
from controller.games.registry import engine_for
from controller.language import said
from controller.record import COMPUTER_MOVE, COMPUTER_RACK, Action, dump_record, parse_record, setup_from_mapping
from controller.referee import Referee, judge_record
from controller.service.events import Said
from controller.service.journal import Journal
from controller.service.session import GameSession, export_record
from controller.snapshot import empty_snapshot
from controller.web import WebApp
from controller.words import verdict_from_json, verdict_line
from simulation.world import StubRig

TWO = {"game": "blockers", "variant": "two-player", "players": 2, "seats": [["R", "G"], ["B", "Y"]]}
THREE = {"game": "blockers", "players": 3, "seats": ["R", "G", "B"]}
PIN = "864213"


def _rig(tmp_path, keys=TWO, computer=(None, "beginner"), max_moves=12, seed=1, mistakes=1.0) -> StubRig:
    rig = StubRig(
        {**keys, "computer": list(computer)}, tmp_path / "j.sqlite", seed=seed, troubles=False, max_moves=max_moves
    )
    rig.player.computer_mistakes = mistakes
    return rig


def _verdicts_match(rig: StubRig) -> list[dict]:
    verdicts = rig.loop.session.verdicts
    if verdicts[-1].get("action") == COMPUTER_MOVE and len(verdicts) == len(rig.player.intended) + 1:
        verdicts = verdicts[:-1]  # the player stopped at its last move; the computer had chosen its next
    assert verdicts == rig.player.intended
    return verdicts


def _until_the_computer_waits(rig: StubRig):
    """The person's moves until the computer is to move, before anyone drew its tiles."""
    steps = rig.player.steps()
    referee = rig.loop.session.referee
    while not (referee.started and referee.to_move() in rig.loop.session.computer):
        rig.driver.do(next(steps))
    rig.driver.run_frames(5)
    return steps


def test_the_computer_waits_for_its_tiles_then_plays_from_exactly_them(tmp_path):
    rig = _rig(tmp_path)
    said_lines: list[str] = []
    rig.loop.bus.subscribe(lambda e: said_lines.append(str(e.text)) if isinstance(e, Said) else None, inline=True)
    _until_the_computer_waits(rig)
    referee = rig.loop.session.referee
    # the log says once what the person is to do (the page shows it too)
    asked = [x for x in said_lines if x.startswith("the computer (player 2 (blue and yellow)) waits for its tiles")]
    assert asked == [
        "the computer (player 2 (blue and yellow)) waits for its tiles: draw 10 from its pile and tap them on the page"
    ]
    # before, the referee drew the computer's tiles itself and chose at once
    assert referee.awaited is None and not any(v.get("action") == COMPUTER_MOVE for v in rig.loop.session.verdicts)
    assert rack_missing(referee.engine, referee.state, 1, referee.racks) == {"B": 5, "Y": 5}
    # the person draws and taps: blue first (the computer still waits for yellow), then yellow
    for tiles in ("B3 B7 BA Ba B*", "Y1 Y2 Y9 YE Yb"):
        assert referee.awaited is None
        future = rig.loop.submit("rack", tiles=tiles)
        rig.driver.run_frames(1)
        assert future.result(1)["verdict"]["tiles"] == tiles
    rig.driver.run_frames(1)
    chosen = referee.awaited
    assert chosen is not None and chosen.move.split()[0] in {"B3", "BA", "Ba", "B*", "B7", "Y1", "Y2", "Yb", "YE", "Y9"}


def test_a_whole_game_stretch_every_computer_move_comes_from_its_tapped_rack(tmp_path):
    rig = _rig(tmp_path, max_moves=16)
    rig.driver.run(rig.player.steps())
    verdicts = _verdicts_match(rig)
    racks: dict[str, list[str]] = {}
    placed = set()
    moves = 0
    for v in verdicts:
        if v.get("action") == COMPUTER_RACK:
            tiles = v["tiles"].split()
            racks[tiles[0][0]] = tiles
        elif v.get("action") == COMPUTER_MOVE:
            tile = v["move"].split()[0]
            assert tile in racks.get(tile[0], ()) and tile not in placed  # from its rack, a tile not yet played
            moves += 1
        elif v["verdict"] == "legal":
            placed.add(v["move"].split()[0])
    assert moves >= 6
    # the person's wrong taps (a tile already on the board, or captured) were refused, each with why
    refused = [str(error) for _step, error in rig.driver.refusals]
    assert refused and all("cannot have been drawn: it " in r for r in refused)
    assert any("cannot have been drawn: it is on the board at" in r for r in refused)


@pytest.mark.parametrize(
    ("tiles", "words"),
    [
        ("B3 B3", "the blue tile 3 was tapped twice"),
        ("Bz", "a rack is tiles of one colour"),
        ("B3 Y4", "a rack is tiles of one colour"),
        ("V3", "violet tiles are not played in this game"),
        ("B1 B2 B3 B4 B5 B6", "the rack of the blue tiles holds 5 now, not 6"),
        ("R3", "the red tiles belong to player 1 (red and green), a person"),
        ("BB", "the blue tile B cannot have been drawn: it is on the board at B5"),
        ("BC", "the blue tile C cannot have been drawn: it was captured"),
    ],
)
def test_an_impossible_rack_is_refused_with_a_sentence(tmp_path, tiles, words):
    rig = _rig(tmp_path, max_moves=0)
    rig.driver.run(rig.player.steps())  # the empty starting board
    referee = rig.loop.session.referee
    engine = referee.engine
    # blue tile B on B5; blue tile C was placed and captured
    board = [["."] * 9 for _ in range(9)]
    board[1][4] = "BB"
    blue = engine.colours.index("B")
    referee.state = replace(
        referee.state,
        board=tuple(tuple(row) for row in board),
        captured_tiles=frozenset({"BC"}),
        available=tuple(a - {"B", "C"} if k == blue else a for k, a in enumerate(referee.state.available)),
    )
    before = list(rig.loop.session.verdicts)
    future = rig.loop.submit("rack", tiles=tiles)
    rig.driver.run_frames(1)
    error = future.exception(1)
    assert error is not None and words in said(error.args[0], "en")
    assert said(error.args[0], "fr") != said(error.args[0], "en")  # said in French too
    assert rig.loop.session.verdicts == before  # nothing journalled


def test_a_told_rack_survives_a_restart_before_the_computer_chose(tmp_path):
    """One colour's rack told, the other's not yet: the computer has chosen nothing; after a restart
    the journal gives back the told rack, and the game plays on to the same verdicts."""
    rig = _rig(tmp_path, max_moves=10, mistakes=0.0)
    steps = _until_the_computer_waits(rig)
    future = rig.loop.submit("rack", tiles="B3 B7 BA Ba B*")
    rig.driver.run_frames(1)
    future.result(1)
    rig.player._act(COMPUTER_RACK, tiles="B3 B7 BA Ba B*")  # the simulated person did it, as the page
    referee = rig.loop.session.referee
    assert referee.awaited is None and referee.racks == {"B": ("3", "7", "A", "a", "*")}
    rig.restart()
    assert rig.loop.session.referee.racks == {"B": ("3", "7", "A", "a", "*")}
    assert rig.loop.session.referee.awaited is None
    rig.driver.run(steps)
    _verdicts_match(rig)
    text = export_record(rig.loop.session.journal)
    assert "action: computer-rack" in text and "tiles: B3 B7 BA Ba B*" in text
    assert list(judge_record(parse_record(text)))[:-1] == rig.loop.session.verdicts


def test_a_move_chosen_from_a_rack_tapped_again_is_chosen_again(tmp_path):
    """The person notices a wrong tile after the computer chose: the rack tapped again drops the
    move chosen from the old one, and the computer chooses from the new rack."""
    rig = _rig(tmp_path, mistakes=0.0)
    _until_the_computer_waits(rig)
    for tiles in ("B3 B7 BA Ba B*", "Y1 Y2 Y9 YE Yb"):
        rig.loop.submit("rack", tiles=tiles)
        rig.driver.run_frames(1)
    referee = rig.loop.session.referee
    first = referee.awaited
    assert first is not None
    racks = {"B": "B3 B7 BA Ba B*", "Y": "Y1 Y2 Y9 YE Yb"}
    colour = first.move[0]
    racks[colour] = {"B": "B1 B2 B4 B5 B6", "Y": "Y3 Y4 Y5 Y6 Y7"}[colour]
    rig.loop.submit("rack", tiles=racks[colour])
    rig.driver.run_frames(2)
    again = referee.awaited
    assert again is not None and again.move.split()[0] in " ".join(racks.values()).split()
    assert again.move.split()[0] != first.move.split()[0]
    chosen = [v for v in rig.loop.session.verdicts if v.get("action") == COMPUTER_MOVE]
    assert len(chosen) == 2


def test_records_carry_racks_and_a_bad_one_is_said():
    setup = setup_from_mapping(THREE)
    engine = engine_for(setup)
    board = empty_snapshot("blockers")
    text = dump_record(setup, board, [Action(COMPUTER_RACK, tiles="G1 Ga G*")], None)
    assert "action: computer-rack" in text and "tiles: G1 Ga G*" in text
    record = parse_record(text)
    assert record.observations[0].tiles == "G1 Ga G*"
    lines = list(judge_record(record))
    assert lines[1] == {"index": 1, "verdict": "action", "action": "computer-rack", "seat": 1, "tiles": "G1 Ga G*"}
    assert str(verdict_line(verdict_from_json(lines[1]), engine)) == (
        "tiles drawn for the computer (player 2 (green)): green tile 1, green moon tile and green wild tile"
    )
    with pytest.raises(Exception, match="computer-rack with its tiles"):
        parse_record(text.replace("tiles: G1 Ga G*", "move: G1"))


def test_the_referee_refuses_a_rack_before_the_game_and_other_games_have_none():
    referee = Referee(engine_for(setup_from_mapping(THREE)))
    with pytest.raises(ActionNotAllowed, match="needs a game in progress"):
        referee.act(COMPUTER_RACK, tiles="G1")
    flipop = Referee(engine_for(setup_from_mapping({"game": "flipop", "players": 2})))
    engine, state = match.start(flipop.engine.setup, random.Random(1))
    flipop.observe(engine.expected(state), index=0)
    with pytest.raises(ActionNotAllowed, match="flipop has no racks"):
        flipop.act(COMPUTER_RACK, tiles="W1")


def test_the_page_offers_the_computers_tiles_and_takes_a_rack_with_the_pin(tmp_path):
    rig = _rig(tmp_path, keys=THREE, computer=(None, None, "beginner"), mistakes=0.0)
    _until_the_computer_waits(rig)
    app = WebApp(rig.loop, pin=PIN)

    async def body(client):
        state = await (await client.get("/api/state")).json()
        computer = state["computer"]
        assert computer["thinking"] is False and computer["move"] is None
        (rack,) = computer["racks"]
        assert (rack["seat"], rack["colour"], rack["held"], rack["missing"]) == (2, "B", [], 5)
        assert rack["colour_name"] == "blue" and rack["name"] == "player 3 (blue)"
        tiles = {t["glyph"]: t for t in rack["tiles"]}
        assert len(tiles) == 28 and tiles["a"]["symbol"] == "moon" and tiles["a"]["caption"] == "moon"
        assert tiles["a"]["words"] == "blue moon tile" and tiles["*"]["words"] == "blue wild tile"
        assert all(t["possible"] for t in tiles.values())  # no blue tile played yet
        assert state["symbols"]["a"] == "moon" and len(state["symbols"]) == 9  # the board draws them as pictures
        french = await (await client.get("/api/state", headers={"Accept-Language": "fr"})).json()
        assert french["computer"]["racks"][0]["tiles"][18]["caption"] == "lune"
        # the PIN guards it, like every change
        answer = await client.post("/api/rack", json={"tiles": "B1 B2 B3 B4 B5"})
        assert answer.status == 401
        headers = {"X-Referee-PIN": PIN}
        with ticking(rig):
            answer = await client.post("/api/rack", json={"tiles": "B1 B1"}, headers=headers)
            assert answer.status == 409 and "tapped twice" in (await answer.json())["error"]
            answer = await client.post(
                "/api/rack", json={"tiles": "B1 B1"}, headers={**headers, "Accept-Language": "fr"}
            )
            assert "touchée deux fois" in (await answer.json())["error"]
            answer = await client.post("/api/rack", json={}, headers=headers)
            assert answer.status == 400
            answer = await client.post("/api/rack", json={"tiles": "B1 B2 B3 B4 B5"}, headers=headers)
            assert answer.status == 200
            for _ in range(3000):  # the computer chooses on the loop's thread (ticked in the background)
                if rig.loop.session.referee.awaited is not None:
                    break
                await asyncio.sleep(0.01)
            assert rig.loop.session.referee.awaited is not None
            # the page hears of the choice through the loop's events, a moment after the referee made it
            for _ in range(3000):
                state = await (await client.get("/api/state")).json()
                if state["computer"]["move"] is not None:
                    break
                await asyncio.sleep(0.01)
        assert state["computer"]["racks"][0]["held"] == ["1", "2", "3", "4", "5"]
        assert state["computer"]["racks"][0]["missing"] == 0 and state["computer"]["move"] is not None

    with_client(app, body)


def test_the_journal_replays_the_racks_exactly(tmp_path):
    rig = _rig(tmp_path, max_moves=10)
    rig.driver.run(rig.player.steps())
    journal = Journal(tmp_path / "j.sqlite")
    resumed = GameSession.replay(journal, journal.latest_game().id)
    assert resumed.verdicts == rig.loop.session.verdicts
    assert resumed.referee.racks == rig.loop.session.referee.racks and resumed.referee.racks
    assert resumed.referee.awaited == rig.loop.session.referee.awaited


@pytest.mark.slow  # the demo run whole, on rendered pictures
def test_the_demo_plays_blockers_against_a_computer_seat_drawing_its_tiles(tmp_path):
    """`referee demo --game blockers --computer`: the simulated person draws the computer's tiles and taps
    them (the page's command), and makes its moves as the referee shows them."""
    from controller.commands.demo import play_game

    outcome = play_game("blockers", 2, tmp_path, print_lights=False, troubles=False, max_moves=6, computer="beginner")
    assert outcome.faithful
    told: dict[str, list[str]] = {}
    chosen = 0
    for v in outcome.verdicts:
        if v.get("action") == COMPUTER_RACK:
            told[v["tiles"][0]] = v["tiles"].split()
        elif v.get("action") == COMPUTER_MOVE:
            assert v["move"].split()[0] in told[v["move"][0]]
            chosen += 1
    assert chosen >= 2
    assert any(line.startswith("[blockers] tiles drawn for the computer (player 3 (blue))") for line in outcome.lines)


def test_the_club_words_a_rack_as_the_table_does():
    """The club says a table's verdicts in its own words: a rack's tiles too (before, left out)."""
    from controller.club.payloads import verdict_words

    body = {"verdict": "action", "action": COMPUTER_RACK, "seat": 1, "tiles": "G1 Ga"}
    assert verdict_words(body) == "tiles drawn for the computer (player 2): G1 Ga"
    assert verdict_words(body, None, "fr") == "tuiles piochées pour l'ordinateur (Joueur 2)\u00a0: G1 Ga"
