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
from controller.games.stay_alive.rules import point_name as point_name_of
from controller.language import Text, _, _n, listed

STEPS = len(PAIRS)


def instruction(step: int) -> Text:
    """What the person does for `step` (1 to 9), as the page and the command say it."""
    p, q = PAIRS[step - 1]
    return _("set every orange slide to {orange} and every white slide to {white}", orange=p, white=q)


def step_name(step: int) -> Text:
    p, q = PAIRS[step - 1]
    return _("pair {step} of {steps} (orange {orange}, white {white})", step=step, steps=STEPS, orange=p, white=q)


def point_name(r: int, c: int) -> Text:
    """A point of the hole grid as people count it (from 1): `point 3,5`."""
    return _("point {point}", point=point_name_of((r, c)))


def grid_from_reading(reading: Any, step: int) -> Grid:
    """The open points of one board reading, or a sentence saying why this picture cannot be used."""
    if reading.cells is None:
        raise RefereeError(_("{step}: {problem}", step=step_name(step), problem=reading.problem))
    if reading.unsure:
        points = listed([point_name_of(cell) for cell in reading.unsure], conjunction=None)
        raise RefereeError(
            _(
                "{step}: points {points} could not be read surely; move the lamp or clear the board and take "
                "the picture again",
                step=step_name(step),
                points=points,
            )
        )
    return tuple(tuple((r, c) in reading.open_points for c in range(SIZE)) for r in range(SIZE))


def wrong_slides(step: int, positions: Any) -> Text | None:
    """With the slide switches connected: which slides are not where `step` asks, in a sentence (None:
    all are). `positions` are the fourteen reported positions, orange slides (rows) first; a slide
    reporting both of its switches closed (None) is named too."""
    p, q = PAIRS[step - 1]
    wrong: list[Text] = []
    for i, at in enumerate(positions):
        orange = i < SIZE
        number, want = (i + 1, p) if orange else (i - SIZE + 1, q)
        slide = _("orange slide {number}", number=number) if orange else _("white slide {number}", number=number)
        if at is None:
            wrong.append(_("{slide} reports both of its switches closed", slide=slide))
        elif at != want:
            wrong.append(_("{slide} is at {position}", slide=slide, position=at))
    if not wrong:
        return None
    shown = wrong if len(wrong) <= 4 else [*wrong[:3], _n("{n} more", "{n} more", len(wrong) - 3)]
    return _(
        "{step}: the switches say {wrong}; {instruction}, then capture again (nothing was taken)",
        step=step_name(step),
        wrong=listed(shown, conjunction=None),
        instruction=instruction(step),
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
            raise RefereeError(_("the step is a number from 1 to {steps}, not {value}", steps=STEPS, value=repr(step)))
        if due is not None and step > due:
            raise RefereeError(
                _("step {step} comes after step {due}: take {name} first", step=step, due=due, name=step_name(due))
            )
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
            left = STEPS - len(self.grids)
            raise RefereeError(
                _n(
                    "{n} step still to take, starting with {name}",
                    "{n} steps still to take, starting with {name}",
                    left,
                    name=step_name(due),
                )
            )
        return derive(self.grids)


def contradictions(derivation: Derivation) -> list[dict[str, Any]]:
    """Each point no hole pattern explains: where, which slides, and what the nine pictures showed there."""
    out = []
    for (r, c), matrix in derivation.inconsistent:
        open_in = [
            _("orange {orange} white {white}", orange=p, white=q)
            for p, row in zip(POSITIONS, matrix)
            for q, seen in zip(POSITIONS, row)
            if seen
        ]
        out.append(
            {
                "point": [r, c],
                "name": point_name(r, c),
                "slides": _("orange slide {orange}, white slide {white}", orange=r + 1, white=c + 1),
                "open_in": open_in,
            }
        )
    return out
