"""The simulated camera: the renderer as a frame source."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from controller.errors import ConfigError


class RendererSource:
    """The simulated camera: draws `world.current_scene()` on every read."""

    def __init__(self, world, width: int, height: int, seed: int, preset: str) -> None:
        if world is None or not hasattr(world, "current_scene"):
            raise ConfigError("camera.source", "the renderer source needs a simulated world")
        self.world, self.size, self.seed, self.preset = world, (width, height), seed, preset
        self.frame = 0

    def read(self) -> np.ndarray | None:
        from controller.profile import default_profile
        from simulation.render import Scene, render_snapshot

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
