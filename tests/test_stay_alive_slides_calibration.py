"""Stay Alive's empty looks named by the slides (`VisionSpec.empty_looks`): a labelled picture whose
snapshot gives the slides' positions (`orange:` and `white:` lines) needs no look on the board and
no grouping of the picture to say which point shows the orange slide, the white one or an opening;
and slides that are not the board's are refused in words."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from calibration import vision as cal
from calibration.checks import PlacesRefused
from controller.cli import main
from controller.games import registry
from controller.profile import default_profile, load_profile
from controller.snapshot import EMPTY, Snapshot, format_snapshot
from controller.vision.features import colour_features
from controller.vision.reader import BoardReader
from controller.vision.tops import PlaceLooks
from simulation.render import render_snapshot

#: Slide positions that open no point with the default profile's holes (17 points show white).
NO_OPENING = ("ABCAACA", "BCCBBCC")
ORANGE = np.array([0.14, 0.48, 0.93])  # BGR, relative to the paper
WHITE = np.array([0.86, 0.89, 0.89])


def _snapshot(orange: str, white: str) -> Snapshot:
    cells = tuple(tuple(EMPTY for _ in range(7)) for _ in range(7))
    return Snapshot("stay-alive", cells, {"orange": tuple(orange), "white": tuple(white)})


def _looks(named: list[str], seed: int) -> PlaceLooks:
    """An empty board showing `named`'s slides under a dim light falling off across the board (the
    white slides on the far side as dark as the orange ones on the near side), with sensor noise."""
    rng = np.random.default_rng(seed)
    colour = {".w": WHITE, ".o": ORANGE}
    shade = [0.3 + 0.6 * (i % 7) / 6 for i in range(49)]
    bgr = np.array([colour[k] * s + rng.normal(0, 0.004, 3) for k, s in zip(named, shade)])
    bgr = np.clip(bgr, 1e-3, None)
    return PlaceLooks(heights={}, at={0.0: (colour_features(bgr), np.ones(49))}, medians={0.0: bgr * 200})


def test_the_slides_name_each_points_look() -> None:
    p = default_profile("stay-alive")
    hook = registry.get("stay-alive").vision.empty_looks
    assert hook is not None
    named = hook(p, _snapshot(*NO_OPENING))
    assert named is not None and "open" not in named and named.count(".w") == 17
    opened = hook(p, _snapshot("AAAAAAA", "AAAAAAA"))
    assert opened is not None and "open" in opened
    assert hook(p, Snapshot("stay-alive", _snapshot(*NO_OPENING).cells)) is None  # no slide lines


def test_an_empty_board_with_no_opening_is_learned_by_the_slides(monkeypatch) -> None:
    """With no opening on the board the picture's own groups give the darkest white slides the
    open look; named by the slides, every place is learned as the slide it shows, and the open
    look keeps what it was."""
    p = default_profile("stay-alive")
    snap = _snapshot(*NO_OPENING)
    named = registry.get("stay-alive").vision.empty_looks(p, snap)
    model = cal.model_for(p)
    grouped_wrong = 0
    for seed in range(4):
        looks = _looks(named, seed)
        groups = cal._groups(model, looks, snap, named)
        assert sorted((k, len(v)) for k, v in groups.items()) == [(".o", 32), (".w", 17)]
        found = cal._groups(model, looks, snap)  # the picture's own groups
        grouped_wrong += len(found.get("open", []))
    assert grouped_wrong > 0  # what the slides' names are for
    monkeypatch.setattr(cal, "_looks", lambda profile, image, corners: _looks(named, 0))
    learned = cal.model_for(cal.learn_labelled(p, [(np.zeros((8, 8, 3), np.uint8), snap)]))
    by_key = {ref.key: ref for ref in learned.refs}
    before = {ref.key: ref for ref in model.refs}
    assert np.allclose(by_key["open"].mean, before["open"].mean, atol=1e-4)  # kept (as the profile rounds it)
    white_feats = colour_features(np.array([WHITE * (0.3 + 0.6 * c / 6) for c in range(7)]))
    assert abs(by_key[".w"].mean[1] - np.median(white_feats[:, 1])) < 0.05  # white's chroma, not orange's


def test_slides_that_are_not_the_boards_are_refused(monkeypatch) -> None:
    """The board shows one set of slide positions, the snapshot says another: the places whose look
    the lines name wrongly stand out from their look's others, and the picture is refused with
    them named."""
    p = default_profile("stay-alive")
    hook = registry.get("stay-alive").vision.empty_looks
    shown = hook(p, _snapshot(*NO_OPENING))
    monkeypatch.setattr(cal, "_looks", lambda profile, image, corners: _looks(shown, 1))
    said = _snapshot("BBCAACA", "BCCBBCC")  # the first orange slide one notch off
    assert hook(p, said) != shown
    with pytest.raises(PlacesRefused, match="does not show what the slides' positions say"):
        cal.learn_labelled(p, [(np.zeros((8, 8, 3), np.uint8), said)])


@pytest.mark.slow
def test_referee_calibrate_learns_a_board_with_no_opening_from_its_snapshot(tmp_path, capsys) -> None:
    """`referee calibrate --image EMPTY --snapshot S`, S giving the slides: a rendered empty board
    with no point open is learned and read back; the same picture with slides that are not its own
    is refused in a sentence naming the places, and nothing is written."""
    p = default_profile("stay-alive")
    snap = _snapshot(*NO_OPENING)
    image = tmp_path / "empty.png"
    cv2.imwrite(str(image), render_snapshot(snap, p, seed=3, preset="hard"))
    text = tmp_path / "empty.txt"
    text.write_text(format_snapshot(snap))
    out = tmp_path / "copy.yaml"
    args = ["calibrate", "--game", "stay-alive", "--image", str(image), "--snapshot", str(text), "--out", str(out)]
    assert main(args) == 0
    reading = BoardReader(load_profile(out)).read(cv2.imread(str(image)))
    assert reading.snapshot is not None and all(c == EMPTY for row in reading.snapshot.cells for c in row)
    text.write_text(format_snapshot(_snapshot("BBCAACA", "BCCBBCC")))
    out.unlink()
    assert main(args) != 0
    said = capsys.readouterr()
    assert "does not show what the slides' positions say" in said.err + said.out and "Traceback" not in said.err
    assert not out.exists()


@pytest.mark.slow
def test_the_empty_board_is_learned_by_the_slides_the_switch_board_reports() -> None:
    """`learn_empty` given the switch board's lines (the guided calibration reads them as the picture is
    taken): a rendered empty board with no opening, whose own groups give five orange points the
    open look, is learned as the slides say (the open look kept as it was); slides the board does
    not show are refused in words that send the player to the switches, and a marble left on the board
    is still refused as one."""
    p = default_profile("stay-alive")
    snap = _snapshot(*NO_OPENING)
    image = render_snapshot(snap, p, seed=7, preset="hard")
    named = registry.get("stay-alive").vision.empty_looks(p, snap)
    model = cal.model_for(p)
    grouped = cal._empty_keys(model, cal._looks(p, image, None))
    assert [k for k, n in zip(grouped, named) if k != n] == ["open"] * 5  # what the switches are for
    before = {ref.key: ref.mean for ref in model.refs}
    by_groups = {ref.key: ref.mean for ref in cal.model_for(cal.learn_empty(p, image)).refs}
    by_slides = {ref.key: ref.mean for ref in cal.model_for(cal.learn_empty(p, image, switch_lines=snap.lines)).refs}
    assert not np.allclose(by_groups["open"], before["open"], atol=1e-3)
    assert np.allclose(by_slides["open"], before["open"], atol=1e-4)
    with pytest.raises(PlacesRefused, match="check the slide switches"):
        cal.learn_empty(p, image, switch_lines=_snapshot("BBCAACA", "BCCBBCC").lines)
    cells = [list(row) for row in snap.cells]
    cells[3][3] = "R"
    marble = render_snapshot(snap.with_cells(cells), p, seed=7, preset="hard")
    with pytest.raises(PlacesRefused, match="is not an empty board") as refused:
        cal.learn_empty(p, marble, switch_lines=snap.lines)
    assert refused.value.places == [(3, 3)]
