"""The devices a service is handed: where its pictures and slide positions come from.

Why: as gpiozero's devices never know whether their pins are real, the service never knows
whether its camera and switch board are: it is handed a `Devices` that opens them. `RealDevices`
opens what config.yaml names (a Pi camera, a USB camera, a video, a folder of pictures, the
switch board on its serial port). The simulated rig (`simulation.devices.SimulatedDevices`) opens
the renderer and a simulated switch board instead; the commands that want it (`referee demo`,
`referee run` with simulated devices) hand it over, and nothing here imports the simulation.
"""

from __future__ import annotations

from typing import Any, Protocol

from controller.errors import ConfigError
from controller.hardware.switches import SerialSwitches
from controller.language import _, literal
from controller.vision.sources import FrameSource, open_frame_source


class Devices(Protocol):
    """What the service asks of its devices (opened in this order; closing is the service's)."""

    #: The simulated world when there is one (the demo and the live page's tests look at it), else None.
    world: Any

    def open_switches(self, config: Any) -> SerialSwitches | None: ...

    def open_camera(self, config: Any, session: Any) -> FrameSource: ...


class RealDevices:
    """The devices config.yaml names, on real hardware (or recordings)."""

    #: No simulated world on real hardware (typed as the protocol has it, so the simulated devices,
    #: a subclass, may hold one).
    world: Any = None

    def open_switches(self, config: Any) -> SerialSwitches | None:
        if not config.uses_switches or config.switches.source == "none":
            return None
        if config.switches.source != "serial":
            raise ConfigError(
                "switches.source",
                _(
                    "{source} switches are simulated: `referee run` and `referee demo` provide them",
                    source=literal(repr(config.switches.source)),
                ),
            )
        return SerialSwitches.from_config(config.switches)

    def open_camera(self, config: Any, session: Any) -> FrameSource:
        return open_frame_source(config.camera, config.setup.profile.get("camera"))
