"""Vision on physically rendered 3D scenes: calibrate and read as a user would, per game.

For every game and every room (`--rooms`, each its own copy of the game and its own room: a Pi
camera module or a webcam, its pose, the room's light, a ceiling panel, a desk lamp, all from the
room's seed; `simulation/scene3d.py`), Blender's Cycles renders:

* the calibration pictures the game takes (`referee calibrate`, as README.md documents them: the
  empty board, one piece of each colour, the full setup or the start position), and
  `referee calibrate` learns the copy from them (in-process, with the same arguments);
* `--boards` random positions, each with the desk lamp on or off, read with the learned profile;
* `--hands` positions with an arm reaching over the board (the reader must say a hand is there);
* `--sleeves` positions with an arm in a dark sleeve (grey to black, the lamp on): as dark over the
  frame band as a lamp's hard shadow, and a hand all the same;
* `--shadows` lamp-lit positions with a hard shadow across the frame band, cast by a box taller
  than the desk lamp standing beside the board, out of the camera's view (`scene3d.Shade`, its place
  along the side and its width from the seed; none in a room whose lamp stands over the board).

Printed per game: places right / unsure / wrong-but-sure and the share read (an empty Stay Alive
point is right only when it is also read open or closed as it is), positions with the desk lamp
on and off, hands seen (dark sleeves apart), boards taken for a hand where there was none, hard shadows taken for a
hand (a lamp's hard shadow is never a hand), the Blockers! glyphs (on tiles read in the right
colour) and Flipop doors right / unsure / wrong-but-sure, and every refused calibration with its
sentence. Targets: at least 99% read and none wrong-but-sure in every game (glyphs and doors
included); every hand seen and no hand where there is none. `--show` lists the wrong-but-sure
places, `--unsure` the unsure ones.

Renders are cached on disk (`--cache`, by the hash of each scene's description), so a second run
only reads. A render takes 20-60 s of one core at the default size and samples: the first run of
the default set (4 games x 2 rooms) takes about an hour on one core. The renderer lives in its own
environment (`make render3d`, made here when missing, about 400 MB).

    python bench/scenes3d.py [--games colorpop,...] [--rooms N] [--first-room K] [--boards N]
                             [--hands N] [--sleeves N] [--shadows N] [--samples N] [--threads N] [--cache DIR]
                             [--pictures DIR]
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # as the referee runs (controller/__init__.py)

import argparse
import contextlib
import io
import random
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import cv2  # noqa: E402
import numpy as np  # noqa: E402

from controller import cli  # noqa: E402
from controller.games.flipop.play import random_doors  # noqa: E402
from controller.profile import default_profile, load_profile  # noqa: E402
from controller.snapshot import EMPTY, Snapshot  # noqa: E402
from controller.vision.geometry import LatticeGeometry  # noqa: E402
from controller.vision.reader import HAND, BoardReader  # noqa: E402
from simulation import scene3d as s3  # noqa: E402
from simulation.drawing import stay_alive_points  # noqa: E402
from simulation.render import random_snapshot  # noqa: E402

GAMES = ["colorpop", "blockers", "flipop", "stay-alive"]
#: The `referee calibrate` option each guided-calibration picture goes with.
FLAGS = {"empty": "--empty", "pieces": "--pieces", "bottom-row": "--bottom-row", "setup": "--setup", "start": "--setup"}


@dataclass
class Picture:
    """One picture of a room: what is on the board, the lamp, a hand, and its render."""

    name: str
    board: Snapshot
    lamp_on: bool
    hand: s3.Hand | None = None
    shade: s3.Shade | None = None  # something out of view casting the lamp's hard shadow over the band
    step: str | None = None  # the calibration picture it is ("empty", "setup", ...), or None
    job: dict | None = None
    image: np.ndarray | None = None

    def scene(self) -> dict:
        """Its scene's description (planned before anything renders)."""
        if self.job is None:
            raise RuntimeError(f"{self.name} was never planned")
        return self.job

    def picture(self) -> np.ndarray:
        """Its developed picture (there once its scene has rendered)."""
        if self.image is None:
            raise RuntimeError(f"{self.name} was never developed")
        return self.image


@dataclass
class RoomPlan:
    game: str
    seed: int
    copy: s3.Copy
    room: s3.Room
    pictures: list[Picture] = field(default_factory=list)


def calibration_boards(game: str, seed: int) -> list[tuple[str, Snapshot]]:
    """The calibration pictures' boards as a person following the guided calibration sets them."""
    from calibration.guided import steps_for
    from simulation.setup_person import SetupPerson, setup_world

    world = setup_world(game, seed)
    person = SetupPerson(world, seed)
    out = []
    for step in steps_for(world.profile):
        if step.key in FLAGS:
            out.append((step.key, person.follow(step)))
    return out


