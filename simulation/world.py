"""The simulated rig: a physical board, a simulated player, and a driver with a simulated clock.

`referee demo`, the service tests and the end-to-end bench use it. The referee under test sees
only what real devices give: rendered camera frames (through vision's renderer frame source),
switch messages from the simulated microcontroller (Stay Alive) and mock-pin button presses.

* `SimWorld` holds the true board (with everything a camera cannot see: Blockers! glyphs,
  Flipop doors) and what is in front of the camera: a hand, glare, a camera bump, an unplugged
  camera. `current_scene()` is what the renderer draws.
* `SimPlayer` plays a whole game with the engine API (legal_moves / apply / expected) on its own
  full-knowledge state, with hands over the board for every move, an illegal move and its
  restoration, a move left half done (pending), glare, a bump and unplugged devices. It keeps a
  *shadow referee* fed with exactly the boards a perfect camera would give once each settled
  state is held still: its verdicts are what the player intended, and the referee under test
  must give the very same list (no false verdict).
* `SimDriver` applies the player's steps and ticks the loop at 30 simulated frames per second.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from controller.ai.table import rack_missing
from controller.games import registry
from controller.games.base import ActionNotAllowed, GameSetup
from controller.games.registry import engine_for
from controller.games.stay_alive.rules import MARBLE_DROP_SECONDS
from controller.hardware.switches import SlideState
from controller.language import _
from controller.record import COMPUTER_MOVE, COMPUTER_RACK, setup_from_mapping
from controller.referee import Referee, Verdict
from controller.service.loop import RefereeLoop, Settings, Sight
from controller.service.session import open_journal
from controller.snapshot import EMPTY, Snapshot, empty_snapshot
from simulation.render import Scene

FPS = 30
#: How many frames (at 30 fps) a marble takes to drop through the point its slide opened: the
#: switches report the slide at once, the marble falls a moment later, at the latest after the
#: rig's longest drop (`stay_alive.MARBLE_DROP_SECONDS`).
MARBLE_FALL_FRAMES = (2, round(MARBLE_DROP_SECONDS * FPS))
#: How long (simulated seconds) a player's hand stays off the board between two parts of one move
#: (a Blockers! captured tile taken away before the own tile is put down, a Flipop ball moved
#: before its doors are turned by hand): a reach off the board and back, 0.25 s to 1 s.
MID_MOVE_PAUSE = (0.25, 1.0)
#: How long the players look at a board a lamp's reflection covers in part, before they turn the lamp away.
LAMP_LOOK = 4.0

Cell = tuple[int, int]


# --------------------------------------------------------------------------- the physical world
class SimWorld:
    """The true physical board and everything else in front of the camera."""

    def __init__(
        self,
        setup: GameSetup,
        board: Snapshot,
        pico: Any = None,
        noise_frames: int = 2,
    ) -> None:
        self.setup = setup
        #: Lamps' reflections on the board: (row, col, radius in pitches) each.
        self.lamp: tuple[tuple[float, float, float], ...] = ()
        #: How many sensor-noise patterns a still scene cycles through (1: every frame identical).
        self.noise_frames = max(1, noise_frames)
        self.profile = setup.profile
        self.board = board
        self.hand: tuple[float, float] | None = None
        self.hand_side = "bottom"
        self.glare = False
        self.bump = (0.0, 0.0, 0.0)
        self.camera_plugged = True
        self.pico = pico
        #: Grows with every change of the scene, so unchanged scenes reuse their rendered frame.
        self.version = 0
        #: Grows with every change a motion gate surely sees (hands, pieces, slides, glare, bumps);
        #: a marble dropping through its hole is a few pixels of the gate's small picture and
        #: does not count (`SnapshotSensor` models the gate with it).
        self.motion = 0
        self.frame = 0
        #: Marbles on their way down: (the frame they are gone at, row, col).
        self.falling: list[tuple[int, int, int]] = []
        if pico is not None and switch_positions(board):
            pico.set_positions("".join(switch_positions(board)))

    # --- what changes -------------------------------------------------------------------------
    def set_board(self, board: Snapshot, falls: dict[Cell, int] | None = None) -> None:
        """The board becomes `board`, but for the marbles in `falls`: each drops that many frames
        later (Stay Alive: the slides, and so the switches, change now; the marbles follow)."""
        self._drop(everything=True)  # whatever was still falling is down by now
        if switch_positions(board) and self.pico is not None:
            old = switch_positions(self.board)
            new = switch_positions(board)
            for index, (before, after) in enumerate(zip(old, new)):
                if before != after:
                    self.pico.set_slide(index, after, bounce_ms=5.0)
        if falls:
            grid = [list(row) for row in board.cells]
            for (r, c), frames in falls.items():
                if self.board.cells[r][c] != EMPTY and board.cells[r][c] == EMPTY:
                    grid[r][c] = self.board.cells[r][c]
                    self.falling.append((self.frame + max(1, frames), r, c))
            board = board.with_cells(grid)
        self.board = board
        self.version += 1
        self.motion += 1

    def _drop(self, everything: bool = False) -> None:
        """Marbles whose time has come (or all of them) leave the board."""
        due = [f for f in self.falling if everything or f[0] <= self.frame]
        if not due:
            return
        self.falling = [f for f in self.falling if f not in due]
        grid = [list(row) for row in self.board.cells]
        for _when, r, c in due:
            grid[r][c] = EMPTY
        self.board = self.board.with_cells(grid)
        self.version += 1

    def set_hand(self, where: tuple[float, float] | None, side: str = "bottom") -> None:
        self.hand, self.hand_side = where, side
        self.version += 1
        self.motion += 1

    def set_glare(self, on: bool) -> None:
        self.glare = on
        self.version += 1
        self.motion += 1

    def set_lamp(self, spots: tuple[tuple[float, float, float], ...]) -> None:
        self.lamp = spots
        self.version += 1
        self.motion += 1

    def set_bump(self, bump: tuple[float, float, float]) -> None:
        self.bump = bump
        self.version += 1
        self.motion += 1

    def set_camera(self, plugged: bool) -> None:
        self.camera_plugged = plugged
        self.version += 1
        self.motion += 1

    def advance_frame(self) -> None:
        self.frame += 1
        self._drop()

    # --- what the camera and the switches see -------------------------------------------------
    def current_scene(self) -> tuple[Snapshot | None, Scene | None]:
        """The board and the scene to draw; (None, None) while the camera is unplugged."""
        if not self.camera_plugged:
            return None, None
        scene = Scene(
            hand=self.hand,
            hand_side=self.hand_side,
            glare=self.glare,
            shadows=False,
            bump=self.bump,
            frame=1 + self.frame % self.noise_frames,  # sensor noise that changes, as a real camera's
            glare_at=self.lamp,
        )
        return self.board, scene

    def scene_key(self) -> tuple[int, int] | None:
        return None if not self.camera_plugged else (self.version, self.frame % self.noise_frames)

    def visible(self, board: Snapshot | None = None) -> Snapshot:
        """What a perfect camera and switches report: the board itself, glyphs and doors included."""
        return board or self.board


def switch_positions(board: Snapshot) -> tuple[str, ...]:
    """The tokens of the lines the slide switches report, in the game's order (none for most games)."""
    lines = registry.get(board.game).extra_lines
    return tuple(token for line in lines if line.from_switches for token in board.line(line.key) or ())


