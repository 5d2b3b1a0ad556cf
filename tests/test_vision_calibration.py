"""Vision calibration round trips, profile `vision:` validation, frame sources."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from calibration import vision as cal
from controller.errors import ConfigError, RefereeError
from controller.profile import default_profile, load_profile, save_profile
from controller.snapshot import EMPTY, parse_snapshot
from controller.vision.reader import BoardReader
from controller.vision.sources import open_frame_source, validate_camera
from simulation.camera import RendererSource
from simulation.render import Scene, random_snapshot, render_snapshot


def colours(snap):
    return [[c[:1] for c in row] for row in snap.cells]


@pytest.mark.slow
def test_colorpop_setup_clustering_round_trip(tmp_path) -> None:
    p = default_profile("colorpop")
    rng = np.random.default_rng(0)
    tokens = list("GYOBP" * 19 + "J" * 5)
    rng.shuffle(tokens)
    setup = parse_snapshot("colorpop", "\n".join(" ".join(tokens[r * 10 : (r + 1) * 10]) for r in range(10)))
    learned = cal.learn_colorpop_setup(p, render_snapshot(setup, p, seed=21, preset="hard"))
    path = tmp_path / "colorpop.yaml"
    save_profile(learned, path)
    again = load_profile(path)
    assert again.data["vision"]["classes"]["J"]["letter"] == "J"
    later = random_snapshot("colorpop", p, seed=8)
    reading = BoardReader(again).read(render_snapshot(later, p, seed=21, preset="hard", scene=Scene(frame=3)))
    assert reading.snapshot is not None and colours(reading.snapshot) == colours(later)


@pytest.mark.parametrize("game", ["blockers", "stay-alive"])
@pytest.mark.slow
def test_empty_board_then_pieces_round_trip(game: str, tmp_path) -> None:
    p = default_profile(game)
    base = random_snapshot(game, p, seed=4)
    empty = base.with_cells([[EMPTY] * p.cols for _ in range(p.rows)])
    row0 = [(ch + ("1" if game == "blockers" else "")) for ch in p.letters]
    row0 += [EMPTY] * (p.cols - len(row0))
    pieces = empty.with_cells([row0] + [list(r) for r in empty.cells[1:]])
    from simulation.drawing import stay_alive_points

    if game == "stay-alive":
        # The marked places must be closed points: choose slides that close the top row.
        for orange in "ABC":
            trial = pieces.with_line("orange", (orange,) + pieces.line("orange")[1:])
            if not any(r == 0 and c < len(p.letters) for r, c in stay_alive_points(trial, p)[0]):
                pieces, empty = trial, empty.with_line("orange", trial.line("orange"))
                break
    learned = cal.learn_empty_and_pieces(
        p, render_snapshot(empty, p, seed=6), render_snapshot(pieces, p, seed=6, scene=Scene(frame=1))
    )
    path = tmp_path / f"{game}.yaml"
    save_profile(learned, path)
    later = random_snapshot(game, p, seed=9)
    reading = BoardReader(load_profile(path)).read(render_snapshot(later, p, seed=6, scene=Scene(frame=2)))
    assert reading.snapshot is not None and colours(reading.snapshot) == colours(later)


@pytest.mark.slow
def test_flipop_start_and_labelled_round_trip() -> None:
    p = default_profile("flipop")
    start = parse_snapshot("flipop", p.get("start"))
    learned = cal.learn_flipop_start(p, render_snapshot(start, p, seed=2, preset="hard"))
    snap = random_snapshot("flipop", p, seed=3)
    img = render_snapshot(snap, p, seed=2, preset="hard", scene=Scene(frame=5))
    relearned = cal.learn_labelled(learned, [(img, snap)])
    for prof in (learned, relearned):
        reading = BoardReader(prof).read(img)
        assert reading.snapshot is not None and colours(reading.snapshot) == colours(snap)


def test_vision_profile_errors_name_the_key() -> None:
    p = default_profile("flipop")
    bad = p.with_overrides({"vision": {"classes": {"W": {"letter": "W", "mean": [1, 2]}}}})
    with pytest.raises(ConfigError, match="vision.classes.W.mean"):
        BoardReader(bad)
    with pytest.raises(ConfigError, match="vision.colour"):
        BoardReader(p.with_overrides({"vision": {"colour": 1}}))
    wrong = {"classes": {"Q": {"letter": "Q", "mean": [0, 0, 0], "cov": np.eye(3).tolist()}}}
    with pytest.raises(ConfigError, match="vision.classes.Q.letter"):
        BoardReader(p.with_overrides({"vision": wrong}))


def test_calibration_refuses_wrong_game_and_labels() -> None:
    p = default_profile("blockers")
    img = np.zeros((720, 1280, 3), np.uint8)
    with pytest.raises(RefereeError):
        cal.learn_colorpop_setup(p, img)
    with pytest.raises(RefereeError, match="markers are not visible"):
        cal.learn_empty_and_pieces(p, img, img)


def test_camera_section_validation() -> None:
    assert validate_camera({"source": "usb"})["width"] == 1280
    with pytest.raises(ConfigError, match="camera.source"):
        validate_camera({"source": "webcam"})
    with pytest.raises(ConfigError, match="camera.zoom"):
        validate_camera({"zoom": 2})
    with pytest.raises(ConfigError, match="camera.path"):
        validate_camera({"source": "images", "path": "/no/such/folder"})
    with pytest.raises(ConfigError, match="camera.fps"):
        validate_camera({"fps": 0})


def test_image_folder_and_renderer_sources(tmp_path) -> None:
    p = default_profile("flipop")
    snap = random_snapshot("flipop", p, seed=1)
    img = render_snapshot(snap, p, seed=1, size=(320, 240))
    for name in ("b.png", "a.png"):
        cv2.imwrite(str(tmp_path / name), img)
    src = open_frame_source({"source": "images", "path": str(tmp_path)})
    assert src.read().shape == (240, 320, 3) and src.read() is not None and src.read() is None
    src.close()

    class World:
        profile = p

        def current_scene(self):
            return snap, Scene()

    rs = RendererSource(World(), 320, 240, 0, "clean")
    a, b = rs.read(), rs.read()
    assert a.shape == (240, 320, 3) and not np.array_equal(a, b)  # new noise every frame
    with pytest.raises(ConfigError):
        open_frame_source({"source": "renderer"})


def test_lost_usb_camera_gives_none_not_an_error() -> None:
    src = open_frame_source({"source": "usb", "device": "/dev/no-such-camera"})
    assert src.read() is None
    src.close()


def test_open_points_showing_a_lit_table_are_learned_open_not_white() -> None:
    """Stay Alive's empty board: an open point shows what lies under the board, here a green table
    the lamp lights through the holes: dim and greenish, nearer the standard white slide than the
    standard dark opening. Seeded with the standard looks, every open point went to the white look
    (a room's 3D render read 54 open points closed, sure); the white look's group then holds two
    looks further apart than its open-set distance, and is split."""
    from controller.vision.features import colour_features
    from controller.vision.tops import PlaceLooks

    rng = np.random.default_rng(7)
    looks_bgr = {".o": (0.14, 0.48, 0.93), ".w": (0.86, 0.88, 0.90), "open": (0.16, 0.36, 0.30)}
    truth = rng.permutation([".o"] * 33 + [".w"] * 8 + ["open"] * 8)
    bgr = np.array([looks_bgr[k] for k in truth]) * rng.normal(1.0, 0.03, (len(truth), 3))
    feats = colour_features(bgr)
    looks = PlaceLooks(heights={}, at={0.0: (feats, np.ones(len(truth)))})
    model = cal.model_for(default_profile("stay-alive"))
    assert cal._empty_keys(model, looks) == list(truth)
