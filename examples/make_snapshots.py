"""Write the example inputs the README's commands take (deterministic; made by the project's own code).

    python examples/make_snapshots.py

- `snapshots/GAME.txt`: one board snapshot per game (notation.md section 1), taken from the example
  game records: Colorpop's full setup (what `referee calibrate --setup` wants to see), a board in
  mid-game for the others (Flipop with its doors line, Stay Alive with its slide positions);
- `snapshots/calibration/`: the boards `referee calibrate` learns Colorpop's empty slots, Blockers! and Stay Alive from
  (empty board, one piece of each colour on the top row, Colorpop's bottom row, the Blockers! glyph arrangement);
- `stay-alive-grids.txt`: the nine observation grids of the default Stay Alive copy, the input of
  `referee holes derive` (format: calibration/holes.py);
- `lattice/`: two camera pictures of a Colorpop board read as a plain 10x10 lattice, the labels of
  the first, and `corners.txt` (the lattice's corner points in both, same camera), for `referee lattice`.
"""

from __future__ import annotations

import itertools
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import cv2  # noqa: E402

from calibration.holes import format_grids, observe  # noqa: E402
from calibration.vision import bottom_row_cells  # noqa: E402
from calibration.vision_glyphs import ARRANGEMENT  # noqa: E402
from controller.games.stay_alive.holes import pattern_of  # noqa: E402
from controller.profile import default_profile  # noqa: E402
from controller.record import load_record  # noqa: E402
from controller.snapshot import Snapshot, empty_snapshot, format_snapshot  # noqa: E402
from controller.vision.geometry import LatticeGeometry, project  # noqa: E402
from simulation.render import random_snapshot, render_scene  # noqa: E402

HERE = Path(__file__).resolve().parent
#: game -> (example record, which board: 0 the setup, else that observation's index)
SOURCES = {
    "colorpop": ("colorpop-standard.yaml", 0),
    "blockers": ("blockers-3-players.yaml", 12),
    "flipop": ("flipop-standard.yaml", 6),
    "stay-alive": ("stay-alive-2p.yaml", 8),
}
LATTICE_SEED = 5  # camera pose and light of both lattice pictures
LATTICE_SIZE = (960, 540)


def board_of(record_name: str, index: int) -> Snapshot:
    record = load_record(HERE / record_name)
    boards = [record.board] + [o for o in record.observations if isinstance(o, Snapshot)]
    return boards[min(index, len(boards) - 1)]


def write_snapshots() -> None:
    for game, (record_name, index) in SOURCES.items():
        head = f"# {game}: board {index} of examples/{record_name} (written by examples/make_snapshots.py)\n"
        (HERE / "snapshots" / f"{game}.txt").write_text(head + format_snapshot(board_of(record_name, index)))


def write_calibration_boards() -> None:
    """The boards `referee calibrate` wants pictures of (drawn with `referee render` in the README)."""
    folder = HERE / "snapshots" / "calibration"
    folder.mkdir(exist_ok=True)
    head = "# {what} (written by examples/make_snapshots.py)\n"
    blockers = default_profile("blockers")
    empty = empty_snapshot("blockers")
    pieces = [list(row) for row in empty.cells]
    for col, letter in enumerate(blockers.letters):
        pieces[0][col] = f"{letter}1"
    glyphs = [list(row) for row in empty.cells]
    for glyph, (row, col) in ARRANGEMENT.items():
        glyphs[row][col] = f"R{glyph}"
    boards = {
        "blockers-empty": (empty.cells, "Blockers!: the empty board"),
        "blockers-pieces": (pieces, "Blockers!: one tile of each colour on the top row, in the profile's order"),
        "blockers-glyphs": (glyphs, "Blockers!: one colour's 28 tiles in the glyph arrangement"),
    }
    for name, (cells, what) in boards.items():
        snap = Snapshot("blockers", tuple(tuple(row) for row in cells))
        (folder / f"{name}.txt").write_text(head.format(what=what) + format_snapshot(snap))
    colorpop_empty = empty_snapshot("colorpop")
    (folder / "colorpop-empty.txt").write_text(
        head.format(what="Colorpop: the empty board, the slots' own look") + format_snapshot(colorpop_empty)
    )
    bottom = Snapshot("colorpop", tuple(tuple(row) for row in bottom_row_cells(default_profile("colorpop"))))
    (folder / "colorpop-bottom-row.txt").write_text(
        head.format(what="Colorpop: one token of each colour on the bottom row, in the profile's order")
        + format_snapshot(bottom)
    )
    stay = default_profile("stay-alive")
    orange, white = closed_top_row(stay, len(stay.letters))
    empty = empty_snapshot("stay-alive")
    pieces = [list(row) for row in empty.cells]
    for col, letter in enumerate(stay.letters):
        pieces[0][col] = letter
    for name, cells, what in (
        ("stay-alive-empty", empty.cells, "Stay Alive: the empty grid"),
        ("stay-alive-pieces", pieces, "Stay Alive: one marble of each colour on the top row, in the profile's order"),
    ):
        snap = Snapshot("stay-alive", tuple(tuple(row) for row in cells), {"orange": orange, "white": white})
        (folder / f"{name}.txt").write_text(head.format(what=what) + format_snapshot(snap))


def closed_top_row(profile, count: int) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Slide positions where the first `count` points of the top row are closed (a marble can rest there)."""
    pattern = pattern_of(profile)
    for orange_top in "ABC":
        for white in itertools.product("ABC", repeat=7):
            orange = (orange_top,) + ("A",) * 6
            opened = pattern.open_points(orange, white)
            if not any((0, col) in opened for col in range(count)):
                return orange, tuple(white)
    raise SystemExit("no slide positions close the top row: check the default hole pattern")


def write_grids() -> None:
    pattern = pattern_of(default_profile("stay-alive"))
    head = "# The nine observations of the default Stay Alive copy (written by examples/make_snapshots.py)\n"
    (HERE / "stay-alive-grids.txt").write_text(head + format_grids(observe(pattern)))


def write_lattice() -> str:
    profile = default_profile("colorpop")
    folder = HERE / "lattice"
    corners = ""
    for number, seed in ((1, 21), (2, 22)):
        snap = random_snapshot("colorpop", profile, seed=seed)
        image, hom = render_scene(snap, profile, seed=LATTICE_SEED, size=LATTICE_SIZE)
        cv2.imwrite(str(folder / f"photo{number}.jpg"), image, [cv2.IMWRITE_JPEG_QUALITY, 90])
        (folder / f"photo{number}.txt").write_text("\n".join(" ".join(row) for row in snap.cells) + "\n")
        points = project(hom, LatticeGeometry(profile.rows, profile.cols).corner_points())
        corners = " ".join(f"{x:.0f},{y:.0f}" for x, y in points)
    (folder / "corners.txt").write_text(corners + "\n")
    return corners


if __name__ == "__main__":
    write_snapshots()
    write_calibration_boards()
    write_grids()
    print("lattice corners:", write_lattice())
