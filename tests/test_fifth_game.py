"""A game defined only in the test suite goes through records, replay and the simulated service."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import cv2
import fifth_game
import pytest

from controller.cli import main
from controller.games import registry
from controller.profile import default_profile, load_profile
from controller.record import parse_record
from controller.referee import VerdictKind, judge_record
from controller.snapshot import format_snapshot, parse_snapshot
from controller.vision.reader import BoardReader
from simulation.render import render_snapshot

RECORD = textwrap.dedent(
    """\
    game: noughts
    players: 2
    setup: |
      . . .
      . . .
      . . .
    observations:
      - |
        X . .
        . . .
        . . .
      - |
        X O .
        . . .
        . X .
      - |
        X . .
        . . .
        . . .
      - |
        X O .
        . . .
        . . .
      - |
        X O .
        . X .
        . . .
      - |
        X O .
        . X O
        . . .
      - |
        X O .
        . X O
        . . X
    """
)


@pytest.fixture(autouse=True)
def noughts():
    with registry.registered(fifth_game.SPEC):
        yield


def test_its_snapshots_read_and_print_like_any_game():
    snap = parse_snapshot("noughts", "X . O\n. X .\nO . X\n")
    assert snap.cells[0] == ("X", ".", "O")
    assert parse_snapshot("noughts", format_snapshot(snap)) == snap
    with pytest.raises(Exception, match="unknown cell 'Z'"):
        parse_snapshot("noughts", "Z . .\n. . .\n. . .\n")


def test_a_record_of_it_is_judged_by_the_one_referee():
    lines = list(judge_record(parse_record(RECORD)))
    kinds = [line.get("verdict") for line in lines[:-1]]
    assert kinds == ["setup-ok", "legal", "illegal", "restored", "legal", "legal", "legal", "legal"]
    assert lines[1]["move"] == "X on A1"
    assert lines[-1]["result"]["winners"] == [0]
    assert "player 1 (cross) has three in a row" in lines[-1]["result"]["reason"]


def referee(*args: str) -> subprocess.CompletedProcess:
    """`referee ARGS` in a fresh interpreter, which knows only the built-in games: the fifth one is
    registered first, as a plug-in would be."""
    code = (
        "import sys; sys.path[:0] = ['tests', '.']; import fifth_game; from controller.games import registry; "
        "from controller.cli import main\nwith registry.registered(fifth_game.SPEC): sys.exit(main())"
    )
    return subprocess.run(
        [sys.executable, "-c", code, *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=Path(__file__).resolve().parent.parent,
    )


@pytest.mark.slow
def test_referee_replay_prints_it(tmp_path: Path):
    path = tmp_path / "noughts.yaml"
    path.write_text(RECORD)
    done = referee("replay", "--json", str(path))
    assert done.returncode == 0, done.stderr
    verdicts = [json.loads(line) for line in done.stdout.splitlines()]
    assert verdicts[2]["verdict"] == "illegal" and verdicts[2]["cells"] == [[0, 1], [2, 1]]


def test_the_simulated_service_referees_a_whole_game_of_it(tmp_path: Path):
    from simulation.world import StubRig, all_agree

    rig = StubRig({"game": "noughts", "players": 2}, tmp_path / "j.sqlite", seed=3, troubles=True)
    rig.driver.run(rig.player.steps())
    verdicts = [v.to_json() for v in rig.loop.verdicts]
    assert verdicts[0]["verdict"] == VerdictKind.SETUP_OK.value
    assert rig.loop.session.referee.over
    assert all_agree(verdicts, rig.player.intended)
    assert any(v["verdict"] == "illegal" for v in verdicts)  # the player's troubles included an illegal move


POSITION = "X . O\n. X .\nO . X\n"


@pytest.mark.slow
def test_referee_render_draws_it_and_referee_read_reads_it_back(tmp_path: Path, capsys):
    """It declares no looks and no artwork: the default palette and the plain board serve."""
    snapshot, picture = tmp_path / "position.txt", tmp_path / "position.png"
    snapshot.write_text(POSITION)
    for seed, preset in ((0, "clean"), (1, "hard")):
        assert (
            main(
                [
                    "render",
                    "--game",
                    "noughts",
                    "--snapshot",
                    str(snapshot),
                    "--out",
                    str(picture),
                    "--seed",
                    str(seed),
                    "--preset",
                    preset,
                ]
            )
            == 0
        )
        capsys.readouterr()
        assert main(["read", "--game", "noughts", "--image", str(picture)]) == 0
        assert capsys.readouterr().out == POSITION


@pytest.mark.slow
def test_a_copy_of_it_is_calibrated_from_an_empty_board_and_one_piece_of_each(tmp_path: Path, capsys):
    profile = default_profile("noughts")
    empty, pieces = tmp_path / "empty.png", tmp_path / "pieces.png"
    cv2.imwrite(str(empty), render_snapshot(parse_snapshot("noughts", ". . .\n. . .\n. . .\n"), profile, seed=4))
    cv2.imwrite(str(pieces), render_snapshot(parse_snapshot("noughts", "X O .\n. . .\n. . .\n"), profile, seed=5))
    out = tmp_path / "noughts.yaml"
    assert (
        main(["calibrate", "--game", "noughts", "--empty", str(empty), "--pieces", str(pieces), "--out", str(out)]) == 0
    )
    assert "classes apart" in capsys.readouterr().out
    learned = load_profile(out)
    assert {"X", "O"} <= set(learned.get("vision")["classes"])
    position = parse_snapshot("noughts", POSITION)
    reading = BoardReader(learned).read(render_snapshot(position, profile, seed=6, preset="hard"))
    assert reading.snapshot == position
