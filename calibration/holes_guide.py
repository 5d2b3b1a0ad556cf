"""The guided hole setup of a Stay Alive copy, step by step: one home for `referee setup holes` and the live page.

Nine steps, one per pair of slide positions (`calibration.holes.PAIRS`): the person is asked to set every
orange slide to P and every white slide to Q, a picture is read for its open points, and once all nine
are in the pattern is derived (`calibration.holes.derive`). Neither a terminal nor a web page is known
here: the command asks on its standard input, the page with a button; both hand over board readings.

A step may be taken again (a slide was not fully in place), never one ahead of the next step due, so a
double click or a stale page cannot file a picture under the wrong pair.
"""

from __future__ import annotations

from typing import Any

from calibration.holes import PAIRS, Derivation, Grid, Grids, derive
from controller.errors import RefereeError
from controller.games.stay_alive.holes import POSITIONS, SIZE

STEPS = len(PAIRS)


def instruction(step: int) -> str:
    """What the person does for `step` (1 to 9), as the page and the command say it."""
    p, q = PAIRS[step - 1]
    return f"set every orange slide to {p} and every white slide to {q}"


def step_name(step: int) -> str:
    p, q = PAIRS[step - 1]
    return f"pair {step} of {STEPS} (orange {p}, white {q})"


def grid_from_reading(reading: Any, step: int) -> Grid:
    """The open points of one board reading, or a sentence saying why this picture cannot be used."""
    if reading.cells is None:
        raise RefereeError(f"{step_name(step)}: {reading.problem}")
    if reading.unsure:
        points = ", ".join(f"{r + 1},{c + 1}" for r, c in reading.unsure)
        raise RefereeError(
            f"{step_name(step)}: points {points} could not be read surely; move the lamp or clear "
            "the board and take the picture again"
        )
    return tuple(tuple((r, c) in reading.open_points for c in range(SIZE)) for r in range(SIZE))


def wrong_slides(step: int, positions: Any) -> str | None:
    """With the slide switches connected: which slides are not where `step` asks, in a sentence (None:
    all are). `positions` are the fourteen reported positions, orange slides (rows) first; a slide
    reporting both of its switches closed (None) is named too."""
    p, q = PAIRS[step - 1]
    wrong = []
    for i, at in enumerate(positions):
        colour, number, want = ("orange", i + 1, p) if i < SIZE else ("white", i - SIZE + 1, q)
        if at is None:
            wrong.append(f"{colour} slide {number} reports both of its switches closed")
        elif at != want:
            wrong.append(f"{colour} slide {number} is at {at}")
    if not wrong:
        return None
    listed = wrong if len(wrong) <= 4 else [*wrong[:3], f"{len(wrong) - 3} more"]
    return (
        f"{step_name(step)}: the switches say {', '.join(listed)}; {instruction(step)}, "
        "then capture again (nothing was taken)"
    )


class GuidedHoles:
    """The grids seen so far, step by step."""

    def __init__(self) -> None:
        self.grids: Grids = {}

    @property
    def next_step(self) -> int | None:
        """The first step without a picture (1 to 9); None once all nine are in."""
        for step, pair in enumerate(PAIRS, start=1):
            if pair not in self.grids:
                return step
        return None

    def check_step(self, step: Any) -> int:
        """`step` if a picture may be filed under it now (the next one due, or one already taken)."""
        due = self.next_step
        if isinstance(step, bool) or not isinstance(step, int) or not 1 <= step <= STEPS:
            raise RefereeError(f"the step is a number from 1 to {STEPS}, not {step!r}")
        if due is not None and step > due:
            raise RefereeError(f"step {step} comes after step {due}: take {step_name(due)} first")
        return step

    def record(self, step: int, reading: Any) -> Grid:
        """File the open points of `reading` under `step` (checked as `check_step` does)."""
        self.check_step(step)
        grid = grid_from_reading(reading, step)
        self.grids[PAIRS[step - 1]] = grid
        return grid

    def derivation(self) -> Derivation:
        due = self.next_step
        if due is not None:
            raise RefereeError(f"{STEPS - len(self.grids)} step(s) still to take, starting with {step_name(due)}")
        return derive(self.grids)


def contradictions(derivation: Derivation) -> list[dict[str, Any]]:
    """Each point no hole pattern explains: where, which slides, and what the nine pictures showed there."""
    out = []
    for (r, c), matrix in derivation.inconsistent:
        open_in = [
            f"orange {p} white {q}" for p, row in zip(POSITIONS, matrix) for q, seen in zip(POSITIONS, row) if seen
        ]
        out.append(
            {
                "point": [r, c],
                "name": f"point {r + 1},{c + 1}",
                "slides": f"orange slide {r + 1}, white slide {c + 1}",
                "open_in": open_in,
            }
        )
    return out
