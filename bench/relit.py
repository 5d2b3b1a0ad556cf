"""Reading under coloured lamps: every shared photograph and the project's renders relit by a
family of lamps, read with what was learned under neutral light (issue 32, item 2).

    python bench/relit.py [--lamps white,warm,...] [--boards N] [--games ...] [--photos DIR]
                          [--no-photos] [--no-renders] [--show]

A lamp is a gain per colour channel in linear light (`LAMPS`: a camera's sensor sees the light the
board sends back, the lamp's spectrum times the surfaces' colours, which a lamp whose spectrum
follows the camera's channels makes nearly a gain per channel), or a mixing of the channels
(`SPECTRA`: a lamp of a few narrow lines or bands, seen through the camera's overlapping
sensitivities, makes each channel a blend of what the others saw under white light; no gain per
channel, and so no white paper, undoes it; see `mixing`). The picture is taken back to linear
light (sRGB's curve, about 2.2), multiplied by the lamp's gains or matrix, and the camera's
automatic exposure brings its mean brightness
back to the neutral picture's (at most four times brighter; none for `dim`, a lamp too weak for
the camera to make up), which clips the lamp's strong channel on bright surfaces; then the curve
again, sensor noise (`--noise` grey levels), 8-bit rounding and JPEG (`--jpeg` quality). A diagonal
relighting is only a proxy of a real coloured lamp: the referee is also checked on real
photographs under real lamps.

Learning is under the neutral light: the shared photographs (`../shared/photos`) are read, per
folder, with the model learned from the folder's first photo as `bench/photo_accuracy.py` learns
it (the empty boards with the models of their lattice size); the renders of the four games
(`--boards` clean and as many hard boards each) with the standard edition's references (what a
copy calibrated under white light has). Printed per lamp: places (tiles: with their glyph; Flipop:
and doors) right, unsure and wrong-but-sure, for the photographs and the renders, and the reasons
the referee gave. Targets: 0 wrong-but-sure under every lamp; white, warm and dim read at least
99.5%.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # as the referee runs (controller/__init__.py)

import argparse
import sys
import zlib
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import cv2  # noqa: E402
import numpy as np  # noqa: E402

from bench.photo_accuracy import (  # noqa: E402
    EMPTY_FOLDER,
    EMPTY_MODELS,
    folder_photos,
    learn_from,
    photos_dir,
    teacher,
)
from controller.profile import default_profile  # noqa: E402
from controller.vision import lattice  # noqa: E402
from controller.vision.geometry import parse_corners  # noqa: E402
from controller.vision.reader import BoardReader  # noqa: E402
from simulation.render import random_snapshot, render_snapshot  # noqa: E402

#: Lamps: gains of red, green and blue in linear light, and whether the camera's automatic exposure
#: makes up for the light they take away.
LAMPS: dict[str, tuple[tuple[float, float, float], bool]] = {
    "white": ((1.0, 1.0, 1.0), True),
    "warm": ((1.0, 0.72, 0.42), True),
    "dim": ((0.28, 0.28, 0.28), False),
    "blue": ((0.25, 0.5, 1.0), True),
    "cyan": ((0.18, 0.95, 1.0), True),
    "green": ((0.3, 1.0, 0.3), True),
    "violet": ((0.6, 0.18, 1.0), True),
    "pink": ((1.0, 0.3, 0.7), True),
}
#: Wavelengths (nm) at which the spectra below are sampled.
WAVELENGTHS = np.arange(380.0, 731.0, 1.0)


def _band(peak: float, width: float) -> np.ndarray:
    """A Gaussian band of the spectrum: its peak and standard deviation (nm)."""
    return np.exp(-0.5 * ((WAVELENGTHS - peak) / width) ** 2)


#: A camera's red, green and blue sensitivities: broad overlapping bands (red with the small
#: blue lobe most sensors have), as the curves published for phone and webcam sensors look.
SENSITIVITIES = np.stack([_band(600, 35) + 0.1 * _band(445, 20), _band(540, 40), _band(460, 30)])
#: The surfaces' reflectances as smooth spectra: sums of the first three cosines over the visible
#: range (natural and printed surfaces are well described by three such terms, Maloney 1986).
REFLECTANCES = np.stack([np.cos(k * np.pi * (WAVELENGTHS - 380) / 350) for k in range(3)])

#: Lamps that mix the channels, by their spectra (relative power per wavelength).
SPECTRA: dict[str, np.ndarray] = {
    # an amber LED (590 nm): a decorative or party lamp of one narrow band, which the red and green
    # channels both see (a low-pressure sodium street lamp is narrower still)
    "amber": _band(592, 8),
    # a cheap white LED: a blue diode's line and its yellow phosphor's broad band
    "ledwhite": 0.55 * _band(452, 10) + _band(565, 50),
    # a red, green and blue party LED set to a pale white
    "rgbled": _band(630, 9) + 0.6 * _band(525, 15) + 0.9 * _band(465, 10),
    # a purple party LED: red and blue diodes
    "magenta": _band(630, 9) + 0.9 * _band(455, 10),
    # a fluorescent tube: three narrow phosphor lines over a weak continuum
    "tube": 0.15 + _band(611, 4) + 0.8 * _band(544, 4) + 0.6 * _band(436, 4),
}


def mixing(spectrum: np.ndarray) -> np.ndarray:
    """(3, 3) what the camera sees under `spectrum` (R, G, B in linear light) from what it sees
    under a white light of equal power per wavelength: a surface's reflectance is the smooth
    spectrum (`REFLECTANCES`) that gives its colour under the white light, and each channel sums
    the lamp's light it sends back through its sensitivity."""
    seen = lambda light: (SENSITIVITIES * light) @ REFLECTANCES.T  # noqa: E731
    return seen(spectrum) @ np.linalg.inv(seen(np.ones_like(WAVELENGTHS)))


