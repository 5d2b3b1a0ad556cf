"""The coach for a person in Blockers! (issue 29): the referee does not know a person's rack, so a hint
either comes from the tiles the person taps for it (used for that hint only, never journalled), or
names a place and every tile of theirs that could go there, whichever they hold: never a tile as if
they held it, never another seat's secrets. The hint is journalled with those tiles, so the log, the
page, a restart and an export say the same."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from test_web_browser import PIN, history, in_a_browser, start_browser, wait_for
from web_helpers import ticking, with_client

from controller import cli
from controller.ai import levels
from controller.ai.levels import HINT_LEVEL
from controller.ai.table import think, told_tiles
from controller.games.base import ActionNotAllowed
from controller.language import said
from controller.record import HINT, Action, dump_record, parse_record
from controller.referee import judge_record
from controller.service.session import export_record
from controller.web import WebApp, WebServer
from controller.words import verdict_from_json, verdict_line
from simulation.world import StubRig

TWO = {"game": "blockers", "variant": "two-player", "players": 2, "seats": [["R", "G"], ["B", "Y"]]}


def _rig(tmp_path, keys=TWO, moves: int = 3) -> StubRig:
    """Two people at Blockers!, `moves` placements made: player 1 (red and green) to move after 2."""
    rig = StubRig(keys, tmp_path / "j.sqlite", seed=4, troubles=False, max_moves=12)
    steps = rig.player.steps()
    referee = rig.loop.session.referee
    while not (referee.started and rig.player.moves >= moves - 1 and referee.to_move() == 0):
        rig.driver.do(next(steps))
    rig.driver.run_frames(3)
    return rig


def _hint(rig: StubRig, **args) -> dict:
    asked = rig.loop.submit("hint", **args)
    rig.driver.run_frames(2)
    return asked.result(30)


def test_without_the_persons_tiles_the_hint_names_a_place_and_every_tile_of_theirs_that_fits(tmp_path):
    rig = _rig(tmp_path)
    referee = rig.loop.session.referee
    engine, state = referee.engine, referee.state
    answer = _hint(rig)
    (hint,) = [v for v in rig.loop.session.verdicts if v.get("action") == HINT]
    tiles = hint["tiles"].split()
    colour, place = hint["move"][0], hint["move"].split()[2]
    # every tile named is the move's colour (one of the person's), unplayed, and fits that place
    assert colour in ("R", "G") and hint["move"].split()[0] in tiles
    legal = {engine.describe(state, m) for m in engine.legal_moves(state)}
    assert all(t[0] == colour and any(m.startswith(f"{t} on {place}") for m in legal) for t in tiles)
    assert set(tiles) == {m.split()[0] for m in legal if m.split()[0][0] == colour and m.split()[2] == place}
    # said as a choice, never as a tile the person holds
    assert answer["line"].startswith("hint for player 1 (red and green): ")
    assert "whichever you hold" in answer["line"] or "if you hold it" in answer["line"]
    words = said(engine.tile_words(tiles[0]), "en")
    assert words in answer["line"]
    line = said(verdict_line(verdict_from_json(hint), engine), "en")
    assert line.startswith("hint for player 1 (red and green): ") and ("whichever you hold" in line or "if you" in line)
    assert said(verdict_line(verdict_from_json(hint), engine), "fr").startswith("conseil pour ")


def test_the_tiles_the_person_taps_give_a_hint_from_them_and_stay_out_of_the_journal(tmp_path):
    rig = _rig(tmp_path)
    referee = rig.loop.session.referee
    state = referee.state
    mine = [f"R{g}" for g in sorted(state.available[0])[:3]] + [f"G{g}" for g in sorted(state.available[1])[:2]]
    answer = _hint(rig, tiles=" ".join(mine))
    (hint,) = [v for v in rig.loop.session.verdicts if v.get("action") == HINT]
    assert hint["move"].split()[0] in mine and "tiles" not in hint
    assert "whichever" not in answer["line"]
    journal = rig.loop.session.journal
    rows = journal.db.execute("SELECT payload, verdict FROM entries").fetchall()
    assert not any(" ".join(mine) in p or " ".join(mine) in v for p, v in rows)  # the rack is the person's


@pytest.mark.parametrize(
    ("tiles", "words"),
    [
        ("B3 B4", "the blue tiles are not yours: player 1 (red and green) plays red and green"),
        ("R1 R1", "tapped twice"),
        ("R1 R2 R3 R4 R5 R6", "holds 5 now"),
        ("RZ", "a rack is tiles of one colour"),
    ],
)
def test_tiles_the_person_cannot_hold_are_refused_in_words(tmp_path, tiles, words):
    rig = _rig(tmp_path, moves=1)
    referee = rig.loop.session.referee
    with pytest.raises(ActionNotAllowed) as refused:
        told_tiles(referee.engine, referee.state, 0, tiles)
    assert words in said(refused.value.args[0], "en")
    with pytest.raises(ActionNotAllowed) as asked:  # from the running referee (`referee hint --tiles`)
        _hint(rig, tiles=tiles)
    assert words in said(asked.value.args[0], "en")
    assert not [v for v in rig.loop.session.verdicts if v.get("action") == HINT]


def test_a_played_tile_is_refused_and_the_computers_rack_is_never_read(tmp_path, monkeypatch):
    # every iteration played: a wall-clock cut on a loaded machine would change a move for that alone
    monkeypatch.setitem(levels.LEVELS, HINT_LEVEL, replace(levels.LEVELS[HINT_LEVEL], seconds=1e6))
    keys = {**TWO, "computer": [None, "beginner"]}
    rig = StubRig(keys, tmp_path / "j.sqlite", seed=1, troubles=False, max_moves=12)
    steps = rig.player.steps()
    referee = rig.loop.session.referee
    while not (referee.started and referee.to_move() == 1):
        rig.driver.do(next(steps))
    rig.driver.run_frames(3)
    for tiles in ("B3 B7 BA Ba B*", "Y1 Y2 Y9 YE Yb"):
        rig.loop.submit("rack", tiles=tiles)
        rig.driver.run_frames(1)
    while not (referee.to_move() == 0 and referee.awaited is None and rig.player.moves >= 2):
        rig.driver.do(next(steps))
    rig.driver.run_frames(2)
    engine, state = referee.engine, referee.state
    placed = next(cell for row in state.board for cell in row if cell[:1] in ("R", "G"))
    with pytest.raises(ActionNotAllowed, match="cannot have been drawn"):
        told_tiles(engine, state, 0, placed)
    # the computer's told rack makes no difference to the person's hint (it never peeks either way)
    plain = think(engine, state, HINT_LEVEL, "s", computer=False)
    peeking = think(engine, state, HINT_LEVEL, "s", computer=False, racks=dict(referee.racks))
    assert plain is not None and peeking is not None and plain.move == peeking.move and plain.tiles == peeking.tiles


def test_a_hint_naming_tiles_replays_exports_and_is_checked(tmp_path):
    rig = _rig(tmp_path)
    _hint(rig)
    session = rig.loop.session
    (hint,) = [v for v in session.verdicts if v.get("action") == HINT]
    record = export_record(session.journal, session.game_id)
    assert f"tiles: {hint['tiles']}" in record or f"tiles: '{hint['tiles']}'" in record
    parsed = parse_record(record)
    action = next(o for o in parsed.observations if isinstance(o, Action) and o.name == HINT)
    assert action.tiles == hint["tiles"]
    replayed = list(judge_record(parsed))
    assert replayed[: len(session.verdicts)] == session.verdicts
    again = parse_record(dump_record(parsed.setup, parsed.board, list(parsed.observations), None))
    assert again.observations == parsed.observations
    # a hint naming a tile that cannot go there is refused
    bad = Action(HINT, move=hint["move"], tiles=hint["tiles"] + " G9")
    broken = list(parsed.observations[: parsed.observations.index(action)]) + [bad]
    with pytest.raises(ActionNotAllowed, match="cannot all go where"):
        list(judge_record(replace(parsed, observations=tuple(broken))))


def test_referee_hint_takes_the_persons_tiles(tmp_path, capsys):
    rig = _rig(tmp_path)
    session = rig.loop.session
    record = tmp_path / "game.yaml"
    record.write_text(export_record(session.journal, session.game_id))
    assert cli.main(["hint", str(record)]) == 0
    out = capsys.readouterr().out
    assert "whichever you hold" in out or "if you hold it" in out
    engine, state = session.referee.engine, session.referee.state
    # one tile of each of the player's colours that can go somewhere now: told both racks, the hint is
    # a move of a told tile (told only red, the search may rightly choose a green move of unknown tiles)
    playable = sorted({engine.describe(state, m).split()[0] for m in engine.legal_moves(state)})
    mine = [next(t for t in playable if t[0] == colour) for colour in "RG"]
    assert cli.main(["hint", str(record), "--tiles", " ".join(mine), "--json"]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert answer["move"].split()[0] in mine and "tiles" not in answer
    assert cli.main(["hint", str(record), "--tiles", "B1"]) == 2
    assert "not yours" in capsys.readouterr().err


def test_the_page_offers_the_person_their_own_tiles_and_takes_them_with_the_hint(tmp_path):
    rig = _rig(tmp_path)
    app = WebApp(rig.loop, pin=PIN)
    state = rig.loop.session.referee.state

    async def body(client):
        page = await (await client.get("/api/state")).json()
        own = page["computer"]["own_tiles"]
        assert [(o["seat"], o["colour"]) for o in own] == [(0, "R"), (0, "G")]
        assert sum(t["possible"] for t in own[0]["tiles"]) == len(state.available[0])
        red, green = sorted(state.available[0]), sorted(state.available[1])
        mine = f"R{red[0]} R{red[1]} G{green[0]} G{green[-1]}"  # some tiles of each of their racks
        headers = {"X-Referee-PIN": PIN}
        with ticking(rig):
            refused = await client.post("/api/hint", json={"tiles": "B1"}, headers=headers)
            assert refused.status == 400 and "not yours" in (await refused.json())["error"]
            answer = await client.post("/api/hint", json={"tiles": mine}, headers=headers)
            assert answer.status == 200
            data = await answer.json()
        assert data["move"].split()[0] in mine.split() and "whichever" not in data["words"]

    with_client(app, body)


@in_a_browser
def test_the_person_taps_their_tiles_on_the_page_for_a_hint(tmp_path):
    from selenium.webdriver.common.by import By

    rig = _rig(tmp_path)
    server = WebServer(WebApp(rig.loop, pin=PIN), "127.0.0.1", 0)
    assert server.start(), server.error
    browser = start_browser(1200, 1600)
    try:
        browser.get(f"http://127.0.0.1:{server.port}/")
        pin = wait_for(lambda: browser.find_element(By.ID, "pin"))
        pin.clear()
        pin.send_keys(PIN)
        box = wait_for(
            lambda: (
                browser.find_element(By.ID, "own-tiles-box").is_displayed()
                and browser.find_element(By.ID, "own-tiles-box")
            )
        )
        # first without tiles: the hint names a place and the tiles of theirs that fit
        browser.find_element(By.ID, "hint").click()
        answer = wait_for(
            lambda: (
                "Hint: " in browser.find_element(By.ID, "coach-answer").text
                and browser.find_element(By.ID, "coach-answer").text
            ),
            timeout=30,
            tick=lambda: rig.driver.run_frames(1),
        )
        assert "whichever you hold" in answer or "if you hold it" in answer
        wait_for(lambda: any(x.startswith("hint for player 1") for x in history(browser)))
        # then the person taps tiles of their two racks (three red, two green): the hint is one of them
        box.find_element(By.TAG_NAME, "summary").click()
        red = wait_for(lambda: box.find_elements(By.CSS_SELECTOR, "#own-tiles [data-colour=R] button.tile"))
        green = box.find_elements(By.CSS_SELECTOR, "#own-tiles [data-colour=G] button.tile")
        chosen = [b.get_attribute("data-tile") for b in red[:3] + green[-2:]]
        for code in chosen:
            box.find_element(By.CSS_SELECTOR, f"button[data-tile='{code}']").click()
        wait_for(
            lambda: all(
                box.find_element(By.CSS_SELECTOR, f"button[data-tile='{c}']").get_attribute("aria-pressed") == "true"
                for c in chosen
            )
        )
        browser.find_element(By.ID, "hint").click()
        wait_for(
            lambda: len([v for v in rig.loop.session.verdicts if v.get("action") == HINT]) == 2,
            timeout=30,
            tick=lambda: rig.driver.run_frames(1),
        )
        second = [v for v in rig.loop.session.verdicts if v.get("action") == HINT][1]
        assert second["move"].split()[0] in chosen and "tiles" not in second
        # The page shows "The coach is thinking…", then the new hint, which knows the tiles held (the
        # first one said "whichever you hold"): wait for that one, not for any text without "whichever".
        wait_for(
            lambda: (
                browser.find_element(By.ID, "coach-answer").text.startswith("Hint: ")
                and "whichever" not in browser.find_element(By.ID, "coach-answer").text
                and "if you hold it" not in browser.find_element(By.ID, "coach-answer").text
            ),
            timeout=30,
            tick=lambda: rig.driver.run_frames(1),
        )
    finally:
        browser.quit()
        server.close()
