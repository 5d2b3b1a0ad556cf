"""`referee setup holes`: the nine pairs asked for in turn, pictures read, the hole pattern derived."""

from __future__ import annotations

from pathlib import Path

import cv2
import pytest

from calibration.holes import PAIRS, derive, observe, parse_grids
from controller.cli import main
from controller.files import load_yaml
from controller.games.stay_alive.holes import pattern_of
from controller.profile import default_profile, load_profile
from controller.snapshot import Snapshot
from simulation.render import Scene, render_snapshot

EMPTY = tuple(tuple("." for _ in range(7)) for _ in range(7))


def _picture(p: str, q: str, scene: Scene | None = None):
    profile = default_profile("stay-alive")
    snapshot = Snapshot("stay-alive", EMPTY, {"orange": (p,) * 7, "white": (q,) * 7})
    return render_snapshot(snapshot, profile, seed=2, scene=scene)


def _folder(tmp_path: Path, toggled: tuple[tuple[str, str], tuple[int, int]] | None = None) -> Path:
    """The nine pictures; with `toggled` = (pair, point), that point shows the other way in that pair
    (a slide not fully at its position, a marble's shadow)."""
    folder = tmp_path / "pictures"
    folder.mkdir()
    pattern = pattern_of(default_profile("stay-alive"))
    for p, q in PAIRS:
        scene = None
        if toggled is not None and toggled[0] == (p, q):
            scene = Scene(open_points=frozenset(pattern.open_points((p,) * 7, (q,) * 7)) ^ {toggled[1]})
        cv2.imwrite(str(folder / f"orange-{p}-white-{q}.png"), _picture(p, q, scene))
    return folder


@pytest.mark.slow
def test_nine_pictures_give_the_copys_hole_pattern(tmp_path, capsys):
    folder = _folder(tmp_path)
    out = tmp_path / "my-stay-alive.yaml"
    assert (
        main(["setup", "holes", "--images", str(folder), "--out", str(out), "--grids-out", str(tmp_path / "grids.txt")])
        == 0
    )
    printed = capsys.readouterr().out
    assert "pair 9 of 9 (orange C, white C)" in printed
    truth = pattern_of(default_profile("stay-alive"))
    derived = pattern_of(load_profile(out))
    # what matters to the rules: every slide setting opens the same points
    assert observe(derived) == observe(truth)
    assert parse_grids((tmp_path / "grids.txt").read_text()) == observe(truth)
    assert load_yaml(out, "the profile")["game"] == "stay-alive"


@pytest.mark.slow
def test_pictures_no_hole_pattern_explains_are_reported_and_nothing_written(tmp_path, capsys):
    truth = observe(pattern_of(default_profile("stay-alive")))

    def toggle(pair, point):
        grids = dict(truth)
        rows = [list(row) for row in grids[pair]]
        rows[point[0]][point[1]] = not rows[point[0]][point[1]]
        grids[pair] = tuple(tuple(row) for row in rows)
        return grids

    # one point seen wrongly in one pair, in a way no hole pattern explains
    wrong = next(
        (pair, (r, c)) for pair in PAIRS for r in range(7) for c in range(7) if not derive(toggle(pair, (r, c))).ok
    )
    folder = _folder(tmp_path, wrong)
    out = tmp_path / "my-stay-alive.yaml"
    code = main(["setup", "holes", "--images", str(folder), "--out", str(out)])
    captured = capsys.readouterr()
    assert code == 1, captured.out
    assert not out.exists() and "No profile written" in captured.err
    assert f"point {wrong[1][0] + 1},{wrong[1][1] + 1}" in captured.out  # the report names the point, from 1


@pytest.mark.slow
def test_the_camera_flow_asks_for_each_pair_in_turn(tmp_path, monkeypatch, capsys):

    asked: list[str] = []

    class Camera:
        """Shows the pair the person was last asked for."""

        def read(self):
            p, q = PAIRS[len(asked) - 1]
            return _picture(p, q)

        def close(self):
            pass

    monkeypatch.setattr("controller.commands.setup.open_frame_source", lambda camera, locked=None: Camera())
    monkeypatch.setattr("builtins.input", lambda prompt="": asked.append("enter") or "")
    config = tmp_path / "config.yaml"
    config.write_text("game: stay-alive\nplayers: 2\nseats: [B, Y]\n", encoding="utf-8")
    assert main(["setup", "holes", "--config", str(config)]) == 0
    printed = capsys.readouterr().out
    assert len(asked) == 9
    assert "Set every orange slide to A and every white slide to A" in printed
    assert "Set every orange slide to C and every white slide to C" in printed
    assert "holes:" in printed


def test_setup_holes_bad_input(tmp_path, capsys):
    assert main(["setup", "holes"]) == 2
    assert main(["setup", "holes", "--images", str(tmp_path)]) == 2
    assert "orange-A-white-A" in capsys.readouterr().err
    config = tmp_path / "config.yaml"
    config.write_text("game: colorpop\nplayers: 2\n", encoding="utf-8")
    assert main(["setup", "holes", "--config", str(config)]) == 2
    assert "Stay Alive" in capsys.readouterr().err
