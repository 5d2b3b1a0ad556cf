"""The referee's one push button: a press starts a new game, a hold ends one by agreement.

A press is recognised when the button is released before `hold_time`; once `hold_time` has
passed gpiozero fires "held" and the release that follows is not a press. So a hold never also
starts a new game. The callbacks run in gpiozero's threads and should return quickly.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import gpiozero
from gpiozero.pins import Factory
from gpiozero.pins.mock import MockPin

from controller.errors import HardwareError
from controller.hardware.config import GpioConfig
from controller.hardware.pins import create_device, make_pin_factory
from controller.language import _

#: Contact bounce of a real push button is ignored for this long.
REAL_BOUNCE_TIME = 0.03


class Button:
    """The new-game / end-by-agreement button, wired between its GPIO and ground."""

    def __init__(
        self,
        device: gpiozero.Button,
        on_press: Callable[[], object],
        on_hold: Callable[[], object],
    ) -> None:
        self.device = device
        self._on_press = on_press
        self._on_hold = on_hold
        self._held = False
        self._held_event = threading.Event()
        device.when_held = self._fire_held
        device.when_released = self._fire_released

    @classmethod
    def from_config(
        cls,
        gpio_config: GpioConfig,
        on_press: Callable[[], object],
        on_hold: Callable[[], object],
        *,
        pin_factory: Factory | None = None,
    ) -> Button:
        factory = pin_factory if pin_factory is not None else make_pin_factory(gpio_config)
        pin = gpio_config.pins.button
        bounce = REAL_BOUNCE_TIME if gpio_config.backend == "real" else None
        device = create_device(
            _("button"),
            pin,
            lambda: gpiozero.Button(
                pin,
                pull_up=True,
                bounce_time=bounce,
                hold_time=gpio_config.hold_time,
                pin_factory=factory,
            ),
            gpio_config.backend,
        )
        return cls(device, on_press, on_hold)

    def _fire_held(self) -> None:
        self._held = True
        self._held_event.set()
        self._on_hold()

    def _fire_released(self) -> None:
        held, self._held = self._held, False
        if not held:
            self._on_press()

    # --- simulation (mock pins only) ----------------------------------------------------------
    def _mock_pin(self) -> MockPin:
        pin = self.device.pin
        if not isinstance(pin, MockPin):
            raise HardwareError(_("the button can only be pressed in software on simulated pins"))
        return pin

    def simulate_press(self) -> None:
        """Press and release at once, as a quick tap (on_press fires before this returns)."""
        pin = self._mock_pin()
        pin.drive_low()
        pin.drive_high()

    def simulate_hold(self, timeout: float | None = None) -> None:
        """Hold the button until gpiozero reports it held, then let go (blocks ~hold_time)."""
        pin = self._mock_pin()
        self._held_event.clear()
        pin.drive_low()
        try:
            limit = timeout if timeout is not None else self.device.hold_time + 2.0
            if not self._held_event.wait(limit):
                raise HardwareError(_("the button was not reported held within {seconds} s", seconds=round(limit, 1)))
            time.sleep(0.01)  # let gpiozero's hold thread finish calling on_hold
        finally:
            pin.drive_high()

    def close(self) -> None:
        self.device.close()
