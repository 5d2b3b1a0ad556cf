"""Aim advice (controller/vision/aim.py) on renders: framing, light, focus and glare, in words."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from controller.games.registry import engine_for
from controller.profile import default_profile
from controller.record import setup_from_mapping
from controller.vision.aim import GOOD, aim_advice, row_names
from controller.vision.geometry import LatticeGeometry
from simulation.render import Scene, random_snapshot, render_snapshot


def _picture(game: str, scene: Scene | None = None, seed: int = 1) -> tuple[np.ndarray, LatticeGeometry, object]:
    profile = default_profile(game)
    snapshot = random_snapshot(game, profile, seed + 2)
    image = render_snapshot(snapshot, profile, seed=seed, scene=scene or Scene())
    engine = engine_for(setup_from_mapping({"game": game, "players": 2}, "test"))
    return image, LatticeGeometry.from_profile(profile), engine.place_name


@pytest.mark.parametrize("game", ["colorpop", "flipop", "stay-alive"])
def test_a_good_picture_says_markers_found_and_board_in_view(game):
    image, geom, names = _picture(game)
    advice = aim_advice(image, geom, names)
    assert advice.lines == [GOOD] and advice.ok and advice.in_view
    assert len(advice.markers_found) == 4 and not advice.markers_missing


@pytest.mark.slow
def test_the_hard_preset_is_still_good():
    image, geom, names = _picture("flipop", Scene(preset="hard"))
    assert aim_advice(image, geom, names).lines == [GOOD]


@pytest.mark.parametrize(
    ("bump", "move"),
    [
        ((-420, 0, 0), "move the camera left"),
        ((420, 0, 0), "move the camera right"),
        ((0, -260, 0), "move the camera up"),
        ((0, 260, 0), "move the camera down"),
    ],
)
def test_a_board_leaving_the_picture_says_which_way_to_move(bump, move):
    image, geom, names = _picture("colorpop", Scene(bump=bump))
    advice = aim_advice(image, geom, names)
    assert move in advice.lines and not advice.ok and not advice.in_view
    assert GOOD not in advice.lines


def test_a_board_half_out_of_the_picture_names_the_missing_markers_side():
    image, geom, names = _picture("stay-alive", Scene(bump=(-600, 0, 0)))
    advice = aim_advice(image, geom, names)
    assert "top-left" in advice.markers_missing and "bottom-left" in advice.markers_missing
    assert "move the camera left" in advice.lines


@pytest.mark.slow
def test_dark_and_bright_pictures():
    image, geom, names = _picture("flipop")
    dark = aim_advice((image * 0.15).astype(np.uint8), geom, names)
    assert any(line.startswith("too dark") for line in dark.lines) and not dark.ok
    assert dark.measures["mean"] < 40
    bright = aim_advice(np.clip(image.astype(int) * 2.2, 0, 255).astype(np.uint8), geom, names)
    assert any(line.startswith("too bright") for line in bright.lines) and not bright.ok
    assert bright.measures["clipped_white"] > 0.2


@pytest.mark.parametrize("game", ["colorpop", "stay-alive"])
@pytest.mark.slow
def test_a_blurred_picture_is_out_of_focus_and_a_sharp_one_is_not(game):
    image, geom, names = _picture(game)
    sharp = aim_advice(image, geom, names)
    blurred = aim_advice(cv2.GaussianBlur(image, (0, 0), 2.2), geom, names)
    assert not any("focus" in line for line in sharp.lines)
    assert any(line.startswith("out of focus") for line in blurred.lines), blurred.lines
    assert blurred.measures["blur_px"] > sharp.measures["blur_px"] + 0.5
    assert blurred.measures["laplacian_variance"] < sharp.measures["laplacian_variance"]


def test_glare_is_named_by_row_in_the_games_notation():
    image, geom, names = _picture("colorpop", Scene(glare_at=((2.0, 2.0, 0.4),)))
    advice = aim_advice(image, geom, names)
    assert (2, 2) in advice.glare_places
    line = next(line for line in advice.lines if line.startswith("glare"))
    assert line.startswith("glare on row 3 (") and "C3" in line  # Colorpop: column letter, row number


@pytest.mark.slow
def test_glare_on_stay_alive_names_its_points_row():
    image, geom, names = _picture("stay-alive", Scene(glare_at=((4.0, 1.0, 0.4),)))
    advice = aim_advice(image, geom, names)
    line = next(line for line in advice.lines if line.startswith("glare"))
    assert line.startswith(f"glare on row {names((4, 1)).split()[-1].split(',')[0]} (") and names((4, 1)) in line


def test_no_marker_at_all():
    image, geom, names = _picture("colorpop")
    advice = aim_advice(np.full_like(image, 120), geom, names)
    assert advice.lines[0].startswith("no board marker found") and not advice.ok and not advice.markers_found


def test_row_names_read_off_the_place_names():
    assert row_names(lambda c: f"{chr(65 + c[1])}{c[0] + 1}", 3, 4) == ["1", "2", "3"]
    assert row_names(lambda c: f"({c[0]},{c[1]})", 3, 4) == ["0", "1", "2"]
    assert row_names(lambda c: f"point {c[0]},{c[1]}", 3, 4) == ["0", "1", "2"]
    assert row_names(lambda c: f"p{c[0] * 4 + c[1]}", 3, 4) is None  # no row in the names: the places are listed


@pytest.mark.slow
def test_the_aim_command_prints_the_same_advice(tmp_path, capsys):
    from controller.cli import main

    good, _, _ = _picture("colorpop")
    glare, geom, names = _picture("colorpop", Scene(glare_at=((2.0, 2.0, 0.4),)))
    cv2.imwrite(str(tmp_path / "good.png"), good)
    cv2.imwrite(str(tmp_path / "glare.png"), glare)
    assert main(["aim", "--image", str(tmp_path / "good.png"), "--game", "colorpop"]) == 0
    assert capsys.readouterr().out.splitlines()[0] == GOOD
    assert main(["aim", "--image", str(tmp_path / "glare.png"), "--game", "colorpop"]) == 1
    printed = capsys.readouterr().out.splitlines()
    assert printed[:-1] == aim_advice(glare, geom, names).lines and printed[-1].startswith("# markers found")
    # from a config's camera: a folder of pictures stands in for it
    (tmp_path / "pictures").mkdir()
    cv2.imwrite(str(tmp_path / "pictures" / "a.png"), glare)
    (tmp_path / "config.yaml").write_text(
        f"game: colorpop\nplayers: 2\ncamera:\n  source: images\n  path: {tmp_path / 'pictures'}\n", encoding="utf-8"
    )
    assert main(["aim", "--config", str(tmp_path / "config.yaml")]) == 1
    assert capsys.readouterr().out.splitlines()[0].startswith("glare on row 3 (C3")


def test_the_aim_command_refuses_bad_input_with_a_sentence(tmp_path, capsys):
    from controller.cli import main

    assert main(["aim", "--image", str(tmp_path / "none.png"), "--game", "colorpop"]) == 2
    assert main(["aim", "--image", str(tmp_path / "none.png")]) == 2
    assert "--game" in capsys.readouterr().err
    assert main(["aim"]) == 2
    assert main(["aim", "--config", str(tmp_path / "missing.yaml")]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and "missing.yaml" in err
