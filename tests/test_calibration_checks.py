"""Calibration checks itself (issue 15, item 3): pictures that contradict what they should show
are refused with the picture and the places named; a good set prints a quality report."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration import vision as cal
from controller.cli import main
from controller.errors import RefereeError
from controller.profile import default_profile, load_profile
from controller.snapshot import EMPTY, Snapshot, format_snapshot, parse_snapshot
from controller.vision import looks
from controller.vision.reader import BoardReader
from simulation.render import Scene, random_snapshot, render_snapshot

pytestmark = pytest.mark.slow  # every test here takes seconds


def colorpop_setup(seed: int = 0) -> Snapshot:
    rng = np.random.default_rng(seed)
    tokens = list("GYOBP" * 19 + "J" * 5)
    rng.shuffle(tokens)
    return parse_snapshot("colorpop", "\n".join(" ".join(tokens[r * 10 : (r + 1) * 10]) for r in range(10)))


def empty_of(snap: Snapshot) -> Snapshot:
    return snap.with_cells([[EMPTY] * snap.cols for _ in range(snap.rows)])


def write(path: Path, snap: Snapshot, profile, **kw) -> str:
    cv2.imwrite(str(path), render_snapshot(snap, profile, **kw))
    return str(path)


def calibrate(*args: str) -> int:
    return main(["calibrate", *args])


def bottom_row_of(snap: Snapshot, profile) -> Snapshot:
    """One token of each colour on the bottom row (what `calibrate --bottom-row` is shown)."""
    return snap.with_cells(cal.bottom_row_cells(profile))


def test_colorpop_mid_game_picture_as_setup_is_refused_naming_it(tmp_path, capsys) -> None:
    p = default_profile("colorpop")
    setup = colorpop_setup()
    empty = write(tmp_path / "empty.png", empty_of(setup), p, seed=21, preset="hard")
    bottom = write(tmp_path / "bottom.png", bottom_row_of(setup, p), p, seed=21, preset="hard", scene=Scene(frame=3))
    good = write(tmp_path / "setup.png", setup, p, seed=21, preset="hard", scene=Scene(frame=1))
    mid = write(
        tmp_path / "mid.png", random_snapshot("colorpop", p, seed=8), p, seed=21, preset="hard", scene=Scene(frame=2)
    )
    out = tmp_path / "mine.yaml"
    assert (
        calibrate("--game", "colorpop", "--empty", empty, "--bottom-row", bottom, "--setup", mid, "--out", str(out))
        == 2
    )
    err = capsys.readouterr().err
    assert "mid.png is not a full setup" in err and "A1" in err and not out.exists()
    # --setup alone is refused: the empty slot's look must be learned too.
    assert calibrate("--game", "colorpop", "--setup", good, "--out", str(out)) == 2
    assert "--empty" in capsys.readouterr().err
    assert (
        calibrate("--game", "colorpop", "--empty", empty, "--bottom-row", bottom, "--setup", good, "--out", str(out))
        == 0
    )
    report = capsys.readouterr().out
    assert "classes apart" in report and "least sure places" in report
    assert {"G", "Y", "O", "B", "P", "J", "."} <= set(load_profile(out).data["vision"]["classes"])
    # The learning function alone refuses it too (the standard empty look is known).
    with pytest.raises(RefereeError, match="not a full setup"):
        cal.learn_colorpop_setup(p, cv2.imread(mid))


def test_colorpop_setup_with_wrong_counts_is_refused(tmp_path, capsys) -> None:
    p = default_profile("colorpop")
    setup = colorpop_setup(1)
    cells = [list(r) for r in setup.cells]
    swaps = [(r, c) for r in range(10) for c in range(10) if cells[r][c] == "G"][:4]
    for r, c in swaps:  # four greens become blue: 15 G and 23 B, no empty place
        cells[r][c] = "B"
    wrong = setup.with_cells(cells)
    empty = write(tmp_path / "empty.png", empty_of(setup), p, seed=3)
    bottom = write(tmp_path / "bottom.png", bottom_row_of(setup, p), p, seed=3, scene=Scene(frame=2))
    pic = write(tmp_path / "odd.png", wrong, p, seed=3, scene=Scene(frame=1))
    assert (
        calibrate(
            "--game",
            "colorpop",
            "--empty",
            empty,
            "--bottom-row",
            bottom,
            "--setup",
            pic,
            "--out",
            str(tmp_path / "o.yaml"),
        )
        == 2
    )
    assert "odd.png is not a full setup" in capsys.readouterr().err


@pytest.mark.parametrize("game", ["colorpop", "blockers", "flipop", "stay-alive"])
def test_picture_and_snapshot_that_do_not_match_are_refused(game: str, tmp_path, capsys) -> None:
    p = default_profile(game)
    shown = random_snapshot(game, p, seed=5)
    told = random_snapshot(game, p, seed=6)
    pic = write(tmp_path / "board.png", shown, p, seed=5, preset="hard")
    (tmp_path / "told.txt").write_text(format_snapshot(told))
    (tmp_path / "shown.txt").write_text(format_snapshot(shown))
    out = tmp_path / "mine.yaml"
    assert calibrate("--game", game, "--image", pic, "--snapshot", str(tmp_path / "told.txt"), "--out", str(out)) == 2
    err = capsys.readouterr().err
    assert "board.png" in err and not out.exists()
    assert calibrate("--game", game, "--image", pic, "--snapshot", str(tmp_path / "shown.txt"), "--out", str(out)) == 0


def test_one_wrong_place_in_a_snapshot_is_named(tmp_path, capsys) -> None:
    p = default_profile("flipop")
    shown = random_snapshot("flipop", p, seed=7)
    cells = [list(r) for r in shown.cells]
    r, c = next((r, c) for r in range(5) for c in range(5) if cells[r][c] == EMPTY)
    cells[r][c] = "B"
    told = shown.with_cells(cells)
    pic = write(tmp_path / "f.png", shown, p, seed=7)
    (tmp_path / "told.txt").write_text(format_snapshot(told))
    assert (
        calibrate(
            "--game",
            "flipop",
            "--image",
            pic,
            "--snapshot",
            str(tmp_path / "told.txt"),
            "--out",
            str(tmp_path / "o.yaml"),
        )
        == 2
    )
    err = capsys.readouterr().err
    assert f"f.png does not show what it should: at ({r + 1},{c + 1}) it reads empty where B belongs" in err


def test_light_grey_slots_calibrated_with_the_empty_board_read_exactly(tmp_path, monkeypatch, capsys) -> None:
    """Another copy whose slots are light grey, close to the white joker."""
    monkeypatch.setitem(looks.PIECES["colorpop"], ".", (200, 200, 204))
    p = default_profile("colorpop")
    setup = colorpop_setup(2)
    empty = write(tmp_path / "empty.png", empty_of(setup), p, seed=4)
    bottom = write(tmp_path / "bottom.png", bottom_row_of(setup, p), p, seed=4, scene=Scene(frame=9))
    pic = write(tmp_path / "setup.png", setup, p, seed=4, scene=Scene(frame=1))
    out = tmp_path / "grey.yaml"
    assert (
        calibrate("--game", "colorpop", "--empty", empty, "--bottom-row", bottom, "--setup", pic, "--out", str(out))
        == 0
    )
    learned = load_profile(out)
    for seed in range(3):
        later = random_snapshot("colorpop", p, seed=30 + seed)
        reading = BoardReader(learned).read(render_snapshot(later, p, seed=4, scene=Scene(frame=2 + seed)))
        assert reading.snapshot is not None and reading.snapshot.cells == later.cells


def test_pieces_in_the_wrong_order_are_refused(tmp_path, capsys) -> None:
    p = default_profile("blockers")
    base = empty_of(random_snapshot("blockers", p, seed=1))
    row = [ch + "1" for ch in reversed(p.letters)] + [EMPTY] * (p.cols - len(p.letters))
    pieces = base.with_cells([row] + [list(r) for r in base.cells[1:]])
    empty = write(tmp_path / "empty.png", base, p, seed=2)
    pic = write(tmp_path / "pieces.png", pieces, p, seed=2, scene=Scene(frame=1))
    assert calibrate("--game", "blockers", "--empty", empty, "--pieces", pic, "--out", str(tmp_path / "o.yaml")) == 2
    err = capsys.readouterr().err
    assert "pieces.png does not show one piece of each colour in the profile's order" in err
    assert "at A1, A2, A4, A5 it shows V where R belongs" in err


def test_flipop_start_with_other_doors_is_refused_naming_the_post(tmp_path, capsys) -> None:
    p = default_profile("flipop")
    start = parse_snapshot("flipop", p.get("start"))
    doors = list(start.line("doors"))
    doors[5] = "".join(sorted(doors[5].replace("N", "S"))) if "N" in doors[5] else doors[5] + "N"
    pic = write(tmp_path / "start.png", start.with_line("doors", doors), p, seed=3)
    assert calibrate("--game", "flipop", "--setup", pic, "--out", str(tmp_path / "o.yaml")) == 2
    err = capsys.readouterr().err
    # Named as the page, the rules' reasons and the corrections name posts: by the cells around it,
    # counted from 1 (door 5 of the line, counted from 0, is the corner of cells (2,2) to (3,3)).
    assert "start.png" in err and "post (2,2) (the corner of cells (2,2) to (3,3))" in err


def wing_glare(profile, post: int) -> tuple[float, float, float]:
    """A reflection on the middle of the first wing of a post's start door."""
    start = parse_snapshot("flipop", profile.get("start"))
    i, j = divmod(post, 4)
    dx, dy = {"N": (0, -1), "E": (1, 0), "S": (0, 1), "W": (-1, 0)}[start.line("doors")[post][0]]
    return (i + 0.5 + 0.27 * dy, j + 0.5 + 0.27 * dx, 0.14)


