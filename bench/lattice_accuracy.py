"""Accuracy of the generic lattice path (`referee lattice learn/read`) on boards it was not built for.

Besides our own renderer (`hard` preset), boards of other games are synthesised here with a look
of their own, so the figures do not flatter the reader by sharing the renderer's style: a Go
board (wood grain, grid lines, black and white stones with shading and a specular highlight),
Connect Four (red and yellow discs in a blue frame, the room showing through empty holes),
draughts on a chequerboard (dark and light pieces, places on both colours of square) and
coloured tokens on a mottled mat. Each picture is "photographed" in linear light with its own
exposure (x0.6-1.4), colour temperature, lighting gradient and vignetting, then a camera tone
curve, a slight perspective, blur, noise and JPEG compression; pieces sit up to 0.12 pitch off
their point and the corner points handed to the reader are up to 3 pixels off.

For each scenario a model is learned from `--learn` pictures and read on `--read` others (new
positions, new light); printed: places, right %, doubtful (listed on stderr by the command) and
wrong-but-not-doubtful.

    python bench/lattice_accuracy.py [--boards N] [--learn K] [--read M]

`--rules` prints instead, per rule of the lattice reader (`controller/vision/lattice/rules`), what
it does: each picture is read with every rule and with that rule left out, and the table gives
the places whose reading (label or sureness) the rule changes, and the places read right and
wrong-but-sure without it (beside the figures with every rule): per folder of the shared
photographs (each with the model learned in it, as `bench/photo_accuracy.py` reads them), over
them all, across folders (every folder read with the other folders' models, as `--cross`: of its
lattice size, then the folders of pieces with the models of another size), and on the synthetic
scenarios above. A rule that does not help across folders has no place in the
reader.

    python bench/lattice_accuracy.py --rules [--photos DIR]
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # as the referee runs (controller/__init__.py)

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import cv2  # noqa: E402
import numpy as np  # noqa: E402

from controller.vision import lattice  # noqa: E402

TEXP = 40  # texture pixels per pitch

#: scenario -> (rows, cols, labels and their probabilities)
SCENARIOS: dict[str, tuple[int, int, str, tuple[float, ...]]] = {
    "go": (9, 9, ".bw", (0.5, 0.25, 0.25)),
    "connect4": (6, 7, ".ry", (0.4, 0.3, 0.3)),
    "draughts": (8, 8, ".dl", (0.5, 0.25, 0.25)),
    "tokens": (7, 7, ".rgbyp", (0.4, 0.12, 0.12, 0.12, 0.12, 0.12)),
}


def _lin(rgb: tuple[int, int, int]) -> np.ndarray:
    """An sRGB-ish colour as linear BGR in 0-1."""
    return (np.array(rgb[::-1], np.float32) / 255) ** 2.2


def _noise(
    rng: np.random.Generator, shape: tuple[int, int], cell: int, amount: float, stretch: tuple[int, int] = (1, 1)
) -> np.ndarray:
    """Smooth multiplicative noise around 1 (wood grain with a stretched `cell`)."""
    h, w = shape
    small = rng.normal(0, 1, (max(2, h // (cell * stretch[0])), max(2, w // (cell * stretch[1]))))
    return 1 + amount * cv2.resize(small.astype(np.float32), (w, h), interpolation=cv2.INTER_CUBIC)


def _disc(img: np.ndarray, x: float, y: float, rad: float, colour: np.ndarray, shade: float, highlight: float) -> None:
    """A round piece: colour darkening towards its rim, an optional soft specular highlight."""
    h, w = img.shape[:2]
    r = int(rad * TEXP) + 2
    cx, cy = (x + 1) * TEXP, (y + 1) * TEXP
    x0, x1 = max(0, int(cx - r)), min(w, int(cx + r) + 1)
    y0, y1 = max(0, int(cy - r)), min(h, int(cy + r) + 1)
    ys, xs = np.mgrid[y0:y1, x0:x1].astype(np.float32)
    d = np.hypot(xs - cx, ys - cy) / (rad * TEXP)
    alpha = np.clip((1 - d) * rad * TEXP, 0, 1)[..., None]
    body = colour * (1 - shade * d[..., None] ** 2)
    if highlight:
        dh = np.hypot(xs - cx + 0.35 * rad * TEXP, ys - cy + 0.35 * rad * TEXP) / (rad * TEXP)
        body = body + highlight * np.exp(-((dh / 0.18) ** 2))[..., None]
    patch = img[y0:y1, x0:x1]
    patch[:] = patch * (1 - alpha) + body * alpha


def synth_board(scenario: str, grid: list[list[str]], rng: np.random.Generator) -> np.ndarray:
    """The board as a linear-light BGR texture; lattice point (r, c) at pixel ((c+1), (r+1))*TEXP."""
    rows, cols = len(grid), len(grid[0])
    h, w = (rows + 1) * TEXP, (cols + 1) * TEXP
    img = np.empty((h, w, 3), np.float32)
    if scenario == "go":
        img[:] = _lin((214, 170, 104))
        img *= _noise(rng, (h, w), 6, 0.10, (1, 12))[..., None]
        for k in range(rows):
            y = (k + 1) * TEXP
            img[y - 1 : y + 1, TEXP : cols * TEXP + 1] = _lin((40, 30, 20))
        for k in range(cols):
            x = (k + 1) * TEXP
            img[TEXP : rows * TEXP + 1, x - 1 : x + 1] = _lin((40, 30, 20))
        looks = {"b": (_lin((28, 28, 30)), 0.3, 0.25), "w": (_lin((236, 234, 226)), 0.35, 0.4)}
        rad = 0.47
    elif scenario == "connect4":
        img[:] = _lin((30, 70, 190))
        img *= _noise(rng, (h, w), 20, 0.04)[..., None]
        room = _lin((150, 140, 120)) * _noise(rng, (h, w), 30, 0.25)[..., None]
        for r in range(rows):
            for c in range(cols):
                hole = np.zeros((h, w), np.float32)
                cv2.circle(hole, ((c + 1) * TEXP, (r + 1) * TEXP), int(0.4 * TEXP), 1.0, -1, cv2.LINE_AA)
                img[:] = img * (1 - hole[..., None]) + room * hole[..., None]
        looks = {"r": (_lin((200, 30, 36)), 0.25, 0.2), "y": (_lin((240, 200, 30)), 0.25, 0.2)}
        rad = 0.39
    elif scenario == "draughts":
        dark, light = _lin((70, 110, 60)), _lin((232, 222, 190))
        for r in range(-1, rows + 1):
            for c in range(-1, cols + 1):
                y0, x0 = int((r + 0.5) * TEXP), int((c + 0.5) * TEXP)
                img[max(0, y0) : max(0, y0 + TEXP), max(0, x0) : max(0, x0 + TEXP)] = dark if (r + c) % 2 else light
        img *= _noise(rng, (h, w), 8, 0.05)[..., None]
        looks = {"d": (_lin((150, 20, 24)), 0.3, 0.15), "l": (_lin((240, 236, 220)), 0.3, 0.25)}
        rad = 0.4
    else:
        img[:] = _lin((178, 178, 170))
        img *= _noise(rng, (h, w), 5, 0.12)[..., None]
        looks = {
            "r": (_lin((210, 40, 40)), 0.15, 0.0),
            "g": (_lin((40, 150, 70)), 0.15, 0.0),
            "b": (_lin((40, 80, 200)), 0.15, 0.0),
            "y": (_lin((236, 200, 40)), 0.15, 0.0),
            "p": (_lin((140, 60, 170)), 0.15, 0.0),
        }
        rad = 0.36
    for r in range(rows):
        for c in range(cols):
            label = grid[r][c]
            if label == ".":
                continue
            colour, shade, hl = looks[label]
            dx, dy = rng.uniform(-0.12, 0.12, 2)
            _disc(img, c + dx, r + dy, rad * rng.uniform(0.97, 1.03), colour, shade, hl)
    return img


def photograph(
    board: np.ndarray, rows: int, cols: int, rng: np.random.Generator, size: tuple[int, int] = (1280, 960)
) -> tuple[np.ndarray, np.ndarray]:
    """A JPEG-compressed camera picture of a linear texture and the lattice's true corners."""
    w, h = size
    span = max(cols + 1, rows + 1)
    pitch = rng.uniform(0.7, 0.85) * min(w, h) / span
    centre = np.array([w / 2, h / 2]) + rng.uniform(-0.05, 0.05, 2) * [w, h]
    ang = np.deg2rad(rng.uniform(-6, 6))
    rot = np.array([[np.cos(ang), -np.sin(ang)], [np.sin(ang), np.cos(ang)]])
    tex_corners = np.array([[0, 0], [cols + 1, 0], [cols + 1, rows + 1], [0, rows + 1]], np.float64)
    rel = (tex_corners - [(cols + 1) / 2, (rows + 1) / 2]) * pitch
    dst = rel @ rot.T + centre + rng.uniform(-1, 1, (4, 2)) * 0.025 * pitch * span
    m = cv2.getPerspectiveTransform((tex_corners * TEXP - 0.5).astype(np.float32), dst.astype(np.float32))
    table = np.empty((h, w, 3), np.float32)
    b, g, r = (int(v) for v in rng.integers(60, 120, 3))
    table[:] = _lin((b, g, r))
    img = cv2.warpPerspective(board, m, (w, h), dst=table, flags=cv2.INTER_AREA, borderMode=cv2.BORDER_TRANSPARENT)
    # Light: exposure, colour temperature, a gradient and vignetting, all in linear light.
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    a = rng.uniform(0, 2 * np.pi)
    u = ((xs - w / 2) * np.cos(a) + (ys - h / 2) * np.sin(a)) / (w / 2)
    field = (1 + rng.uniform(0.1, 0.3) * u) * (
        1 - rng.uniform(0.05, 0.2) * ((xs - w / 2) ** 2 + (ys - h / 2) ** 2) / ((w / 2) ** 2 + (h / 2) ** 2)
    )
    t = rng.uniform(-0.18, 0.18)
    gains = np.array([1 - t, 1.0, 1 + t], np.float32) * rng.uniform(0.6, 1.4) * 0.9
    lin = img * field[..., None] * gains
    # A camera's tone curve: gamma with a gentle S, then clipping.
    enc = np.clip(lin, 0, 1) ** (1 / 2.2)
    enc = enc + 0.08 * np.sin(2 * np.pi * enc) / (2 * np.pi)
    out = cv2.GaussianBlur(enc * 255, (0, 0), rng.uniform(0.6, 1.4))
    out = np.clip(out + rng.normal(0, 2.5, out.shape), 0, 255).astype(np.uint8)
    ok, jpg = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(60, 90))])
    decoded = cv2.imdecode(jpg, cv2.IMREAD_COLOR)
    if not ok or decoded is None:
        raise RuntimeError("a synthetic board could not be encoded as JPEG")
    out = decoded
    lattice_tex = np.array([[1, 1], [cols, 1], [cols, rows], [1, rows]], np.float64) * TEXP - 0.5
    pts = cv2.perspectiveTransform(lattice_tex[None].astype(np.float32), m)[0].astype(np.float64)
    return out, pts


