"""The `gpio:` and `switches:` sections of config.yaml, checked with messages a hobbyist follows.

Each section is a model (`controller.schema.Section`): its keys with their defaults (the README's),
unknown keys and wrong values refused with a sentence naming the full key path (e.g.
``gpio.pins.red``); the hardware code uses the checked, frozen values.
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar

from pydantic import BeforeValidator, model_validator
from pydantic_core import PydanticCustomError

from controller.language import N_, _, literal
from controller.schema import Section, checked, sentence, validate

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


class HardwareSection(Section):
    """The hardware sections' own wording of an unknown key and of a value that is not a section."""

    unknown_key: ClassVar[str] = N_("is not a known setting; the settings here are {known}")
    not_a_mapping: ClassVar[str] = N_("should be a set of 'name: value' entries, not {value}")


def _out_of_range(value: float, low: float, high: float, unit: str) -> PydanticCustomError:
    """The sentence for a number outside its range (whole numbers and measures alike)."""
    return sentence(
        _("{value} {unit} is out of range; use {low} to {high} {unit}", value=value, unit=unit, low=low, high=high)
    )


def _number(low: float, high: float, unit: str) -> BeforeValidator:
    def check(value: Any) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise sentence(_("should be a number of {unit}, not {value}", unit=unit, value=repr(value)))
        if not low <= value <= high:
            raise _out_of_range(value, low, high, unit)
        return float(value)

    return checked(check)


def _integer(low: int, high: int, unit: str) -> BeforeValidator:
    def check(value: Any) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise sentence(_("should be a whole number of {unit}, not {value}", unit=unit, value=repr(value)))
        if not low <= value <= high:
            raise _out_of_range(value, low, high, unit)
        return value

    return checked(check)


def _choice(choices: tuple[str, ...]) -> BeforeValidator:
    def check(value: Any) -> str:
        if value not in choices:
            raise sentence(_("{value} is not one of: {value2}", value=repr(value), value2=", ".join(choices)))
        return str(value)

    return checked(check)


def _flag(value: Any) -> bool:
    if not isinstance(value, bool):
        raise sentence(_("should be true or false, not {value}", value=repr(value)))
    return value


def _pin_problem(value: Any) -> str | None:
    """What is wrong with a pin number, or None."""
    if isinstance(value, bool) or not isinstance(value, int):
        return _(
            "should be a BCM GPIO number from {MIN_PIN} to {MAX_PIN}, not {value}",
            MIN_PIN=MIN_PIN,
            MAX_PIN=MAX_PIN,
            value=repr(value),
        )
    if not MIN_PIN <= value <= MAX_PIN:
        return _(
            (
                "pin {value} is not a usable BCM GPIO number; use {MIN_PIN} to {MAX_PIN} (the GPIO numbers,"
                " not the physical header positions 1-40)"
            ),
            value=value,
            MIN_PIN=MIN_PIN,
            MAX_PIN=MAX_PIN,
        )
    return None


def _pin(value: Any) -> int:
    problem = _pin_problem(value)
    if problem is not None:
        raise sentence(problem)
    return value


def _seat_pins(value: Any) -> tuple[int, ...]:
    if not isinstance(value, (list, tuple)):
        raise sentence(_("should be a list of pins, one per seat, not {value}", value=repr(value)))
    if len(value) > MAX_SEATS:
        raise sentence(
            _("lists {n} pins; the referee has at most {MAX_SEATS} seats", n=len(value), MAX_SEATS=MAX_SEATS)
        )
    for index, pin in enumerate(value):
        problem = _pin_problem(pin)
        if problem is not None:
            raise sentence(problem, key=index)
    return tuple(value)


Pin = Annotated[int, checked(_pin)]


