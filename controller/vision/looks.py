"""How the standard edition of each game looks: the renderer draws these colours, and the
reader's out-of-the-box class references are derived from the same numbers.

Colours are RGB as a person would pick them under white light, on a scale where the white
paper around the ArUco markers is `PAPER`. A real copy that looks different is calibrated
(`referee calibrate`), which replaces the references in the user's profile.
"""

from __future__ import annotations

PAPER = (236, 236, 232)

#: Piece and place colours per game; keys are reader class keys (see `reader.CLASS_KEYS`).
PIECES: dict[str, dict[str, tuple[int, int, int]]] = {
    "colorpop": {
        "G": (40, 160, 70),
        "Y": (242, 212, 40),
        "O": (246, 128, 30),
        "B": (30, 90, 205),
        "P": (236, 100, 172),
        "J": (234, 234, 228),
        ".": (58, 58, 64),  # the floor of an empty slot
    },
    "blockers": {
        "R": (212, 38, 42),
        "G": (40, 150, 64),
        "B": (40, 84, 206),
        "Y": (242, 204, 44),
        "V": (132, 60, 172),
        ".": (226, 214, 186),  # the printed board
    },
    "flipop": {
        "W": (236, 236, 228),
        "B": (36, 36, 42),
        ".": (206, 166, 116),  # the wooden cell floor
    },
    "stay-alive": {
        "R": (204, 34, 44),
        "G": (40, 160, 72),
        "B": (40, 76, 206),
        "Y": (242, 206, 46),
        ".o": (236, 122, 36),  # an empty closed point showing an orange slide
        ".w": (228, 228, 220),  # an empty closed point showing a white slide
        "open": (18, 18, 22),  # an open point: the dark space under the board
    },
}

#: Colour of the board's frame (the band between the lattice and the markers).
FRAME: dict[str, tuple[int, int, int]] = {
    "colorpop": (40, 52, 96),
    "blockers": (30, 92, 92),
    "flipop": (40, 92, 60),
    "stay-alive": (46, 82, 162),
}

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