def random_grid(scenario: str, rng: np.random.Generator) -> list[list[str]]:
    rows, cols, labels, probs = SCENARIOS[scenario]
    return [[str(rng.choice(list(labels), p=probs)) for _ in range(cols)] for _ in range(rows)]


def make_case(
    scenario: str, seed: int, corner_error: float = 3.0
) -> tuple[np.ndarray, list[list[str]], np.ndarray, np.ndarray]:
    """(picture, labels, corners a person might give, true corners) of one synthetic board."""
    rng = np.random.default_rng(seed)
    rows, cols = SCENARIOS[scenario][:2]
    grid = random_grid(scenario, rng)
    img, corners = photograph(synth_board(scenario, grid, rng), rows, cols, rng)
    given = corners + rng.uniform(-corner_error, corner_error, corners.shape)
    return img, grid, given, corners


def render_case(seed: int) -> tuple[np.ndarray, list[list[str]], np.ndarray, np.ndarray]:
    """One of our own Colorpop boards under the `hard` preset, as the colleague measured."""
    from controller.profile import default_profile
    from controller.vision.geometry import LatticeGeometry, project
    from simulation.render import random_snapshot, render_scene

    p = default_profile("colorpop")
    snap = random_snapshot("colorpop", p, seed=seed)
    img, h = render_scene(snap, p, seed=seed, preset="hard")
    corners = project(h, LatticeGeometry(p.rows, p.cols).corner_points())
    return img, [list(r) for r in snap.cells], corners, corners


