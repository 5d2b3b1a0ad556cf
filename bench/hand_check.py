"""How often the hand check is fooled by a lamp's reflection near the board's edge, whether the
board is still read beside such a reflection, and how many of the renderer's hands it catches, per
game (issue 15, item 4; issue 32, item 3).

    .venv/bin/python bench/hand_check.py [--games colorpop,...] [--seeds N] [--first S] [--preset hard] [--show]

Glare: one reflection (radius 0.15-0.45 pitch unless --radius says otherwise) on the board's
frame band, 0.6-1.1 pitch outside the lattice, anywhere along a random side between the corner
markers. Glare at the edge: one reflection just outside the outer places (its centre 0.35-0.6
pitch outside the lattice, radius 0.25-0.5 pitch), whose halo lies over the outer places: the
board must still be read (target: 8 of 10 pictures per game), and never wrongly. Hands:
fingertips over a random place, the arm from a random side. Prints, per game, pictures read as 'a
hand' out of those with glare only, boards read beside a reflection at the edge (and places read
wrong-but-sure there), and hands caught out of hands shown; a hand that hides the corner markers is
not read either (counted apart, as 'markers hidden'), and none may ever be read as a board.

A desk lamp's hard shadow (issue 33): cast from beside the board across a random side's frame band
(`Scene.hard_shadow`: 0.8-3 pitches wide, up to 40 degrees off the band's normal, the lamp's share
of the light and its colour against the room's from the seed), printed as pictures taken for a hand
(a lamp's hard shadow is never a hand); and an arm in a dark sleeve (grey to black), as dark over
the band as such a shadow: every one must be caught.
"""

from __future__ import annotations

import argparse
from collections import Counter

import numpy as np

from controller.games import registry
from controller.profile import default_profile
from controller.vision.geometry import MARKERS_HIDDEN
from controller.vision.reader import HAND, BoardReader
from simulation.render import Scene, random_snapshot, render_snapshot


def edge_glare(
    profile,
    rng: np.random.Generator,
    radii: tuple[float, float] = (0.15, 0.45),
    outside: tuple[float, float] = (0.6, 1.1),
) -> tuple[float, float, float]:
    """A reflection (row, col, radius) on the frame band, `outside` pitches outside the lattice."""
    rows, cols = profile.rows, profile.cols
    out = float(rng.uniform(*outside))
    side = int(rng.integers(4))
    along = float(rng.uniform(0.0, 1.0))  # between the corner markers, not on them
    radius = float(rng.uniform(*radii))
    if side == 0:
        return (-out, along * (cols - 1), radius)
    if side == 1:
        return (rows - 1 + out, along * (cols - 1), radius)
    if side == 2:
        return (along * (rows - 1), -out, radius)
    return (along * (rows - 1), cols - 1 + out, radius)


def outcome(reading) -> str:
    """'hand', 'markers' (hidden: nothing read either), 'unsure' (places unsure) or 'read'."""
    if reading.problem is not None and reading.problem.startswith(HAND):
        return "hand"
    if reading.problem == MARKERS_HIDDEN:
        return "markers"
    return "read" if reading.snapshot is not None else "unsure"


#: A reflection just outside the outer places: where its centre is (pitches outside the lattice)
#: and its radius (pitches).
NEAR_OUTSIDE = (0.35, 0.6)
NEAR_RADII = (0.25, 0.5)


def hard_shadow(profile, rng: np.random.Generator) -> tuple[float, float, float, float]:
    """A lamp's hard shadow (row, col, width, angle) across the frame band of a random side."""
    row, col, _ = edge_glare(profile, rng, (0.0, 0.0), (0.85, 0.85))
    return (row, col, float(rng.uniform(0.8, 3.0)), float(rng.uniform(-40.0, 40.0)))


def dark_sleeve(rng: np.random.Generator) -> tuple[int, int, int]:
    """A grey to black sleeve (RGB)."""
    grey = float(rng.uniform(15, 80))
    return tuple(int(round(grey + rng.uniform(-6, 6))) for _ in range(3))  # type: ignore[return-value]


def wrong_places(reading, snap) -> list[tuple[int, int, str, str]]:
    """Places read surely and wrong (a `?` is not sure): (row, column, truth, read) each."""
    if reading.cells is None:
        return []
    return [
        (r, c, want, got)
        for r, (got_row, want_row) in enumerate(zip(reading.cells, snap.cells))
        for c, (got, want) in enumerate(zip(got_row, want_row))
        if got != want and "?" not in got
    ]


def show_wrong(game: str, seed: int, picture: str, wrong: list[tuple[int, int, str, str]]) -> None:
    """Print each place read wrong but sure (`--show`): enough to render the picture again."""
    for r, c, want, got in wrong:
        print(f"  {game} seed {seed} {picture}: r{r}c{c} {want} read {got}", flush=True)


