"""systemd's notify protocol (sd_notify), written by hand: one datagram to $NOTIFY_SOCKET.

The unit is `Type=notify` with a watchdog: the service says READY=1 and pings WATCHDOG=1 only
while camera frames and switch heartbeats are fresh, so systemd restarts a referee that is stuck
or blind rather than one that merely looks alive.
"""

from __future__ import annotations

import os
import socket


class Notifier:
    """Sends sd_notify messages; does nothing when not started by systemd."""

    def __init__(self, address: str | None = None) -> None:
        address = address if address is not None else os.environ.get("NOTIFY_SOCKET")
        self.address: str | None = None
        self._socket: socket.socket | None = None
        if address:
            # A leading '@' names a socket in the abstract namespace.
            self.address = "\0" + address[1:] if address.startswith("@") else address
            self._socket = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.ready_sent = False

    @property
    def enabled(self) -> bool:
        return self._socket is not None

    def watchdog_interval(self) -> float | None:
        """Half of systemd's WatchdogSec for this process, in seconds, or None without a watchdog."""
        usec = os.environ.get("WATCHDOG_USEC")
        pid = os.environ.get("WATCHDOG_PID")
        if not usec or (pid and pid != str(os.getpid())):
            return None
        try:
            return int(usec) / 2_000_000
        except ValueError:
            return None

    def send(self, message: str) -> bool:
        if self._socket is None or self.address is None:
            return False
        try:
            self._socket.sendto(message.encode("utf-8"), self.address)
        except OSError:
            return False
        return True

    def ready(self, status: str) -> None:
        if not self.ready_sent:
            self.ready_sent = self.send(f"READY=1\nSTATUS={status}") or not self.enabled
        else:
            self.status(status)

    def watchdog(self) -> None:
        self.send("WATCHDOG=1")

    def status(self, status: str) -> None:
        self.send(f"STATUS={status}")

    def stopping(self) -> None:
        self.send("STOPPING=1")

    def close(self) -> None:
        if self._socket is not None:
            self._socket.close()
            self._socket = None
