"""Every `referee` command line of README.md and of the manuals in docs/ runs as written, with the
files that ship in examples/.

The lines are taken from the ```sh blocks of `MANUALS` in order (continuation lines joined) and run by
`main` in a scratch folder holding the repository's examples/ and config.yaml. The service commands
(status, new-game, reveal, end) talk to a referee loop on the stand-in rig behind a real control
socket in the default place, with the journal config.yaml names; `referee run` itself is left out
(it runs until stopped; tests/test_service_e2e.py drives the same Service).
"""

from __future__ import annotations

import re
import shlex
import shutil
import threading
import time
from pathlib import Path

import pytest

from controller.cli import main
from controller.files import load_yaml
from controller.service.config import default_control_socket
from controller.service.control import ControlServer
from simulation.world import StubRig

ROOT = Path(__file__).resolve().parent.parent
#: The README and its manuals, in the order their commands build on each other: the pictures
#: calibration.md renders are read and calibrated there; service.md's game is exported and replayed.
MANUALS = ("README.md", "docs/records.md", "docs/calibration.md", "docs/service.md", "docs/page.md")
OFFLINE = {"render", "read", "aim", "calibrate", "replay", "holes", "lattice", "export", "markers"}
SERVICE = {"status", "new-game", "reveal", "end", "accept"}


def readme_commands() -> list[tuple[list[str], str | None]]:
    """(arguments, file stdout goes to) of every `.venv/bin/referee` line in the manuals' sh blocks."""
    text = "\n".join((ROOT / name).read_text("utf-8") for name in MANUALS)
    out = []
    for block in re.findall(r"```sh\n(.*?)```", text, re.S):
        for line in block.replace("\\\n", " ").splitlines():
            if not line.strip().startswith(".venv/bin/referee "):
                continue
            words = shlex.split(line, comments=True)[1:]
            target = None
            if ">" in words:
                at = words.index(">")
                words, target = words[:at], words[at + 1]
            out.append((words, target))
    return out


def test_the_readme_names_commands_of_each_kind():
    names = {args[0] for args, _ in readme_commands()}
    assert {"render", "read", "calibrate", "holes", "lattice", "replay", "export", "run", "status"} <= names


@pytest.mark.slow
def test_every_readme_command_runs_as_written(tmp_path, monkeypatch, capsys):
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    shutil.copy(ROOT / "config.yaml", tmp_path / "config.yaml")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("RUNTIME_DIRECTORY", raising=False)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path / "runtime"))
    config = load_yaml(tmp_path / "config.yaml", "the config file")
    game_keys = {k: config[k] for k in ("game", "variant", "players", "first") if config.get(k) is not None}
    rig = StubRig(game_keys, tmp_path / config["journal"], seed=2, troubles=False, max_moves=3)
    rig.driver.run(rig.player.steps())  # a game under way in the journal config.yaml names
    stop = threading.Event()

    def tick() -> None:
        while not stop.is_set():
            rig.driver.run_frames(1)
            time.sleep(0.002)

    server = ControlServer(default_control_socket(), rig.loop.submit, timeout=5)
    server.start()
    ticker = threading.Thread(target=tick, daemon=True)
    ticker.start()
    ran, failed = [], []
    outputs: dict[str, str] = {}
    try:
        for args, target in readme_commands():
            if args[0] not in OFFLINE | SERVICE:
                continue
            if args[0] == "export":  # the new game's board (an invalid setup) is judged after the patience time
                deadline = time.monotonic() + 30  # 1.5 s of simulated frames, ticked in real time on a busy machine
                while rig.loop.session.next_index == 0 and time.monotonic() < deadline:
                    time.sleep(0.01)
            code = main(args)
            out, err = capsys.readouterr()
            if target:
                Path(target).write_text(out)
            # reveal, end and accept may be refused by the game in progress (not over; Colorpop has no
            # end by agreement; nothing to accept when the board is the referee's): a sentence, not a failure.
            refused_by_the_game = args[0] in ("reveal", "end", "accept") and code == 2 and "referee: " in err
            if code != 0 and not refused_by_the_game and not (args[0] == "read" and code == 3):
                failed.append(f"referee {' '.join(args)} -> {code}: {err[-300:]}")
            ran.append(args[0])
            outputs[" ".join(args[:2])] = out
    finally:
        stop.set()
        ticker.join(2)
        server.close()
    assert failed == []
    assert set(ran) == OFFLINE | SERVICE
    # What the README promises each command gives.
    assert (tmp_path / "board.png").exists() and (tmp_path / "my-board.yaml").exists()
    assert (tmp_path / "markers.pdf").read_bytes().startswith(b"%PDF")
    assert "glyphs" in (tmp_path / "my-blockers.yaml").read_text()
    assert "holes:" in (tmp_path / "my-stay-alive.yaml").read_text()
    assert (tmp_path / "game.yaml").read_text().startswith("game: colorpop")
    assert outputs["lattice read"] == (tmp_path / "examples" / "lattice" / "photo2.txt").read_text()
    assert "Colorpop, game 1 in the journal" in outputs["status"]
    assert "game 2" in outputs["new-game"]


def test_the_readme_is_a_map_whose_manuals_exist():
    """The README says what the referee is, the two commands, the layout and where to read next, in
    under 150 lines; every manual it names exists, and every manual whose commands run here is named."""
    text = (ROOT / "README.md").read_text("utf-8")
    assert text.count("\n") < 150
    assert "make demo" in text and "make test" in text
    named = set(re.findall(r"`(docs/[\w.-]+\.md)`", text))
    assert set(MANUALS[1:]) <= named
    assert [name for name in sorted(named) if not (ROOT / name).is_file()] == []