@pytest.mark.parametrize("post", [0, 6, 13])
def test_flipop_start_with_a_glared_wing_is_learned(post: int, tmp_path, capsys) -> None:
    p = default_profile("flipop")
    start = parse_snapshot("flipop", p.get("start"))
    pic = write(tmp_path / "start.png", start, p, seed=post, scene=Scene(glare_at=(wing_glare(p, post),)))
    out = tmp_path / "mine.yaml"
    assert calibrate("--game", "flipop", "--setup", pic, "--out", str(out)) == 0, capsys.readouterr().err
    reading = BoardReader(load_profile(out)).read(cv2.imread(pic))
    assert all(g in ("?", w) for g, w in zip(reading.doors, start.line("doors")))
    # With the same glare, doors that really differ are refused for what they are.
    doors = list(start.line("doors"))
    other = (post + 5) % 16
    doors[other] = "".join(sorted(doors[other].replace("N", "S"))) if "N" in doors[other] else doors[other] + "N"
    pic = write(
        tmp_path / "moved.png",
        start.with_line("doors", doors),
        p,
        seed=post,
        scene=Scene(glare_at=(wing_glare(p, post),)),
    )
    assert calibrate("--game", "flipop", "--setup", pic, "--out", str(out)) == 2
    err = capsys.readouterr().err
    row, column = other // 4 + 1, other % 4 + 1
    assert f"post ({row},{column}) (the corner of cells ({row},{column})" in err and "glare?" not in err
