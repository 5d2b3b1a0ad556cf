"""Camera faults: a source that raises, odd frames (0x0, grey, wrong type or size) and a frozen
picture are faults or an unreadable board, never a crash and never a verdict."""

from __future__ import annotations

import random

import numpy as np
import pytest

from controller.errors import RefereeError
from controller.record import setup_from_mapping
from controller.service.camera_watch import CameraWatch
from controller.service.loop import CAMERA_FROZEN, CameraSensor, RefereeLoop, Settings
from controller.service.session import open_journal
from controller.vision.gating import MotionGate
from controller.vision.reader import BoardReader, as_bgr, frame_problem
from simulation.camera import RendererSource
from simulation.render import Scene, render_snapshot
from simulation.world import CachedFrames, RecordingFeedback, SimClock, SimWorld, starting_board

KEYS = {"game": "colorpop", "players": 3}
SETUP = setup_from_mapping(KEYS, "test")
BOARD = starting_board(SETUP, random.Random(0))
FPS = 30


@pytest.fixture(scope="module")
def pictures() -> list[np.ndarray]:
    """Two pictures of the same starting board with different sensor noise."""
    return [render_snapshot(BOARD, SETUP.profile, scene=Scene(frame=i)) for i in (1, 2)]


class FakeSource:
    """A frame source whose every read is `make(n)` (n counts reads from 1); `make` may raise."""

    def __init__(self, make) -> None:
        self.make = make
        self.reads = 0

    def read(self):
        self.reads += 1
        return self.make(self.reads)

    def close(self) -> None:
        pass


class Rig:
    def __init__(self, source, tmp_path) -> None:
        self.clock = SimClock()
        self.source = source
        session = open_journal(tmp_path / "j.sqlite", KEYS, SETUP).session
        self.camera = CameraWatch(source, self.clock)
        sensor = CameraSensor(self.camera, BoardReader(SETUP.profile), MotionGate(settle=2))
        self.feedback = RecordingFeedback()
        self.loop = RefereeLoop(
            session, sensor, self.feedback, settings=Settings(0.3, 2.0), clock=self.clock, camera=self.camera
        )

    def run(self, seconds: float) -> None:
        for _ in range(round(seconds * FPS)):
            self.clock.advance(1 / FPS)
            self.loop.tick()


def live(pictures, start: int = 0):
    """A live camera: each picture differs from the last (noise), here by one pixel at least."""

    def make(n: int) -> np.ndarray:
        frame = pictures[n % 2].copy()
        frame[5, 5, 0] = n % 251
        return frame

    return make


def test_a_live_camera_is_judged_and_fresh(pictures, tmp_path):
    rig = Rig(FakeSource(live(pictures)), tmp_path)
    rig.run(2)
    assert [v.verdict.value for v in rig.loop.verdicts] == ["setup-ok"]
    assert rig.loop.faults == [] and rig.loop.fresh


@pytest.mark.parametrize(
    "odd,words",
    [
        (lambda p: np.zeros((0, 0, 3), np.uint8), "empty picture"),
        (lambda p: p[..., 1].copy(), "grey"),
        (lambda p: p[..., :1].copy(), "grey"),
        (lambda p: p.astype(np.float32) / 255, "float32"),
        (lambda p: p[:360, :640].copy(), "size changed"),
        (lambda p: "not a picture", "str instead of a picture"),
    ],
)
@pytest.mark.slow
def test_odd_frames_are_a_fault_never_a_crash_nor_a_verdict(odd, words, pictures, tmp_path):
    good = live(pictures)
    # one good frame first (it fixes the picture size), then only odd ones
    rig = Rig(FakeSource(lambda n: good(n) if n == 1 else odd(pictures[n % 2])), tmp_path)
    rig.run(3)
    assert rig.loop.verdicts == []
    assert len(rig.loop.faults) == 1 and words in rig.loop.faults[0]
    assert ("fault", (rig.loop.faults[0],)) in rig.feedback.calls
    assert not rig.loop.fresh  # systemd's watchdog is no longer fed


@pytest.mark.slow
def test_a_grey_camera_never_gives_a_verdict_and_colour_is_judged_again(pictures, tmp_path):
    colour = live(pictures)
    grey = [True]
    rig = Rig(FakeSource(lambda n: colour(n)[..., 1].copy() if grey[0] else colour(n)), tmp_path)
    rig.run(4)
    assert rig.loop.verdicts == [] and "grey" in rig.loop.faults[0]
    grey[0] = False
    rig.run(2)
    assert [v.verdict.value for v in rig.loop.verdicts] == ["setup-ok"] and rig.loop.faults == []


