"""Stay Alive's 14 slide switches, as the service sees them.

Slides 0-6 are the orange slides of rows 0-6, slides 7-13 the white slides of columns 0-6; each
is at 'A', 'B' or 'C'. The positions come from a microcontroller over a serial link
(`firmware_bridge`): `SerialSwitches` reads a real Pico on the configured port
(`controller.service.devices.RealDevices`), or the same firmware run by the simulated rig behind
a pseudo-terminal (`simulation.devices`, which hands it over as `simulator` so a simulated
player can move slides; this module never imports the simulation).

The service polls `latest()`; `listener` (optional) hears each state whose positions, faults or
link health differ from the previous one, so nothing is reported that did not happen. A state's
`trouble` names what is wrong with the link (unplugged, silent, garbled, out of order, restarted)
in words for the players; duplicated and late messages never reach `latest()` at all.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, Protocol, runtime_checkable

from controller.hardware.config import SwitchConfig
from firmware_bridge.link import LinkStats, PicoLink
from firmware_bridge.protocol import SLIDE_COUNT, StatePayload

Position = str  # 'A' | 'B' | 'C'


@dataclass(frozen=True)
class SlideState:
    """The slides as last reported by the microcontroller."""

    positions: tuple[Position | None, ...]  # 14 entries; None for a slide reported faulty
    faults: tuple[int, ...]  # slides whose two switches are both closed (a wiring or switch fault)
    link_ok: bool  # False once the heartbeat stopped or the port went away
    seq: int  # the frame's sequence number (0-255, restarts when the microcontroller reboots)
    received_at: float  # time.monotonic() when it arrived
    uptime_ms: int  # the microcontroller's uptime when it sent the state
    reason: str  # 'heartbeat', 'change', 'request', 'boot' or 'config'
    count: int  # states received so far by this source; grows by one per state
    trouble: str | None = None  # the link's problem in a player's words (firmware_bridge.link), None if none

    def same_report(self, other: SlideState | None) -> bool:
        """True when `other` tells a person nothing new (ignoring timing and sequence)."""
        return (
            other is not None
            and other.positions == self.positions
            and other.faults == self.faults
            and other.link_ok == self.link_ok
            and other.trouble == self.trouble
        )


@runtime_checkable
class SwitchSource(Protocol):
    """What the service needs from any source of slide positions."""

    def start(self) -> None: ...

    def latest(self) -> SlideState | None: ...

    def healthy(self) -> bool: ...

    def close(self) -> None: ...


StateListener = Callable[[SlideState], None]


class SerialSwitches:
    """Slide positions from a microcontroller on a serial port, reconnecting by itself."""

    def __init__(
        self,
        port: str,
        *,
        baudrate: int = 115200,
        heartbeat_timeout: float = 2.5,
        debounce_ms: int = 30,
        heartbeat_interval: float = 1.0,
        listener: StateListener | None = None,
        simulator: Any = None,
        owns_simulator: bool = False,
        reconnect_interval: float = 0.25,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.port = port
        self.heartbeat_timeout = heartbeat_timeout
        self.simulator = simulator
        self._owns_simulator = owns_simulator
        self._listener = listener
        self._clock = clock
        self._changed = threading.Condition()
        self._latest: SlideState | None = None
        self._reported: SlideState | None = None
        self._count = 0
        self.link = PicoLink(
            port,
            baudrate,
            heartbeat_timeout=heartbeat_timeout,
            debounce_ms=debounce_ms,
            heartbeat_ms=round(heartbeat_interval * 1000),
            on_state=self._on_state,
            on_link=self._on_link,
            reconnect_interval=reconnect_interval,
            clock=clock,
        )

    @classmethod
    def from_config(
        cls,
        config: SwitchConfig,
        *,
        port: str | None = None,
        simulator: Any = None,
        owns_simulator: bool = False,
        listener: StateListener | None = None,
    ) -> SerialSwitches:
        return cls(
            port or config.port,
            baudrate=config.baudrate,
            heartbeat_timeout=config.heartbeat_timeout,
            debounce_ms=config.debounce_ms,
            heartbeat_interval=config.heartbeat_interval,
            listener=listener,
            simulator=simulator,
            owns_simulator=owns_simulator,
        )

    # --- SwitchSource -------------------------------------------------------------------------
    def start(self) -> None:
        self.link.start()

    def latest(self) -> SlideState | None:
        with self._changed:
            return self._latest

    def healthy(self) -> bool:
        state = self.latest()
        return state is not None and state.link_ok and self._clock() - state.received_at <= self.heartbeat_timeout

    def close(self) -> None:
        self.link.close()
        if self.simulator is not None and self._owns_simulator:
            self.simulator.close()

    # --- extras -------------------------------------------------------------------------------
    def stats(self) -> LinkStats:
        return self.link.stats()

    def trouble(self) -> str | None:
        """What is wrong with the link right now, in a player's words; None when nothing is."""
        return self.link.trouble()

    def wait_for(self, predicate: Callable[[SlideState], bool], timeout: float) -> SlideState | None:
        """Block until a state satisfying `predicate` arrives (or is already there); None on timeout."""
        deadline = self._clock() + timeout
        with self._changed:
            while True:
                if self._latest is not None and predicate(self._latest):
                    return self._latest
                remaining = deadline - self._clock()
                if remaining <= 0:
                    return None
                self._changed.wait(remaining)

    def wait_for_positions(self, positions: tuple[Position | None, ...] | str, timeout: float) -> SlideState | None:
        """Wait until the link is up and the slides read `positions` (e.g. 'ABCABCABCABCAB')."""
        wanted = tuple(positions)
        return self.wait_for(lambda s: s.link_ok and s.positions == wanted, timeout)

    def _on_state(self, seq: int, payload: StatePayload, received_at: float) -> None:
        with self._changed:
            self._count += 1
            state = SlideState(
                positions=payload.positions,
                faults=payload.faults,
                link_ok=True,
                seq=seq,
                received_at=received_at,
                uptime_ms=payload.uptime_ms,
                reason=payload.reason.name.lower(),
                count=self._count,
                trouble=self.link.trouble(),
            )
            self._publish(state)

    def _on_link(self, alive: bool) -> None:
        if alive:
            return  # the STATE that brought the link back is published by _on_state
        with self._changed:
            if self._latest is not None and self._latest.link_ok:
                self._publish(replace(self._latest, link_ok=False, trouble=self.link.trouble()))

    def _publish(self, state: SlideState) -> None:
        """Store a new state (caller holds the lock); tell the listener only about news."""
        self._latest = state
        self._changed.notify_all()
        if not state.same_report(self._reported):
            self._reported = state
            if self._listener is not None:
                self._listener(state)


__all__ = [
    "SLIDE_COUNT",
    "SerialSwitches",
    "SlideState",
    "SwitchSource",
]
