"""What the players see and hear: seat, green, red and amber LEDs and a buzzer, via gpiozero.

Every pattern is meant to be told apart across the table without reading anything:

================  ===========================================  ====================================
Call              Lights                                       Sound (tonal buzzer / plain buzzer)
================  ===========================================  ====================================
turn(seat)        that seat's LED steady on, other seats off   none
legal()           green LED one 0.4 s flash                    one short high pip / one short beep
illegal()         red LED steady on until board_ok()           two-tone siren 1.2 s (E6-A5 x4) /
                                                               six quick beeps; cut short by
                                                               board_ok()
board_ok()        red LED off                                  stops the siren if still sounding
pending()         amber LED steady on                          none
unreadable()      amber LED slow blink (0.5 s on, 0.5 s off)   none
clear_pending()   amber LED off                                none
winner(seats)     winners' seat LEDs blink fast (0.2 s), the   rising tune C5 E5 G5 C6 /
                  other seat LEDs off, until the next turn()   three short beeps and a long one
fault(message)    red and amber blink together fast (0.15 s)   low double beep (C4) /
                  until fault_cleared(); hides illegal and     two long beeps
                  pending meanwhile
fault_cleared()   red and amber go back to what the game says  none
================  ===========================================  ====================================

So: red steady means "put the board right", amber steady "wait", amber blinking "the camera
cannot read the board", red and amber blinking together "the referee itself has a problem".

Nothing here sleeps: blinking uses gpiozero's background blink threads and sounds are played
by feeding a note sequence to the buzzer's `source`, which gpiozero runs in its own thread.
`listener` (optional) hears a short sentence for every change, for the demo's console.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from gpiozero import LED, Buzzer, TonalBuzzer
from gpiozero.pins import Factory
from gpiozero.pins.mock import MockFactory
from gpiozero.tones import Tone

from controller.hardware.config import GpioConfig
from controller.hardware.pins import RecordingPWMPin, create_device, make_pin_factory
from controller.language import N_, Text, _, literal

Listener = Callable[[str], None]

#: Length of one step of a sound; every note lasts a whole number of steps.
SOUND_TICK = 0.025
#: The tonal buzzer spans two octaves either side of A5: 220 Hz to 3520 Hz.
MID_TONE = Tone("A5")
OCTAVES = 2

FLASH_ON = 0.4
UNREADABLE_BLINK = 0.5
WINNER_BLINK = 0.2
FAULT_BLINK = 0.15


#: What the lights' messages call each sound, LED and LED state (the demo prints them, the lights test
#: shows them): catalogue messages, said in the table's or the page's language.
SOUND_WORDS = {
    "alarm": N_("alarm tone"),
    "tune": N_("winner tune"),
    "pip": N_("pip"),
    "low double beep": N_("low double beep"),
}
LED_WORDS = {"green": N_("green"), "red": N_("red"), "amber": N_("amber")}
LED_STATES = {
    "on": N_("on"),
    "off": N_("off"),
    "flash": N_("flash"),
    "blink": N_("blinking"),
    "fault": N_("blinking fast"),
}


def led_words(name: str) -> Text:
    """An LED as the messages name it: `green`, `seat 2`."""
    if name.startswith("seat "):
        return _("seat {number}", number=name.removeprefix("seat "))
    return Text(LED_WORDS[name]) if name in LED_WORDS else literal(name)


@dataclass(frozen=True)
class Note:
    """A note of `ms` milliseconds; frequency None is a rest."""

    frequency: float | None
    ms: int


def _notes(*pairs: tuple[float | None, int]) -> tuple[Note, ...]:
    return tuple(Note(frequency, ms) for frequency, ms in pairs)


C4, C5, E5, G5, A5, C6, E6, A6 = 261.63, 523.25, 659.26, 783.99, 880.0, 1046.5, 1318.5, 1760.0
ON = 1.0  # any frequency: a plain buzzer only knows on and off

#: Sound name -> (notes for a tonal buzzer, notes for a plain buzzer).
SOUNDS: dict[str, tuple[tuple[Note, ...], tuple[Note, ...]]] = {
    "pip": (_notes((A6, 75)), _notes((ON, 75))),
    "alarm": (_notes(*[(E6, 150), (A5, 150)] * 4), _notes(*[(ON, 100), (None, 100)] * 6)),
    "tune": (
        _notes((C5, 150), (E5, 150), (G5, 150), (C6, 450)),
        _notes((ON, 100), (None, 50), (ON, 100), (None, 50), (ON, 100), (None, 50), (ON, 450)),
    ),
    "low double beep": (
        _notes((C4, 200), (None, 100), (C4, 200)),
        _notes((ON, 400), (None, 200), (ON, 400)),
    ),
}


class Feedback:
    """The referee's lights and buzzer; every method returns at once."""

    def __init__(
        self,
        seat_leds: Sequence[LED],
        green: LED,
        red: LED,
        amber: LED,
        buzzer: TonalBuzzer | Buzzer,
        *,
        listener: Listener | None = None,
        tempo: float = 1.0,
        pin_factory: Factory | None = None,
    ) -> None:
        self.seat_leds = list(seat_leds)
        self.green = green
        self.red = red
        self.amber = amber
        self.buzzer = buzzer
        self.tonal = isinstance(buzzer, TonalBuzzer)
        self.pin_factory = pin_factory
        self._listener = listener
        self._tempo = tempo
        self._lock = threading.RLock()
        self._modes: dict[str, str] = {}
        self._illegal = False
        self._amber_mode = "off"
        self._fault: str | None = None
        self._sound: str | None = None
        self._closed = False

    @classmethod
    def from_config(
        cls,
        gpio_config: GpioConfig,
        listener: Listener | None = None,
        *,
        pin_factory: Factory | None = None,
        tempo: float = 1.0,
    ) -> Feedback:
        """Build the devices on the configured pins.

        With `backend: mock` a fresh gpiozero MockFactory is used (reachable as `pin_factory`)
        and the buzzer pin records its frequencies (`RecordingPWMPin.frequencies`). `tempo`
        scales every duration (tests use a small one to run fast).
        """
        factory = pin_factory if pin_factory is not None else make_pin_factory(gpio_config)
        pins = gpio_config.pins
        backend = gpio_config.backend
        if gpio_config.buzzer_tonal and isinstance(factory, MockFactory):
            factory.pin(pins.buzzer, pin_class=RecordingPWMPin)  # mock only: record the tones
        made: list[object] = []

        def make(what: Any, pin: int, build: Callable[[], object]) -> object:
            try:
                device = create_device(what, pin, build, backend)
            except Exception:
                for device in made:
                    device.close()  # type: ignore[attr-defined]
                raise
            made.append(device)
            return device

        seats = [
            make(_("{led} LED", led=led_words(f"seat {i + 1}")), pin, partial(LED, pin, pin_factory=factory))
            for i, pin in enumerate(pins.seat_leds)
        ]
        green = make(_("{led} LED", led=led_words("green")), pins.green, lambda: LED(pins.green, pin_factory=factory))
        red = make(_("{led} LED", led=led_words("red")), pins.red, lambda: LED(pins.red, pin_factory=factory))
        amber = make(_("{led} LED", led=led_words("amber")), pins.amber, lambda: LED(pins.amber, pin_factory=factory))
        if gpio_config.buzzer_tonal:
            buzzer = make(
                "tonal buzzer",
                pins.buzzer,
                lambda: TonalBuzzer(pins.buzzer, mid_tone=MID_TONE, octaves=OCTAVES, pin_factory=factory),
            )
        else:
            buzzer = make(_("buzzer"), pins.buzzer, lambda: Buzzer(pins.buzzer, pin_factory=factory))
        return cls(
            seats,
            green,
            red,
            amber,
            buzzer,
            listener=listener,
            tempo=tempo,
            pin_factory=factory,
        )

    # --- the game's events --------------------------------------------------------------------
    def turn(self, seat: int | None) -> None:
        """Light the seat whose turn it is (None: nobody's, e.g. between games)."""
        with self._lock:
            for index in range(len(self.seat_leds)):
                self._set_led(f"seat {index + 1}", "on" if index == seat else "off")
            if seat is not None and not 0 <= seat < len(self.seat_leds):
                self._tell(_("player {number} has no LED fitted", number=seat + 1))

    def legal(self) -> None:
        with self._lock:
            self._set_led("green", "flash")
            self.play("pip")

    def illegal(self) -> None:
        """Red stays on until `board_ok()`; the siren sounds once (board_ok() cuts it short)."""
        with self._lock:
            self._illegal = True
            self._render_status()
            self.play("alarm")

    def board_ok(self) -> None:
        with self._lock:
            self._illegal = False
            self._render_status()
            if self._sound == "alarm":
                self._stop_sound()

    def pending(self) -> None:
        """A move is being made or judged: wait."""
        with self._lock:
            self._amber_mode = "on"
            self._render_status()

    def unreadable(self) -> None:
        """The camera cannot read the board (a hand over it, glare...)."""
        with self._lock:
            self._amber_mode = "blink"
            self._render_status()

    def clear_pending(self) -> None:
        with self._lock:
            self._amber_mode = "off"
            self._render_status()

    def winner(self, seats: list[int]) -> None:
        """Blink the winners' seat LEDs (several for a shared win) and play the tune."""
        with self._lock:
            for index in range(len(self.seat_leds)):
                self._set_led(f"seat {index + 1}", "blink" if index in seats else "off")
            self.play("tune")

    def fault(self, message: str) -> None:
        """The referee lost its camera or switches: a pattern of its own until fault_cleared()."""
        with self._lock:
            if self._fault is None:
                self._tell(_("fault: {fault}", fault=message))
                self._fault = message
                self._render_status()
                self.play("low double beep")
            elif message != self._fault:
                self._tell(_("fault: {fault}", fault=message))
                self._fault = message

    def fault_cleared(self) -> None:
        with self._lock:
            if self._fault is not None:
                self._fault = None
                self._tell(_("fault cleared"))
                self._render_status()

    def close(self) -> None:
        """Everything off and the pins released."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            self._stop_sound()
            for device in [*self.seat_leds, self.green, self.red, self.amber, self.buzzer]:
                device.close()

    # --- building blocks (also used by `referee lights-test`) --------------------------------
    def leds(self) -> dict[str, LED]:
        """Every LED by the name the listener uses ('seat 0', ..., 'green', 'red', 'amber')."""
        named = {f"seat {i + 1}": led for i, led in enumerate(self.seat_leds)}
        named.update(green=self.green, red=self.red, amber=self.amber)
        return named

    def set_led(self, name: str, mode: str) -> None:
        """Drive one LED: mode 'on', 'off', 'flash' or 'blink'."""
        with self._lock:
            self._set_led(name, mode)

    def play(self, sound: str) -> None:
        """Start one of SOUNDS in the background, replacing whatever is sounding."""
        with self._lock:
            tonal_notes, plain_notes = SOUNDS[sound]
            notes = tonal_notes if self.tonal else plain_notes
            self._sound = sound
            self.buzzer.source_delay = SOUND_TICK * self._tempo
            self.buzzer.source = self._buzzer_values(notes)
            self._tell(_("buzzer: {sound}", sound=self._describe(sound)))

    def _describe(self, sound: str) -> str:
        return Text(SOUND_WORDS[sound]) if sound in SOUND_WORDS else sound

    def _buzzer_values(self, notes: Sequence[Note]) -> Iterator[float | bool | None]:
        silent = None if self.tonal else False
        for note in notes:
            value = silent if note.frequency is None else self._value_of(note.frequency)
            for _tick in range(max(1, round(note.ms / 1000 / SOUND_TICK))):
                yield value
        yield silent

    def _value_of(self, frequency: float) -> float | bool:
        """TonalBuzzer's value scale: -1 .. 1 spans OCTAVES octaves either side of MID_TONE."""
        if not self.tonal:
            return True
        value = math.log2(frequency / MID_TONE.frequency) / OCTAVES
        return max(-1.0, min(1.0, value))

    def _stop_sound(self) -> None:
        self.buzzer.source = None
        if self.tonal:
            self.buzzer.stop()
        else:
            self.buzzer.off()
        if self._sound is not None:
            self._tell(_("buzzer off"))
        self._sound = None

    def _render_status(self) -> None:
        """Red and amber follow the game, except while a fault owns them."""
        if self._fault is not None:
            self._set_led("red", "fault")
            self._set_led("amber", "fault")
            return
        self._set_led("red", "on" if self._illegal else "off")
        self._set_led("amber", self._amber_mode)

    def _set_led(self, name: str, mode: str) -> None:
        if self._modes.get(name, "off") == mode and mode != "flash":
            return
        led = self.leds().get(name)
        if led is None:
            return
        tempo = self._tempo
        if mode == "on":
            led.on()
        elif mode == "off":
            led.off()
        elif mode == "flash":
            led.blink(on_time=FLASH_ON * tempo, off_time=0.01 * tempo, n=1)
        elif mode == "blink":
            period = UNREADABLE_BLINK if name == "amber" else WINNER_BLINK
            led.blink(on_time=period * tempo, off_time=period * tempo)
        elif mode == "fault":
            led.blink(on_time=FAULT_BLINK * tempo, off_time=FAULT_BLINK * tempo)
        else:
            raise ValueError(f"unknown LED mode {mode!r}")
        self._modes[name] = "off" if mode == "flash" else mode
        self._tell(_("{led} LED {state}", led=led_words(name), state=Text(LED_STATES[mode])))

    def _tell(self, message: str) -> None:
        if self._listener is not None:
            self._listener(message)
