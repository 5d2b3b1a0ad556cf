"""How the standard edition of each game looks: the renderer draws these colours, and the
reader's out-of-the-box class references are derived from the same numbers.

Each game declares its own piece and frame colours (`GameSpec.vision`, in the game's module);
`PIECES` and `FRAME` look them up by game name. Colours are RGB as a person would pick them under
white light, on a scale where the white paper around the ArUco markers is `PAPER`. A real copy
that looks different is calibrated (`referee calibrate`), which replaces the references in the
user's profile.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from controller.games import registry

PAPER = (236, 236, 232)

#: The look of a board whose game declares no colours: a light printed board and well apart
#: piece colours in letter order (the classes of an uncalibrated copy of such a game).
DEFAULT_BOARD = (226, 214, 186)
DEFAULT_PIECE_COLOURS = (
    (212, 38, 42),
    (40, 84, 206),
    (40, 150, 64),
    (242, 204, 44),
    (132, 60, 172),
    (36, 36, 42),
    (246, 128, 30),
    (236, 100, 172),
)

_defaults: dict[str, dict[str, tuple[int, int, int]]] = {}


def pieces(game: str) -> dict[str, tuple[int, int, int]]:
    """Piece and place colours of `game`, keyed by reader class keys (see `controller.games.spec.VisionSpec`).

    The game's own declaration (the very mapping, so a test can change a colour), or for a game
    that declares none a default palette over its letters."""
    spec = registry.get(game)
    if spec.vision.pieces:
        return spec.vision.pieces
    if game not in _defaults:
        own = dict(zip(spec.letters, DEFAULT_PIECE_COLOURS))
        _defaults[game] = {**own, ".": DEFAULT_BOARD}
    return _defaults[game]


class _PerGame(Mapping):
    """A read-only mapping game name -> one of its looks, over the games registered now."""

    def __init__(self, look) -> None:
        self._look = look

    def __getitem__(self, game: str):
        if not registry.known(game):
            raise KeyError(game)
        return self._look(game)

    def __iter__(self) -> Iterator[str]:
        return iter(registry.names())

    def __len__(self) -> int:
        return len(registry.names())


#: Piece and place colours per game; keys are reader class keys.
PIECES: Mapping[str, dict[str, tuple[int, int, int]]] = _PerGame(pieces)

#: Colour of the board's frame (the band between the lattice and the markers) per game.
FRAME: Mapping[str, tuple[int, int, int]] = _PerGame(lambda game: registry.get(game).vision.frame)

#: Other drawing colours.
SLIDE_RAIL = (40, 52, 96)
GRID_LINE = (120, 104, 80)
SYMBOL_INK = (196, 182, 150)
GLYPH_INK = (245, 245, 240)  # the white print of a Blockers! tile's glyph
METAL = (150, 153, 160)  # Flipop door wings: steel bars
METAL_EDGE = (84, 86, 92)
METAL_SHINE = (222, 225, 232)
POST = (70, 44, 28)
GROOVE = (160, 122, 84)
