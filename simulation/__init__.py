"""The simulated rig: everything that stands in for the physical world and its devices.

As gpiozero's mock pins sit beside its real pin factories, the simulation sits beside the
referee at the lowest boundary (camera frames, serial bytes, pins) and production code (the
service, vision, hardware, rules) never imports it: the commands that want a simulated rig
(`referee demo`, `referee run` with simulated devices in config.yaml) hand the service its
simulated devices (`simulation.devices.SimulatedDevices`).

* `world`: the physical board and what is in front of the camera, a simulated player, the clock
  and driver, the fast stand-in rig of the tests (`StubRig`).
* `render`: draws what a camera would see (boards, hands, glare, bumps).
* `camera`: the renderer as a frame source.
* `pico`: the switch board's own MicroPython program run on a pseudo-terminal.
* `devices`: the simulated devices the service is handed.
* `random_play`: random legal play through the `Engine` interface (tests, rules benches, examples).
"""
