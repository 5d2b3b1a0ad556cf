"""How the simulated camera draws each kind of board: the artwork a game's `VisionSpec.artwork` names.

Why here: the drawings belong to the simulation, which production code never imports, while
which drawing a board gets is its game's own declaration (`controller/games/`). A game that
names no artwork (or one not listed here) gets the plain board: its empty look over the lattice
and its pieces as balls in its colours (`controller.vision.looks`), so a new game is drawn, and
read back, with nothing added here.

An artwork draws in three layers, in board coordinates (lattice point (col, row) at (x, y)):
`board` the empty board (drawn once per seed and cached by the renderer), `fittings` what is
fixed to the board besides pieces (Flipop's doors, Stay Alive's slide points), `piece` one piece.

A game defined outside the catalogue (a test's game, a game package being written) brings its
own drawing without an edit here: its `VisionSpec.artwork` names it, and whoever renders the game
(its tests, a bench) registers the drawing under that name while it runs (`registered`), as
`controller.games.registry.registered` does for the game itself. Production code never imports the
simulation, which is why a game package names its drawing instead of holding it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from controller.games import registry
from controller.snapshot import EMPTY, Snapshot, parse_snapshot
from controller.vision import looks
from controller.vision.glyphs import GLYPHS
from simulation.drawing import Scene, stay_alive_points
from simulation.drawing import _ball as ball
from simulation.drawing import _Canvas as Canvas
from simulation.drawing import _rng as board_rng
from simulation.drawing import _stamp as stamp
from simulation.drawing import _tile as tile
from simulation.drawing import _wing as wing

Rgb = tuple[int, int, int]
#: The profile's symbol regions of a printed board (`regions:`), as a hashable key, or None.
Regions = tuple[tuple[str, ...], ...] | None


def _darker(rgb: Rgb, factor: float) -> Rgb:
    return tuple(int(v * factor) for v in rgb)  # type: ignore[return-value]


# --------------------------------------------------------------------------- the plain board
def plain_board(cv: Canvas, colours: dict[str, Rgb], frame: Rgb, regions: Regions) -> None:
    """The empty look of a place over the whole lattice."""
    rows, cols = cv.geom.rows, cv.geom.cols
    cv.rect(-0.5, -0.5, cols - 0.5, rows - 0.5, colours.get(EMPTY, looks.DEFAULT_BOARD))


def ball_piece(
    cv: Canvas, r: int, c: int, cell: str, rgb: Rgb, rng: Any, seed: int, tile_jitter: tuple[float, float]
) -> None:
    """A ball or marble on the place."""
    ball(cv, c, r, 0.4, rgb, 250)


@dataclass(frozen=True)
class Artwork:
    """The drawing of one kind of board (see the module's docstring for the layers)."""

    #: (canvas, colours, frame colour, regions): the empty board.
    board: Callable[[Canvas, dict[str, Rgb], Rgb, Regions], None] = plain_board
    #: (canvas, snapshot, profile, scene, seed, door jitter): what stands on the board besides pieces.
    fittings: Callable[[Canvas, Snapshot, Any, Scene, int, float], None] | None = None
    #: (canvas, row, col, cell, colour, the board's generator, seed, tile jitter): one piece.
    piece: Callable[[Canvas, int, int, str, Rgb, Any, int, tuple[float, float]], None] = ball_piece


PLAIN = Artwork()


# --------------------------------------------------------------------------- Colorpop: slots
def slots_board(cv: Canvas, colours: dict[str, Rgb], frame: Rgb, regions: Regions) -> None:
    """One slot per column, its floor showing where no token is."""
    rows, cols = cv.geom.rows, cv.geom.cols
    for c in range(cols):
        cv.rect(c - 0.46, -0.56, c + 0.46, rows - 1 + 0.56, colours[EMPTY])


def token_piece(
    cv: Canvas, r: int, c: int, cell: str, rgb: Rgb, rng: Any, seed: int, tile_jitter: tuple[float, float]
) -> None:
    """A flat token with a darker rim."""
    cv.circle(c, r, 0.44, _darker(rgb, 0.8))
    cv.circle(c, r, 0.39, rgb)


# --------------------------------------------------------------------------- Blockers!: printed regions
def printed_regions_board(cv: Canvas, colours: dict[str, Rgb], frame: Rgb, regions: Regions) -> None:
    """The printed board: a region symbol under every cell, grid lines thicker between regions."""
    rows, cols = cv.geom.rows, cv.geom.cols
    cv.rect(-0.5, -0.5, cols - 0.5, rows - 0.5, colours[EMPTY])
    for r in range(rows):
        for c in range(cols):
            sym = regions[r // 3][c // 3] if regions else "abcdefghi"[(r // 3) * 3 + c // 3]
            stamp(cv, c, r, sym, looks.SYMBOL_INK, size=0.14)
    for k in range(rows + 1):
        wid = 0.05 if k % 3 == 0 else 0.02
        cv.line(-0.5, k - 0.5, cols - 0.5, k - 0.5, looks.GRID_LINE, wid)
    for k in range(cols + 1):
        wid = 0.05 if k % 3 == 0 else 0.02
        cv.line(k - 0.5, -0.5, k - 0.5, rows - 0.5, looks.GRID_LINE, wid)


def glyph_tile_piece(
    cv: Canvas, r: int, c: int, cell: str, rgb: Rgb, rng: Any, seed: int, tile_jitter: tuple[float, float]
) -> None:
    """A tile with its glyph (a random one where the snapshot does not say)."""
    glyph = cell[1] if len(cell) > 1 and cell[1] != "?" else rng.choice(list(GLYPHS))
    tile(cv, c, r, rgb, str(glyph), board_rng("tile", seed, r, c), tile_jitter)


# --------------------------------------------------------------------------- Flipop: grooved floor and doors
def grooved_floor_board(cv: Canvas, colours: dict[str, Rgb], frame: Rgb, regions: Regions) -> None:
    """The wooden floor with a groove along every cell edge, where the door wings turn."""
    rows, cols = cv.geom.rows, cv.geom.cols
    cv.rect(-0.5, -0.5, cols - 0.5, rows - 0.5, colours[EMPTY])
    for k in range(rows + 1):
        cv.line(-0.5, k - 0.5, cols - 0.5, k - 0.5, looks.GROOVE, 0.03)
    for k in range(cols + 1):
        cv.line(k - 0.5, -0.5, k - 0.5, rows - 0.5, looks.GROOVE, 0.03)


#: The wings a door token names (`notation.md` §1: Flipop's doors line).
WINGS = "NESW"


def doors_fittings(cv: Canvas, snapshot: Snapshot, profile: Any, scene: Scene, seed: int, door_jitter: float) -> None:
    """A post between every four cells with its door's wings (the snapshot's, else the profile's start)."""
    doors = snapshot.line("doors")
    if doors is None and profile is not None and profile.get("start"):
        doors = parse_snapshot(snapshot.game, profile.get("start")).line("doors")
    per_row = cv.geom.cols - 1
    height = registry.get(snapshot.game).vision.door_height
    for k in range(per_row * (cv.geom.rows - 1)):
        i, j = divmod(k, per_row)
        px, py = j + 0.5, i + 0.5
        jrng = board_rng("door", seed, k)
        turns = [
            (d, float(jrng.uniform(-1, 1)) * door_jitter)
            for d in (doors[k] if doors else "")
            if d in WINGS  # an unread door ('?') has no wing to draw
        ]
        # A wing stands on the floor: seen from a slant it spans from where its foot appears to where
        # its top does; drawn once, where its middle appears (as a ball is drawn where its centre does).
        cv.raised(px, py, height / 2)
        for d, angle in turns:
            wing(cv, px, py, d, angle)
        cv.circle(px, py, 0.09, looks.POST)
        cv.raised(px, py, 0.0)


def flipop_ball_piece(
    cv: Canvas, r: int, c: int, cell: str, rgb: Rgb, rng: Any, seed: int, tile_jitter: tuple[float, float]
) -> None:
    """A smaller ball, between the doors; the black ones shine less."""
    ball(cv, c, r, 0.36, rgb, 250 if cell[0] == "W" else 190)


# --------------------------------------------------------------------------- Stay Alive: slides
def slide_lattice_board(cv: Canvas, colours: dict[str, Rgb], frame: Rgb, regions: Regions) -> None:
    """The frame's ribs along the rows, over the slides."""
    rows, cols = cv.geom.rows, cv.geom.cols
    for k in range(rows):
        cv.line(-0.5, k, cols - 0.5, k, tuple(min(255, v + 25) for v in frame), 0.08)


def slide_points_fittings(
    cv: Canvas, snapshot: Snapshot, profile: Any, scene: Scene, seed: int, door_jitter: float
) -> None:
    """Every point a hole in the board showing the orange slide, the white one, or (open) the dark below."""
    colours = looks.pieces(snapshot.game)
    frame = looks.FRAME[snapshot.game]
    if scene.open_points is not None:
        open_ = set(scene.open_points)
        _, white = stay_alive_points(snapshot, profile)
    else:
        open_, white = stay_alive_points(snapshot, profile)
    for r in range(cv.geom.rows):
        for c in range(cv.geom.cols):
            key = "open" if (r, c) in open_ else ".w" if (r, c) in white else ".o"
            cv.circle(c, r, 0.31, _darker(frame, 0.6))
            cv.circle(c, r, 0.28, colours[key])


#: The artworks by the name a game's `VisionSpec.artwork` gives.
ARTWORKS: dict[str, Artwork] = {
    "slots": Artwork(slots_board, piece=token_piece),
    "printed-regions": Artwork(printed_regions_board, piece=glyph_tile_piece),
    "grooved-floor": Artwork(grooved_floor_board, doors_fittings, flipop_ball_piece),
    "slide-lattice": Artwork(slide_lattice_board, slide_points_fittings),
}


@contextmanager
def registered(name: str, artwork: Artwork) -> Iterator[Artwork]:
    """`artwork` drawn for every game whose `VisionSpec.artwork` is `name` while the block runs; the
    artworks are as they were afterwards, even when the block fails."""
    before = ARTWORKS.get(name)
    ARTWORKS[name] = artwork
    try:
        yield artwork
    finally:
        if before is None:
            ARTWORKS.pop(name, None)
        else:
            ARTWORKS[name] = before


def artwork_for(game: str) -> Artwork:
    """The drawing of `game`'s board: the one its declaration names, else the plain board."""
    return ARTWORKS.get(registry.get(game).vision.artwork, PLAIN)