def camera_view(board: Snapshot) -> Snapshot:
    """What the camera reports of `board`: everything but the lines the slide switches report."""
    spec = registry.get(board.game)
    kept = {key: tokens for key, tokens in board.lines if not getattr(spec.extra_line(key), "from_switches", False)}
    return Snapshot(board.game, board.cells, kept)


def agrees(actual: dict, intended: dict) -> bool:
    """The referee's verdict is the one the player intended, allowing for what the camera could
    not read: a Blockers! glyph seen as ``?`` (and the events about what the camera could not tell)."""
    if actual == intended:
        return True
    ignored = ("move", "events", "index")
    if {k: v for k, v in actual.items() if k not in ignored} != {k: v for k, v in intended.items() if k not in ignored}:
        return False
    move, wanted = actual.get("move", ""), intended.get("move", "")
    if len(move) != len(wanted) or any(a != b and a != "?" for a, b in zip(move, wanted)):
        return False
    unread = {t.kind for game in registry.names() for t in registry.get(game).event_types if t.about_reading}
    events = [e for e in actual.get("events", []) if e.partition(":")[0] not in unread]
    return events == [e for e in intended.get("events", []) if e.partition(":")[0] not in unread]


def all_agree(actual: list[dict], intended: list[dict]) -> bool:
    """Every verdict agrees, in order. ``unchanged`` verdicts are left out on both sides: when a
    glyph the camera missed is read later, the referee judges that still board once more
    (``unchanged``, learning the glyph), which a perfect camera never needs to."""
    return first_difference(actual, intended) is None


def first_difference(actual: list[dict], intended: list[dict]) -> str | None:
    """Where the referee first parted from the player (as `all_agree` compares), in a sentence;
    None when every verdict agrees."""
    actual = [v for v in actual if v.get("verdict") != "unchanged"]
    intended = [v for v in intended if v.get("verdict") != "unchanged"]
    for said, meant in zip(actual, intended):
        if not agrees(said, meant):
            return f"the referee said {_brief(said)} where the player did {_brief(meant)}"
    if len(actual) > len(intended):
        return f"the referee said {_brief(actual[len(intended)])} after the player's last verdict"
    if len(actual) < len(intended):
        return f"the referee never said {_brief(intended[len(actual)])}"
    return None


@dataclass(frozen=True)
class LightFigures:
    """What the players saw of the lights in one game (`light_figures`)."""

    false_red: int
    amber_on: float
    amber_blink: float


def light_figures(lights: list[tuple[float, str]], steps: list[tuple[float, Step]], end: float) -> LightFigures:
    """Red flashes outside the player's illegal changes, and how long amber was steady and blinking.

    `lights` are the lights' own messages ("red LED on", "amber LED blinking", ...) with the
    simulated time of each; `steps` the player's steps with the time each began (a step marked
    `red_ok` is an illegal change made on purpose, or its putting back)."""
    false_red = 0
    step_index = -1
    amber, since = "off", 0.0
    spent = {"on": 0.0, "blinking": 0.0}
    for at, message in lights:
        while step_index + 1 < len(steps) and steps[step_index + 1][0] <= at:
            step_index += 1
        if message == "red LED on" and not (step_index >= 0 and steps[step_index][1].red_ok):
            false_red += 1
        if message.startswith("amber LED "):
            mode = message.removeprefix("amber LED ")
            if amber in spent:
                spent[amber] += at - since
            amber, since = mode, at
    if amber in spent:
        spent[amber] += end - since
    return LightFigures(false_red, spent["on"], spent["blinking"])


def _brief(verdict: dict) -> str:
    """A verdict in one short phrase: index, kind, move and events."""
    text = f"#{verdict.get('index', '?')} {verdict.get('verdict')}"
    if verdict.get("move"):
        text += f" {verdict['move']!r}"
    if verdict.get("events"):
        text += f" ({', '.join(verdict['events'])})"
    if verdict.get("reason"):
        text += f": {verdict['reason']}"
    return text


