"""A sixth game defined only inside the test suite: noughts and crosses by lamplight.

The fifth game (`fifth_game.py`) adds nothing to what every game has; this one adds each thing a
game may add, all declared in its `SPEC` and nowhere else:

- a snapshot line besides the grid, `light: bright` (or `dim`, `?` where unread): the lamp on the
  board's frame, lit or out, which the rules keep in their state (a change of light alone is no move);
- its own event, `three:R,C` ("C3 completes three in a row"), on the move that wins;
- a reader add-on (`LineReader`) that reads the `light:` line from the picture: the lamp, above
  the middle column between the grid and the markers, lit or out against the markers' paper white;
- how the live page shows its line (`LineShown`): a labelled value under the board;
- its drawing for the simulated camera (`LAMP_ARTWORK`: the plain board and the lamp, lit or out
  as the `light:` line says), which its `VisionSpec.artwork` names and the tests register with
  `simulation.artwork.registered` (`registered()` here registers the game and its drawing).

`tests/test_lamp_game.py` drives it through the commands, the service, its journal, the page's state and
the club; `tests/test_lamp_game_browser.py` shows its line on the page in a real browser.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Any

import cv2
import fifth_game
import numpy as np

from controller.errors import FormatError
from controller.games import registry
from controller.games.base import Judgement
from controller.games.events import EventType
from controller.games.spec import AS_VALUE, ExtraLine, LineReader, LineShown, VisionSpec
from controller.snapshot import Snapshot
from simulation import artwork

NAME = "noughts-lit"
BRIGHT, DIM, UNREAD = "bright", "dim", "?"
#: The lamp on the board's frame: its middle (board coordinates: lattice point (col, row) at (x, y);
#: above the middle column, halfway between the grid and the markers' row) and its radius (pitches).
LAMP, LAMP_RADIUS = (1.0, -1.0), 0.24
#: RGB of the lamp lit and out.
LIT, OUT = (255, 214, 96), (64, 60, 56)
#: The lamp's brightness (its pixels against the markers' paper white, 1: as bright) above which
#: it is lit and below which it is out; in between the reader cannot tell (glare on a lamp that is
#: out, a shadow over a lit one).
LIT_ABOVE, OUT_BELOW = 0.55, 0.4


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
    """The `light:` add-on of a board reader: the median brightness of the lamp's middle on the frame
    against the markers' paper white."""
    ring = [(LAMP[0] + LAMP_RADIUS * 0.5 * np.cos(a), LAMP[1] + LAMP_RADIUS * 0.5 * np.sin(a)) for a in range(6)]
    spot = np.array([LAMP, *ring], np.float64).reshape(-1, 1, 2)

    def read(frame: np.ndarray, white: np.ndarray) -> tuple[str, ...]:
        points = cv2.perspectiveTransform(spot, reader.h).reshape(-1, 2)
        x = np.clip(np.round(points[:, 0]).astype(int), 0, frame.shape[1] - 1)
        y = np.clip(np.round(points[:, 1]).astype(int), 0, frame.shape[0] - 1)
        paper = np.mean(np.reshape(white, (-1, 3)), axis=0).sum()
        level = float(np.median(frame[y, x].astype(np.float64).sum(axis=1) / 255 / paper))
        return (BRIGHT if level > LIT_ABOVE else DIM if level < OUT_BELOW else UNREAD,)

    return read


def _lamp(cv: Any, snapshot: Snapshot, profile: Any, scene: Any, seed: int, door_jitter: float) -> None:
    """The lamp on the frame, lit or out as the snapshot's `light:` line says (lit where unsaid)."""
    lit = _light(snapshot, BRIGHT) == BRIGHT
    cv.circle(*LAMP, LAMP_RADIUS, (30, 30, 30))
    cv.circle(*LAMP, LAMP_RADIUS * 0.85, LIT if lit else OUT)


#: How the simulated camera draws the game (`VisionSpec.artwork` names it): the plain board and the lamp.
LAMP_ARTWORK = artwork.Artwork(fittings=_lamp)


SPEC = replace(
    fifth_game.SPEC,
    name=NAME,
    title="Noughts and crosses by lamplight",
    engine=LitEngine,
    extra_lines=(LIGHT_LINE,),
    events=(THREE,),
    vision=VisionSpec(line_readers=(LineReader("light", light_reader),), artwork="lamp-on-the-frame"),
    default_profile={**fifth_game.SPEC.default_profile, "game": NAME},  # type: ignore[dict-item]
    demo={"game": NAME, "players": 2},
)


@contextmanager
def registered() -> Iterator[None]:
    """The game known to the catalogue and its drawing to the simulated camera, while the block runs."""
    with registry.registered(SPEC), artwork.registered(SPEC.vision.artwork, LAMP_ARTWORK):
        yield
