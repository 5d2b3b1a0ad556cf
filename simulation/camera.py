"""The simulated camera: the renderer as a frame source."""

from __future__ import annotations

import collections
from dataclasses import replace
from typing import Any

import numpy as np

from controller.errors import ConfigError
from controller.profile import default_profile
from simulation.render import Scene, render_snapshot


class RendererSource:
    """The simulated camera: draws `world.current_scene()` on every read."""

    def __init__(self, world, width: int, height: int, seed: int, preset: str) -> None:
        if world is None or not hasattr(world, "current_scene"):
            raise ConfigError("camera.source", "the renderer source needs a simulated world")
        self.world, self.size, self.seed, self.preset = world, (width, height), seed, preset
        self.frame = 0

    def read(self) -> np.ndarray | None:

        snapshot, scene = self.world.current_scene()
        if snapshot is None:
            return None
        profile = getattr(self.world, "profile", None) or default_profile(snapshot.game)
        self.frame += 1
        if scene is None:
            scene = Scene(frame=self.frame)
        elif scene.frame == 0:
            scene = replace(scene, frame=self.frame)
        return render_snapshot(snapshot, profile, seed=self.seed, preset=self.preset, scene=scene, size=self.size)

    def close(self) -> None:
        self.world = None


class DelayedFrames:
    """A camera's own latency: each picture reaches the referee `delay` frame times after it was taken.

    A real camera hands over a picture one to three frame times after its exposure (readout, the
    USB or CSI transfer, the driver's buffer), with no backlog beyond that when its buffer is kept
    to one picture (`controller.vision.sources`). The simulated world is drawn the moment it is
    read, so this wrapper keeps the last `delay` pictures and hands over the oldest: the picture of
    `delay` frames ago, taken in order, none dropped or repeated (a camera's delay is steady).
    `frame_number()` is that picture's own number, as a camera's frame counter would be.
    """

    def __init__(self, source: Any, delay: int) -> None:
        if delay < 0:
            raise ValueError("a camera cannot deliver pictures before it takes them")
        self.source = source
        self.delay = delay
        self._taken: collections.deque[tuple[Any, np.ndarray | None]] = collections.deque()
        self._number: Any = None

    def read(self) -> np.ndarray | None:
        number = self.source.frame_number() if callable(getattr(self.source, "frame_number", None)) else None
        self._taken.append((number, self.source.read()))
        if len(self._taken) <= self.delay:  # the first pictures are still on their way
            return None
        self._number, frame = self._taken.popleft()
        return frame

    def frame_number(self) -> Any:
        return self._number

    def close(self) -> None:
        self._taken.clear()
        self.source.close()

    def __getattr__(self, name: str) -> Any:  # the wrapped source's other attributes (renders, ...)
        return getattr(self.__dict__.get("source"), name)
