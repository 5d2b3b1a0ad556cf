"""The generic lattice path on boards of other games, under other light than it learned in.

The boards come from `bench/lattice_accuracy.py`, which draws them in a look of their own (not
our renderer's) and photographs them with their own exposure, colour temperature, gradient,
vignetting, tone curve, blur, noise and JPEG; pieces sit a little off their points and the
corners given are a few pixels off.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import cv2
import numpy as np
import pytest

from bench.lattice_accuracy import SCENARIOS, make_case
from controller.cli import main
from controller.errors import RefereeError
from controller.vision import lattice
from controller.vision.lattice.light import rectified_log


def learned(scenario: str, seeds: tuple[int, ...]) -> lattice.LatticeModel:
    cases = [make_case(scenario, s) for s in seeds]
    size = SCENARIOS[scenario][:2]
    return lattice.learn([(c[0], c[1]) for c in cases], size, [c[2] for c in cases])


@pytest.mark.parametrize("scenario", ["draughts", "go", "connect4"])
@pytest.mark.slow
def test_one_labelled_picture_reads_others_under_other_light(scenario: str) -> None:
    model = learned(scenario, (1,))
    for seed in (2, 3):
        img, grid, given, _ = make_case(scenario, seed)
        got, sure, _ = lattice.read(model, img, given)
        assert got == grid
        assert sure.all()  # right and not doubted


def relit(img: np.ndarray, exposure: float, cast: tuple[float, float, float], gradient: float) -> np.ndarray:
    """The same picture under other light: per-channel gains and a left-to-right gradient,
    applied in (roughly) linear light."""
    lin = (img.astype(np.float32) / 255) ** 2.2
    ramp = 1 + gradient * np.linspace(-1, 1, img.shape[1], dtype=np.float32)[None, :, None]
    lin = lin * exposure * np.array(cast, np.float32) * ramp
    return (np.clip(lin, 0, 1) ** (1 / 2.2) * 255).astype(np.uint8)


@pytest.mark.parametrize(
    "exposure,cast,gradient",
    [
        (0.6, (1.0, 1.0, 1.0), 0.0),  # a darker exposure
        (1.0, (0.8, 1.0, 1.2), 0.0),  # warmer white balance (BGR gains)
        (1.1, (1.15, 1.0, 0.85), 0.3),  # cooler, with a lamp on one side
    ],
)
@pytest.mark.slow
def test_same_board_under_changed_light(exposure, cast, gradient) -> None:
    model = learned("tokens", (4, 5))
    img, grid, given, _ = make_case("tokens", 6)
    got, sure, _ = lattice.read(model, relit(img, exposure, cast, gradient), given)
    assert got == grid
    assert sure.all()


def test_illumination_follows_a_gradient_and_a_cast() -> None:
    """On a plain board the fitted light is the light: a 40% ramp and a colour cast."""
    size = (6, 6)
    h, w = 400, 400
    ramp = np.linspace(0.7, 1.1, w, dtype=np.float32)[None, :, None]
    gains = np.array([0.8, 1.0, 1.2], np.float32)
    img = np.clip(150 * ramp * gains + np.zeros((h, w, 3), np.float32), 0, 255).astype(np.uint8)
    corners = np.array([[50, 50], [350, 50], [350, 350], [50, 350]], np.float64)
    feats = lattice.place_features(img, size, corners)
    # Relative to the fitted light every place of a plain board is the same.
    assert np.abs(feats[0] - np.median(feats[0], axis=0)).max() < 0.03
    coef, _ = lattice.illumination(rectified_log(img, size, corners), size)
    # The fitted constant terms keep the cast (red over blue by log(1.2/0.8)), the slope the ramp.
    assert coef[0, 2] - coef[0, 0] == pytest.approx(np.log(1.2 / 0.8), abs=0.05)
    assert coef[1, 1] > 0.12


@pytest.mark.slow
def test_large_photograph_is_shrunk_not_slow() -> None:
    model = learned("draughts", (1,))
    img, grid, given, _ = make_case("draughts", 2)
    big = cv2.resize(img, None, fx=3.2, fy=3.2, interpolation=cv2.INTER_LINEAR)  # ~12.6 megapixels
    start = time.perf_counter()
    got, sure, _ = lattice.read(model, big, (given + 0.5) * 3.2 - 0.5)
    assert time.perf_counter() - start < 3.0
    assert got == grid and sure.all()


@pytest.mark.slow
def test_commands_list_an_unknown_piece_as_doubtful(tmp_path: Path, capsys) -> None:
    rows, cols = SCENARIOS["connect4"][:2]
    size = f"{rows}x{cols}"
    img, grid, given, _ = make_case("connect4", 1)
    cv2.imwrite(str(tmp_path / "learn.png"), img)
    (tmp_path / "learn.txt").write_text("\n".join(" ".join(r) for r in grid))
    corners = " ".join(f"{x:.1f},{y:.1f}" for x, y in given)
    assert (
        main(
            [
                "lattice",
                "learn",
                "--size",
                size,
                "--corners",
                corners,
                "--image",
                str(tmp_path / "learn.png"),
                "--labels",
                str(tmp_path / "learn.txt"),
                "--out",
                str(tmp_path / "m.json"),
            ]
        )
        == 0
    )
    img2, grid2, given2, _ = make_case("connect4", 2)
    # A green disc, a colour never learned, on row 2 column 3.
    p = given2[0] + (given2[1] - given2[0]) * 3 / (cols - 1) + (given2[3] - given2[0]) * 2 / (rows - 1)
    pitch = np.linalg.norm(given2[1] - given2[0]) / (cols - 1)
    cv2.circle(img2, (int(p[0]), int(p[1])), int(0.38 * pitch), (60, 170, 40), -1, cv2.LINE_AA)
    cv2.imwrite(str(tmp_path / "read.png"), img2)
    corners2 = " ".join(f"{x:.1f},{y:.1f}" for x, y in given2)
    capsys.readouterr()
    assert (
        main(
            [
                "lattice",
                "read",
                "--size",
                size,
                "--corners",
                corners2,
                "--model",
                str(tmp_path / "m.json"),
                "--image",
                str(tmp_path / "read.png"),
            ]
        )
        == 0
    )
    cap = capsys.readouterr()
    lines = [line.split(" ") for line in cap.out.splitlines()]
    assert len(lines) == rows and all(len(line) == cols for line in lines)
    assert all(lines[r][c] == grid2[r][c] for r in range(rows) for c in range(cols) if (r, c) != (2, 3))
    assert "doubtful places" in cap.err and "2,3" in cap.err.split(":")[-1].split()


@pytest.mark.slow
def test_a_model_of_another_version_is_refused_clearly(tmp_path: Path) -> None:
    model = learned("tokens", (1,))
    data = json.loads(model.to_json())
    data["version"] = 1
    (tmp_path / "old.json").write_text(json.dumps(data))
    with pytest.raises(RefereeError, match="version 1.*learn it\\s+again"):
        lattice.LatticeModel.load(tmp_path / "old.json")
    (tmp_path / "ok.json").write_text(model.to_json())
    again = lattice.LatticeModel.load(tmp_path / "ok.json")
    assert again.size == model.size and again.labels == model.labels
    assert [r.key for r in again.classes.refs] == [r.key for r in model.classes.refs]
    data["version"] = lattice.MODEL_VERSION
    data["classes"][model.classes.refs[0].key]["mean"] = [1.0, 2.0]
    (tmp_path / "bad.json").write_text(json.dumps(data))
    with pytest.raises(RefereeError, match="damaged"):
        lattice.LatticeModel.load(tmp_path / "bad.json")


@pytest.mark.parametrize("colour", [(235, 235, 235), (30, 30, 30)])  # a white cup, a black sleeve
@pytest.mark.slow
def test_an_object_the_colour_of_a_piece_over_places_is_not_read(colour) -> None:
    """Stones of these colours are learned, but an object hides the board between the places
    too: the places under it are unsure, not stones."""
    rows, cols = SCENARIOS["go"][:2]
    model = learned("go", (1,))
    img, grid, given, _ = make_case("go", 2)
    pitch = np.linalg.norm(given[1] - given[0]) / (cols - 1)
    centre = given[0] + (given[1] - given[0]) * 4 / (cols - 1) + (given[3] - given[0]) * 4 / (rows - 1)
    cv2.ellipse(
        img, (int(centre[0]), int(centre[1])), (int(1.6 * pitch), int(1.2 * pitch)), 10, 0, 360, colour, -1, cv2.LINE_AA
    )
    got, sure, _ = lattice.read(model, img, given)
    for r, c in [(4, 4), (4, 3), (4, 5)]:
        assert not sure[r, c], (r, c, got[r][c])
    assert sure.sum() >= rows * cols - 12  # the rest of the board is still read


@pytest.mark.slow
def test_judge_names_why_a_place_is_unsure_and_a_mostly_unknown_picture_has_none_sure() -> None:
    model = learned("tokens", (4, 5))
    img, grid, given, _ = make_case("tokens", 6)
    seen = lattice.describe(img, model.size, given)
    letters, why, _ = model.judge(seen.feats)
    assert set(why) == {""} and letters == [c for row in grid for c in row]
    hidden = np.zeros(len(why), bool)
    hidden[:3] = True
    assert model.judge(seen.feats, hidden)[1] == ["hidden"] * 3 + [""] * (len(why) - 3)
    lit = seen.feats.copy()
    lit[:, :5] += 3.0  # five places far brighter than anything learned
    assert model.judge(lit)[1][:5] == ["far"] * 5
    lit[:, : int(0.6 * len(why))] += 3.0  # most of the picture unlike anything learned
    _, why, _ = model.judge(lit)
    assert "" not in why and "picture" in why