def test_a_source_that_raises_is_a_fault_and_the_referee_goes_on(pictures, tmp_path):
    broken = [True]
    good = live(pictures)

    def make(n: int):
        if broken[0]:
            raise OSError("VIDIOC_DQBUF: No such device")
        return good(n)

    rig = Rig(FakeSource(make), tmp_path)
    rig.run(3)
    assert rig.loop.verdicts == []
    assert "the camera failed (OSError: VIDIOC_DQBUF: No such device)" in rig.loop.faults[0]
    broken[0] = False
    rig.run(2)
    assert rig.loop.faults == [] and [v.verdict.value for v in rig.loop.verdicts] == ["setup-ok"]


@pytest.mark.slow
def test_a_reader_that_raises_is_an_unreadable_board_not_a_crash(pictures, tmp_path):
    rig = Rig(FakeSource(live(pictures)), tmp_path)

    def boom(frame):
        raise ValueError("a bug in the reader")

    rig.loop.sensor.reader.read = boom
    rig.run(3)
    assert rig.loop.verdicts == []
    assert "ValueError: a bug in the reader" in (rig.loop.unreadable_said or "")
    assert ("unreadable", ()) in rig.feedback.calls


def test_a_sensor_failing_on_every_frame_is_a_fault(pictures, tmp_path):
    rig = Rig(FakeSource(live(pictures)), tmp_path)

    def boom(frame):
        raise RuntimeError("gate broken")

    rig.loop.sensor.gate.update = boom
    rig.run(3)
    assert rig.loop.verdicts == []
    assert "RuntimeError: gate broken" in rig.loop.faults[0] and not rig.loop.fresh


@pytest.mark.slow
def test_a_frozen_picture_is_a_fault_and_a_move_made_meanwhile_is_judged_when_it_is_live_again(pictures, tmp_path):
    moved = BOARD.with_cells([["."] * 10, *[list(row) for row in BOARD.cells[1:]]])
    moved_picture = render_snapshot(moved, SETUP.profile, scene=Scene(frame=3))
    state = {"frozen": None}
    good = live(pictures)

    def make(n: int):
        if state["frozen"] is not None:
            return state["frozen"].copy()  # a new buffer each time, bit-identical
        return good(n)

    rig = Rig(FakeSource(make), tmp_path)
    rig.run(2)
    assert [v.verdict.value for v in rig.loop.verdicts] == ["setup-ok"]
    state["frozen"] = good(1)
    rig.run(1.5)
    assert rig.loop.faults == [] and rig.loop.fresh
    rig.run(1)
    assert rig.loop.faults == [CAMERA_FROZEN] and not rig.loop.fresh
    assert ("fault", (CAMERA_FROZEN,)) in rig.feedback.calls
    rig.run(6)  # the same picture on and on: still the fault, no verdict
    assert rig.loop.faults == [CAMERA_FROZEN] and len(rig.loop.verdicts) == 1
    state["frozen"] = None  # pictures again, and they show a move made meanwhile
    rig.source.make = lambda n: _noisy(moved_picture, n)
    rig.run(2)
    assert rig.loop.faults == [] and rig.loop.fresh
    assert [v.verdict.value for v in rig.loop.verdicts] == ["setup-ok", "illegal"]  # a whole row removed


def _noisy(picture: np.ndarray, n: int) -> np.ndarray:
    frame = picture.copy()
    frame[7, 7, 2] = n % 253
    return frame


def test_the_simulated_camera_without_noise_is_not_frozen(tmp_path):
    world = SimWorld(SETUP, BOARD, noise_frames=1)
    source = CachedFrames(RendererSource(world, 640, 360, 0, "clean"), world)
    clock = SimClock()
    watch = CameraWatch(source, clock)
    frames = []
    for _ in range(5 * FPS):
        clock.advance(1 / FPS)
        world.advance_frame()
        frames.append(watch.read())
    assert all(f is frames[0] for f in frames)  # bit-identical: the very same cached picture
    assert watch.frozen_for(clock()) < 0.1
    # a simulated camera whose frames stop advancing is frozen
    for _ in range(3 * FPS):
        clock.advance(1 / FPS)
        watch.read()
    assert watch.frozen_for(clock()) > 2.9


def test_as_bgr_refuses_what_is_not_a_colour_picture(pictures):
    assert as_bgr(pictures[0]) is not None
    assert as_bgr(np.dstack([pictures[0], pictures[0][..., :1]])).shape[2] == 3
    for odd in (pictures[0][..., 0], np.zeros((0, 0, 3), np.uint8), pictures[0].astype(np.uint16), None):
        with pytest.raises(RefereeError):
            as_bgr(odd)
    assert frame_problem(pictures[0], (720, 1280)) is None
    assert "size changed" in frame_problem(pictures[0], (480, 640))
