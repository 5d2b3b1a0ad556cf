"""Where gpiozero gets its pins: gpiozero's mock factory in simulation, the Pi's own otherwise."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, NamedTuple

from gpiozero.pins import Factory
from gpiozero.pins.mock import MockFactory, MockPWMPin

from controller.errors import HardwareError
from controller.hardware.config import GpioConfig
from controller.language import _


class ToneChange(NamedTuple):
    """One frequency change of a PWM pin (None = silent), with its monotonic time."""

    timestamp: float
    frequency: float | None


class RecordingPWMPin(MockPWMPin):
    """A mock PWM pin that also keeps a history of its frequency, so tests can hear tunes."""

    def __init__(self, factory: Factory, info: Any) -> None:
        self.frequencies: list[ToneChange] = []
        super().__init__(factory, info)

    def _set_frequency(self, value: float | None) -> None:
        super()._set_frequency(value)
        if not self.frequencies or self.frequencies[-1].frequency != value:
            self.frequencies.append(ToneChange(time.monotonic(), value))


def make_pin_factory(config: GpioConfig) -> Factory | None:
    """A fresh mock factory (PWM-capable pins) for `backend: mock`; None means gpiozero's default."""
    if config.backend == "mock":
        return MockFactory(pin_class=MockPWMPin)
    return None


def create_device(what: Any, pin: int, make: Callable[[], Any], backend: str) -> Any:
    """Build one gpiozero device, turning gpiozero's complaints into a sentence for a person."""
    try:
        return make()
    except Exception as exc:  # gpiozero raises many kinds: no pin factory, pin busy, no PWM...
        cannot = _("cannot use GPIO {pin} for the {what}: {why}.", pin=str(pin), what=what, why=str(exc))
        if backend == "real":
            cannot = _("{cannot} On a computer that is not a Raspberry Pi, set gpio.backend: mock.", cannot=cannot)
        raise HardwareError(cannot) from exc
