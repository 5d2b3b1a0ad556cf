"""The 3D scenes of the simulation (`simulation/scene3d.py`): what is built, without rendering.

The renderer itself (Blender, in its own environment) is not needed here: these tests check the
descriptions it is handed (every piece a body at the height its game declares, copies and rooms
that vary by seed and not otherwise) and the camera's processing of the light it returns. Stored
renders are read in `tests/test_scenes3d_pictures.py`.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from controller.games import registry
from controller.games.spec import DISC, GLYPHS_ADDON, SPHERE, TILE
from controller.profile import default_profile
from controller.snapshot import EMPTY
from controller.vision.geometry import LatticeGeometry
from simulation import scene3d as s3
from simulation.render import random_snapshot

GAMES = ["colorpop", "blockers", "flipop", "stay-alive"]


def _scene(game: str, seed: int, tmp_path: Path, **kw) -> tuple[dict, object]:
    p = default_profile(game)
    snap = random_snapshot(game, p, seed=seed)
    job = s3.scene(
        snap,
        p,
        s3.Copy.make(game, seed),
        s3.Room.make(game, p, seed),
        Path("x"),
        textures=tmp_path / "textures",
        **kw,
    )
    return job, snap


@pytest.mark.parametrize("game", GAMES)
def test_every_piece_is_a_body_at_its_declared_height(game: str, tmp_path: Path):
    job, snap = _scene(game, 3, tmp_path)
    solids = registry.get(game).vision.solids
    bodies = [o for o in job["objects"] if o["material"].startswith("piece-")]
    pieces = [(r, c, cell) for r, row in enumerate(snap.cells) for c, cell in enumerate(row) if cell != "."]
    assert len(bodies) == len(pieces) > 0
    for body, (r, c, cell) in zip(bodies, pieces):
        solid = solids[cell[0]]
        x, y, z = body["location"]
        assert abs(x - c) < 0.05 and abs(-y - r) < 0.05  # on its place (y runs up in the renderer's world)
        if solid.shape == SPHERE:
            assert body["radius"] == pytest.approx(solid.size / 2)
            assert z == pytest.approx(solid.seen_at)  # a sphere is seen centred on its centre
        else:
            top = z + (body["depth"] if body["shape"] == "cylinder" else body["size"][2]) / 2
            assert top == pytest.approx(solid.seen_at)
    if registry.get(game).reads(GLYPHS_ADDON):  # every tile carries its printed glyph on its top
        tops = [o for o in job["objects"] if o["material"].startswith("top-")]
        assert len(tops) == len(pieces)
        assert {t["material"][4:] for t in tops} == {cell for *_, cell in pieces}


def test_copies_and_rooms_vary_by_seed_and_only_by_seed():
    p = default_profile("colorpop")
    a, b, a2 = s3.Copy.make("colorpop", 1), s3.Copy.make("colorpop", 2), s3.Copy.make("colorpop", 1)
    assert a == a2 and a.colours != b.colours
    ra, rb = s3.Room.make("colorpop", p, 1), s3.Room.make("colorpop", p, 2)
    assert ra == s3.Room.make("colorpop", p, 1)
    assert ra.camera.location != rb.camera.location and ra.desk_lamp != rb.desk_lamp
    # A copy's colours stay near the standard edition's: each is the same colour, another print run.
    for key, rgb in a.colours.items():
        std = np.array(s3.looks.pieces("colorpop")[key], float)
        assert np.abs(np.array(rgb, float) - std).max() < 80


def test_cameras_look_at_the_board_off_the_vertical_by_at_most_twenty_degrees():
    for game in GAMES:
        p = default_profile(game)
        for seed in range(6):
            cam = s3.Room.make(game, p, seed).camera
            loc, target = np.array(cam.location), np.array(cam.target)
            d = target - loc
            tilt = math.degrees(math.acos(-d[2] / np.linalg.norm(d)))
            assert tilt < 22
            assert 40 < cam.fov < 80


def test_a_hand_and_the_lamp_change_the_description(tmp_path: Path):
    plain, _ = _scene("flipop", 1, tmp_path)
    dark, _ = _scene("flipop", 1, tmp_path, lamp_on=False)
    hand, _ = _scene("flipop", 1, tmp_path, hand=s3.Hand(2, 2, "left"))
    assert len(dark["lamps"]) == len(plain["lamps"]) - 1
    assert any(o["material"] == "skin" for o in hand["objects"])
    assert s3.job_key(plain) != s3.job_key(dark) != s3.job_key(hand)
    assert s3.job_key(plain) == s3.job_key({**plain, "output": "elsewhere.npy"})


def test_a_cache_serves_whatever_its_path_is_called(tmp_path: Path):
    """The same scene planned with its textures under two spellings of one folder (here through a
    link, as a relative and an absolute path also differ) renders once: the key names each texture
    by its content, not by where it was written."""
    (tmp_path / "cache").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "cache")
    near, _ = _scene("stay-alive", 2, tmp_path / "cache")
    far, _ = _scene("stay-alive", 2, tmp_path / "link")
    assert near != far  # the descriptions do name the folders, which the worker opens
    assert s3.job_key(near) == s3.job_key(far)
    other, _ = _scene("stay-alive", 3, tmp_path / "cache")
    assert s3.job_key(other) != s3.job_key(far)


def test_a_sleeve_dresses_the_forearm_and_only_it(tmp_path: Path):
    bare, _ = _scene("colorpop", 0, tmp_path, hand=s3.Hand(1, 4, "bottom"))
    dressed, _ = _scene("colorpop", 0, tmp_path, hand=s3.Hand(1, 4, "bottom", sleeve=(30, 30, 34)))
    assert "sleeve" not in bare["materials"]
    assert dressed["materials"]["sleeve"]["colour"] == s3.linear((30, 30, 34))
    sleeves = [o for o in dressed["objects"] if o["material"] == "sleeve"]
    assert len(sleeves) == 1 and sleeves[0]["shape"] == "capsule"  # the forearm; the hand stays skin
    skin = sum(o["material"] == "skin" for o in bare["objects"])
    assert sum(o["material"] == "skin" for o in dressed["objects"]) == skin - 1


def test_the_camera_develops_light_into_its_picture():
    p = default_profile("flipop")
    rng = np.random.default_rng(0)
    raw = (rng.random((60, 80, 3)) * 0.5).astype(np.float16)
    pi = s3.Room.make("flipop", p, 0, kind="pi").camera
    web = s3.Room.make("flipop", p, 0, kind="webcam").camera
    a, b = s3.develop(raw, pi, 1), s3.develop(raw, pi, 1)
    assert a.dtype == np.uint8 and a.shape == (60, 80, 3)
    assert np.array_equal(a, b)  # the same frame is the same picture
    assert not np.array_equal(a, s3.develop(raw, pi, 2))  # another frame differs by its noise
    locked = s3.Exposure.measure(raw)
    brighter = s3.develop(raw * 2, pi, 1, locked)
    assert brighter.mean() > a.mean() + 20  # a locked exposure does not follow the light
    assert web.jpeg is not None and s3.develop(raw, web, 1).shape == (60, 80, 3)


def test_a_missing_renderer_is_said_in_a_sentence(tmp_path: Path):
    job, _ = _scene("flipop", 1, tmp_path)
    renderer = s3.Renderer3D(tmp_path / "cache", python=tmp_path / "no-such-python")
    with pytest.raises(s3.RendererMissing, match="make render3d"):
        renderer.render([job], log=lambda line: None)


@pytest.mark.parametrize("game", registry.names())
def test_every_game_declares_a_body_for_each_of_its_pieces(game: str):
    """Issue 33: each game declares its pieces' heights and shapes (`VisionSpec.solids`), which the
    reader uses to find where a piece's top appears and the 3D renderer to build it; a piece left out
    would silently be read as flat, on the markers' plane."""
    vision = registry.get(game).vision
    pieces = {key for key in s3.looks.pieces(game) if not key.startswith(EMPTY) and key != "open"}
    assert pieces and pieces <= set(vision.solids), sorted(pieces - set(vision.solids))
    for solid in vision.solids.values():
        assert solid.shape in (SPHERE, DISC, TILE) and solid.size > 0 and solid.height > 0


