"""The lights test's steps: every LED, every sound, every feedback pattern, and the button's press and hold.

Why in hardware: `referee lights-test` walks through them on the pins of a config file, and the live
page (`POST /api/lights-test`) runs one of them on the running referee's lights; both take them from here.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from functools import partial

from controller.hardware.button import Button
from controller.hardware.config import GpioConfig
from controller.hardware.feedback import SOUND_WORDS, SOUNDS, Feedback, led_words
from controller.language import Text, _

BUTTON_WAIT = 15.0  # seconds a person gets to press and to hold the button


def lights_test_patterns(feedback: Feedback) -> dict[str, tuple[str, Callable[[], None]]]:
    """Every step of the walk-through by a short name (the live page's buttons send it):
    name -> (what the person should see or hear, action)."""
    steps: dict[str, tuple[str, Callable[[], None]]] = {}
    for name in feedback.leds():
        key = name.replace(" ", "-")
        words = led_words(name)
        steps[f"{key}-on"] = (_("{led} LED on", led=words), partial(feedback.set_led, name, "on"))
        steps[f"{key}-off"] = (_("{led} LED off", led=words), partial(feedback.set_led, name, "off"))
    for sound in SOUNDS:
        said_sound = Text(SOUND_WORDS[sound]) if sound in SOUND_WORDS else sound
        if feedback.tonal:
            label = _("tonal buzzer: {sound}", sound=said_sound)
        else:
            label = _("plain buzzer: {sound}", sound=said_sound)
        steps[f"sound-{sound}"] = (label, partial(feedback.play, sound))
    seats = len(feedback.seat_leds)
    for seat in range(seats):
        steps[f"turn-{seat + 1}"] = (
            _("pattern: player {number}'s turn", number=seat + 1),
            partial(feedback.turn, seat),
        )
    steps["legal"] = (_("pattern: legal move (green flash, pip)"), feedback.legal)
    steps["illegal"] = (_("pattern: illegal move (red on, alarm)"), feedback.illegal)
    steps["board-ok"] = (_("pattern: board put right (red off)"), feedback.board_ok)
    steps["pending"] = (_("pattern: pending (amber on)"), feedback.pending)
    steps["unreadable"] = (_("pattern: unreadable board (amber blinking)"), feedback.unreadable)
    steps["clear-pending"] = (_("pattern: pending cleared (amber off)"), feedback.clear_pending)
    if seats:
        steps["winner"] = (_("pattern: winner (player 1 blinks, tune)"), lambda: feedback.winner([0]))
    steps["fault"] = (
        _("pattern: fault (red and amber blink fast, low double beep)"),
        lambda: feedback.fault(_("lights test")),
    )
    steps["fault-cleared"] = (_("pattern: fault cleared"), feedback.fault_cleared)
    steps["all-off"] = (_("everything off"), lambda: feedback.turn(None))
    return steps


def lights_test_steps(feedback: Feedback) -> list[tuple[str, Callable[[], None]]]:
    """Every step of the walk-through, in order: (what the person should see or hear, action)."""
    return list(lights_test_patterns(feedback).values())


def check_button(config: GpioConfig, simulate: bool, say: Callable[[str], None]) -> bool:
    """Ask for (or, simulated, perform) a press and a hold; True when both were seen."""
    pressed, held = threading.Event(), threading.Event()
    button = Button.from_config(config, on_press=pressed.set, on_hold=held.set)
    try:
        say(_("button: press it briefly (GPIO {pin})", pin=str(config.pins.button)))
        if simulate:
            button.simulate_press()
        ok_press = pressed.wait(0.5 if simulate else BUTTON_WAIT)
        say(_("button: press seen") if ok_press else _("button: NO press seen - check its wiring"))
        say(_("button: hold it for {seconds} s", seconds=float(config.hold_time)))
        if simulate:
            button.simulate_hold()
        ok_hold = held.wait(0.5 if simulate else BUTTON_WAIT + config.hold_time)
        say(_("button: hold seen") if ok_hold else _("button: NO hold seen - check its wiring"))
        return ok_press and ok_hold
    finally:
        button.close()
