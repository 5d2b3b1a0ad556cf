"""A game that adds a snapshot line, its own event and a reader add-on is one package: the sixth
game (`lamp_game.py`, defined only here) goes through the formats, `replay`, `render`, `read`,
`export`, the simulated service, its journal, the live page and the club with no edit anywhere else."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import cv2
import lamp_game
import numpy as np
import pytest
from mqtt_helpers import wait_for
from test_club_broker import _club, _get, _seen, _table, judge_record_result

from controller.cli import main
from controller.errors import FormatError
from controller.profile import default_profile, load_profile
from controller.record import parse_record
from controller.referee import judge_record
from controller.service.journal import Journal
from controller.service.session import export_record
from controller.snapshot import format_snapshot, parse_snapshot
from controller.vision.reader import BoardReader
from controller.web.view import LiveView
from simulation import artwork
from simulation.render import render_snapshot
from simulation.world import StubRig, all_agree

NAME = lamp_game.NAME
BRIGHT = lamp_game.BRIGHT
RECORD = textwrap.dedent(
    """\
    game: noughts-lit
    players: 2
    setup: |
      . . .
      . . .
      . . .
      light: bright
    observations:
      - "X . .\\n. . .\\n. . .\\nlight: bright\\n"
      - "X . .\\n. . .\\n. . .\\nlight: dim\\n"
      - "X O .\\n. . .\\n. . .\\nlight: dim\\n"
      - "X O .\\n. X .\\n. . .\\nlight: dim\\n"
      - "X O .\\n. X O\\n. . .\\nlight: ?\\n"
      - "X O .\\n. X O\\n. . X\\nlight: dim\\n"
    """
)


@pytest.fixture(autouse=True)
def lit():
    with lamp_game.registered():  # the game, and its drawing for the simulated camera
        yield


def test_its_line_is_read_and_written_as_the_game_declares_it():
    snap = parse_snapshot(NAME, "X . O\n. X .\nO . X\nlight: dim\n")
    assert snap.line("light") == ("dim",)
    assert format_snapshot(snap).endswith("light: dim\n")
    assert parse_snapshot(NAME, format_snapshot(snap)) == snap
    with pytest.raises(FormatError, match="the light line says bright, dim or \\?, not 'dusk'"):
        parse_snapshot(NAME, "X . .\n. . .\n. . .\nlight: dusk\n")


def test_a_record_is_judged_with_its_line_and_its_event_in_words():
    lines = list(judge_record(parse_record(RECORD)))
    kinds = [line.get("verdict") for line in lines[:-1]]
    # the lamp dimmed alone: no move; a light unread ('?') tells nothing new
    assert kinds == ["setup-ok", "legal", "unchanged", "legal", "legal", "legal", "legal"]
    assert lines[-2]["events"] == ["three:2,2"]
    assert lines[-1]["result"]["winners"] == [0]


def test_referee_replay_prints_its_event_in_words_and_in_json(tmp_path: Path, capsys):
    path = tmp_path / "lit.yaml"
    path.write_text(RECORD)
    assert main(["replay", str(path)]) == 0
    assert "C3 completes three in a row" in capsys.readouterr().out
    assert main(["replay", "--json", str(path)]) == 0
    verdicts = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert verdicts[-2]["events"] == ["three:2,2"]


@pytest.mark.slow
def test_referee_read_reads_its_line_with_its_reader_add_on(tmp_path: Path, capsys):
    """`render` draws the board and its lamp; `read` prints the grid and the `light:` line its add-on read."""
    for light in ("bright", "dim"):
        position = tmp_path / f"{light}.txt"
        position.write_text(f"X . O\n. X .\nO . X\nlight: {light}\n")
        picture = tmp_path / f"{light}.png"
        args = ["render", "--game", NAME, "--snapshot", str(position), "--out", str(picture), "--seed", "2"]
        assert main(args) == 0
        capsys.readouterr()
        assert main(["read", "--game", NAME, "--image", str(picture)]) == 0
        assert capsys.readouterr().out == f"X . O\n. X .\nO . X\nlight: {light}\n"
    # a darker picture of the lit lamp: the add-on reads the lamp against the paper, still lit
    darker = np.clip(cv2.imread(str(tmp_path / "bright.png")).astype(np.float64) * 0.35, 0, 255).astype(np.uint8)
    reading = BoardReader(default_profile(NAME)).read(darker)
    assert reading.snapshot == parse_snapshot(NAME, "X . O\n. X .\nO . X\nlight: bright\n")


def test_its_drawing_comes_from_the_tests_through_the_artwork_hook():
    """The renderer draws the lamp the game's `VisionSpec.artwork` names, registered by the tests
    (`simulation.artwork.registered`), lit or out as the snapshot says; a registration lasts its block."""
    profile = default_profile(NAME)
    dim = parse_snapshot(NAME, "X . .\n. O .\n. . .\nlight: dim\n")
    drawn = render_snapshot(dim, profile, seed=1)
    lit = render_snapshot(dim.with_line("light", (BRIGHT,)), profile, seed=1)
    changed = np.argwhere(np.any(drawn != lit, axis=2))
    assert len(changed) > 50  # the lamp: lit in one, out in the other
    with artwork.registered(lamp_game.SPEC.vision.artwork, artwork.PLAIN):
        plain = render_snapshot(dim, profile, seed=1)
    assert np.any(plain != drawn) and artwork.artwork_for(NAME) is lamp_game.LAMP_ARTWORK
    # the lamp is all that differs: a small patch of the picture, above the middle column
    reader = BoardReader(profile)
    assert reader.read(drawn).snapshot == dim
    lamp = cv2.perspectiveTransform(np.array([[lamp_game.LAMP]], np.float64), reader.h)[0, 0]
    assert np.all(np.hypot(*(changed[:, ::-1] - lamp).T) < 40)


def test_a_rendered_board_is_read_with_its_line():
    position = parse_snapshot(NAME, "X . .\n. O .\n. . .\nlight: bright\n")
    profile = default_profile(NAME)
    reading = BoardReader(profile).read(render_snapshot(position, profile, seed=1))
    assert reading.snapshot == position


def test_the_service_its_journal_and_the_page_carry_its_line_and_event(tmp_path: Path, capsys):
    rig = StubRig({"game": NAME, "players": 2}, tmp_path / "j.sqlite", seed=3, troubles=True)
    view = LiveView(rig.loop.bus)
    rig.driver.run(rig.player.steps())
    verdicts = [v.to_json() for v in rig.loop.verdicts]
    assert rig.loop.session.referee.over and all_agree(verdicts, rig.player.intended)
    # the page heard it all: the board with its line, the event in words
    rig.loop.bus.drain()
    page = view.state()
    assert page["board"]["light"] == ["bright"] and page["title"] == "Noughts and crosses by lamplight"
    # how to draw it, as the game declares it, in the page's words
    light = {"key": "light", "kind": "value", "label": "lamp", "unknown": "?"}
    assert page["lines"] == [{**light, "words": {"bright": "lit brightly", "dim": "dimmed", "?": "not read"}}]
    assert view.state("fr")["lines"][0]["words"]["?"] == "non lu"
    assert page["board"]["text"].endswith("light: bright\n")
    won = [v for v in verdicts if "events" in v]
    assert len(won) == 1 and won[0]["events"][0].startswith("three:")
    assert any("completes three in a row" in v["line"] for v in page["verdicts"])
    # the journal keeps its snapshots whole: the exported record judges as the game was judged
    journal = Journal(tmp_path / "j.sqlite")
    try:
        record = export_record(journal)
    finally:
        journal.close()
    assert "light: bright" in record
    assert [v for v in judge_record(parse_record(record)) if "verdict" in v] == rig.loop.session.verdicts
    assert main(["export", str(tmp_path / "j.sqlite")]) == 0
    assert capsys.readouterr().out == record


@pytest.mark.slow
def test_referee_calibrate_learns_a_copy_of_it_and_the_reader_reads_its_line_after(tmp_path: Path, capsys):
    profile = default_profile(NAME)
    empty, pieces = tmp_path / "empty.png", tmp_path / "pieces.png"
    cv2.imwrite(str(empty), render_snapshot(parse_snapshot(NAME, ". . .\n. . .\n. . .\n"), profile, seed=4))
    cv2.imwrite(str(pieces), render_snapshot(parse_snapshot(NAME, "X O .\n. . .\n. . .\n"), profile, seed=5))
    out = tmp_path / "lit.yaml"
    assert main(["calibrate", "--game", NAME, "--empty", str(empty), "--pieces", str(pieces), "--out", str(out)]) == 0
    assert "classes apart" in capsys.readouterr().out
    position = parse_snapshot(NAME, "X . O\n. X .\nO . X\nlight: bright\n")
    reading = BoardReader(load_profile(out)).read(render_snapshot(position, profile, seed=6, preset="hard"))
    assert reading.snapshot == position


def _card(club) -> dict:
    return {t["table"]: t for t in _get(club, "/api/tables")}["t1"]


@pytest.mark.slow
def test_a_table_playing_it_reports_to_the_club_whose_card_and_standings_show_it(broker, tmp_path: Path):
    """A table refereeing the lamp game publishes to a real Mosquitto; the club (which knows no game
    by name) shows its card with the game's title, its line in the board and its event in words,
    and counts the result in the standings."""
    path = tmp_path / "lit.yaml"
    path.write_text(RECORD)
    club = _club(broker, tmp_path)
    table = _table(broker, tmp_path, record=path, names=("Ann", "Bob"))
    try:
        while not table.finished:
            table.step()
        wait_for(lambda: _seen(club, table), what="the club to see the lamp game's last verdict")
        # The board comes on its own topic: under load it may follow the verdict by a moment (it failed so twice).
        wait_for(lambda: _card(club)["snapshot"].endswith("light: dim\n"), what="the club to see the last board")
        card = _card(club)
        assert card["game"] == NAME and card["game_words"] == "Noughts and crosses by lamplight, game 1"
        assert card["snapshot"].endswith("light: dim\n") and card["over"] is True
        # its event in the words its game declared (the club names places by row and column, for every game)
        assert (
            card["last_verdict"].startswith("Ann: legal move, X on C3")
            and "completes three in a row" in card["last_verdict"]
        )
        result = judge_record_result(table)
        standings = wait_for(lambda: _get(club, "/api/standings")["standings"], what="the standings")
        assert [(s["name"], s["wins"], s["points"]) for s in standings] == [("Ann", 1, 1.0), ("Bob", 0, 0.0)]
        assert result["winners"] == [0]
        assert _get(club, "/standings.csv").splitlines()[1].startswith("1,Ann,1,1,0,0,1,")
    finally:
        table.close()
        club.stop()
