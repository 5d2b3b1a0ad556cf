"""The guided calibration's steps, its capture gate (still, markers in view, no hand) and saving the profile
under a name with the config switched to it (calibration/guided.py)."""

from __future__ import annotations

import dataclasses

import fifth_game
import numpy as np
import pytest

from calibration import guided
from controller.errors import RefereeError
from controller.games import registry
from controller.profile import default_profile, load_profile
from controller.service.config import load_config
from simulation.render import render_snapshot


def test_each_games_steps_say_what_to_do_and_draw_where():
    games = ("colorpop", "blockers", "flipop", "stay-alive")
    keys = {game: [s.key for s in guided.steps_for(default_profile(game))] for game in games}
    assert keys == {
        "colorpop": ["empty", "bottom-row", "setup"],
        "blockers": ["empty", "pieces", "glyphs"],
        "flipop": ["start"],
        "stay-alive": ["empty", "pieces"],
    }
    blockers = guided.steps_for(default_profile("blockers"))
    assert blockers[1].drawing.cells[0][:5] == ("R?", "G?", "B?", "Y?", "V?")
    assert "red (R), green (G), blue (B), yellow (Y), violet (V)" in blockers[1].sentence
    glyphs = blockers[2].drawing_text().splitlines()
    assert glyphs[:4] == [
        "R1 R2 R3 R4 R5 R6 R7 R8 R9",
        "RA RB RC RD RE RF RG RH RI",
        "Ra Rb Rc Rd Re Rf Rg Rh Ri",
        "R* .. .. .. .. .. .. .. ..",
    ]
    assert "moon, sun, star" in blockers[2].sentence and blockers[2].file == "glyphs.png"
    stay_alive = guided.steps_for(default_profile("stay-alive"))[1]
    assert "slides" in stay_alive.sentence and stay_alive.drawing.cells[0] == ("R", "G", "B", "Y", ".", ".", ".")
    bottom, colorpop = guided.steps_for(default_profile("colorpop"))[1:]
    assert bottom.drawing.cells[9] == ("G", "Y", "O", "B", "P", "J", ".", ".", ".", ".")
    assert colorpop.drawing is None and "19 green" in colorpop.sentence and "5 joker" in colorpop.sentence
    start = guided.steps_for(default_profile("flipop"))[0]
    assert start.drawing_text().splitlines()[-1].startswith("doors: E N W W")


def test_a_fifth_game_is_guided_through_the_pictures_it_declares():
    with registry.registered(fifth_game.SPEC):
        steps = guided.steps_for(default_profile(fifth_game.NAME))
        assert [s.key for s in steps] == ["empty", "pieces"]  # the default calibration pictures of a GameSpec
        assert steps[1].drawing_text().splitlines()[0] == "X O ."
        assert "cross (X), nought (O)" in steps[1].sentence


def test_a_game_that_declares_no_calibration_picture_says_so():
    spec = dataclasses.replace(fifth_game.SPEC, vision=dataclasses.replace(fifth_game.SPEC.vision, calibration=()))
    with registry.registered(spec), pytest.raises(RefereeError, match="no guided calibration for Noughts and crosses"):
        guided.steps_for(default_profile(fifth_game.NAME))


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += max(seconds, 0.01)


def wait(read, profile, seconds: float = 2.0):
    clock = FakeClock()
    return guided.wait_for_still(read, profile, timeout=seconds, clock=clock, sleep=clock.sleep)


def test_capture_waits_for_a_still_picture_with_the_markers_in_view():
    profile = default_profile("flipop")
    start = guided.steps_for(profile)[0].drawing
    frames = [render_snapshot(start, profile, seed=1, size=(320, 240), scene=None) for _ in range(2)]
    board = iter([frames[0].copy() for _ in range(10)])
    assert wait(lambda: next(board), profile) is not None
    with pytest.raises(guided.CaptureTimeout, match="the camera gave no new picture in 2 s: "):
        wait(lambda: None, profile)
    same = frames[0]
    with pytest.raises(guided.CaptureTimeout, match="the camera gave no new picture"):
        wait(lambda: same, profile)  # the very same picture again and again is no new picture
    rng = np.random.default_rng(0)
    with pytest.raises(guided.CaptureTimeout, match="did not keep still for 2 s: "):
        wait(lambda: rng.integers(0, 255, (240, 320, 3), dtype=np.uint8), profile)
    grey = np.full((240, 320, 3), 120, np.uint8)
    with pytest.raises(guided.CaptureTimeout, match="four corner markers were not in view"):
        wait(lambda: grey.copy(), profile)


def test_the_config_line_is_switched_and_its_comment_kept():
    text = "game: flipop\nprofile: null            # null: the default\ncamera:\n  profile: x\n"
    assert guided.with_profile_line(text, "profiles/a.yaml") == (
        "game: flipop\nprofile: profiles/a.yaml # null: the default\ncamera:\n  profile: x\n"
    )
    assert guided.with_profile_line("game: flipop", "profiles/a.yaml") == "game: flipop\nprofile: profiles/a.yaml\n"
    block = "game: blockers\nprofile:\n  regions: [abc, def, ghi]\n  symbols: [a, b]\nplayers: 3\n"
    switched = guided.with_profile_line(block, "profiles/b.yaml")
    assert switched == "game: blockers\nprofile: profiles/b.yaml\nplayers: 3\n"


def test_saving_refuses_bad_and_taken_names_and_switches_the_config(tmp_path):
    config = tmp_path / "config.yaml"
    config.write_text("game: flipop\nplayers: 2\nprofile: null\n", "utf-8")
    profile = default_profile("flipop").with_overrides({"settings": {}}, source="learned")
    for bad in ("", "../x", "a b", "x" * 41, "-x", "x\n", None):
        with pytest.raises(guided.ProfileNameError, match="cannot name a profile"):
            guided.save_and_switch(profile, bad, config)
    path = guided.save_and_switch(profile, "my_copy-2", config)
    assert path == tmp_path / "profiles" / "my_copy-2.yaml" and load_profile(path).game == "flipop"
    assert load_config(config).setup.profile.source == str(path)
    with pytest.raises(guided.ProfileNameError, match="exists already"):
        guided.save_and_switch(profile, "my_copy-2", config)
    assert guided.save_and_switch(profile, "my_copy-2", config, overwrite=True) == path
    with pytest.raises(RefereeError, match="is a Flipop config; this profile is for Colorpop"):
        guided.save_and_switch(default_profile("colorpop"), "other", config)
    assert "profile: profiles/my_copy-2.yaml" in config.read_text("utf-8")


class LockedCamera:
    """A camera that locked its exposure and white balance (as sources.UsbCamera reports them)."""

    def __init__(self, settings):
        self.settings = settings

    def camera_settings(self):
        return self.settings


class Wrapper:
    def __init__(self, source):
        self.source = source


def test_the_camera_locked_while_calibrating_is_stored_in_the_profile():
    profile = default_profile("flipop")
    values = {"usb": {"exposure": 120.0, "gain": 2.0, "wb_temperature": 4600.0}}
    sensor = Wrapper(Wrapper(LockedCamera(values)))  # the service's sensor, its watchdog, the camera
    learned = guided.with_camera_settings(profile, sensor)
    assert learned.get("camera")["usb"] == values["usb"]


def test_a_camera_with_nothing_locked_leaves_the_profile_as_it_was():
    profile = default_profile("flipop")
    assert guided.with_camera_settings(profile, Wrapper(LockedCamera(None))) is profile  # lock: false
    assert guided.with_camera_settings(profile, Wrapper(object())) is profile  # the simulated camera, files
    assert guided.with_camera_settings(profile, None) is profile