def plan_room(
    game: str, seed: int, boards: int, hands: int, samples: int, textures: Path, shadows: int = 0, sleeves: int = 0
) -> RoomPlan:
    p = default_profile(game)
    copy, room = s3.Copy.make(game, seed), s3.Room.make(game, p, seed)
    plan = RoomPlan(game, seed, copy, room)
    rng = random.Random(f"{game}/{seed}")
    lamp_for_calibration = rng.random() < 0.6
    for key, board in calibration_boards(game, seed):
        plan.pictures.append(Picture(f"calibration-{key}", board, lamp_for_calibration, step=key))
    for k in range(boards + hands):
        board = random_snapshot(game, p, seed=7000 + 100 * seed + k)
        if board.line("doors") is None and p.get("start"):
            board = board.with_line("doors", random_doors(p, 7000 + 100 * seed + k))
        hand = None
        if k >= boards:
            side = rng.choice(["bottom", "top", "left", "right"])
            hand = s3.Hand(rng.uniform(0, p.rows - 1), rng.uniform(0, p.cols - 1), side, rng.uniform(10, 60))
        name = f"board-{k}" if hand is None else f"hand-{k - boards}"
        plan.pictures.append(Picture(name, board, rng.random() < 0.6, hand))
    geom = LatticeGeometry.from_profile(p)
    for k in range(shadows):
        shade = s3.Shade.make(room, geom, k)
        if shade is not None:  # none when the lamp stands over the board
            board = random_snapshot(game, p, seed=9000 + 100 * seed + k)
            if board.line("doors") is None and p.get("start"):
                board = board.with_line("doors", random_doors(p, 9000 + 100 * seed + k))
            plan.pictures.append(Picture(f"shadow-{k}", board, True, shade=shade))
    dark = random.Random(f"sleeves/{game}/{seed}")  # its own draws: the other pictures stay as they were
    for k in range(sleeves):
        board = random_snapshot(game, p, seed=9500 + 100 * seed + k)
        if board.line("doors") is None and p.get("start"):
            board = board.with_line("doors", random_doors(p, 9500 + 100 * seed + k))
        grey = dark.uniform(15, 80)
        b, g, r = (int(round(grey + dark.uniform(-6, 6))) for _ in range(3))
        sleeve = (b, g, r)
        side = dark.choice(["bottom", "top", "left", "right"])
        # Reaching far across the board, so that the sleeve, not the hand, crosses the near band.
        far = {"bottom": (0.0, 0.3), "top": (0.7, 1.0), "left": (0.7, 1.0), "right": (0.0, 0.3)}[side]
        across = dark.uniform(*far)
        row = across * (p.rows - 1) if side in ("bottom", "top") else dark.uniform(0, p.rows - 1)
        col = across * (p.cols - 1) if side in ("left", "right") else dark.uniform(0, p.cols - 1)
        hand = s3.Hand(row, col, side, dark.uniform(10, 60), sleeve=sleeve)
        plan.pictures.append(Picture(f"sleeve-{k}", board, True, hand))
    for pic in plan.pictures:
        pic.job = s3.scene(
            pic.board,
            p,
            copy,
            room,
            Path(pic.name),
            textures=textures,
            lamp_on=pic.lamp_on,
            hand=pic.hand,
            shade=pic.shade,
            samples=samples,
        )
    return plan


def develop_room(plan: RoomPlan, raws: list[np.ndarray]) -> None:
    """The pictures the room's camera delivers: a camera whose exposure and white balance are locked
    keeps what it chose on the first calibration picture."""
    cam = plan.room.camera
    locked = s3.Exposure.measure(raws[0]) if cam.locked else None
    for k, (pic, raw) in enumerate(zip(plan.pictures, raws)):
        pic.image = s3.develop(raw, cam, 1000 * plan.seed + k, locked)


def calibrate(plan: RoomPlan, folder: Path) -> tuple[object | None, str]:
    """`referee calibrate` on the room's calibration pictures: (the profile, or None, and what it said)."""
    folder.mkdir(parents=True, exist_ok=True)
    args = ["calibrate", "--game", plan.game, "--out", str(folder / "profile.yaml")]
    for pic in plan.pictures:
        path = folder / f"{pic.name}.png"
        cv2.imwrite(str(path), pic.picture())
        if pic.step is not None:
            args += [FLAGS[pic.step], str(path)]
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(args)
    said = (err.getvalue() or out.getvalue()).strip()
    if code != 0:
        return None, said
    return load_profile(folder / "profile.yaml"), said