def test_a_shade_stands_beside_the_board_between_the_lamp_and_the_band(tmp_path: Path):
    """The 3D bench's hard shadow: a box taller than the desk lamp, beside the board (not on it) on
    the lamp's side, unseen by the camera; rooms whose lamp stands over the board get none."""
    from simulation.drawing import board_margin

    made = 0
    for game in GAMES:
        p = default_profile(game)
        geom = LatticeGeometry.from_profile(p)
        m = board_margin(geom)
        for seed in range(4):
            room = s3.Room.make(game, p, seed)
            shade = s3.Shade.make(room, geom, 0)
            if shade is None:
                continue
            made += 1
            x, y, _ = shade.location
            lx, ly, lh = room.desk_lamp["location"]
            reach = float(np.hypot(*shade.size[:2])) / 2  # the footprint's corners are this near its centre
            off_x = max(abs(x - (geom.cols - 1) / 2) - ((geom.cols - 1) / 2 + m), 0.0)
            off_y = max(abs(-y - (geom.rows - 1) / 2) - ((geom.rows - 1) / 2 + m), 0.0)
            assert np.hypot(off_x, off_y) > reach, (game, seed)  # the whole box beside the board
            centre = np.array([(geom.cols - 1) / 2, -(geom.rows - 1) / 2])
            assert np.hypot(x - centre[0], y - centre[1]) < np.hypot(lx - centre[0], ly - centre[1])
            assert shade.size[2] > lh
            job, _ = _scene(game, seed, tmp_path, shade=shade)
            boxes = [o for o in job["objects"] if o["material"] == "shade"]
            assert len(boxes) == 1 and boxes[0]["out_of_view"]
    assert made >= 2
