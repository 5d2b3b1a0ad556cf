"""Broken config files get errors that name the key and say what was expected."""

from __future__ import annotations

import pytest
import yaml

from controller.errors import ConfigError, RefereeError
from controller.service.config import config_from_mapping, load_config

BASE = {"game": "colorpop", "players": 3, "camera": {"source": "renderer"}}


def _config(**changes):
    data = {**BASE, **changes}
    return config_from_mapping({k: v for k, v in data.items() if v is not ...}, source="config.yaml")


def test_the_shipped_config_is_valid():
    config = load_config("config.yaml")
    assert config.setup.game == "colorpop"
    assert config.camera["source"] == "renderer"
    assert config.gpio.backend == "mock"
    assert config.settle_time == 0.0 and config.patience == 1.5


@pytest.mark.parametrize(
    "changes,key,words",
    [
        ({"game": "chess"}, "game", "colorpop"),
        ({"game": ...}, "game", "required"),
        ({"variant": "turbo"}, "variant", "standard"),
        ({"players": 9}, "players", "2 to 5"),
        ({"first": 5}, "first", "seat"),
        ({"settle_time": "fast"}, "settle_time", "number of seconds"),
        ({"settle_time": 30}, "settle_time", "expected 0 to 5 seconds, got 30"),
        ({"patience": 0}, "patience", "expected 0.2 to 30 seconds, got 0"),
        ({"settle_time": 2.0, "patience": 1.0}, "patience", "at least settle_time"),
        ({"journal": 3}, "journal", "file path"),
        ({"colour": "red"}, "colour", "not a known setting"),
        ({"camera": {"source": "telescope"}}, "camera.source", "renderer"),
        ({"camera": {"fps": 0}}, "camera.fps", "whole number"),
        ({"gpio": {"pins": {"red": 99}}}, "gpio.pins.red", "BCM"),
        ({"gpio": {"pins": {"red": 17}}}, "gpio.pins.red", "already used"),
        ({"gpio": {"backend": "pi"}}, "gpio.backend", "mock"),
        ({"switches": {"source": "usb"}}, "switches.source", "serial"),
        ({"log": {"level": "loud"}}, "log.level", "info"),
        ({"simulation": {"player": "yes"}}, "simulation.player", "true or false"),
        ({"profile": {"settings": {"nonsense": 1}}}, "profile.settings", ""),
        ({"game": "stay-alive", "players": 2, "switches": {"source": "none"}}, "switches.source", "Stay Alive"),
        ({"game": "blockers", "players": 3, "seats": ["R", "G", "Q"]}, "seats[2]", "not a colour"),
    ],
)
def test_broken_configs_name_the_key(changes, key, words):
    with pytest.raises(ConfigError) as info:
        _config(**changes)
    assert info.value.key.startswith(key)
    assert f"'{info.value.key}'" in str(info.value)
    assert str(info.value).startswith("config.yaml: ")
    assert words in str(info.value)


def test_unreadable_files_say_so(tmp_path):
    with pytest.raises(RefereeError, match="cannot read the config file"):
        load_config(tmp_path / "missing.yaml")
    bad = tmp_path / "bad.yaml"
    bad.write_text("game: [colorpop\n")
    with pytest.raises(RefereeError, match="not valid YAML"):
        load_config(bad)


def test_relative_paths_are_relative_to_the_config_file(tmp_path):
    file = tmp_path / "referee" / "config.yaml"
    file.parent.mkdir()
    file.write_text(yaml.safe_dump({**BASE, "journal": "games.sqlite", "control_socket": "ctl.sock"}))
    config = load_config(file)
    assert config.journal == file.parent / "games.sqlite"
    assert config.control_socket == file.parent / "ctl.sock"