@dataclass
class Tally:
    places: int = 0
    right: int = 0
    unsure: int = 0
    wrong: int = 0
    boards_lamp: list[int] = field(default_factory=lambda: [0, 0])  # boards read exactly, of those with the lamp on
    boards_dark: list[int] = field(default_factory=lambda: [0, 0])
    hands: list[int] = field(default_factory=lambda: [0, 0])  # hands seen, hand pictures
    sleeves: list[int] = field(default_factory=lambda: [0, 0])  # of those, arms in a dark sleeve
    false_hands: int = 0
    shadows: list[int] = field(default_factory=lambda: [0, 0])  # shadows taken for a hand, shadow pictures
    refused: list[str] = field(default_factory=list)
    wrong_where: list[str] = field(default_factory=list)
    unsure_where: list[str] = field(default_factory=list)
    shapes: list[int] = field(default_factory=lambda: [0, 0, 0])  # glyphs and doors: right, unsure, wrong


def read_room(plan: RoomPlan, profile, tally: Tally) -> None:
    rows, cols = len(plan.pictures[0].board.cells), len(plan.pictures[0].board.cells[0])
    for pic in plan.pictures:
        if pic.step is not None:
            continue
        if profile is None:  # calibration refused: the referee cannot read this copy
            if pic.hand is None:
                tally.places += rows * cols
                tally.unsure += rows * cols
            continue
        reader = BoardReader(profile)
        if pic.hand is not None:  # it saw the board before the arm came, as in play (the camera stays)
            reader.read(next(p.picture() for p in plan.pictures if p.step is None and p.hand is None))
        reading = reader.read(pic.picture())
        saw_hand = reading.problem is not None and reading.problem.startswith(HAND)
        if pic.hand is not None:
            tally.hands[1] += 1
            tally.hands[0] += saw_hand
            if pic.hand.sleeve is not None:
                tally.sleeves[1] += 1
                tally.sleeves[0] += saw_hand
            if reading.snapshot is not None:  # read as a board although an arm is over it
                _count(pic, reading, tally, plan, profile, only_wrong=True)
            continue
        if pic.shade is not None:  # only whether its hard shadow is taken for a hand, and nothing wrong
            tally.shadows[1] += 1
            tally.shadows[0] += saw_hand
            if reading.snapshot is not None:
                _count(pic, reading, tally, plan, profile, only_wrong=True)
            continue
        tally.false_hands += saw_hand
        exact = _count(pic, reading, tally, plan, profile)
        which = tally.boards_lamp if pic.lamp_on else tally.boards_dark
        which[1] += 1
        which[0] += exact


def _count(pic: Picture, reading, tally: Tally, plan: RoomPlan, profile, only_wrong: bool = False) -> bool:
    """Places right / unsure / wrong-but-sure. An empty Stay Alive point is right only when its
    openness is too (a marble falls through an open point, so reading it closed is wrong)."""
    truth = [[c[:1] for c in row] for row in pic.board.cells]
    open_points, _ = stay_alive_points(pic.board, profile)
    exact = True
    if not only_wrong and reading.cells is not None:
        _count_shapes(pic, reading, tally, plan)
    for r, row in enumerate(truth):
        for c, want in enumerate(row):
            got = reading.cells[r][c][:1] if reading.cells is not None else "?"
            if not only_wrong:
                tally.places += 1
            if got == "?":
                tally.unsure += not only_wrong
                exact = False
                if not only_wrong:
                    tally.unsure_where.append(f"room {plan.seed} {pic.name} r{r}c{c} {want or EMPTY} lamp {_on(pic)}")
            elif got == want and ((r, c) in open_points) == ((r, c) in reading.open_points):
                tally.right += not only_wrong
            else:
                tally.wrong += 1
                exact = False
                said = got if got != want else "open" if (r, c) in reading.open_points else "closed"
                where = f"room {plan.seed} {pic.name} r{r}c{c}"
                tally.wrong_where.append(f"{where} {want or EMPTY}->{said} lamp {_on(pic)}")
    return exact


def _count_shapes(pic: Picture, reading, tally: Tally, plan: RoomPlan) -> None:
    """Glyphs on tiles read in the right colour, and doors: right, unsure (`?`), wrong but sure."""
    pairs = [
        (want[1:], got[1:], f"r{r}c{c}")
        for r, (wants, gots) in enumerate(zip(pic.board.cells, reading.cells))
        for c, (want, got) in enumerate(zip(wants, gots))
        if len(want) > 1 and len(got) > 1 and want[:1] == got[:1]
    ]
    doors = pic.board.line("doors")
    if doors is not None and reading.doors is not None:
        pairs += [(want, got, f"post {k}") for k, (want, got) in enumerate(zip(doors, reading.doors))]
    for want, got, where in pairs:
        k = 1 if "?" in got else 0 if got == want else 2
        tally.shapes[k] += 1
        if k == 2:
            tally.wrong_where.append(f"room {plan.seed} {pic.name} {where} {want}->{got} lamp {_on(pic)}")


