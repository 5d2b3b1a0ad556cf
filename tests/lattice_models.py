"""Synthetic lattice models and chess pictures shared by the lattice reader's rule tests: looks
learned elsewhere, with every feature of a look alike, so a test reads as levels."""

from __future__ import annotations

import numpy as np

from controller.vision.classify import ClassModel, ClassRef
from controller.vision.lattice import FLOOR, N_FEATURES, N_FLAT, SHIFTS, LatticeModel

#: Go: the board at 0, dark stones at -1.2, light ones at 0.4 (log levels).
BOARD, DARK_STONE, LIGHT_STONE = 0.0, -1.2, 0.4
#: Chess, learned on a wooden board: light and dark squares, dark and light pieces.
LIGHT, DARK, BLACK, WHITE = 0.5, -1.0, -1.6, 0.0
#: The learned flatness of a dark and of a light piece (an empty square's is 0).
FLAT_BLACK = [0.8, -0.6, -0.6, -0.6]
FLAT_WHITE = [0.8, 0.4, 0.4, 0.4]


def go_model(size: tuple[int, int] = (9, 9)) -> LatticeModel:
    """Three looks learned elsewhere: the board, dark stones, light stones."""
    f = N_FEATURES
    refs = [
        ClassRef(".", ".", np.full(f, BOARD), np.eye(f) * 0.08**2),
        ClassRef("B", "B", np.full(f, DARK_STONE), np.eye(f) * 0.15**2),
        ClassRef("W", "W", np.full(f, LIGHT_STONE), np.eye(f) * 0.15**2),
    ]
    return LatticeModel(size, ClassModel(refs, floor=np.full(f, FLOOR**2)))


def chess_model(flat_white: list[float] | None = None, white_spread: float = 0.1) -> LatticeModel:
    """Looks learned on a wooden board (light and dark squares, dark and light pieces); the
    flatness: an empty square flat, a piece uneven (or the light piece at `flat_white`, of
    `white_spread`)."""
    f = N_FEATURES
    refs = [
        ClassRef(".", ".", np.full(f, LIGHT), np.eye(f) * 0.15**2),
        ClassRef(".#2", ".", np.full(f, DARK), np.eye(f) * 0.15**2),
        ClassRef("K", "K", np.full(f, BLACK), np.eye(f) * 0.15**2),
        ClassRef("W", "W", np.full(f, WHITE), np.eye(f) * 0.15**2),
    ]
    flat = [
        ClassRef(".", ".", np.zeros(N_FLAT), np.eye(N_FLAT) * 0.03**2),
        ClassRef("K", "K", np.array(FLAT_BLACK), np.eye(N_FLAT) * 0.1**2),
        ClassRef(
            "W", "W", np.array(FLAT_WHITE if flat_white is None else flat_white), np.eye(N_FLAT) * white_spread**2
        ),
    ]
    return LatticeModel(
        (8, 8), ClassModel(refs, floor=np.full(f, FLOOR**2)), ClassModel(flat, floor=np.full(N_FLAT, FLOOR**2))
    )


def starting_position(
    dark_piece: float = BLACK,
    light_piece: float = WHITE,
    light_square: float = LIGHT,
    piece_flatness: dict[str, list[float]] | None = None,
    seed: int = 3,
) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """A chess starting position (dark pieces on rows 0-1, light ones on rows 6-7) at the given
    log levels (every feature alike; dark squares as learned), the pieces of the given flatness
    (as learned by default): (shifts, 64, F) features, (64, N_FLAT) flatness and the labels."""
    flatness = piece_flatness or {"K": FLAT_BLACK, "W": FLAT_WHITE}
    rng = np.random.default_rng(seed)
    labels, level, flat = [], [], []
    for r in range(8):
        for c in range(8):
            piece = "K" if r < 2 else "W" if r >= 6 else "."
            labels.append(piece)
            level.append({"K": dark_piece, "W": light_piece}.get(piece, light_square if (r + c) % 2 == 0 else DARK))
            flat.append(flatness.get(piece, [0.0] * N_FLAT))
    x = np.array(level)[:, None] + rng.normal(0, 0.01, (64, N_FEATURES))
    f = np.array(flat) + rng.normal(0, 0.01, (64, N_FLAT))
    return np.repeat(x[None], len(SHIFTS), axis=0), f, labels
