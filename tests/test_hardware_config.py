"""The gpio: and switches: sections of config.yaml: defaults and every kind of mistake."""

from __future__ import annotations

import pytest

from controller.errors import ConfigError
from controller.hardware.config import validate_gpio, validate_switches


def test_gpio_defaults() -> None:
    config = validate_gpio({})
    assert config.backend == "mock"
    assert config.pins.seat_leds == (5, 6, 13, 19, 26)
    assert (config.pins.green, config.pins.red, config.pins.amber) == (17, 27, 22)
    assert (config.pins.buzzer, config.pins.button) == (18, 23)
    assert config.buzzer_tonal and config.hold_time == 2.0
    assert validate_gpio(None) == config


def test_gpio_full_section() -> None:
    config = validate_gpio(
        {
            "backend": "real",
            "pins": {"seat_leds": [2, 3], "green": 4, "red": 5, "amber": 6, "buzzer": 12, "button": 16},
            "buzzer_tonal": False,
            "hold_time": 1.5,
        }
    )
    assert config.pins.seat_leds == (2, 3)
    assert not config.buzzer_tonal and config.backend == "real"


@pytest.mark.parametrize(
    ("section", "key", "words"),
    [
        ({"pins": {"red": 17}}, "gpio.pins.red", "pin 17 is already used by gpio.pins.green (its default"),
        (
            {"pins": {"seat_leds": [5, 6, 5]}},
            "gpio.pins.seat_leds[2]",
            "already used by gpio.pins.seat_leds[0]",
        ),
        (
            {"pins": {"seat_leds": [2, 3], "green": 4, "red": 4}},
            "gpio.pins.red",
            "pin 4 is already used by gpio.pins.green",
        ),
        ({"pins": {"green": 40}}, "gpio.pins.green", "use 2 to 27"),
        ({"pins": {"green": 1}}, "gpio.pins.green", "BCM GPIO"),
        ({"pins": {"buzzer": "GPIO18"}}, "gpio.pins.buzzer", "BCM GPIO number"),
        ({"pins": {"button": True}}, "gpio.pins.button", "BCM GPIO number"),
        ({"pins": {"seat_leds": [2, 3, 4, 7, 8, 9]}}, "gpio.pins.seat_leds", "at most 5 seats"),
        ({"pins": {"seat_leds": 5}}, "gpio.pins.seat_leds", "list of pins"),
        ({"pins": {"blue": 9}}, "gpio.pins.blue", "not a known setting"),
        ({"colour": "red"}, "gpio.colour", "not a known setting"),
        ({"backend": "pigpio"}, "gpio.backend", "mock, real"),
        ({"buzzer_tonal": "yes"}, "gpio.buzzer_tonal", "true or false"),
        ({"hold_time": 0}, "gpio.hold_time", "out of range"),
        ({"pins": [17, 27]}, "gpio.pins", "name: value"),
    ],
)
def test_gpio_mistakes_name_the_key(section: dict, key: str, words: str) -> None:
    with pytest.raises(ConfigError) as caught:
        validate_gpio(section)
    assert caught.value.key == key
    assert words in str(caught.value)


def test_switch_defaults_and_values() -> None:
    config = validate_switches({})
    assert (config.source, config.port, config.baudrate) == ("simulated", "/dev/ttyACM0", 115200)
    assert (config.heartbeat_timeout, config.debounce_ms, config.heartbeat_interval) == (2.5, 30, 1.0)
    serial = validate_switches({"source": "serial", "port": "/dev/ttyACM1", "debounce_ms": 50})
    assert serial.port == "/dev/ttyACM1" and serial.debounce_ms == 50


@pytest.mark.parametrize(
    ("section", "key", "words"),
    [
        ({"source": "usb"}, "switches.source", "none, serial, simulated"),
        ({"debounce_ms": 10}, "switches.debounce_ms", "use 20 to 50"),
        ({"debounce_ms": 25.5}, "switches.debounce_ms", "whole number"),
        ({"baudrate": "fast"}, "switches.baudrate", "whole number"),
        ({"port": ""}, "switches.port", "serial device path"),
        ({"heartbeat_timeout": 1.2}, "switches.heartbeat_timeout", "too short"),
        ({"heartbeat": 1}, "switches.heartbeat", "not a known setting"),
    ],
)
def test_switch_mistakes_name_the_key(section: dict, key: str, words: str) -> None:
    with pytest.raises(ConfigError) as caught:
        validate_switches(section)
    assert caught.value.key == key
    assert words in str(caught.value)
