"""Tests run with the referee's own thread settings (controller/__init__.py), set before any test
module loads numpy."""

import pytest

import controller  # noqa: F401


@pytest.fixture
def broker(tmp_path):
    """A real Mosquitto on a free local port (skipped with a sentence when it is not installed)."""
    from mqtt_helpers import Broker

    folder = tmp_path / "broker"
    folder.mkdir()
    b = Broker(folder).start()
    yield b
    b.stop()
