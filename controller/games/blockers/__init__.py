"""Blockers! (Kory Heath): place tiles so that no region splits, capture enclosed groups.

The package declares everything the game adds (`SPEC`): the rules engine (`rules.py`), the
board's glyphs, regions and place names (`board.py`), its two-character cells (colour then
glyph), its event, its profile keys and default profile (`profile.yaml`), and its look to the
camera with the glyph reader.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

from controller.games.blockers.board import knows_less, parse_row
from controller.games.blockers.rules import GLYPH_UNREAD, RULES, BlockersEngine, Regions, check_symbols
from controller.games.spec import GLYPHS_ADDON, TILE, CellFormat, GameSpec, Solid, VisionSpec
from controller.schema import items, text

SPEC = GameSpec(
    name="blockers",
    title="Blockers!",
    rules=RULES,
    shape=(9, 9),
    letters="RGBYV",
    engine=BlockersEngine,
    variants=("standard", "two-player"),
    cells=CellFormat(parse_row=parse_row, empty_text="..", knows_less=knows_less),
    events=(GLYPH_UNREAD,),
    profile_keys={"symbols": Annotated[list[Annotated[str, text()]], items(length=9)], "regions": Regions},
    check_profile=check_symbols,
    default_profile=Path(__file__).with_name("profile.yaml"),
    demo={"game": "blockers", "variant": "standard", "players": 3, "seats": ["R", "G", "B"]},
    vision=VisionSpec(
        # "." is the printed board.
        pieces={
            "R": (212, 38, 42),
            "G": (40, 150, 64),
            "B": (40, 84, 206),
            "Y": (242, 204, 44),
            "V": (132, 60, 172),
            ".": (226, 214, 186),
        },
        frame=(30, 92, 92),
        sample=(0.29, 0.38),  # a ring, so the printed glyph in the middle of a tile does not count
        addons=frozenset({GLYPHS_ADDON}),
        artwork="printed-regions",
        # Plastic tiles 24 mm square and 3.4 mm thick on the 28 mm printed board.
        solids={letter: Solid(TILE, 0.86, 0.12) for letter in "RGBYV"},
    ),
    ai="controller.games.blockers.ai:KNOWLEDGE",
)
