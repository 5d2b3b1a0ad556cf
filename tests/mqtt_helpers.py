"""A real Mosquitto broker for the club's tests: a free local port and a temporary config.

Tests that need it take the `broker` fixture (tests/conftest.py) and are skipped with a sentence
when Mosquitto is not installed.
"""

from __future__ import annotations

import getpass
import os
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

import pytest

MOSQUITTO = shutil.which("mosquitto") or ("/usr/sbin/mosquitto" if os.access("/usr/sbin/mosquitto", os.X_OK) else None)
MOSQUITTO_PASSWD = shutil.which("mosquitto_passwd")
MISSING = "Mosquitto is not installed (apt-get install mosquitto, or run .ci/run): the club's broker tests are skipped"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(condition, timeout: float = 10.0, interval: float = 0.02, what: str = "condition"):
    """Poll until `condition()` is truthy; returns its value, fails the test on timeout."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            pytest.fail(f"timed out after {timeout} s waiting for {what}")
        time.sleep(interval)


class Broker:
    """Mosquitto on 127.0.0.1:<free port>, persistent sessions in a temporary folder."""

    def __init__(
        self, folder: Path, users: dict[str, str] | None = None, acl: str | None = None, extra: tuple[str, ...] = ()
    ) -> None:
        if MOSQUITTO is None:
            pytest.skip(MISSING)
        self.folder = folder
        self.port = free_port()
        self.log = folder / "mosquitto.log"
        lines = [
            f"listener {self.port} 127.0.0.1",
            f"user {getpass.getuser()}",
            "persistence true",
            f"persistence_location {folder}/",
            f"log_dest file {self.log}",
            "log_type error",
            "log_type warning",
            "log_type notice",
        ]
        if users:
            if MOSQUITTO_PASSWD is None:
                pytest.skip("mosquitto_passwd is not installed: the broker ACL test is skipped")
            passwords = folder / "passwords"
            passwords.write_text("")
            for name, password in users.items():
                subprocess.run(
                    [MOSQUITTO_PASSWD, "-b", str(passwords), name, password], check=True, capture_output=True
                )
            lines += ["allow_anonymous false", f"password_file {passwords}"]
        else:
            lines.append("allow_anonymous true")
        if acl is not None:
            (folder / "acl").write_text(acl)
            lines.append(f"acl_file {folder / 'acl'}")
        lines += extra
        self.config = folder / "mosquitto.conf"
        self.config.write_text("\n".join(lines) + "\n")
        self.process: subprocess.Popen | None = None

    def start(self) -> Broker:
        self.process = subprocess.Popen(
            [MOSQUITTO, "-c", str(self.config)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    return self
            except OSError:
                if self.process.poll() is not None:
                    break
                time.sleep(0.02)
        raise RuntimeError(f"mosquitto did not start; its log: {self.log.read_text() if self.log.exists() else ''}")

    def kill(self) -> None:
        """A crash (SIGKILL): whatever Mosquitto had not saved yet is gone."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(10)
        self.process = None

    def stop(self) -> None:
        """A clean stop (SIGTERM): Mosquitto saves its sessions and retained messages."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            self.process.wait(10)
        self.process = None
