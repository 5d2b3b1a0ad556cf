"""Tests run with the referee's own thread settings (controller/__init__.py), set before any test
module loads numpy."""

import logging

import pytest

import controller  # noqa: F401
from controller import exclusive


@pytest.fixture(autouse=True)
def _camera_locks_of_this_test(tmp_path_factory, monkeypatch):
    """A Pi camera's lock file lives in /run/lock, one for the whole machine: each test takes its own
    folder, so two test runs at once (or a referee running beside them) never meet there."""
    monkeypatch.setattr(exclusive, "DEVICE_LOCKS", tmp_path_factory.mktemp("locks"))


@pytest.fixture(autouse=True)
def _logging_as_it_was():
    """`referee run` and `referee club` set up the process's logging (the root logger's handler and
    level, the club's logger): run in-process by a test, they would leave later tests logging to that
    test's captured stderr, closed by then ("I/O operation on closed file"), at that test's level."""
    root, club = logging.getLogger(), logging.getLogger("referee.club")
    before = set(root.handlers)
    level = root.level
    club_state = (club.handlers[:], club.level, club.propagate)
    yield
    for handler in root.handlers[:]:
        if handler not in before and type(handler) in (logging.StreamHandler, logging.FileHandler):
            root.removeHandler(handler)
            if isinstance(handler, logging.FileHandler):
                handler.close()
    root.setLevel(level)
    club.handlers[:], club.level, club.propagate = club_state


@pytest.fixture
def broker(tmp_path):
    """A real Mosquitto on a free local port (skipped with a sentence when it is not installed)."""
    from mqtt_helpers import Broker

    folder = tmp_path / "broker"
    folder.mkdir()
    b = Broker(folder).start()
    yield b
    b.stop()


def pytest_terminal_summary(terminalreporter, exitstatus, config) -> None:
    """The random order's seed (pytest-randomly; `-q` hides the header that names it), so a failure
    that depends on the order can be run again in the same order."""
    if not config.pluginmanager.hasplugin("randomly"):
        return
    seed = config.getoption("randomly_seed", None)
    if isinstance(seed, int):
        terminalreporter.write_line(
            f"tests run in a random order; `pytest -p randomly --randomly-seed={seed}` repeats it, "
            "`-p no:randomly` keeps the files' order"
        )
