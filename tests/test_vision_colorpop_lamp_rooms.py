"""Colorpop calibrations a lamp's light makes impossible say so truly, and what to change (3D scenes,
`bench/scenes3d.py`; pictures stored as JPEG in tests/data/scenes3d).

- Room 9 (a webcam, a green lamp): a green token at A1 in the lamp's sheen comes near the empty look
  learned from the empty board, which the lamp's light made broad; the nearest look alone took it for
  an empty slot and the setup was refused as "not a full setup: the places A1 are empty", which sends
  the player looking for a token that is there. The reader, with every check it makes in play (the
  sheen's colour), is not sure of it: the sentence says the light leaves it unsure, and to move the
  lamp or use a white light (`calibration/vision.py`, `_not_full`).
- Room 3 (a webcam, a warm lamp): the yellow and orange tokens of the bottom-row picture lie under the
  lamp's reflection, 1.3-1.5 times as bright as the paper in every channel (red clipped), and read as
  jokers. No diffuse surface sends back more than the paper: the refusal says to move the lamp
  (`reflections.ReflectionCheck.beside`, with no allowance for the markers' papers differing; the
  lamp brightens the paper of the marker nearest it).
"""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

from controller import cli

PICTURES = Path(__file__).with_name("data") / "scenes3d"


def _calibrate(tmp_path: Path, room: int) -> tuple[int, str]:
    args = ["calibrate", "--game", "colorpop", "--out", str(tmp_path / "profile.yaml")]
    for flag, picture in (("--empty", "empty"), ("--bottom-row", "bottom-row"), ("--setup", "setup")):
        args += [flag, str(PICTURES / f"colorpop-room{room}-calibration-{picture}.jpg")]
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(args)
    return code, (err.getvalue() or out.getvalue()).strip()


def test_a_token_the_lamps_sheen_makes_look_empty_is_not_called_missing(tmp_path: Path) -> None:
    code, said = _calibrate(tmp_path, 9)
    assert code != 0 and not (tmp_path / "profile.yaml").exists()
    assert "not a full setup" not in said and "empty" in said, said  # before: "the places A1 are empty"
    assert "A1" in said and "move the lamp" in said and "white light" in said, said


def test_a_bottom_row_under_a_warm_lamps_reflection_is_refused_with_the_lamps_advice(tmp_path: Path) -> None:
    code, said = _calibrate(tmp_path, 3)
    assert code != 0 and "bottom-row" in said and "B10" in said, said
    assert "a lamp is reflected there" in said and "move the lamp" in said, said  # before: no advice