def _on(pic: Picture) -> str:
    return "on" if pic.lamp_on else "off"


def ensure_renderer() -> None:
    if not s3.RENDER_PYTHON.exists() and "REFEREE_RENDER_PYTHON" not in os.environ:
        print("the 3D renderer is not installed: running `make render3d` (Blender's bpy, about 400 MB)", flush=True)
        subprocess.run(["make", "-C", str(REPO), "render3d"], check=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", default=",".join(GAMES))
    ap.add_argument("--rooms", type=int, default=2, help="rooms (copies, cameras, lights) per game")
    ap.add_argument("--first-room", type=int, default=0, help="seed of the first room")
    ap.add_argument("--boards", type=int, default=8, help="random positions per room")
    ap.add_argument("--hands", type=int, default=2, help="positions with an arm over the board per room")
    ap.add_argument("--sleeves", type=int, default=1, help="positions per room with an arm in a dark sleeve")
    ap.add_argument(
        "--shadows", type=int, default=3, help="lamp-lit positions per room with a hard shadow across the band"
    )
    ap.add_argument("--samples", type=int, default=6, help="path-tracing samples per pixel (then denoised)")
    ap.add_argument("--threads", type=int, default=1, help="render threads")
    ap.add_argument("--cache", default=str(REPO / "out" / "scenes3d"), help="where renders are kept")
    ap.add_argument("--pictures", default=None, help="also keep every developed picture and profile here")
    ap.add_argument("--show", action="store_true", help="list every wrong-but-sure place")
    ap.add_argument("--unsure", action="store_true", help="list every unsure place (rows and columns from 0)")
    args = ap.parse_args()
    cv2.setNumThreads(1)
    games = args.games.split(",")
    renderer = s3.Renderer3D(Path(args.cache), threads=args.threads)
    plans = [
        plan_room(g, seed, args.boards, args.hands, args.samples, renderer.textures, args.shadows, args.sleeves)
        for g in games
        for seed in range(args.first_room, args.first_room + args.rooms)
    ]
    jobs = [pic.scene() for plan in plans for pic in plan.pictures]
    if renderer.missing(jobs):
        ensure_renderer()
    raws = renderer.render(jobs)
    k = 0
    tallies = {g: Tally() for g in games}
    pictures = Path(args.pictures) if args.pictures else Path(args.cache) / "pictures"
    for plan in plans:
        n = len(plan.pictures)
        develop_room(plan, raws[k : k + n])
        k += n
        profile, said = calibrate(plan, pictures / f"{plan.game}-room{plan.seed}")
        tally = tallies[plan.game]
        if profile is None:
            tally.refused.append(f"room {plan.seed} ({plan.room.camera.kind}): {said}")
        read_room(plan, profile, tally)
    print(
        f"{'game':11} {'places':>6} {'right':>6} {'unsure':>6} {'wrong':>5} {'read%':>7}"
        f"  {'exact lamp on':>13} {'lamp off':>8} {'hands seen':>10} {'sleeves':>7} {'false hands':>11}"
        f" {'shadow->hand':>12} {'refused':>7}"
    )
    ok = True
    for g in games:
        t = tallies[g]
        pct = 100 * t.right / max(t.places, 1)
        print(
            f"{g:11} {t.places:6d} {t.right:6d} {t.unsure:6d} {t.wrong:5d} {pct:7.2f}"
            f"  {t.boards_lamp[0]:>6}/{t.boards_lamp[1]:<6} {t.boards_dark[0]:>3}/{t.boards_dark[1]:<4}"
            f" {t.hands[0]:>5}/{t.hands[1]:<4} {t.sleeves[0]:>3}/{t.sleeves[1]:<3} {t.false_hands:11d}"
            f" {t.shadows[0]:>7}/{t.shadows[1]:<4}"
            f" {len(t.refused):7d}",
            flush=True,
        )
        ok &= pct >= 99 and t.wrong == 0 and t.false_hands == 0 and t.hands[0] == t.hands[1] and not t.refused
        ok &= t.shadows[0] == 0
        ok &= t.shapes[2] == 0
    for g in games:
        right, unsure, wrong = tallies[g].shapes
        if right + unsure + wrong:
            print(f"{g} glyphs and doors: {right} right, {unsure} unsure, {wrong} wrong but sure")
    for g in games:
        for line in tallies[g].refused:
            print(f"{g} calibration refused, {line}")
        if args.show:
            for line in tallies[g].wrong_where:
                print(f"{g} wrong: {line}")
        if args.unsure:
            for line in tallies[g].unsure_where:
                print(f"{g} unsure: {line}")
    print("targets met" if ok else "TARGETS MISSED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
