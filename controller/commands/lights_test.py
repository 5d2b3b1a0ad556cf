"""`referee lights-test`: walk through every light and sound so a person can check the wiring.

Each step says what should happen ("seat 2 LED on", "buzzer: alarm tone"), does it, and waits
`--pause` seconds. Then the feedback patterns are shown one by one, and finally the button is
checked (pressed in software with `--simulate`, by the person otherwise).
"""

from __future__ import annotations

import argparse
import threading
import time
from collections.abc import Callable
from pathlib import Path

from controller.errors import ConfigError
from controller.hardware.button import Button
from controller.hardware.config import GpioConfig, validate_gpio
from controller.hardware.feedback import SOUNDS, Feedback

BUTTON_WAIT = 15.0  # seconds a person gets to press and to hold the button


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
    from controller.commands.run import read_config

    if not Path(path).exists():
        if simulate:
            return validate_gpio({"backend": "mock"})
        raise ConfigError("gpio", "is needed to know the pins, but the config file was not found", source=path)
    gpio = read_config(path).gpio
    return gpio.model_copy(update={"backend": "mock"}) if simulate else gpio


def lights_test_patterns(feedback: Feedback) -> dict[str, tuple[str, Callable[[], None]]]:
    """Every step of the walk-through by a short name (the live page's buttons send it):
    name -> (what the person should see or hear, action)."""
    steps: dict[str, tuple[str, Callable[[], None]]] = {}
    for name in feedback.leds():
        key = name.replace(" ", "-")
        steps[f"{key}-on"] = (f"{name} LED on", lambda name=name: feedback.set_led(name, "on"))
        steps[f"{key}-off"] = (f"{name} LED off", lambda name=name: feedback.set_led(name, "off"))
    kind = "tonal" if feedback.tonal else "plain"
    for sound in SOUNDS:
        steps[f"sound-{sound}"] = (f"{kind} buzzer: {sound}", lambda sound=sound: feedback.play(sound))
    seats = len(feedback.seat_leds)
    for seat in range(seats):
        steps[f"turn-{seat + 1}"] = (f"pattern: player {seat + 1}'s turn", lambda seat=seat: feedback.turn(seat))
    steps["legal"] = ("pattern: legal move (green flash, pip)", feedback.legal)
    steps["illegal"] = ("pattern: illegal move (red on, alarm)", feedback.illegal)
    steps["board-ok"] = ("pattern: board put right (red off)", feedback.board_ok)
    steps["pending"] = ("pattern: pending (amber on)", feedback.pending)
    steps["unreadable"] = ("pattern: unreadable board (amber blinking)", feedback.unreadable)
    steps["clear-pending"] = ("pattern: pending cleared (amber off)", feedback.clear_pending)
    if seats:
        steps["winner"] = ("pattern: winner (player 1 blinks, tune)", lambda: feedback.winner([0]))
    steps["fault"] = (
        "pattern: fault (red and amber blink fast, low double beep)",
        lambda: feedback.fault("lights test"),
    )
    steps["fault-cleared"] = ("pattern: fault cleared", feedback.fault_cleared)
    steps["all-off"] = ("everything off", lambda: feedback.turn(None))
    return steps


def lights_test_steps(feedback: Feedback) -> list[tuple[str, Callable[[], None]]]:
    """Every step of the walk-through, in order: (what the person should see or hear, action)."""
    return list(lights_test_patterns(feedback).values())


def check_button(config: GpioConfig, simulate: bool, say: Callable[[str], None]) -> bool:
    """Ask for (or, simulated, perform) a press and a hold; True when both were seen."""
    pressed, held = threading.Event(), threading.Event()
    button = Button.from_config(config, on_press=pressed.set, on_hold=held.set)
    try:
        say(f"button: press it briefly (GPIO {config.pins.button})")
        if simulate:
            button.simulate_press()
        ok_press = pressed.wait(0.5 if simulate else BUTTON_WAIT)
        say("button: press seen" if ok_press else "button: NO press seen - check its wiring")
        say(f"button: hold it for {config.hold_time:g} s")
        if simulate:
            button.simulate_hold()
        ok_hold = held.wait(0.5 if simulate else BUTTON_WAIT + config.hold_time)
        say("button: hold seen" if ok_hold else "button: NO hold seen - check its wiring")
        return ok_press and ok_hold
    finally:
        button.close()


def run(args: argparse.Namespace) -> int:
    config = load_gpio_config(args.config, args.simulate)
    if config.backend == "mock" and not args.simulate:
        # the shipped config: nothing lights up and nobody can press a simulated button
        print(
            f"The pins of {args.config} are simulated (gpio: backend: mock): nothing lights up here, so each "
            "step is printed and the button's press and hold are simulated. On the Raspberry Pi set "
            "gpio: backend: real with your pins and run this again.",
            flush=True,
        )
        args.simulate = True

    def say(text: str) -> None:
        print(text, flush=True)

    def show_change(text: str) -> None:
        say(f"    ({text})")

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
