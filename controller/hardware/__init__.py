"""The referee's own hardware: lights, buzzer and button (gpiozero) and the slide switches.

Each part has a real implementation for the Pi and a simulated one for any machine, chosen in
config.yaml (`gpio.backend`, `switches.source`):

* `config`: `validate_gpio` / `validate_switches` for the two config sections;
* `feedback.Feedback`: the light and sound patterns the players see and hear;
* `button.Button`: new game (press) and end by agreement (hold);
* `switches`: Stay Alive's slide positions from the microcontroller (`open_switches`).
"""

from controller.hardware.config import GpioConfig, SwitchConfig, validate_gpio, validate_switches

__all__ = ["GpioConfig", "SwitchConfig", "validate_gpio", "validate_switches"]