def measure(
    game: str, seeds: int, preset: str, radii: tuple[float, float], first: int = 0, show: bool = False
) -> tuple[Counter, Counter, Counter, Counter, Counter]:
    """Outcomes of pictures with an edge reflection, with a reflection just outside the outer
    places (and its wrong-but-sure places, as 'wrong'), with a hand, with a lamp's hard shadow
    across the band (and its wrong-but-sure places), and with an arm in a dark sleeve; `show`
    lists the wrong-but-sure places as they are found."""
    p = default_profile(game)
    glare: Counter = Counter()
    near: Counter = Counter()
    hand: Counter = Counter()
    shadow: Counter = Counter()
    sleeve: Counter = Counter()
    for seed in range(first, first + seeds):
        rng = np.random.default_rng(1000 + seed)
        snap = random_snapshot(game, p, seed=seed)
        img = render_snapshot(
            snap, p, seed=seed, preset=preset, scene=Scene(glare_at=(edge_glare(p, rng, radii),), frame=1)
        )
        glare[outcome(BoardReader(p).read(img))] += 1
        spot = edge_glare(p, np.random.default_rng(5000 + seed), NEAR_RADII, NEAR_OUTSIDE)
        img = render_snapshot(snap, p, seed=seed, preset=preset, scene=Scene(glare_at=(spot,), frame=4))
        reading = BoardReader(p).read(img)
        near[outcome(reading)] += 1
        wrong = wrong_places(reading, snap)
        near["wrong"] += len(wrong)
        if show:
            show_wrong(game, seed, "glare at the edge", wrong)
        side = str(rng.choice(["bottom", "top", "left", "right"]))
        place = (float(rng.integers(p.rows)), float(rng.integers(p.cols)))
        img = render_snapshot(snap, p, seed=seed, preset=preset, scene=Scene(hand=place, hand_side=side, frame=2))
        reader = BoardReader(p)  # it saw the board before the hand came, as in play
        reader.read(render_snapshot(snap, p, seed=seed, preset=preset, scene=Scene(frame=3)))
        hand[outcome(reader.read(img))] += 1
        other = np.random.default_rng(7000 + seed)  # the pictures above stay as they were
        img = render_snapshot(
            snap, p, seed=seed, preset=preset, scene=Scene(hard_shadow=hard_shadow(p, other), frame=5)
        )
        reading = BoardReader(p).read(img)
        shadow[outcome(reading)] += 1
        wrong = wrong_places(reading, snap)
        shadow["wrong"] += len(wrong)
        if show:
            show_wrong(game, seed, "hard shadow", wrong)
        side = str(other.choice(["bottom", "top", "left", "right"]))
        place = (float(other.integers(p.rows)), float(other.integers(p.cols)))
        dressed = Scene(hand=place, hand_side=side, sleeve=dark_sleeve(other), frame=6)
        reader = BoardReader(p)
        reader.read(render_snapshot(snap, p, seed=seed, preset=preset, scene=Scene(frame=3)))
        sleeve[outcome(reader.read(render_snapshot(snap, p, seed=seed, preset=preset, scene=dressed)))] += 1
    return glare, near, hand, shadow, sleeve


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", default=",".join(registry.names()), help="games to check, comma-separated")
    ap.add_argument("--seeds", type=int, default=40)
    ap.add_argument("--first", type=int, default=0, help="the first picture's seed (others than the usual ones)")
    ap.add_argument("--preset", default="hard", choices=["clean", "hard"])
    ap.add_argument("--radius", default="0.15,0.45", help="smallest,largest reflection radius in pitches")
    ap.add_argument("--show", action="store_true", help="list every place read wrong but sure (game, seed, picture)")
    args = ap.parse_args()
    unknown = sorted(set(args.games.split(",")) - set(registry.names()))
    if unknown:
        ap.error(f"unknown game(s) {', '.join(unknown)}; expected some of {', '.join(registry.names())}")
    lo, hi = (float(v) for v in args.radius.split(","))
    print(
        f"{args.seeds} pictures per game (seeds {args.first}-{args.first + args.seeds - 1}), preset {args.preset}, "
        f"reflection radius {lo}-{hi} pitch"
    )
    for game in args.games.split(","):
        glare, near, hand, shadow, sleeve = measure(game, args.seeds, args.preset, (lo, hi), args.first, args.show)
        print(
            f"{game:11s} edge glare taken for a hand: {glare['hand']}/{args.seeds} "
            f"(read {glare['read']}, unsure {glare['unsure']}, markers hidden {glare['markers']})   "
            f"glare at the edge, board read: {near['read']}/{args.seeds} (unsure {near['unsure']}, "
            f"hand {near['hand']}, markers hidden {near['markers']}; places wrong but sure {near['wrong']})   "
            f"hands caught: {hand['hand']}/{args.seeds} (markers hidden {hand['markers']}, "
            f"unsure {hand['unsure']}, read as a board {hand['read']})   "
            f"hard shadow taken for a hand: {shadow['hand']}/{args.seeds} (read {shadow['read']}, "
            f"unsure {shadow['unsure']}; places wrong but sure {shadow['wrong']})   "
            f"dark sleeves caught: {sleeve['hand']}/{args.seeds} (markers hidden {sleeve['markers']}, "
            f"unsure {sleeve['unsure']}, read as a board {sleeve['read']})"
        )


if __name__ == "__main__":
    main()
