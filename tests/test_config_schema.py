"""One schema for the files a person writes: sections that refuse unknown keys and convert nothing
silently, and one loader that words every unreadable file the same way."""

from __future__ import annotations

import pytest

from controller.club.config import MqttConfig
from controller.errors import ConfigError, FormatError, RefereeError
from controller.files import load_yaml, parse_yaml, read_text
from controller.hardware.config import GpioConfig, SwitchConfig
from controller.schema import Section, key_path, validate
from controller.service.config import ConfigFile, LogSection, SimulationConfig, WebConfig
from controller.vision.sources import CameraSection


def _sections(model: type[Section]) -> list[type[Section]]:
    """`model` and every section below it."""
    found = [model]
    for field in model.model_fields.values():
        annotation = field.annotation
        for candidate in getattr(annotation, "__args__", (annotation,)):
            if isinstance(candidate, type) and issubclass(candidate, Section) and candidate not in found:
                found += _sections(candidate)
    return found


SECTIONS = sorted(
    {
        *_sections(ConfigFile),
        MqttConfig,
        CameraSection,
        GpioConfig,
        SwitchConfig,
        LogSection,
        SimulationConfig,
        WebConfig,
    },
    key=lambda model: model.__name__,
)


@pytest.mark.parametrize("model", SECTIONS, ids=lambda model: model.__name__)
def test_every_section_refuses_an_unknown_key_by_its_path(model):
    data = {"host": "broker"} if model is MqttConfig else {}
    with pytest.raises(ConfigError) as caught:
        validate(model, {**data, "colour": "red"}, prefix="here")
    assert caught.value.key == "here.colour"
    for known in model.known_keys():
        assert known in str(caught.value)


@pytest.mark.parametrize(
    ("section", "key", "words"),
    [
        ({"simulation": {"player": "yes"}}, "simulation.player", "true or false"),
        ({"simulation": {"seed": 2.0}}, "simulation.seed", "whole number"),
        ({"web": {"enabled": 1}}, "web.enabled", "true or false"),
        ({"camera": {"loop": "no"}}, "camera.loop", "true or false"),
        ({"gpio": {"buzzer_tonal": 0}}, "gpio.buzzer_tonal", "true or false"),
        ({"log": "loud"}, "log", "name: value"),
    ],
)
def test_nothing_is_converted_silently(section, key, words):
    with pytest.raises(ConfigError) as caught:
        validate(ConfigFile, section, "config.yaml")
    assert caught.value.key == key
    assert str(caught.value).startswith(f"config.yaml: key '{key}': ")
    assert words in str(caught.value)


def test_an_empty_section_takes_the_defaults():
    config = validate(ConfigFile, {"camera": None, "gpio": None, "web": None})
    assert config.camera == CameraSection() and config.gpio == GpioConfig() and config.web.port == 8080


def test_key_paths_read_as_a_person_writes_them():
    assert key_path(("gpio", "pins", "seat_leds", 2)) == "gpio.pins.seat_leds[2]"
    assert key_path(("red",), "gpio.pins") == "gpio.pins.red"
    assert key_path((), "mqtt") == "mqtt"


def test_the_loader_words_every_unreadable_file_the_same_way(tmp_path):
    with pytest.raises(RefereeError, match=r"^cannot read the profile .*missing.yaml: No such file"):
        load_yaml(tmp_path / "missing.yaml", "the profile")
    binary = tmp_path / "picture.png"
    binary.write_bytes(b"\x89PNG\r\n\x1a\n\xff\xfe\x00")
    with pytest.raises(RefereeError, match=r"^the config file .*picture.png is not a text file$"):
        read_text(binary, "the config file")
    slip = tmp_path / "slip.yaml"
    slip.write_text("game: colorpop\nplayers: [2\n")
    with pytest.raises(RefereeError) as caught:
        load_yaml(slip, "the config file")
    assert str(caught.value).startswith(f"the config file {slip} is not valid YAML: line 3, column 1: ")
    assert "\n" not in str(caught.value)
    with pytest.raises(FormatError, match=r"^record: not valid YAML: line 1, column 6: found character"):
        parse_yaml("game:\tx: [", "record")
    empty = tmp_path / "empty.yaml"
    empty.write_text("")
    assert load_yaml(empty, "the profile") is None


def test_a_record_names_the_key_path_of_every_mistake():
    from controller.record import parse_record

    for text, key in [
        ("game: colorpop\nprofile: 3\nsetup: ''\n", "profile"),  # was said as 'profile.profile'
        ("game: colorpop\nprofile: {tokens: {G: -1}}\nsetup: ''\n", "profile.tokens.G"),
        ("game: colorpop\nplayers: 2\nseats: [G, Z]\nsetup: ''\n", "seats[1]"),
        ("game: colorpop\nplayers: 2\nsecrets: [null, [G, 4]]\nsetup: ''\n", "secrets[1]"),
        ("game: colorpop\nfirst: 2\nsetup: ''\n", "first"),
        ("game: colorpop\nsetup: ''\nobservations: 3\n", "observations"),
        ("game: colorpop\n", "setup"),
    ]:
        with pytest.raises(ConfigError) as caught:
            parse_record(text, "r.yaml")
        assert caught.value.key == key, text
        assert str(caught.value).startswith(f"r.yaml: key '{key}': "), text


def test_a_profile_mistake_is_said_in_the_readers_language():
    from controller.errors import sentence
    from controller.language import said
    from controller.profile import default_profile

    with pytest.raises(ConfigError) as caught:
        default_profile("colorpop").with_overrides({"tokens": {"G": -1}})
    assert caught.value.key == "tokens.G"
    assert said(sentence(caught.value), "fr").endswith("attendu un nombre entier de 0 à 100, reçu -1")


def test_a_games_own_profile_keys_are_checked_when_the_profile_is_read():
    from controller.profile import default_profile

    with pytest.raises(ConfigError) as caught:
        default_profile("flipop").with_overrides({"exits": {"W": [[7, 0]], "B": [[0, 0]]}})
    assert caught.value.key == "exits.W" and "off the 5x5 board" in str(caught.value)
    with pytest.raises(ConfigError) as caught:
        default_profile("blockers").with_overrides({"symbols": ["a"] * 9})
    assert caught.value.key == "symbols"
