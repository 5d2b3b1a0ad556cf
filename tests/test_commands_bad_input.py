"""Every `referee` subcommand given odd input answers with a sentence and exit code 2, never a traceback.

Each case runs `python -m controller.cli` in its own process, as a person would run it, in a folder of
odd files: missing, a folder, binary, empty, another SQLite database, a damaged journal.
"""

from __future__ import annotations

import hashlib
import json
import os
import socket
import sqlite3
import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from controller.service.journal import Journal

pytestmark = pytest.mark.slow  # every test here takes seconds

ROOT = Path(__file__).resolve().parent.parent
SNAPSHOT = str(ROOT / "examples" / "snapshots" / "colorpop.txt")
GRIDS = str(ROOT / "examples" / "stay-alive-grids.txt")
CORNERS = "336,126 640,114 651,419 351,429"
ODD_FILES = ("missing.txt", "folder", "binary.dat", "empty.txt", "other.sqlite")


def odd_inputs(folder: Path) -> None:
    (folder / "folder").mkdir()
    (folder / "binary.dat").write_bytes(bytes(range(256)) * 8 + b"\x9b\xff")
    (folder / "empty.txt").write_bytes(b"")
    (folder / "list.yaml").write_text("- just\n- a list\n")
    (folder / "unknown-key.yaml").write_text("game: flipop\ncolour: blue\n")
    (folder / "bad-gpio.yaml").write_text("game: flipop\ngpio:\n  pins: {green: 27}\n")
    db = sqlite3.connect(folder / "other.sqlite")
    db.execute("CREATE TABLE notes (text)")
    db.commit()
    db.close()
    journal = Journal(folder / "garbled.sqlite")
    journal.new_game({"game": "flipop", "players": 2})
    journal.close()
    db = sqlite3.connect(folder / "garbled.sqlite")
    db.execute("UPDATE games SET setup = '{not json'")
    db.commit()
    db.close()


def cases() -> list[tuple[list[str], int]]:
    """(arguments, expected exit code); 2 is bad input."""
    out: list[tuple[list[str], int]] = [([], 2), (["dance"], 2)]
    for odd in ODD_FILES:
        out += [
            (["replay", odd], 2),
            (["holes", "derive", "--grids", odd], 2),
            (["render", "--game", "colorpop", "--snapshot", odd, "--out", "o.png"], 2),
            (["render", "--game", "colorpop", "--snapshot", SNAPSHOT, "--out", "o.png", "--profile", odd], 2),
            (["read", "--game", "flipop", "--image", odd], 2),
            (["read", "--game", "flipop", "--image", odd, "--profile", odd], 2),
            (["calibrate", "--game", "colorpop", "--setup", odd, "--out", "p.yaml"], 2),
            (["lattice", "read", "--size", "10x10", "--corners", CORNERS, "--model", odd, "--image", odd], 2),
            (
                [
                    "lattice",
                    "learn",
                    "--size",
                    "10x10",
                    "--corners",
                    CORNERS,
                    "--image",
                    odd,
                    "--labels",
                    odd,
                    "--out",
                    "m.model",
                ],
                2,
            ),
            (["export", odd], 2),
            (["export", "--list", odd], 2),
            (["run", "--config", odd], 2),
            (["lights-test", "--simulate", "--pause", "0", "--config", odd], 2 if odd != "missing.txt" else 0),
        ]
        for command in (["status"], ["new-game"], ["end"], ["reveal", "1", "G"]):
            out += [(command + ["--config", odd], 2), (command + ["--socket", odd], 2)]
    out += [
        (["render", "--game", "colorpop", "--snapshot", SNAPSHOT, "--out", "o.txt"], 2),
        (["render", "--game", "colorpop", "--snapshot", SNAPSHOT, "--out", "folder"], 2),
        (["render", "--game", "colorpop", "--snapshot", SNAPSHOT, "--out", "no/such/folder.png"], 2),
        (["render", "--game", "colorpop", "--snapshot", SNAPSHOT, "--out", "o.png", "--hand", "x"], 2),
        (["render", "--game", "flipop", "--snapshot", SNAPSHOT, "--out", "o.png"], 2),
        (["render", "--game", "chess", "--snapshot", SNAPSHOT, "--out", "o.png"], 2),
        (["render", "--game", "colorpop", "--snapshot", SNAPSHOT, "--out", "o.png", "--seed", "x"], 2),
        (["holes", "derive", "--grids", GRIDS, "--out", "folder"], 2),
        (["holes", "derive", "--grids", GRIDS, "--out", "binary.dat"], 2),
        (["holes", "derive", "--grids", GRIDS, "--out", "unknown-key.yaml"], 2),
        (["holes"], 2),
        (["lattice", "read", "--size", "0x0", "--corners", CORNERS, "--model", "m", "--image", "i"], 2),
        (["export", "garbled.sqlite"], 2),
        (["export", "empty.txt", "--game-id", "x"], 2),
        (["replay", "list.yaml"], 2),
        (["run", "--config", "list.yaml"], 2),
        (["run", "--config", "unknown-key.yaml"], 2),
        (["lights-test", "--simulate", "--pause", "0", "--config", "unknown-key.yaml"], 2),
        (["lights-test", "--simulate", "--pause", "0", "--config", "bad-gpio.yaml"], 2),
        (["lights-test", "--pause", "soon"], 2),
        (["status", "--config", "unknown-key.yaml"], 2),  # no socket there: a sentence, not a crash
        (["reveal", "first", "G"], 2),
        (["demo", "--game", "chess"], 2),
        (["demo", "--seed", "x"], 2),
    ]
    return out


