"""Deriving a hole pattern from nine observation grids (calibration/holes.py, `referee holes`)."""

from __future__ import annotations

import itertools
import random
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from calibration.holes import derive, format_grids, observe, parse_grids, report
from controller.errors import FormatError
from controller.files import parse_yaml
from controller.games.stay_alive.holes import HolePattern, pattern_of, stand_in_pattern
from controller.language import said
from controller.profile import load_profile

POS = "ABC"
ROOT = Path(__file__).resolve().parent.parent


def random_pattern(rng: random.Random, density: float) -> HolePattern:
    def mask() -> int:
        return sum(1 << i for i in range(7) if rng.random() < density)

    return HolePattern(
        orange=tuple(tuple(mask() for _ in range(3)) for _ in range(7)),  # type: ignore[arg-type]
        white=tuple(tuple(mask() for _ in range(3)) for _ in range(7)),  # type: ignore[arg-type]
    )


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), density=st.sampled_from([0.1, 0.3, 0.5, 0.8]))
def test_derivation_predicts_every_point_like_the_true_pattern(seed, density):
    """Per point, all nine (orange, white) positions of its own two slides: this covers every
    one of the 3^14 full settings, since a point depends on no other slide."""
    rng = random.Random(seed)
    truth = random_pattern(rng, density)
    grids = parse_grids(format_grids(observe(truth)))
    derived = derive(grids)
    assert derived.ok
    for r, c, p, q in itertools.product(range(7), range(7), POS, POS):
        assert derived.pattern.point_open(r, c, p, q) == truth.point_open(r, c, p, q)
    for _ in range(20):  # and whole random settings, through the same function the engine uses
        orange = tuple(rng.choice(POS) for _ in range(7))
        white = tuple(rng.choice(POS) for _ in range(7))
        assert derived.pattern.open_points(orange, white) == truth.open_points(orange, white)
    never = {
        (r, c)
        for r, c in itertools.product(range(7), range(7))
        if not any(truth.point_open(r, c, p, q) for p, q in itertools.product(POS, POS))
    }
    assert set(derived.never_open) == never


def test_points_never_seen_open_get_no_hole_in_either_slide():
    truth = stand_in_pattern()
    grids = observe(truth)
    # hide point 0,0 in every grid: it never opens
    for pair, grid in grids.items():
        rows = [list(row) for row in grid]
        rows[0][0] = False
        grids[pair] = tuple(tuple(row) for row in rows)
    derived = derive(grids)
    assert derived.ok and derived.never_open == ((0, 0),)
    assert not any(derived.pattern.orange[0][p] & 1 for p in range(3))
    assert not any(derived.pattern.white[0][q] & 1 for q in range(3))
    assert "1 point never opened: 1,1. For it the pattern" in report(derived)
    assert "1 point qui ne s'est jamais ouvert\u00a0: (1\u202f; 1)." in said(report(derived), "fr")


def test_observations_no_pattern_explains_are_reported_per_point():
    grids = observe(stand_in_pattern())
    # 0,0 opens only at (A, A); claim it is also open at (B, B) but not at (A, B) or (B, A):
    # not a rectangle of positions, so no pair of slides can make it
    rows = [list(row) for row in grids[("B", "B")]]
    rows[0][0] = True
    grids[("B", "B")] = tuple(tuple(row) for row in rows)
    derived = derive(grids)
    assert not derived.ok
    assert [cell for cell, _ in derived.inconsistent] == [(0, 0)]
    text = report(derived)
    assert "point 1,1 (orange slide 1, white slide 1)" in text
    assert "orange B: white A . white B o white C ." in text


GRID_BLOCK = "orange A white A\n" + "o . . . . . .\n" + ". . . . . . .\n" * 6


def test_grid_text_errors_say_where():
    with pytest.raises(FormatError, match="missing observation blocks: orange A white B"):
        parse_grids(GRID_BLOCK)
    with pytest.raises(FormatError, match="line 2: expected 7 cells"):
        parse_grids("orange A white A\no . x . . . .\n")
    with pytest.raises(FormatError, match="a second block for orange A white A"):
        parse_grids(GRID_BLOCK + GRID_BLOCK)
    with pytest.raises(FormatError, match="before the grid rows"):
        parse_grids("o . . . . . .\n")
    with pytest.raises(FormatError, match="has 1 row, expected 7"):
        parse_grids("orange A white A\no . . . . . .\n")


def test_grid_text_allows_comments_any_order_and_no_spaces():
    text = format_grids(observe(stand_in_pattern()))
    blocks = text.strip().split("\n\n")
    compact = []
    for block in reversed(blocks):
        header, *rows = block.splitlines()
        compact.append("\n".join([header, *(row.replace(" ", "") for row in rows)]))
    assert parse_grids("# nine grids\n\n" + "\n\n".join(compact)) == parse_grids(text)


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "controller.cli", "holes", "derive", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.slow
def test_the_command_writes_the_holes_into_a_profile_keeping_its_other_keys(tmp_path):
    truth = random_pattern(random.Random(5), 0.5)
    grids = tmp_path / "grids.txt"
    grids.write_text(format_grids(observe(truth)))
    profile = tmp_path / "mine.yaml"
    profile.write_text("game: stay-alive\nmarbles_per_player: 4\n")
    done = run_cli("--grids", str(grids), "--out", str(profile))
    assert done.returncode == 0, done.stderr
    assert "explained by one hole pattern" in done.stdout
    loaded = load_profile(profile)
    assert loaded.get("marbles_per_player") == 4
    derived = pattern_of(loaded)
    for r, c, p, q in itertools.product(range(7), range(7), POS, POS):
        assert derived.point_open(r, c, p, q) == truth.point_open(r, c, p, q)


@pytest.mark.slow
def test_the_command_prints_the_holes_key_without_out(tmp_path):
    grids = tmp_path / "grids.txt"
    grids.write_text(format_grids(observe(stand_in_pattern())))
    done = run_cli("--grids", str(grids))
    assert done.returncode == 0
    holes = parse_yaml(done.stdout[done.stdout.index("holes:") :], "referee holes derive")["holes"]
    assert pattern_of(holes) == stand_in_pattern()


@pytest.mark.slow
def test_the_command_refuses_to_write_unexplainable_observations(tmp_path):
    grids = observe(stand_in_pattern())
    rows = [list(row) for row in grids[("C", "C")]]
    rows[3][3] = not rows[3][3]
    grids[("C", "C")] = tuple(tuple(row) for row in rows)
    path = tmp_path / "grids.txt"
    path.write_text(format_grids(grids))
    out = tmp_path / "mine.yaml"
    done = run_cli("--grids", str(path), "--out", str(out))
    assert done.returncode == 1
    assert "point 4,4" in done.stdout and not out.exists()


@pytest.mark.slow
def test_the_command_reports_a_malformed_grid_file(tmp_path):
    path = tmp_path / "grids.txt"
    path.write_text(GRID_BLOCK)
    done = run_cli("--grids", str(path))
    assert done.returncode == 2 and "missing observation blocks" in done.stderr
