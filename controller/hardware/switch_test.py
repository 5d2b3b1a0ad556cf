"""The slide-by-slide switch test (Stay Alive): which slides changed since the test started, and which
ever reported both of their switches closed, each named with its wires (firmware_bridge/WIRING.md).

Pure bookkeeping over `SlideState`s: the live page feeds it the switches' latest state each time it
asks (`GET /api/switches`, a few times a second while the test is open), so a slide moved and left
at its new position is always seen; nothing runs while no page asks.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from firmware_bridge.protocol import SLIDE_COUNT

#: The diode matrix of WIRING.md: row lines (and their Pico pins) of the A- and C-switches of the
#: orange slides (0-6) and of the white slides (7-13); column line K0-K6 is the slide's number in its colour.
ROW_LINES = {
    ("orange", "A"): ("R0", "GP2"),
    ("orange", "C"): ("R1", "GP3"),
    ("white", "A"): ("R2", "GP4"),
    ("white", "C"): ("R3", "GP5"),
}
COLUMN_PINS = ("GP6", "GP7", "GP8", "GP9", "GP10", "GP11", "GP12")
PER_COLOUR = 7


def wires(slide: int) -> str:
    """The wires of a slide's two switches, as WIRING.md names them."""
    colour = "orange" if slide < PER_COLOUR else "white"
    k = slide % PER_COLOUR
    a_row, a_pin = ROW_LINES[(colour, "A")]
    c_row, c_pin = ROW_LINES[(colour, "C")]
    return f"A-switch {a_row}({a_pin})-K{k}({COLUMN_PINS[k]}), C-switch {c_row}({c_pin})-K{k}({COLUMN_PINS[k]})"


def default_slide_name(slide: int) -> str:
    return f"slide {slide}"


class SwitchTest:
    """What every slide did since `start()`: the positions it reported and whether it reported a fault."""

    def __init__(self, slide_name: Callable[[int], str] = default_slide_name) -> None:
        self.slide_name = slide_name
        self.start()

    def start(self) -> None:
        self.first: list[str | None] | None = None
        self.seen: list[set[str]] = [set() for _ in range(SLIDE_COUNT)]
        self.both: list[bool] = [False] * SLIDE_COUNT
        self.states = 0

    def observe(self, state: Any) -> None:
        """Take one `SlideState` into account (a state of a dead link tells nothing and is skipped)."""
        if state is None or not state.link_ok:
            return
        self.states += 1
        positions = list(state.positions)
        if self.first is None:
            self.first = positions
        faults = set(state.faults)
        for slide in range(SLIDE_COUNT):
            if slide in faults or positions[slide] is None:
                self.both[slide] = True
            else:
                self.seen[slide].add(positions[slide])

    def report(self, state: Any) -> dict[str, Any]:
        """The page's switch panel: each slide live, its flags and, for a flagged slide, a sentence with its wires."""
        positions = list(state.positions) if state is not None else [None] * SLIDE_COUNT
        faults = set(state.faults) if state is not None else set()
        slides = []
        # Before anyone has moved a slide, "never changed" is true of every slide and says nothing:
        # it becomes a warning once the person is under way.
        touched = any(len(seen) > 1 for seen in self.seen)
        for slide in range(SLIDE_COUNT):
            never = len(self.seen[slide]) <= 1
            problems = []
            if self.both[slide]:
                problems.append(
                    f"{self.slide_name(slide)} reports both switches closed (a stuck switch or a "
                    f"short): check {wires(slide)}"
                )
            elif never and self.states and touched:
                problems.append(
                    f"{self.slide_name(slide)} never changed since the test started: move it through "
                    f"A, B and C; if it stays, check {wires(slide)}"
                )
            slides.append(
                {
                    "slide": slide,
                    "name": self.slide_name(slide),
                    "position": None if slide in faults else positions[slide],
                    "seen": sorted(self.seen[slide]),
                    "never_changed": never,
                    "both_switches": self.both[slide],
                    "wires": wires(slide),
                    "problems": problems,
                }
            )
        return {
            "link_ok": bool(state is not None and state.link_ok),
            "trouble": getattr(state, "trouble", None),
            "states": self.states,
            "touched": touched,
            "slides": slides,
            "all_moved": all(len(s) == 3 for s in self.seen) and not any(self.both),
        }
