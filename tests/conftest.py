"""Tests run with the referee's own thread settings (controller/__init__.py), set before any test
module loads numpy."""

import pytest

import controller  # noqa: F401
from controller import exclusive


@pytest.fixture(autouse=True)
def _camera_locks_of_this_test(tmp_path_factory, monkeypatch):
    """A Pi camera's lock file lives in /run/lock, one for the whole machine: each test takes its own
    folder, so two test runs at once (or a referee running beside them) never meet there."""
    monkeypatch.setattr(exclusive, "DEVICE_LOCKS", tmp_path_factory.mktemp("locks"))


@pytest.fixture
def broker(tmp_path):
    """A real Mosquitto on a free local port (skipped with a sentence when it is not installed)."""
    from mqtt_helpers import Broker

    folder = tmp_path / "broker"
    folder.mkdir()
    b = Broker(folder).start()
    yield b
    b.stop()