def lamp_matrix(lamp: str) -> np.ndarray:
    """(3, 3) the lamp's effect on linear R, G, B: its gains on the diagonal, or its mixing."""
    if lamp in SPECTRA:
        return mixing(SPECTRA[lamp])
    return np.diag(LAMPS[lamp][0])


def lamp_names() -> list[str]:
    """Every lamp: the gains per channel, then the mixing ones."""
    return [*LAMPS, *SPECTRA]


GAMES = ["colorpop", "blockers", "flipop", "stay-alive"]
MAX_EXPOSURE = 4.0
GAMMA = 2.2


def relight(image: np.ndarray, lamp: str, seed: int, noise: float = 2.0, jpeg: int = 85) -> np.ndarray:
    """`image` (BGR, 8-bit) as a camera would see it under `lamp` (see the module's docstring)."""
    exposure = LAMPS[lamp][1] if lamp in LAMPS else True
    rng = np.random.default_rng(seed)
    lin = (image.astype(np.float32) / 255) ** GAMMA
    bgr = lamp_matrix(lamp)[::-1, ::-1].astype(np.float32)  # as B, G, R
    lit = np.maximum(lin @ bgr.T, 0.0)  # a smooth reflectance's fit may ask for less than no light
    if exposure:
        luma = np.array([0.0722, 0.7152, 0.2126], np.float32)  # B, G, R weights of brightness
        scale = float((lin @ luma).mean() / max((lit @ luma).mean(), 1e-6))
        lit *= min(scale, MAX_EXPOSURE)
    enc = np.clip(lit, 0, 1) ** (1 / GAMMA) * 255
    enc = np.clip(np.rint(enc + rng.normal(0, noise, enc.shape)), 0, 255).astype(np.uint8)
    ok, data = cv2.imencode(".jpg", enc, [cv2.IMWRITE_JPEG_QUALITY, jpeg])
    decoded = cv2.imdecode(data, cv2.IMREAD_COLOR)
    if not ok or decoded is None:
        raise RuntimeError("a relit picture could not be encoded as JPEG")
    return decoded


@dataclass
class Tally:
    places: int = 0
    right: int = 0
    unsure: int = 0
    wrong: int = 0
    why: Counter = field(default_factory=Counter)
    mistakes: list[str] = field(default_factory=list)

    def add(self, got: str, truth: str, sure: bool, where: str) -> None:
        self.places += 1
        if not sure:
            self.unsure += 1
        elif got == truth:
            self.right += 1
        else:
            self.wrong += 1
            self.mistakes.append(f"{where}: {truth} read {got}")

    def cell(self) -> str:
        pct = 100 * self.right / max(self.places, 1)
        return f"{self.places:6d} {pct:7.2f}% {self.unsure:6d} {self.wrong:5d}"


