"""`referee lights-test`: walk through every light and sound so a person can check the wiring.

Each step says what should happen ("seat 2 LED on", "buzzer: alarm tone"), does it, and waits
`--pause` seconds. Then the feedback patterns are shown one by one, and finally the button is
checked (pressed in software with `--simulate`, by the person otherwise).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from controller.errors import ConfigError
from controller.hardware.config import GpioConfig, validate_gpio
from controller.hardware.feedback import Feedback
from controller.hardware.lights_test import check_button, lights_test_steps
from controller.language import _, said
from controller.service.config import load_config


def register(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    parser = subparsers.add_parser(
        "lights-test",
        help="light every LED and play every sound, to check the wiring",
        description="Walk through every LED, sound and feedback pattern, then check the button.",
    )
    parser.add_argument("--config", default="config.yaml", help="config file (default: config.yaml)")
    parser.add_argument(
        "--simulate",
        action="store_true",
        help="use simulated pins (no Raspberry Pi needed) and print every step",
    )
    parser.add_argument(
        "--pause", type=float, default=1.5, metavar="SECONDS", help="pause between steps (default: 1.5)"
    )
    return parser


def load_gpio_config(path: str, simulate: bool) -> GpioConfig:
    """The `gpio:` section of the config file, after the same check of the whole file as `referee run`.

    Why the whole file: a lights test that passes on a config `run` then refuses would send a
    person looking in the wrong place. With --simulate a missing file means the default pins.
    """
    if not Path(path).exists():
        if simulate:
            return validate_gpio({"backend": "mock"})
        raise ConfigError("gpio", _("is needed to know the pins, but the config file was not found"), source=path)
    gpio = load_config(path).gpio
    return gpio.model_copy(update={"backend": "mock"}) if simulate else gpio


def run(args: argparse.Namespace) -> int:
    config = load_gpio_config(args.config, args.simulate)
    language = getattr(args, "command_language", None)
    if config.backend == "mock" and not args.simulate:
        # the shipped config: nothing lights up and nobody can press a simulated button
        notice = _(
            "The pins of {config} are simulated (gpio: backend: mock): nothing lights up here, so each step is "
            "printed and the button's press and hold are simulated. On the Raspberry Pi set gpio: backend: real "
            "with your pins and run this again.",
            config=str(args.config),
        )
        print(said(notice, language), flush=True)
        args.simulate = True

    def say(text: str) -> None:
        print(said(text, language), flush=True)

    def show_change(text: str) -> None:
        print(f"    ({said(text, language)})", flush=True)

    listener = show_change if args.simulate else None
    feedback = Feedback.from_config(config, listener=listener)
    try:
        for description, action in lights_test_steps(feedback):
            say(description)
            action()
            time.sleep(max(0.0, args.pause))
    finally:
        feedback.close()
    return 0 if check_button(config, args.simulate, say) else 1
