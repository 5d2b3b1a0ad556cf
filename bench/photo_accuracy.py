"""Accuracy of `referee lattice` on real photographs (`../shared/photos/`, see its README).

Per folder a model is learned from ONE labelled photo, the first in natural name order whose
labels hold every label of the folder (the README's table), and every other photo of the folder
is read with its own corners. `go-tengen-empty` has no stones: each of its photos is read with
the model of the same lattice size learned in another folder (9x9 and 13x13 from the webcam
games, 19x19 from seegoban). Printed per folder: places read, right (sure and right), unsure,
wrong-but-sure; then the totals with and without the empty boards.

    python bench/photo_accuracy.py [--photos DIR] [--folders a,b,...] [--show] [--why] [--cross]

`--show` lists every wrong-but-sure place (photo, row, column, truth, reading; across folders
and sizes too, under the pair that read it); `--why` prints per
folder why places were unsure, by true label: the board hidden around the place, far from every
learned look, too near a look of another label, not past a label pair's cross-validated margin,
the looks and the board-independent flatness sure of opposite things, or the whole picture
unexplained by the model (see `LatticeModel.judge`).

`--cross` then reads every folder with the models learned in the *other* folders of the same
lattice size whose labels cover it (boards, pieces and cameras the model never saw: a check that
nothing was tuned to a folder); only wrong-but-sure matters there, and it should stay 0. Then it
reads every folder of pieces with the models of the folders of another lattice size (a place's
looks know nothing of the lattice's size): the one 19x19 folder with stones has no other 19x19
folder to be read with, so only this shows what a rule does for it across folders.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # as the referee runs (controller/__init__.py)

import argparse
import re
import sys
import time
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from controller.vision import lattice  # noqa: E402
from controller.vision.geometry import parse_corners  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
EMPTY_FOLDER = "go-tengen-empty"
#: lattice size -> the folder whose model reads the empty boards of that size
EMPTY_MODELS = {9: "go-tengen-9x9-webcam", 13: "go-tengen-13x13-webcam", 19: "go-seegoban-19x19"}


def photos_dir() -> Path | None:
    """The shared photographs: `../shared/photos` beside the repository, else /work/shared/photos."""
    for p in (REPO.parent / "shared" / "photos", Path("/work/shared/photos")):
        if p.is_dir():
            return p
    return None


def natural_key(name: str) -> list:
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", name)]


@dataclass
class Photo:
    name: str
    image_path: Path
    grid: list[list[str]]
    corners: str

    @property
    def size(self) -> tuple[int, int]:
        return len(self.grid), len(self.grid[0])

    def image(self):
        return lattice.load_image(self.image_path)


def folder_photos(folder: Path) -> list[Photo]:
    """Every labelled photo of a folder, in natural name order."""
    shared = folder / "corners.txt"
    out = []
    for txt in sorted(folder.glob("*.txt"), key=lambda p: natural_key(p.stem)):
        if txt.name == "corners.txt":
            continue
        image = next((txt.with_suffix(ext) for ext in (".jpg", ".png") if txt.with_suffix(ext).is_file()), None)
        if image is None:
            continue
        own = txt.with_suffix(".corners")
        corners = (own if own.is_file() else shared).read_text().strip()
        grid = [line.split() for line in txt.read_text().splitlines() if line.strip()]
        out.append(Photo(txt.stem, image, grid, corners))
    return out


def teacher(photos: list[Photo]) -> Photo:
    """The first photo whose labels hold every label that occurs in the folder."""
    every = {c for p in photos for row in p.grid for c in row}
    return next(p for p in photos if {c for row in p.grid for c in row} == every)


def learn_from(photo: Photo) -> lattice.LatticeModel:
    return lattice.learn([(photo.image(), photo.grid)], photo.size, [parse_corners(photo.corners)])


@dataclass
class Score:
    places: int = 0
    right: int = 0
    unsure: int = 0
    wrong: int = 0
    seconds: float = 0.0
    mistakes: list[str] = field(default_factory=list)
    doubts: Counter = field(default_factory=Counter)  # (true label, why unsure) -> places

    def add(self, other: Score) -> None:
        self.places += other.places
        self.right += other.right
        self.unsure += other.unsure
        self.wrong += other.wrong
        self.seconds += other.seconds
        self.doubts.update(other.doubts)

    def line(self, name: str) -> str:
        pct = 100 * self.right / max(self.places, 1)
        return (
            f"{name:26s} {self.places:6d} {self.right:6d} {pct:7.2f}% {self.unsure:6d} {self.wrong:6d}"
            f" {self.seconds:7.1f}"
        )


def score(model: lattice.LatticeModel, photo: Photo) -> Score:
    s = Score()
    t0 = time.perf_counter()
    seen = lattice.describe(photo.image(), photo.size, parse_corners(photo.corners))
    # as lattice.read, with the reasons
    got, why, _ = model.judge(seen.feats, seen.hidden, seen.flat, seen.bounds, seen.away, seen.rectified)
    s.seconds = time.perf_counter() - t0
    cols = photo.size[1]
    for r, row in enumerate(photo.grid):
        for c, truth in enumerate(row):
            s.places += 1
            i = r * cols + c
            if why[i]:
                s.unsure += 1
                s.doubts[(truth, why[i])] += 1
            elif got[i] == truth:
                s.right += 1
            else:
                s.wrong += 1
                s.mistakes.append(f"{photo.name} row {r} col {c}: {truth} read {got[i]}")
    return s


def run_folder(root: Path, name: str, models: dict[str, lattice.LatticeModel]) -> Score:
    """Learn (or borrow the models) and read one folder's photos."""
    photos = folder_photos(root / name)
    total = Score()
    if name == EMPTY_FOLDER:
        for p in photos:
            source = EMPTY_MODELS[p.size[0]]
            if source not in models:
                models[source] = learn_from(teacher(folder_photos(root / source)))
            s = score(models[source], p)
            total.add(s)
            total.mistakes += s.mistakes
        return total
    first = teacher(photos)
    models[name] = model = learn_from(first)
    for p in photos:
        if p is first:
            continue
        s = score(model, p)
        total.add(s)
        total.mistakes += s.mistakes
    return total