def run_cli(args: list[str], cwd: Path, **kwargs) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "RUNTIME_DIRECTORY"}
    env.update(PYTHONPATH=str(ROOT), XDG_RUNTIME_DIR=str(cwd / "runtime"))
    streams = kwargs or {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE}
    return subprocess.run(
        [sys.executable, "-m", "controller.cli", *args], cwd=cwd, env=env, text=True, timeout=120, **streams
    )


def test_odd_input_to_every_command_gets_a_sentence(tmp_path, monkeypatch, capsys):
    """All the cases, through `main` in this process (a process each would take minutes)."""
    from controller.cli import main

    odd_inputs(tmp_path)
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("RUNTIME_DIRECTORY", raising=False)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path / "runtime"))
    digest = hashlib.sha256((tmp_path / "other.sqlite").read_bytes()).hexdigest()
    wrong = []
    for args, code in cases():
        try:
            got = main(args)
        except SystemExit as exc:  # argparse's usage errors
            got = exc.code
        except BaseException as exc:  # noqa: BLE001 - what would be a traceback
            wrong.append(f"referee {' '.join(args)} raised {exc!r}")
            continue
        err = capsys.readouterr().err
        if got != code or (code == 2 and "referee" not in err):
            wrong.append(f"referee {' '.join(args)} -> {got}: {err[-300:]}")
    assert wrong == []
    # Reading never writes: the other database and the empty file are as they were.
    assert hashlib.sha256((tmp_path / "other.sqlite").read_bytes()).hexdigest() == digest
    assert (tmp_path / "empty.txt").read_bytes() == b""
    assert not list(tmp_path.glob("*.sqlite-*")) and not (tmp_path / "o.txt").exists()


def test_each_command_in_its_own_process_says_a_sentence(tmp_path):
    """One odd input per command as a person runs it: `python -m controller.cli`, no traceback, exit 2."""
    odd_inputs(tmp_path)
    chosen: dict[str, list[str]] = {}
    for args, code in cases():
        if code == 2 and args and args[0] not in chosen and "binary.dat" in args:
            chosen[args[0]] = args
    for same_path_as_status in ("new-game", "end", "reveal"):  # the same socket lookup as status
        chosen.pop(same_path_as_status)
    chosen["dance"] = ["dance"]
    assert len(chosen) >= 11
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(lambda args: run_cli(args, tmp_path), chosen.values()))
    wrong = [
        f"referee {' '.join(args)} -> {done.returncode}: {done.stderr[-300:]}"
        for args, done in zip(chosen.values(), results)
        if "Traceback" in done.stderr or done.returncode != 2 or not done.stderr.startswith(("referee", "usage"))
    ]
    assert wrong == []


def test_the_sentences_name_what_is_wrong(tmp_path, monkeypatch, capsys):
    from controller.cli import main

    odd_inputs(tmp_path)
    monkeypatch.chdir(tmp_path)
    expected = {
        ("status", "--config", "missing.txt"): "cannot read the config file missing.txt",
        ("export", "other.sqlite"): "the journal other.sqlite cannot be used: it is not a referee journal",
        ("export", "empty.txt"): "empty.txt",
        ("export", "garbled.sqlite"): "garbled",
        ("replay", "binary.dat"): "the game record binary.dat is not a text file",
        ("holes", "derive", "--grids", "binary.dat"): "the grids file binary.dat is not a text file",
        ("render", "--game", "colorpop", "--snapshot", SNAPSHOT, "--out", "o.txt"): "must end in .png or .jpg",
        ("run", "--config", "binary.dat"): "the config file binary.dat is not a text file",
        ("lights-test", "--simulate", "--config", "unknown-key.yaml"): "key 'colour': is not a known setting",
        ("status", "--socket", "empty.txt"): "empty.txt is not a referee's control socket",
    }
    for args, sentence in expected.items():
        assert main(list(args)) == 2
        err = capsys.readouterr().err
        assert sentence in err, (args, err)


def test_a_closed_pipe_ends_quietly(tmp_path):
    """`referee demo | head -2` and `referee status | head -2`: the reader went away; no traceback."""
    status = {
        "ok": True,
        "game": "flipop",
        "game_id": 1,
        "verdicts": 3,
        "started": True,
        "over": False,
        "to_move": 1,
        "illegal": False,
        "pending": False,
        "faults": ["camera lost"],
    }
    path = tmp_path / "ctl.sock"
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(path))
    server.listen(2)

    def answer() -> None:
        conn, _ = server.accept()
        with conn:
            conn.recv(4096)
            conn.sendall((json.dumps(status) + "\n").encode())

    threading.Thread(target=answer, daemon=True).start()
    for args in (["demo", "--game", "flipop"], ["status", "--socket", str(path)]):
        read_end, write_end = os.pipe()
        os.close(read_end)  # the reader is already gone when the command writes
        try:
            done = run_cli(args, tmp_path, stdout=write_end, stderr=subprocess.PIPE)
        finally:
            os.close(write_end)
        assert "Traceback" not in done.stderr and "Exception ignored" not in done.stderr, done.stderr
        assert done.returncode == 141
    server.close()


@pytest.mark.parametrize("live", [False, True])
def test_export_reads_a_journal_without_writing(tmp_path, live):
    from simulation.world import StubRig

    rig = StubRig({"game": "flipop", "players": 2}, tmp_path / "j.sqlite", seed=1, troubles=False, max_moves=3)
    rig.driver.run(rig.player.steps())
    journal = rig.loop.session.journal
    if not live:
        journal.close()
    before = (tmp_path / "j.sqlite").read_bytes()
    done = run_cli(["export", "j.sqlite"], tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("game: flipop") and "observations:" in done.stdout
    if not live:
        assert (tmp_path / "j.sqlite").read_bytes() == before
        assert not list(tmp_path.glob("j.sqlite-*"))
    else:
        journal.close()