def evaluate(scenario: str, boards: int, n_learn: int, n_read: int) -> tuple[int, int, int, int, float]:
    """(places, right, doubtful, wrong-but-not-doubtful, ms per read) over `boards` models."""
    total = right = doubtful = sure_wrong = 0
    times = []
    for b in range(boards):
        seeds = [10_000 * (b + 1) + k for k in range(n_learn + n_read)]
        cases = [render_case(s) if scenario == "render-hard" else make_case(scenario, s) for s in seeds]
        size = (len(cases[0][1]), len(cases[0][1][0]))
        learn_cases = cases[:n_learn]
        model = lattice.learn([(c[0], c[1]) for c in learn_cases], size, [c[2] for c in learn_cases])
        for img, grid, given, _ in cases[n_learn:]:
            t = time.perf_counter()
            got, sure, _ = lattice.read(model, img, given)
            times.append((time.perf_counter() - t) * 1000)
            for r in range(size[0]):
                for c in range(size[1]):
                    total += 1
                    ok = got[r][c] == grid[r][c]
                    right += ok
                    doubt = not sure[r, c]
                    doubtful += doubt
                    sure_wrong += (not ok) and not doubt
    return total, right, doubtful, sure_wrong, float(np.median(times))


class RuleTally:
    """Per variant (every rule, or one left out): places read right and wrong-but-sure, and the
    places whose reading differs from the one with every rule."""

    def __init__(self) -> None:
        self.right: dict[str, int] = {}
        self.wrong: dict[str, int] = {}
        self.changed: dict[str, int] = {}

    def add(self, model: lattice.LatticeModel, seen, truth: list[str]) -> None:
        from controller.vision.lattice import rules

        truth_arr = np.array(truth, object)
        variants = {"all": rules.RULES, **{m.NAME: tuple(r for r in rules.RULES if r is not m) for m in rules.RULES}}
        base = None
        for name, chosen in variants.items():
            got = rules.judge(model, seen.feats, seen.hidden, seen.flat, chosen, seen.bounds, seen.away, seen.rectified)
            letters, sure = np.array(got.letters, object), got.sure()
            self.right[name] = self.right.get(name, 0) + int((sure & (letters == truth_arr)).sum())
            self.wrong[name] = self.wrong.get(name, 0) + int((sure & (letters != truth_arr)).sum())
            if base is None:
                base = (letters, sure)
            differ = (letters != base[0]) | (sure != base[1])
            self.changed[name] = self.changed.get(name, 0) + int(differ.sum())

    def join(self, other: RuleTally) -> None:
        for mine, theirs in ((self.right, other.right), (self.wrong, other.wrong), (self.changed, other.changed)):
            for k, v in theirs.items():
                mine[k] = mine.get(k, 0) + v

    def print(self, title: str) -> None:
        print(f"{title}: every rule: right {self.right['all']}, wrong-but-sure {self.wrong['all']}")
        print(f"  {'rule left out':14s} {'changes':>7s} {'right':>6s} {'wrong':>6s}")
        for name in self.right:
            if name != "all":
                print(f"  {name:14s} {self.changed[name]:7d} {self.right[name]:6d} {self.wrong[name]:6d}")


