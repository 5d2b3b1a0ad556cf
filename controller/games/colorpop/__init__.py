"""Colorpop (Gigamic): remove complete groups of one colour; the board falls like SameGame.

The package declares everything the game adds (`SPEC`): the rules engine (`rules.py`), its
event, its profile keys and default profile (`profile.yaml`), its look to the camera and how
players set it up and take groups out.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

from controller.games.colorpop.rules import CLEARED, RULES, ColorpopEngine, check_tokens, partial_boards, setup_board
from controller.games.spec import DISC, EMPTY_BOARD, FULL_SETUP, GameSpec, PlaySpec, Solid, VisionSpec
from controller.schema import Letter, a_mapping, one_of, whole

SPEC = GameSpec(
    name="colorpop",
    title="Colorpop",
    rules=RULES,
    shape=(10, 10),
    letters="GYOBPJ",
    engine=ColorpopEngine,
    variants=("standard", "solo", "two-colours", "teams"),
    players={"solo": 1, "teams": 4},
    events=(CLEARED,),
    settings={"joker_only_groups": Annotated[bool, one_of(True, False)]},
    profile_keys={"tokens": Annotated[dict[Letter, Annotated[int, whole(0, 100)]], a_mapping()]},
    check_profile=check_tokens,
    default_profile=Path(__file__).with_name("profile.yaml"),
    secret_colours="GYOBP",
    demo={"game": "colorpop", "variant": "standard", "players": 3},
    vision=VisionSpec(
        # "." is the floor of an empty slot.
        pieces={
            "G": (40, 160, 70),
            "Y": (242, 212, 40),
            "O": (246, 128, 30),
            "B": (30, 90, 205),
            "P": (236, 100, 172),
            "J": (234, 234, 228),
            ".": (58, 58, 64),
        },
        frame=(40, 52, 96),
        sample=(0.0, 0.28),
        calibration=(EMPTY_BOARD, FULL_SETUP),
        artwork="slots",
        # Tokens 18 mm across and 3 mm thick on a 20 mm pitch, lying in slides whose floor is 5 mm
        # below the frame that carries the markers.
        solids={letter: Solid(DISC, 0.9, 0.15, base=-0.25) for letter in "GYOBPJ"},
        floors={".": -0.25},
    ),
    play=PlaySpec(setup_board=setup_board, partial_boards=partial_boards, falls_to_bottom=True),
    ai="controller.games.colorpop.ai:KNOWLEDGE",
)