def photos(root: Path, lamp: str, models: dict[str, lattice.LatticeModel]) -> Tally:
    """Every photograph but the folders' teachers, relit, read with the neutral models."""
    tally = Tally()
    names = sorted((p.name for p in root.iterdir() if p.is_dir()), key=lambda n: n == EMPTY_FOLDER)
    for name in names:
        pics = folder_photos(root / name)
        first = None if name == EMPTY_FOLDER else teacher(pics)
        if first is not None and name not in models:
            models[name] = learn_from(first)
        for photo in pics:
            if photo is first:
                continue
            source = EMPTY_MODELS[photo.size[0]] if name == EMPTY_FOLDER else name
            if source not in models:
                models[source] = learn_from(teacher(folder_photos(root / source)))
            model = models[source]
            image = relight(photo.image(), lamp, seed=zlib.crc32(f"{name}/{photo.name}".encode()))
            seen = lattice.describe(image, photo.size, parse_corners(photo.corners))
            letters, why, _ = model.judge(seen.feats, seen.hidden, seen.flat, seen.bounds, seen.away, seen.rectified)
            cols = photo.size[1]
            for r, row in enumerate(photo.grid):
                for c, truth in enumerate(row):
                    i = r * cols + c
                    tally.add(letters[i], truth, why[i] == "", f"{name}/{photo.name} row {r} col {c}")
                    if why[i]:
                        tally.why[why[i]] += 1
    return tally


def renders(games: list[str], boards: int, lamp: str) -> Tally:
    """Every game's clean and hard renders, relit, read with the standard edition's references."""
    tally = Tally()
    for game in games:
        p = default_profile(game)
        for preset in ("clean", "hard"):
            for seed in range(boards):
                snap = random_snapshot(game, p, seed=7000 + seed)
                image = relight(render_snapshot(snap, p, seed=seed, preset=preset), lamp, seed=seed)
                reading = BoardReader(p).read(image)
                where = f"{game} {preset} {seed}"
                cells = reading.cells
                if reading.problem is not None:
                    tally.why[_short(reading.problem)] += 1
                for r, row in enumerate(snap.cells):
                    for c, truth in enumerate(row):
                        got = "?" if cells is None else cells[r][c]
                        tally.add(got, truth, "?" not in got, f"{where} row {r} col {c}")
                doors = snap.line("doors")
                if doors is not None:
                    for k, truth in enumerate(doors):
                        got = "?" if reading.doors is None else reading.doors[k]
                        tally.add(got, truth, got != "?" and cells is not None, f"{where} door {k}")
    return tally


def _short(problem: str) -> str:
    """A reading's problem without its list of places."""
    return problem.split(":")[0] if "could not be read surely" in problem else problem


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lamps", default=",".join(lamp_names()))
    ap.add_argument("--boards", type=int, default=10, help="clean and hard renders per game")
    ap.add_argument("--games", default=",".join(GAMES))
    ap.add_argument("--photos", help="the photographs' folder (default ../shared/photos)")
    ap.add_argument("--no-photos", action="store_true")
    ap.add_argument("--no-renders", action="store_true")
    ap.add_argument("--show", action="store_true", help="list every wrong-but-sure place and the reasons")
    args = ap.parse_args()
    cv2.setNumThreads(1)
    lamps = args.lamps.split(",")
    unknown = [lamp for lamp in lamps if lamp not in LAMPS and lamp not in SPECTRA]
    if unknown:
        print(f"unknown lamp {unknown[0]!r}; known: {', '.join(lamp_names())}", file=sys.stderr)
        return 2
    root = None if args.no_photos else (Path(args.photos) if args.photos else photos_dir())
    if not args.no_photos and (root is None or not root.is_dir()):
        print("no photographs: ../shared/photos (or /work/shared/photos) is missing; --no-photos", file=sys.stderr)
        return 2
    head = f"{'places':>6s} {'right%':>8s} {'unsure':>6s} {'wrong':>5s}"
    print(f"{'lamp':8s} | photographs  {head} | renders  {head}")
    models: dict[str, lattice.LatticeModel] = {}
    for lamp in lamps:
        shot = photos(root, lamp, models) if root is not None else Tally()
        drawn = Tally() if args.no_renders else renders(args.games.split(","), args.boards, lamp)
        print(f"{lamp:8s} | photographs  {shot.cell()} | renders  {drawn.cell()}", flush=True)
        if args.show:
            for name, tally in (("photographs", shot), ("renders", drawn)):
                if tally.why:
                    print(f"   {name} unsure: " + ", ".join(f"{w} {n}" for w, n in tally.why.most_common()))
                for m in tally.mistakes:
                    print(f"   {name} wrong but sure: {m}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
