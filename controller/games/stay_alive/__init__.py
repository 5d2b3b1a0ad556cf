"""Stay Alive / Pièges: slide the lattice so that the others' marbles fall through its holes.

The package declares everything the game adds (`SPEC`): the rules engine (`rules.py`), the hole
pattern of a copy (`holes.py`), the snapshot's `orange:` and `white:` slide lines (read from the
slide switches, set back by hand), its events, its profile keys and default profile
(`profile.yaml`), its look to the camera and how players set it up.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

from pydantic import create_model

from controller.games.spec import SPHERE, GameSpec, PlaySpec, Solid, VisionSpec
from controller.games.stay_alive.holes import POSITIONS, SIZE, pattern_of
from controller.games.stay_alive.rules import (
    EXPECTED_FALL_MISSING,
    FELL,
    MARBLE_DROP_SECONDS,
    ORANGE,
    RULES,
    WHITE,
    StayAliveEngine,
    random_lines,
    setup_board,
    with_switches,
)
from controller.language import _
from controller.schema import ProfileSection, items, one_of, text, whole

#: One slide in one position: its seven places, 1 where it has a hole.
_HOLES = Annotated[str, text(lambda s: len(s) == 7 and set(s) <= {"0", "1"}, _("seven characters 0 or 1"))]
#: One slide: its holes in each of its positions.
_SlideHoles = create_model("SlideHoles", __base__=ProfileSection, **{p: (_HOLES, ...) for p in POSITIONS})  # type: ignore[call-overload]
_SLIDES = Annotated[list[_SlideHoles], items(length=7)]  # type: ignore[valid-type]


class Holes(ProfileSection):
    """The profile's `holes:`: where each of the seven orange and seven white slides has its holes."""

    orange: _SLIDES
    white: _SLIDES


def empty_looks(profile: Any, snapshot: Any) -> list[str] | None:
    """The look each point of `snapshot` shows when empty (`VisionSpec.empty_looks`), from its
    `orange:` and `white:` lines and the profile's holes: "open" where both slides have a hole
    under it, ".w" where only the upper orange slide has one (the white slide shows), ".o"
    elsewhere. None where the snapshot has no slide lines or the profile no holes."""
    holes = profile.get("holes") if profile is not None else None
    orange, white = snapshot.line("orange"), snapshot.line("white")
    if not holes or orange is None or white is None:
        return None
    pattern = pattern_of(holes)
    opened, shows_white = pattern.open_points(orange, white), pattern.white_showing(orange, white)
    points = [(r, c) for r in range(SIZE) for c in range(SIZE)]
    return ["open" if p in opened else ".w" if p in shows_white else ".o" for p in points]


SPEC = GameSpec(
    name="stay-alive",
    title="Stay Alive",
    rules=RULES,
    shape=(SIZE, SIZE),
    letters="RGBY",
    engine=StayAliveEngine,
    extra_lines=(ORANGE, WHITE),
    events=(FELL, EXPECTED_FALL_MISSING),
    settings={"two_player_rule": Annotated[str, one_of("own_twice", "lift_ban")]},
    profile_keys={"holes": Holes, "marbles_per_player": Annotated[int, whole(1, 12)]},
    with_switches=with_switches,
    physics_window=MARBLE_DROP_SECONDS,
    default_profile=Path(__file__).with_name("profile.yaml"),
    demo={"game": "stay-alive", "players": 2, "seats": ["B", "Y"]},
    vision=VisionSpec(
        # An empty closed point shows the orange slide (".o") or the white one (".w"); an open
        # point the dark space under the board.
        pieces={
            "R": (204, 34, 44),
            "G": (40, 160, 72),
            "B": (40, 76, 206),
            "Y": (242, 206, 46),
            ".o": (236, 122, 36),
            ".w": (228, 228, 220),
            "open": (18, 18, 22),
        },
        frame=(46, 82, 162),
        sample=(0.0, 0.23),
        artwork="slide-lattice",
        # Marbles 15.5 mm across on a 24 mm pitch, each sunk in its hole (13.4 mm across) of the
        # 3 mm top plate; under the plate the orange slides, under them the white ones, and under
        # both, where both have a hole, the dark space under the board.
        solids={letter: Solid(SPHERE, 0.64, 0.64, base=-0.165) for letter in "RGBY"},
        floors={".o": -0.15, ".w": -0.24, "open": -0.6},
        # All three are seen through the top plate's holes: sampled at the plate's middle.
        openings={".o": -0.0625, ".w": -0.0625, "open": -0.0625},
        empty_looks=empty_looks,
    ),
    play=PlaySpec(setup_board=setup_board, random_lines=random_lines),
    ai="controller.games.stay_alive.ai:KNOWLEDGE",
)
