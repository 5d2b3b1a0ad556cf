"""What each game declares besides its rules (`GameSpec.vision`, `.play`) is whole, and the code
that dispatches on it says what it said when it compared game names."""

from __future__ import annotations

import numpy as np
import pytest

from controller.cli import main
from controller.games import registry
from controller.games.spec import EMPTY_BOARD, FULL_SETUP, ONE_OF_EACH, START_POSITION
from controller.profile import default_profile
from controller.snapshot import EMPTY, parse_snapshot, with_required_lines
from controller.web.view import lines_shown
from simulation.artwork import ARTWORKS
from simulation.drawing import stay_alive_points
from simulation.render import random_snapshot

BUILT_IN = ("colorpop", "blockers", "flipop", "stay-alive")


@pytest.mark.parametrize("game", BUILT_IN)
def test_every_letter_and_the_empty_place_have_a_look_and_the_artwork_is_known(game: str):
    vision = registry.get(game).vision
    assert set(registry.get(game).letters) <= set(vision.pieces)
    assert any(key.startswith(EMPTY) for key in vision.pieces)
    assert vision.artwork in ARTWORKS
    assert set(vision.calibration) <= {
        EMPTY_BOARD,
        ONE_OF_EACH,
        FULL_SETUP,
        START_POSITION,
    }


def test_a_snapshot_labelled_by_its_cells_alone_gets_the_lines_no_camera_sees():
    grid = "\n".join([". . . . . . ."] * 7) + "\n"
    snap = parse_snapshot("stay-alive", with_required_lines("stay-alive", grid))
    assert snap.line("orange") == ("A",) * 7 and snap.line("white") == ("A",) * 7
    given = "orange: B B B B B B B\nwhite: C C C C C C C\n" + grid
    assert with_required_lines("stay-alive", given) == given
    assert with_required_lines("colorpop", "text") == "text"


def test_the_renderer_opens_the_points_the_holes_strings_say():
    """Stay Alive's points drawn from the one hole rule agree with the profile's strings read directly."""
    profile = default_profile("stay-alive")
    holes = profile.get("holes")
    for seed in range(20):
        snap = random_snapshot("stay-alive", profile, seed)
        want_open, want_white = set(), set()
        for r in range(7):
            for c in range(7):
                under_orange = holes["orange"][r][snap.line("orange")[r]][c] == "1"
                under_white = holes["white"][c][snap.line("white")[c]][r] == "1"
                if under_orange and under_white:
                    want_open.add((r, c))
                elif under_orange:
                    want_white.add((r, c))
        assert stay_alive_points(snap, profile) == (want_open, want_white)
        assert not any(snap.cells[r][c] != EMPTY for r, c in want_open)  # no marble rests on an open point


def test_random_positions_follow_what_the_game_declares():
    colorpop = random_snapshot("colorpop", default_profile("colorpop"), 3)
    for c in range(10):  # tokens rest at the bottom of their slides
        column = [colorpop.cells[r][c] for r in range(10)]
        assert column == sorted(column, key=lambda cell: cell != EMPTY)
    blockers = random_snapshot("blockers", default_profile("blockers"), 3)
    assert all(len(cell) == 2 for row in blockers.cells for cell in row if cell != EMPTY)  # colour and glyph
    assert np.mean([cell != EMPTY for row in blockers.cells for cell in row]) > 0.3


@pytest.mark.parametrize(
    ("args", "sentence"),
    [
        (
            ["--game", "flipop", "--empty", "x.png"],
            "--empty is for colorpop, blockers and stay-alive (Flipop: --setup)",
        ),
        (["--game", "blockers", "--setup", "x.png"], "--setup is for colorpop and flipop; use --empty and --pieces"),
        (["--game", "colorpop", "--pieces", "x.png"], "--pieces is for blockers and stay-alive, and goes with --empty"),
    ],
)
def test_calibrate_names_the_games_a_picture_is_for(args, sentence, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr("controller.commands.calibrate.load_image", lambda path: np.zeros((8, 8, 3), np.uint8))
    assert main(["calibrate", *args, "--out", str(tmp_path / "p.yaml")]) == 2
    assert sentence in capsys.readouterr().err


def test_every_line_besides_the_grid_declares_how_the_page_draws_it():
    """The page draws a game's lines from the game's declaration (`ExtraLine.shown`), said in the
    page's language: Flipop's doors on their posts, Stay Alive's slides as sliders beside the rows
    and above the columns, each named."""
    for game in BUILT_IN:
        assert all(line.shown is not None for line in registry.get(game).extra_lines), game
    slides = lines_shown("stay-alive", 7, 7, "fr")
    assert [(line["key"], line["kind"], line["notches"]) for line in slides] == [
        ("orange", "rows", "ABC"),
        ("white", "columns", "ABC"),
    ]
    assert slides[0]["names"][2] == "glissière orange 3" and len(slides[1]["names"]) == 7
    assert [(line["key"], line["kind"], line["unknown"]) for line in lines_shown("flipop", 5, 5)] == [
        ("doors", "posts", "?")
    ]