class GpioPins(HardwareSection):
    """BCM GPIO numbers of every light, the buzzer and the button."""

    seat_leds: Annotated[tuple[int, ...], checked(_seat_pins)] = tuple(DEFAULT_PINS["seat_leds"])
    green: Pin = DEFAULT_PINS["green"]
    red: Pin = DEFAULT_PINS["red"]
    amber: Pin = DEFAULT_PINS["amber"]
    buzzer: Pin = DEFAULT_PINS["buzzer"]
    button: Pin = DEFAULT_PINS["button"]

    @model_validator(mode="after")
    def _each_pin_once(self) -> GpioPins:
        used_by: dict[int, tuple[str, bool]] = {}  # pin -> (key that took it, was it set explicitly)
        claims = [(f"seat_leds[{i}]", "seat_leds", pin) for i, pin in enumerate(self.seat_leds)]
        claims += [(name, name, getattr(self, name)) for name in SINGLE_PINS]
        for key, name, pin in claims:
            if pin in used_by:
                other_key, other_explicit = used_by[pin]
                where = literal(f"{{section}}.{other_key}")  # `{section}`: the section's path (schema.validate)
                said = (
                    _("pin {pin} is already used by {key}", pin=literal(str(pin)), key=where)
                    if other_explicit
                    else _(
                        "pin {pin} is already used by {key} (its default, since {key} is not set)",
                        pin=literal(str(pin)),
                        key=where,
                    )
                )
                raise sentence(
                    said,
                    key=key,
                )
            used_by[pin] = (key, name in self.model_fields_set)
        return self


class GpioConfig(HardwareSection):
    """The `gpio:` section: the lights, the buzzer and the button."""

    #: "mock" (simulated pins) or "real" (gpiozero's default pin factory).
    backend: Annotated[str, _choice(GPIO_BACKENDS)] = "mock"
    pins: GpioPins = GpioPins()
    #: True: passive buzzer driven with PWM tones; False: active buzzer.
    buzzer_tonal: Annotated[bool, checked(_flag)] = True
    #: Seconds the button must be held for "end by agreement".
    hold_time: Annotated[float, _number(0.1, 10.0, "seconds")] = 2.0


def _port(value: Any) -> str:
    if not isinstance(value, str) or not value:
        raise sentence(_("should be a serial device path such as /dev/ttyACM0, not {value}", value=repr(value)))
    return value


class SwitchConfig(HardwareSection):
    """The `switches:` section: where the slide switches' board is; `port` matters only for `source: serial`."""

    #: "none", "serial" or "simulated".
    source: Annotated[str, _choice(SWITCH_SOURCES)] = "simulated"
    port: Annotated[str, checked(_port)] = "/dev/ttyACM0"
    baudrate: Annotated[int, _integer(1200, 4_000_000, "baud")] = 115200
    #: Seconds without a STATE before the link counts as lost.
    heartbeat_timeout: Annotated[float, _number(0.1, 60.0, "seconds")] = 2.5
    debounce_ms: Annotated[int, _integer(20, 50, "ms")] = 30
    #: Seconds between the microcontroller's heartbeats.
    heartbeat_interval: Annotated[float, _number(0.05, 5.0, "seconds")] = 1.0

    @model_validator(mode="after")
    def _timeout_outlasts_a_late_heartbeat(self) -> SwitchConfig:
        timeout, interval = self.heartbeat_timeout, self.heartbeat_interval
        if timeout <= 1.5 * interval:
            raise sentence(
                _(
                    (
                        "{timeout} seconds is too short for a heartbeat every {interval} seconds; use at least "
                        "{value} seconds so one late heartbeat is not a lost link"
                    ),
                    timeout=str(timeout),
                    interval=interval,
                    value=format(1.5 * interval, "g"),
                ),
                key="heartbeat_timeout",
            )
        return self


def validate_gpio(section: dict[str, Any] | None, key: str = "gpio") -> GpioConfig:
    """Check the `gpio:` section; unset keys take the defaults shown in the README."""
    return validate(GpioConfig, section, prefix=key)


def validate_switches(section: dict[str, Any] | None, key: str = "switches") -> SwitchConfig:
    """Check the `switches:` section; `port` is required only for `source: serial`."""
    return validate(SwitchConfig, section, prefix=key)
