"""The `gpio:` and `switches:` sections of config.yaml, checked with messages a hobbyist follows.

The service's config loader passes each section as the plain dict it got from YAML; these
functions fill in defaults, reject unknown keys and wrong values (naming the full key path,
e.g. ``gpio.pins.red``) and return frozen dataclasses the hardware code uses.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from controller.errors import ConfigError

#: BCM GPIO numbers a Pi's 40-pin header offers (0 and 1 are reserved for the HAT EEPROM).
MIN_PIN = 2
MAX_PIN = 27
MAX_SEATS = 5
GPIO_BACKENDS = ("mock", "real")
SWITCH_SOURCES = ("none", "serial", "simulated")

DEFAULT_PINS: dict[str, Any] = {
    "seat_leds": [5, 6, 13, 19, 26],
    "green": 17,
    "red": 27,
    "amber": 22,
    "buzzer": 18,
    "button": 23,
}
SINGLE_PINS = ("green", "red", "amber", "buzzer", "button")


@dataclass(frozen=True)
class GpioPins:
    """BCM GPIO numbers of every light, the buzzer and the button."""

    seat_leds: tuple[int, ...]
    green: int
    red: int
    amber: int
    buzzer: int
    button: int


@dataclass(frozen=True)
class GpioConfig:
    backend: str  # "mock" (simulated pins) or "real" (gpiozero's default pin factory)
    pins: GpioPins
    buzzer_tonal: bool  # True: passive buzzer driven with PWM tones; False: active buzzer
    hold_time: float  # seconds the button must be held for "end by agreement"


@dataclass(frozen=True)
class SwitchConfig:
    source: str  # "none", "serial" or "simulated"
    port: str
    baudrate: int
    heartbeat_timeout: float  # seconds without a STATE before the link counts as lost
    debounce_ms: int
    heartbeat_interval: float  # seconds between the microcontroller's heartbeats


def _mapping(value: Any, key: str) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ConfigError(key, f"should be a set of 'name: value' entries, not {value!r}")
    return value


def _reject_unknown(section: dict[str, Any], allowed: tuple[str, ...], key: str) -> None:
    for name in section:
        if name not in allowed:
            raise ConfigError(f"{key}.{name}", f"is not a known setting; the settings here are {', '.join(allowed)}")


def _number(value: Any, key: str, low: float, high: float, unit: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ConfigError(key, f"should be a number of {unit}, not {value!r}")
    if not low <= value <= high:
        raise ConfigError(key, f"{value} {unit} is out of range; use {low} to {high} {unit}")
    return float(value)


def _integer(value: Any, key: str, low: int, high: int, unit: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(key, f"should be a whole number of {unit}, not {value!r}")
    if not low <= value <= high:
        raise ConfigError(key, f"{value} {unit} is out of range; use {low} to {high} {unit}")
    return value


def _choice(value: Any, key: str, choices: tuple[str, ...]) -> str:
    if value not in choices:
        raise ConfigError(key, f"{value!r} is not one of: {', '.join(choices)}")
    return str(value)


def _pin(value: Any, key: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(key, f"should be a BCM GPIO number from {MIN_PIN} to {MAX_PIN}, not {value!r}")
    if not MIN_PIN <= value <= MAX_PIN:
        raise ConfigError(
            key,
            f"pin {value} is not a usable BCM GPIO number; use {MIN_PIN} to {MAX_PIN} "
            "(the GPIO numbers, not the physical header positions 1-40)",
        )
    return value


def _pins(section: dict[str, Any], key: str) -> GpioPins:
    _reject_unknown(section, tuple(DEFAULT_PINS), key)
    merged = {**DEFAULT_PINS, **section}
    used_by: dict[int, tuple[str, bool]] = {}  # pin -> (key that took it, was it set explicitly)

    def claim(value: Any, pin_key: str, name: str) -> int:
        pin = _pin(value, pin_key)
        if pin in used_by:
            other_key, other_explicit = used_by[pin]
            note = "" if other_explicit else f" (its default, since {other_key} is not set)"
            raise ConfigError(pin_key, f"pin {pin} is already used by {other_key}{note}")
        used_by[pin] = (pin_key, name in section)
        return pin

    seats = merged["seat_leds"]
    if not isinstance(seats, list):
        raise ConfigError(f"{key}.seat_leds", f"should be a list of pins, one per seat, not {seats!r}")
    if len(seats) > MAX_SEATS:
        raise ConfigError(f"{key}.seat_leds", f"lists {len(seats)} pins; the referee has at most {MAX_SEATS} seats")
    seat_pins = tuple(claim(pin, f"{key}.seat_leds[{index}]", "seat_leds") for index, pin in enumerate(seats))
    singles = {name: claim(merged[name], f"{key}.{name}", name) for name in SINGLE_PINS}
    return GpioPins(seat_leds=seat_pins, **singles)


def validate_gpio(section: dict[str, Any] | None, key: str = "gpio") -> GpioConfig:
    """Check the `gpio:` section; unset keys take the defaults shown in the README."""
    section = _mapping(section, key)
    _reject_unknown(section, ("backend", "pins", "buzzer_tonal", "hold_time"), key)
    tonal = section.get("buzzer_tonal", True)
    if not isinstance(tonal, bool):
        raise ConfigError(f"{key}.buzzer_tonal", f"should be true or false, not {tonal!r}")
    return GpioConfig(
        backend=_choice(section.get("backend", "mock"), f"{key}.backend", GPIO_BACKENDS),
        pins=_pins(_mapping(section.get("pins"), f"{key}.pins"), f"{key}.pins"),
        buzzer_tonal=tonal,
        hold_time=_number(section.get("hold_time", 2.0), f"{key}.hold_time", 0.1, 10.0, "seconds"),
    )


def validate_switches(section: dict[str, Any] | None, key: str = "switches") -> SwitchConfig:
    """Check the `switches:` section; `port` is required only for `source: serial`."""
    section = _mapping(section, key)
    _reject_unknown(
        section,
        ("source", "port", "baudrate", "heartbeat_timeout", "debounce_ms", "heartbeat_interval"),
        key,
    )
    source = _choice(section.get("source", "simulated"), f"{key}.source", SWITCH_SOURCES)
    port = section.get("port", "/dev/ttyACM0")
    if not isinstance(port, str) or not port:
        raise ConfigError(f"{key}.port", f"should be a serial device path such as /dev/ttyACM0, not {port!r}")
    interval = _number(section.get("heartbeat_interval", 1.0), f"{key}.heartbeat_interval", 0.05, 5.0, "seconds")
    timeout = _number(section.get("heartbeat_timeout", 2.5), f"{key}.heartbeat_timeout", 0.1, 60.0, "seconds")
    if timeout <= 1.5 * interval:
        raise ConfigError(
            f"{key}.heartbeat_timeout",
            f"{timeout} seconds is too short for a heartbeat every {interval} seconds; "
            f"use at least {1.5 * interval:g} seconds so one late heartbeat is not a lost link",
        )
    return SwitchConfig(
        source=source,
        port=port,
        baudrate=_integer(section.get("baudrate", 115200), f"{key}.baudrate", 1200, 4_000_000, "baud"),
        heartbeat_timeout=timeout,
        debounce_ms=_integer(section.get("debounce_ms", 30), f"{key}.debounce_ms", 20, 50, "ms"),
        heartbeat_interval=interval,
    )
