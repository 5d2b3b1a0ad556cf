"""Flipop: push balls through turning doors towards their exits.

The package declares everything the game adds (`SPEC`): the rules engine (`rules.py`), the doors
on their posts (`doors.py`), the snapshot's `doors:` line and how players set a door back, its
event, its profile keys and default profile (`profile.yaml`: the start position and the exits),
and its look to the camera with the door reader.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

from controller.games.flipop.doors import SIZE
from controller.games.flipop.play import played_lines
from controller.games.flipop.rules import DOORS_LINE, EXIT, RULES, FlipopEngine, check_profile, partial_boards
from controller.games.spec import DOORS_ADDON, SPHERE, START_POSITION, GameSpec, PlaySpec, Solid, VisionSpec
from controller.schema import Place, ProfileSection, items, text


class Exits(ProfileSection):
    """The profile's `exits:`: the places each colour's balls leave the board by."""

    W: Annotated[list[Place] | None, items(min_len=1)] = None
    B: Annotated[list[Place] | None, items(min_len=1)] = None


SPEC = GameSpec(
    name="flipop",
    title="Flipop",
    rules=RULES,
    shape=(SIZE, SIZE),
    letters="WB",
    engine=FlipopEngine,
    extra_lines=(DOORS_LINE,),
    events=(EXIT,),
    profile_keys={"start": Annotated[str, text()], "exits": Exits},
    check_profile=check_profile,
    default_profile=Path(__file__).with_name("profile.yaml"),
    ends_by_agreement=True,
    demo={"game": "flipop", "players": 2},
    vision=VisionSpec(
        pieces={"W": (236, 236, 228), "B": (36, 36, 42), ".": (206, 166, 116)},  # ".": the wooden floor
        frame=(40, 92, 60),
        sample=(0.0, 0.24),
        addons=frozenset({DOORS_ADDON}),
        calibration=(START_POSITION,),
        artwork="grooved-floor",
        # Balls 27 mm across on a 40 mm pitch, standing on the floor.
        solids={letter: Solid(SPHERE, 0.68, 0.68) for letter in "WB"},
        # Steel wings 14 mm high on the posts.
        door_height=0.35,
    ),
    play=PlaySpec(
        setup_board=lambda engine, rng: engine.start_board, partial_boards=partial_boards, played_lines=played_lines
    ),
    ai="controller.games.flipop.ai:KNOWLEDGE",
)