class CachedFrames:
    """Vision's renderer frame source, asked for a new picture only when the scene changed.

    Rendering is the expensive part of the simulation (tens of milliseconds a frame); a still
    scene reuses its two noise variants, which is what a still camera's frames look like.
    """

    def __init__(self, source: Any, world: SimWorld) -> None:
        self.source = source
        self.world = world
        self._cache: dict[tuple[int, int], np.ndarray] = {}
        self.renders = 0

    def read(self) -> np.ndarray | None:
        key = self.world.scene_key()
        if key is None:
            return self.source.read()
        frame = self._cache.get(key)
        if frame is None:
            if any(k[0] != key[0] for k in self._cache):
                self._cache.clear()
            frame = self.source.read()
            self.renders += 1
            if frame is not None:
                self._cache[key] = frame
        return frame

    def frame_number(self) -> int:
        """The world's frame counter: a new picture every frame, even when a still scene is drawn
        identically (the camera watch's frozen-picture check counts on it, see camera_watch.py)."""
        return self.world.frame

    def close(self) -> None:
        self.source.close()


def resume_world(world: SimWorld, session: Any) -> None:
    """Put the simulated board where the journal's game left it, as a real board stays put.

    The board is the referee's last legal position (a board left illegal or half moved is put
    back, as players do after a restart); a game not started yet keeps the world's starting board.
    """
    expected = session.referee.expected()
    if expected is not None and expected != world.board:
        world.set_hand(None)
        world.set_board(expected)


class SnapshotSensor:
    """A stand-in for camera + gate + reader that reads the world directly (fast tests).

    A scene change is motion; the first tick after it the board is "read": a hand gives no
    snapshot, anything else the perfect camera's view. Like the real motion gate, it does not
    see a marble dropping through its hole (`SimWorld.motion`): only `read_next` reads again.
    """

    HAND = "a hand or an object is over the board"

    def __init__(self, world: SimWorld) -> None:
        self.world = world
        self._seen: int | None = None
        self._read = False

    def sense(self) -> Any:

        w = self.world
        if not w.camera_plugged:
            return Sight(frame=False)
        if w.motion != self._seen:
            self._seen = w.motion
            self._read = False
            return Sight(frame=True, moving=True)
        if self._read:
            return Sight(frame=True)
        self._read = True
        if w.hand is not None:
            return Sight(frame=True, new_reading=True, snapshot=None, problem=self.HAND)
        snap = w.visible()
        snap = camera_view(snap)
        return Sight(frame=True, new_reading=True, snapshot=snap)

    def read_next(self) -> None:
        self._read = False


class WorldSwitches:
    """Slide switches read straight from the world (fast tests; the demo uses the real link)."""

    def __init__(self, world: SimWorld) -> None:
        self.world = world
        self.plugged = True
        self.count = 0

    def latest(self) -> Any:

        board = self.world.board
        self.count += 1
        return SlideState(
            positions=switch_positions(board),
            faults=(),
            link_ok=self.plugged,
            seq=self.count % 256,
            received_at=time.monotonic(),
            uptime_ms=0,
            reason="heartbeat",
            count=self.count,
        )

    def healthy(self) -> bool:
        return self.plugged


# --------------------------------------------------------------------------- the player
@dataclass
class Step:
    """One thing the player does, then how long (simulated seconds) the world stays like that.

    `intended` is the verdict the shadow referee gave for the board this step leaves settled
    (None: the step should produce no verdict). `command` is a control command the player types
    (`reveal`), `button` a button gesture ('press' or 'hold').
    """

    label: str
    hold: float
    apply: Callable[[SimWorld], None] | None = None
    intended: dict | None = None
    command: tuple[str, dict] | None = None
    button: str | None = None
    #: The referee may rightly show red during this step (an illegal change made on purpose, and
    #: its putting back); red anywhere else is a false alarm (`bench/faithful.py` counts them).
    red_ok: bool = False
    #: The hand left the board part-way through a move (a mid-move pause).
    mid_move: bool = False
    #: The command is a mistake the referee must refuse (with a sentence): `SimDriver.refusals` keeps it.
    refused: bool = False


def _bumping(bump: tuple[float, float, float]) -> Callable[[SimWorld], None]:
    """A step's action that bumps the camera by `bump` (bound now: steps may be applied later)."""
    return lambda world: world.set_bump(bump)


def _lamp_on(spots: tuple[tuple[float, float, float], ...]) -> Callable[[SimWorld], None]:
    """A step's action that lights the lamp's reflections `spots` (bound now, as `_bumping`)."""
    return lambda world: world.set_lamp(spots)


def _new_board(board: Snapshot) -> Callable[[SimWorld], None]:
    """A step's action: the hand leaves and the players lay out `board`, a new game's start."""

    def apply(world: SimWorld) -> None:
        world.set_hand(None)
        world.set_board(board)

    return apply


def _can_be_on_rack(engine: Any, state: Any, tile: str) -> bool:
    """Whether `tile` can still be in its pile or on its rack (not placed, not captured)."""
    try:
        engine.check_rack(state, tile)
    except ActionNotAllowed:
        return False
    return True


def _hand_near(cells: list[tuple[int, int]]) -> tuple[float, float]:
    if not cells:
        return (2.0, 2.0)
    r = sum(c[0] for c in cells) / len(cells)
    c = sum(c[1] for c in cells) / len(cells)
    return (r, c)


