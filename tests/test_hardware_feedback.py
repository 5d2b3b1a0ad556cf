"""Every light and sound pattern, the button and `referee lights-test`, on gpiozero mock pins."""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable, Iterator

import pytest
from gpiozero.pins.mock import MockFactory, MockPWMPin

from controller.commands import lights_test
from controller.errors import ConfigError, HardwareError
from controller.hardware.button import Button
from controller.hardware.config import validate_gpio
from controller.hardware.feedback import A5, A6, C4, C5, C6, E5, E6, G5, Feedback

TEMPO = 0.1  # every duration ten times shorter, so the whole file runs in a few seconds
PINS = {"seat_leds": [5, 6, 13], "green": 17, "red": 27, "amber": 22, "buzzer": 18, "button": 23}


def make_feedback(tonal: bool = True) -> tuple[Feedback, list[str]]:
    heard: list[str] = []
    config = validate_gpio({"pins": PINS, "buzzer_tonal": tonal})
    return Feedback.from_config(config, listener=heard.append, tempo=TEMPO), heard


@pytest.fixture()
def tonal() -> Iterator[tuple[Feedback, list[str]]]:
    feedback, heard = make_feedback(tonal=True)
    yield feedback, heard
    feedback.close()


@pytest.fixture()
def plain() -> Iterator[tuple[Feedback, list[str]]]:
    feedback, heard = make_feedback(tonal=False)
    yield feedback, heard
    feedback.close()


def pin(feedback: Feedback, number: int) -> MockPWMPin:
    assert feedback.pin_factory is not None
    return feedback.pin_factory.pin(number)


def levels(feedback: Feedback, number: int) -> list[bool]:
    """The pin's recorded history as on/off, oldest first."""
    return [bool(s.state) for s in pin(feedback, number).states]


def tones(feedback: Feedback) -> list[float | None]:
    """Frequencies the buzzer pin played since construction (rounded), None = silence."""
    history = pin(feedback, 18).frequencies  # type: ignore[attr-defined]
    return [None if t.frequency is None else round(t.frequency) for t in history]


