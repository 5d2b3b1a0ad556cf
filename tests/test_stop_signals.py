"""Ctrl-C and SIGTERM stop `referee run` (and the club) every time, with the exit code the README gives."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
import yaml

from controller.files import load_yaml

ROOT = Path(__file__).resolve().parent.parent

HELD_LOCK = textwrap.dedent(
    """
    import os, signal, sys, threading, time
    from controller.commands.stopping import StopOnSignals

    stop = threading.Event()
    with StopOnSignals(stop) as signals:
        for _ in range(20):
            # The signal arrives while this thread holds the event's own lock, as it does for a
            # moment inside every stop.wait(): a handler calling stop.set() would wait for ever.
            with stop._cond:
                os.kill(os.getpid(), signal.SIGINT)
                time.sleep(0.01)
            stop.wait(0.001)
        assert stop.wait(5.0), "stop was never set"
    print("stopped", signals.exit_code)
    """
)


def test_a_signal_arriving_while_the_stop_event_is_locked_still_stops():
    done = subprocess.run([sys.executable, "-c", HELD_LOCK], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["stopped", "130"]


def _config(tmp_path: Path) -> Path:
    config = load_yaml(ROOT / "config.yaml", "the config file")
    config["journal"] = str(tmp_path / "journal.sqlite")
    config["control_socket"] = str(tmp_path / "control.sock")
    config["web"]["enabled"] = False
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


@pytest.mark.parametrize(("sig", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 0)])
@pytest.mark.slow
def test_referee_run_stops_on_a_signal_with_the_readme_exit_code(tmp_path, sig, code):
    config = _config(tmp_path)
    proc = subprocess.Popen(
        [sys.executable, "-m", "controller.cli", "run", "--config", str(config)],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 60
        seen = ""
        while "refereeing" not in seen and time.monotonic() < deadline:
            line = proc.stderr.readline()
            if not line:
                break
            seen += line
        assert "refereeing" in seen, seen
        time.sleep(0.5)
        os.kill(proc.pid, sig)
        rest = proc.communicate(timeout=30)[1]
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == code, seen + rest
    assert "stopped; the game is kept in the journal" in rest