def on_lattice(model: lattice.LatticeModel, size: tuple[int, int]) -> lattice.LatticeModel:
    """The model reading a lattice of `size`: a place's looks are measured against the light at
    that place and know nothing of the lattice's size; only the rules that compare a place with
    its neighbours need the picture's rows and columns."""
    return model if size == model.size else replace(model, size=size)


def run_cross(
    root: Path,
    names: list[str],
    models: dict[str, lattice.LatticeModel],
    other_sizes: bool = False,
    show: bool = False,
) -> Score:
    """Every folder read with the models of the other folders of its lattice size (`--cross`):
    one line per (model's folder -> photos' folder) pair, then the total. `other_sizes`: instead,
    the folders of another lattice size whose labels the model knows, empty boards left out (a
    19x19 Go board's model on the 13x13 and 9x9 games and back: the only way to read the one
    19x19 folder with stones with another folder's model)."""
    total = Score()
    for source in names:
        if source == EMPTY_FOLDER:
            continue
        model = models.get(source) or learn_from(teacher(folder_photos(root / source)))
        for target in names:
            if target == source or (other_sizes and target == EMPTY_FOLDER):
                continue
            pair = Score()
            photos = folder_photos(root / target)
            if other_sizes and not {c for p in photos for row in p.grid for c in row} <= set(model.labels):
                continue  # another game's pieces (a chess photo of white pieces only is no Go game)
            for p in photos:
                if (p.size != model.size) == other_sizes and {c for row in p.grid for c in row} <= set(model.labels):
                    s = score(on_lattice(model, p.size), p)
                    pair.add(s)
                    pair.mistakes += s.mistakes
            if pair.places:
                total.add(pair)
                print(pair.line(f"{source} -> {target}"))
                if show:
                    for m in pair.mistakes:
                        print("   wrong but sure:", m)
    return total


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--photos", help="the photographs' folder (default ../shared/photos)")
    ap.add_argument("--folders", help="comma-separated folder names (default: all)")
    ap.add_argument("--show", action="store_true", help="list every wrong-but-sure place")
    ap.add_argument("--why", action="store_true", help="why places were unsure, by true label")
    ap.add_argument(
        "--cross",
        action="store_true",
        help="also read every folder with the other folders' models (its lattice size's, then another's)",
    )
    args = ap.parse_args(argv)
    root = Path(args.photos) if args.photos else photos_dir()
    if root is None or not root.is_dir():
        print("no photographs: ../shared/photos (or /work/shared/photos) is missing", file=sys.stderr)
        return 2
    names = args.folders.split(",") if args.folders else sorted(p.name for p in root.iterdir() if p.is_dir())
    # Folders that lend models first, so the empty boards can borrow them.
    names.sort(key=lambda n: n == EMPTY_FOLDER)
    print(f"{'folder':26s} {'places':>6s} {'right':>6s} {'right%':>8s} {'unsure':>6s} {'wrong':>6s} {'secs':>7s}")
    models: dict[str, lattice.LatticeModel] = {}
    total, boards = Score(), Score()
    for name in names:
        s = run_folder(root, name, models)
        print(s.line(name))
        if args.show:
            for m in s.mistakes:
                print("   wrong but sure:", m)
        if args.why and s.doubts:
            print("   unsure:", ", ".join(f"{truth} {why} {n}" for (truth, why), n in sorted(s.doubts.items())))
        total.add(s)
        if name != EMPTY_FOLDER:
            boards.add(s)
    print(boards.line("total without empty"))
    print(total.line("total"))
    if args.cross:
        print("models read on the other folders of their lattice size:")
        print(run_cross(root, names, models, show=args.show).line("total across folders"))
        print("models read on the folders of pieces of another lattice size:")
        print(run_cross(root, names, models, other_sizes=True, show=args.show).line("total across lattice sizes"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
