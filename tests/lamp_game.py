"""A sixth game defined only inside the test suite: noughts and crosses by lamplight.

The fifth game (`fifth_game.py`) adds nothing to what every game has; this one adds each thing a
game may add, all declared in its `SPEC` and nowhere else:

- a snapshot line besides the grid, `light: bright` (or `dim`, `?` where unread): the lamp over the
  table, which the rules keep in their state (a change of light alone is no move);
- its own event, `three:R,C` ("C3 completes three in a row"), on the move that wins;
- a reader add-on (`LineReader`) that reads the `light:` line from the picture: the paper's white
  around the markers, bright or dim;
- how the live page shows its line (`LineShown`): a labelled value under the board.

`tests/test_lamp_game.py` drives it through the commands, the service, its journal and the page.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import fifth_game
import numpy as np

from controller.errors import FormatError
from controller.games.base import Judgement
from controller.games.events import EventType
from controller.games.spec import AS_VALUE, ExtraLine, LineReader, LineShown, VisionSpec
from controller.snapshot import Snapshot

NAME = "noughts-lit"
BRIGHT, DIM, UNREAD = "bright", "dim", "?"
#: The paper's white (1: as bright as the markers' paper under the standard light) below which the
#: lamp is said to be dim.
DIM_BELOW = 0.45


def _parse_light(rest: str, rows: int, cols: int, where: str) -> tuple[str, ...]:
    tokens = tuple(rest.split())
    if len(tokens) != 1 or tokens[0] not in (BRIGHT, DIM, UNREAD):
        raise FormatError(f"the light line says {BRIGHT}, {DIM} or {UNREAD}, not {rest.strip()!r}", where)
    return tokens


#: The page shows it under the board, in words: "Lamp: lit brightly".
LIGHT_SHOWN = LineShown(AS_VALUE, label="lamp", words={BRIGHT: "lit brightly", DIM: "dimmed"})
LIGHT_LINE = ExtraLine("light", _parse_light, unknown=UNREAD, default=lambda rows, cols: (BRIGHT,), shown=LIGHT_SHOWN)
#: The move that makes three in a row, on its place.
THREE = EventType("three", "cell", "{place} completes three in a row")


@dataclass(frozen=True)
class LitState(fifth_game.NoughtsState):
    light: str = BRIGHT


class LitEngine(fifth_game.NoughtsEngine):
    state_type = LitState

    def start(self, snapshot: Snapshot) -> LitState:
        return LitState(snapshot.cells, self.setup.first, _light(snapshot, BRIGHT))

    def apply(self, state: LitState, move: tuple[int, int]) -> tuple[LitState, tuple[Any, ...]]:
        after, _ = super().apply(state, move)
        lit = LitState(after.board, after.to_move, state.light)
        return lit, (THREE(move),) if self._winner(lit) is not None else ()

    def expected(self, state: LitState) -> Snapshot:
        return Snapshot(NAME, state.board, {"light": (state.light,)})

    def judge(self, state: LitState, snapshot: Snapshot) -> Judgement[LitState]:
        light = _light(snapshot, state.light)
        judgement = super().judge(replace(state, light=light), snapshot)
        if judgement.kind == "unchanged" and light != state.light:
            return Judgement("unchanged", state=replace(state, light=light))  # the lamp alone changed
        return judgement


def _light(snapshot: Snapshot, before: str) -> str:
    """The light a snapshot shows, or `before` where it was not read."""
    tokens = snapshot.line("light")
    return tokens[0] if tokens and tokens[0] != UNREAD else before


def light_reader(reader: Any) -> Any:
    """The `light:` add-on of a board reader: the mean of the paper's white around the markers."""

    def read(frame: np.ndarray, white: np.ndarray) -> tuple[str, ...]:
        return (DIM if float(np.mean(white)) < DIM_BELOW else BRIGHT,)

    return read


SPEC = replace(
    fifth_game.SPEC,
    name=NAME,
    title="Noughts and crosses by lamplight",
    engine=LitEngine,
    extra_lines=(LIGHT_LINE,),
    events=(THREE,),
    vision=VisionSpec(line_readers=(LineReader("light", light_reader),)),
    default_profile={**fifth_game.SPEC.default_profile, "game": NAME},  # type: ignore[dict-item]
    demo={"game": NAME, "players": 2},
)
