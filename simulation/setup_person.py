"""A simulated person setting up a copy for calibration, and a copy that does not look like the
standard edition.

`SetupPerson.follow(step)` sets the simulated board to what a guided-calibration step asks for
(`calibration/guided.py`), as a person reading the sentence and the drawing would: the empty
board, one piece of each colour on the top row (Stay Alive: with the slides set so that those
points are closed), the glyph arrangement, a full setup, the start position. `reach_in()` puts a
hand over the board.

`OtherLooks` makes the simulated camera show a copy printed in other colours: every colour is
turned about the grey axis by `HUE_TURN` degrees (white paper, black markers, greys stay), so the
standard edition's references misread it and only a calibration reads it right.
`simulated_camera` gives the frame source and `LiveCamera` a stand-in for the service's camera
sensor (`latest_frame`) as the live page reads it.
"""

from __future__ import annotations

import random
import threading
from typing import Any

import cv2
import numpy as np

from controller.games import registry
from controller.record import setup_from_mapping
from controller.snapshot import EMPTY, Snapshot
from controller.vision.sources import validate_camera
from simulation.camera import RendererSource
from simulation.drawing import stay_alive_points
from simulation.render import random_snapshot
from simulation.world import CachedFrames, SimWorld, starting_board

#: Degrees every colour of the other copy is turned about the grey axis: the standard references
#: leave about half the places unsure (at 40 degrees Blockers!' pieces picture starts to be read
#: surely as other colours, and an occasional fresh position is misread).
HUE_TURN = 30.0
#: Flipop's pieces are black and white, which no turn changes: its floor is turned further
#: (its calibration labels from the known start position, so any turn is learned).
HUE_TURN_FOR = {"flipop": 150.0}
#: Glyphs a tile may carry (Blockers!).
GLYPHS = "123456789ABCDEFGHIabcdefghi*"


def hue_turn(degrees: float) -> np.ndarray:
    """The 3x3 colour matrix turning every colour about the grey axis (greys are kept)."""
    a = np.radians(degrees)
    k = np.ones(3) / np.sqrt(3)
    cross = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    return (np.eye(3) + np.sin(a) * cross + (1 - np.cos(a)) * cross @ cross).astype(np.float32)


def in_other_colours(frame: np.ndarray, matrix: np.ndarray) -> np.ndarray:
    """`frame` with every colour turned by `matrix` (`hue_turn`): the picture of a copy printed in
    other colours."""
    return np.clip(cv2.transform(frame.astype(np.float32), matrix), 0, 255).astype(np.uint8)


class OtherLooks:
    """A frame source showing its pictures in other colours (see the module's docstring)."""

    def __init__(self, source: Any, degrees: float = HUE_TURN) -> None:
        self.source = source
        self.matrix = hue_turn(degrees)

    def read(self) -> np.ndarray | None:
        frame = self.source.read()
        if frame is None:
            return None
        return in_other_colours(frame, self.matrix)

    def close(self) -> None:
        self.source.close()


def setup_world(game: str, seed: int = 0) -> SimWorld:
    """A simulated table for `game` with its standard profile, set up for a new game."""
    keys: dict[str, Any] = {**registry.get(game).demo, "game": game}
    setup = setup_from_mapping(keys, "setup world")
    return SimWorld(setup, starting_board(setup, random.Random(seed)), noise_frames=2)


def simulated_camera(
    world: SimWorld,
    *,
    other_looks: bool = True,
    size: tuple[int, int] = (640, 480),
    seed: int = 3,
    preset: str = "clean",
) -> CachedFrames:
    """The simulated camera over `world` (a still scene is rendered once per noise pattern); with
    `other_looks` the copy is not the standard edition (`OtherLooks`)."""
    source: Any = RendererSource(world, size[0], size[1], seed, preset)
    if other_looks:
        source = OtherLooks(source, HUE_TURN_FOR.get(world.profile.game, HUE_TURN))
    return CachedFrames(source, world)


class LiveCamera:
    """The service's camera sensor as the live page sees it: `latest_frame` is the newest picture
    (each look is a new frame of the simulated camera, as a running referee's loop would have)."""

    def __init__(self, world: SimWorld, camera: CachedFrames) -> None:
        self.world = world
        self.camera = camera
        self.latest_reading = None
        self.reader = None
        self._lock = threading.Lock()

    @property
    def latest_frame(self) -> np.ndarray | None:
        with self._lock:  # the page's picture and a capture may ask together
            self.world.advance_frame()
            return self.camera.read()