def rule_table(photos: str | None, boards: int, n_learn: int, n_read: int) -> int:
    """The per-rule table (`--rules`)."""
    from bench.photo_accuracy import EMPTY_FOLDER, folder_photos, learn_from, on_lattice, photos_dir, teacher
    from controller.vision.geometry import parse_corners

    root = Path(photos) if photos else photos_dir()
    seen_of: dict = {}

    def seen(photo):
        if photo.image_path not in seen_of:
            seen_of[photo.image_path] = lattice.describe(photo.image(), photo.size, parse_corners(photo.corners))
        return seen_of[photo.image_path]

    def flat(grid: list[list[str]]) -> list[str]:
        return [c for row in grid for c in row]

    if root is not None and root.is_dir():
        folders = sorted(p.name for p in root.iterdir() if p.is_dir() and p.name != EMPTY_FOLDER)
        every, across, sizes = RuleTally(), RuleTally(), RuleTally()
        models = {}
        for name in folders:
            photos_here = folder_photos(root / name)
            first = teacher(photos_here)
            models[name] = model = learn_from(first)
            here = RuleTally()
            for p in photos_here:
                if p is not first:
                    here.add(model, seen(p), flat(p.grid))
            here.print(f"folder {name}")
            every.join(here)
        every.print("every folder, its own model")
        for source, model in models.items():
            for target in [*folders, EMPTY_FOLDER]:
                if target == source:
                    continue
                photos_there = folder_photos(root / target)
                same_pieces = {c for p in photos_there for row in p.grid for c in row} <= set(model.labels)
                for p in photos_there:
                    if not {c for row in p.grid for c in row} <= set(model.labels):
                        continue
                    if p.size == model.size:
                        across.add(model, seen(p), flat(p.grid))
                    elif target != EMPTY_FOLDER and same_pieces:
                        sizes.add(on_lattice(model, p.size), seen(p), flat(p.grid))
        across.print("across folders (the other folders' models)")
        sizes.print("across lattice sizes (the models of the folders of another size, on pieces)")
    else:
        print("no photographs: ../shared/photos (or /work/shared/photos) is missing", file=sys.stderr)
    synthetic = RuleTally()
    for scenario in ["render-hard", *SCENARIOS]:
        for b in range(boards):
            seeds = [10_000 * (b + 1) + k for k in range(n_learn + n_read)]
            cases = [render_case(s) if scenario == "render-hard" else make_case(scenario, s) for s in seeds]
            size = (len(cases[0][1]), len(cases[0][1][0]))
            model = lattice.learn([(c[0], c[1]) for c in cases[:n_learn]], size, [c[2] for c in cases[:n_learn]])
            for img, grid, given, _ in cases[n_learn:]:
                synthetic.add(model, lattice.describe(img, size, given), flat(grid))
    synthetic.print("synthetic scenarios and render-hard")
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--boards", type=int, default=4, help="models learned per scenario")
    ap.add_argument("--learn", type=int, default=2, help="labelled pictures per model")
    ap.add_argument("--read", type=int, default=4, help="pictures read per model")
    ap.add_argument("--scenarios", default=",".join(["render-hard", *SCENARIOS]))
    ap.add_argument("--rules", action="store_true", help="the per-rule table instead (see above)")
    ap.add_argument("--photos", help="the photographs' folder for --rules (default ../shared/photos)")
    args = ap.parse_args()
    cv2.setNumThreads(1)
    if args.rules:
        return rule_table(args.photos, args.boards, args.learn, args.read)
    print(f"{'scenario':12} {'places':>6} {'right%':>7} {'doubtful':>8} {'sure-wrong':>10} {'ms/read':>7}")
    for scenario in args.scenarios.split(","):
        total, right, doubtful, wrong, ms = evaluate(scenario, args.boards, args.learn, args.read)
        print(f"{scenario:12} {total:6d} {100 * right / total:7.2f} {doubtful:8d} {wrong:10d} {ms:7.1f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