class SimPlayer:
    """Plays one whole game in the world, including the mistakes and troubles the referee must survive."""

    def __init__(
        self,
        world: SimWorld,
        truth_setup: GameSetup,
        referee_setup: GameSetup,
        seed: int = 0,
        settle_time: float = 0.3,
        max_moves: int = 400,
        troubles: bool | frozenset[str] = True,
        switch_unplug: bool = True,
        agree_after: int | None = None,
        mid_move: float = 0.0,
        patience: float = 1.5,
        lamp: bool = False,
    ) -> None:
        self.world = world
        #: At the eighth move a lamp's reflection covers a place the move changes, for `LAMP_LOOK`
        #: seconds (the camera is unsure there: the rules may tell what the move was).
        self.lamp = lamp
        self.engine = engine_for(truth_setup)
        self.truth_setup = truth_setup
        self.shadow = Referee(engine_for(referee_setup))
        self.rng = random.Random(seed)
        #: The physics' own dice (how long each marble takes to drop), apart from the player's
        #: choices so that a seed plays the same moves whatever the physics.
        self.physics = random.Random(f"marble falls {seed}")
        #: Mid-move pauses have dice of their own too: a seed plays the same moves with or without them.
        self.pauses = random.Random(f"mid-move pauses {seed}")
        #: The share of moves made by hand in two parts, the hand off the board in between.
        self.mid_move = mid_move
        #: How long the player leaves each board before the next step: enough for the referee to see it.
        self.still = max(0.6, settle_time + 0.3)
        #: How long the player leaves an illegal change before putting it back: longer than the
        #: referee's patience, so the referee must call it.
        self.illegal_hold = max(self.still, patience + 0.5)
        self.blink = 0.15
        self.max_moves = max_moves
        self.troubles = troubles
        self.switch_unplug = switch_unplug
        self.agree_after = agree_after
        self.index = 0
        self.intended: list[dict] = []
        self.state: Any = None
        self.shown: Snapshot | None = None  # the last settled board shown to the shadow
        self.current: Snapshot = world.board  # the board as the player left it
        self.moves = 0
        self.pending_shown = False
        #: The seats the referee's computer plays: the player makes their moves as the page shows
        #: them (`shown_move`), the first sometimes wrongly (another legal move, then put back).
        self.computer_seats: frozenset[int] = frozenset()
        self.shown_move: Callable[[], str | None] = lambda: None
        self.computer_mistakes = 0.3
        #: Each computer colour's face-down pile (Blockers!), shuffled once: a person draws its tiles
        #: from it and taps them on the page.
        self.piles: dict[str, list[str]] = {}

    # --- the shadow referee: what a perfect observer says about each settled board -------------
    def _settle(self, board: Snapshot) -> dict | None:
        self.current = board
        seen = self.world.visible(board)
        if self.shown is not None and seen == self.shown:
            return None
        self.shown = seen
        verdict = self.shadow.observe(seen, index=self.index)
        self.index += 1
        out = verdict.to_json()
        self.intended.append(out)
        return out

    def _act(self, name: str, move: str | None = None, tiles: str | None = None) -> dict:
        verdict: Verdict = self.shadow.act(name, index=self.index, move=move, tiles=tiles)
        self.index += 1
        out = verdict.to_json()
        self.intended.append(out)
        return out

    def resume_from(self, referee: Referee, index: int, last_seen: Snapshot | None) -> None:
        """Play on a game the referee has judged so far (after a restart): the shadow referee is a
        copy of it, play goes on from its last legal position, and `last_seen` is the board it
        judged last (a board that differs from the world's is judged once more, as it should)."""
        import copy

        self.shadow = copy.deepcopy(referee)
        self.state = referee.state
        self.index = index
        self.shown = last_seen

    # --- steps ---------------------------------------------------------------------------------
    def _show(
        self,
        board: Snapshot,
        label: str,
        hand_at: list[tuple[int, int]] | None,
        hold: float | None = None,
        red_ok: bool = False,
        move: Any = None,
    ) -> Iterator[Step]:
        """Reach in (if the change is on the grid), change the board, take the hand away, wait.

        A move (`move` given) is made in two parts for a share `mid_move` of moves: the hand puts
        part of it down, leaves the board for a mid-move pause, and comes back for the rest."""
        needs_hand = hand_at is not None
        hold = self.still if hold is None else hold
        if needs_hand:
            side = self.rng.choice(["bottom", "left", "right", "top"])
            part = self._mid_move_board(board, move) if move is not None else None
            if part is not None:
                pause = self.pauses.uniform(*MID_MOVE_PAUSE)
                where = _hand_near(self._changed(self.current, part))
                yield Step(_("{step}: hand in", step=label), self.blink, lambda w: w.set_hand(where, side))
                yield Step(_("{step}: part of it done", step=label), self.blink, lambda w: w.set_board(part))
                intended = self._settle_part(part)
                yield Step(
                    _("{step}: hand off the board mid-move for {seconds} s", step=label, seconds=round(pause, 2)),
                    pause,
                    lambda w: w.set_hand(None),
                    intended=intended,
                    mid_move=True,
                )
            where = _hand_near(hand_at or [])
            yield Step(_("{step}: hand in", step=label), self.blink, lambda w: w.set_hand(where, side), red_ok=red_ok)
            linger = self.rng.random() < 0.25
            yield Step(
                _("{step}: pieces moved (the hand stays a while)", step=label)
                if linger
                else _("{step}: pieces moved", step=label),
                self.still + 0.2 if linger else self.blink,
                lambda w: w.set_board(board),
                red_ok=red_ok,
            )
            intended = self._settle(board)
            yield Step(
                _("{step}: hand out", step=label), hold, lambda w: w.set_hand(None), intended=intended, red_ok=red_ok
            )
        else:
            falls = self._falls(self.current, board)
            intended = self._settle(board)
            yield Step(label, hold, lambda w: w.set_board(board, falls), intended=intended, red_ok=red_ok)

    def _mid_move_board(self, after: Snapshot, move: Any) -> Snapshot | None:
        """A board the hand leaves part-way through `move` (None: this move is made in one go).

        Physically possible ones only: the game's own half-made boards (`PlaySpec.partial_boards`,
        a Colorpop group taken out token by token, a Blockers! captured tile lifted first), and, for
        a game whose pieces do not fall, the pieces put down one at a time or the doors turned
        after the balls moved (Flipop). The board must look like what it is to a referee: a half-made
        move (pending) or nothing legal (the referee must wait); one that is another legal move, or
        no change at all, is not a pause in the middle of this move."""
        if self.mid_move <= 0 or self.pauses.random() >= self.mid_move:
            return None
        before = self.current
        candidates = list(self._partials(before, after, move))
        extra = before.lines != after.lines  # a line besides the grid changes too (Flipop's doors)
        if not registry.get(before.game).play.falls_to_bottom:
            changed = before.changed_cells(after)
            if len(changed) >= 2 or extra:
                for r, c in changed:
                    grid = [list(row) for row in before.cells]
                    grid[r][c] = after.cells[r][c]
                    candidates.append(before.with_cells(grid))
            if extra:  # the balls moved, the doors (the lines) not yet turned
                candidates.append(before.with_cells(after.cells))
        self.pauses.shuffle(candidates)
        for board in candidates:
            if board in (before, after):
                continue
            judged = self.shadow.engine.judge(self.shadow.state, self.world.visible(board))
            if judged.kind == "pending" or (judged.kind == "illegal" and not judged.doubtful):
                return board
        return None

    def _settle_part(self, board: Snapshot) -> dict | None:
        """The verdict a half-made move's board deserves: pending at once, or none (nothing legal yet:
        the referee waits for the hand to finish)."""
        judged = self.shadow.engine.judge(self.shadow.state, self.world.visible(board))
        if judged.kind == "pending":
            return self._settle(board)
        self.current = board
        return None

    def _falls(self, before: Snapshot, after: Snapshot) -> dict[Cell, int]:
        """The marbles a slide move lets fall, each with the frames it takes to drop."""
        if switch_positions(before) == switch_positions(after):
            return {}
        low, high = MARBLE_FALL_FRAMES
        return {
            (r, c): self.physics.randint(low, high)
            for r, c in before.changed_cells(after)
            if before.cells[r][c] != EMPTY and after.cells[r][c] == EMPTY
        }

    def _changed(self, before: Snapshot, after: Snapshot) -> list[tuple[int, int]]:
        return before.changed_cells(after)

    def _hand_for(self, before: Snapshot, after: Snapshot) -> list[tuple[int, int]] | None:
        if switch_positions(before) != switch_positions(after):
            return None  # Stay Alive slides are pushed from the edge of the board: no hand over it
        cells = self._changed(before, after)
        return cells or None

    def steps(self) -> Iterator[Step]:
        """The whole game, step by step."""
        world = self.world
        start = world.board
        self.current = start
        resumed = self.state is not None
        label = _("the board as the journal left it") if resumed else _("the starting board")
        yield Step(label, self.still, None, intended=self._settle(start))
        if not resumed:
            self.state = self.engine.start(start)
        trouble_at = {2: "illegal", 3: "pending", 4: "glare", 5: "bump", 6: "camera", 7: "switches", 8: "lamp"}
        while not self.engine.is_over(self.state) and self.moves < self.max_moves:
            computers_turn = self.engine.to_move(self.state) in self.computer_seats
            # a person holds the button on a person's turn: on the computer's, it may be choosing already
            if self.agree_after is not None and self.moves >= self.agree_after and not computers_turn:
                yield Step(_("both players agree to end the game: button held"), self.still, button="hold")
                self._act("end-by-agreement")
                return
            moves = list(self.engine.legal_moves(self.state))
            if not moves:
                break
            if computers_turn:
                yield from self._computer_move()
                continue
            trouble = trouble_at.get(self.moves) if self.troubles else None
            if trouble is not None and isinstance(self.troubles, frozenset) and trouble not in self.troubles:
                trouble = None  # only the troubles asked for
            if trouble == "lamp" and not self.lamp:
                trouble = None
            pending_wanted = self.troubles is True or (
                isinstance(self.troubles, frozenset) and "pending" in self.troubles
            )
            if pending_wanted and trouble is None and self.moves > 3 and not self.pending_shown:
                trouble = "pending"  # not every position offers a half-done move: keep trying
            before = self.current  # the player's own idea: steps may be generated ahead of the world
            move = self.rng.choice(moves)
            after_state, _events = self.engine.apply(self.state, move)
            after = self.engine.expected(after_state)
            if trouble == "illegal":
                yield from self._illegal(before)
            elif trouble == "pending":
                partial = self._pending(before, moves)
                if partial is not None:
                    self.pending_shown = True
                    move, partial_board = partial
                    after_state, _events = self.engine.apply(self.state, move)
                    after = self.engine.expected(after_state)
                    yield from self._show(partial_board, _("part of a move"), self._hand_for(before, partial_board))
            elif trouble == "glare":
                yield Step(_("glare on the board"), self.still, lambda w: w.set_glare(True))
            elif trouble == "bump":
                bump = (self.rng.uniform(-12, 12), self.rng.uniform(-8, 8), 1.0)
                yield Step(_("the camera is bumped"), self.still, _bumping(bump))
            elif trouble == "camera":
                yield Step(_("camera unplugged"), 3.0, lambda w: w.set_camera(False))
                yield Step(_("camera plugged back"), self.still, lambda w: w.set_camera(True))
            elif trouble == "switches" and world.pico is not None and self.switch_unplug:
                yield Step(_("slide switch board unplugged"), 0.5, lambda w: w.pico.unplug())
                yield Step(_("slide switch board plugged back"), self.still, lambda w: w.pico.plug())
            elif trouble == "lamp":
                spots = self._lamp(self.current, after)
                yield Step(_("a lamp's reflection on the board"), self.still, _lamp_on(spots))
            seat = self.engine.to_move(self.state)
            assert seat is not None  # the game is not over: it has legal moves
            mover = self.engine.seat_name(seat)
            label = _(
                "{player} moves: {move}",
                player=mover,
                move=self.engine.move_words(self.engine.describe(self.state, move)),
            )
            # under the lamp the players look at the board a while before the lamp is turned away
            hold = LAMP_LOOK if trouble == "lamp" else None
            yield from self._show(after, label, self._hand_for(self.current, after), hold=hold, move=move)
            if trouble == "glare":
                yield Step(_("glare gone"), self.still, lambda w: w.set_glare(False))
            if trouble == "lamp":
                yield Step(_("the lamp turned away"), self.still, lambda w: w.set_lamp(()))
            self.state = after_state
            self.moves += 1

    def _computer_move(self) -> Iterator[Step]:
        """A computer seat's turn: wait until the referee shows its move, then make exactly that move
        on the board; some of the time another legal move first, which the referee must refuse
        ("that is not the computer's move"), put back before the right one."""
        yield from self._draw_for_computer()
        shown = self.shown_move()
        if shown is None:
            yield Step(_("waiting for the computer's move"), 0.1, None)
            return
        self._act(COMPUTER_MOVE, shown)
        move = self.engine.parse_move(self.state, shown)
        before = self.current
        after_state, _events = self.engine.apply(self.state, move)
        after = self.engine.expected(after_state)
        if self.rng.random() < self.computer_mistakes:
            others = [m for m in self.engine.legal_moves(self.state) if self.engine.describe(self.state, m) != shown]
            self.rng.shuffle(others)
            for other in others[:20]:
                wrong = self.engine.expected(self.engine.apply(self.state, other)[0])
                if self.world.visible(wrong) == self.world.visible(after):
                    continue
                if self.shadow.engine.judge(self.shadow.state, self.world.visible(wrong)).kind != "legal":
                    continue
                label = _("another move than the computer's, by mistake")
                yield from self._show(wrong, label, self._hand_for(before, wrong), self.illegal_hold, red_ok=True)
                yield from self._show(before, _("the board put back"), self._hand_for(wrong, before), red_ok=True)
                break
        label = _("the computer's move made for it: {move}", move=shown)
        yield from self._show(after, label, self._hand_for(self.current, after), move=move)
        self.state = after_state
        self.moves += 1

    def _draw_for_computer(self) -> Iterator[Step]:
        """A computer seat's rack short of tiles (Blockers!: at the start, and after each of its
        placements): a person draws them from its pile and taps them on the page; some of the time
        a wrong tile first (one still in the pile), then the rack tapped again as drawn."""
        engine, state = self.shadow.engine, self.shadow.state
        seat = engine.to_move(state)
        assert seat is not None  # a computer seat's turn: the game is not over
        for colour, count in rack_missing(engine, state, seat, self.shadow.racks).items():
            held = list(engine.rack_held(state, colour, self.shadow.racks.get(colour, ()))[0])
            pile = self.piles.get(colour)
            if pile is None:
                pile = self.piles[colour] = self.rng.sample(engine.rack_glyphs, len(engine.rack_glyphs))
            drawn = [g for g in pile if g not in held and _can_be_on_rack(engine, state, colour + g)][:count]
            for glyph in drawn:
                pile.remove(glyph)
            played = [g for g in engine.rack_glyphs if not _can_be_on_rack(engine, state, colour + g)]
            if drawn and played and self.rng.random() < self.computer_mistakes:
                # a tile already played tapped by mistake: the referee refuses the rack, saying why
                wrong = " ".join(colour + g for g in [*held, *drawn[:-1], self.rng.choice(played)])
                label = _("tiles drawn for the computer, one tapped wrongly: {tiles}", tiles=wrong)
                yield Step(label, self.blink, command=("rack", {"tiles": wrong}), refused=True)
            tiles = " ".join(colour + g for g in [*held, *drawn])
            self._act(COMPUTER_RACK, tiles=tiles)
            label = _("tiles drawn for the computer and tapped on the page: {tiles}", tiles=tiles)
            yield Step(label, self.blink, command=("rack", {"tiles": tiles}))

    def _lamp(self, before: Snapshot, after: Snapshot) -> tuple[tuple[float, float, float], ...]:
        """A lamp's reflection over one of the places the coming move changes (a small clipped core)."""
        changed = before.changed_cells(after) or [(before.rows // 2, before.cols // 2)]
        r, c = self.pauses.choice(changed)
        return (
            (r + self.pauses.uniform(-0.2, 0.2), c + self.pauses.uniform(-0.2, 0.2), self.pauses.uniform(0.3, 0.5)),
        )

    def _illegal(self, before: Snapshot) -> Iterator[Step]:
        """Two moves at once (never legal as one move), then the board put back."""
        for _attempt in range(20):
            first = self.rng.choice(list(self.engine.legal_moves(self.state)))
            mid, _events = self.engine.apply(self.state, first)
            if self.engine.is_over(mid):
                continue
            second_moves = list(self.engine.legal_moves(mid))
            if not second_moves:
                continue
            end, _events = self.engine.apply(mid, self.rng.choice(second_moves))
            board = self.engine.expected(end)
            judged = self.shadow.engine.judge(self.shadow.state, self.world.visible(board))
            if judged.kind == "illegal" and not judged.doubtful:
                label = _("an illegal change (two moves at once)")
                yield from self._show(board, label, self._hand_for(before, board), self.illegal_hold, red_ok=True)
                yield from self._show(before, "the board put back", self._hand_for(board, before), red_ok=True)
                return

    def _pending(self, before: Snapshot, moves: list) -> tuple[Any, Snapshot] | None:
        """A move left half done: a board the referee should call pending, and the move it belongs to."""
        shadow_state = self.shadow.state
        candidates = list(moves)
        self.rng.shuffle(candidates)
        for move in candidates[:60]:
            after_state, _events = self.engine.apply(self.state, move)
            after = self.engine.expected(after_state)
            for board in self._partials(before, after, move):
                judged = self.shadow.engine.judge(shadow_state, self.world.visible(board))
                if judged.kind == "pending":
                    return move, board
        return None

    def _partials(self, before: Snapshot, after: Snapshot, move: Any) -> Iterator[Snapshot]:
        """Boards seen while `move` is half made: as the game declares (`PlaySpec.partial_boards`),
        else each changed place lifted in turn (a Blockers! tile lifted before the capturing tile goes down)."""
        hook = registry.get(before.game).play.partial_boards
        if hook is not None:
            yield from hook(self.engine, self.state, before, after, move)
            return
        for r, c in before.changed_cells(after):
            grid = [list(row) for row in before.cells]
            grid[r][c] = EMPTY
            yield before.with_cells(grid)

    def finish(self) -> Iterator[Step]:
        """After the end: the secret colours are told to the referee (Colorpop)."""
        if not registry.get(self.truth_setup.game).secret_colours or self.truth_setup.secrets is None:
            return
        if self.shadow.state is None:
            return
        known = self.shadow.engine.setup.secrets or (None,) * len(self.truth_setup.secrets)
        for seat, colours in enumerate(self.truth_setup.secrets):
            if colours and known[seat] is None:
                self.shadow.reveal(seat, tuple(colours))
                self.intended.append({"verdict": "reveal", "seat": seat, "colours": list(colours)})
                yield Step(
                    _("{player} reveals {colours}", player=self.engine.seat_name(seat), colours=" ".join(colours)),
                    0.1,
                    command=("reveal", {"seat": seat, "colours": list(colours)}),
                )


class SimTable:
    """The simulated players of `referee run`: they play the refereed game on (after a restart,
    from where the journal left it) and, after a new game (the button, `referee new-game`), set up
    a new starting board and play that game too.

    `session_of` gives the loop's current game session (read from the player's thread: one
    attribute read). `steps()` yields the player's steps, or None while there is nothing to do
    (the game is over and no new one was started).
    """

    def __init__(
        self,
        world: SimWorld,
        setup: GameSetup,
        session_of: Callable[[], Any],
        seed: int = 0,
        settle_time: float = 0.3,
        troubles: bool = False,
    ) -> None:
        self.world = world
        self.setup = setup
        self.session_of = session_of
        self.rng = random.Random(seed)
        self.settle_time = settle_time
        self.troubles = troubles
        self.player: SimPlayer | None = None
        #: Games set up by the simulated players after a new game.
        self.new_boards = 0

    def _player(self, resume: bool) -> SimPlayer:
        player = SimPlayer(
            self.world,
            self.setup,
            self.setup,
            seed=self.rng.randrange(1 << 30),
            settle_time=self.settle_time,
            troubles=self.troubles,
        )
        session = self.session_of()
        if resume and session.referee.started:
            player.resume_from(session.referee, session.next_index, session.last_snapshot)
        self.player = player
        return player

    def steps(self) -> Iterator[Step | None]:
        game_id = self.session_of().game_id
        steps = self._player(resume=True).steps()
        while True:
            if self.session_of().game_id != game_id:  # a new game: the players set up a new board
                game_id = self.session_of().game_id
                board = starting_board(self.setup, self.rng)
                self.new_boards += 1
                yield Step(_("a new starting board"), 0.0, _new_board(board))
                steps = self._player(resume=False).steps()
            yield next(steps, None)


# --------------------------------------------------------------------------- starting boards
def starting_board(setup: GameSetup, rng: random.Random) -> Snapshot:
    """A valid starting board for the game, as players would set it up (`PlaySpec.setup_board`;
    the empty board for a game that declares nothing)."""
    engine = engine_for(setup)  # checks the setup first, whatever the game
    hook = registry.get(setup.game).play.setup_board
    return hook(engine, rng) if hook is not None else empty_snapshot(setup.game)


# --------------------------------------------------------------------------- the driver
class SimClock:
    """Simulated monotonic time, advanced by the driver."""

    def __init__(self, start: float = 1000.0) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


class SimDriver:
    """Applies a player's steps and ticks the loop at `fps` simulated frames per second."""

    def __init__(
        self,
        world: SimWorld,
        clock: SimClock,
        tick: Callable[[], Any],
        *,
        fps: int = FPS,
        switches: Any = None,
        button: Any = None,
        submit: Callable[[str, dict], Any] | None = None,
        on_step: Callable[[Step], None] | None = None,
    ) -> None:
        self.world = world
        self.clock = clock
        self.tick = tick
        self.fps = fps
        self.switches = switches
        self.button = button
        self.submit = submit
        self.on_step = on_step
        self.ticks = 0
        #: The mistakes the referee refused (`Step.refused`), each with the error it said.
        self.refusals: list[tuple[Step, BaseException]] = []

    def run(self, steps: Iterator[Step], stop: Callable[[], bool] | None = None) -> None:
        for step in steps:
            self.do(step)
            if stop is not None and stop():
                return

    def do(self, step: Step) -> None:
        if self.on_step is not None:
            self.on_step(step)
        if step.apply is not None:
            step.apply(self.world)
        self._sync()
        if step.button == "press":
            self.button.simulate_press()
        elif step.button == "hold":
            self.button.simulate_hold()
        if step.command is not None and self.submit is not None:
            future = self.submit(step.command[0], step.command[1])
            self.run_frames(1)
            if step.refused:
                error = future.exception(timeout=5)
                if error is None:
                    raise AssertionError(f"the referee accepted a mistake: {step.label}")
                self.refusals.append((step, error))
            else:
                future.result(timeout=5)
        self.run_frames(max(1, round(step.hold * self.fps)))

    def run_frames(self, n: int) -> None:
        for _frame in range(n):
            self.clock.advance(1.0 / self.fps)
            self.world.advance_frame()
            self.tick()
            self.ticks += 1

    def _sync(self, timeout: float = 5.0) -> None:
        """Wait (real time) until the switch messages have caught up with the world.

        A real switch board reports within a few tens of milliseconds, far inside the settle
        time; the simulated clock runs faster than real time, so it must wait for the link.
        """
        if self.switches is None or self.world.pico is None:
            return
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            state = self.switches.latest()
            if not self.world.pico.plugged:
                if not self.switches.healthy():
                    return
            elif (
                state is not None
                and state.link_ok
                and self.switches.healthy()
                and state.positions == switch_positions(self.world.board)
            ):
                return
            time.sleep(0.005)


# --------------------------------------------------------------------------- fast stand-ins
class RecordingFeedback:
    """Lights and buzzer that only remember the calls (fast tests, the bench).

    `die_at`: raise `Killed` once that many calls were made, to simulate a power cut between the
    journal's commit and the lights.
    """

    def __init__(self, die_at: int | None = None) -> None:
        self.calls: list[tuple[str, tuple]] = []
        self.die_at = die_at

    def _record(self, name: str, *args: Any) -> None:
        self.calls.append((name, args))
        if self.die_at is not None and len(self.calls) >= self.die_at:
            raise Killed(f"power cut at light call {len(self.calls)} ({name})")

    def turn(self, seat: int | None) -> None:
        self._record("turn", seat)

    def legal(self) -> None:
        self._record("legal")

    def illegal(self) -> None:
        self._record("illegal")

    def board_ok(self) -> None:
        self._record("board_ok")

    def pending(self) -> None:
        self._record("pending")

    def unreadable(self) -> None:
        self._record("unreadable")

    def clear_pending(self) -> None:
        self._record("clear_pending")

    def winner(self, seats: list[int]) -> None:
        self._record("winner", tuple(seats))

    def fault(self, message: str) -> None:
        self._record("fault", message)

    def fault_cleared(self) -> None:
        self._record("fault_cleared")

    def close(self) -> None:
        self._record("close")


class Killed(BaseException):
    """A simulated power cut: not an Exception, so nothing on the way catches it."""


class StubRig:
    """A whole referee on stand-in devices (`SnapshotSensor`, `WorldSwitches`, `RecordingFeedback`).

    Fast (no rendering) and deterministic: the loop logic, journal, recovery and control are
    tested on it. `restart()` builds a fresh loop from the journal on disk, as after a power cut.
    """

    def __init__(
        self,
        game_keys: dict[str, Any],
        journal_path: Any,
        *,
        seed: int = 0,
        settle_time: float = 0.0,
        truth_keys: dict[str, Any] | None = None,
        troubles: bool = True,
        max_moves: int = 400,
    ) -> None:

        self.keys = game_keys
        self.setup = setup_from_mapping(game_keys, "test")
        truth_setup = setup_from_mapping(truth_keys or game_keys, "test")
        self.journal_path = journal_path
        self.settle_time = settle_time
        self.clock = SimClock()
        board = starting_board(truth_setup, random.Random(seed))
        self.world = SimWorld(truth_setup, board)
        self.switches = WorldSwitches(self.world) if registry.get(self.setup.game).uses_switches else None
        self.player = SimPlayer(
            self.world,
            truth_setup,
            self.setup,
            seed=seed,
            settle_time=settle_time,
            troubles=troubles,
            max_moves=max_moves,
        )
        self.incarnations: list[Any] = []
        self.loop: Any = None
        self.restart()
        self.driver = SimDriver(self.world, self.clock, lambda: self.loop.tick(), submit=self._submit)

    def restart(self, die_at: int | None = None) -> Any:
        """A new loop from the journal (the old loop object is dropped without any cleanup)."""

        opened = open_journal(self.journal_path, self.keys, self.setup)
        if opened.moved_aside is not None:
            opened.journal.notices.append(opened.moved_aside)
        session = opened.session
        self.opened = opened
        self.feedback = RecordingFeedback()
        self.loop = RefereeLoop(
            session,
            SnapshotSensor(self.world),
            self.feedback,
            switches=self.switches,
            settings=Settings(
                settle_time=self.settle_time,
                frame_timeout=2.0,
                physics_window=registry.get(self.setup.game).physics_window,
            ),
            clock=self.clock,
        )
        if die_at is not None:  # counted from the first light call after the restart's own
            self.feedback.die_at = len(self.feedback.calls) + die_at
        self.incarnations.append(self.loop)
        self.player.computer_seats = frozenset(session.computer)
        self.player.shown_move = self.shown_move
        return self.loop

    def shown_move(self) -> str | None:
        """The computer's move the referee shows now (the page's words), None when none is awaited."""
        awaited = self.loop.session.referee.awaited
        return awaited.move if awaited is not None else None

    def play(self, moves: int, steps: Iterator[Step] | None = None) -> Iterator[Step]:
        """Play on until the player has made `moves` moves; returns the steps to go on with."""
        steps = steps or self.player.steps()
        while self.player.moves < moves:
            self.driver.do(next(steps))
        return steps

    def _submit(self, name: str, args: dict) -> Any:
        return self.loop.submit(name, **args)


# --------------------------------------------------------------------------- referee run, simulated
def play_in_background(
    service: Any, stop: threading.Event, seed: int, move_every: float, paused: threading.Event | None = None
) -> threading.Thread:
    """`referee run` with simulated devices: simulated players move pieces in real time.

    They play on from the journal's position after a restart, and set up a new starting board
    after a new game (`SimTable`); while `paused` is set (the live page calibrating) they wait.
    """
    world = service.world
    assert world is not None
    setup = service.config.setup
    table = SimTable(world, setup, lambda: service.loop.session, seed=seed, settle_time=service.config.settle_time)

    def play() -> None:
        finished = False
        for step in table.steps():
            if stop.is_set():
                return
            if step is None:  # the game is over: wait for a new one
                if not finished:
                    service.log.info("[%s] the simulated players have finished their game", setup.game)
                    finished = True
                stop.wait(0.2)
                continue
            finished = False
            while paused is not None and paused.is_set():  # the live page is calibrating: hands off the board
                if stop.wait(0.2):
                    return
            if step.apply is not None:
                step.apply(world)
            # Real time is shared with rendering and reading on a small machine: hold every
            # state well beyond the settle time so no settled board is missed.
            pause = 2 * step.hold + (move_every if step.intended is not None else 0.0)
            if stop.wait(pause):
                return

    thread = threading.Thread(target=play, name="simulated-player", daemon=True)
    thread.start()
    return thread