class SetupPerson:
    """Sets the simulated board as each calibration step asks (see the module's docstring)."""

    def __init__(self, world: SimWorld, seed: int = 0) -> None:
        self.world = world
        self.profile = world.profile
        self.rng = random.Random(seed)
        self.seed = seed

    def follow(self, step: Any) -> Snapshot:
        """Do what `step` (a `calibration.guided.Step`) asks; returns the board set."""
        board = getattr(self, f"_{step.key.replace('-', '_')}")(step)
        self.world.set_hand(None)
        self.world.set_board(board)
        return board

    def reach_in(self) -> None:
        """A hand over the middle of the board, held still."""
        self.world.set_hand(((self.profile.rows - 1) / 2, (self.profile.cols - 1) / 2))

    def fresh_position(self, seed: int) -> Snapshot:
        """A position as play could leave it, set on the board (to read with the learned profile)."""
        board = random_snapshot(self.profile.game, self.profile, seed)
        played = registry.get(self.profile.game).play.played_lines  # lines as play leaves them (doors)
        for key, tokens in (played(self.profile, seed) if played is not None else {}).items():
            if board.line(key) is None:
                board = board.with_line(key, tokens)
        self.world.set_hand(None)
        self.world.set_board(board)
        return board

    # --- each kind of picture ---------------------------------------------------------------------
    def _with_slides(self, cells: list[list[str]]) -> Snapshot:
        board, spec = self.world.board, registry.get(self.profile.game)
        slides = {key: tokens for key, tokens in board.lines if getattr(spec.extra_line(key), "from_switches", False)}
        return Snapshot(self.profile.game, tuple(tuple(r) for r in cells), slides)

    def _empty(self, step: Any) -> Snapshot:
        return self._with_slides([[EMPTY] * self.profile.cols for _ in range(self.profile.rows)])

    def _pieces(self, step: Any) -> Snapshot:
        cells = [[self._tile(c) for c in row] for row in step.drawing.cells]
        board = self._with_slides(cells)
        orange_line = board.line("orange")
        if orange_line is None:
            return board
        wanted = sorted(c for c, cell in enumerate(cells[0]) if cell != EMPTY)
        for orange in "ABC":  # the top row's slide first, then each column's slide, until those points close
            trial = board.with_line("orange", (orange,) + orange_line[1:])
            for c in wanted:
                for white in "ABC":
                    if (0, c) not in stay_alive_points(trial, self.profile)[0]:
                        break
                    white_line = trial.line("white") or ()
                    trial = trial.with_line("white", white_line[:c] + (white,) + white_line[c + 1 :])
            if not any((0, c) in stay_alive_points(trial, self.profile)[0] for c in wanted):
                return trial
        return board

    def _bottom_row(self, step: Any) -> Snapshot:
        return self._with_slides([list(row) for row in step.drawing.cells])

    def _glyphs(self, step: Any) -> Snapshot:
        return self._with_slides([list(row) for row in step.drawing.cells])

    def _setup(self, step: Any) -> Snapshot:
        return starting_board(self.world.setup, self.rng)

    def _start(self, step: Any) -> Snapshot:
        return step.drawing

    def _tile(self, cell: str) -> str:
        """A drawn piece whose detail the drawing leaves open ('R?': any glyph) as one real piece."""
        if cell.endswith("?"):
            return cell[:-1] + self.rng.choice(GLYPHS)
        return cell


class TableHands:
    """The simulated rig's people for the live page's calibration (`WebApp.table_hands`, given by
    `referee run` with the shipped config): when the page starts calibrating, the simulated players
    stop (`paused`) and the game's board is put aside; for each step a simulated person sets the board
    the step asks for (`SetupPerson`); when the calibration is saved or stopped the game's board is put
    back as it was and the players go on."""

    def __init__(self, world: SimWorld, seed: int = 0) -> None:
        self.world = world
        self.person = SetupPerson(world, seed=seed)
        self.paused = threading.Event()
        self._saved: Snapshot | None = None

    def pause(self) -> None:
        self.paused.set()
        if self._saved is None:
            self._saved = self.world.board

    def calibration_step(self, step: Any) -> None:
        self.person.follow(step)

    def resume(self) -> None:
        if self._saved is not None:
            self.world.set_hand(None)
            self.world.set_board(self._saved)
            self._saved = None
        self.paused.clear()


class SimulatedSetupCamera:
    """The config's simulated camera (`source: renderer`) as a frame source for `referee setup
    calibrate`: every read is a new frame of the simulated world."""

    def __init__(self, world: SimWorld, camera: CachedFrames) -> None:
        self.live = LiveCamera(world, camera)

    def read(self) -> np.ndarray | None:
        return self.live.latest_frame

    def close(self) -> None:
        self.live.camera.close()


def simulated_setup(config: Any, *, other_looks: bool = False) -> tuple[SimulatedSetupCamera, SetupPerson]:
    """The simulated table of `config` (its game and profile, its camera's size, seed and preset) and
    the person who sets it up: what `referee setup calibrate` uses with the renderer camera."""

    camera = validate_camera(config.camera)
    world = SimWorld(config.setup, starting_board(config.setup, random.Random(camera["seed"])), noise_frames=2)
    frames = simulated_camera(
        world,
        other_looks=other_looks,
        size=(camera["width"], camera["height"]),
        seed=camera["seed"],
        preset=camera["preset"],
    )
    return SimulatedSetupCamera(world, frames), SetupPerson(world, seed=camera["seed"])
