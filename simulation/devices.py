"""The simulated devices a service is handed (`controller.service.devices.Devices`).

The renderer draws the simulated world for the camera; the switch board is the Pico's own
program run on a pseudo-terminal (`simulation.pico`), read by the very `SerialSwitches` that
reads a real one. Devices config.yaml names as real (a serial switch board, a USB camera) are
opened as real ones, so a half-simulated rig works too.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from controller.hardware.switches import SerialSwitches
from controller.service.devices import RealDevices
from controller.vision.sources import FrameSource, validate_camera
from simulation.camera import DelayedFrames, RendererSource
from simulation.pico import SimulatedPico
from simulation.world import CachedFrames, SimWorld, resume_world


class SimulatedDevices(RealDevices):
    """The renderer and a simulated switch board, where config.yaml asks for them.

    `world_factory(pico)` makes the simulated world once the switch board exists (the world moves
    its slides); the world is put where the journal left the game before the first picture.
    """

    def __init__(self, world_factory: Callable[[SimulatedPico | None], SimWorld], camera_delay: int = 0) -> None:
        self.world_factory = world_factory
        #: Frame times the simulated camera's pictures arrive late (`simulation.camera.DelayedFrames`).
        self.camera_delay = camera_delay
        #: The SimWorld once the camera is open. Typed as the `Devices` protocol has it (Any):
        #: `RealDevices.world = None` leaves mypy no other type a subclass may give it.
        self.world: Any = None
        self.pico: SimulatedPico | None = None

    def open_switches(self, config: Any) -> SerialSwitches | None:
        if not config.uses_switches or config.switches.source != "simulated":
            return super().open_switches(config)
        self.pico = simulated_switch_board()
        return SerialSwitches.from_config(
            config.switches, port=self.pico.port, simulator=self.pico, owns_simulator=True
        )

    def open_camera(self, config: Any, session: Any) -> FrameSource:
        if config.camera.get("source") != "renderer":
            return super().open_camera(config, session)

        camera = validate_camera(config.camera)
        world = self.world = self.world_factory(self.pico)
        resume_world(world, session)  # the simulated board is where the journal left it
        renderer = RendererSource(world, camera["width"], camera["height"], camera["seed"], camera["preset"])
        frames = CachedFrames(renderer, world)
        return DelayedFrames(frames, self.camera_delay) if self.camera_delay else frames


def simulated_switch_board() -> SimulatedPico:
    """A simulated switch board, plugged in (its pseudo-terminal is `.port`)."""
    pico = SimulatedPico()
    pico.plug()
    return pico
