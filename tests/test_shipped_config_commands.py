"""Every command the README shows works with the shipped config.yaml (simulated camera, switches and
pins), or says in a player's words why not and what to do: none fails in a developer's words, waits
for a button nobody can press, or says no only after all its work."""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # every test here takes seconds

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def shipped(tmp_path) -> Path:
    shutil.copy(ROOT / "config.yaml", tmp_path / "config.yaml")
    return tmp_path


def referee(folder: Path, *args: str, stdin: str = "") -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "controller.cli", *args],
        cwd=folder,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
    )


def test_aim_with_the_shipped_config_looks_through_the_simulated_camera(shipped):
    done = referee(shipped, "aim", "--config", "config.yaml")
    assert done.returncode in (0, 1), done.stderr
    assert "markers found" in done.stdout and "opens real cameras" not in done.stderr


def test_lights_test_with_simulated_pins_says_so_and_waits_for_no_button(shipped):
    started = time.monotonic()
    done = referee(shipped, "lights-test", "--config", "config.yaml", "--pause", "0")
    assert done.returncode == 0, done.stdout + done.stderr
    assert time.monotonic() - started < 20  # not 2 x 15 s waiting for a press
    assert done.stdout.startswith("The pins of config.yaml are simulated (gpio: backend: mock)")
    assert "button: press seen" in done.stdout and "button: hold seen" in done.stdout


def test_calibrate_with_the_simulated_camera_says_why_not_before_any_work(shipped):
    render = ["render", "--game", "colorpop", "--snapshot", str(ROOT / "examples/snapshots/colorpop.txt")]
    assert referee(shipped, *render, "--out", "board.png").returncode == 0
    pictures = ["--empty", "board.png", "--bottom-row", "board.png", "--setup", "board.png"]
    done = referee(shipped, "calibrate", "--game", "colorpop", *pictures, "--camera", "config.yaml", "--out", "x.yaml")
    assert done.returncode == 2 and done.stdout == ""  # no report first
    assert "its camera is the simulated camera (source: renderer)" in done.stderr
    assert "leave out --camera" in done.stderr and not (shipped / "x.yaml").exists()


def test_setup_holes_with_the_shipped_colorpop_config_says_what_to_give(shipped):
    done = referee(shipped, "setup", "holes", "--config", "config.yaml")
    assert done.returncode == 2
    assert "config.yaml is a colorpop config; the holes are Stay Alive's" in done.stderr
    assert "game: stay-alive" in done.stderr and "--images DIR" in done.stderr


def test_setup_holes_with_a_simulated_stay_alive_config_has_a_simulated_person_set_the_slides(shipped):
    text = (shipped / "config.yaml").read_text()
    text = text.replace("game: colorpop", "game: stay-alive").replace("players: 3", "players: 2")
    (shipped / "stay-alive.yaml").write_text(text.replace("# seats: [R, G, B]", "seats: [R, G]"))
    done = referee(shipped, "setup", "holes", "--config", "stay-alive.yaml", "--out", "holes.yaml", stdin="\n" * 9)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "All nine observations are explained by one hole pattern" in done.stdout
    assert "holes:" in (shipped / "holes.yaml").read_text()