def wait_until(condition: Callable[[], bool], timeout: float = 2.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "pattern did not happen in time"
        time.sleep(0.005)


def toggles(feedback: Feedback, number: int) -> int:
    return len(levels(feedback, number)) - 1


def tune(*frequencies: float | None) -> list[float | None]:
    return [None if f is None else round(f) for f in frequencies]


def test_turn_lights_exactly_one_seat(tonal) -> None:
    feedback, heard = tonal
    feedback.turn(1)
    assert [pin(feedback, p).state for p in (5, 6, 13)] == [0, 1, 0]
    feedback.turn(2)
    assert [pin(feedback, p).state for p in (5, 6, 13)] == [0, 0, 1]
    feedback.turn(None)
    assert [pin(feedback, p).state for p in (5, 6, 13)] == [0, 0, 0]
    feedback.turn(4)
    assert heard[-1] == "player 5 has no LED fitted"  # seats are named as players count them, from 1
    assert heard[:3] == ["seat 2 LED on", "seat 2 LED off", "seat 3 LED on"]


def test_legal_is_one_green_flash_and_a_high_pip(tonal) -> None:
    feedback, heard = tonal
    feedback.legal()
    wait_until(lambda: levels(feedback, 17) == [False, True, False])
    wait_until(lambda: tones(feedback)[-1] is None)
    assert tones(feedback)[-2:] == tune(A6, None)
    assert heard == ["green LED flash", "buzzer: pip"]
    assert levels(feedback, 27) == [False] and levels(feedback, 22) == [False]


def test_illegal_keeps_red_on_until_the_board_is_right_with_a_siren(tonal) -> None:
    feedback, heard = tonal
    feedback.illegal()
    wait_until(lambda: tones(feedback)[-1] is None and len(tones(feedback)) > 3)
    assert tones(feedback)[-9:] == tune(E6, A5, E6, A5, E6, A5, E6, A5, None)
    time.sleep(0.05)
    assert pin(feedback, 27).state == 1  # still on after the siren ended
    feedback.board_ok()
    assert levels(feedback, 27) == [False, True, False]
    assert heard == ["red LED on", "buzzer: alarm tone", "red LED off", "buzzer off"]


def test_board_ok_cuts_the_siren_short(tonal) -> None:
    feedback, _ = tonal
    feedback.illegal()
    wait_until(lambda: len(tones(feedback)) >= 4)
    feedback.board_ok()
    assert pin(feedback, 18).frequency is None
    assert len([t for t in tones(feedback) if t is not None]) < 9


def test_pending_is_steady_amber_and_unreadable_is_blinking_amber(tonal) -> None:
    feedback, heard = tonal
    feedback.pending()
    time.sleep(0.15)
    assert levels(feedback, 22) == [False, True]  # steady
    feedback.unreadable()
    wait_until(lambda: toggles(feedback, 22) >= 5)  # blinking
    feedback.clear_pending()
    assert pin(feedback, 22).state == 0
    assert heard == ["amber LED on", "amber LED blinking", "amber LED off"]
    assert tones(feedback) == [100, None]  # silent: only gpiozero's setup


def test_winner_blinks_the_winners_seats_and_plays_the_tune(tonal) -> None:
    feedback, heard = tonal
    feedback.turn(1)
    feedback.winner([0, 2])
    wait_until(lambda: toggles(feedback, 5) >= 6 and toggles(feedback, 13) >= 6)
    assert levels(feedback, 6) == [False, True, False]  # the loser's seat went off and stayed off
    wait_until(lambda: tones(feedback)[-1] is None and len(tones(feedback)) > 3)
    assert tones(feedback)[-5:] == tune(C5, E5, G5, C6, None)
    feedback.turn(0)  # the next game: blinking stops
    time.sleep(0.05)
    assert [pin(feedback, p).state for p in (5, 6, 13)] == [1, 0, 0]
    assert "buzzer: winner tune" in heard


def test_fault_blinks_red_and_amber_with_a_low_double_beep_and_hides_the_game(tonal) -> None:
    feedback, heard = tonal
    feedback.illegal()
    feedback.pending()
    feedback.fault("camera lost")
    wait_until(lambda: toggles(feedback, 27) >= 6 and toggles(feedback, 22) >= 6)
    # both beeps heard (waiting for one let a loaded machine look between the two)
    wait_until(lambda: tones(feedback)[-1] is None and tones(feedback).count(round(C4)) >= 2)
    assert tones(feedback)[-4:] == tune(C4, None, C4, None)
    feedback.illegal()  # the game goes on underneath; the fault keeps the lights
    feedback.fault("switches lost")
    assert "fault: switches lost" in heard
    feedback.fault_cleared()
    time.sleep(0.05)
    assert (pin(feedback, 27).state, pin(feedback, 22).state) == (1, 1)  # back to illegal + pending
    assert heard[heard.index("fault: camera lost") :][:4] == [
        "fault: camera lost",
        "red LED blinking fast",
        "amber LED blinking fast",
        "buzzer: low double beep",
    ]
    assert heard[-3:] == ["fault cleared", "red LED on", "amber LED on"]


def beeps(feedback: Feedback) -> int:
    return sum(1 for before, after in zip(levels(feedback, 18), levels(feedback, 18)[1:]) if after and not before)


@pytest.mark.parametrize(("action", "count"), [("legal", 1), ("illegal", 6), ("winner", 4), ("fault", 2)])
def test_plain_buzzer_patterns_differ_by_their_beeps(plain, action: str, count: int) -> None:
    feedback, _ = plain
    call = {
        "legal": feedback.legal,
        "illegal": feedback.illegal,
        "winner": lambda: feedback.winner([0]),
        "fault": lambda: feedback.fault("switches lost"),
    }[action]
    call()
    wait_until(lambda: beeps(feedback) >= count and pin(feedback, 18).state == 0)
    time.sleep(0.15)  # longer than any plain pattern (1.2 s x TEMPO): no beep comes after
    assert beeps(feedback) == count
    assert pin(feedback, 18).state == 0


def test_every_method_returns_at_once() -> None:
    feedback, _ = make_feedback()
    # Every pattern made 20 times longer than real (a flash lasts seconds): a method that waited
    # for its pattern would take seconds, while one that starts it in the background takes
    # milliseconds, so the 1 s bound below tells them apart however loaded the machine is.
    feedback._tempo = 20.0
    try:
        for call in (
            lambda: feedback.turn(0),
            feedback.legal,
            feedback.illegal,
            feedback.board_ok,
            feedback.pending,
            feedback.unreadable,
            feedback.clear_pending,
            lambda: feedback.winner([1]),
            lambda: feedback.fault("x"),
            feedback.fault_cleared,
        ):
            started = time.monotonic()
            call()
            assert time.monotonic() - started < 1.0
    finally:
        feedback.close()


def test_press_and_hold_are_told_apart() -> None:
    config = validate_gpio({"hold_time": 0.1})
    events: list[str] = []
    button = Button.from_config(
        config, on_press=lambda: events.append("new game"), on_hold=lambda: events.append("end")
    )
    try:
        button.simulate_press()
        assert events == ["new game"]
        button.simulate_hold()
        time.sleep(0.02)
        assert events == ["new game", "end"]  # the hold's release is not also a press
        button.simulate_press()
        assert events == ["new game", "end", "new game"]
    finally:
        button.close()


def test_button_and_feedback_can_share_one_mock_factory() -> None:
    config = validate_gpio({})
    factory = MockFactory(pin_class=MockPWMPin)
    feedback = Feedback.from_config(config, pin_factory=factory)
    button = Button.from_config(config, on_press=lambda: None, on_hold=lambda: None, pin_factory=factory)
    try:
        assert factory.pin(23).function == "input" and factory.pin(17).function == "output"
    finally:
        button.close()
        feedback.close()


def test_busy_pin_is_a_hardware_error_naming_the_device() -> None:
    config = validate_gpio({})
    factory = MockFactory(pin_class=MockPWMPin)
    button = Button.from_config(config, on_press=lambda: None, on_hold=lambda: None, pin_factory=factory)
    try:
        with pytest.raises(HardwareError, match="GPIO 23 for the button"):
            Button.from_config(config, on_press=lambda: None, on_hold=lambda: None, pin_factory=factory)
    finally:
        button.close()


def run_lights_test(argv: list[str]) -> int:
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers()
    lights_test.register(sub)
    return lights_test.run(parser.parse_args(["lights-test", *argv]))


def test_lights_test_walks_through_everything(tmp_path, capsys) -> None:
    config = tmp_path / "config.yaml"
    config.write_text("game: flipop\ngpio:\n  backend: real\n  hold_time: 0.1\n  pins: {seat_leds: [5, 6]}\n")
    assert run_lights_test(["--config", str(config), "--simulate", "--pause", "0"]) == 0
    out = capsys.readouterr().out
    for step in ("seat 1 LED on", "green LED off", "tonal buzzer: alarm", "pattern: winner", "button: hold seen"):
        assert step in out
    assert "    (buzzer: winner tune)" in out  # --simulate prints every change


def test_lights_test_reports_config_mistakes(tmp_path) -> None:
    config = tmp_path / "config.yaml"
    config.write_text("game: flipop\ngpio:\n  pins: {green: 27}\n")
    with pytest.raises(ConfigError, match="gpio.pins.red"):
        run_lights_test(["--config", str(config), "--simulate", "--pause", "0"])
    with pytest.raises(ConfigError, match="not found"):
        run_lights_test(["--config", str(tmp_path / "missing.yaml")])
